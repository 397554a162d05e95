/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/rtcache: slots and eviction, stale entries, flush, auto mode measuring
 * both sides and keeping the cheaper, its hit-rate windows and their trigger,
 * constant memory, and the keyed hash: keys crafted
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
	e = rtcache_slot(c, k1, 0, 0, 0);
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
	a = rtcache_slot(c, k2, 0, 0, 0);
	assert_int_equal(c->st.evictions, 0);
	b = rtcache_slot(c, k3, 0, 0, 0);
	assert_int_equal(c->st.evictions, 1);
	assert_ptr_equal(b, rtcache_find(c, k3, 0, 0));
	assert_ptr_equal(a, rtcache_find(c, k2, 0, 0));
	assert_null(rtcache_find(c, k1, 0, 0)); /* k1 was the oldest */
	/* the older of a bucket's two entries goes, however many fills other
	 * buckets saw between (a 16-bit clock shared by every fill, as it
	 * was, wrapped here between k3's fill and k2's, and then took k2 for
	 * the older): k3, then 65,534 fills elsewhere, k2 again, one more,
	 * and k4 for the bucket evicts k3 */
	{
		const uint32_t x = rtcache_bucket(c, k1, 0, 0);
		uint32_t k4, o = 0x0b000000;

		assert_ptr_equal(rtcache_slot(c, k2, 0, 0, 0), a); /* k2 refreshed: the newer */
		rtcache_slot(c, k3, 0, 0, 0);			   /* now k3 is */
		assert_ptr_equal(rtcache_find(c, k3, 0, 0), b);
		for (n = 0; n < 65534 + 1; n++) {
			if (n == 65534) {
				assert_ptr_equal(rtcache_slot(c, k2, 0, 0, 0),
						 a); /* k2 the newer again */
				continue;
			}
			while (rtcache_bucket(c, o, 0, 0) == x)
				o++;
			rtcache_slot(c, o++, 0, 0, 0);
		}
		while (rtcache_bucket(c, o, 0, 0) == x)
			o++;
		rtcache_slot(c, o, 0, 0, 0);
		for (k4 = k3 + 1; rtcache_bucket(c, k4, 0, 0) != x; k4++)
			;
		rtcache_slot(c, k4, 0, 0, 0);
		assert_non_null(rtcache_find(c, k2, 0, 0));
		assert_null(rtcache_find(c, k3, 0, 0)); /* k3 was the older */
		assert_non_null(rtcache_find(c, k4, 0, 0));
		a = rtcache_find(c, k2, 0, 0);
	}
	/* a stale entry is forgotten and counted */
	rtcache_stale(c, a);
	assert_null(rtcache_find(c, k2, 0, 0));
	assert_int_equal(c->st.stale, 1);
	rtcache_flush(c);
	assert_null(rtcache_find(c, k3, 0, 0));
	/* a fill takes a way made under an older FIB generation before the
	 * older way, and that is no eviction: k1 (the older) of generation
	 * 2, k2 of 1 (a route changed since), then k3 at 2 takes k2's way */
	n = (unsigned int)c->st.evictions;
	rtcache_slot(c, k1, 0, 0, 2)->fib_gen = 2;
	rtcache_slot(c, k2, 0, 0, 2)->fib_gen = 1;
	rtcache_slot(c, k3, 0, 0, 2)->fib_gen = 2;
	assert_int_equal(c->st.evictions, n);
	assert_non_null(rtcache_find(c, k1, 0, 0));
	assert_null(rtcache_find(c, k2, 0, 0));
	/* both of generation 2: the older (k1) goes, counted */
	rtcache_slot(c, k2, 0, 0, 2)->fib_gen = 2;
	assert_int_equal(c->st.evictions, n + 1);
	assert_null(rtcache_find(c, k1, 0, 0));
	assert_non_null(rtcache_find(c, k3, 0, 0));
	/* both out of date at 3: the older (k3) goes, not counted */
	rtcache_slot(c, k1, 0, 0, 3)->fib_gen = 3;
	assert_int_equal(c->st.evictions, n + 1);
	assert_null(rtcache_find(c, k3, 0, 0));
	assert_non_null(rtcache_find(c, k2, 0, 0));
	rtcache_flush(c);
	assert_int_equal(rtcache_memory(c), mem); /* whatever happened, same memory */
	rtcache_free(c);
}

/* A burst of auto mode: @p n packets at @p cpp cycles a packet; probed ones
 * hit @p hit_pct of their probes. */
static void auto_burst(struct rtcache *c, uint32_t n, uint32_t cpp, uint32_t hit_pct)
{
	bool timed = rtcache_timing(c);

	if (rtcache_use(c, n))
		rtcache_count(c, n, n * hit_pct / 100);
	rtcache_auto_end(c, n, timed, (uint64_t)cpp * n);
}

/*
 * One measurement of auto mode, from its start, in bursts of 32: a warming
 * sample (its cycles not judged), then the timed samples, which must run
 * probed, bypassed, bypassed, probed, ... The probed samples cost @p probed
 * cycles a packet and hit @p hit_pct of their probes, the bypassed ones
 * @p bypassed.
 */
static void measurement(struct rtcache *c, const uint32_t *probed, const uint32_t *bypassed,
			uint32_t hit_pct)
{
	static const bool order[8] = {true, false, false, true, true, false, false, true};
	uint32_t s, sent, np = 0, nb = 0;

	assert_int_equal(RTCACHE_AUTO_PAIRS * 2, 8);
	assert_true(c->measuring);
	assert_true(rtcache_probing(c)); /* warming: probed */
	for (sent = 0; sent < c->au.sample; sent += 32)
		auto_burst(c, 32, 1000, 0); /* neither its cycles nor its misses count */
	for (s = 0; s < 8; s++) {
		uint32_t cpp = order[s] ? probed[np++] : bypassed[nb++];

		assert_true(c->measuring);
		assert_int_equal(rtcache_probing(c), order[s]);
		for (sent = 0; sent < c->au.sample; sent += 32)
			auto_burst(c, 32, cpp, hit_pct);
	}
	assert_false(c->measuring);
}

/*
 * Auto mode keeps the side that measured cheaper, by the medians of its
 * samples, for the hold (doubled after each choice to bypass in a row, up
 * to 8 times); then it measures again. A burst that was not timed (the
 * measurement began inside it) is no sample.
 */
static void test_auto(void **state)
{
	struct rtcache *c = rtcache_create(1024, 0, 1);
	struct rtcache_auto au = {.sample = 100, .hold = 1000, .window = 100, .trigger_pts = 20};
	const uint32_t p30[4] = {30, 31, 29, 30}, b40[4] = {40, 41, 39, 40},
		       p80[4] = {80, 80, 80, 80};
	const uint32_t p_spike[4] = {30, 30, 5000, 30}, b_spike[4] = {40, 9000, 40, 40};
	const uint32_t p45[4] = {45, 45, 45, 45};
	const uint32_t p_even[4] = {36, 90, 28, 30}, b_even[4] = {100, 35, 20, 31};
	uint64_t bypassed, n;
	unsigned int k;

	(void)state;
	rtcache_auto_set(c, &au);
	rtcache_mode_set(c, RTCACHE_AUTO);
	assert_int_equal(c->measurements, 0);
	/* an untimed burst moves nothing */
	rtcache_auto_end(c, 1000, false, 0);
	assert_int_equal(c->m_step, 0);
	assert_int_equal(c->m_pkts, 0);
	/* probing cheaper: kept; medians x16 (samples of 128 packets: 4 bursts) */
	measurement(c, p30, b40, 100);
	assert_false(c->bypassing);
	assert_true(rtcache_probing(c));
	assert_int_equal(c->probe_cpp16, 30 * 16);
	assert_int_equal(c->bypass_cpp16, 40 * 16);
	assert_int_equal(c->verdict_pct, 100);
	assert_int_equal(c->measurements, 1);
	/* for the hold, then from cold again */
	c->warm = 1;
	for (n = 0; n < 1000; n += 32) {
		assert_false(c->measuring);
		auto_burst(c, 32, 30, 100);
	}
	assert_true(c->measuring);
	assert_int_equal(c->warm, 0);
	/* bypassing cheaper: steps aside, and counts what it lets by */
	measurement(c, p80, b40, 25);
	assert_true(c->bypassing);
	assert_int_equal(c->verdict_pct, 25);
	bypassed = c->st.bypassed;
	assert_false(rtcache_use(c, 32));
	assert_int_equal(c->st.bypassed, bypassed + 32);
	rtcache_auto_end(c, 32, false, 0);
	/* the first choice to bypass holds it twice as long (2,000 packets) */
	for (n = 32; n < 2000; n += 32) {
		assert_false(c->measuring);
		auto_burst(c, 32, 40, 0);
	}
	assert_true(c->measuring);
	assert_true(rtcache_probing(c)); /* its warming sample probes */
	/* bypassing again and again: 4, then 8 times the hold, no longer */
	for (k = 2; k <= 4; k++) {
		uint64_t hold = 1000u << (k < 3 ? k : 3);

		measurement(c, p80, b40, 25);
		assert_true(c->bypassing);
		assert_int_equal(c->hold_shift, k < 3 ? k : 3);
		for (n = 0; n < hold; n += 40) {
			assert_false(c->measuring);
			auto_burst(c, 40, 40, 0);
		}
		assert_true(c->measuring);
	}
	/* a sample a preemption inflated does not decide: the medians; and
	 * choosing to probe brings the hold back to 1,000 packets */
	measurement(c, p_spike, b40, 100);
	assert_false(c->bypassing);
	assert_int_equal(c->probe_cpp16, 30 * 16);
	assert_int_equal(c->hold_shift, 0);
	assert_int_equal(c->hold_left, 1000);
	rtcache_measure_start(c);
	measurement(c, p45, b_spike, 100);
	assert_true(c->bypassing);
	assert_int_equal(c->bypass_cpp16, 40 * 16);
	/* a tie keeps probing */
	rtcache_measure_start(c);
	measurement(c, b40, b40, 100);
	assert_false(c->bypassing);
	assert_int_equal(c->measurements, 8);
	/* four samples a side: the median is the mean of the middle two, not
	 * either of them (probed 30 and 36, bypassed 31 and 35: 33 both, a
	 * tie, which keeps probing; by the upper one it would bypass) */
	rtcache_measure_start(c);
	measurement(c, p_even, b_even, 100);
	assert_int_equal(c->probe_cpp16, 33 * 16);
	assert_int_equal(c->bypass_cpp16, 33 * 16);
	assert_false(c->bypassing);
	/* on: always probed, never measured; off: never probed */
	rtcache_mode_set(c, RTCACHE_ON);
	assert_false(c->measuring);
	for (n = 0; n < 2000; n += 32)
		auto_burst(c, 32, 40, 0);
	assert_false(c->measuring);
	assert_true(rtcache_use(c, 1));
	rtcache_mode_set(c, RTCACHE_OFF);
	assert_false(rtcache_use(c, 1));
	rtcache_free(c);
}

/* While probing, a hit-rate window far below the last measurement's starts
 * the next measurement at once (a flood began); one near it does not. */
static void test_auto_trigger(void **state)
{
	struct rtcache *c = rtcache_create(1024, 0, 1);
	struct rtcache_auto au = {
		.sample = 100, .hold = 1u << 20, .window = 100, .trigger_pts = 20};
	const uint32_t p30[4] = {30, 30, 30, 30}, b40[4] = {40, 40, 40, 40};

	(void)state;
	rtcache_auto_set(c, &au);
	rtcache_mode_set(c, RTCACHE_AUTO);
	measurement(c, p30, b40, 100);
	assert_int_equal(c->verdict_pct, 100);
	/* 80%: 20 points below, not more */
	rtcache_count(c, 100, 80);
	rtcache_account(c);
	assert_int_equal(c->last_win_pct, 80);
	assert_false(c->measuring);
	/* 79%: measure now */
	rtcache_count(c, 100, 79);
	rtcache_account(c);
	assert_int_equal(c->last_win_pct, 79);
	assert_true(c->measuring);
	assert_true(rtcache_probing(c));
	/* a window closing during a measurement does not restart it */
	measurement(c, p30, b40, 100);
	rtcache_measure_start(c);
	auto_burst(c, 100, 1000, 0);
	assert_int_equal(c->m_step, 1);
	rtcache_count(c, 100, 0);
	rtcache_account(c);
	assert_int_equal(c->m_step, 1);
	rtcache_free(c);
}

/* Mode on closes hit-rate windows too (show rtcache stats' win_hit%),
 * and measures nothing; a mode set starts without a closed window (the
 * last one was another mode's: shown '-'). */
static void test_window_on(void **state)
{
	struct rtcache *c = rtcache_create(1024, 0, 1);
	struct rtcache_auto au = {
		.sample = 100, .hold = 1u << 20, .window = 100, .trigger_pts = 20};

	(void)state;
	rtcache_auto_set(c, &au);
	rtcache_mode_set(c, RTCACHE_ON);
	assert_false(c->win_closed);
	rtcache_count(c, 60, 30);
	rtcache_account(c);
	assert_false(c->win_closed); /* not full yet */
	rtcache_count(c, 40, 20);
	rtcache_account(c);
	assert_true(c->win_closed);
	assert_int_equal(c->last_win_pct, 50);
	assert_false(c->measuring); /* 50 points below nothing: on never measures */
	rtcache_mode_set(c, RTCACHE_AUTO);
	assert_false(c->win_closed);
	rtcache_mode_set(c, RTCACHE_OFF);
	rtcache_count(c, 100, 100);
	rtcache_account(c);
	assert_false(c->win_closed); /* off probes nothing: no window */
	rtcache_free(c);
}

/* A burst of @p n probes, @p cold of them misses into free ways and @p miss
 * ordinary misses. */
static void miss_burst(struct rtcache *c, uint32_t n, uint32_t cold, uint32_t miss)
{
	bool timed = rtcache_timing(c);
	uint32_t i;

	assert_true(rtcache_use(c, n));
	rtcache_count(c, n, n - cold - miss);
	for (i = 0; i < cold; i++)
		rtcache_cold_miss(c, RTCACHE_PORT_EMPTY, RTCACHE_PORT_EMPTY);
	rtcache_auto_end(c, n, timed, 40ull * n);
}

static void cold_burst(struct rtcache *c, uint32_t n, uint32_t cold)
{
	miss_burst(c, n, cold, 0);
}

/*
 * A measurement warms the cache until a sample's cold misses fall under
 * 1/16 (more flows than a sample, or stale entries after a route change),
 * for at most as many samples as fill the cache (at least 16); its hit rate
 * leaves cold misses out as a window does (up to half the probes), and owes
 * nothing to the counters 'clear stats' zeroes.
 */
static void test_auto_warming_samples(void **state)
{
	struct rtcache *c = rtcache_create(1024, 0, 1);
	struct rtcache_auto au = {
		.sample = 128, .hold = 1u << 20, .window = 100, .trigger_pts = 20};
	uint32_t s, b;

	(void)state;
	rtcache_auto_set(c, &au);
	rtcache_mode_set(c, RTCACHE_AUTO);
	/* three samples mostly cold, then one with 8 of 128 (1/16, not under) */
	for (s = 0; s < 3; s++)
		for (b = 0; b < 4; b++)
			cold_burst(c, 32, 20);
	assert_int_equal(c->m_step, 0);
	assert_int_equal(c->m_warming, 3);
	for (b = 0; b < 4; b++)
		cold_burst(c, 32, 2);
	assert_int_equal(c->m_step, 0);
	/* 7 of 128: warm, the timed samples begin */
	for (b = 0; b < 4; b++)
		cold_burst(c, 32, b < 3 ? 2 : 1);
	assert_int_equal(c->m_step, 1);
	/* the probed samples: 16 bursts of 32 probes, each with 20 cold
	 * misses and 4 others; the stats cleared half way (as 'clear stats'
	 * does) change nothing */
	for (s = 1; s <= 8; s++) {
		if (s == 4)
			memset(&c->st, 0, sizeof(c->st));
		for (b = 0; b < 4; b++) {
			if (rtcache_probing(c)) {
				miss_burst(c, 32, 20, 4);
			} else {
				assert_false(rtcache_use(c, 32));
				rtcache_auto_end(c, 32, true, 50ull * 32);
			}
		}
	}
	assert_false(c->measuring);
	/* 128 hits of 512 probes, 320 cold: 256 excused (half), 128 of 256 */
	assert_int_equal(c->verdict_pct, 50);
	assert_false(c->bypassing); /* 40 against 50 cycles */
	/* a flood into an empty cache stays cold: warming stops at the cap
	 * (1,024 entries, samples of 128: the minimum, 16) */
	rtcache_measure_start(c);
	for (s = 0; s < RTCACHE_AUTO_WARMING_MIN - 1; s++)
		for (b = 0; b < 4; b++)
			cold_burst(c, 32, 32);
	assert_int_equal(c->m_step, 0);
	for (b = 0; b < 4; b++)
		cold_burst(c, 32, 32);
	assert_int_equal(c->m_step, 1);
	rtcache_free(c);
	/* a cache of 8,192 entries fills in 64 samples of 128: the cap; one of
	 * 65,536 (512 samples) is held to RTCACHE_AUTO_WARMING_MAX too */
	for (b = 8192; b <= 65536; b *= 8) {
		c = rtcache_create(b, 0, 1);
		rtcache_auto_set(c, &au);
		rtcache_mode_set(c, RTCACHE_AUTO);
		for (s = 0; s < RTCACHE_AUTO_WARMING_MAX - 1; s++)
			cold_burst(c, 128, 128);
		assert_int_equal(c->m_step, 0);
		assert_int_equal(c->m_warming, RTCACHE_AUTO_WARMING_MAX - 1);
		cold_burst(c, 128, 128);
		assert_int_equal(c->m_step, 1);
		rtcache_free(c);
	}
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
		rtcache_slot(c, key[i], 0, 0, 0);
	}
	for (i = n; i < c->au.window; i++) {
		assert_non_null(rtcache_find(c, key[i % n], 0, 0));
		rtcache_hit(c);
	}
	rtcache_account(c);
	return c->last_win_pct;
}

/* Auto mode's hit-rate windows judge the traffic, not the cache warming up:
 * misses into free ways and stale entries are excused (up to half a window),
 * evictions not. */
static void test_auto_warming(void **state)
{
	struct rtcache *c = rtcache_create(65536, 0, 1);
	struct rtcache_auto au = {
		.sample = 1024, .hold = 1u << 20, .window = 4096, .trigger_pts = 20};
	const uint32_t cheap[4] = {30, 30, 30, 30}, dear[4] = {40, 40, 40, 40};
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
	/* probing measured cheaper, with every probe a hit */
	measurement(c, cheap, dear, 100);
	/* 1,000 flows from a cold start: 1,000 compulsory misses, the rest hits:
	 * 3,096 of 4,096 (75%) would measure again; warming is excused */
	assert_int_equal(warming_window(c, key, 1000, false), 100);
	assert_false(c->measuring);
	/* the same after a route change made all 1,000 entries stale */
	assert_int_equal(warming_window(c, key, 1000, true), 100);
	assert_int_equal(c->st.stale, 1000);
	assert_false(c->measuring);
	/* at most half a window is excused: 3,000 new flows in a window
	 * (1,096 hits of the 2,048 judged, 53%) measure again */
	rtcache_flush(c);
	rtcache_mode_set(c, RTCACHE_AUTO);
	measurement(c, cheap, dear, 100);
	assert_int_equal(warming_window(c, key, 3000, false), 1096 * 100 / 2048);
	assert_true(c->measuring);
	/* a miss that evicts is a sign: three keys of one bucket, the third
	 * misses a full bucket and is not excused */
	rtcache_flush(c);
	rtcache_mode_set(c, RTCACHE_AUTO);
	measurement(c, cheap, dear, 100);
	k1 = 0x0e000000;
	for (k2 = k1 + 1; rtcache_bucket(c, k2, 0, 0) != rtcache_bucket(c, k1, 0, 0); k2++)
		;
	for (k3 = k2 + 1; rtcache_bucket(c, k3, 0, 0) != rtcache_bucket(c, k1, 0, 0); k3++)
		;
	assert_null(rtcache_find(c, k1, 0, 0));
	rtcache_slot(c, k1, 0, 0, 0);
	assert_null(rtcache_find(c, k2, 0, 0));
	rtcache_slot(c, k2, 0, 0, 0);
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
		cmocka_unit_test(test_slots),	     cmocka_unit_test(test_auto),
		cmocka_unit_test(test_auto_trigger), cmocka_unit_test(test_window_on),
		cmocka_unit_test(test_auto_warming), cmocka_unit_test(test_auto_warming_samples),
		cmocka_unit_test(test_collisions),
	};

	test_eal_init("rtcache");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
