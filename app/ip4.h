/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 header checks and rewrite helpers, inline for the data path.
 * Uses: the mbuf's first segment (Ethernet + IPv4 header must be in it).
 * Sets: trims Ethernet padding; ip4_ttl_dec() updates TTL and checksum.
 */
#ifndef FR_IP4_H
#define FR_IP4_H

#include <stdbool.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "stats.h"

/*
 * One's-complement sum of a 20-byte header folded to 16 bits: the common
 * case, without rte_raw_cksum()'s generic loop. Sums two 64-bit words and
 * one 32-bit word with end-around carries (RFC 1071: any word size folds to
 * the same 16-bit sum), kept in registers. Returns 0xffff for a valid
 * header (as rte_raw_cksum() would).
 */
static inline uint16_t ip4_cksum20(const struct rte_ipv4_hdr *ip)
{
	const uint8_t *b = (const uint8_t *)ip;
	uint64_t w0, w1, sum;
	uint32_t w2;

	memcpy(&w0, b, sizeof(w0));
	memcpy(&w1, b + 8, sizeof(w1));
	memcpy(&w2, b + 16, sizeof(w2));
	sum = w0 + w1;
	sum += sum < w1; /* the carry out of bit 63, added back */
	sum += w2;
	sum += sum < w2;
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/*
 * RFC 1812 5.2.2: validate before forwarding, in the order the issue and the
 * RFC list the checks: the frame holds a minimal header, version 4, IHL >= 5
 * (and the header fits), header checksum, total length >= header and <= the
 * frame. Frames longer than the IP packet (Ethernet padding) are trimmed.
 * Returns true when the packet is valid, else false with *why set.
 * Datapath-safe.
 */
static inline bool ip4_validate(struct rte_mbuf *m, struct rte_ipv4_hdr *ip, enum dp_drop *why)
{
	uint32_t first = rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN;
	uint32_t frame = rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN;
	uint32_t ihl, tot;
	uint64_t ck;

	if (unlikely(first < sizeof(struct rte_ipv4_hdr))) {
		*why = DROP_IP4_TOO_SHORT;
		return false;
	}
	ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	if (likely(ip->version_ihl == 0x45)) {
		/* version 4, no options: the header fits (first >= 20) */
		ihl = sizeof(*ip);
		if (unlikely(ck != RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
			     (ck == RTE_MBUF_F_RX_IP_CKSUM_BAD || ip4_cksum20(ip) != 0xffff))) {
			*why = DROP_IP4_CHECKSUM;
			return false;
		}
	} else {
		if (unlikely((ip->version_ihl >> 4) != 4)) {
			*why = DROP_IP4_VERSION;
			return false;
		}
		ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * 4;
		if (unlikely(ihl < sizeof(struct rte_ipv4_hdr) || ihl > first)) {
			*why = DROP_IP4_IHL;
			return false;
		}
		if (ck != RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
		    (ck == RTE_MBUF_F_RX_IP_CKSUM_BAD || rte_raw_cksum(ip, ihl) != 0xffff)) {
			*why = DROP_IP4_CHECKSUM;
			return false;
		}
	}
	tot = rte_be_to_cpu_16(ip->total_length);
	if (unlikely(tot < ihl || tot > frame)) {
		*why = DROP_IP4_LENGTH;
		return false;
	}
	if (unlikely(tot < frame) && rte_pktmbuf_trim(m, (uint16_t)(frame - tot)) != 0) {
		*why = DROP_IP4_LENGTH; /* padding spread over segments: not ours to fix */
		return false;
	}
	return true;
}

/*
 * Decrement the TTL and patch the header checksum incrementally.
 * RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'). The TTL/protocol word m drops by
 * 0x0100, so ~m + m' is the constant 0xfeff; computed in network order.
 * The result is never 0xffff (-0), the same value a full recompute gives.
 * Caller guarantees TTL >= 2. Datapath-safe.
 */
static inline void ip4_ttl_dec(struct rte_ipv4_hdr *ip)
{
	uint32_t sum;

	ip->time_to_live--;
	sum = (uint16_t)~ip->hdr_checksum;
	sum += rte_cpu_to_be_16(0xfeff);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->hdr_checksum = (uint16_t)~sum;
}

#endif /* FR_IP4_H */
