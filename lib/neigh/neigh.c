/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour table: lock-free reads, one writer (the control thread).
 * See neigh.h for the memory-ordering contract.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "neigh_priv.h"

const char *const neigh_state_names[NEIGH_S_MAX] = {
	[NEIGH_S_NONE] = "NONE",	   [NEIGH_S_INCOMPLETE] = "INCOMPLETE",
	[NEIGH_S_REACHABLE] = "REACHABLE", [NEIGH_S_STALE] = "STALE",
	[NEIGH_S_PROBE] = "PROBE",	   [NEIGH_S_FAILED] = "FAILED",
	[NEIGH_S_STATIC] = "STATIC",
};

static void key_make(struct neigh_key *k, const struct fr_addr *addr, uint16_t port)
{
	memset(k, 0, sizeof(*k));
	k->family = addr->family;
	k->port = port;
	if (addr->family == AF_INET)
		memcpy(k->addr, &addr->v4, sizeof(addr->v4));
	else
		memcpy(k->addr, addr->v6, 16);
}

static void key_addr(const struct neigh_key *k, struct fr_addr *addr)
{
	memset(addr, 0, sizeof(*addr));
	addr->family = k->family;
	if (k->family == AF_INET)
		memcpy(&addr->v4, k->addr, sizeof(addr->v4));
	else
		memcpy(addr->v6, k->addr, 16);
}

static uint64_t word_make(const struct rte_ether_addr *mac, uint8_t state)
{
	uint64_t w = 0;

	if (mac != NULL)
		memcpy(&w, mac, RTE_ETHER_ADDR_LEN);
	((uint8_t *)&w)[6] = state;
	return w;
}

/*
 * Publish a new (MAC, state) for an entry: seq goes odd, the word changes,
 * seq goes even again, two higher than before (the new generation).
 */
static void hot_write(struct neigh_hot *h, uint64_t word)
{
	uint32_t s = h->seq;

	__atomic_store_n(&h->seq, s + 1, __ATOMIC_RELAXED);
	/* release fence: the odd seq is visible before the new word */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&h->word, word, __ATOMIC_RELAXED);
	/* release: the new word is visible before the even seq */
	__atomic_store_n(&h->seq, s + 2, __ATOMIC_RELEASE);
}

struct neigh_table *neigh_create(const char *name, const struct neigh_conf *conf)
{
	struct rte_hash_parameters hp = {0};
	char hname[RTE_HASH_NAMESIZE];
	struct neigh_table *t;
	uint32_t cap, i;

	if (name == NULL || conf == NULL) {
		errno = EINVAL;
		return NULL;
	}
	cap = conf->capacity ? conf->capacity : 65536;
	t = rte_zmalloc_socket("neigh", sizeof(*t), RTE_CACHE_LINE_SIZE, conf->socket_id);
	if (t == NULL)
		goto nomem;
	t->capacity = cap;
	t->qsv = conf->qsv;
	t->hot = rte_zmalloc_socket("neigh_hot", sizeof(*t->hot) * cap, RTE_CACHE_LINE_SIZE,
				    conf->socket_id);
	t->cold = rte_zmalloc_socket("neigh_cold", sizeof(*t->cold) * cap, 0, conf->socket_id);
	if (t->hot == NULL || t->cold == NULL)
		goto nomem;

	snprintf(hname, sizeof(hname), "nh_%s", name);
	hp.name = hname;
	/* rte_hash needs at least 8 entries and rounds up to a bucket multiple */
	hp.entries = cap < 8 ? 8 : cap;
	hp.key_len = sizeof(struct neigh_key);
	hp.hash_func = fr_hash_crc;
	hp.socket_id = conf->socket_id;
	/* one writer (control thread), lock-free readers (workers) */
	hp.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF | RTE_HASH_EXTRA_FLAGS_EXT_TABLE;
	t->hash = rte_hash_create(&hp);
	if (t->hash == NULL)
		goto fail;

	if (t->qsv != NULL) {
		struct rte_hash_rcu_config hrc = {0};

		hrc.v = t->qsv;
		hrc.mode = RTE_HASH_QSBR_MODE_DQ;
		if (rte_hash_rcu_qsbr_add(t->hash, &hrc) != 0)
			goto fail;
	}
	snprintf(hname, sizeof(hname), "nq_%s", name);
	t->pool = fr_idxpool_create(hname, 0, cap, t->qsv, conf->socket_id);
	if (t->pool == NULL)
		goto fail;
	return t;
nomem:
	rte_errno = ENOMEM;
fail:
	i = rte_errno;
	neigh_free(t);
	errno = i;
	rte_errno = i;
	return NULL;
}

void neigh_free(struct neigh_table *t)
{
	if (t == NULL)
		return;
	fr_idxpool_free(t->pool);
	rte_hash_free(t->hash);
	rte_free(t->cold);
	rte_free(t->hot);
	rte_free(t);
}

const struct neigh_hot *neigh_hot_table(const struct neigh_table *t)
{
	return t->hot;
}

uint32_t neigh_capacity(const struct neigh_table *t)
{
	return t->capacity;
}

uint32_t neigh_count(const struct neigh_table *t)
{
	return t->count;
}

uint32_t neigh_find(const struct neigh_table *t, const struct fr_addr *addr, uint16_t port)
{
	struct neigh_key k;
	void *data;

	key_make(&k, addr, port);
	if (rte_hash_lookup_data(t->hash, &k, &data) < 0)
		return NEIGH_IDX_NONE;
	return (uint32_t)(uintptr_t)data;
}

void neigh_reclaim(struct neigh_table *t)
{
	fr_idxpool_reclaim(t->pool);
}

static uint32_t entry_new(struct neigh_table *t, const struct fr_addr *addr, uint16_t port)
{
	struct neigh_cold *c;
	struct neigh_hot *h;
	uint32_t idx;

	if (addr->family != AF_INET && addr->family != AF_INET6) {
		errno = EINVAL;
		return NEIGH_IDX_NONE;
	}
	if (fr_idxpool_get(t->pool, &idx) != 0) {
		errno = ENOSPC;
		return NEIGH_IDX_NONE;
	}
	c = &t->cold[idx];
	h = &t->hot[idx];
	memset(c, 0, sizeof(*c));
	key_make(&c->key, addr, port);
	c->in_use = 1;
	/* The slot is not reachable through the hash yet: plain stores are fine. */
	h->port = port;
	hot_write(h, word_make(NULL, NEIGH_S_NONE));
	/* rte_hash_add_key_data publishes the key with release semantics (LF mode) */
	if (rte_hash_add_key_data(t->hash, &c->key, (void *)(uintptr_t)idx) < 0) {
		c->in_use = 0;
		fr_idxpool_put(t->pool, idx);
		errno = ENOSPC;
		return NEIGH_IDX_NONE;
	}
	t->count++;
	return idx;
}

static void entry_delete(struct neigh_table *t, uint32_t idx)
{
	struct neigh_cold *c = &t->cold[idx];

	int32_t pos = rte_hash_del_key(t->hash, &c->key);

	/* In lock-free mode the key slot is freed by the hash's RCU defer
	 * queue; with no readers (no qsv) nobody else will free it. */
	if (t->qsv == NULL && pos >= 0)
		rte_hash_free_key_with_position(t->hash, pos);
	/* Readers that found idx before the delete may still read it: the word
	 * says NONE, so they treat it as unresolved. */
	hot_write(&t->hot[idx], word_make(NULL, NEIGH_S_NONE));
	c->in_use = 0;
	t->count--;
	fr_idxpool_put(t->pool, idx);
}

uint32_t neigh_ref(struct neigh_table *t, const struct fr_addr *addr, uint16_t port)
{
	uint32_t idx = neigh_find(t, addr, port);

	if (idx == NEIGH_IDX_NONE)
		idx = entry_new(t, addr, port);
	if (idx != NEIGH_IDX_NONE)
		t->cold[idx].refcnt++;
	return idx;
}

void neigh_unref(struct neigh_table *t, uint32_t idx)
{
	struct neigh_cold *c;

	if (idx >= t->capacity)
		return;
	c = &t->cold[idx];
	if (!c->in_use || c->refcnt == 0)
		return;
	if (--c->refcnt == 0 && !c->configured)
		entry_delete(t, idx);
}

int neigh_static_set(struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
		     const struct rte_ether_addr *mac)
{
	uint32_t idx;

	if (mac == NULL || !rte_is_valid_assigned_ether_addr(mac))
		return -EINVAL;
	idx = neigh_find(t, addr, port);
	if (idx == NEIGH_IDX_NONE)
		idx = entry_new(t, addr, port);
	if (idx == NEIGH_IDX_NONE)
		return -errno;
	t->cold[idx].configured = 1;
	hot_write(&t->hot[idx], word_make(mac, NEIGH_S_STATIC));
	return 0;
}

int neigh_del(struct neigh_table *t, const struct fr_addr *addr, uint16_t port)
{
	uint32_t idx = neigh_find(t, addr, port);
	struct neigh_cold *c;

	if (idx == NEIGH_IDX_NONE)
		return -ENOENT;
	c = &t->cold[idx];
	if (!c->configured)
		return -ENOENT;
	c->configured = 0;
	if (c->refcnt > 0)
		hot_write(&t->hot[idx], word_make(NULL, NEIGH_S_NONE));
	else
		entry_delete(t, idx);
	return 0;
}

static void info_fill(const struct neigh_table *t, uint32_t i, struct neigh_info *ni)
{
	struct neigh_view v;

	neigh_read(t->hot, i, &v);
	memset(ni, 0, sizeof(*ni));
	ni->idx = i;
	key_addr(&t->cold[i].key, &ni->addr);
	ni->port = t->cold[i].key.port;
	ni->state = v.state;
	ni->mac = v.mac;
	ni->gen = v.gen;
	ni->refcnt = t->cold[i].refcnt;
	ni->configured = t->cold[i].configured;
}

int neigh_get(const struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
	      struct neigh_info *ni)
{
	uint32_t idx = neigh_find(t, addr, port);

	if (idx == NEIGH_IDX_NONE)
		return -ENOENT;
	info_fill(t, idx, ni);
	return 0;
}

int neigh_walk(const struct neigh_table *t, int (*cb)(const struct neigh_info *, void *), void *arg)
{
	struct neigh_info ni;
	uint32_t i;
	int rc;

	for (i = 0; i < t->capacity; i++) {
		if (!t->cold[i].in_use)
			continue;
		info_fill(t, i, &ni);
		rc = cb(&ni, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}
