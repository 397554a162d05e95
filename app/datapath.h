/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-burst forwarding pipeline, independent of ports so that the
 * worker loop, the lookup benchmark and the fuzzers run the same code.
 *
 * Uses: the FIB, next-hop table and neighbour table (read-only), the ports'
 * MAC addresses, MTUs and rpf modes, the router-wide settings (dp_conf).
 * Sets: per packet, where it goes (an egress port, the control thread, or
 * dropped and counted); forwarded packets are rewritten.
 */
#ifndef FR_DATAPATH_H
#define FR_DATAPATH_H

#include <stdint.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "fib.h"
#include "nd.h"
#include "neigh.h"
#include "rtcache.h"
#include "stats.h"

#define DP_BURST 32

/* A setting the control thread changes while workers run (a dp_port's
 * mtu, rpf, rpf_ignore_default and down; dp_conf's bytes): written and read
 * whole, never split, merged or cached across bursts by the compiler. Relaxed:
 * each stands alone, and a burst may see one changed before another */
#define DP_LOAD(x)     __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define DP_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* dp_input_burst() verdicts besides an egress port number */
#define DP_OUT_DROP	0xffff /* dropped, freed and counted by the pipeline */
#define DP_OUT_CTRL	0xfffe /* for the control thread to handle (dp_ctrl_reason) */
#define DP_OUT_CTRL_ERR 0xfffd /* dropped and counted, handed over for an ICMP error */

/* Why a packet goes to the control thread. */
enum dp_ctrl_reason {
	CTRL_ARP = 1,	 /* ARP frame */
	CTRL_LOCAL,	 /* addressed to the router (local or broadcast route) */
	CTRL_RESOLVE,	 /* to forward, but the next hop has no usable neighbour */
	CTRL_ICMP_ERROR, /* dropped: send ICMP type/code about it (aux: next-hop MTU,
			  * or Parameter Problem's pointer) */
	/* rewritten, for the control thread to finish and send (aux: port):
	 * larger than the egress MTU with DF clear (fragmented), with a
	 * Record Route or Timestamp option to fill in (ip4_options_fill()),
	 * or (type ICMP_REDIRECT) due an ICMP Redirect to its sender */
	CTRL_FORWARD,
	CTRL_ORIGINATED, /* (control thread only) built by the router itself */
};

/* ICMP Redirect (RFC 792) and ICMPv6 Redirect (RFC 4861 4.5), the type of
 * a CTRL_FORWARD packet due one */
#define ICMP_REDIRECT  5
#define ICMP6_REDIRECT 137

/* The aux of a CTRL_ORIGINATED packet that is an ICMP message: its type and
 * code ride along, and it is counted as sent once handed to its port (not
 * when built: it may still wait for a neighbour that never answers). */
#define CTRL_ORIG_ICMP 1u
/* ... and of one that is a TCP reset (counted tcp_resets) */
#define CTRL_ORIG_TCP_RST 2u

/* rpf modes (RFC 3704) */
enum dp_rpf {
	DP_RPF_OFF = 0,
	DP_RPF_LOOSE,  /* the source has a route that forwards */
	DP_RPF_STRICT, /* ... and it leaves by the arrival port */
};

/* What workers know about a port (written by the control thread, read per burst). */
struct dp_port {
	struct rte_ether_addr mac;
	uint8_t rpf;		    /* enum dp_rpf */
	uint8_t rpf_ignore_default; /* loose: a match by 0.0.0.0/0 does not count */
	uint16_t mtu;		    /* largest IP packet sent on the port (IPv4 and IPv6) */
	/* out of service: its link is down (as last polled) or the operator
	 * took it down; what would leave by it is dropped (port_down), what
	 * arrives on it too (rx_port_down) */
	uint8_t down;
	uint8_t ll6[16]; /* the port's IPv6 link-local address (EUI-64) */
	/* send ICMP Redirects (RFC 1812 5.2.7.2) to the hosts on this port's
	 * link that forward through the router to a next hop on that link
	 * (default off) */
	uint8_t redirects;
	uint8_t spare[4]; /* to 32 bytes: indexed with a shift, not a multiply */
};
_Static_assert(sizeof(struct dp_port) == 32, "struct dp_port is 32 bytes");

/* The router's own IPv4 addresses and its subnets' broadcast addresses (and
 * network addresses, their older form), for
 * the martian source check (neither is ever a source; a packet for one is
 * the router's); its own IPv6 addresses (never a source either) and its
 * Subnet-Router anycast ones (no ICMPv6 error about them). Replaced whole
 * (pointer swap, the old one freed after a grace period). Built zeroed, then
 * with dp_local_add(). */
struct dp_local {
	/* one bit per address, at dp_local_bit(): a source whose bit is clear
	 * is none of them, one load instead of a pass over the list (which
	 * every packet without rpf took, once per address) */
	uint64_t filter[4];
	/* the router's own IPv6 addresses (not link-local ones, which are
	 * per port: dp_port.ll6), one bit each at dp_local6_bit() */
	uint64_t filter6[4];
	uint8_t (*addr6)[16]; /* n6 of them, in the same allocation after addr[],
			       * then the n_any6 below */
	uint32_t n6;
	/* the Subnet-Router anycast addresses of the router's IPv6 prefixes
	 * (RFC 4291 2.6.1), addr6[n6, n6 + n_any6), one bit each in
	 * filter_any6 at dp_local6_bit(): no ICMPv6 error is sent about a
	 * packet from one (RFC 4443 2.4 (e.6)), so none takes a token */
	uint32_t n_any6;
	uint64_t filter_any6[4];
	uint32_t n;
	uint32_t n_own;	 /* addr[0, n_own): the router's own; then broadcasts */
	uint32_t addr[]; /* host order */
};

/* An address's bit in dp_local.filter: the top 8 bits of a multiplicative
 * hash, so that addresses in one subnet spread over the 256 bits. */
static inline unsigned int dp_local_bit(uint32_t a)
{
	return (a * 0x9e3779b1u) >> 24;
}

/* An IPv6 address's bit in dp_local.filter6: both halves folded, hashed
 * as dp_local_bit() does. */
static inline unsigned int dp_local6_bit(const uint8_t *a)
{
	uint64_t hi, lo;

	memcpy(&hi, a, 8);
	memcpy(&lo, a + 8, 8);
	return (unsigned int)(((hi ^ lo) * 0x9e3779b97f4a7c15ull) >> 56);
}

/* Append IPv6 address @a to @l (room for it allocated), its filter bit set. */
static inline void dp_local6_add(struct dp_local *l, const uint8_t *a)
{
	unsigned int b = dp_local6_bit(a);

	memcpy(l->addr6[l->n6++], a, 16);
	l->filter6[b >> 6] |= 1ull << (b & 63);
}

/* Append Subnet-Router anycast address @a to @l (room for it allocated,
 * every own address appended before), its bit set in filter_any6. */
static inline void dp_local_any6_add(struct dp_local *l, const uint8_t *a)
{
	unsigned int b = dp_local6_bit(a);

	memcpy(l->addr6[l->n6 + l->n_any6++], a, 16);
	l->filter_any6[b >> 6] |= 1ull << (b & 63);
}

/* @a is one of the Subnet-Router anycast addresses in @l (NULL: none). */
static inline bool dp_local_anycast6(const struct dp_local *l, const uint8_t *a)
{
	unsigned int b = dp_local6_bit(a);
	uint32_t i;

	if (l == NULL || !((l->filter_any6[b >> 6] >> (b & 63)) & 1))
		return false;
	for (i = l->n6; i < l->n6 + l->n_any6; i++)
		if (memcmp(l->addr6[i], a, 16) == 0)
			return true;
	return false;
}

/* @a (host order) is in @l: one of the router's own IPv4 addresses, or a
 * broadcast or network address of one of its subnets (NULL: none). */
static inline bool dp_local_has4(const struct dp_local *l, uint32_t a)
{
	unsigned int b = dp_local_bit(a);
	uint32_t i;

	if (l == NULL || !((l->filter[b >> 6] >> (b & 63)) & 1))
		return false;
	for (i = 0; i < l->n; i++)
		if (l->addr[i] == a)
			return true;
	return false;
}

/* Append @a to @l (room for it allocated) and set its filter bit. */
static inline void dp_local_add(struct dp_local *l, uint32_t a)
{
	unsigned int b = dp_local_bit(a);

	l->addr[l->n++] = a;
	l->filter[b >> 6] |= 1ull << (b & 63);
}

/* Router-wide settings, written by the control thread, read per burst. */
struct dp_conf {
	uint8_t martians;	/* drop martian sources and destinations (default on) */
	uint8_t directed_bcast; /* forward directed broadcasts (default off) */
	uint8_t mp_hash_l4;	/* multipath: hash the ports too (set ip multipath-hash) */
	/* ICMP error tokens, one word (dp_icmp_rate()) so that a worker never
	 * reads a new cost with an old burst: TSC cycles a token in the low
	 * DP_ICMP_COST_BITS (0: none sent), the bucket's size in tokens above */
	uint64_t icmp_rate;
	uint8_t rtcache_mode; /* enum rtcache_mode: workers apply it at their next burst */
	struct dp_local *local;
};

/* A token bucket (dp_tokens_take()); all zero, it is full at its first
 * take (the cycles since the TSC started, clamped to the burst) */
struct dp_tokens {
	uint64_t left; /* tokens, in TSC cycles */
	uint64_t last; /* TSC of the last refill */
};

/* Read-only tables plus the calling worker's counters and state. */
struct dp_ctx {
	struct fib *fib;
	const struct fib_nh *nh;
	const struct fib_mp *mp; /* multipath next hops' gateways */
	uint64_t mp_seed;	 /* and the flow hash's seed (fib_mp_hash()) */
	const struct neigh_table *neigh;
	const struct neigh_hot *neigh_hot;
	const struct dp_port *ports;
	const struct dp_conf *conf;
	uint16_t nb_ports;
	struct dp_stats *st;
	uint64_t *neigh_used; /* this worker's "used" marks (NULL: none kept) */
	uint64_t fib_gen;     /* FIB generation this burst was decided under */
	struct rtcache *rtc;  /* this worker's route cache (NULL: none) */
	/* this worker's ICMP error tokens: 3/4 and Packet Too Big (path MTU
	 * discovery) have their own, so a flood of other errors (a loop's
	 * time exceeded) cannot starve them; Redirects too, so a host that
	 * ignores them and keeps sending cannot starve the others */
	struct dp_tokens icmp, icmp_pmtu, icmp_redirect;
	struct fib4_tbl24 tbl24; /* for prefetching lookups (fib4_tbl24()) */
};

#define DP_ICMP_COST_BITS 40 /* 2^40 TSC cycles: minutes at any clock */

/* dp_conf.icmp_rate: each ICMP error costs @cost TSC cycles of credit
 * (below 2^DP_ICMP_COST_BITS; 0: none sent), a bucket holds @burst
 * (below 2^24) of them */
static inline uint64_t dp_icmp_rate(uint64_t cost, uint32_t burst)
{
	return cost | (uint64_t)burst << DP_ICMP_COST_BITS;
}

/* One token from @b, a bucket of ICMP error tokens in TSC cycles: errors
 * per second (@cf's cost a token), with a burst. Workers and the control
 * thread, each on its own buckets. */
static inline bool dp_tokens_take(struct dp_tokens *b, const struct dp_conf *cf)
{
	uint64_t now, rate = __atomic_load_n(&cf->icmp_rate, __ATOMIC_RELAXED);
	uint64_t cost = rate & ((1ull << DP_ICMP_COST_BITS) - 1);
	uint64_t burst = (rate >> DP_ICMP_COST_BITS) * cost;

	if (cost == 0)
		return false;
	now = rte_rdtsc();
	b->left += now - b->last;
	b->last = now;
	if (b->left > burst)
		b->left = burst;
	if (b->left < cost)
		return false;
	b->left -= cost;
	return true;
}

/* Control-thread metadata carried in the mbuf's hash fields. */
static inline void dp_ctrl_set(struct rte_mbuf *m, enum dp_ctrl_reason r, uint8_t type,
			       uint8_t code, uint32_t aux)
{
	m->hash.usr = (uint32_t)r | (uint32_t)type << 8 | (uint32_t)code << 16;
	m->hash.fdir.hi = aux;
}

static inline enum dp_ctrl_reason dp_ctrl_reason(const struct rte_mbuf *m)
{
	return (enum dp_ctrl_reason)(m->hash.usr & 0xff);
}

static inline void dp_ctrl_reason_set(struct rte_mbuf *m, enum dp_ctrl_reason r)
{
	dp_ctrl_set(m, r, 0, 0, 0);
}

static inline uint8_t dp_ctrl_icmp_type(const struct rte_mbuf *m)
{
	return (uint8_t)(m->hash.usr >> 8);
}

static inline uint8_t dp_ctrl_icmp_code(const struct rte_mbuf *m)
{
	return (uint8_t)(m->hash.usr >> 16);
}

static inline uint32_t dp_ctrl_aux(const struct rte_mbuf *m)
{
	return m->hash.fdir.hi;
}

/* By an IPv4 address's first octet: bit 0, never a source (RFC 1812
 * 5.3.7: 0/8, 127/8, 224/3, which holds the limited broadcast); bit 1, never
 * a destination (0/8, 127/8, 240/4; the limited broadcast, delivered
 * locally, is let through by ip4_martian_dst()). One load instead of three
 * compares per address on the data path. */
#define DP_MARTIAN_SRC 0x1
#define DP_MARTIAN_DST 0x2
/* bit 2, 224/4: a multicast destination, never routed; bit 3, 169/8, which
 * holds 169.254/16 (RFC 3927 2.7: never forwarded from or to) */
#define DP_MCAST_DST  0x4
#define DP_LINK_LOCAL 0x8
extern const uint8_t dp_martian4[256];

/* 169.254/16 (host order) */
static inline bool ip4_is_link_local(uint32_t a)
{
	return (a >> 16) == 0xa9fe;
}

/* True for addresses RFC 1812 5.3.7 never accepts as a source (host order). */
static inline bool ip4_martian_src(uint32_t a)
{
	return (dp_martian4[a >> 24] & DP_MARTIAN_SRC) != 0;
}

/* True for destinations never forwarded nor accepted (0/8, 127/8, 240/4 but
 * the limited broadcast, which is delivered locally). */
static inline bool ip4_martian_dst(uint32_t a)
{
	return (dp_martian4[a >> 24] & DP_MARTIAN_DST) != 0 && a != UINT32_MAX;
}

/* RFC 1812 4.3.2.7: no ICMP error about an ICMP error, a non-first
 * fragment, a broadcast/multicast destination or L2 frame (@l2_group), or a
 * source that does not name one host; nor about a packet from one of the
 * router's own addresses or its subnets' broadcast or network addresses
 * (in @loc: with the martian checks off such a source gets this far, and
 * the error would be routed back to the router itself), refused before a
 * token is spent on it. Workers and the control thread. */
static inline bool dp_icmp4_allowed(const struct rte_mbuf *m, const struct rte_ipv4_hdr *ip,
				    bool l2_group, const struct dp_local *loc)
{
	uint32_t src = rte_be_to_cpu_32(ip->src_addr), dst = rte_be_to_cpu_32(ip->dst_addr);
	uint32_t ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * 4;

	if (l2_group || (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK)))
		return false;
	/* ip4_martian_src() holds 255.255.255.255 (test_martian_table) */
	if ((dst >> 28) == 0xe || dst == UINT32_MAX || ip4_martian_src(src) ||
	    dp_local_has4(loc, src))
		return false;
	if (ip->next_proto_id == IPPROTO_ICMP) {
		uint8_t type;

		if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + ihl + 1)
			return false;
		type = *((const uint8_t *)ip + ihl);
		/* destination unreachable, source quench, redirect, time
		 * exceeded, parameter problem */
		if (type == 3 || type == 4 || type == 5 || type == 11 || type == 12)
			return false;
	}
	return true;
}

/* Extension headers passed over to find an offending packet's upper layer
 * (dp_icmp6_allowed()): more, or a chain past the first segment, and no
 * error is sent (one may always be left out). */
#define DP_ICMP6_EXT_MAX 8

/* RFC 4443 2.4 (e): no error about an ICMPv6 error, or about a packet to a
 * group (L3 or L2), except (@group_ok) Packet Too Big and Parameter Problem
 * 4/2 for an option whose type says "send it even to a group"; never to a
 * source that does not name one node (those were dropped before). The
 * upper-layer header is found past hop-by-hop, routing, destination
 * options and authentication (AH, its length in 4-byte units) headers and
 * a first fragment's header (2.4 (e.1) holds behind them too); a later
 * fragment carries none, and may have an error. ESP hides what follows:
 * taken as an upper layer. Only the slow path (a packet that earns an
 * error) comes here. */
static inline bool dp_icmp6_allowed(const struct rte_mbuf *m, const struct rte_ipv6_hdr *ip,
				    bool l2_group, bool group_ok)
{
	const uint8_t *p = (const uint8_t *)(ip + 1);
	const uint32_t have = rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN - sizeof(*ip);
	uint32_t off = 0;
	uint8_t nh = ip->proto;
	unsigned int n;

	if (!group_ok && (l2_group || ip6_is_mcast(ip->dst_addr)))
		return false;
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip))
		return false;
	for (n = 0; nh != IPPROTO_ICMPV6; n++) {
		if (nh != 0 && nh != 43 && nh != 44 && nh != 51 && nh != 60)
			return true; /* another upper layer */
		if (n == DP_ICMP6_EXT_MAX || off + 8 > have)
			return false;
		if (nh == 44) {
			/* a fragment after the first holds no upper header */
			if ((((uint16_t)p[off + 2] << 8 | p[off + 3]) & 0xfff8) != 0)
				return true;
			nh = p[off];
			off += 8;
		} else if (nh == 51) {
			nh = p[off];
			off += ((uint32_t)p[off + 1] + 2) * 4;
		} else {
			nh = p[off];
			off += ((uint32_t)p[off + 1] + 1) * 8;
		}
	}
	if (off + 1 > have)
		return false;
	/* an error message, or a Redirect (RFC 4443 2.4 (e.1), (e.2)) */
	return !(p[off] < 128 || p[off] == 137);
}

/*
 * Classify, validate, look up (one FIB lookup per packet, one more for the
 * source when the port has rpf on) and rewrite @n packets received on
 * @in_port, DP_BURST at a time (a worker's poll takes up to four bursts:
 * the next one's table lines are asked for as one is decided). out[i]
 * receives pkts[i]'s verdict: an egress port, DP_OUT_CTRL, DP_OUT_CTRL_ERR
 * or DP_OUT_DROP (already freed). Datapath-safe.
 */
void dp_input_burst(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
		    uint16_t *out);

#endif /* FR_DATAPATH_H */
