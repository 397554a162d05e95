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
	uint8_t configured; /* set by neigh_static_set() (or learnt, later) */
};

struct neigh_table {
	struct neigh_hot *hot;	 /* capacity entries, read by workers */
	struct neigh_cold *cold; /* capacity entries, control thread only */
	struct rte_hash *hash;	 /* key -> index */
	struct fr_idxpool *pool; /* free indexes, reused after a grace period */
	uint32_t capacity;
	uint32_t count;
	struct rte_rcu_qsbr *qsv;
};

#endif /* NEIGH_PRIV_H */
