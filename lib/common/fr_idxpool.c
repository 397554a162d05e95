/* SPDX-License-Identifier: BSD-3-Clause */
/* Index pool with RCU-deferred reuse (see fr_idxpool.h). */
#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "fr_idxpool.h"

struct fr_idxpool {
	uint32_t *free; /* stack of free indexes */
	uint32_t nb_free;
	uint32_t cap;
	struct rte_rcu_qsbr_dq *dq; /* indexes waiting for a grace period */
	struct rte_rcu_qsbr *qsv;
};

static void reuse_cb(void *p, void *data, unsigned int n)
{
	struct fr_idxpool *pool = p;
	const uint32_t *idx = data;

	RTE_SET_USED(n);
	pool->free[pool->nb_free++] = *idx;
}

struct fr_idxpool *fr_idxpool_create(const char *name, uint32_t first, uint32_t cap,
				     struct rte_rcu_qsbr *qsv, int socket_id)
{
	struct fr_idxpool *p;
	uint32_t i;

	p = rte_zmalloc_socket("idxpool", sizeof(*p), 0, socket_id);
	if (p == NULL)
		goto nomem;
	p->cap = cap;
	p->qsv = qsv;
	p->free = rte_malloc_socket("idxpool", sizeof(uint32_t) * cap, 0, socket_id);
	if (p->free == NULL)
		goto nomem;
	/* lowest index on top */
	for (i = cap; i > first; i--)
		p->free[p->nb_free++] = i - 1;
	if (qsv != NULL) {
		struct rte_rcu_qsbr_dq_parameters dqp = {0};

		dqp.name = name;
		dqp.size = cap;
		dqp.esize = sizeof(uint32_t);
		dqp.trigger_reclaim_limit = 0;
		dqp.max_reclaim_size = cap;
		dqp.free_fn = reuse_cb;
		dqp.p = p;
		dqp.v = qsv;
		p->dq = rte_rcu_qsbr_dq_create(&dqp);
		if (p->dq == NULL) {
			fr_idxpool_free(p);
			return NULL;
		}
	}
	return p;
nomem:
	fr_idxpool_free(p);
	rte_errno = ENOMEM;
	return NULL;
}

void fr_idxpool_free(struct fr_idxpool *p)
{
	if (p == NULL)
		return;
	if (p->dq != NULL)
		rte_rcu_qsbr_dq_delete(p->dq);
	rte_free(p->free);
	rte_free(p);
}

/* Indexes whose grace period has passed back to the free stack; returns
 * how many still wait for theirs. */
static unsigned int reclaim(struct fr_idxpool *p)
{
	unsigned int pending = 0;

	if (p->dq != NULL)
		rte_rcu_qsbr_dq_reclaim(p->dq, p->cap, NULL, &pending, NULL);
	return pending;
}

void fr_idxpool_reclaim(struct fr_idxpool *p)
{
	reclaim(p);
}

int fr_idxpool_get(struct fr_idxpool *p, uint32_t *idx)
{
	/* none free but some freed a moment ago: wait out their grace period
	 * (the workers pass a quiescent state every loop, microseconds) rather
	 * than refuse, so that a table is full only when it is (a rollback
	 * putting back what a transaction just replaced needs this) */
	if (p->nb_free == 0 && reclaim(p) > 0 && p->nb_free == 0) {
		rte_rcu_qsbr_synchronize(p->qsv, RTE_QSBR_THRID_INVALID);
		reclaim(p);
	}
	if (p->nb_free == 0)
		return -ENOSPC;
	*idx = p->free[--p->nb_free];
	return 0;
}

void fr_idxpool_put(struct fr_idxpool *p, uint32_t idx)
{
	if (p->dq == NULL) {
		p->free[p->nb_free++] = idx;
		return;
	}
	if (rte_rcu_qsbr_dq_enqueue(p->dq, &idx) == 0)
		return;
	/* the queue has room for every index, so this is not expected; if it
	 * happens, wait for the grace period here rather than reuse early */
	rte_rcu_qsbr_synchronize(p->qsv, RTE_QSBR_THRID_INVALID);
	p->free[p->nb_free++] = idx;
}
