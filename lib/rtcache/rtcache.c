/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-lcore route cache: creation, flush, modes and auto mode's cost
 * measurement (see rtcache.h). */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "rtcache.h"

const char *const rtcache_mode_names[RTCACHE_MODE_MAX] = {
	[RTCACHE_OFF] = "off",
	[RTCACHE_ON] = "on",
	[RTCACHE_AUTO] = "auto",
};

/*
 * Auto mode judges by cost, not by a hit rate: what a hit saves and a miss
 * costs depends on the machine, the table and the traffic (make bench
 * measured the break-even hit rate anywhere from 59% to 98% over its runs:
 * a hit saves about 12 cycles when the lookups it skips are L1-hot, under 2
 * when they sit in L2), so no fixed threshold is right for all of them.
 *
 * A measurement first warms the cache (probed, not judged) in samples of
 * au.sample packets until one has under 1/16 cold misses (free ways, stale
 * entries), for at most as many samples as fill the cache (between 16 and
 * 64: 64 by default), so a working set of more flows than one sample (up
 * to about 20,000 flows at random: a working set of W flows takes about
 * 2.8 W packets to show under 1/16 new ones), or the cache after a route
 * change, is judged warm; then
 * RTCACHE_AUTO_PAIRS timed samples of each side in the order probed,
 * bypassed, bypassed, probed, ... (each side runs as often right after a
 * switch as not): about 9,000 packets in all with a warm cache.
 * The side whose median cycles a packet is lower is kept for au.hold
 * packets (a tie keeps probing), twice as long after each measurement in a
 * row that chose to bypass (up to 8 times: RTCACHE_AUTO_HOLD_SHIFT_MAX);
 * the medians leave out a sample that a preemption or an interrupt
 * inflated. Samples of 1,024 packets at a few
 * Mpps last a few hundred microseconds, so both sides see the same traffic.
 */
void rtcache_auto_default(struct rtcache_auto *au)
{
	au->sample = 1024;
	au->hold = 1u << 20;
	au->window = 4096;
	au->trigger_pts = 20;
}

static uint64_t mix(uint64_t *s)
{
	/* splitmix64: spreads a seed into independent-looking words */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct rtcache *rtcache_create(uint32_t entries, int socket, uint64_t seed)
{
	uint32_t buckets, log2b = 0, i;
	struct rtcache *c;

	if (entries < 64)
		entries = 64;
	buckets = rte_align32pow2(entries) / RTCACHE_WAYS;
	while ((1u << log2b) < buckets)
		log2b++;
	c = rte_zmalloc_socket("rtcache", sizeof(*c), RTE_CACHE_LINE_SIZE, socket);
	if (c == NULL)
		return NULL;
	c->b = rte_zmalloc_socket("rtcache_b", (size_t)buckets * RTCACHE_WAYS * sizeof(*c->b),
				  RTE_CACHE_LINE_SIZE * 2, socket);
	c->b6 = rte_zmalloc_socket("rtcache_b6", (size_t)buckets * RTCACHE_WAYS * sizeof(*c->b6),
				   RTE_CACHE_LINE_SIZE * 2, socket);
	if (c->b == NULL || c->b6 == NULL) {
		rte_free(c->b);
		rte_free(c->b6);
		rte_free(c);
		return NULL;
	}
	c->mask = buckets - 1;
	c->shift = 64 - log2b;
	if (seed == 0)
		seed = rte_rand() ^ rte_rdtsc();
	for (i = 0; i < 4; i++)
		c->k[i] = mix(&seed);
	rtcache_auto_default(&c->au);
	rtcache_flush(c);
	return c;
}

void rtcache_free(struct rtcache *c)
{
	if (c == NULL)
		return;
	rte_free(c->b);
	rte_free(c->b6);
	rte_free(c);
}

void rtcache_flush(struct rtcache *c)
{
	size_t i, n = (size_t)(c->mask + 1) * RTCACHE_WAYS;

	for (i = 0; i < n; i++) {
		c->b[i].in_port = RTCACHE_PORT_EMPTY;
		c->b[i].dst = 0;
		c->b6[i].in_port = RTCACHE_PORT_EMPTY;
	}
	c->warm = 0;
}

uint64_t rtcache_memory(const struct rtcache *c)
{
	return sizeof(*c) +
	       (uint64_t)(c->mask + 1) * RTCACHE_WAYS * (sizeof(*c->b) + sizeof(*c->b6));
}

void rtcache_mode_set(struct rtcache *c, enum rtcache_mode m)
{
	c->mode = (uint8_t)m;
	c->bypassing = 0;
	c->measuring = 0;
	c->hold_shift = 0;
	c->warm = 0;
	c->win_closed = 0; /* the last window's rate was another mode's */
	rtcache_win_clear(c);
	if (m == RTCACHE_AUTO)
		rtcache_measure_start(c);
}

void rtcache_measure_start(struct rtcache *c)
{
	c->measuring = 1;
	c->bypassing = 0; /* step 0 warms the cache: probed */
	/* the buckets may have left the CPU's caches: probe in the cold order
	 * until a burst hits (datapath.c) */
	c->warm = 0;
	c->m_step = c->m_warming = c->m_pkts = 0;
	c->m_cyc = 0;
	c->m_np = c->m_nb = 0;
	rtcache_win_clear(c);
}

/* Sample @s (1-based) of a measurement is probed: P B B P P B B P ... */
static bool sample_probed(uint32_t s)
{
	s--;
	return (((s >> 1) ^ s) & 1) == 0;
}

static uint32_t median(uint32_t *v, uint32_t n)
{
	uint32_t i, j, t;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (uint32_t)(((uint64_t)v[n / 2 - 1] + v[n / 2]) / 2);
}

void rtcache_measure(struct rtcache *c, unsigned int n, uint64_t cycles)
{
	uint64_t cpp;

	c->m_pkts += n;
	c->m_cyc += cycles;
	if (c->m_pkts < c->au.sample || c->m_pkts == 0)
		return;
	cpp = RTE_MIN(c->m_cyc * 16 / c->m_pkts, (uint64_t)UINT32_MAX);
	c->m_pkts = 0;
	c->m_cyc = 0;
	if (c->m_step == 0) {
		/* warming: once more while the sample still filled free ways
		 * or found stale entries (more flows than a sample holds, a
		 * route change), for at most as many samples as fill the
		 * cache (a flood into an empty cache takes them all) */
		bool cold = c->win_cold > 0 && (uint64_t)c->win_cold * 16 >= c->win_probes;
		uint32_t cap =
			RTE_MIN(RTE_MAX((uint32_t)RTCACHE_AUTO_WARMING_MIN,
					(c->mask + 1) * RTCACHE_WAYS / RTE_MAX(c->au.sample, 1u)),
				(uint32_t)RTCACHE_AUTO_WARMING_MAX);

		rtcache_win_clear(c);
		if (cold && ++c->m_warming < cap)
			return;
	} else if (c->bypassing) {
		c->m_bypass[c->m_nb++] = (uint32_t)cpp;
	} else {
		c->m_probe[c->m_np++] = (uint32_t)cpp;
	}
	/* the probed samples' probes add up in win_* to the verdict */
	if (c->m_step < 2 * RTCACHE_AUTO_PAIRS) {
		c->m_step++;
		c->bypassing = !sample_probed(c->m_step);
		return;
	}
	/* the verdict */
	c->probe_cpp16 = median(c->m_probe, c->m_np);
	c->bypass_cpp16 = median(c->m_bypass, c->m_nb);
	/* their hit rate as a window's (rtcache_account()), for the trigger */
	c->verdict_pct = rtcache_win_take(c);
	c->bypassing = c->probe_cpp16 > c->bypass_cpp16;
	c->measuring = 0;
	/* bypassing again: measure less often (rtcache.h) */
	if (!c->bypassing)
		c->hold_shift = 0;
	else if (c->hold_shift < RTCACHE_AUTO_HOLD_SHIFT_MAX)
		c->hold_shift++;
	c->hold_left = (uint64_t)c->au.hold << c->hold_shift;
	c->measurements++;
}

void rtcache_auto_set(struct rtcache *c, const struct rtcache_auto *au)
{
	c->au = *au;
}
