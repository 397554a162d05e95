/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/neigh: static entries, references, generations, capacity, and the
 * lock-free read contract under a concurrent writer.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_hash.h>

#include "eal_helper.h"
#include "fr_addr.h"
#include "nd.h"
#include "neigh.h"
#include "neigh_priv.h"

static int counter;

static int setup(void **state)
{
	struct neigh_conf nc = {0};
	char name[16];

	snprintf(name, sizeof(name), "n%d", counter++);
	nc.capacity = 16;
	*state = neigh_create(name, &nc);
	assert_non_null(*state);
	return 0;
}

static int teardown(void **state)
{
	neigh_free(*state);
	return 0;
}

/* An address from its text, either family */
static struct fr_addr a4(const char *s)
{
	struct fr_addr a;

	assert_int_equal(fr_addr_parse(s, &a), 0);
	return a;
}

static const struct rte_ether_addr mac1 = {{0x02, 0, 0, 0, 0, 1}};
static const struct rte_ether_addr mac2 = {{0x02, 0, 0, 0, 0, 2}};

static void test_static(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("192.0.2.2");
	struct neigh_view v;
	struct neigh_info ni;
	uint32_t idx, g;

	assert_int_equal(neigh_find(t, &a, 0), NEIGH_IDX_NONE);
	assert_int_equal(neigh_static_set(t, &a, 0, &mac1), 0);
	idx = neigh_find(t, &a, 0);
	assert_int_not_equal(idx, NEIGH_IDX_NONE);
	/* same address on another port is another neighbour */
	assert_int_equal(neigh_find(t, &a, 1), NEIGH_IDX_NONE);

	neigh_read(neigh_hot_table(t), idx, &v);
	assert_int_equal(v.state, NEIGH_S_STATIC);
	assert_true(rte_is_same_ether_addr(&v.mac, &mac1));
	assert_int_equal(v.port, 0);
	assert_int_equal(v.gen % 2, 0);
	g = v.gen;

	/* a MAC change is a new generation, same index */
	assert_int_equal(neigh_static_set(t, &a, 0, &mac2), 0);
	assert_int_equal(neigh_find(t, &a, 0), idx);
	neigh_read(neigh_hot_table(t), idx, &v);
	assert_true(rte_is_same_ether_addr(&v.mac, &mac2));
	assert_int_equal(v.gen, g + 2);
	assert_int_equal(neigh_gen(neigh_hot_table(t), idx), g + 2);
	/* a read during a write (the writer stopped between its stores,
	 * seq odd) returns at once, the word whole, with a generation the
	 * entry never settles at: a cache that kept it refills after */
	{
		struct neigh_hot *h = (struct neigh_hot *)(uintptr_t)&neigh_hot_table(t)[idx];

		__atomic_store_n(&h->seq, g + 3, __ATOMIC_RELEASE);
		neigh_read(neigh_hot_table(t), idx, &v);
		assert_true(rte_is_same_ether_addr(&v.mac, &mac2));
		assert_int_equal(v.state, NEIGH_S_STATIC);
		assert_int_equal(v.gen % 2, 1);
		__atomic_store_n(&h->seq, g + 4, __ATOMIC_RELEASE);
		assert_int_not_equal(neigh_gen(neigh_hot_table(t), idx), v.gen);
		__atomic_store_n(&h->seq, g + 2, __ATOMIC_RELEASE);
	}

	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_int_equal(ni.configured, 1);
	assert_int_equal(neigh_count(t), 1);

	/* multicast / zero MACs are refused */
	{
		struct rte_ether_addr bad = {{0x01, 0, 0x5e, 0, 0, 1}};

		assert_int_equal(neigh_static_set(t, &a, 0, &bad), -EINVAL);
	}
	assert_int_equal(neigh_del(t, &a, 0), 0);
	assert_int_equal(neigh_find(t, &a, 0), NEIGH_IDX_NONE);
	assert_int_equal(neigh_del(t, &a, 0), -ENOENT);
	assert_int_equal(neigh_count(t), 0);
}

/* A learnt entry put back by a rollback (neigh_learnt_restore): STALE with
 * its MAC, not static; a deleted one comes back too, unless learnt again
 * meanwhile (newer: kept); a bad MAC is refused. */
static void test_learnt_restore(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("192.0.2.7");
	struct rte_ether_addr bad = {{0}};
	struct neigh_info ni;

	assert_int_equal(neigh_static_set(t, &a, 0, &mac2), 0);
	assert_int_equal(neigh_learnt_restore(t, &a, 0, &mac1, 1000), 0);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_int_equal(ni.configured, 0);
	assert_int_equal(ni.state, NEIGH_S_STALE);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac1));
	/* learnt again: an ARP reply now may change it (a static one not) */
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_REPLY, 1001), 1);
	assert_int_equal(neigh_del(t, &a, 0), 0);
	/* deleted, then learnt again at another MAC before the rollback */
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_REQUEST, 1001), 1);
	assert_int_equal(neigh_learnt_restore(t, &a, 0, &mac1, 1002), 0);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac2));
	assert_int_equal(neigh_del(t, &a, 0), 0);
	assert_int_equal(neigh_learnt_restore(t, &a, 0, &mac1, 1002), 0);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_int_equal(ni.state, NEIGH_S_STALE);
	assert_int_equal(neigh_learnt_restore(t, &a, 0, &bad, 1003), -EINVAL);
}

static void test_refs(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("198.51.100.2");
	struct neigh_view v;
	uint32_t idx, idx2;

	idx = neigh_ref(t, &a, 1); /* a next hop needs it before it is resolved */
	assert_int_not_equal(idx, NEIGH_IDX_NONE);
	neigh_read(neigh_hot_table(t), idx, &v);
	assert_int_equal(v.state, NEIGH_S_NONE);
	assert_false(neigh_state_usable(v.state));
	idx2 = neigh_ref(t, &a, 1);
	assert_int_equal(idx, idx2);

	/* configuring it keeps the index the next hop holds */
	assert_int_equal(neigh_static_set(t, &a, 1, &mac1), 0);
	assert_int_equal(neigh_find(t, &a, 1), idx);
	neigh_read(neigh_hot_table(t), idx, &v);
	assert_true(neigh_state_usable(v.state));

	/* deleting a referenced entry leaves it unresolved, not gone */
	assert_int_equal(neigh_del(t, &a, 1), 0);
	assert_int_equal(neigh_find(t, &a, 1), idx);
	neigh_read(neigh_hot_table(t), idx, &v);
	assert_int_equal(v.state, NEIGH_S_NONE);

	neigh_unref(t, idx);
	assert_int_equal(neigh_find(t, &a, 1), idx);
	neigh_unref(t, idx);
	assert_int_equal(neigh_find(t, &a, 1), NEIGH_IDX_NONE);
	assert_int_equal(neigh_count(t), 0);
}

static void test_capacity(void **state)
{
	struct neigh_table *t = *state;
	uint32_t i;

	for (i = 0; i < neigh_capacity(t); i++) {
		struct fr_addr a = fr_addr4(0x0a000001 + i);

		assert_int_equal(neigh_static_set(t, &a, 0, &mac1), 0);
	}
	{
		struct fr_addr a = fr_addr4(0x0b000001);

		assert_int_equal(neigh_static_set(t, &a, 0, &mac1), -ENOSPC);
		assert_int_equal(neigh_ref(t, &a, 0), NEIGH_IDX_NONE);
	}
	/* room again after a delete (no RCU variable: reused at once) */
	{
		struct fr_addr a = fr_addr4(0x0a000001), b = fr_addr4(0x0b000001);

		assert_int_equal(neigh_del(t, &a, 0), 0);
		assert_int_equal(neigh_static_set(t, &b, 0, &mac2), 0);
	}
}

/* neigh_walk_slots(): strides over the slots see each entry once, as one
 * neigh_walk() does; a stride past the capacity ends there; a callback's
 * non-zero return stops the walk with it. */
static int walk_mark(const struct neigh_info *ni, void *arg)
{
	uint8_t *seen = arg;

	seen[ni->addr.v4 - 0x0a000001]++;
	return 0;
}

static int walk_stop(const struct neigh_info *ni, void *arg)
{
	(*(unsigned int *)arg)++;
	return ni->addr.v4 == 0x0a000005 ? 7 : 0;
}

static void test_walk_slots(void **state)
{
	struct neigh_table *t = *state;
	uint8_t seen[16] = {0}, once[16] = {0};
	uint32_t i, from, n = neigh_capacity(t) - 3;
	unsigned int calls = 0;

	for (i = 0; i < n; i++) {
		struct fr_addr a = fr_addr4(0x0a000001 + i);

		assert_int_equal(neigh_static_set(t, &a, 0, &mac1), 0);
	}
	assert_int_equal(neigh_walk(t, walk_mark, once), 0);
	for (from = 0; from < neigh_capacity(t); from += 5)
		assert_int_equal(neigh_walk_slots(t, from, from + 5, walk_mark, seen), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(once[i], 1);
		assert_int_equal(seen[i], 1);
	}
	assert_int_equal(neigh_walk_slots(t, 0, UINT32_MAX, walk_stop, &calls), 7);
	assert_true(calls >= 1 && calls <= n);
	assert_int_equal(neigh_walk_slots(t, neigh_capacity(t), UINT32_MAX, walk_stop, &calls), 0);
}

static void count_call(void *arg)
{
	(*(unsigned int *)arg)++;
}

static int walk_count(const struct neigh_info *ni, void *arg)
{
	(void)ni;
	(*(unsigned int *)arg)++;
	return 0;
}

/* neigh_walk_strided(): on a table of 20,000 slots (three strides of 8 Ki),
 * each entry once, the caller's work twice between them; a callback's
 * non-zero return stops it with that value. */
static void test_walk_strided(void **state)
{
	struct neigh_conf nc = {0};
	struct neigh_table *t;
	unsigned int seen = 0, between = 0, calls = 0;
	uint32_t i;

	(void)state;
	nc.capacity = 20000;
	t = neigh_create("strided", &nc);
	assert_non_null(t);
	for (i = 0; i < 300; i++) {
		struct fr_addr a = fr_addr4(0x0a000001 + i);

		assert_int_equal(neigh_static_set(t, &a, 0, &mac1), 0);
	}
	assert_int_equal(neigh_walk_strided(t, walk_count, &seen, count_call, &between), 0);
	assert_int_equal(seen, 300);
	assert_int_equal(between, 2);
	between = 0;
	assert_int_equal(neigh_walk_strided(t, walk_stop, &calls, count_call, &between), 7);
	assert_true(calls >= 1 && calls <= 300);
	neigh_free(t);
}

/* One writer flips an entry between two MACs; readers must only ever see one
 * of the two, each with the generation parity it was written with. */
struct flip {
	struct neigh_table *t;
	uint32_t idx;
	volatile int stop;
	/* reads of each MAC so far: the writer flips until the reader has
	 * seen both while it wrote, so the check is of concurrent reads */
	volatile uint64_t seen1, seen2;
	uint64_t reads, bad;
};

static void *reader(void *arg)
{
	struct flip *f = arg;
	const struct neigh_hot *hot = neigh_hot_table(f->t);
	struct neigh_view v;
	uint64_t n = 0, bad = 0;

	while (!f->stop) {
		neigh_read(hot, f->idx, &v);
		/* writes of mac1 give generations 4k+2, of mac2 4k (see
		 * writer); a read that overlapped a write has an odd one (the
		 * word whole, either MAC: it never waits for the write) */
		if (v.gen % 2 == 1) {
			if (!rte_is_same_ether_addr(&v.mac, &mac1) &&
			    !rte_is_same_ether_addr(&v.mac, &mac2))
				bad++;
		} else if (rte_is_same_ether_addr(&v.mac, &mac1)) {
			if (v.gen % 4 != 2)
				bad++;
			f->seen1++;
		} else if (rte_is_same_ether_addr(&v.mac, &mac2)) {
			if (v.gen % 4 != 0)
				bad++;
			f->seen2++;
		} else {
			bad++;
		}
		n++;
	}
	f->reads = n;
	f->bad = bad;
	return NULL;
}

static void test_concurrent_flip(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("192.0.2.50");
	struct flip f = {.t = t};
	pthread_t th;
	uint32_t i, g;

	assert_int_equal(neigh_static_set(t, &a, 0, &mac2), 0);
	f.idx = neigh_find(t, &a, 0);
	g = neigh_gen(neigh_hot_table(t), f.idx);
	/* align so that mac2 sits on generations divisible by 4 */
	if (g % 4 != 0)
		assert_int_equal(neigh_static_set(t, &a, 0, &mac2), 0);
	assert_int_equal(neigh_gen(neigh_hot_table(t), f.idx) % 4, 0);
	assert_int_equal(pthread_create(&th, NULL, reader, &f), 0);
	/* at least 2M flips, and on until the reader has read each MAC a
	 * thousand times during them (it may not get a CPU at once on a busy
	 * machine), at most 20M */
	for (i = 0; i < 20000000 && (i < 2000000 || f.seen1 < 1000 || f.seen2 < 1000); i++)
		neigh_static_set(t, &a, 0, (i & 1) ? &mac2 : &mac1);
	f.stop = 1;
	pthread_join(th, NULL);
	print_message("flips %u, reads %" PRIu64 " (%" PRIu64 " of mac1, %" PRIu64
		      " of mac2), bad %" PRIu64 "\n",
		      i, f.reads, f.seen1, f.seen2, f.bad);
	assert_true(f.seen1 >= 1000 && f.seen2 >= 1000);
	assert_int_equal(f.bad, 0);
}

/* ---- state machine, with a fake clock ---------------------------------- */

struct ev {
	unsigned int probes_b, probes_u, sent, dropped;
	struct rte_ether_addr last_mac;
	void *first_pkt, *last_pkt; /* sent */
};

static void ev_probe(void *arg, const struct neigh_info *ni, const struct rte_ether_addr *mac)
{
	struct ev *e = arg;

	(void)ni;
	if (mac == NULL)
		e->probes_b++;
	else
		e->probes_u++;
}

static void ev_release(void *arg, const struct neigh_info *ni, void *pkt,
		       const struct rte_ether_addr *mac)
{
	struct ev *e = arg;

	(void)ni;
	if (mac == NULL) {
		e->dropped++;
	} else {
		if (e->sent++ == 0)
			e->first_pkt = pkt;
		e->last_pkt = pkt;
		e->last_mac = *mac;
	}
}

static struct ev ev;

static int nud_setup(void **state)
{
	struct neigh_conf nc = {0};
	struct neigh_params p;
	struct neigh_ops ops = {.probe = ev_probe, .release = ev_release, .arg = &ev};
	char name[16];
	struct neigh_table *t;

	snprintf(name, sizeof(name), "u%d", counter++);
	nc.capacity = 64;
	nc.nb_readers = 1;
	t = neigh_create(name, &nc);
	assert_non_null(t);
	neigh_params_get(t, &p);
	p.reachable_ms = 1000;
	p.retrans_ms = 100;
	p.mcast_probes = 3;
	p.ucast_probes = 2;
	p.stale_ms = 5000;
	p.failed_ms = 500;
	p.hold_pkts = 3;
	p.hold_total = 5;
	p.max_incomplete = 4;
	p.delay_ms = 0; /* STALE in use probes at once; test_nud_delay sets it */
	assert_int_equal(neigh_params_set(t, &p), 0);
	neigh_ops_set(t, &ops);
	memset(&ev, 0, sizeof(ev));
	*state = t;
	return 0;
}

static uint8_t state_of(struct neigh_table *t, const char *a, uint16_t port)
{
	struct neigh_info ni;
	struct fr_addr x = a4(a);

	if (neigh_get(t, &x, port, &ni) != 0)
		return 0xff; /* gone */
	return ni.state;
}

static int pkt_tag[64];

/* INCOMPLETE: probes every retrans, FAILED after mcast_probes, held dropped;
 * FAILED expires after failed_ms; a new packet restarts resolution. */
static void test_nud_incomplete_fails(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("198.51.100.9");
	uint64_t now = 1000;

	assert_int_equal(neigh_resolve(t, &a, 1, &pkt_tag[0], now, NULL), 0);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_INCOMPLETE);
	assert_int_equal(ev.probes_b, 1); /* at once */
	assert_int_equal(neigh_resolve(t, &a, 1, &pkt_tag[1], now + 10, NULL), 0);
	assert_int_equal(ev.probes_b, 1); /* no second probe for the second packet */
	neigh_tick(t, now + 99);
	assert_int_equal(ev.probes_b, 1);
	neigh_tick(t, now + 100);
	assert_int_equal(ev.probes_b, 2);
	neigh_tick(t, now + 200);
	assert_int_equal(ev.probes_b, 3);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_INCOMPLETE);
	neigh_tick(t, now + 300); /* three unanswered */
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_FAILED);
	assert_int_equal(ev.dropped, 2);
	assert_int_equal(ev.probes_b, 3);
	{
		struct neigh_stats s;

		neigh_stats_get(t, &s);
		assert_int_equal(s.hold_failed, 2);
		assert_int_equal(s.hold_flushed, 0);
	}
	/* a neighbour that just failed is not asked again: its packets are
	 * refused until failed_ms has passed and the entry is gone */
	assert_int_equal(neigh_resolve(t, &a, 1, &pkt_tag[2], now + 310, NULL), -EHOSTUNREACH);
	assert_int_equal(ev.probes_b, 3);
	neigh_tick(t, now + 799);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_FAILED);
	neigh_tick(t, now + 800);
	assert_int_equal(state_of(t, "198.51.100.9", 1), 0xff);
	/* then traffic starts a fresh resolution */
	assert_int_equal(neigh_resolve(t, &a, 1, &pkt_tag[3], now + 900, NULL), 0);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_INCOMPLETE);
	assert_int_equal(ev.probes_b, 4);
	neigh_tick(t, now + 999);
	assert_int_equal(ev.probes_b, 4); /* at most one per retrans */
	neigh_tick(t, now + 1000);
	neigh_tick(t, now + 1100);
	assert_int_equal(ev.probes_b, 6);
	neigh_tick(t, now + 1200);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_FAILED);
	assert_int_equal(ev.dropped, 3);
	assert_int_equal(neigh_incomplete_count(t), 0);
}

/* INCOMPLETE -> REACHABLE on a reply (held packets sent to its MAC),
 * REACHABLE -> STALE after reachable time x0.5-1.5, STALE unused expires. */
static void test_nud_reachable_stale_expire(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("198.51.100.9");
	struct neigh_info ni;
	uint64_t now = 1000, when;

	assert_int_equal(neigh_resolve(t, &a, 1, &pkt_tag[0], now, NULL), 0);
	assert_int_equal(neigh_resolve(t, &a, 1, &pkt_tag[1], now, NULL), 0);
	assert_int_equal(neigh_learn(t, &a, 1, &mac1, NEIGH_LEARN_REPLY, now + 5), 1);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_REACHABLE);
	assert_int_equal(ev.sent, 2);
	assert_true(rte_is_same_ether_addr(&ev.last_mac, &mac1));
	assert_int_equal(neigh_get(t, &a, 1, &ni), 0);
	when = ni.deadline;
	assert_true(when >= now + 5 + 500 && when <= now + 5 + 1500);
	neigh_tick(t, when - 1);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_REACHABLE);
	neigh_tick(t, when);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_STALE);
	/* nobody uses it: gone after stale_ms */
	neigh_tick(t, when + 4999);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_STALE);
	neigh_tick(t, when + 5000);
	assert_int_equal(state_of(t, "198.51.100.9", 1), 0xff);
	assert_int_equal(ev.probes_u, 0);
}

/* Neighbours learnt in the same instant do not all turn STALE in the same
 * one: each REACHABLE time is drawn from x0.5-1.5 of reachable-time (RFC
 * 4861 6.3.2), spread over that range. */
static void test_nud_reachable_random(void **state)
{
	struct neigh_table *t = *state;
	uint64_t now = 1000, lo = UINT64_MAX, hi = 0, seen[32];
	unsigned int i, k, distinct = 0;
	char name[32];

	for (i = 0; i < RTE_DIM(seen); i++) {
		struct fr_addr a;
		struct neigh_info ni;

		snprintf(name, sizeof(name), "198.51.100.%u", 10 + i);
		a = a4(name);
		assert_int_equal(neigh_resolve(t, &a, 1, &pkt_tag[0], now, NULL), 0);
		assert_int_equal(neigh_learn(t, &a, 1, &mac1, NEIGH_LEARN_REPLY, now), 1);
		assert_int_equal(neigh_get(t, &a, 1, &ni), 0);
		assert_true(ni.deadline >= now + 500 && ni.deadline <= now + 1500);
		lo = RTE_MIN(lo, ni.deadline);
		hi = RTE_MAX(hi, ni.deadline);
		for (k = 0; k < distinct; k++)
			if (seen[k] == ni.deadline)
				break;
		if (k == distinct)
			seen[distinct++] = ni.deadline;
	}
	/* 32 draws over 1001 values: a handful may meet, not most; and
	 * both outer thirds of the range are reached (each fails by chance
	 * with odds of (2/3)^32, about 2e-6, for a uniform draw) */
	assert_true(distinct >= 24);
	assert_true(lo < now + 833);
	assert_true(hi > now + 1167);
}

/* STALE and used -> PROBE (unicast), reply -> REACHABLE; no reply -> FAILED.
 * A next hop's reference keeps the entry (as NONE) after expiry. */
static void test_nud_probe(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("198.51.100.9");
	uint64_t *used = neigh_used_map(t, 0);
	uint32_t idx;
	uint64_t now = 1000;

	idx = neigh_ref(t, &a, 1); /* a gateway next hop */
	assert_int_equal(neigh_learn(t, &a, 1, &mac1, NEIGH_LEARN_REQUEST, now), 1);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_STALE); /* not confirmed */
	neigh_mark_used(used, idx);
	neigh_tick(t, now + 20);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_PROBE);
	assert_int_equal(ev.probes_u, 1);
	assert_int_equal(neigh_learn(t, &a, 1, &mac1, NEIGH_LEARN_REPLY, now + 30), 1);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_REACHABLE);
	/* to STALE again, used again, and this time nobody answers */
	neigh_tick(t, now + 30 + 1500);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_STALE);
	neigh_mark_used(used, idx);
	neigh_tick(t, now + 1600);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_PROBE);
	assert_int_equal(ev.probes_u, 2);
	neigh_tick(t, now + 1700);
	assert_int_equal(ev.probes_u, 3); /* second unicast probe */
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_PROBE);
	neigh_tick(t, now + 1800);
	/* unanswered: forgotten, not FAILED (RFC 4861 7.3.3); referenced,
	 * so kept unresolved under the same index */
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_NONE);
	assert_int_equal(neigh_find(t, &a, 1), idx);
	/* the next packet asks again at once, by broadcast, and is held
	 * (not refused as a FAILED neighbour's would be) */
	assert_int_equal(neigh_resolve(t, &a, 1, &pkt_tag[0], now + 1801, NULL), 0);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_INCOMPLETE);
	assert_int_equal(ev.probes_b, 1);
	/* the neighbour, moved to another MAC, answers */
	assert_int_equal(neigh_learn(t, &a, 1, &mac2, NEIGH_LEARN_REPLY, now + 1810), 1);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_REACHABLE);
	assert_int_equal(ev.sent, 1);
	assert_true(rte_is_same_ether_addr(&ev.last_mac, &mac2));
	neigh_del(t, &a, 1);
	neigh_unref(t, idx);
	assert_int_equal(state_of(t, "198.51.100.9", 1), 0xff);
}

/* STALE in use -> DELAY; a confirmation in DELAY -> REACHABLE with no probe;
 * unconfirmed after delay_ms -> PROBE (unicast). */
static void test_nud_delay(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("198.51.100.9");
	uint64_t *used = neigh_used_map(t, 0);
	struct neigh_params p;
	uint32_t idx;
	uint64_t now = 1000;

	neigh_params_get(t, &p);
	p.delay_ms = 500;
	assert_int_equal(neigh_params_set(t, &p), 0);
	idx = neigh_ref(t, &a, 1);
	assert_int_equal(neigh_learn(t, &a, 1, &mac1, NEIGH_LEARN_REQUEST, now), 1);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_STALE);
	neigh_mark_used(used, idx);
	neigh_tick(t, now + 20);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_DELAY);
	assert_int_equal(ev.probes_u, 0); /* no probe yet */
	neigh_tick(t, now + 519);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_DELAY);
	/* confirmed in DELAY: REACHABLE, and no probe was ever sent */
	assert_int_equal(neigh_learn(t, &a, 1, &mac1, NEIGH_LEARN_REPLY, now + 400), 1);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_REACHABLE);
	assert_int_equal(ev.probes_u, 0);
	/* again, this time without a confirmation: PROBE after delay_ms */
	neigh_tick(t, now + 400 + 1500);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_STALE);
	neigh_mark_used(used, idx);
	neigh_tick(t, now + 2000);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_DELAY);
	neigh_tick(t, now + 2499);
	assert_int_equal(ev.probes_u, 0);
	neigh_tick(t, now + 2500);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_PROBE);
	assert_int_equal(ev.probes_u, 1);
	/* STALE again, used by the control thread's own packet (an echo
	 * reply): DELAY at the next tick, as a worker's packet does */
	assert_int_equal(neigh_learn(t, &a, 1, &mac1, NEIGH_LEARN_REPLY, now + 2600), 1);
	assert_int_equal(neigh_unconfirm(t, &a, 1, now + 2600), 1);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_STALE);
	neigh_tick(t, now + 2610);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_STALE); /* unused */
	neigh_use(t, &a, 1);
	neigh_tick(t, now + 2620);
	assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_DELAY);
	neigh_unref(t, idx);
	/* INCOMPLETE, learnt STALE from a request: the packet held for it is
	 * sent, so it is in use, DELAY at the next tick; without one held,
	 * a request's STALE entry stays STALE */
	{
		struct fr_addr b = a4("198.51.100.10"), c = a4("198.51.100.11");

		assert_int_equal(neigh_resolve(t, &b, 1, &pkt_tag[0], now + 3000, NULL), 0);
		assert_int_equal(neigh_resolve(t, &c, 1, &pkt_tag[1], now + 3000, NULL), 0);
		assert_int_equal(neigh_learn(t, &b, 1, &mac1, NEIGH_LEARN_REQUEST, now + 3010), 1);
		assert_int_equal(ev.sent, 1);
		assert_ptr_equal(ev.last_pkt, &pkt_tag[0]);
		assert_int_equal(state_of(t, "198.51.100.10", 1), NEIGH_S_STALE);
		assert_int_equal(neigh_learn(t, &a, 1, &mac2, NEIGH_LEARN_REQUEST, now + 3010), 1);
		assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_STALE);
		neigh_tick(t, now + 3020);
		assert_int_equal(state_of(t, "198.51.100.10", 1), NEIGH_S_DELAY);
		assert_int_equal(state_of(t, "198.51.100.9", 1), NEIGH_S_STALE);
		assert_int_equal(state_of(t, "198.51.100.11", 1), NEIGH_S_INCOMPLETE);
	}
}

/* An index reused while a worker's mark of its last entry waits for the
 * next tick: the new entry is not taken for used (it would go DELAY, then
 * be probed, with no traffic). */
static void test_nud_used_reuse(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("198.51.100.9"), b = a4("198.51.100.10");
	uint64_t *used = neigh_used_map(t, 0);
	uint32_t ia, ib;

	assert_int_equal(neigh_learn(t, &a, 1, &mac1, NEIGH_LEARN_REQUEST, 1000), 1);
	ia = neigh_find(t, &a, 1);
	assert_int_not_equal(ia, NEIGH_IDX_NONE);
	neigh_mark_used(used, ia); /* a worker forwards through it */
	assert_int_equal(neigh_del(t, &a, 1), 0);
	assert_int_equal(neigh_learn(t, &b, 1, &mac2, NEIGH_LEARN_REQUEST, 1010), 1);
	ib = neigh_find(t, &b, 1);
	assert_int_equal(ib, ia); /* the same index, at once (no readers' grace here) */
	neigh_tick(t, 1020);
	assert_int_equal(state_of(t, "198.51.100.10", 1), NEIGH_S_STALE);
	/* a mark of its own still counts */
	neigh_mark_used(used, ib);
	neigh_tick(t, 1040);
	assert_int_equal(state_of(t, "198.51.100.10", 1), NEIGH_S_PROBE); /* delay_ms 0 */
}

/* What ARP may change: only our traffic creates, only the same port updates,
 * static entries never change. */
static void test_nud_learn_rules(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("192.0.2.5"), b = a4("192.0.2.6");
	struct neigh_info ni;
	uint32_t g;

	/* unsolicited reply, gratuitous, other: no entry */
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_REPLY, 1), 0);
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_GRATUITOUS, 1), 0);
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_OTHER, 1), 0);
	assert_int_equal(neigh_count(t), 0);
	/* a request for us does create one */
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_REQUEST, 1), 1);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	g = ni.gen;
	/* the same MAC again changes nothing, not even the generation */
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_GRATUITOUS, 2), 0);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_int_equal(ni.gen, g);
	/* a gratuitous ARP with a new MAC moves it, to STALE, new generation */
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_GRATUITOUS, 3), 1);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac2));
	assert_int_equal(ni.state, NEIGH_S_STALE);
	assert_true(ni.gen > g);
	/* the same address on another port is another entry: untouched */
	assert_int_equal(neigh_learn(t, &a, 1, &mac1, NEIGH_LEARN_GRATUITOUS, 4), 0);
	assert_int_equal(neigh_find(t, &a, 1), NEIGH_IDX_NONE);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac2));
	/* static entries stand */
	assert_int_equal(neigh_static_set(t, &b, 0, &mac1), 0);
	assert_int_equal(neigh_learn(t, &b, 0, &mac2, NEIGH_LEARN_REPLY, 5), 0);
	assert_int_equal(neigh_learn(t, &b, 0, &mac2, NEIGH_LEARN_GRATUITOUS, 5), 0);
	assert_int_equal(state_of(t, "192.0.2.6", 0), NEIGH_S_STATIC);
	assert_int_equal(neigh_get(t, &b, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac1));
	/* a route's gateway not resolved yet (a placeholder) was asked
	 * nothing: a reply, or a gratuitous ARP, plants no MAC; once asked,
	 * the reply resolves it */
	{
		struct fr_addr gw = a4("192.0.2.7");
		uint32_t idx = neigh_ref(t, &gw, 0);
		struct neigh_stats st;
		uint64_t ignored;

		assert_int_not_equal(idx, NEIGH_IDX_NONE);
		neigh_stats_get(t, &st);
		ignored = st.ignored;
		assert_int_equal(neigh_learn(t, &gw, 0, &mac2, NEIGH_LEARN_REPLY, 6), 0);
		assert_int_equal(neigh_learn(t, &gw, 0, &mac2, NEIGH_LEARN_GRATUITOUS, 6), 0);
		assert_int_equal(state_of(t, "192.0.2.7", 0), NEIGH_S_NONE);
		neigh_stats_get(t, &st);
		assert_int_equal(st.ignored, ignored + 2);
		assert_int_equal(neigh_resolve(t, &gw, 0, &pkt_tag[0], 6, NULL), 0);
		assert_int_equal(state_of(t, "192.0.2.7", 0), NEIGH_S_INCOMPLETE);
		assert_int_equal(neigh_learn(t, &gw, 0, &mac2, NEIGH_LEARN_REPLY, 7), 1);
		assert_int_equal(state_of(t, "192.0.2.7", 0), NEIGH_S_REACHABLE);
		neigh_unref(t, idx);
	}
}

/* ARP's lock time: of two stations answering one request, the first
 * stands; a reply (or RFC 826's merge) with another MAC within the
 * lock time (1000 ms unless set) of the last set or confirmed one is refused and
 * counted locked; after it, or as a gratuitous ARP or a request, it moves
 * the entry. ND's solicited advertisements (the override flag rules them)
 * are not locked. */
static void test_nud_arp_lock(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("192.0.2.20"), b = a4("192.0.2.21"), v6 = a4("fe80::9");
	const struct rte_ether_addr mac3 = {{0x02, 0, 0, 0, 0, 3}};
	struct neigh_params p;
	struct neigh_stats st;
	struct neigh_info ni;
	uint64_t now = 10000;

	assert_int_equal(neigh_resolve(t, &a, 0, &pkt_tag[0], now, NULL), 0);
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_ARP_REPLY, now + 1), 1);
	/* the second answer to the same request, and a merge, 999 ms later:
	 * refused */
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_ARP_REPLY, now + 2), 0);
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_ARP_MERGE, now + 1000), 0);
	neigh_stats_get(t, &st);
	assert_int_equal(st.locked, 2);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac1));
	assert_int_equal(ni.state, NEIGH_S_REACHABLE);
	/* the same MAC confirms it, and starts the lock again */
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_ARP_REPLY, now + 500), 1);
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_ARP_REPLY, now + 1200), 0);
	/* a second after the last update: taken */
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_ARP_REPLY, now + 1500), 1);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac2));
	/* a gratuitous ARP and a request are not locked */
	assert_int_equal(neigh_learn(t, &a, 0, &mac3, NEIGH_LEARN_GRATUITOUS, now + 1600), 1);
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_REQUEST, now + 1601), 1);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac1));
	/* which restarted the lock: a merge a second after, not before, moves
	 * it (to STALE, as an announcement) */
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_ARP_MERGE, now + 2600), 0);
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_ARP_MERGE, now + 2601), 1);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac2));
	assert_int_equal(ni.state, NEIGH_S_STALE);
	/* a merge creates nothing, a locked kind neither */
	assert_int_equal(neigh_learn(t, &b, 0, &mac1, NEIGH_LEARN_ARP_MERGE, now), 0);
	assert_int_equal(neigh_learn(t, &b, 0, &mac1, NEIGH_LEARN_ARP_REPLY, now), 0);
	assert_int_equal(neigh_find(t, &b, 0), NEIGH_IDX_NONE);
	/* ND's reply right after another: taken */
	assert_int_equal(neigh_resolve(t, &v6, 0, &pkt_tag[1], now, NULL), 0);
	assert_int_equal(neigh_learn(t, &v6, 0, &mac1, NEIGH_LEARN_REPLY, now + 1), 1);
	assert_int_equal(neigh_learn(t, &v6, 0, &mac2, NEIGH_LEARN_REPLY, now + 2), 1);
	assert_int_equal(neigh_get(t, &v6, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac2));
	neigh_stats_get(t, &st);
	assert_int_equal(st.locked, 4);
	/* set neigh lock-time: 250 ms, then none */
	neigh_params_get(t, &p);
	p.lock_ms = 250;
	assert_int_equal(neigh_params_set(t, &p), 0);
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_ARP_REPLY, now + 5000), 1);
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_ARP_REPLY, now + 5249), 0);
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_ARP_REPLY, now + 5250), 1);
	p.lock_ms = 0;
	assert_int_equal(neigh_params_set(t, &p), 0);
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_ARP_REPLY, now + 5251), 1);
	assert_int_equal(neigh_learn(t, &a, 0, &mac3, NEIGH_LEARN_ARP_REPLY, now + 5251), 1);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac3));
	neigh_stats_get(t, &st);
	assert_int_equal(st.locked, 5);
}

/* ARP's lock restarts at each change of state the timers make (STALE,
 * DELAY, PROBE), as Linux's locktime counts from its entry's last update: a
 * reply with another MAC less than the lock time after is refused, one at
 * the lock time taken. */
/* @a (text @s) resolved by ARP at @now, STALE 2 s later, then in use */
static void arp_stale_in_use(struct neigh_table *t, const char *s, void *pkt, uint64_t now)
{
	struct fr_addr a = a4(s);

	assert_int_equal(neigh_resolve(t, &a, 0, pkt, now, NULL), 0);
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_ARP_REPLY, now), 1);
	/* reachable for 500-1500 ms */
	neigh_tick(t, now + 2000);
	assert_int_equal(state_of(t, s, 0), NEIGH_S_STALE);
	neigh_use(t, &a, 0);
}

/* The timers move @s to @want at @now, which restarts the lock: another
 * MAC's reply 999 ms later is refused */
static void tick_locks(struct neigh_table *t, const char *s, uint64_t now, uint8_t want)
{
	struct fr_addr a = a4(s);

	neigh_tick(t, now);
	assert_int_equal(state_of(t, s, 0), want);
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_ARP_REPLY, now + 999), 0);
}

static void test_nud_arp_lock_states(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("192.0.2.22"), b = a4("192.0.2.23");
	struct neigh_params p;
	struct neigh_stats st;
	struct neigh_info ni;

	neigh_params_get(t, &p);
	p.delay_ms = 3000;
	assert_int_equal(neigh_params_set(t, &p), 0);
	/* STALE at 3000, the lock from there; in use: DELAY at 3500, the
	 * lock from there (past STALE's) */
	arp_stale_in_use(t, "192.0.2.22", &pkt_tag[0], 1000);
	tick_locks(t, "192.0.2.22", 3500, NEIGH_S_DELAY);
	/* PROBE at 6500 (delay-time 3000), the lock from there */
	tick_locks(t, "192.0.2.22", 6500, NEIGH_S_PROBE);
	neigh_stats_get(t, &st);
	assert_int_equal(st.locked, 2);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac1));
	assert_int_equal(neigh_learn(t, &a, 0, &mac2, NEIGH_LEARN_ARP_REPLY, 7500), 1);
	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac2));
	assert_int_equal(ni.state, NEIGH_S_REACHABLE);
	/* delay-time 0: STALE in use goes to PROBE at once, the lock from there */
	p.delay_ms = 0;
	assert_int_equal(neigh_params_set(t, &p), 0);
	arp_stale_in_use(t, "192.0.2.23", &pkt_tag[1], 10000);
	tick_locks(t, "192.0.2.23", 12500, NEIGH_S_PROBE);
	assert_int_equal(neigh_learn(t, &b, 0, &mac2, NEIGH_LEARN_ARP_REPLY, 13500), 1);
	neigh_stats_get(t, &st);
	assert_int_equal(st.locked, 3);
}

/* hold_total bounds mbufs, not packets: a chain of many segments (the echo
 * reply to a datagram reassembled from tiny fragments) counts each, in the
 * queue of its own and when it takes an evicted packet's place. */
static void test_nud_hold_bufs(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("10.0.0.1"), b = a4("10.0.0.2");
	struct neigh_stats st;
	void *old = NULL;
	unsigned int i;

	for (i = 0; i < 3; i++)
		assert_int_equal(neigh_resolve_bufs(t, &a, 0, &pkt_tag[i], 1, 1, NULL), 0);
	/* 3 + 3 mbufs: past hold_total's 5, though 4 packets would fit */
	assert_int_equal(neigh_resolve_bufs(t, &b, 0, &pkt_tag[3], 3, 1, NULL), -ENOBUFS);
	assert_int_equal(neigh_resolve_bufs(t, &b, 0, &pkt_tag[4], 2, 1, NULL), 0);
	assert_int_equal(neigh_held_count(t), 4);
	assert_int_equal(neigh_held_bufs(t), 5);
	/* a's queue full: the newest takes the oldest's place only if its
	 * mbufs fit in the room that leaves */
	assert_int_equal(neigh_resolve_bufs(t, &a, 0, &pkt_tag[5], 2, 1, &old), -ENOBUFS);
	assert_null(old);
	assert_int_equal(neigh_resolve_bufs(t, &a, 0, &pkt_tag[6], 1, 1, &old), 1);
	assert_ptr_equal(old, &pkt_tag[0]);
	assert_int_equal(neigh_held_bufs(t), 5);
	neigh_stats_get(t, &st);
	assert_int_equal(st.hold_total_dropped, 2);
	/* resolved: each queue's mbufs given back with its packets */
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_REPLY, 2), 1);
	assert_int_equal(neigh_held_count(t), 1);
	assert_int_equal(neigh_held_bufs(t), 2);
	assert_int_equal(neigh_learn(t, &b, 0, &mac2, NEIGH_LEARN_REPLY, 2), 1);
	assert_int_equal(neigh_held_count(t), 0);
	assert_int_equal(neigh_held_bufs(t), 0);
	assert_ptr_equal(ev.last_pkt, &pkt_tag[4]);
}

/* Bounds: per-entry queue, all queues, INCOMPLETE entries, table size. */
static void test_nud_limits(void **state)
{
	struct neigh_table *t = *state;
	struct neigh_stats st;
	unsigned int i;

	struct fr_addr a = a4("10.0.0.1"), b = a4("10.0.0.2");
	struct neigh_params p, bad;

	/* probe counts a state's byte counter holds, no more (it would wrap:
	 * an entry probing for ever) */
	neigh_params_get(t, &p);
	bad = p;
	bad.ucast_probes = 256;
	assert_int_equal(neigh_params_set(t, &bad), -EINVAL);
	bad = p;
	bad.mcast_probes = 256;
	assert_int_equal(neigh_params_set(t, &bad), -EINVAL);
	bad.mcast_probes = 255;
	assert_int_equal(neigh_params_set(t, &bad), 0);
	assert_int_equal(neigh_params_set(t, &p), 0);

	for (i = 0; i < 3; i++)
		assert_int_equal(neigh_resolve(t, &a, 0, &pkt_tag[i], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &a, 0, &pkt_tag[3], 1, NULL), -EBUSY);
	assert_int_equal(neigh_resolve(t, &b, 0, &pkt_tag[4], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &b, 0, &pkt_tag[5], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &b, 0, &pkt_tag[6], 1, NULL), -ENOBUFS); /* 5 held */
	for (i = 3; i < 5; i++) {
		struct fr_addr x = fr_addr4(0x0a000001 + i);

		assert_int_equal(neigh_resolve(t, &x, 0, NULL, 1, NULL), -ENOBUFS);
	}
	assert_int_equal(neigh_incomplete_count(t), 4); /* the cap */
	{
		struct fr_addr x = fr_addr4(0x0a000010);

		assert_int_equal(neigh_resolve(t, &x, 0, NULL, 1, NULL), -EDQUOT);
		assert_int_equal(neigh_find(t, &x, 0), NEIGH_IDX_NONE);
	}
	/* a route's gateway (an entry a next hop refers to) is resolved past
	 * the cap: a scan of a connected subnet must not blackhole the
	 * routes through a gateway not resolved yet (its packet is refused
	 * here only because all queues together are full) */
	{
		struct fr_addr g = a4("10.0.0.99");
		uint32_t gi = neigh_ref(t, &g, 0);
		struct neigh_info ni;

		assert_int_not_equal(gi, NEIGH_IDX_NONE);
		assert_int_equal(neigh_resolve(t, &g, 0, NULL, 1, NULL), -ENOBUFS);
		assert_int_equal(neigh_get(t, &g, 0, &ni), 0);
		assert_int_equal(ni.state, NEIGH_S_INCOMPLETE);
		assert_int_equal(neigh_incomplete_count(t), 5);
		/* it answers: back to the cap's 4 for what follows */
		assert_int_equal(neigh_learn(t, &g, 0, &mac1, NEIGH_LEARN_REPLY, 1), 1);
		assert_int_equal(neigh_incomplete_count(t), 4);
		neigh_unref(t, gi);
	}
	/* with room to evict, the newest packet is kept, the oldest handed
	 * back to be dropped (RFC 1122 2.3.2.2) */
	{
		void *old = NULL;

		/* all queues together full: the new one is refused, nothing
		 * of another neighbour's goes */
		assert_int_equal(neigh_resolve(t, &b, 0, &pkt_tag[10], 1, &old), -ENOBUFS);
		assert_null(old);
		assert_int_equal(neigh_resolve(t, &a, 0, &pkt_tag[11], 1, &old), 1);
		assert_ptr_equal(old, &pkt_tag[0]);
		assert_int_equal(neigh_resolve(t, &a, 0, &pkt_tag[12], 1, &old), 1);
		assert_ptr_equal(old, &pkt_tag[1]);
		neigh_stats_get(t, &st);
		/* one new packet refused (never held), two held ones pushed out */
		assert_int_equal(st.hold_dropped, 1);
		assert_int_equal(st.hold_evicted, 2);
	}
	/* a REACHABLE entry is never evicted for an INCOMPLETE one */
	assert_int_equal(neigh_learn(t, &a, 0, &mac1, NEIGH_LEARN_REPLY, 2), 1);
	neigh_stats_get(t, &st);
	assert_int_equal(st.hold_dropped, 1);
	assert_int_equal(st.hold_evicted, 2);
	assert_int_equal(st.refused_incomplete, 1);
	assert_int_equal(st.held, 7);
	assert_int_equal(st.released, 3);
	assert_ptr_equal(ev.last_pkt, &pkt_tag[12]); /* 11 and 12 went last */
	/* every packet held is accounted for: b's two still wait */
	assert_int_equal(neigh_held_count(t), 2);
	assert_int_equal(st.held, st.released + st.hold_evicted + st.hold_failed + st.hold_flushed +
					  neigh_held_count(t));
	/* one that resolved meanwhile is held and sent at once: both */
	assert_int_equal(neigh_resolve(t, &a, 0, &pkt_tag[13], 3, NULL), 0);
	neigh_stats_get(t, &st);
	assert_int_equal(st.held, 8);
	assert_int_equal(st.released, 4);
	assert_ptr_equal(ev.last_pkt, &pkt_tag[13]);
	assert_int_equal(st.held, st.released + st.hold_evicted + st.hold_failed + st.hold_flushed +
					  neigh_held_count(t));
	/* released in order, the newest kept: 2, then 11 and 12 (then 13) */
	assert_ptr_equal(ev.first_pkt, &pkt_tag[2]);
	/* requests from ever new senders (forged, say) learn entries up to
	 * three quarters of the table, no further */
	for (i = 0; i < 2 * neigh_capacity(t); i++) {
		struct fr_addr x = fr_addr4(0xc0000200 + i);

		neigh_learn(t, &x, 2, &mac2, NEIGH_LEARN_REQUEST, 3);
	}
	assert_int_equal(neigh_count(t), neigh_capacity(t) - neigh_capacity(t) / 4);
	neigh_stats_get(t, &st);
	assert_true(st.refused_learn >= neigh_capacity(t));
	/* the rest stays for the router's own needs: next hops take it */
	for (i = 0; neigh_count(t) < neigh_capacity(t); i++) {
		struct fr_addr x = fr_addr4(0xc6336400 + i);

		assert_int_not_equal(neigh_ref(t, &x, 1), NEIGH_IDX_NONE);
	}
	/* full: new ones are refused */
	{
		struct fr_addr x = fr_addr4(0x0a0000ff);

		assert_int_equal(neigh_resolve(t, &x, 0, NULL, 3, NULL), -ENOSPC);
		assert_int_equal(neigh_find(t, &x, 0), NEIGH_IDX_NONE);
	}
	assert_int_equal(state_of(t, "10.0.0.1", 0), NEIGH_S_REACHABLE);
}

/* Restored (learnt again, STALE) entries 10.1.x.y from *@i on, until the
 * table holds @n; idle (evictable) lock_ms (1 s) less than 5 s after @now. */
static void fill_stale(struct neigh_table *t, uint32_t *i, uint32_t n, uint64_t now)
{
	while (neigh_count(t) < n) {
		struct fr_addr a = fr_addr4(0x0a010000 + (*i)++);

		assert_int_equal(neigh_learnt_restore(t, &a, 0, &mac2, now), 0);
	}
}

/* A tick that finds the table 7/8 full forgets FAILED entries first, then
 * STALE ones idle for 5 s in table order, down to 3/4 (counted evicted,
 * not expired); never a gateway's (a next hop refers to it), a static one,
 * one in use, one STALE for less than 5 s or one in another state. A table
 * between 3/4 and 7/8 loses none. */
static void test_nud_evict(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr g = a4("10.9.0.1"), st = a4("10.9.0.2"), re = a4("10.9.0.3");
	struct fr_addr young = a4("10.9.0.4"), used = a4("10.9.0.5"), failed = a4("10.9.0.6");
	const uint32_t from = 56, to = 48; /* of 64 */
	const uint64_t now = 100000;
	struct neigh_stats s;
	uint32_t i = 0, gi, ui;

	gi = neigh_ref(t, &g, 0);
	assert_int_not_equal(gi, NEIGH_IDX_NONE);
	assert_int_equal(neigh_learnt_restore(t, &g, 0, &mac1, now), 0);
	assert_int_equal(neigh_static_set(t, &st, 0, &mac1), 0);
	assert_int_equal(neigh_learnt_restore(t, &used, 0, &mac1, now), 0);
	ui = neigh_find(t, &used, 0);
	/* a neighbour that asked for us: STALE, not idle 5 s at the eviction */
	assert_int_equal(neigh_learn(t, &young, 0, &mac2, NEIGH_LEARN_REQUEST, now + 300), 1);
	/* learnt STALE entries (a rollback's restores: no 3/4 limit) */
	fill_stale(t, &i, from - 3, now);
	/* after them in the table, one that fails to answer, one answering */
	assert_int_equal(neigh_resolve(t, &failed, 0, &pkt_tag[0], now + 4000, NULL), 0);
	neigh_tick(t, now + 4100);
	neigh_tick(t, now + 4200);
	neigh_tick(t, now + 4300); /* three probes unanswered */
	assert_int_equal(state_of(t, "10.9.0.6", 0), NEIGH_S_FAILED);
	assert_int_equal(neigh_resolve(t, &re, 0, &pkt_tag[1], now + 4300, NULL), 0);
	assert_int_equal(neigh_learn(t, &re, 0, &mac2, NEIGH_LEARN_REPLY, now + 4300), 1);
	/* one short of 7/8: nothing is evicted */
	assert_int_equal(neigh_count(t), from - 1);
	neigh_tick(t, now + 4320);
	neigh_stats_get(t, &s);
	assert_int_equal(s.evicted, 0);
	/* 7/8, and a worker forwarded through one: down to 3/4 at the next
	 * tick, the FAILED one first (the STALE ones before it in the table
	 * would have sufficed); the young and the used one, before the
	 * others in the table, stay */
	fill_stale(t, &i, from, now);
	neigh_mark_used(neigh_used_map(t, 0), ui);
	neigh_tick(t, now + 4500);
	neigh_stats_get(t, &s);
	assert_int_equal(neigh_count(t), to);
	assert_int_equal(s.evicted, from - to);
	assert_int_equal(s.expired, 0);
	assert_int_equal(state_of(t, "10.9.0.6", 0), 0xff);
	assert_int_equal(state_of(t, "10.9.0.1", 0), NEIGH_S_STALE);
	assert_int_equal(neigh_find(t, &g, 0), gi);
	assert_int_equal(state_of(t, "10.9.0.2", 0), NEIGH_S_STATIC);
	assert_int_equal(state_of(t, "10.9.0.3", 0), NEIGH_S_REACHABLE);
	assert_int_equal(state_of(t, "10.9.0.4", 0), NEIGH_S_STALE);
	assert_int_equal(state_of(t, "10.9.0.5", 0), NEIGH_S_PROBE);
	/* between 3/4 and 7/8 nothing more goes */
	fill_stale(t, &i, from - 1, now);
	neigh_tick(t, now + 4520);
	neigh_stats_get(t, &s);
	assert_int_equal(s.evicted, from - to);
	assert_int_equal(neigh_count(t), from - 1);
	neigh_unref(t, gi);
}

/* A tick that runs out of entries it may evict above 3/4 leaves the next
 * one, between 3/4 and 7/8, evicting nothing. An entry that turned STALE
 * after the tick's clock was read (a packet handled since) is not idle. */
static void test_nud_evict_per_tick(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr late = a4("10.9.0.7");
	const uint64_t now = 100000;
	struct neigh_stats s;
	uint32_t i = 0, k;

	/* first in the table: what a wrapped now - mac_ms would take first */
	assert_int_equal(neigh_resolve(t, &late, 0, &pkt_tag[0], now, NULL), 0);
	assert_int_equal(neigh_learn(t, &late, 0, &mac2, NEIGH_LEARN_REPLY, now), 1);
	for (k = 0; k < 49; k++) {
		struct fr_addr a = fr_addr4(0x0a020000 + k);

		assert_int_equal(neigh_static_set(t, &a, 0, &mac1), 0);
	}
	fill_stale(t, &i, 56, now);
	assert_int_equal(neigh_unconfirm(t, &late, 0, now + 4501), 1);
	assert_int_equal(state_of(t, "10.9.0.7", 0), NEIGH_S_STALE);
	neigh_tick(t, now + 4500);
	neigh_stats_get(t, &s);
	assert_int_equal(s.evicted, 6);
	assert_int_equal(neigh_count(t), 50);
	assert_int_equal(state_of(t, "10.9.0.7", 0), NEIGH_S_STALE);
	fill_stale(t, &i, 55, now);
	neigh_tick(t, now + 4520);
	neigh_stats_get(t, &s);
	assert_int_equal(s.evicted, 6);
	assert_int_equal(neigh_count(t), 55);
}

/* A table of 16 Ki entries, 7/8 full: 1024 evicted a tick (the control
 * thread has more to do), the next tick going on below 7/8, until 3/4. */
static void test_nud_evict_cap(void **state)
{
	struct neigh_conf nc = {0};
	struct neigh_params p;
	struct neigh_stats s;
	struct neigh_table *t;
	const uint64_t now = 100000;
	uint32_t i = 0;
	char name[16];

	(void)state;
	snprintf(name, sizeof(name), "u%d", counter++);
	nc.capacity = 16384;
	t = neigh_create(name, &nc);
	assert_non_null(t);
	neigh_params_get(t, &p);
	p.stale_ms = 5000;
	assert_int_equal(neigh_params_set(t, &p), 0);
	fill_stale(t, &i, 16384 - 2048, now);
	neigh_tick(t, now + 4500);
	neigh_stats_get(t, &s);
	assert_int_equal(s.evicted, 1024);
	neigh_tick(t, now + 4520);
	neigh_stats_get(t, &s);
	assert_int_equal(s.evicted, 2048);
	assert_int_equal(neigh_count(t), 16384 - 4096);
	neigh_tick(t, now + 4540);
	neigh_stats_get(t, &s);
	assert_int_equal(s.evicted, 2048);
	neigh_free(t);
}

/* A port's lost link: its learnt entries are forgotten (kept unresolved
 * while a next hop refers to one), its static ones and other ports' stay;
 * the timers still see every entry in use, wherever it lies in the table. */
static void test_nud_port_flush(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr gw = a4("198.51.100.1"), h = a4("198.51.100.7"), st = a4("198.51.100.8");
	struct fr_addr other = a4("203.0.113.7"), h2 = a4("198.51.100.6");
	struct neigh_stats s;
	uint32_t gi;
	unsigned int i;

	gi = neigh_ref(t, &gw, 1);
	assert_int_equal(neigh_learn(t, &gw, 1, &mac1, NEIGH_LEARN_REQUEST, 10), 1);
	assert_int_equal(neigh_learn(t, &h, 1, &mac1, NEIGH_LEARN_REQUEST, 10), 1);
	assert_int_equal(neigh_static_set(t, &st, 1, &mac2), 0);
	assert_int_equal(neigh_learn(t, &other, 2, &mac2, NEIGH_LEARN_REQUEST, 10), 1);
	/* one being resolved, a packet held on it: dropped as flushed, not as
	 * a neighbour that did not answer */
	assert_int_equal(neigh_resolve(t, &h2, 1, &pkt_tag[0], 10, NULL), 0);
	assert_int_equal(neigh_port_flush(t, 1), 3);
	neigh_stats_get(t, &s);
	assert_int_equal(s.hold_flushed, 1);
	assert_int_equal(s.hold_failed, 0);
	assert_int_equal(ev.dropped, 1);
	assert_int_equal(state_of(t, "198.51.100.6", 1), 0xff);
	assert_int_equal(state_of(t, "198.51.100.1", 1), NEIGH_S_NONE); /* referenced */
	assert_int_equal(neigh_find(t, &gw, 1), gi);
	assert_int_equal(state_of(t, "198.51.100.7", 1), 0xff);
	assert_int_equal(state_of(t, "198.51.100.8", 1), NEIGH_S_STATIC);
	assert_int_equal(state_of(t, "203.0.113.7", 2), NEIGH_S_STALE);
	neigh_stats_get(t, &s);
	assert_int_equal(s.flushed, 3);
	assert_int_equal(neigh_port_flush(t, 1), 0);
	/* entries all over the table expire on time (the tick visits the
	 * ones in use only) */
	for (i = 0; i < 40; i++) {
		struct fr_addr x = fr_addr4(0xc0000200 + i);

		assert_int_equal(neigh_learn(t, &x, 3, &mac2, NEIGH_LEARN_REQUEST, 20), 1);
	}
	neigh_tick(t, 20 + 4999);
	assert_int_equal(state_of(t, "192.0.2.39", 3), NEIGH_S_STALE);
	neigh_tick(t, 20 + 5000);
	for (i = 0; i < 40; i++) {
		struct fr_addr x = fr_addr4(0xc0000200 + i);

		assert_int_equal(neigh_find(t, &x, 3), NEIGH_IDX_NONE);
	}
	neigh_unref(t, gi);
}

/* A release that holds a packet on the neighbour being released, as the
 * router's ICMP host unreachable about a dropped packet does when its
 * source is reached through that neighbour (never about such an error). */
static struct {
	struct neigh_table *t;
	struct fr_addr a;
	unsigned int seen[8], icmp_held;
} rh;

static void rehold_release(void *arg, const struct neigh_info *ni, void *pkt,
			   const struct rte_ether_addr *mac)
{
	unsigned int k = (unsigned int)((const int *)pkt - pkt_tag);

	(void)arg;
	(void)ni;
	(void)mac;
	assert_true(k < 8);
	rh.seen[k]++;
	if (k < 4 && neigh_resolve(rh.t, &rh.a, 0, &pkt_tag[4 + k], 1, NULL) == 0)
		rh.icmp_held++;
}

/*
 * Deleting a neighbour whose held packets' release holds new ones on it
 * (review: the queue was cleared slot by slot after each hand-over, so the
 * new packet was overwritten and lost, the count kept it, and a later
 * release handed NULL over). Every packet is handed over once, none stays.
 */
static void test_nud_rehold_on_release(void **state)
{
	struct neigh_table *t = *state;
	struct neigh_ops ops = {.probe = ev_probe, .release = rehold_release, .arg = &ev};
	struct fr_addr b = a4("10.0.0.2");
	struct neigh_stats st;
	unsigned int k;

	memset(&rh, 0, sizeof(rh));
	rh.t = t;
	rh.a = a4("10.0.0.1");
	neigh_ops_set(t, &ops);
	assert_int_equal(neigh_resolve(t, &rh.a, 0, &pkt_tag[0], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &rh.a, 0, &pkt_tag[1], 1, NULL), 0);
	/* a gateway's entry (referenced) stays, INCOMPLETE turned unresolved */
	assert_int_equal(neigh_ref(t, &rh.a, 0), neigh_find(t, &rh.a, 0));
	assert_int_equal(neigh_del(t, &rh.a, 0), 0);
	assert_int_equal(rh.icmp_held, 2);
	for (k = 0; k < 2; k++) {
		assert_int_equal(rh.seen[k], 1);     /* the packets held before */
		assert_int_equal(rh.seen[4 + k], 1); /* the errors about them */
	}
	neigh_stats_get(t, &st);
	assert_int_equal(st.held, 4);
	/* the entry went away: flushed, not failed (the router says no
	 * error then; the library still takes a release that holds again) */
	assert_int_equal(st.hold_flushed, 4);
	assert_int_equal(st.hold_failed, 0);
	/* nothing left held: the whole budget (5) holds again */
	memset(&rh.seen, 0, sizeof(rh.seen));
	for (k = 0; k < 3; k++)
		assert_int_equal(neigh_resolve(t, &rh.a, 0, &pkt_tag[6], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &b, 0, &pkt_tag[7], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &b, 0, &pkt_tag[7], 1, NULL), 0);
	neigh_hold_flush(t);
	assert_int_equal(rh.seen[6], 3);
	assert_int_equal(rh.seen[7], 2);
}

/* The router's stop: every held packet leaves through release as dropped,
 * the entries stay (and can hold again). */
static void test_nud_hold_flush(void **state)
{
	struct neigh_table *t = *state;
	struct neigh_stats st;
	struct fr_addr a = a4("10.0.0.1"), b = a4("10.0.0.2");

	assert_int_equal(neigh_resolve(t, &a, 0, &pkt_tag[0], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &a, 0, &pkt_tag[1], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &b, 0, &pkt_tag[2], 1, NULL), 0);
	memset(&ev, 0, sizeof(ev));
	neigh_hold_flush(t);
	assert_int_equal(ev.dropped, 3);
	assert_int_equal(ev.sent, 0);
	assert_int_equal(neigh_count(t), 2);
	assert_int_equal(state_of(t, "10.0.0.1", 0), NEIGH_S_INCOMPLETE);
	neigh_stats_get(t, &st);
	assert_int_equal(st.hold_flushed, 3);
	neigh_hold_flush(t); /* nothing left */
	assert_int_equal(ev.dropped, 3);
	/* the queues are whole again: 3 + 2 fit the total of 5 */
	assert_int_equal(neigh_resolve(t, &a, 0, &pkt_tag[3], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &a, 0, &pkt_tag[4], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &a, 0, &pkt_tag[5], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &b, 0, &pkt_tag[6], 1, NULL), 0);
	assert_int_equal(neigh_resolve(t, &b, 0, &pkt_tag[7], 1, NULL), 0);
}

/* ---- IPv6 neighbour discovery --------------------------------------------- */

static const uint8_t rtr_ll[16] = {0xfe, 0x80, [8] = 0x02, [11] = 0xff, [12] = 0xfe, [15] = 1};
static const uint8_t host_g[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x05};

static struct fr_addr v6(const uint8_t *b)
{
	struct fr_addr a;

	memset(&a, 0, sizeof(a));
	a.family = AF_INET6;
	memcpy(a.v6, b, 16);
	return a;
}

/* Parse frame @f (an NS or NA we built) with its link-layer address option
 * grown to 16 bytes (the checksum recomputed: only that is wrong). */
static enum nd_err nd_lla_16(const uint8_t *f, struct nd_info *nd)
{
	uint8_t h[14 + 40 + 24 + 16] = {0};
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(h + 14);
	uint16_t ck;

	memcpy(h, f, 14 + 40 + 24 + 8);
	ip->payload_len = RTE_BE16(24 + 16);
	h[14 + 40 + 24 + 1] = 2;
	memset(h + 14 + 40 + 2, 0, 2);
	ck = rte_ipv6_udptcp_cksum(ip, h + 14 + 40);
	memcpy(h + 14 + 40 + 2, &ck, 2);
	return nd_parse(h, sizeof(h), nd);
}

/* Address helpers, frames we build parse back, and every RFC 4861 7.1
 * check refuses what it should. */
static void test_nd_frames(void **state)
{
	uint8_t f[ND_FRAME_LEN], g[16], ll[16];
	struct rte_ether_addr m;
	struct nd_info nd;
	uint16_t ck;

	(void)state;
	nd_solicited_node(host_g, g);
	{
		static const uint8_t want[16] = {0xff, 0x02, [11] = 1, [12] = 0xff, [15] = 5};

		assert_memory_equal(g, want, 16);
	}
	assert_true(nd_is_solicited_node_of(g, host_g));
	nd_mcast_mac(g, &m);
	assert_int_equal(m.addr_bytes[0], 0x33);
	assert_int_equal(m.addr_bytes[2], 0xff);
	assert_int_equal(m.addr_bytes[5], 5);
	/* 02:00:00:00:00:01 -> fe80::ff:fe00:1 (the U/L bit flips) */
	nd_eui64_linklocal(&mac1, ll);
	{
		static const uint8_t want[16] = {0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 1};

		assert_memory_equal(ll, want, 16);
	}

	/* NS to the solicited-node group: parses, SLLA present */
	nd_build_ns(f, &mac1, rtr_ll, host_g, NULL);
	assert_int_equal(nd_parse(f, sizeof(f), &nd), ND_OK);
	assert_int_equal(nd.type, ND_TYPE_NS);
	assert_true(nd.has_lla && rte_is_same_ether_addr(&nd.lla, &mac1));
	assert_memory_equal(nd.target, host_g, 16);
	assert_memory_equal(nd.dst, g, 16);
	/* hop limit other than 255: refused as such (7.1.1) */
	f[14 + 7] = 254;
	assert_int_equal(nd_parse(f, sizeof(f), &nd), ND_ERR_HOP_LIMIT);
	f[14 + 7] = 255;
	/* a flipped bit: checksum */
	f[14 + 40 + 8 + 15] ^= 1;
	assert_int_equal(nd_parse(f, sizeof(f), &nd), ND_ERR_CHECKSUM);
	f[14 + 40 + 8 + 15] ^= 1;
	/* truncated */
	assert_int_equal(nd_parse(f, 14 + 40 + 20, &nd), ND_ERR_MALFORMED);
	/* a zero-length option (recomputing the checksum so only that is wrong) */
	f[14 + 40 + 24 + 1] = 0;
	memset(f + 14 + 40 + 2, 0, 2);
	ck = rte_ipv6_udptcp_cksum((struct rte_ipv6_hdr *)(f + 14), f + 14 + 40);
	memcpy(f + 14 + 40 + 2, &ck, 2);
	assert_int_equal(nd_parse(f, sizeof(f), &nd), ND_ERR_MALFORMED);

	/* DAD: source ::, no SLLA allowed */
	nd_build_ns(f, &mac1, rtr_ll, host_g, NULL);
	memset(f + 14 + 8, 0, 16);
	memset(f + 14 + 40 + 2, 0, 2);
	ck = rte_ipv6_udptcp_cksum((struct rte_ipv6_hdr *)(f + 14), f + 14 + 40);
	memcpy(f + 14 + 40 + 2, &ck, 2);
	assert_int_equal(nd_parse(f, sizeof(f), &nd), ND_ERR_MALFORMED); /* has SLLA */
	/* nor one of 16 bytes */
	assert_int_equal(nd_lla_16(f, &nd), ND_ERR_MALFORMED);
	{
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + 14);

		ip->payload_len = RTE_BE16(24); /* drop the option */
		memset(f + 14 + 40 + 2, 0, 2);
		ck = rte_ipv6_udptcp_cksum(ip, f + 14 + 40);
		memcpy(f + 14 + 40 + 2, &ck, 2);
		assert_int_equal(nd_parse(f, 14 + 40 + 24, &nd), ND_OK);
		assert_true(ip6_is_unspec(nd.src) && !nd.has_lla);
	}

	/* our own DAD probe (RFC 4862 5.4.2): parses as one, from ::, to the
	 * target's solicited-node group, no option */
	memset(f, 0xee, sizeof(f));
	assert_int_equal(nd_build_dad_ns(f, &mac1, host_g), ND_FRAME_LEN - 8);
	assert_int_equal(nd_parse(f, ND_FRAME_LEN - 8, &nd), ND_OK);
	assert_int_equal(nd.type, ND_TYPE_NS);
	assert_true(ip6_is_unspec(nd.src) && !nd.has_lla);
	assert_memory_equal(nd.dst, g, 16);
	assert_memory_equal(nd.target, host_g, 16);
	assert_int_equal(f[0], 0x33); /* to the group's MAC */

	/* NA: flags and TLLA; solicited to a group is refused */
	nd_build_na(f, &mac2, host_g, &mac1, rtr_ll, host_g, ND_NA_SOLICITED | ND_NA_OVERRIDE);
	assert_int_equal(nd_parse(f, sizeof(f), &nd), ND_OK);
	assert_int_equal(nd.type, ND_TYPE_NA);
	assert_int_equal(nd.flags, ND_NA_SOLICITED | ND_NA_OVERRIDE);
	assert_true(nd.has_lla && rte_is_same_ether_addr(&nd.lla, &mac2));
	nd_build_na(f, &mac2, host_g, &mac1, g, host_g, ND_NA_SOLICITED);
	assert_int_equal(nd_parse(f, sizeof(f), &nd), ND_ERR_MALFORMED);
	/* a multicast target is refused */
	nd_build_na(f, &mac2, host_g, &mac1, rtr_ll, g, ND_NA_OVERRIDE);
	assert_int_equal(nd_parse(f, sizeof(f), &nd), ND_ERR_MALFORMED);
	/* a link-layer address option not of Ethernet's 8 bytes holds no MAC:
	 * the NA (it would confirm a neighbour as one without the option) and
	 * the NS are dropped, as Linux drops them */
	nd_build_na(f, &mac2, host_g, &mac1, rtr_ll, host_g, ND_NA_SOLICITED | ND_NA_OVERRIDE);
	assert_int_equal(nd_lla_16(f, &nd), ND_ERR_MALFORMED);
	nd_build_ns(f, &mac1, rtr_ll, host_g, NULL);
	assert_int_equal(nd_lla_16(f, &nd), ND_ERR_MALFORMED);
}

/* Parse a frame we built and apply it. */
static enum nd_verdict nd_apply(struct neigh_table *t, const uint8_t *f, uint16_t port, bool ours,
				uint64_t now, bool *learnt)
{
	struct nd_info nd;

	assert_int_equal(nd_parse(f, ND_FRAME_LEN, &nd), ND_OK);
	return nd_process(t, &nd, port, ours, true, now, learnt);
}

/*
 * RFC 4861 7.2 and 7.3 on IPv6 entries, with the fake clock: resolution
 * probes, the solicited NA completes it, unsolicited NAs create nothing and
 * without override cannot move a known address, a DAD probe creates no
 * entry, an NS for us creates a STALE entry, NUD takes STALE to PROBE
 * (unicast) to FAILED.
 */
static void test_nd_state_machine(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr h = v6(host_g);
	uint64_t *used = neigh_used_map(t, 0);
	uint8_t f[ND_FRAME_LEN];
	struct neigh_info ni;
	uint64_t now = 1000;
	bool learnt;
	uint32_t idx;

	/* unsolicited NA for an unknown neighbour: no entry */
	nd_build_na(f, &mac2, host_g, &mac1, rtr_ll, host_g, ND_NA_OVERRIDE);
	assert_int_equal(nd_apply(t, f, 1, false, now, &learnt), ND_V_IGNORED);
	nd_build_na(f, &mac2, host_g, &mac1, rtr_ll, host_g, ND_NA_OVERRIDE | ND_NA_SOLICITED);
	assert_int_equal(nd_apply(t, f, 1, false, now, &learnt), ND_V_IGNORED);
	assert_int_equal(neigh_count(t), 0);

	/* a packet needs it: INCOMPLETE, one multicast NS at once */
	assert_int_equal(neigh_resolve(t, &h, 1, &pkt_tag[0], now, NULL), 0);
	assert_int_equal(neigh_get(t, &h, 1, &ni), 0);
	assert_int_equal(ni.state, NEIGH_S_INCOMPLETE);
	assert_int_equal(ev.probes_b, 1);
	neigh_tick(t, now + 100);
	assert_int_equal(ev.probes_b, 2);
	/* the solicited NA: REACHABLE, the held packet leaves to its MAC */
	nd_build_na(f, &mac2, host_g, &mac1, rtr_ll, host_g, ND_NA_SOLICITED | ND_NA_OVERRIDE);
	assert_int_equal(nd_apply(t, f, 1, false, now + 150, &learnt), ND_V_LEARNT);
	assert_int_equal(neigh_get(t, &h, 1, &ni), 0);
	assert_int_equal(ni.state, NEIGH_S_REACHABLE);
	assert_int_equal(ev.sent, 1);
	assert_true(rte_is_same_ether_addr(&ev.last_mac, &mac2));
	/* the same NA on another port changes nothing there */
	assert_int_equal(nd_apply(t, f, 2, false, now + 150, &learnt), ND_V_IGNORED);
	assert_int_equal(neigh_find(t, &h, 2), NEIGH_IDX_NONE);
	/* a different address without override: the known one stands, but
	 * REACHABLE turns STALE (7.2.5 I (a)); once STALE, ignored */
	nd_build_na(f, &mac1, host_g, &mac1, rtr_ll, host_g, ND_NA_SOLICITED);
	assert_int_equal(nd_apply(t, f, 1, false, now + 160, &learnt), ND_V_LEARNT);
	assert_int_equal(neigh_get(t, &h, 1, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac2));
	assert_int_equal(ni.state, NEIGH_S_STALE);
	assert_int_equal(nd_apply(t, f, 1, false, now + 161, &learnt), ND_V_IGNORED);
	assert_int_equal(neigh_get(t, &h, 1, &ni), 0);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac2));
	assert_int_equal(ni.state, NEIGH_S_STALE);
	/* with override, unsolicited: moves it, to STALE (7.2.5) */
	nd_build_na(f, &mac1, host_g, &mac1, rtr_ll, host_g, ND_NA_OVERRIDE);
	assert_int_equal(nd_apply(t, f, 1, false, now + 170, &learnt), ND_V_LEARNT);
	assert_int_equal(neigh_get(t, &h, 1, &ni), 0);
	assert_int_equal(ni.state, NEIGH_S_STALE);
	assert_true(rte_is_same_ether_addr(&ni.mac, &mac1));
	/* used while STALE: PROBE, unicast NS; nobody answers: FAILED */
	idx = neigh_find(t, &h, 1);
	neigh_mark_used(used, idx);
	neigh_tick(t, now + 200);
	assert_int_equal(neigh_get(t, &h, 1, &ni), 0);
	assert_int_equal(ni.state, NEIGH_S_PROBE);
	assert_int_equal(ev.probes_u, 1);
	neigh_tick(t, now + 300);
	assert_int_equal(ev.probes_u, 2);
	neigh_tick(t, now + 400);
	/* unanswered: gone (7.3.3), nothing refers to it */
	assert_int_equal(neigh_find(t, &h, 1), NEIGH_IDX_NONE);

	/* DAD probe for our address: defend, no entry; for another: nothing */
	{
		struct nd_info nd;

		nd_build_ns(f, &mac2, host_g, rtr_ll, NULL);
		assert_int_equal(nd_parse(f, sizeof(f), &nd), ND_OK);
		memset(nd.src, 0, 16);
		nd.has_lla = false;
		assert_int_equal(nd_process(t, &nd, 1, true, true, now + 1000, &learnt),
				 ND_V_DEFEND);
		assert_int_equal(nd_process(t, &nd, 1, false, true, now + 1000, &learnt),
				 ND_V_DAD_OTHER);
		assert_int_equal(neigh_count(t), 0);
	}
	/* an NS for us from an on-link host: answered, the host learnt STALE */
	nd_build_ns(f, &mac2, host_g, rtr_ll, NULL);
	assert_int_equal(nd_apply(t, f, 1, true, now + 1100, &learnt), ND_V_ANSWER);
	assert_true(learnt);
	assert_int_equal(neigh_get(t, &h, 1, &ni), 0);
	assert_int_equal(ni.state, NEIGH_S_STALE);
	/* ... but an NS for someone else is not ours to answer or learn from */
	assert_int_equal(neigh_del(t, &h, 1), 0);
	assert_int_equal(nd_apply(t, f, 1, false, now + 1200, &learnt), ND_V_NOT_FOR_US);
	assert_int_equal(neigh_count(t), 0);
}

/*
 * Addresses chosen to collide: CRC32 is linear, so the interface IDs of a
 * /64 whose keys share one CRC form a subspace of some 2^32 (found here by
 * elimination over GF(2), as anyone can). Under CRC they would all share
 * one rte_hash chain, which every worker lookup of them walks; the table's
 * keyed hash spreads them.
 */
static void test_hash_flood(void **state)
{
	struct neigh_table *t = *state;
	uint64_t piv_val[32] = {0}, piv_iid[32] = {0}, kern[48];
	struct neigh_key k;
	unsigned int nk = 0, i, j, distinct;
	uint32_t base, h[48];

	memset(&k, 0, sizeof(k));
	k.family = AF_INET6;
	k.port = 1;
	k.addr[0] = 0x20;
	k.addr[1] = 0x01;
	k.addr[2] = 0x0d;
	k.addr[3] = 0xb8;
	k.addr[5] = 0x01;
	base = fr_hash_crc(&k, sizeof(k), 0);
	/* each IID bit's effect on the CRC; a bit whose effect the pivots
	 * already span gives an IID in the kernel: same CRC as IID 0 */
	for (j = 0; j < 64 && nk < RTE_DIM(kern); j++) {
		uint64_t iid = 1ull << j, v;

		memcpy(&k.addr[8], &iid, 8);
		v = fr_hash_crc(&k, sizeof(k), 0) ^ base;
		for (i = 32; i-- > 0;) {
			if (!((v >> i) & 1))
				continue;
			if (piv_val[i] == 0) {
				piv_val[i] = v;
				piv_iid[i] = iid;
				break;
			}
			v ^= piv_val[i];
			iid ^= piv_iid[i];
		}
		if (v == 0)
			kern[nk++] = iid;
	}
	assert_true(nk >= 32);
	for (i = 0; i < nk; i++) {
		memcpy(&k.addr[8], &kern[i], 8);
		assert_int_equal(fr_hash_crc(&k, sizeof(k), 0), base); /* the flood */
		h[i] = rte_hash_hash(t->hash, &k);
	}
	for (i = 0, distinct = 0; i < nk; i++) {
		for (j = 0; j < i && h[j] != h[i]; j++)
			;
		distinct += j == i;
	}
	/* two of 32 or more alike: about one chance in ten million */
	assert_true(distinct >= nk - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_static, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_slots, setup, teardown),
		cmocka_unit_test(test_walk_strided),
		cmocka_unit_test_setup_teardown(test_learnt_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_capacity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_flip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_incomplete_fails, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_reachable_stale_expire, nud_setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_nud_reachable_random, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_probe, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_delay, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_used_reuse, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_learn_rules, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_arp_lock, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_arp_lock_states, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_limits, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_hold_bufs, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_hold_flush, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_evict, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_evict_per_tick, nud_setup, teardown),
		cmocka_unit_test(test_nud_evict_cap),
		cmocka_unit_test_setup_teardown(test_nud_port_flush, nud_setup, teardown),
		cmocka_unit_test_setup_teardown(test_nud_rehold_on_release, nud_setup, teardown),
		cmocka_unit_test(test_nd_frames),
		cmocka_unit_test_setup_teardown(test_hash_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nd_state_machine, nud_setup, teardown),
	};

	test_eal_init("neigh");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
