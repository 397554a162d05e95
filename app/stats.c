/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter names: the strings operators and tests see. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "router.h"
#include "stats.h"

const char *const dp_drop_names[DROP_MAX] = {
	[DROP_ETH_TOO_SHORT] = "eth_too_short",
	[DROP_L2_OTHER_HOST] = "l2_other_host",
	[DROP_L2_GROUP_SOURCE] = "l2_group_source",
	[DROP_ETHERTYPE] = "unknown_ethertype",
	[DROP_IP4_TOO_SHORT] = "ip4_too_short",
	[DROP_IP4_CHECKSUM] = "ip4_bad_checksum",
	[DROP_IP4_VERSION] = "ip4_bad_version",
	[DROP_IP4_IHL] = "ip4_bad_ihl",
	[DROP_IP4_LENGTH] = "ip4_bad_length",
	[DROP_MARTIAN_SRC] = "martian_source",
	[DROP_MARTIAN_DST] = "martian_dest",
	[DROP_RPF_STRICT] = "rpf_strict",
	[DROP_RPF_LOOSE] = "rpf_loose",
	[DROP_L2_BCAST_FORWARD] = "l2_bcast_forward",
	[DROP_TTL_EXCEEDED] = "ttl_exceeded",
	[DROP_NO_ROUTE] = "no_route",
	[DROP_BLACKHOLE] = "blackhole",
	[DROP_UNREACHABLE] = "unreachable",
	[DROP_PROHIBIT] = "prohibit",
	[DROP_FRAG_NEEDED] = "frag_needed_df",
	[DROP_IP4_MCAST] = "ip4_multicast",
	[DROP_IP4_LINK_LOCAL] = "ip4_link_local",
	[DROP_IP4_SOURCE_ROUTE] = "ip4_source_route",
	[DROP_IP4_BAD_OPTIONS] = "ip4_bad_options",
	[DROP_IP6_TOO_SHORT] = "ip6_too_short",
	[DROP_IP6_VERSION] = "ip6_bad_version",
	[DROP_IP6_LENGTH] = "ip6_bad_length",
	[DROP_IP6_BAD_SRC] = "ip6_bad_source",
	[DROP_IP6_BAD_DST] = "ip6_bad_dest",
	[DROP_IP6_LINKLOCAL] = "ip6_link_local_scope",
	[DROP_IP6_MCAST] = "ip6_multicast",
	[DROP_IP6_HOP_LIMIT] = "ip6_hop_limit_exceeded",
	[DROP_IP6_TOO_BIG] = "ip6_too_big",
	[DROP_CTRL_RING_FULL] = "ctrl_ring_full",
	[DROP_CTRL_RESERVED] = "ctrl_ring_reserved",
	[DROP_TX_FULL] = "tx_full",
	[DROP_PORT_DOWN] = "port_down",
	[DROP_RX_PORT_DOWN] = "rx_port_down",
};

const char *const ctrl_drop_names[CDROP_MAX] = {
	[CDROP_ARP_MALFORMED] = "arp_malformed",
	[CDROP_ARP_NOT_FOR_US] = "arp_not_for_us",
	[CDROP_ARP_OFF_LINK] = "arp_off_link",
	[CDROP_ARP_IGNORED] = "arp_ignored",
	[CDROP_ARP_CONFLICT] = "arp_addr_conflict",
	[CDROP_ARP_BAD_SENDER] = "arp_bad_sender",
	[CDROP_LOCAL_BROADCAST] = "local_broadcast",
	[CDROP_REASM_MALFORMED] = "reasm_malformed",
	[CDROP_REASM_OVERLAP] = "reasm_overlap",
	[CDROP_REASM_TIMEOUT] = "reasm_timeout",
	[CDROP_REASM_OVER_LIMIT] = "reasm_over_limit",
	[CDROP_LOCAL_ICMP] = "local_icmp",
	[CDROP_LOCAL_UNREACH] = "local_unreachable",
	[CDROP_LOCAL_BAD_L4] = "local_bad_checksum",
	[CDROP_NO_ROUTE_BACK] = "no_route_back",
	[CDROP_FRAG_FAILED] = "frag_failed",
	[CDROP_TOO_BIG] = "ctrl_too_big",
	[CDROP_ROUTE_CHANGED] = "route_changed",
	[CDROP_NEIGH_HOLD_FULL] = "neigh_hold_full",
	[CDROP_NEIGH_HOLD_TOTAL] = "neigh_hold_total",
	[CDROP_NEIGH_INCOMPLETE_CAP] = "neigh_incomplete_cap",
	[CDROP_NEIGH_TABLE_FULL] = "neigh_table_full",
	[CDROP_NEIGH_FAILED] = "neigh_failed",
	[CDROP_NEIGH_FLUSHED] = "neigh_flushed",
	[CDROP_NO_MBUF] = "ctrl_no_mbuf",
	[CDROP_TX_RING_FULL] = "ctrl_tx_ring_full",
	[CDROP_TX_RING_RESERVED] = "ctrl_tx_ring_reserved",
	[CDROP_PORT_DOWN] = "ctrl_port_down",
	[CDROP_ND_MALFORMED] = "nd_malformed",
	[CDROP_ND_HOP_LIMIT] = "nd_bad_hop_limit",
	[CDROP_ND_CHECKSUM] = "nd_bad_checksum",
	[CDROP_ND_NOT_FOR_US] = "nd_not_for_us",
	[CDROP_ND_DAD] = "nd_dad_other",
	[CDROP_ND_IGNORED] = "nd_ignored",
	[CDROP_ND_CONFLICT] = "nd_addr_conflict",
	[CDROP_LOCAL6_ICMP] = "local_icmp6",
	[CDROP_LOCAL6_MCAST] = "local_multicast",
	[CDROP_MLD_QUERY_IGNORED] = "mld_query_ignored",
	[CDROP_LOCAL6_EXT] = "local_ext_header",
	[CDROP_LOCAL6_DAD_FAILED] = "local_dad_failed",
};

void dp_stats_add(struct dp_stats *sum, const struct dp_stats *s)
{
	unsigned int i;

	sum->rx += s->rx;
	sum->fwd += s->fwd;
	sum->to_control += s->to_control;
	sum->ctrl_tx += s->ctrl_tx;
	sum->busy_cycles += s->busy_cycles;
	sum->busy_polls += s->busy_polls;
	sum->idle_polls += s->idle_polls;
	sum->icmp_queued += s->icmp_queued;
	sum->icmp_ratelimited += s->icmp_ratelimited;
	sum->icmp_not_sent += s->icmp_not_sent;
	sum->icmp_ring_full += s->icmp_ring_full;
	sum->redirects_ratelimited += s->redirects_ratelimited;
	sum->ctrl_tx_full += s->ctrl_tx_full;
	sum->ctrl_tx_port_down += s->ctrl_tx_port_down;
	sum->ctrl_tx_no_port += s->ctrl_tx_no_port;
	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		sum->rpf_drop[i][0] += s->rpf_drop[i][0];
		sum->rpf_drop[i][1] += s->rpf_drop[i][1];
	}
	for (i = 0; i < DROP_MAX; i++)
		sum->drop[i] += s->drop[i];
}

void router_stats_sum(const struct router *r, struct dp_stats *sum)
{
	unsigned int w;

	memset(sum, 0, sizeof(*sum));
	for (w = 0; w < r->nb_workers; w++)
		dp_stats_add(sum, &r->workers[w]->st);
}

uint64_t dp_stats_forwarded(const struct dp_stats *s)
{
	return s->fwd;
}

uint64_t dp_stats_tx(const struct dp_stats *s)
{
	return s->fwd + s->ctrl_tx;
}

uint64_t dp_stats_dropped(const struct dp_stats *s)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < DROP_MAX; i++)
		n += s->drop[i];
	return n;
}

void worker_stats_clear(struct router *r, struct worker *w)
{
	uint64_t gen = __atomic_load_n(&r->stats_clear, __ATOMIC_ACQUIRE);

	memset(&w->st, 0, sizeof(w->st));
	if (w->rtc != NULL)
		memset(&w->rtc->st, 0, sizeof(w->rtc->st));
	/* release: the zeroes are seen before the acknowledgement */
	__atomic_store_n(&w->clear_done, gen, __ATOMIC_RELEASE);
}

unsigned int router_stats_clear(struct router *r)
{
	uint64_t gen, deadline;
	unsigned int w, late = 0;

	memset(&r->cst, 0, sizeof(r->cst));
	if (!r->running) {
		for (w = 0; w < r->nb_workers; w++)
			worker_stats_clear(r, r->workers[w]);
		return 0;
	}
	/* Workers write their counters without atomics, and a count may be
	 * read, added to and written back across a clear from here: each
	 * worker zeroes its own at the end of its next loop (microseconds),
	 * which is waited for, within a bound, so that the next show sees
	 * them cleared. */
	gen = __atomic_add_fetch(&r->stats_clear, 1, __ATOMIC_RELEASE);
	deadline = rte_get_tsc_cycles() + rte_get_tsc_hz();
	for (w = 0; w < r->nb_workers; w++) {
		/* sleeping between looks: a worker sharing this CPU gets it */
		while (__atomic_load_n(&r->workers[w]->clear_done, __ATOMIC_ACQUIRE) != gen &&
		       rte_get_tsc_cycles() < deadline)
			rte_delay_us_sleep(20);
		late += __atomic_load_n(&r->workers[w]->clear_done, __ATOMIC_ACQUIRE) != gen;
	}
	return late;
}

/*
 * Every counter of 'show stats' after its head, section by section: the
 * CLI prints them, telemetry gives them flat, from this one list.
 */
static void sec(const struct stats_visitor *v, const char *name, bool open)
{
	if (v->section != NULL)
		v->section(v->arg, name, open);
}

void router_stats_visit(const struct router *r, const struct dp_stats *s,
			const struct stats_visitor *v)
{
	unsigned int i;

	sec(v, "drops", true);
	for (i = 0; i < DROP_MAX; i++)
		v->kv(v->arg, dp_drop_names[i], s->drop[i]);
	sec(v, "drops", false);
	sec(v, "icmp errors (workers)", true);
	v->kv(v->arg, "icmp_queued", s->icmp_queued);
	v->kv(v->arg, "icmp_ratelimited", s->icmp_ratelimited);
	v->kv(v->arg, "icmp_not_sent", s->icmp_not_sent);
	v->kv(v->arg, "icmp_ring_full", s->icmp_ring_full);
	v->kv(v->arg, "redirects_ratelimited", s->redirects_ratelimited);
	sec(v, "icmp errors (workers)", false);
	sec(v, "rpf drops by port", true);
	for (i = 0; i < r->nb_ports; i++) {
		char name[32];

		if (!r->ports[i].present)
			continue;
		snprintf(name, sizeof(name), "port%u_strict", i);
		v->kv(v->arg, name, s->rpf_drop[i][0]);
		snprintf(name, sizeof(name), "port%u_loose", i);
		v->kv(v->arg, name, s->rpf_drop[i][1]);
	}
	sec(v, "rpf drops by port", false);
	sec(v, "control", true);
	v->kv(v->arg, "ctrl_rx", r->cst.rx);
	v->kv(v->arg, "arp_requests", r->cst.arp_requests);
	v->kv(v->arg, "arp_replies", r->cst.arp_replies);
	v->kv(v->arg, "arp_gratuitous", r->cst.arp_gratuitous);
	v->kv(v->arg, "arp_answered", r->cst.arp_answered);
	v->kv(v->arg, "arp_learnt", r->cst.arp_learnt);
	v->kv(v->arg, "arp_off_link_answered", r->cst.arp_off_link_answered);
	v->kv(v->arg, "arp_probes", r->cst.arp_probes);
	v->kv(v->arg, "resolved_fwd", r->cst.resolved_fwd);
	v->kv(v->arg, "held_rerouted", r->cst.held_rerouted);
	v->kv(v->arg, "fragmented", r->cst.fragmented);
	v->kv(v->arg, "fragments", r->cst.fragments);
	v->kv(v->arg, "reassembled", r->cst.reassembled);
	v->kv(v->arg, "options_filled", r->cst.options_filled);
	v->kv(v->arg, "icmp_echo_replies", r->cst.icmp_echo_replies);
	v->kv(v->arg, "icmp_time_exceeded", r->cst.icmp_time_exceeded);
	v->kv(v->arg, "icmp_unreach_net", r->cst.icmp_unreach_net);
	v->kv(v->arg, "icmp_unreach_host", r->cst.icmp_unreach_host);
	v->kv(v->arg, "icmp_unreach_proto", r->cst.icmp_unreach_proto);
	v->kv(v->arg, "icmp_unreach_port", r->cst.icmp_unreach_port);
	v->kv(v->arg, "icmp_frag_needed", r->cst.icmp_frag_needed);
	v->kv(v->arg, "icmp_prohibited", r->cst.icmp_prohibited);
	v->kv(v->arg, "icmp_param_problem", r->cst.icmp_param_problem);
	v->kv(v->arg, "icmp_redirects", r->cst.icmp_redirects);
	v->kv(v->arg, "redirects_not_due", r->cst.redirects_not_due);
	v->kv(v->arg, "redirects_damped", r->cst.redirects_damped);
	v->kv(v->arg, "tcp_resets", r->cst.tcp_resets);
	v->kv(v->arg, "nd_ns_received", r->cst.nd_ns_rx);
	v->kv(v->arg, "nd_na_received", r->cst.nd_na_rx);
	v->kv(v->arg, "nd_answered", r->cst.nd_answered);
	v->kv(v->arg, "nd_dad_defended", r->cst.nd_dad_defended);
	v->kv(v->arg, "nd_dad_probes", r->cst.nd_dad_probes);
	v->kv(v->arg, "nd_dad_failed", r->cst.nd_dad_failed);
	v->kv(v->arg, "nd_dad_reprobes", r->cst.nd_dad_reprobes);
	v->kv(v->arg, "addr_announced", r->cst.addr_announced);
	v->kv(v->arg, "addr_defended", r->cst.addr_defended);
	v->kv(v->arg, "nd_learnt", r->cst.nd_learnt);
	v->kv(v->arg, "nd_off_link_answered", r->cst.nd_off_link_answered);
	v->kv(v->arg, "nd_probes", r->cst.nd_probes);
	v->kv(v->arg, "nd_probes_no_source", r->cst.nd_probes_no_source);
	v->kv(v->arg, "icmp6_echo_replies", r->cst.icmp6_echo_replies);
	v->kv(v->arg, "icmp6_time_exceeded", r->cst.icmp6_time_exceeded);
	v->kv(v->arg, "icmp6_no_route", r->cst.icmp6_no_route);
	v->kv(v->arg, "icmp6_prohibited", r->cst.icmp6_prohibited);
	v->kv(v->arg, "icmp6_beyond_scope", r->cst.icmp6_beyond_scope);
	v->kv(v->arg, "icmp6_addr_unreach", r->cst.icmp6_addr_unreach);
	v->kv(v->arg, "icmp6_port_unreach", r->cst.icmp6_port_unreach);
	v->kv(v->arg, "icmp6_too_big", r->cst.icmp6_too_big);
	v->kv(v->arg, "icmp6_param_problem", r->cst.icmp6_param_problem);
	v->kv(v->arg, "icmp6_redirects", r->cst.icmp6_redirects);
	v->kv(v->arg, "mld_reports", r->cst.mld_reports);
	v->kv(v->arg, "ra_sent", r->cst.ra_sent);
	v->kv(v->arg, "rs_received", r->cst.rs_received);
	v->kv(v->arg, "mld_queries", r->cst.mld_queries);
	v->kv(v->arg, "ctrl_icmp_not_sent", r->cst.icmp_not_sent);
	v->kv(v->arg, "ctrl_icmp_over_rate", r->cst.icmp_over_rate);
	v->kv(v->arg, "ctrl_sent", r->cst.tx);
	/* what became of those worker 0 did not send (ctrl_tx: those it did) */
	v->kv(v->arg, "ctrl_tx_full", s->ctrl_tx_full);
	v->kv(v->arg, "ctrl_tx_port_down", s->ctrl_tx_port_down);
	v->kv(v->arg, "ctrl_tx_no_port", s->ctrl_tx_no_port);
	sec(v, "control", false);
	sec(v, "control drops", true);
	for (i = 0; i < CDROP_MAX; i++)
		v->kv(v->arg, ctrl_drop_names[i], r->cst.drop[i]);
	sec(v, "control drops", false);
}

/* 'show neigh stats' before its parameters: the table, then the counters
 * (ARP's, then ND's); telemetry's /fastroute/neigh gives them flat. */
void router_neigh_visit(const struct router *r, const struct stats_visitor *v)
{
	struct neigh_stats s;

	neigh_stats_get(r->neigh, &s);
	sec(v, "table", true);
	v->kv(v->arg, "entries", neigh_count(r->neigh));
	v->kv(v->arg, "capacity", neigh_capacity(r->neigh));
	v->kv(v->arg, "incomplete", neigh_incomplete_count(r->neigh));
	v->kv(v->arg, "held_waiting", neigh_held_count(r->neigh));
	v->kv(v->arg, "held_mbufs", neigh_held_bufs(r->neigh));
	sec(v, "table", false);
	sec(v, "counters", true);
	v->kv(v->arg, "created", s.created);
	v->kv(v->arg, "resolved", s.resolved);
	v->kv(v->arg, "updated", s.updated);
	v->kv(v->arg, "expired", s.expired);
	v->kv(v->arg, "evicted", s.evicted);
	v->kv(v->arg, "failed", s.failed);
	v->kv(v->arg, "flushed_port_down", s.flushed);
	v->kv(v->arg, "probes_broadcast", s.probes_bcast);
	v->kv(v->arg, "probes_unicast", s.probes_ucast);
	v->kv(v->arg, "requests_sent", r->cst.arp_probes);
	v->kv(v->arg, "requests_received", r->cst.arp_requests);
	v->kv(v->arg, "replies_received", r->cst.arp_replies);
	v->kv(v->arg, "replies_sent", r->cst.arp_answered);
	v->kv(v->arg, "gratuitous_received", r->cst.arp_gratuitous);
	/* the same for IPv6 (the lines above are ARP's) */
	v->kv(v->arg, "nd_solicitations_sent", r->cst.nd_probes);
	v->kv(v->arg, "nd_solicitations_received", r->cst.nd_ns_rx);
	v->kv(v->arg, "nd_advertisements_received", r->cst.nd_na_rx);
	v->kv(v->arg, "nd_advertisements_sent", r->cst.nd_answered + r->cst.nd_dad_defended);
	v->kv(v->arg, "held", s.held);
	v->kv(v->arg, "held_sent", s.released);
	v->kv(v->arg, "held_evicted", s.hold_evicted);
	v->kv(v->arg, "held_dropped_queue_full", s.hold_dropped);
	v->kv(v->arg, "held_dropped_total_full", s.hold_total_dropped);
	v->kv(v->arg, "held_dropped_failed", s.hold_failed);
	v->kv(v->arg, "held_flushed", s.hold_flushed);
	v->kv(v->arg, "refused_incomplete_cap", s.refused_incomplete);
	v->kv(v->arg, "refused_table_full", s.refused_full);
	v->kv(v->arg, "refused_learn_reserved", s.refused_learn);
	v->kv(v->arg, "ignored", s.ignored);
	v->kv(v->arg, "arp_locked", s.locked);
	sec(v, "counters", false);
}
