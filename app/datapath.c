/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forwarding pipeline for one burst:
 *   L2 filter and ethertype -> IPv4 checks (RFC 1812 5.2.2) -> one bulk FIB
 *   lookup -> verdict from the route type -> neighbour read (lock-free) ->
 *   TTL decrement (RFC 1624) and Ethernet rewrite.
 * Packets for the router and ARP go to the control thread; every drop is
 * counted by reason in the worker's own counters.
 */
#include "datapath.h"
#include "ip4.h"

/* Frame was L2 broadcast/multicast: may be delivered locally, never forwarded. */
#define F_L2_GROUP 0x1

static inline void drop(struct dp_ctx *c, struct rte_mbuf *m, uint16_t *out, enum dp_drop why)
{
	c->st->drop[why]++;
	rte_pktmbuf_free(m);
	*out = DP_OUT_DROP;
}

void dp_input_burst(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
		    uint16_t *out)
{
	const struct rte_ether_addr *own = &c->ports[in_port].mac;
	uint32_t dst[DP_BURST];
	uint64_t nh[DP_BURST];
	uint8_t idx[DP_BURST];
	uint8_t flags[DP_BURST];
	unsigned int i, j, k = 0;
	enum dp_drop why;

	c->st->rx += n;
	/* acquire, once per burst: lookups below see at least the tables of
	 * this generation (the route cache validates what it keeps against it) */
	c->fib_gen = fib_generation(c->fib);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rte_ether_hdr *eth;
		struct rte_ipv4_hdr *ip;

		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)) {
			drop(c, m, &out[i], DROP_ETH_TOO_SHORT);
			continue;
		}
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		flags[i] = 0;
		if (unlikely(!rte_is_same_ether_addr(&eth->dst_addr, own))) {
			if (!rte_is_multicast_ether_addr(&eth->dst_addr)) {
				drop(c, m, &out[i], DROP_L2_OTHER_HOST);
				continue;
			}
			flags[i] = F_L2_GROUP;
		}
		if (likely(eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4))) {
			ip = (struct rte_ipv4_hdr *)(eth + 1);
			if (unlikely(!ip4_validate(m, ip, &why))) {
				drop(c, m, &out[i], why);
				continue;
			}
			dst[k] = rte_be_to_cpu_32(ip->dst_addr);
			idx[k++] = (uint8_t)i;
			out[i] = DP_OUT_DROP; /* decided below */
		} else if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP)) {
			dp_ctrl_reason_set(m, CTRL_ARP);
			out[i] = DP_OUT_CTRL;
		} else {
			drop(c, m, &out[i], DROP_ETHERTYPE);
		}
	}
	if (k == 0)
		return;

	/* one lookup per packet, one call per burst */
	fib4_lookup_bulk(c->fib, dst, nh, k);

	for (j = 0; j < k; j++) {
		struct rte_mbuf *m;
		struct rte_ether_hdr *eth;
		struct rte_ipv4_hdr *ip;
		const struct fib_nh *h;
		struct neigh_view v;
		uint32_t ni;

		i = idx[j];
		m = pkts[i];
		h = &c->nh[nh[j]];
		switch (h->type) {
		case FIB_NH_GATEWAY:
			ni = h->neigh;
			break;
		case FIB_NH_CONNECTED: {
			struct fr_addr a = fr_addr4(dst[j]);

			ni = neigh_find(c->neigh, &a, h->port);
			break;
		}
		case FIB_NH_LOCAL:
		case FIB_NH_BROADCAST:
			dp_ctrl_reason_set(m, CTRL_LOCAL);
			out[i] = DP_OUT_CTRL;
			continue;
		case FIB_NH_BLACKHOLE:
			drop(c, m, &out[i], DROP_BLACKHOLE);
			continue;
		case FIB_NH_UNREACHABLE:
			drop(c, m, &out[i], DROP_UNREACHABLE);
			continue;
		case FIB_NH_PROHIBIT:
			drop(c, m, &out[i], DROP_PROHIBIT);
			continue;
		default:
			drop(c, m, &out[i], DROP_NO_ROUTE);
			continue;
		}
		/* forwarding from here on */
		if (unlikely(flags[i] & F_L2_GROUP)) {
			drop(c, m, &out[i], DROP_L2_BCAST_FORWARD);
			continue;
		}
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		ip = (struct rte_ipv4_hdr *)(eth + 1);
		if (unlikely(ip->time_to_live <= 1)) {
			drop(c, m, &out[i], DROP_TTL_EXCEEDED);
			continue;
		}
		if (unlikely(ni == NEIGH_IDX_NONE)) {
			dp_ctrl_reason_set(m, CTRL_RESOLVE);
			out[i] = DP_OUT_CTRL;
			continue;
		}
		neigh_read(c->neigh_hot, ni, &v);
		if (unlikely(!neigh_state_usable(v.state))) {
			dp_ctrl_reason_set(m, CTRL_RESOLVE);
			out[i] = DP_OUT_CTRL;
			continue;
		}
		/* tells the control thread which STALE neighbours to re-probe */
		if (c->neigh_used != NULL)
			neigh_mark_used(c->neigh_used, ni);
		ip4_ttl_dec(ip);
		rte_ether_addr_copy(&v.mac, &eth->dst_addr);
		rte_ether_addr_copy(&c->ports[h->port].mac, &eth->src_addr);
		out[i] = h->port;
	}
}
