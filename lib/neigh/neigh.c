/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour table: lock-free reads, one writer (the control thread).
 * See neigh.h for the memory-ordering contract; nud.c holds the state
 * machine (resolution, ageing).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "neigh_priv.h"

const char *const neigh_state_names[NEIGH_S_MAX] = {
	[NEIGH_S_NONE] = "NONE",	   [NEIGH_S_INCOMPLETE] = "INCOMPLETE",
	[NEIGH_S_REACHABLE] = "REACHABLE", [NEIGH_S_STALE] = "STALE",
	[NEIGH_S_DELAY] = "DELAY",	   [NEIGH_S_PROBE] = "PROBE",
	[NEIGH_S_FAILED] = "FAILED",	   [NEIGH_S_STATIC] = "STATIC",
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

/* Set state and MAC in both halves. Only a change of either makes a new
 * generation: a cache keyed on the generation stays valid otherwise. */
void neigh_state_write(struct neigh_table *t, uint32_t idx, uint8_t state,
		       const struct rte_ether_addr *mac)
{
	struct neigh_cold *c = &t->cold[idx];
	struct rte_ether_addr zero = {{0}};

	if (mac == NULL)
		mac = &zero;
	if (c->state == NEIGH_S_INCOMPLETE && state != NEIGH_S_INCOMPLETE)
		t->nb_incomplete--;
	else if (c->state != NEIGH_S_INCOMPLETE && state == NEIGH_S_INCOMPLETE)
		t->nb_incomplete++;
	if (c->state == NEIGH_S_FAILED && state != NEIGH_S_FAILED)
		t->nb_failed--;
	else if (c->state != NEIGH_S_FAILED && state == NEIGH_S_FAILED)
		t->nb_failed++;
	if (c->state == state && rte_is_same_ether_addr(&c->mac, mac))
		return;
	c->state = state;
	c->mac = *mac;
	hot_write(&t->hot[idx], word_make(mac, state));
}

static const struct neigh_params default_params = {
	.reachable_ms = 30000,
	.retrans_ms = 1000,
	.mcast_probes = 3,
	.ucast_probes = 3,
	.stale_ms = 60000,
	.failed_ms = 3000,
	.hold_pkts = 4,
	.hold_total = 4096,
	.max_incomplete = 1024,
	.delay_ms = 5000,
	.lock_ms = 1000,
};

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
	t->params = default_params;
	t->rng = rte_rdtsc() | 1;
	t->hot = rte_zmalloc_socket("neigh_hot", sizeof(*t->hot) * cap, RTE_CACHE_LINE_SIZE,
				    conf->socket_id);
	t->cold = rte_zmalloc_socket("neigh_cold", sizeof(*t->cold) * cap, 0, conf->socket_id);
	t->active = rte_zmalloc_socket("neigh_active", (cap + 63) / 64 * 8, 0, conf->socket_id);
	if (t->hot == NULL || t->cold == NULL || t->active == NULL)
		goto nomem;
	t->nb_readers = conf->nb_readers;
	if (t->nb_readers > 0) {
		t->used = rte_zmalloc_socket("neigh_used", sizeof(*t->used) * t->nb_readers, 0,
					     conf->socket_id);
		if (t->used == NULL)
			goto nomem;
		for (i = 0; i < t->nb_readers; i++) {
			/* one bitmap per worker, each on its own cache lines */
			t->used[i] = rte_zmalloc_socket("neigh_used", (cap + 63) / 64 * 8,
							RTE_CACHE_LINE_SIZE, conf->socket_id);
			if (t->used[i] == NULL)
				goto nomem;
		}
	}

	snprintf(hname, sizeof(hname), "nh_%s", name);
	hp.name = hname;
	/* rte_hash needs at least 8 entries and rounds up to a bucket multiple */
	hp.entries = cap < 8 ? 8 : cap;
	hp.key_len = sizeof(struct neigh_key);
	/* keyed: the addresses are chosen by whoever sends (fr_hash_keyed()) */
	fr_hash_keyed_init();
	hp.hash_func = fr_hash_keyed;
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
	errno = (int)i;
	rte_errno = (int)i;
	return NULL;
}

void neigh_hold_flush(struct neigh_table *t)
{
	uint32_t i;

	if (t->cold != NULL)
		for (i = 0; i < t->capacity; i++)
			if (t->cold[i].in_use && t->cold[i].nheld)
				neigh_hold_drop_all(t, i);
}

void neigh_free(struct neigh_table *t)
{
	uint32_t i;

	if (t == NULL)
		return;
	/* held packets go back through the owner's release callback */
	neigh_hold_flush(t);
	if (t->used != NULL) {
		for (i = 0; i < t->nb_readers; i++)
			rte_free(t->used[i]);
		rte_free(t->used);
	}
	fr_idxpool_free(t->pool);
	rte_hash_free(t->hash);
	rte_free(t->active);
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

uint32_t neigh_incomplete_count(const struct neigh_table *t)
{
	return t->nb_incomplete;
}

uint32_t neigh_held_count(const struct neigh_table *t)
{
	return t->nb_held;
}

uint32_t neigh_held_bufs(const struct neigh_table *t)
{
	return t->bufs_held;
}

uint64_t *neigh_used_map(struct neigh_table *t, unsigned int reader)
{
	return reader < t->nb_readers ? t->used[reader] : NULL;
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

uint32_t neigh_entry_new(struct neigh_table *t, const struct fr_addr *addr, uint16_t port)
{
	struct neigh_cold *c;
	struct neigh_hot *h;
	unsigned int r;
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
	/* the workers' marks of the index's last entry, not collected yet
	 * (every 20 ms), are not this one's: it would be probed, unused. No
	 * worker marks that entry any more: the index came back after a
	 * grace period */
	for (r = 0; r < t->nb_readers; r++)
		__atomic_fetch_and(&t->used[r][idx / 64], ~(1ull << (idx % 64)), __ATOMIC_RELAXED);
	key_make(&c->key, addr, port);
	c->in_use = 1;
	c->state = NEIGH_S_NONE;
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
	t->active[idx / 64] |= 1ull << (idx % 64);
	return idx;
}

/* Drop the entry from the table; workers may still hold its index for a
 * grace period, and read NONE (unresolved) from it meanwhile. */
static void entry_delete(struct neigh_table *t, uint32_t idx)
{
	struct neigh_cold *c = &t->cold[idx];
	int32_t pos;

	neigh_hold_drop_all(t, idx);
	neigh_state_write(t, idx, NEIGH_S_NONE, NULL);
	pos = rte_hash_del_key(t->hash, &c->key);
	/* In lock-free mode the key slot is freed by the hash's RCU defer
	 * queue; with no readers (no qsv) nobody else will free it. */
	if (t->qsv == NULL && pos >= 0)
		rte_hash_free_key_with_position(t->hash, pos);
	c->in_use = 0;
	t->count--;
	t->active[idx / 64] &= ~(1ull << (idx % 64));
	fr_idxpool_put(t->pool, idx);
}

/* A dynamic or static entry is no longer wanted: delete it, or, while next
 * hops refer to it, keep it unresolved. */
void neigh_entry_forget(struct neigh_table *t, uint32_t idx)
{
	struct neigh_cold *c = &t->cold[idx];

	c->configured = 0;
	c->probes = 0;
	c->deadline = 0;
	if (c->refcnt > 0) {
		neigh_hold_drop_all(t, idx);
		neigh_state_write(t, idx, NEIGH_S_NONE, NULL);
	} else {
		entry_delete(t, idx);
	}
}

uint32_t neigh_ref(struct neigh_table *t, const struct fr_addr *addr, uint16_t port)
{
	uint32_t idx = neigh_find(t, addr, port);

	if (idx == NEIGH_IDX_NONE)
		idx = neigh_entry_new(t, addr, port);
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
	/* learnt entries outlive their last next hop until they expire */
	if (--c->refcnt == 0 && !c->configured && c->state == NEIGH_S_NONE)
		entry_delete(t, idx);
}

int neigh_entry_set(struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
		    const struct rte_ether_addr *mac, uint32_t *idx)
{
	if (mac == NULL || !rte_is_valid_assigned_ether_addr(mac))
		return -EINVAL;
	*idx = neigh_find(t, addr, port);
	if (*idx == NEIGH_IDX_NONE)
		*idx = neigh_entry_new(t, addr, port);
	return *idx == NEIGH_IDX_NONE ? -errno : 0;
}

int neigh_static_set(struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
		     const struct rte_ether_addr *mac)
{
	uint32_t idx;
	int rc = neigh_entry_set(t, addr, port, mac, &idx);

	if (rc != 0)
		return rc;
	t->cold[idx].configured = 1;
	t->cold[idx].deadline = 0;
	t->cold[idx].probes = 0;
	neigh_state_write(t, idx, NEIGH_S_STATIC, mac);
	/* packets waiting for this neighbour can go now */
	if (t->cold[idx].nheld)
		neigh_hold_release(t, idx, mac);
	return 0;
}

int neigh_del(struct neigh_table *t, const struct fr_addr *addr, uint16_t port)
{
	uint32_t idx = neigh_find(t, addr, port);

	if (idx == NEIGH_IDX_NONE || t->cold[idx].state == NEIGH_S_NONE)
		return -ENOENT;
	neigh_entry_forget(t, idx);
	return 0;
}

void neigh_info_fill(const struct neigh_table *t, uint32_t i, struct neigh_info *ni)
{
	const struct neigh_cold *c = &t->cold[i];
	struct neigh_view v;

	neigh_read(t->hot, i, &v);
	memset(ni, 0, sizeof(*ni));
	ni->idx = i;
	key_addr(&c->key, &ni->addr);
	ni->port = c->key.port;
	ni->state = v.state;
	ni->mac = v.mac;
	ni->gen = v.gen;
	ni->refcnt = c->refcnt;
	ni->configured = c->configured;
	ni->held = c->nheld;
	ni->probes = c->probes;
	ni->deadline = c->deadline;
}

int neigh_get(const struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
	      struct neigh_info *ni)
{
	uint32_t idx = neigh_find(t, addr, port);

	if (idx == NEIGH_IDX_NONE)
		return -ENOENT;
	neigh_info_fill(t, idx, ni);
	return 0;
}

int neigh_walk(const struct neigh_table *t, int (*cb)(const struct neigh_info *, void *), void *arg)
{
	return neigh_walk_slots(t, 0, t->capacity, cb, arg);
}

int neigh_walk_strided(const struct neigh_table *t, int (*cb)(const struct neigh_info *, void *),
		       void *arg, void (*between)(void *), void *barg)
{
	uint32_t from;
	int rc;

	for (from = 0; from < t->capacity; from += 0x2000) {
		if (from > 0)
			between(barg);
		rc = neigh_walk_slots(t, from, from + 0x2000, cb, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int neigh_walk_slots(const struct neigh_table *t, uint32_t from, uint32_t to,
		     int (*cb)(const struct neigh_info *, void *), void *arg)
{
	struct neigh_info ni;
	uint32_t i;
	int rc;

	for (i = from; i < to && i < t->capacity; i++) {
		if (!t->cold[i].in_use)
			continue;
		neigh_info_fill(t, i, &ni);
		rc = cb(&ni, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}
