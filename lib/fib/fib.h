/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The merged FIB: one table per address family in which local addresses,
 * connected subnets, broadcast addresses, gateways, blackhole, unreachable and
 * prohibit routes are all route *types*, so one lookup classifies a packet.
 *
 * A route points at a next hop (an index into the next-hop table, stored as
 * the LPM result). Next hops are shared by every route with the same
 * (type, port, gateway) and reference-counted; the data path reads them by
 * value from fib_nh_table().
 *
 * Two lookup backends sit behind this interface: DPDK's rte_fib DIR-24-8
 * (default; fast inserts) and librte_lpm (selectable; the classic one, and the
 * reference in benchmarks) for IPv4; IPv6 always uses rte_fib6 (trie). The
 * RIB (exact-match, enumerable control copy) is an rte_rib / rte_rib6.
 *
 * Concurrency: one writer (the control thread); any number of workers read
 * through fib4_lookup_bulk() and fib_nh_table() without locks. Every change
 * adds 1 to a 64-bit generation, at once (the route cache checks it).
 * Next hops that a worker may still hold are reused only after an RCU grace
 * period when fib_conf.qsv is set.
 */
#ifndef FIB_H
#define FIB_H

#include <stdint.h>
#include <string.h>

#include <rte_version.h>

#include "fr_addr.h"

struct neigh_table;
struct rte_rcu_qsbr;

/** Next-hop (route) types. Index 0 of the next-hop table is FIB_NH_NONE. */
enum fib_nh_type {
	FIB_NH_NONE = 0,    /**< no route: what a lookup returns when nothing matches */
	FIB_NH_GATEWAY,	    /**< forward to a gateway on a port */
	FIB_NH_CONNECTED,   /**< forward to the destination itself on a port */
	FIB_NH_LOCAL,	    /**< an address of the router: deliver to the control thread */
	FIB_NH_BROADCAST,   /**< a broadcast address: deliver locally, never forward */
	FIB_NH_BLACKHOLE,   /**< drop silently */
	FIB_NH_UNREACHABLE, /**< drop (ICMP unreachable) */
	FIB_NH_PROHIBIT,    /**< drop (ICMP administratively prohibited) */
	FIB_NH_MULTIPATH,   /**< forward by one of several gateways, chosen per flow
			     * (equal-cost multipath: fib_nh.neigh is its fib_mp) */
	FIB_NH_TYPE_MAX
};

/** Type names as the config language spells them. */
extern const char *const fib_nh_type_names[FIB_NH_TYPE_MAX];

/** Who installed a route. */
enum fib_origin {
	FIB_ORIGIN_STATIC = 0, /**< "route add" (config, CLI) */
	FIB_ORIGIN_PORT,       /**< installed by "port N address" (local, connected, broadcast) */
	FIB_ORIGIN_SYSTEM,     /**< installed by the router itself (255.255.255.255) */
	FIB_ORIGIN_MAX
};

extern const char *const fib_origin_names[FIB_ORIGIN_MAX];

/** "No port" for types that have none. */
#define FIB_PORT_NONE UINT16_MAX
/** "No neighbour" in fib_nh.neigh. */
#define FIB_NEIGH_NONE UINT32_MAX

/** A next hop as the data path reads it (8 bytes, by value). */
struct fib_nh {
	uint8_t type;	/**< enum fib_nh_type */
	uint8_t flags;	/**< FIB_NHF_* */
	uint16_t port;	/**< egress port (GATEWAY, CONNECTED) or owning port (LOCAL, BROADCAST) */
	uint32_t neigh; /**< neighbour index of the gateway (GATEWAY), else FIB_NEIGH_NONE */
};

/** fib_nh.flags: the next hop of the default route (0.0.0.0/0) only; it
 * is never shared, so "matched the default route" is one test (rpf's
 * ignore-default needs it). */
#define FIB_NHF_DEFAULT 0x1

/** A route as the control plane sees it. */
struct fib_route {
	struct fr_prefix prefix;
	uint8_t type;	   /**< enum fib_nh_type (not NONE) */
	uint8_t origin;	   /**< enum fib_origin */
	uint16_t port;	   /**< FIB_PORT_NONE: resolve from the gateway (GATEWAY only) */
	struct fr_addr gw; /**< GATEWAY only */
	uint32_t nh_idx;   /**< output: next-hop index in use */
	uint8_t flags;	   /**< output: FIB_RTF_* */
};

/** fib_route.flags: withdrawn from lookups, waiting for its port to come
 * up (fib_port_set_down()) */
#define FIB_RTF_DOWN 0x1
/** fib_route.flags, with FIB_RTF_DOWN: its port is up, but it could not be
 * put back (the tables filled meanwhile): fib_down_retry() tries again */
#define FIB_RTF_STRANDED 0x2

/** Gateways of a multipath route at most. */
#define FIB_MP_MAX 8
/** Distinct multipath next hops at most (their member lists). */
#define FIB_MP_GROUPS 4096

/** The weights of a multipath route's gateways add up to at most this. */
#define FIB_MP_BUCKETS 64

/** A multipath next hop's gateways as the data path reads them: @p n
 * next-hop indexes (each FIB_NH_GATEWAY), in the order configured, and
 * @p nb buckets, each gateway's as many as its weight, in that order: a
 * flow's hash picks a bucket (fib_mp_slot(h, nb)), the bucket its gateway
 * (unweighted: nb == n, bucket i gateway i). */
struct fib_mp {
	uint32_t n;
	uint32_t nh[FIB_MP_MAX];
	uint32_t nb;
	uint8_t bucket[FIB_MP_BUCKETS];
};

/** A gateway of a multipath route as the control plane gives and reads it
 * (port FIB_PORT_NONE: the connected subnet's that holds it; weight 1 to
 * FIB_MP_BUCKETS, 0 read as 1). */
struct fib_mp_member {
	struct fr_addr gw;
	uint16_t port;
	uint8_t weight;
};

/**
 * The flow hash that picks a multipath route's gateway: the same for every
 * packet of a flow (source and destination address), spread over the
 * gateways by fib_mp_slot(). Multiply-shift by the FIB's own random odd
 * @p seed (fib_mp_seed()), then mixed: two routers in a row split the same flows
 * differently (no polarisation), and a sender cannot aim its flows at one
 * gateway. Data path and control thread alike.
 */
static inline uint32_t fib_mp_hash(uint64_t seed, uint32_t src, uint32_t dst)
{
	uint32_t h = (uint32_t)((((uint64_t)src << 32 | dst) * seed) >> 32);

	/* then MurmurHash3's finalizer: the product's high half moves by the
	 * seed's for each step of the destination, so with a seed whose
	 * high half is small, consecutive destinations would all land on one
	 * gateway; mixed, every bit of the result depends on every bit of h */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/** IPv6 addresses (16 bytes each) folded for fib_mp_hash(), with @p l4
 * (0, or the ports: set ip multipath-hash l4) as the IPv4 one takes it. */
static inline uint32_t fib_mp_hash6(uint64_t seed, const uint8_t *src, const uint8_t *dst,
				    uint32_t l4)
{
	uint32_t s[4], d[4];

	memcpy(s, src, 16);
	memcpy(d, dst, 16);
	return fib_mp_hash(seed, s[0] ^ s[1] ^ s[2] ^ s[3], d[0] ^ d[1] ^ d[2] ^ d[3] ^ l4);
}

/** The gateway (0 .. n-1) hash @p h picks among @p n. */
static inline uint32_t fib_mp_slot(uint32_t h, uint32_t n)
{
	return (uint32_t)(((uint64_t)h * n) >> 32);
}

/** Lookup structure behind the FIB. */
enum fib_backend {
	FIB_BACKEND_FIB = 0, /**< rte_fib DIR-24-8 (default) */
	FIB_BACKEND_LPM,     /**< librte_lpm */
};

/** Creation parameters; zero fields take the defaults given. */
struct fib_conf {
	enum fib_backend backend;
	uint32_t max_routes4;  /**< IPv4 routes (default 1,048,576) */
	uint32_t tbl8s4;       /**< IPv4 tbl8 groups, for routes longer than /24 (default 32,767) */
	uint32_t max_routes6;  /**< IPv6 routes (default 65,536) */
	uint32_t tbl8s6;       /**< IPv6 trie tbl8 groups (default 16,384; a /64 may take five) */
	uint32_t max_nexthops; /**< next-hop indexes (default 32,768), index 0 the lookup's "no
				  route": one fewer distinct next hops. Up to 32,768 indexes
				  and 32,767 tbl8 groups (each family) the tables' entries take
				  2 bytes, else 4 */
	int socket_id;	       /**< NUMA socket of the tables */
	struct neigh_table *neigh; /**< gateways take a reference here; NULL: none */
	struct rte_rcu_qsbr *qsv;  /**< the workers' QSBR variable; NULL: no concurrent readers */
};

struct fib;

/**
 * Create an empty FIB (the next-hop table holds only FIB_NH_NONE).
 * Control thread.
 * @return the FIB, or NULL with errno set (EINVAL, ENOMEM, EEXIST).
 */
struct fib *fib_create(const char *name, const struct fib_conf *conf);

/** Free a FIB; no worker may use it any more. Control thread. */
void fib_free(struct fib *f);

/** Backend name ("fib" or "lpm"). */
const char *fib_backend_name(const struct fib *f);

/**
 * Add a route. For FIB_NH_GATEWAY with port FIB_PORT_NONE the port is the
 * one of the connected route covering the gateway. Control thread.
 * @return 0; -EEXIST the prefix is present; -EINVAL bad route (non-canonical
 *   prefix, gateway that is a local address, missing port); -ENETUNREACH the
 *   gateway is on no connected network; -ENOSPC table or next hops full;
 *   -EAFNOSUPPORT family not supported.
 */
int fib_route_add(struct fib *f, struct fib_route *r);

/**
 * Add a route or replace the one with the same prefix.
 * @param old when not NULL, receives the replaced route (type FIB_NH_NONE if
 *   there was none).
 * @return as fib_route_add() but never -EEXIST.
 */
int fib_route_replace(struct fib *f, struct fib_route *r, struct fib_route *old);

/**
 * Put back @p r, a route as fib_route_get() or a delete or replace gave it
 * (a transaction's undo), in place of what holds its prefix now. As
 * fib_route_replace(), but a route that was waiting (FIB_RTF_DOWN) and no
 * longer fits (-ENOSPC: it was stranded, its port up and the tables full)
 * waits again, stranded, retried by fib_down_retry(). Control thread.
 */
int fib_route_restore(struct fib *f, struct fib_route *r);

/**
 * Delete the route for prefix @p p. Control thread.
 * @param old when not NULL, receives the deleted route.
 * @return 0, -ENOENT, or -EINVAL (not a canonical prefix).
 */
int fib_route_del(struct fib *f, const struct fr_prefix *p, struct fib_route *old);

/**
 * Exact-match query. Control thread.
 * @return 0, or -ENOENT.
 */
int fib_route_get(const struct fib *f, const struct fr_prefix *p, struct fib_route *r);

/**
 * Longest-prefix match of @p a, answered from the RIB. Control thread.
 * @return 0, or -ENOENT when no route matches.
 */
int fib_route_lookup(const struct fib *f, const struct fr_addr *a, struct fib_route *r);
/* The route that says where @r's gateway is, as an add or replace of @r
 * resolves it (without @r's own prefix; a route waiting for its port
 * counts, flagged FIB_RTF_DOWN): 0 and @via, or -ENOENT. */
int fib_gw_via(struct fib *f, const struct fib_route *r, struct fib_route *via);

/**
 * The route that covers installed prefix @p, the route at @p left out: the
 * next shorter one that holds it (what a gateway inside @p resolves by when
 * that route is replaced). Control thread.
 * @return 0, or -ENOENT when none does (or no route is at @p).
 */
int fib_route_parent(const struct fib *f, const struct fr_prefix *p, struct fib_route *r);

/**
 * fib_route_lookup(), a multipath route's gateway chosen as the data path
 * chooses it for the flow from @p src (NULL: hash 0) to @p a, its ports
 * @p l4 (0: none; hashed as fib_mp_hash(seed, src, dst ^ l4)): the route
 * returned is FIB_NH_GATEWAY, that gateway's (its prefix the multipath
 * route's); the first from the hash's choice on whose port is not down and
 * whose neighbour is not doubtful (neigh_state_doubtful()), else the first
 * whose port is not down.
 */
int fib_route_lookup_flow(const struct fib *f, const struct fr_addr *a, const struct fr_addr *src,
			  uint32_t l4, struct fib_route *r);

/**
 * A multipath next hop of the @p n gateways @p m (2 to FIB_MP_MAX), for a
 * route of @p r's prefix and origin, held for the caller (it adds the
 * route with type FIB_NH_MULTIPATH and nh_idx @p *idx, then releases it
 * with fib_nh_release()). Each gateway is checked and given its port as
 * fib_route_add() does (m[i].port filled). Control thread.
 * @param bad on error, the member at fault (n when none is)
 * @return 0; -EINVAL (a bad gateway, or one given twice: -EEXIST),
 *   -ENETUNREACH, -ENOSPC (next hops or multipath groups full), -E2BIG
 *   (weights adding up to more than FIB_MP_BUCKETS).
 */
int fib_mp_get(struct fib *f, const struct fib_route *r, struct fib_mp_member *m, unsigned int n,
	       uint32_t *idx, unsigned int *bad);

/** The gateways of multipath next hop @p idx into @p m (FIB_MP_MAX); how
 * many (0: not a multipath next hop). Control thread. */
unsigned int fib_mp_members(const struct fib *f, uint32_t idx, struct fib_mp_member *m);

/** Release fib_mp_get()'s hold on next hop @p idx. Control thread. */
void fib_nh_release(struct fib *f, uint32_t idx);

/**
 * From fib_groups_hold() to as many fib_groups_settle(), a multipath next
 * hop that no route uses any more stays as it is (its gateways with it),
 * so that a route deleted or replaced meanwhile and put back (a
 * transaction's undo, by the route as the delete or replace gave it) finds
 * it; settled, those still unused go. Control thread.
 */
void fib_groups_hold(struct fib *f);
void fib_groups_settle(struct fib *f);

/** Multipath next hops in use (FIB_MP_GROUPS at most). */
uint32_t fib_mp_count(const struct fib *f);

/** Of them, those no route uses, kept for an undo while groups are held. */
uint32_t fib_mp_kept(const struct fib *f);

/** The FIB's fib_mp_hash() seed (random, odd, fixed for its life). */
uint64_t fib_mp_seed(const struct fib *f);

/** The multipath member lists, by fib_nh.neigh of a FIB_NH_MULTIPATH next
 * hop; workers read them without locks, as the next hops. */
const struct fib_mp *fib_mp_table(const struct fib *f);

/**
 * Call @p cb for every route of @p family, shortest prefixes first within
 * each address order; stops and returns @p cb's value when it is non-zero.
 * Control thread; @p cb must not change the FIB.
 */
int fib_route_walk(const struct fib *f, uint8_t family,
		   int (*cb)(const struct fib_route *r, void *arg), void *arg);

/** Number of routes of @p family (those waiting for their port included). */
uint32_t fib_route_count(const struct fib *f, uint8_t family);

/** How many routes of @p family the tables take (max_routes4, max_routes6). */
uint32_t fib_route_capacity(const struct fib *f, uint8_t family);

/** Of those, the routes waiting for their port (FIB_RTF_DOWN). */
uint32_t fib_route_down_count(const struct fib *f, uint8_t family);

/**
 * Port @p port goes down (@p down) or comes up again. The static routes
 * that forward through it (by a gateway on it, or 'dev') leave the lookup
 * structures while it is down, so that a covering route (a default by
 * another port) takes their traffic, as routes through a down interface do
 * in a router's RIB; they stay configured (get, walk, count, del and replace
 * see them, flagged FIB_RTF_DOWN), and routes added through the port
 * meanwhile wait with them. Up again, they are put back. Routes the port's
 * addresses installed (local, connected, broadcast) stay: the subnet is
 * reachable by no other port. A generation for each route moved, and one
 * for the port's state. No-op
 * when the port already is in that state. Control thread.
 * @param failed when not NULL, receives how many routes could not be put
 *   back (or taken out): they stay as they were.
 * @return 0, -ENOSPC (some could not be put back: table full), -ENOMEM,
 *   -EIO.
 */
int fib_port_set_down(struct fib *f, uint16_t port, bool down, uint32_t *failed);

/** Is @p port down for the FIB (fib_port_set_down())? */
bool fib_port_is_down(const struct fib *f, uint16_t port);

/** Waiting routes whose port is up again but that could not be put back
 * (the tables filled while they waited), and those of them whose port went
 * down again (its coming up leaves them to the next retry); may count one
 * since deleted too, until the next retry. */
uint32_t fib_route_stranded(const struct fib *f);

/** Waiting routes of @p family whose port is up (stranded), counted
 * exactly: a walk of the waiting routes. Control thread. */
uint32_t fib_route_stranded_count(const struct fib *f, uint8_t family);

/**
 * Try again to put back the stranded routes (periodically). Control thread.
 * @return 0, or -ENOSPC; *restored: routes put back, *failed: still out.
 */
int fib_down_retry(struct fib *f, uint32_t *restored, uint32_t *failed);

/** Number of routes of @p family with prefix length @p len. */
uint32_t fib_route_count_len(const struct fib *f, uint8_t family, unsigned int len);

/** Next hops in use by routes (the reserved FIB_NH_NONE not counted). */
uint32_t fib_nh_count(const struct fib *f);

/** How many distinct next hops the table takes: max_nexthops - 1 (index 0
 * is the lookup's "no route"). */
uint32_t fib_nh_capacity(const struct fib *f);

/** tbl8 groups of one family's tables (see fib_tbl8_usage()). */
struct fib_tbl8_usage {
	uint32_t taken;	   /**< holding entries now */
	uint32_t reserved; /**< set aside for the routes longer than /24 (IPv4) or
			    *   the levels the IPv6 routes hold: what admits a route */
	uint32_t total;	   /**< what may be reserved (--tbl8, --tbl8-6; the spare
			    *   each keeps on top is not counted) */
};

/**
 * The tbl8 groups of @p family's tables. -ENOTSUP where DPDK's counts
 * cannot be read (rte_lpm; a DPDK other than 22.11). Control thread.
 */
int fib_tbl8_usage(const struct fib *f, uint8_t family, struct fib_tbl8_usage *u);

/**
 * Look up @p n IPv4 destinations (host order) in one call.
 * Datapath-safe. @p nh receives next-hop indexes; 0 means no route.
 */
void fib4_lookup_bulk(struct fib *f, uint32_t *ips, uint64_t *nh, unsigned int n);

/**
 * Where fib4_lookup_bulk() finds an address's first-level entry, for
 * prefetching it early: the entry of @p ip is at
 * base + ((ip >> 8) << shift). With rte_fib's DIR-24-8 of DPDK 22.11 the
 * second level is known too, and fib4_lookup_one() reads both itself, one
 * address at a time where the data path wants it. The tables never move.
 * Datapath-safe.
 */
/* 1 where rte_fib's DIR-24-8 struct is known to be laid out as
 * fib4_tbl24() reads it (DPDK 22.11), so fib4_lookup_one() is offered. */
#if RTE_VERSION >= RTE_VERSION_NUM(22, 11, 0, 0) && RTE_VERSION < RTE_VERSION_NUM(22, 12, 0, 0)
#define FIB4_DIR24_8_KNOWN 1
#else
#define FIB4_DIR24_8_KNOWN 0
#endif

struct fib4_tbl24 {
	const uint8_t *base; /**< NULL: unknown, do not prefetch */
	const uint8_t *tbl8; /**< NULL: look up with fib4_lookup_bulk() only */
	uint8_t shift;	     /**< log2 of the entry size */
};

/** The tbl24 of @p f (base NULL when its layout cannot be vouched for). */
struct fib4_tbl24 fib4_tbl24(const struct fib *f);

/** Where the tbl24 entry of @p ip (host order) lies; @p t.base set. Any
 * @p ip gives an address inside the table. */
static inline const void *fib4_first_at(struct fib4_tbl24 t, uint32_t ip)
{
	return t.base + ((size_t)(ip >> 8) << t.shift);
}

/** Start loading the entry fib4_lookup_bulk() will read for @p ip (host order). */
static inline void fib4_prefetch(struct fib4_tbl24 t, uint32_t ip)
{
	if (t.base != NULL)
		__builtin_prefetch(fib4_first_at(t, ip));
}

/* Entry @p i of a DIR-24-8 table of 2-byte (@p shift 1) or 4-byte entries
 * (rte_fib6's trie stores its entries alike: fib6.c reads them so too). */
static inline uint32_t fib4_entry(const uint8_t *tbl, size_t i, uint8_t shift)
{
	if (shift == 1)
		return __atomic_load_n((const uint16_t *)(const void *)tbl + i, __ATOMIC_RELAXED);
	return __atomic_load_n((const uint32_t *)(const void *)tbl + i, __ATOMIC_RELAXED);
}

/*
 * fib4_lookup_one() below in two steps, for a caller that starts loading the
 * second level and reads it later: fib4_first() reads the tbl24 entry;
 * when it is odd, fib4_second_at() is where the second-level entry lies
 * and fib4_second() reads it, else the next hop is the entry >> 1
 * (fib4_hop() does either). The group read must be the one the entry
 * named, read right after it (one load of each level, as
 * fib4_lookup_one()). Only when @p t.tbl8 is set. Datapath-safe.
 */
static inline uint32_t fib4_first(struct fib4_tbl24 t, uint32_t ip)
{
	return fib4_entry(t.base, ip >> 8, t.shift);
}

/* the index of @p ip's entry in the group that tbl24 entry @p e names */
static inline size_t fib4_second_idx(uint32_t e, uint32_t ip)
{
	return ((size_t)(e >> 1) << 8) + (ip & 0xff);
}

static inline const void *fib4_second_at(struct fib4_tbl24 t, uint32_t e, uint32_t ip)
{
	return t.tbl8 + (fib4_second_idx(e, ip) << t.shift);
}

static inline uint64_t fib4_second(struct fib4_tbl24 t, uint32_t e, uint32_t ip)
{
	return fib4_entry(t.tbl8, fib4_second_idx(e, ip), t.shift) >> 1;
}

/*
 * @p ip's entry in the group that its tbl24 entry @p e named read 0, no
 * route: unless the group collapsed under the read. A delete that leaves a
 * /24 uniform has DPDK write that /24's tbl24 entry first, then zero its
 * group; a read between the two saw the old entry, then a zero, for an
 * address its cover routes all along (a false "no route", an rpf drop).
 * The tbl24 entry read again after the zero tells (x86 keeps DPDK's
 * plain stores in order). Out of line: rare, off the fast path.
 * Datapath-safe.
 */
uint64_t fib4_hop_again(struct fib4_tbl24 t, uint32_t e, uint32_t ip);

/* the next hop of @p ip, whose tbl24 entry is @p e */
static inline uint64_t fib4_hop(struct fib4_tbl24 t, uint32_t e, uint32_t ip)
{
	if (__builtin_expect(e & 1, 0)) {
		uint64_t h = fib4_second(t, e, ip);

		return __builtin_expect(h != 0, 1) ? h : fib4_hop_again(t, e, ip);
	}
	return e >> 1;
}

/**
 * The next-hop index of @p ip (host order), as fib4_lookup_bulk() gives it;
 * only when @p t.tbl8 is set. DIR-24-8: the tbl24 entry of the top 24 bits
 * holds (next hop << 1), or (tbl8 group << 1) | 1, and then the group's
 * entry for the last 8 bits holds the next hop the same way. One load of
 * each level, as rte_fib's own lookup reads them (the control thread's
 * writes stay ordered by the data dependency). Datapath-safe.
 */
static inline uint64_t fib4_lookup_one(struct fib4_tbl24 t, uint32_t ip)
{
	return fib4_hop(t, fib4_first(t, ip), ip);
}

/**
 * Look up @p n IPv6 destinations (16 bytes each, network order) in one call,
 * 32 at a time level by level through the trie (fib6_walks_trie()).
 * Datapath-safe. @p nh receives next-hop indexes; 0 means no route.
 */
void fib6_lookup_bulk(struct fib *f, uint8_t (*ips)[16], uint64_t *nh, unsigned int n);

/**
 * Whether the IPv6 lookups walk rte_fib6's trie themselves, level by level
 * over a burst (where its layout is known: DPDK 22.11), rather than
 * through rte_fib6_lookup_bulk(), one address at a time. For tests.
 */
bool fib6_walks_trie(const struct fib *f);

/** rte_fib6_lookup_bulk() itself on the same table, without the retry
 * during a change: the reference the tests hold the walk to. */
void fib6_lookup_bulk_dpdk(struct fib *f, uint8_t (*ips)[16], uint64_t *nh, unsigned int n);

/** A next hop of routes by gateway @p gw, or 0 when no route uses @p gw
 * (multipath sets that fib_groups_hold() keeps for an undo, and no route
 * uses, do not count). Control thread. */
uint32_t fib_gw_used(const struct fib *f, const struct fr_addr *gw);

/** The next-hop table, indexed by lookup results. Never moves. Datapath-safe. */
const struct fib_nh *fib_nh_table(const struct fib *f);

/**
 * Current generation: read once per burst by workers (acquire: a worker that
 * sees generation g also sees every table write made before g was stored).
 * Datapath-safe.
 */
uint64_t fib_generation(const struct fib *f);

/**
 * A rule around the FIB that decisions depend on changed (the martian
 * checks): bump the generation as a route change would, so that decisions
 * cached under the old rule go stale. Control thread.
 */
void fib_invalidate(struct fib *f);

/** Recycle next hops whose grace period has ended. Control thread. */
void fib_reclaim(struct fib *f);

/** Bytes of DPDK heap the FIB's tables took at fib_create() (show route
 * summary): all of it is allocated then, whatever the routes. Computed from
 * how DPDK 22.11 allocates them (the RIBs' nodes, 192 bytes each, two per
 * route, dominate), a few KiB above what the heap statistics measure;
 * tests/unit/test_fib.c holds it to within 2%. */
uint64_t fib_memory(const struct fib *f);

/** Bytes of DPDK heap fib_create() will take for @p conf, as fib_memory(). */
uint64_t fib_memory_need(const struct fib_conf *conf);

#endif /* FIB_H */
