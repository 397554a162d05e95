/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A pool of table indexes whose reuse waits for an RCU grace period.
 *
 * Tables that workers read by index (next hops, neighbours) take indexes
 * from here. A freed index goes on an rte_rcu_qsbr defer queue and comes back
 * only once every worker has reported a quiescent state, so a worker still
 * holding the index from a lookup made before the free keeps reading the old,
 * intact entry. This is the one place fastroute does "swap, wait for a grace
 * period, then reuse". Control thread only.
 */
#ifndef FR_IDXPOOL_H
#define FR_IDXPOOL_H

#include <stdint.h>

struct rte_rcu_qsbr;
struct fr_idxpool;

/**
 * Create a pool of indexes [first, cap).
 * @param qsv the workers' QSBR variable; NULL: freed indexes are reusable
 *   at once (no concurrent readers).
 * @return the pool, or NULL with rte_errno set.
 */
struct fr_idxpool *fr_idxpool_create(const char *name, uint32_t first, uint32_t cap,
				     struct rte_rcu_qsbr *qsv, int socket_id);

void fr_idxpool_free(struct fr_idxpool *p);

/**
 * Take an index, reclaiming indexes whose grace period has ended if the pool
 * looks empty.
 * @return 0 and *idx, or -ENOSPC.
 */
int fr_idxpool_get(struct fr_idxpool *p, uint32_t *idx);

/** Give an index back; it is handed out again after a grace period. */
void fr_idxpool_put(struct fr_idxpool *p, uint32_t idx);

/** Move indexes whose grace period has ended back to the free list. */
void fr_idxpool_reclaim(struct fr_idxpool *p);

#endif /* FR_IDXPOOL_H */
