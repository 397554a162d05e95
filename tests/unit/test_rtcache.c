/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rtcache: slots and eviction, stale entries, flush, auto mode stepping
 * aside and coming back, constant memory, and the keyed hash: keys crafted
 * to share one bucket under a known secret do not under a random one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eal_helper.h"
#include "rtcache.h"

static void test_slots(void **state)
{
	struct rtcache *c = rtcache_create(64, 0, 12345);
	struct rtcache_entry *e, *a, *b;
	uint64_t mem = rtcache_memory(c);
	uint32_t k1 = 0x0a000001, k2, k3;
	unsigned int n;

	(void)state;
	c->mode = RTCACHE_ON;
	assert_null(rtcache_find(c, k1, 0, 0));
	e = rtcache_slot(c, k1, 0, 0);
	e->out_port = 7;
	e = rtcache_find(c, k1, 0, 0);
	assert_non_null(e);
	assert_int_equal(e->out_port, 7);
	/* the arrival port and the source are part of the key */
	assert_null(rtcache_find(c, k1, 0, 1));
	assert_null(rtcache_find(c, k1, 5, 0));
	/* two more keys for the same bucket: the oldest is evicted */
	for (k2 = k1 + 1, n = 0; rtcache_bucket(c, k2, 0, 0) != rtcache_bucket(c, k1, 0, 0); k2++)
		n++;
	for (k3 = k2 + 1; rtcache_bucket(c, k3, 0, 0) != rtcache_bucket(c, k1, 0, 0); k3++)
		;
	a = rtcache_slot(c, k2, 0, 0);
	assert_int_equal(c->st.evictions, 0);
	b = rtcache_slot(c, k3, 0, 0);
	assert_int_equal(c->st.evictions, 1);
	assert_ptr_equal(b, rtcache_find(c, k3, 0, 0));
	assert_ptr_equal(a, rtcache_find(c, k2, 0, 0));
	assert_null(rtcache_find(c, k1, 0, 0)); /* k1 was the oldest */
	/* a stale entry is forgotten and counted */
	rtcache_stale(c, a);
	assert_null(rtcache_find(c, k2, 0, 0));
	assert_int_equal(c->st.stale, 1);
	rtcache_flush(c);
	assert_null(rtcache_find(c, k3, 0, 0));
	assert_int_equal(rtcache_memory(c), mem); /* whatever happened, same memory */
	rtcache_free(c);
}

static void test_auto(void **state)
{
	struct rtcache *c = rtcache_create(1024, 0, 1);
	struct rtcache_auto au = {.window = 100, .min_hit_pct = 50, .bypass = 1000};
	unsigned int i;

	(void)state;
	rtcache_auto_set(c, &au);
	rtcache_mode_set(c, RTCACHE_AUTO);
	/* a window of misses: step aside */
	for (i = 0; i < 100; i++) {
		assert_true(rtcache_use(c, 1));
		rtcache_find(c, 0x0b000000 + i, 0, 0);
	}
	rtcache_account(c);
	assert_int_equal(c->last_win_pct, 0);
	assert_false(rtcache_use(c, 32));
	assert_int_equal(c->st.bypassed, 32);
	/* after the bypass budget, it measures again, and from cold: the
	 * warm order (probe packet by packet) waits for a burst that hits */
	c->warm = 1;
	for (i = 0; i < 1000 / 32 + 1; i++)
		rtcache_use(c, 32);
	assert_true(rtcache_use(c, 1));
	assert_int_equal(c->warm, 0);
	/* a window of hits keeps it on */
	rtcache_slot(c, 0x0c000001, 0, 0);
	for (i = 0; i < 100; i++) {
		assert_non_null(rtcache_find(c, 0x0c000001, 0, 0));
		rtcache_hit(c);
	}
	rtcache_account(c);
	assert_int_equal(c->last_win_pct, 100);
	assert_true(rtcache_use(c, 1));
	/* off: never */
	rtcache_mode_set(c, RTCACHE_OFF);
	assert_false(rtcache_use(c, 1));
	rtcache_free(c);
}

/* One window of auto mode over @n flows of distinct buckets (@key): each
 * flow's first probe misses, the rest of the window hits; with @stale the
 * flows' entries are there but out of date (a route change). Its hit rate,
 * percent. */
static uint32_t warming_window(struct rtcache *c, const uint32_t *key, uint32_t n, bool stale)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct rtcache_entry *e = rtcache_find(c, key[i], 0, 0);

		if (stale) {
			assert_non_null(e);
			rtcache_stale(c, e);
		} else {
			assert_null(e);
		}
		rtcache_slot(c, key[i], 0, 0);
	}
	for (i = n; i < c->au.window; i++) {
		assert_non_null(rtcache_find(c, key[i % n], 0, 0));
		rtcache_hit(c);
	}
	rtcache_account(c);
	return c->last_win_pct;
}

/* Auto mode judges the traffic, not the cache warming up: misses into free
 * ways and stale entries are excused (up to half a window), evictions not. */
static void test_auto_warming(void **state)
{
	struct rtcache *c = rtcache_create(65536, 0, 1);
	struct rtcache_auto au = {.window = 4096, .min_hit_pct = 90, .bypass = 1u << 20};
	uint8_t *used = calloc(c->mask + 1, 1);
	uint32_t *key = calloc(3000, sizeof(*key));
	uint32_t i, n, k, k1, k2, k3, hits;

	(void)state;
	/* 3,000 keys in as many buckets: no miss of theirs evicts */
	for (k = 0x0d000000, n = 0; n < 3000; k++) {
		uint32_t b = rtcache_bucket(c, k, 0, 0);

		if (!used[b]) {
			used[b] = 1;
			key[n++] = k;
		}
	}
	rtcache_auto_set(c, &au);
	rtcache_mode_set(c, RTCACHE_AUTO);
	/* 1,000 flows from a cold start: 1,000 compulsory misses, the rest hits:
	 * 3,096 of 4,096 (75%) would step aside; warming is excused */
	assert_int_equal(warming_window(c, key, 1000, false), 100);
	assert_true(rtcache_use(c, 1));
	/* the same after a route change made all 1,000 entries stale */
	assert_int_equal(warming_window(c, key, 1000, true), 100);
	assert_int_equal(c->st.stale, 1000);
	assert_true(rtcache_use(c, 1));
	/* at most half a window is excused: 3,000 new flows in a window
	 * (1,096 hits of the 2,048 judged, 53%) step aside */
	rtcache_flush(c);
	rtcache_mode_set(c, RTCACHE_AUTO);
	assert_int_equal(warming_window(c, key, 3000, false), 1096 * 100 / 2048);
	assert_false(rtcache_use(c, 1));
	/* a miss that evicts is a verdict: three keys of one bucket, the third
	 * misses a full bucket and is not excused */
	rtcache_flush(c);
	rtcache_mode_set(c, RTCACHE_AUTO);
	k1 = 0x0e000000;
	for (k2 = k1 + 1; rtcache_bucket(c, k2, 0, 0) != rtcache_bucket(c, k1, 0, 0); k2++)
		;
	for (k3 = k2 + 1; rtcache_bucket(c, k3, 0, 0) != rtcache_bucket(c, k1, 0, 0); k3++)
		;
	assert_null(rtcache_find(c, k1, 0, 0));
	rtcache_slot(c, k1, 0, 0);
	assert_null(rtcache_find(c, k2, 0, 0));
	rtcache_slot(c, k2, 0, 0);
	assert_int_equal(c->win_cold, 2);
	assert_null(rtcache_find(c, k3, 0, 0));
	assert_int_equal(c->win_cold, 2);
	/* the rest of the window hits k1: judged, 4,093 hits of 4,094 */
	for (i = 3, hits = 0; i < au.window; i++, hits++) {
		assert_non_null(rtcache_find(c, k1, 0, 0));
		rtcache_hit(c);
	}
	rtcache_account(c);
	assert_int_equal(c->last_win_pct, hits * 100 / (au.window - 2));
	free(used);
	free(key);
	rtcache_free(c);
}

/* Keys an attacker could aim at one bucket if the hash were known. */
static void test_collisions(void **state)
{
	enum { N = 64 };
	struct rtcache *known = rtcache_create(65536, 0, 0xfeedfacecafebeefull);
	struct rtcache *secret = rtcache_create(65536, 0, 0); /* random secret */
	uint32_t keys[N], target, k, n = 0, i, j, distinct = 0, worst = 0;
	uint32_t *seen = calloc(N, sizeof(*seen));

	(void)state;
	target = rtcache_bucket(known, 0x0a000000, 0, 0);
	for (k = 0x0a000000; n < N; k++)
		if (rtcache_bucket(known, k, 0, 0) == target)
			keys[n++] = k;
	/* all N share one bucket under the known secret ... */
	for (i = 0; i < N; i++)
		assert_int_equal(rtcache_bucket(known, keys[i], 0, 0), target);
	/* ... and spread under a random one: with 32768 buckets, 64 random keys
	 * land in about 64 different buckets; a handful sharing is chance */
	for (i = 0; i < N; i++) {
		uint32_t b = rtcache_bucket(secret, keys[i], 0, 0), same = 0;

		for (j = 0; j < N; j++)
			same += rtcache_bucket(secret, keys[j], 0, 0) == b;
		if (same > worst)
			worst = same;
		seen[i] = b;
	}
	for (i = 0; i < N; i++) {
		for (j = 0; j < i; j++)
			if (seen[j] == seen[i])
				break;
		distinct += j == i;
	}
	print_message("64 keys colliding under a known secret: %u buckets, at most %u per "
		      "bucket under a random one\n",
		      distinct, worst);
	assert_true(distinct >= N - 4);
	assert_true(worst <= 3);
	free(seen);
	rtcache_free(known);
	rtcache_free(secret);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_auto),
		cmocka_unit_test(test_auto_warming),
		cmocka_unit_test(test_collisions),
	};

	test_eal_init("rtcache");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
