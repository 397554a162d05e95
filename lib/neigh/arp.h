/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP (RFC 826) frames for Ethernet/IPv4: parsing with every length and type
 * checked, and building requests and replies. Pure functions on buffers: the
 * control thread owns the mbufs and sends. Part of lib/neigh's interface.
 */
#ifndef NEIGH_ARP_H
#define NEIGH_ARP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

/* An Ethernet/IPv4 ARP frame with its fields in host order. */
struct arp_info {
	uint16_t op; /* RTE_ARP_OP_REQUEST or RTE_ARP_OP_REPLY */
	struct rte_ether_addr eth_dst, eth_src;
	struct rte_ether_addr sha, tha;
	uint32_t spa, tpa; /* host order */
};

/** Frame length of an ARP packet without padding / with Ethernet minimum padding. */
#define ARP_FRAME_LEN 42
#define ARP_FRAME_MIN 60

/**
 * Parse an Ethernet frame holding an ARP packet for Ethernet/IPv4.
 * @return 0, or -EINVAL (too short, other hardware/protocol, sizes, opcode).
 */
int arp_parse(const void *frame, uint32_t len, struct arp_info *a);

/** True when the packet announces its sender (gratuitous: spa == tpa). */
static inline bool arp_is_gratuitous(const struct arp_info *a)
{
	/* both 0.0.0.0 announces no address */
	return a->spa == a->tpa && a->spa != 0;
}

/**
 * Write an ARP frame of ARP_FRAME_MIN bytes (zero padded) into @p frame.
 * @param eth_dst frame destination (broadcast for requests that resolve)
 */
void arp_build(void *frame, uint16_t op, const struct rte_ether_addr *eth_dst,
	       const struct rte_ether_addr *sha, uint32_t spa, const struct rte_ether_addr *tha,
	       uint32_t tpa);

#endif /* NEIGH_ARP_H */
