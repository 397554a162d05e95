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
	/* after the bypass budget, it measures again */
	for (i = 0; i < 1000 / 32 + 1; i++)
		rtcache_use(c, 32);
	assert_true(rtcache_use(c, 1));
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
		cmocka_unit_test(test_collisions),
	};

	test_eal_init("rtcache");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
