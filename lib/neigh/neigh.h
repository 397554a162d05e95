/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Neighbour table: IPv4 (ARP) and IPv6 (ND) neighbours keyed by
 * (family, address, port), fixed capacity chosen at creation.
 *
 * Concurrency: the control thread is the only writer. Workers find entries
 * through a lock-free rte_hash (RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF) and
 * read them with neigh_read(), which never waits and never returns a torn
 * entry: the MAC address and state live in one naturally aligned 64-bit word
 * (read and written with single atomic accesses), and a per-entry sequence
 * counter, odd while the control thread writes, tells the reader which
 * generation that word belongs to. The sequence counter *is* the entry's
 * generation: every change that alters forwarding adds 2 to it, so a cache
 * can validate a saved (index, generation) pair with one load.
 *
 * Entry indexes are stable for the life of an entry. Indexes of deleted
 * entries are reused only after an RCU grace period when the table was
 * given an rte_rcu_qsbr variable (see neigh_conf.qsv).
 */
#ifndef NEIGH_H
#define NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "fr_addr.h"

/** Index meaning "no neighbour". */
#define NEIGH_IDX_NONE UINT32_MAX

/** Neighbour states (RFC 4861 7.3.2 plus STATIC and NONE). */
enum neigh_state {
	NEIGH_S_NONE = 0,   /**< entry exists (a next hop refers to it) but was never resolved */
	NEIGH_S_INCOMPLETE, /**< resolution under way */
	NEIGH_S_REACHABLE,  /**< confirmed recently */
	NEIGH_S_STALE,	    /**< usable, not confirmed recently */
	NEIGH_S_DELAY,	    /**< usable, in use while STALE: probed if not confirmed in delay_ms */
	NEIGH_S_PROBE,	    /**< usable, being re-confirmed */
	NEIGH_S_FAILED,	    /**< resolution failed */
	NEIGH_S_STATIC,	    /**< configured by the operator, never aged */
	NEIGH_S_MAX
};

_Static_assert(NEIGH_S_MAX <= 32, "neigh_state_usable() tests a 32-bit mask");

/** State names, for show commands and tests. */
extern const char *const neigh_state_names[NEIGH_S_MAX];

/** The part of an entry the data path reads; 16 bytes. */
struct neigh_hot {
	uint32_t seq;  /**< generation; odd while being written */
	uint16_t port; /**< port the neighbour is on (immutable while the entry lives) */
	uint16_t pad;
	uint64_t word; /**< bytes 0-5: MAC, byte 6: state; one atomic access */
};

/** A consistent copy of an entry, as a worker sees it. */
struct neigh_view {
	/* the MAC address in its first 6 bytes, as they lie in memory: one
	 * 8-byte store writes it into a frame whose next bytes are rewritten
	 * after (the data path's Ethernet rewrite) */
	uint64_t word;
	struct rte_ether_addr mac;
	uint8_t state;
	uint16_t port;
	uint32_t gen;
};

/** True when a neighbour in state @p s can be used to forward. */
static inline bool neigh_state_usable(uint8_t s)
{
	/* one shift and test instead of five compares (per forwarded packet);
	 * states are written from the enum only (below 32, asserted) */
	return ((1u << NEIGH_S_REACHABLE | 1u << NEIGH_S_STALE | 1u << NEIGH_S_DELAY |
		 1u << NEIGH_S_PROBE | 1u << NEIGH_S_STATIC) >>
		(s & 31)) &
	       1u;
}

/** True when a neighbour in state @p s is being resolved or failed to
 * answer: a multipath route's flows keep off such a gateway while another
 * can take them (Linux's fib_multipath_use_neigh). A never resolved one
 * (NONE) is not: its first packet resolves it. */
static inline bool neigh_state_doubtful(uint8_t s)
{
	return s == NEIGH_S_INCOMPLETE || s == NEIGH_S_FAILED;
}

/**
 * Read entry @p idx consistently.
 *
 * Datapath-safe and wait-free: no lock, no syscall, no retry. The MAC and
 * state are one atomic word, never torn. A read that overlaps the control
 * thread's write of this entry (which a preempted control thread could
 * stretch over a whole time slice: a retry loop would spin the worker
 * that long) gets the word as it was before or after the write, and a
 * generation no settled entry has (odd, or one the write passed), so a
 * cache that keeps it (neigh_gen()) refills once the write is done.
 * @param hot the array from neigh_hot_table()
 */
static inline void neigh_read(const struct neigh_hot *hot, uint32_t idx, struct neigh_view *v)
{
	const struct neigh_hot *e = &hot[idx];
	uint32_t s1, s2;
	uint64_t w;

	/* acquire: the word we read next is at least as new as s1 */
	s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	w = __atomic_load_n(&e->word, __ATOMIC_RELAXED);
	/* acquire fence: the word load completes before we re-check seq */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	/* overlapped a write: s1 odd (never a settled generation), or even
	 * and passed by s2 (the word may be the newer one) */
	v->gen = s1 == s2 ? s1 : s1 | 1;
	v->word = w;
	memcpy(&v->mac, &w, RTE_ETHER_ADDR_LEN);
	v->state = ((const uint8_t *)&w)[6];
	v->port = e->port;
}

/**
 * The MAC address (bytes 0-5) and state (byte 6) of entry @p idx, as one
 * word: always consistent, one load. For readers that keep no generation
 * (neigh_read() also gives the one the word belongs to, for a cache).
 * Datapath-safe.
 */
static inline uint64_t neigh_word(const struct neigh_hot *hot, uint32_t idx)
{
	return __atomic_load_n(&hot[idx].word, __ATOMIC_RELAXED);
}

/** The state in a word from neigh_word(). */
static inline uint8_t neigh_word_state(uint64_t w)
{
	return ((const uint8_t *)&w)[6];
}

/**
 * Current generation of entry @p idx (for cache validation).
 * Datapath-safe.
 */
static inline uint32_t neigh_gen(const struct neigh_hot *hot, uint32_t idx)
{
	return __atomic_load_n(&hot[idx].seq, __ATOMIC_ACQUIRE);
}

struct neigh_table;
struct rte_rcu_qsbr;

/** Creation parameters. */
struct neigh_conf {
	uint32_t capacity;	  /**< maximum entries (default 65536 when 0) */
	int socket_id;		  /**< NUMA socket for the tables */
	struct rte_rcu_qsbr *qsv; /**< workers' QSBR variable, or NULL (no readers) */
	unsigned int nb_readers;  /**< workers that mark entries used (neigh_used_map) */
};

/**
 * Create a neighbour table. Control thread.
 * @return the table, or NULL with rte_errno/errno set (ENOMEM, EINVAL, EEXIST).
 */
struct neigh_table *neigh_create(const char *name, const struct neigh_conf *conf);

/** Free a table (no reader may use it any more). Control thread. */
void neigh_free(struct neigh_table *t);

/** The array neigh_read() takes; it never moves. */
const struct neigh_hot *neigh_hot_table(const struct neigh_table *t);

/**
 * Find the entry for (@p addr, @p port).
 * Datapath-safe (lock-free hash lookup).
 * @return its index, or NEIGH_IDX_NONE.
 */
uint32_t neigh_find(const struct neigh_table *t, const struct fr_addr *addr, uint16_t port);

/**
 * Take a reference on the entry for (@p addr, @p port), creating it in
 * state NONE if needed (next hops hold such references). Control thread.
 * @return its index, or NEIGH_IDX_NONE with errno ENOSPC (table full).
 */
uint32_t neigh_ref(struct neigh_table *t, const struct fr_addr *addr, uint16_t port);

/** Drop a reference taken with neigh_ref(). Control thread. */
void neigh_unref(struct neigh_table *t, uint32_t idx);

/**
 * Set a static entry (created if absent). Control thread.
 * @return 0, -ENOSPC (table full), -EINVAL (bad address family or MAC).
 */
int neigh_static_set(struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
		     const struct rte_ether_addr *mac);

/**
 * Remove the entry for (@p addr, @p port), static or learnt; packets it
 * held are dropped. An entry that next hops still reference stays, in state
 * NONE. Control thread.
 * @return 0, or -ENOENT when there is no such entry.
 */
int neigh_del(struct neigh_table *t, const struct fr_addr *addr, uint16_t port);

/** What neigh_walk() hands to its callback. */
struct neigh_info {
	uint32_t idx;
	struct fr_addr addr;
	uint16_t port;
	uint8_t state;
	struct rte_ether_addr mac;
	uint32_t gen;
	uint32_t refcnt;
	uint8_t configured; /**< set by neigh_static_set() */
	uint8_t held;	    /**< packets waiting for resolution */
	uint8_t probes;	    /**< probes sent in the current state */
	uint64_t deadline;  /**< next timer, ms (0: none) */
};

/**
 * Copy out the entry for (@p addr, @p port). Control thread.
 * @return 0, or -ENOENT.
 */
int neigh_get(const struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
	      struct neigh_info *ni);

/**
 * Call @p cb for every entry, in index order; stops when @p cb returns
 * non-zero and returns that value. Control thread.
 */
int neigh_walk(const struct neigh_table *t, int (*cb)(const struct neigh_info *, void *),
	       void *arg);

/**
 * neigh_walk() over the slots from index @p from up to (not including) @p to
 * only (up to neigh_capacity()): a caller that walks a large table in
 * strides, doing other work between them. An entry added or removed
 * between two strides may be seen or not. Control thread.
 */
int neigh_walk_slots(const struct neigh_table *t, uint32_t from, uint32_t to,
		     int (*cb)(const struct neigh_info *, void *), void *arg);

/**
 * neigh_walk() in strides of 8 Ki slots (a few ms, entries or not),
 * @p between(@p barg) called between two: a table of millions of slots is
 * walked in seconds, and the control thread serves its packets there. What
 * @p between adds or removes may be seen or not. Control thread.
 */
int neigh_walk_strided(const struct neigh_table *t, int (*cb)(const struct neigh_info *, void *),
		       void *arg, void (*between)(void *), void *barg);

/** Number of entries in use. Control thread. */
uint32_t neigh_count(const struct neigh_table *t);

/** Capacity given at creation. */
uint32_t neigh_capacity(const struct neigh_table *t);

/**
 * Reclaim indexes whose grace period has ended. Control thread; cheap when
 * there is nothing to reclaim.
 */
void neigh_reclaim(struct neigh_table *t);

/* ---- dynamic resolution (ARP, later ND): control thread ---------------- */

/** Timers and limits; times in milliseconds. */
struct neigh_params {
	uint32_t reachable_ms;	 /**< REACHABLE lasts this, randomised x0.5-1.5 (30000) */
	uint32_t retrans_ms;	 /**< between probes to one neighbour (1000) */
	uint32_t mcast_probes;	 /**< broadcast probes before INCOMPLETE fails (3, 1-255) */
	uint32_t ucast_probes;	 /**< unicast probes before PROBE fails (3, 1-255) */
	uint32_t stale_ms;	 /**< an unused STALE entry expires after this (60000) */
	uint32_t failed_ms;	 /**< a FAILED entry is kept this long (3000) */
	uint32_t hold_pkts;	 /**< packets held per unresolved neighbour (4, max 16) */
	uint32_t hold_total;	 /**< mbufs held in all, so the mbuf pool survives (4096) */
	uint32_t max_incomplete; /**< INCOMPLETE entries at most (1024) */
	uint32_t delay_ms;	 /**< DELAY before the first unicast probe (5000, RFC 4861
				  * DELAY_FIRST_PROBE_TIME; 0: probe at once) */
	uint32_t lock_ms;	 /**< ARP's lock time (1000, Linux's locktime; 0: none):
				  * see NEIGH_LEARN_ARP_REPLY */
};

/** Most packets one entry can hold (neigh_params.hold_pkts <= this). */
#define NEIGH_HOLD_MAX 16

/** What the table asks of the control thread. */
struct neigh_ops {
	/** Send a probe for entry @p ni: to @p mac (unicast) or broadcast (NULL). */
	void (*probe)(void *arg, const struct neigh_info *ni, const struct rte_ether_addr *mac);
	/** A held packet leaves the queue: send it to @p mac, or, mac NULL
	 * (resolution failed, or the entry went away), the caller's to drop or
	 * send another way (a port out of service: a covering route). */
	void (*release)(void *arg, const struct neigh_info *ni, void *pkt,
			const struct rte_ether_addr *mac);
	void *arg;
};

/** How an ARP/ND packet relates to the router (what it may change). */
enum neigh_learn_kind {
	NEIGH_LEARN_REPLY,	/**< a reply addressed to us */
	NEIGH_LEARN_ARP_REPLY,	/**< an ARP reply addressed to us: a reply, but
				 *   not one that would change a MAC set or
				 *   confirmed, or whose entry changed state
				 *   (STALE, DELAY, PROBE), less than
				 *   neigh_params.lock_ms ago (refused, counted locked: of two
				 * stations  answering one request, the first stands,  as Linux's
				 * locktime keeps it) */
	NEIGH_LEARN_ARP_MERGE,	/**< ARP from a known sender to another host
				 *   (RFC 826's merge): a gratuitous one, locked
				 *   as a reply is */
	NEIGH_LEARN_REQUEST,	/**< a request for one of our addresses */
	NEIGH_LEARN_GRATUITOUS, /**< sender announces itself (sender == target) */
	NEIGH_LEARN_OTHER,	/**< anything else: changes nothing */
};

/** Outcome counters of the state machine. */
struct neigh_stats {
	uint64_t created;	     /**< dynamic entries created */
	uint64_t resolved;	     /**< a MAC confirmed or first learnt: INCOMPLETE,
				      *   DELAY, PROBE, FAILED -> REACHABLE; none,
				      *   INCOMPLETE or FAILED -> STALE by a
				      *   request or announcement */
	uint64_t updated;	     /**< MAC changed by a reply, request or gratuitous */
	uint64_t expired;	     /**< unused entries forgotten */
	uint64_t evicted;	     /**< FAILED and idle STALE entries forgotten early:
				      *   the table was 7/8 full (down to 3/4,
				      *   neigh_tick()) */
	uint64_t failed;	     /**< resolutions that failed, and PROBEs unanswered */
	uint64_t flushed;	     /**< entries forgotten: their port went out of service */
	uint64_t refused_learn;	     /**< entries a request would have made, refused:
					  the table is 3/4 full (the rest is kept for
					  next hops and resolution) */
	uint64_t probes_bcast;	     /**< broadcast probes asked for */
	uint64_t probes_ucast;	     /**< unicast probes asked for */
	uint64_t held;		     /**< packets queued while resolving (or sent at once:
				      *   resolved meanwhile); held = released +
				      *   hold_evicted + hold_failed + hold_flushed +
				      *   those waiting (neigh_held_count()) */
	uint64_t released;	     /**< held packets sent once resolved */
	uint64_t hold_dropped;	     /**< new packets refused, this entry's queue full
				      *   (evicted NULL): never held */
	uint64_t hold_evicted;	     /**< held packets pushed out by a newer one */
	uint64_t hold_total_dropped; /**< packets refused: all queues together full */
	uint64_t hold_failed;	     /**< held packets dropped: resolution failed */
	uint64_t hold_flushed;	     /**< held packets handed back, the entry gone (deleted,
				      *   its port out of service, the router stopping) */
	uint64_t refused_incomplete; /**< new entries refused: INCOMPLETE cap reached */
	uint64_t refused_full;	     /**< new entries refused: table full */
	uint64_t ignored;	     /**< ARP/ND that changed nothing (unsolicited, static) */
	uint64_t locked;	     /**< ARP replies (and merges) refused: another
				      *   MAC within neigh_params.lock_ms of the last
				      *   one set or confirmed, or of the entry's
				      *   last change of state */
};

/** Current parameters. */
void neigh_params_get(const struct neigh_table *t, struct neigh_params *p);

/**
 * Change parameters; new timers apply from the next state change.
 * @return 0, or -EINVAL (hold_pkts beyond NEIGH_HOLD_MAX, zero intervals).
 */
int neigh_params_set(struct neigh_table *t, const struct neigh_params *p);

/** Install the callbacks the state machine uses. Control thread. */
void neigh_ops_set(struct neigh_table *t, const struct neigh_ops *ops);

/**
 * Every held packet leaves its queue through the release callback as
 * dropped (mac NULL); the entries stay. Control thread (the router's stop).
 */
void neigh_hold_flush(struct neigh_table *t);

/**
 * Port @p port went out of service (its link lost, or taken down by the
 * operator): its learnt entries are forgotten (unresolved while next hops
 * refer to them), as a router forgets a link's neighbours with its carrier;
 * static ones stay. Control thread.
 * @return how many.
 */
uint32_t neigh_port_flush(struct neigh_table *t, uint16_t port);

/**
 * A packet needs neighbour (@p addr, @p port): queue it while resolving,
 * starting resolution if needed (first probe at once, then one per
 * retrans_ms at most), or release it at once if the entry is usable.
 * @param bufs the mbufs @p pkt takes (1 or more): hold_total bounds the
 *   mbufs held, so a packet of many segments (a reassembled datagram's
 *   echo reply) counts each
 * @param evicted when not NULL and this entry's queue is full, the newest
 *   packet is kept and the oldest leaves the queue here, for the caller to
 *   drop (RFC 1122 2.3.2.2, RFC 4861 7.2.2: keep the latest); NULL: the
 *   new packet is refused instead (-EBUSY).
 * @return 0 (taken), 1 (taken, *evicted to drop), or the reason the caller
 *   must drop it: -EBUSY this entry's queue is full, -ENOBUFS all queues
 *   together are full (hold_total: its mbufs would not fit, an eviction's
 *   room counted), -EDQUOT too many INCOMPLETE entries, -ENOSPC table
 *   full, -EHOSTUNREACH the neighbour failed to answer less than failed_ms
 *   ago.
 */
int neigh_resolve_bufs(struct neigh_table *t, const struct fr_addr *addr, uint16_t port, void *pkt,
		       uint16_t bufs, uint64_t now_ms, void **evicted);

/** neigh_resolve_bufs() for a packet of one mbuf. */
static inline int neigh_resolve(struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
				void *pkt, uint64_t now_ms, void **evicted)
{
	return neigh_resolve_bufs(t, addr, port, pkt, 1, now_ms, evicted);
}

/**
 * The control thread sends a packet of its own (an echo reply, an ICMP
 * error) through the entry for (@p addr, @p port): a STALE one is marked
 * used, as a worker's packet marks it, and goes to DELAY at the next tick
 * (RFC 4861 7.3.3), so a host that only talks to the router is confirmed
 * too. Control thread.
 */
void neigh_use(struct neigh_table *t, const struct fr_addr *addr, uint16_t port);

/**
 * A neighbour answered with another link-layer address but without the
 * override flag (RFC 4861 7.2.5 I (a)): a REACHABLE entry turns STALE, its
 * address kept, to be confirmed again when used. Control thread.
 * @return 1 when the entry changed, 0 when left alone (any other state).
 */
int neigh_unconfirm(struct neigh_table *t, const struct fr_addr *addr, uint16_t port, uint64_t now);

/**
 * An ARP/ND packet from (@p addr, @p mac) arrived on @p port. REPLY
 * completes an existing entry (REACHABLE); REQUEST updates or creates one
 * (STALE); GRATUITOUS updates an existing one; ARP_REPLY and ARP_MERGE
 * are REPLY and GRATUITOUS, but change no usable entry's MAC within
 * neigh_params.lock_ms of its last set, confirmation or turn to STALE
 * (counted locked); OTHER and anything for a STATIC entry change
 * nothing. An entry is never created or moved by a packet on another
 * port: entries are per port.
 * @return 1 if the table changed, 0 if not.
 */
int neigh_learn(struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
		const struct rte_ether_addr *mac, enum neigh_learn_kind kind, uint64_t now_ms);

/**
 * Put back a learnt entry (@p addr on @p port at @p mac) that an operator's
 * change a rollback undoes replaced or deleted: learnt again, STALE (its
 * next use re-confirms it), no longer static. One learnt again meanwhile
 * (resolved, not static) is newer, and stays as it is. @return 0 or -errno.
 */
int neigh_learnt_restore(struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
			 const struct rte_ether_addr *mac, uint64_t now);

/**
 * Run the timers: probes, REACHABLE -> STALE -> PROBE -> FAILED, expiry.
 * Collects the workers' "used" marks first. Call every few tens of ms.
 * A tick that finds the table 7/8 full forgets, before their time, its
 * FAILED entries, then its STALE ones idle for 5 s, that no next hop
 * refers to, in table order, until it is 3/4 full (counted evicted; 1024
 * a tick at most, the next ticks going on): room for the neighbours
 * traffic needs now, made before a resolution finds none.
 */
void neigh_tick(struct neigh_table *t, uint64_t now_ms);

/** Counters of the state machine. */
void neigh_stats_get(const struct neigh_table *t, struct neigh_stats *s);

/** Zero them. */
void neigh_stats_clear(struct neigh_table *t);

/** Entries in state INCOMPLETE now. */
uint32_t neigh_incomplete_count(const struct neigh_table *t);

/** Packets held for neighbours now, all entries together. */
uint32_t neigh_held_count(const struct neigh_table *t);

/** The mbufs those packets take (what neigh_params.hold_total bounds). */
uint32_t neigh_held_bufs(const struct neigh_table *t);

/**
 * The "used" bitmap of reader @p reader (0 .. neigh_conf.nb_readers-1):
 * workers mark the entries they forward through with neigh_mark_used(), so
 * the control thread knows which STALE entries to re-probe and which to let
 * expire. No shared counter is written on the data path.
 */
uint64_t *neigh_used_map(struct neigh_table *t, unsigned int reader);

/** Mark entry @p idx used. Datapath-safe: a load, and a locked OR at most
 * once per entry per tick (when the bit is not yet set). */
static inline void neigh_mark_used(uint64_t *map, uint32_t idx)
{
	uint64_t bit = 1ull << (idx & 63);

	if (!(__atomic_load_n(&map[idx >> 6], __ATOMIC_RELAXED) & bit))
		__atomic_fetch_or(&map[idx >> 6], bit, __ATOMIC_RELAXED);
}

#endif /* NEIGH_H */
