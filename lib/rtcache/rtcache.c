/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-lcore route cache: creation, flush, modes (see rtcache.h). */
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

/* Auto mode's minimum window hit rate, from make bench (docs/benchmarks.md,
 * which scripts/bench/report.py writes with this value). With 1M routes and
 * rpf strict, probing paid above 81% (e12acf2: a hit saved ~29 cycles with
 * 1,000 flows, a miss cost ~122 with 1M destinations), 86% (the hugepage
 * run at e12acf2) and 95% (e3e4e69, whose hit path is cheaper but whose
 * 1,000-flow pair measured a 4.7-cycle saving); its 1-flow rows gave 84%.
 * 90% keeps auto out of the way of floods across those runs, and steady
 * traffic of up to thousands of flows hits more than 99% of the time. */
#define AUTO_MIN_HIT_PCT 90

void rtcache_auto_default(struct rtcache_auto *au)
{
	au->window = 4096;
	au->min_hit_pct = AUTO_MIN_HIT_PCT;
	au->bypass = 1u << 20;
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
	c->warm = 0;
	c->win_probes = c->win_hits = c->win_cold = 0;
}

void rtcache_auto_set(struct rtcache *c, const struct rtcache_auto *au)
{
	c->au = *au;
}
