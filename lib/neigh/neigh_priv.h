/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/neigh private layout; never included outside lib/neigh. */
#ifndef NEIGH_PRIV_H
#define NEIGH_PRIV_H

#include <rte_hash.h>
#include <rte_rcu_qsbr.h>

#include "fr_idxpool.h"
#include "neigh.h"

/* rte_hash key: fixed 20 bytes, zero padded. */
struct neigh_key {
	uint8_t family;
	uint8_t pad;
	uint16_t port;
	uint8_t addr[16];
};

/* Control-thread-only part of an entry. */
struct neigh_cold {
	struct neigh_key key;
	uint32_t refcnt; /* next hops referring to this entry */
	uint8_t in_use;
	uint8_t configured; /* static: set by neigh_static_set() */
	uint8_t state;	    /* the control thread's copy of the hot state */
	uint8_t probes;	    /* probes sent in this state */
	uint8_t used;	    /* forwarded through since the last check */
	uint8_t nheld;
	struct rte_ether_addr mac;
	uint64_t deadline;   /* ms: next timer action, 0 none */
	uint64_t last_probe; /* ms */
	uint64_t mac_ms;     /* ms: the MAC last set or confirmed, or the state
			      * last changed (STALE, DELAY, PROBE): ARP's lock */
	void *held[NEIGH_HOLD_MAX];
	/* the mbufs each held packet takes (neigh_resolve_bufs()), for
	 * hold_total: a reassembled datagram's reply is a chain of many */
	uint16_t held_bufs[NEIGH_HOLD_MAX];
};

struct neigh_table {
	struct neigh_hot *hot;	 /* capacity entries, read by workers */
	struct neigh_cold *cold; /* capacity entries, control thread only */
	struct rte_hash *hash;	 /* key -> index */
	struct fr_idxpool *pool; /* free indexes, reused after a grace period */
	uint32_t capacity;
	uint32_t count;
	uint32_t nb_incomplete;
	uint32_t nb_failed; /* entries FAILED (neigh_tick()'s eviction looks for them) */
	uint32_t nb_held;   /* packets held, all entries */
	uint32_t bufs_held; /* their mbufs: what hold_total bounds */
	struct rte_rcu_qsbr *qsv;
	unsigned int nb_readers;
	uint64_t **used; /* per reader bitmaps of capacity bits */
	/* the entries in use, a bit each: the timers' tick visits these
	 * instead of the whole capacity (the cold half is a cache line an
	 * entry; a full sweep every 20 ms was 4 MiB at the default size) */
	uint64_t *active;
	/* entries the running tick may still evict: non-zero in a tick that
	 * found the table 7/8 full, or after one the cap stopped above 3/4
	 * (evict_on) (neigh_tick()) */
	uint32_t evict_left;
	bool evict_on;
	struct neigh_params params;
	struct neigh_ops ops;
	struct neigh_stats stats;
	uint64_t rng; /* for randomised reachable time */
};

/* neigh.c: table mechanics nud.c needs */
void neigh_state_write(struct neigh_table *t, uint32_t idx, uint8_t state,
		       const struct rte_ether_addr *mac);
uint32_t neigh_entry_new(struct neigh_table *t, const struct fr_addr *addr, uint16_t port);
/* The entry (@idx) of @addr on @port, found or created, about to be given
 * @mac: 0, -EINVAL (not a unicast MAC) or -errno (table full). */
int neigh_entry_set(struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
		    const struct rte_ether_addr *mac, uint32_t *idx);
void neigh_entry_forget(struct neigh_table *t, uint32_t idx);
void neigh_info_fill(const struct neigh_table *t, uint32_t i, struct neigh_info *ni);
void neigh_hold_release(struct neigh_table *t, uint32_t idx, const struct rte_ether_addr *mac);
void neigh_hold_drop_all(struct neigh_table *t, uint32_t idx);

#endif /* NEIGH_PRIV_H */
