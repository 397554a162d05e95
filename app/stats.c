/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter names: the strings operators and tests see. */
#include <string.h>

#include "router.h"
#include "stats.h"

const char *const dp_drop_names[DROP_MAX] = {
	[DROP_ETH_TOO_SHORT] = "eth_too_short",
	[DROP_L2_OTHER_HOST] = "l2_other_host",
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
	[DROP_TX_FULL] = "tx_full",
};

const char *const ctrl_drop_names[CDROP_MAX] = {
	[CDROP_ARP_MALFORMED] = "arp_malformed",
	[CDROP_ARP_NOT_FOR_US] = "arp_not_for_us",
	[CDROP_ARP_OFF_LINK] = "arp_off_link",
	[CDROP_ARP_IGNORED] = "arp_ignored",
	[CDROP_LOCAL_BROADCAST] = "local_broadcast",
	[CDROP_LOCAL_FRAGMENT] = "local_fragment",
	[CDROP_LOCAL_ICMP] = "local_icmp",
	[CDROP_LOCAL_UNREACH] = "local_unreachable",
	[CDROP_NO_ROUTE_BACK] = "no_route_back",
	[CDROP_ICMP_RATELIMIT] = "ctrl_icmp_ratelimited",
	[CDROP_FRAG_FAILED] = "frag_failed",
	[CDROP_TOO_BIG] = "ctrl_too_big",
	[CDROP_ROUTE_CHANGED] = "route_changed",
	[CDROP_NEIGH_HOLD_FULL] = "neigh_hold_full",
	[CDROP_NEIGH_HOLD_TOTAL] = "neigh_hold_total",
	[CDROP_NEIGH_INCOMPLETE_CAP] = "neigh_incomplete_cap",
	[CDROP_NEIGH_TABLE_FULL] = "neigh_table_full",
	[CDROP_NEIGH_FAILED] = "neigh_failed",
	[CDROP_NO_MBUF] = "ctrl_no_mbuf",
	[CDROP_TX_RING_FULL] = "ctrl_tx_ring_full",
	[CDROP_ND_MALFORMED] = "nd_malformed",
	[CDROP_ND_HOP_LIMIT] = "nd_bad_hop_limit",
	[CDROP_ND_CHECKSUM] = "nd_bad_checksum",
	[CDROP_ND_NOT_FOR_US] = "nd_not_for_us",
	[CDROP_ND_DAD] = "nd_dad_other",
	[CDROP_ND_IGNORED] = "nd_ignored",
	[CDROP_ND_OFF_LINK] = "nd_off_link",
	[CDROP_LOCAL6_ICMP] = "local_icmp6",
	[CDROP_LOCAL6_MCAST] = "local_multicast",
};
void router_stats_sum(const struct router *r, struct dp_stats *sum)
{
	unsigned int w, i;

	memset(sum, 0, sizeof(*sum));
	for (w = 0; w < r->nb_workers; w++) {
		const struct dp_stats *s = &r->workers[w]->st;

		sum->rx += s->rx;
		sum->tx += s->tx;
		sum->to_control += s->to_control;
		sum->ctrl_tx += s->ctrl_tx;
		sum->busy_cycles += s->busy_cycles;
		sum->busy_polls += s->busy_polls;
		sum->idle_polls += s->idle_polls;
		sum->icmp_queued += s->icmp_queued;
		sum->icmp_ratelimited += s->icmp_ratelimited;
		sum->icmp_not_sent += s->icmp_not_sent;
		sum->icmp_ring_full += s->icmp_ring_full;
		for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
			sum->rpf_drop[i][0] += s->rpf_drop[i][0];
			sum->rpf_drop[i][1] += s->rpf_drop[i][1];
		}
		for (i = 0; i < DROP_MAX; i++)
			sum->drop[i] += s->drop[i];
	}
}

void router_stats_clear(struct router *r)
{
	unsigned int w;

	/* Workers write their own counters without atomics; a clear racing an
	 * increment may lose that one increment, never corrupt the counter. */
	for (w = 0; w < r->nb_workers; w++) {
		memset(&r->workers[w]->st, 0, sizeof(r->workers[w]->st));
		if (r->workers[w]->rtc != NULL)
			memset(&r->workers[w]->rtc->st, 0, sizeof(r->workers[w]->rtc->st));
	}
	memset(&r->cst, 0, sizeof(r->cst));
}
