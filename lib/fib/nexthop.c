/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Next-hop table: shared, reference-counted next hops. The control thread
 * contributes compact entries (type, port, neighbour index) that workers read
 * by index; an index is reused only after an RCU grace period, so a worker
 * that looked it up before the route changed still reads a valid next hop.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "fib_priv.h"
#include "fr_idxpool.h"
#include "neigh.h"

int fib_nh_init(struct fib *f, uint32_t cap, int socket_id)
{
	struct rte_hash_parameters hp = {0};
	char name[RTE_HASH_NAMESIZE];
	f->nh_cap = cap;
	f->nh = rte_zmalloc_socket("fib_nh", sizeof(*f->nh) * cap, RTE_CACHE_LINE_SIZE, socket_id);
	f->nhc = rte_zmalloc_socket("fib_nhc", sizeof(*f->nhc) * cap, 0, socket_id);
	if (f->nh == NULL || f->nhc == NULL)
		return -ENOMEM;
	/* index 0 is FIB_NH_NONE forever: the lookup default */
	f->nh[0].type = FIB_NH_NONE;
	f->nh[0].port = FIB_PORT_NONE;
	f->nh[0].neigh = FIB_NEIGH_NONE;
	f->nhc[0].in_use = 1;
	f->nh_count = 1;

	snprintf(name, sizeof(name), "fnh_%s", f->name);
	hp.name = name;
	hp.entries = cap < 8 ? 8 : cap;
	hp.key_len = sizeof(struct nh_key);
	hp.hash_func = fr_hash_crc;
	hp.socket_id = socket_id;
	hp.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE;
	f->nh_hash = rte_hash_create(&hp);
	if (f->nh_hash == NULL)
		return -rte_errno;

	snprintf(name, sizeof(name), "fnq_%s", f->name);
	f->nh_pool = fr_idxpool_create(name, 1, cap, f->qsv, socket_id);
	if (f->nh_pool == NULL)
		return -rte_errno;
	f->mp = rte_zmalloc_socket("fib_mp", sizeof(*f->mp) * FIB_MP_GROUPS, RTE_CACHE_LINE_SIZE,
				   socket_id);
	if (f->mp == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "fmq_%s", f->name);
	f->mp_pool = fr_idxpool_create(name, 0, FIB_MP_GROUPS, f->qsv, socket_id);
	if (f->mp_pool == NULL)
		return -rte_errno;
	f->mp_pending =
		rte_zmalloc_socket("fib_mpp", sizeof(*f->mp_pending) * FIB_MP_GROUPS, 0, socket_id);
	if (f->mp_pending == NULL)
		return -ENOMEM;
	return 0;
}

void fib_nh_fini(struct fib *f)
{
	fr_idxpool_free(f->mp_pool);
	rte_free(f->mp_pending);
	rte_free(f->mp);
	fr_idxpool_free(f->nh_pool);
	rte_hash_free(f->nh_hash);
	rte_free(f->nhc);
	rte_free(f->nh);
}

void fib_reclaim(struct fib *f)
{
	fr_idxpool_reclaim(f->nh_pool);
	if (f->mp_pool != NULL)
		fr_idxpool_reclaim(f->mp_pool);
}

/* Member list @slot goes: its gateways released, the slot reused after a
 * grace period as next hops are (a worker may still read it). */
static void mp_free(struct fib *f, uint32_t slot)
{
	const struct fib_mp *g = &f->mp[slot];
	uint32_t j;

	for (j = 0; j < g->n; j++)
		fib_nh_put(f, g->nh[j]);
	fr_idxpool_put(f->mp_pool, slot);
	f->mp_count--;
}

int fib_nh_get(struct fib *f, const struct nh_key *k, uint32_t *idx)
{
	struct fr_addr gw;
	uint32_t neigh_idx = FIB_NEIGH_NONE;
	struct fib_nh *nh;
	void *data;
	uint32_t i;
	int rc;

	if (rte_hash_lookup_data(f->nh_hash, k, &data) >= 0) {
		i = (uint32_t)(uintptr_t)data;
		f->nhc[i].refcnt++;
		*idx = i;
		return 0;
	}
	if (fr_idxpool_get(f->nh_pool, &i) != 0)
		return -ENOSPC;
	if (k->type == FIB_NH_MULTIPATH) {
		/* its member list, where workers read it; it holds its
		 * gateways' next hops */
		struct fib_mp *g;
		unsigned int j;

		if (fr_idxpool_get(f->mp_pool, &neigh_idx) != 0) {
			fr_idxpool_put(f->nh_pool, i);
			return -ENOSPC;
		}
		g = &f->mp[neigh_idx];
		g->nb = 0;
		for (j = 0; j < FIB_MP_MAX && k->members[j] != 0; j++) {
			uint32_t w;

			g->nh[j] = k->members[j];
			fib_nh_ref(f, k->members[j]);
			/* fib_mp_get() checked the sum */
			for (w = 0; w < k->weights[j] && g->nb < FIB_MP_BUCKETS; w++)
				g->bucket[g->nb++] = (uint8_t)j;
		}
		g->n = j;
		f->mp_count++;
	} else if (k->type == FIB_NH_GATEWAY && f->neigh != NULL) {
		memset(&gw, 0, sizeof(gw));
		gw.family = k->family;
		if (k->family == AF_INET)
			memcpy(&gw.v4, k->gw, sizeof(gw.v4));
		else
			memcpy(gw.v6, k->gw, 16);
		neigh_idx = neigh_ref(f->neigh, &gw, k->port);
		if (neigh_idx == NEIGH_IDX_NONE) {
			fr_idxpool_put(f->nh_pool, i);
			return -ENOSPC;
		}
	}
	rc = rte_hash_add_key_data(f->nh_hash, k, (void *)(uintptr_t)i);
	if (rc < 0) {
		fr_idxpool_put(f->nh_pool, i);
		if (k->type == FIB_NH_MULTIPATH)
			mp_free(f, neigh_idx);
		else if (neigh_idx != FIB_NEIGH_NONE)
			neigh_unref(f->neigh, neigh_idx);
		return -ENOSPC;
	}
	/*
	 * The index is not reachable from any lookup structure yet; the route
	 * update that publishes it (a plain rte_fib/rte_lpm store) comes after
	 * these stores. A worker reads the generation before its lookup, so
	 * that bump orders nothing here: the fence below does (a compiler
	 * barrier on x86; on weaker memory a worker that sees the index could
	 * otherwise read the recycled entry's previous port and neighbour).
	 */
	nh = &f->nh[i];
	nh->type = k->type;
	nh->flags = k->flags;
	nh->port = k->port;
	nh->neigh = neigh_idx;
	f->nhc[i].key = *k;
	f->nhc[i].refcnt = 1;
	f->nhc[i].in_use = 1;
	f->nh_count++;
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	*idx = i;
	return 0;
}

static void nh_free(struct fib *f, uint32_t idx)
{
	struct nh_ctl *c = &f->nhc[idx];

	rte_hash_del_key(f->nh_hash, &c->key);
	if (c->key.type == FIB_NH_MULTIPATH)
		mp_free(f, f->nh[idx].neigh);
	else if (f->nh[idx].neigh != FIB_NEIGH_NONE && f->neigh != NULL)
		neigh_unref(f->neigh, f->nh[idx].neigh);
	c->in_use = 0;
	f->nh_count--;
	/* Workers may still hold idx from a lookup made before the route
	 * changed: the entry stays intact until they have all gone quiescent. */
	fr_idxpool_put(f->nh_pool, idx);
}

void fib_nh_put(struct fib *f, uint32_t idx)
{
	struct nh_ctl *c;

	if (idx == 0 || idx >= f->nh_cap)
		return;
	c = &f->nhc[idx];
	if (!c->in_use || c->refcnt == 0 || --c->refcnt > 0)
		return;
	if (c->key.type == FIB_NH_MULTIPATH && f->mp_hold > 0) {
		/* kept for an undo; fib_nh_get() by its key revives it
		 * (each group once on the list: at most FIB_MP_GROUPS) */
		if (!c->pending) {
			c->pending = 1;
			f->mp_pending[f->mp_npending++] = idx;
		}
		return;
	}
	nh_free(f, idx);
}

void fib_groups_hold(struct fib *f)
{
	f->mp_hold++;
}

void fib_groups_settle(struct fib *f)
{
	uint32_t i;

	if (f->mp_hold == 0 || --f->mp_hold > 0)
		return;
	for (i = 0; i < f->mp_npending; i++) {
		struct nh_ctl *c = &f->nhc[f->mp_pending[i]];

		c->pending = 0;
		if (c->in_use && c->refcnt == 0)
			nh_free(f, f->mp_pending[i]);
	}
	f->mp_npending = 0;
}

void fib_nh_ref(struct fib *f, uint32_t idx)
{
	if (idx != 0 && idx < f->nh_cap && f->nhc[idx].in_use)
		f->nhc[idx].refcnt++;
}

void fib_nh_release(struct fib *f, uint32_t idx)
{
	fib_nh_put(f, idx);
}

uint32_t fib_mp_count(const struct fib *f)
{
	return f->mp_count;
}

uint32_t fib_mp_kept(const struct fib *f)
{
	uint32_t i, n = 0;

	for (i = 0; i < f->mp_npending; i++)
		n += f->nhc[f->mp_pending[i]].in_use && f->nhc[f->mp_pending[i]].refcnt == 0;
	return n;
}

uint32_t fib_nh_count(const struct fib *f)
{
	return f->nh_count - 1; /* index 0 is always there */
}

uint32_t fib_nh_capacity(const struct fib *f)
{
	return f->nh_cap - 1;
}

/* References to next hop @idx that only multipath groups kept for an undo
 * hold (no route uses them: they are gone once the transaction settles) */
static uint32_t pending_refs(const struct fib *f, uint32_t idx)
{
	uint32_t i, j, n = 0;

	for (i = 0; i < f->mp_npending; i++) {
		uint32_t g = f->mp_pending[i];
		const struct fib_mp *m;

		if (!f->nhc[g].in_use || f->nhc[g].refcnt != 0)
			continue; /* revived by a route since */
		m = &f->mp[f->nh[g].neigh];
		for (j = 0; j < m->n; j++)
			n += m->nh[j] == idx;
	}
	return n;
}

uint32_t fib_gw_used(const struct fib *f, const struct fr_addr *gw)
{
	uint32_t i;

	for (i = 1; i < f->nh_cap; i++) {
		const struct nh_key *k = &f->nhc[i].key;

		if (f->nhc[i].in_use && f->nhc[i].refcnt > 0 && k->type == FIB_NH_GATEWAY &&
		    k->family == gw->family &&
		    memcmp(k->gw, gw->family == AF_INET ? (const void *)&gw->v4 : gw->v6,
			   gw->family == AF_INET ? 4 : 16) == 0 &&
		    f->nhc[i].refcnt > pending_refs(f, i))
			return i;
	}
	return 0;
}

const struct fib_nh *fib_nh_table(const struct fib *f)
{
	return f->nh;
}
