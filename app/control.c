/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control thread slow path: packets workers handed over (ARP, packets for
 * the router, packets whose next hop is unresolved). Answers ARP requests
 * for the router's addresses; transmits through worker 0 (control_send).
 * Everything else is dropped here with a named counter until the issues
 * that add dynamic ARP and ICMP give it a handler.
 */
#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "router.h"

static void cdrop(struct router *r, struct rte_mbuf *m, enum ctrl_drop why)
{
	r->cst.drop[why]++;
	rte_pktmbuf_free(m);
}

int control_send(struct router *r, struct rte_mbuf *m, uint16_t port)
{
	m->port = port;
	if (rte_ring_enqueue(r->ctrl_tx, m) != 0) {
		cdrop(r, m, CDROP_TX_RING_FULL);
		return -ENOBUFS;
	}
	r->cst.tx++;
	return 0;
}

static bool port_owns4(const struct fr_port *p, uint32_t addr)
{
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].addr.family == AF_INET && p->addrs[i].addr.v4 == addr)
			return true;
	return false;
}

/* RFC 826: answer requests for our addresses on the port they came in on. */
static void arp_input(struct router *r, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eth + 1);
	const struct rte_ether_addr *own;
	uint16_t port = m->port;
	uint32_t tip;

	r->cst.arp_rx++;
	if (rte_pktmbuf_data_len(m) < sizeof(*eth) + sizeof(*a) ||
	    a->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) || a->arp_hlen != RTE_ETHER_ADDR_LEN ||
	    a->arp_plen != 4 || !router_port_ok(r, port)) {
		cdrop(r, m, CDROP_ARP_MALFORMED);
		return;
	}
	if (a->arp_opcode != RTE_BE16(RTE_ARP_OP_REQUEST)) {
		cdrop(r, m, CDROP_ARP_UNHANDLED);
		return;
	}
	tip = rte_be_to_cpu_32(a->arp_data.arp_tip);
	if (!port_owns4(&r->ports[port], tip)) {
		cdrop(r, m, CDROP_ARP_NOT_FOR_US);
		return;
	}
	own = &r->dp_ports[port].mac;
	a->arp_opcode = RTE_BE16(RTE_ARP_OP_REPLY);
	a->arp_data.arp_tha = a->arp_data.arp_sha;
	a->arp_data.arp_tip = a->arp_data.arp_sip;
	a->arp_data.arp_sha = *own;
	a->arp_data.arp_sip = rte_cpu_to_be_32(tip);
	eth->dst_addr = a->arp_data.arp_tha;
	eth->src_addr = *own;
	/* the reply is exactly the Ethernet minimum: 60 bytes before the FCS */
	if (rte_pktmbuf_pkt_len(m) > RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN) {
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) -
					       (RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN)));
	} else if (rte_pktmbuf_pkt_len(m) < RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN) {
		uint16_t pad =
			(uint16_t)(RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN - rte_pktmbuf_pkt_len(m));
		char *p = rte_pktmbuf_append(m, pad);

		if (p != NULL)
			memset(p, 0, pad);
	}
	if (control_send(r, m, port) == 0)
		r->cst.arp_replies++;
}

void control_input(struct router *r, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		r->cst.rx++;
		switch (dp_ctrl_reason(m)) {
		case CTRL_ARP:
			arp_input(r, m);
			break;
		case CTRL_RESOLVE:
			cdrop(r, m, CDROP_NEIGH_UNRESOLVED);
			break;
		case CTRL_LOCAL:
		default:
			cdrop(r, m, CDROP_LOCAL_UNHANDLED);
			break;
		}
	}
}

void control_poll(struct router *r)
{
	struct rte_mbuf *pkts[DP_BURST];
	unsigned int w, n, rounds;

	for (w = 0; w < r->nb_workers; w++) {
		/* bounded: the CLI must keep getting turns under a flood */
		for (rounds = 0; rounds < 8; rounds++) {
			n = rte_ring_dequeue_burst(r->workers[w]->to_ctrl, (void **)pkts, DP_BURST,
						   NULL);
			if (n == 0)
				break;
			control_input(r, pkts, n);
		}
	}
	fib_reclaim(r->fib);
	neigh_reclaim(r->neigh);
}
