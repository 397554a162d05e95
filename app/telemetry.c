/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK telemetry endpoints, so dpdk-telemetry.py (and any collector speaking
 * its socket) reads the router without the CLI:
 *   /fastroute/stats   forwarding and drop counters, summed over workers
 *   /fastroute/routes  route and next-hop counts, per prefix length
 *   /fastroute/neigh   neighbour table occupancy
 *   /fastroute/fib     backend and generation
 *   /fastroute/rtcache route cache counters
 * The callbacks run on DPDK's telemetry thread: they only read. Counters are
 * 64-bit words written by one thread each, read whole on x86-64; a snapshot
 * may mix values from instants a few microseconds apart.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_pause.h>
#include <rte_telemetry.h>

#include "router.h"
#include "telemetry.h"

static struct router *tr;

/* a dictionary holds RTE_TEL_MAX_DICT_ENTRIES (256): a counter past them
 * fails the whole answer rather than go missing from it unsaid (only with
 * more than about 50 ports, which Debian's DPDK does not build for); per
 * request, as telemetry serves each client in a thread of its own */
struct tel_dict {
	struct rte_tel_data *d;
	bool full;
};

static void tel_kv(void *arg, const char *name, uint64_t val)
{
	struct tel_dict *t = arg;

	if (rte_tel_data_add_dict_u64(t->d, name, val) != 0)
		t->full = true;
}

/* The counters of 'show stats', flat (the names are unique). */
static int tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dp_stats s;

	(void)cmd;
	(void)params;
	router_stats_sum(tr, &s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "rx", s.rx);
	rte_tel_data_add_dict_u64(d, "forwarded", dp_stats_forwarded(&s));
	rte_tel_data_add_dict_u64(d, "to_control", s.to_control);
	rte_tel_data_add_dict_u64(d, "ctrl_tx", s.ctrl_tx);
	rte_tel_data_add_dict_u64(d, "tx", dp_stats_tx(&s));
	rte_tel_data_add_dict_u64(d, "busy_cycles", s.busy_cycles);
	rte_tel_data_add_dict_u64(d, "busy_polls", s.busy_polls);
	rte_tel_data_add_dict_u64(d, "idle_polls", s.idle_polls);
	rte_tel_data_add_dict_u64(d, "dropped", dp_stats_dropped(&s));
	rte_tel_data_add_dict_u64(d, "workers", tr->nb_workers);
	{
		struct tel_dict t = {d, false};
		const struct stats_visitor v = {tel_kv, NULL, &t};

		router_stats_visit(tr, &s, &v);
		return t.full ? -ENOSPC : 0;
	}
}

/* The routes of @family per prefix length, as "<@pfx><len>", where any. */
static void add_lengths(struct rte_tel_data *d, uint8_t family, const char *pfx)
{
	unsigned int len;
	char key[16];

	for (len = 0; len <= fr_family_bits(family); len++) {
		uint32_t n = fib_route_count_len(tr->fib, family, len);

		if (n == 0)
			continue;
		snprintf(key, sizeof(key), "%s%u", pfx, len);
		rte_tel_data_add_dict_u64(d, key, n);
	}
}

static int tel_routes(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "routes", fib_route_count(tr->fib, AF_INET));
	rte_tel_data_add_dict_u64(d, "routes6", fib_route_count(tr->fib, AF_INET6));
	rte_tel_data_add_dict_u64(d, "nexthops", fib_nh_count(tr->fib));
	rte_tel_data_add_dict_u64(d, "memory_bytes", fib_memory(tr->fib));
	add_lengths(d, AF_INET, "len_");
	/* IPv6 as show route summary counts them (at most 129 more keys: the
	 * dictionary holds 256) */
	add_lengths(d, AF_INET6, "len6_");
	return 0;
}

static int tel_neigh(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_dict t = {d, false};
	const struct stats_visitor v = {tel_kv, NULL, &t};

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	router_neigh_visit(tr, &v);
	return t.full ? -ENOSPC : 0;
}

static int tel_fib(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "backend", fib_backend_name(tr->fib));
	rte_tel_data_add_dict_u64(d, "generation", fib_generation(tr->fib));
	return 0;
}

static int tel_rtcache(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rtcache_stats sum = {0};
	unsigned int w;

	(void)cmd;
	(void)params;
	for (w = 0; w < tr->nb_workers; w++) {
		const struct rtcache_stats *s = &tr->workers[w]->rtc->st;

		sum.lookups += s->lookups;
		sum.hits += s->hits;
		sum.misses += s->misses;
		sum.stale += s->stale;
		sum.inserts += s->inserts;
		sum.evictions += s->evictions;
		sum.bypassed += s->bypassed;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "mode", rtcache_mode_names[tr->dpconf.rtcache_mode]);
	rte_tel_data_add_dict_u64(d, "lookups", sum.lookups);
	rte_tel_data_add_dict_u64(d, "hits", sum.hits);
	rte_tel_data_add_dict_u64(d, "misses", sum.misses);
	rte_tel_data_add_dict_u64(d, "stale", sum.stale);
	rte_tel_data_add_dict_u64(d, "inserts", sum.inserts);
	rte_tel_data_add_dict_u64(d, "evictions", sum.evictions);
	rte_tel_data_add_dict_u64(d, "bypassed", sum.bypassed);
	return 0;
}

/* Calls in progress, and whether the endpoints still answer: at stop the
 * router's memory goes with the EAL while DPDK's telemetry thread still
 * runs, so telemetry_stop() closes the gate and waits for calls inside */
static uint32_t tel_busy;
static bool tel_closed;

static const struct {
	const char *path;
	int (*fn)(const char *cmd, const char *params, struct rte_tel_data *d);
	const char *help;
} tel_cmds[] = {
	{"/fastroute/stats", tel_stats, "Forwarding and drop counters, summed over workers"},
	{"/fastroute/routes", tel_routes, "Routes, next hops, routes per prefix length"},
	{"/fastroute/neigh", tel_neigh, "Neighbour table entries and capacity"},
	{"/fastroute/fib", tel_fib, "FIB backend and generation"},
	{"/fastroute/rtcache", tel_rtcache, "Route cache counters, summed over workers"},
};

static int tel_gate(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = -EBUSY;
	size_t i;

	__atomic_add_fetch(&tel_busy, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&tel_closed, __ATOMIC_SEQ_CST)) {
		rc = -EINVAL;
		for (i = 0; i < RTE_DIM(tel_cmds); i++)
			if (strcmp(cmd, tel_cmds[i].path) == 0)
				rc = tel_cmds[i].fn(cmd, params, d);
	}
	__atomic_sub_fetch(&tel_busy, 1, __ATOMIC_RELEASE);
	return rc;
}

int telemetry_register(struct router *r)
{
	size_t i;

	tr = r;
	for (i = 0; i < RTE_DIM(tel_cmds); i++)
		if (rte_telemetry_register_cmd(tel_cmds[i].path, tel_gate, tel_cmds[i].help) != 0)
			return -1;
	return 0;
}

void telemetry_stop(void)
{
	__atomic_store_n(&tel_closed, true, __ATOMIC_SEQ_CST);
	/* a call that saw the gate open finishes within microseconds */
	while (__atomic_load_n(&tel_busy, __ATOMIC_ACQUIRE) != 0)
		rte_pause();
}
