/* SPDX-License-Identifier: BSD-3-Clause */
/* ARP frame parsing and building (RFC 826), Ethernet/IPv4 only. */
#include <errno.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>

#include "arp.h"

int arp_parse(const void *frame, uint32_t len, struct arp_info *a)
{
	const struct rte_ether_hdr *eth = frame;
	const struct rte_arp_hdr *h = (const struct rte_arp_hdr *)(eth + 1);
	uint16_t op;

	if (len < sizeof(*eth) + sizeof(*h) || eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_ARP) ||
	    h->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    h->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) || h->arp_hlen != RTE_ETHER_ADDR_LEN ||
	    h->arp_plen != 4)
		return -EINVAL;
	op = rte_be_to_cpu_16(h->arp_opcode);
	if (op != RTE_ARP_OP_REQUEST && op != RTE_ARP_OP_REPLY)
		return -EINVAL;
	a->op = op;
	a->eth_dst = eth->dst_addr;
	a->eth_src = eth->src_addr;
	a->sha = h->arp_data.arp_sha;
	a->tha = h->arp_data.arp_tha;
	a->spa = rte_be_to_cpu_32(h->arp_data.arp_sip);
	a->tpa = rte_be_to_cpu_32(h->arp_data.arp_tip);
	return 0;
}

void arp_build(void *frame, uint16_t op, const struct rte_ether_addr *eth_dst,
	       const struct rte_ether_addr *sha, uint32_t spa, const struct rte_ether_addr *tha,
	       uint32_t tpa)
{
	struct rte_ether_hdr *eth = frame;
	struct rte_arp_hdr *h = (struct rte_arp_hdr *)(eth + 1);

	memset(frame, 0, ARP_FRAME_MIN);
	eth->dst_addr = *eth_dst;
	eth->src_addr = *sha;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	h->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	h->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	h->arp_hlen = RTE_ETHER_ADDR_LEN;
	h->arp_plen = 4;
	h->arp_opcode = rte_cpu_to_be_16(op);
	h->arp_data.arp_sha = *sha;
	h->arp_data.arp_sip = rte_cpu_to_be_32(spa);
	h->arp_data.arp_tha = *tha;
	h->arp_data.arp_tip = rte_cpu_to_be_32(tpa);
}
