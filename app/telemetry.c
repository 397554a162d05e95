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
#include <stdio.h>

#include <rte_telemetry.h>

#include "router.h"
#include "telemetry.h"

static struct router *tr;

static void tel_kv(void *arg, const char *name, uint64_t val)
{
	rte_tel_data_add_dict_u64(arg, name, val);
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
	rte_tel_data_add_dict_u64(d, "tx", s.tx);
	rte_tel_data_add_dict_u64(d, "busy_cycles", s.busy_cycles);
	rte_tel_data_add_dict_u64(d, "busy_polls", s.busy_polls);
	rte_tel_data_add_dict_u64(d, "idle_polls", s.idle_polls);
	rte_tel_data_add_dict_u64(d, "dropped", dp_stats_dropped(&s));
	rte_tel_data_add_dict_u64(d, "workers", tr->nb_workers);
	{
		const struct stats_visitor v = {tel_kv, NULL, d};

		router_stats_visit(tr, &s, &v);
	}
	return 0;
}

static int tel_routes(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int len;
	char key[16];

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "routes", fib_route_count(tr->fib, AF_INET));
	rte_tel_data_add_dict_u64(d, "routes6", fib_route_count(tr->fib, AF_INET6));
	rte_tel_data_add_dict_u64(d, "nexthops", fib_nh_count(tr->fib));
	rte_tel_data_add_dict_u64(d, "memory_bytes", fib_memory(tr->fib));
	for (len = 0; len <= 32; len++) {
		uint32_t n = fib_route_count_len(tr->fib, AF_INET, len);

		if (n == 0)
			continue;
		snprintf(key, sizeof(key), "len_%u", len);
		rte_tel_data_add_dict_u64(d, key, n);
	}
	return 0;
}

static int tel_neigh(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct neigh_stats s;

	(void)cmd;
	(void)params;
	neigh_stats_get(tr->neigh, &s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "entries", neigh_count(tr->neigh));
	rte_tel_data_add_dict_u64(d, "capacity", neigh_capacity(tr->neigh));
	rte_tel_data_add_dict_u64(d, "incomplete", neigh_incomplete_count(tr->neigh));
	rte_tel_data_add_dict_u64(d, "created", s.created);
	rte_tel_data_add_dict_u64(d, "resolved", s.resolved);
	rte_tel_data_add_dict_u64(d, "updated", s.updated);
	rte_tel_data_add_dict_u64(d, "expired", s.expired);
	rte_tel_data_add_dict_u64(d, "failed", s.failed);
	rte_tel_data_add_dict_u64(d, "requests_sent", tr->cst.arp_probes);
	rte_tel_data_add_dict_u64(d, "replies_received", tr->cst.arp_replies);
	rte_tel_data_add_dict_u64(d, "held", s.held);
	rte_tel_data_add_dict_u64(d, "held_sent", s.released);
	rte_tel_data_add_dict_u64(d, "held_dropped_queue_full", s.hold_dropped);
	rte_tel_data_add_dict_u64(d, "held_dropped_total_full", s.hold_total_dropped);
	rte_tel_data_add_dict_u64(d, "held_dropped_failed", s.hold_failed);
	rte_tel_data_add_dict_u64(d, "refused_incomplete_cap", s.refused_incomplete);
	rte_tel_data_add_dict_u64(d, "refused_table_full", s.refused_full);
	return 0;
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

int telemetry_register(struct router *r)
{
	tr = r;
	if (rte_telemetry_register_cmd("/fastroute/stats", tel_stats,
				       "Forwarding and drop counters, summed over workers") ||
	    rte_telemetry_register_cmd("/fastroute/routes", tel_routes,
				       "Routes, next hops, routes per prefix length") ||
	    rte_telemetry_register_cmd("/fastroute/neigh", tel_neigh,
				       "Neighbour table entries and capacity") ||
	    rte_telemetry_register_cmd("/fastroute/fib", tel_fib, "FIB backend and generation") ||
	    rte_telemetry_register_cmd("/fastroute/rtcache", tel_rtcache,
				       "Route cache counters, summed over workers"))
		return -1;
	return 0;
}
