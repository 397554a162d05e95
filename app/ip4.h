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

#include "dp_byteorder.h"
#include "stats.h"

/*
 * True when a 20-byte header's checksum is right: its 16-bit one's-complement
 * sum is 0xffff (RFC 1071), without rte_raw_cksum()'s generic loop. 2^16 is
 * 1 modulo 65535, so that sum is congruent modulo 65535 to the plain sum of
 * the header's five 32-bit words (which cannot overflow 64 bits); it is
 * 0xffff exactly when the plain sum is a nonzero multiple of 65535 (the
 * folded sum is 0 only for an all-zero header). The compiler tests the
 * multiple with one multiplication, no division.
 */
static inline bool ip4_cksum20_ok(const struct rte_ipv4_hdr *ip)
{
	const uint8_t *b = (const uint8_t *)ip;
	uint32_t w0, w1, w2, w3, w4; /* five scalars: an array went through the stack */
	uint64_t sum;

	memcpy(&w0, b, 4);
	memcpy(&w1, b + 4, 4);
	memcpy(&w2, b + 8, 4);
	memcpy(&w3, b + 12, 4);
	memcpy(&w4, b + 16, 4);
	sum = (uint64_t)w0 + w1 + w2 + w3 + w4;
	return sum % 65535 == 0 && sum != 0;
}

/*
 * The options of a header longer than 20 bytes (@len bytes at @o): DROP_MAX
 * when they may pass; DROP_IP4_BAD_OPTIONS when one's length runs past the
 * header or is below 2; DROP_IP4_SOURCE_ROUTE for a loose or strict source
 * route, which the router does not follow and, as RFC 7126 3.13.2.4 advises
 * and Linux does by default, does not deliver or forward either. The rest
 * pass unchanged (Record Route and Timestamp are not filled in).
 */
static inline enum dp_drop ip4_options_check(const uint8_t *o, uint32_t len)
{
	uint32_t i = 0;

	while (i < len) {
		uint8_t type = o[i];

		if (type == 0) /* end of the list */
			break;
		if (type == 1) { /* no operation */
			i++;
			continue;
		}
		if (len - i < 2 || o[i + 1] < 2 || o[i + 1] > len - i)
			return DROP_IP4_BAD_OPTIONS;
		if (type == 0x83 || type == 0x89) /* LSRR, SSRR */
			return DROP_IP4_SOURCE_ROUTE;
		i += o[i + 1];
	}
	return DROP_MAX;
}

/*
 * RFC 1812 5.2.2: validate before forwarding, in the order the issue and the
 * RFC list the checks: the frame holds a minimal header, version 4, IHL >= 5
 * (and the header fits), header checksum, total length >= header and <= the
 * frame; then the options (ip4_options_check()). Frames longer than the IP
 * packet (Ethernet padding) are trimmed.
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
			     (ck == RTE_MBUF_F_RX_IP_CKSUM_BAD || !ip4_cksum20_ok(ip)))) {
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
		if (ihl > sizeof(*ip)) {
			enum dp_drop w = ip4_options_check((const uint8_t *)(ip + 1),
							   ihl - (uint32_t)sizeof(*ip));

			if (unlikely(w != DROP_MAX)) {
				*why = w;
				return false;
			}
		}
	}
	tot = dp_ntohs(ip->total_length);
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
 * 0x0100, so ~m + m' is the constant 0xfeff, and ~(~HC + 0xfeff) is
 * HC + 0x0100 in one's complement: the carry out of the top added back,
 * and a result of 0xffff (-0) written 0, as eqn. 3 (and a full recompute)
 * gives it. One's complement sums do not depend on byte order, so the sum
 * runs on the checksum as stored, with 0x0100 in network order.
 * Caller guarantees TTL >= 2. Datapath-safe.
 */
static inline void ip4_ttl_dec(struct rte_ipv4_hdr *ip)
{
	uint32_t sum = ip->hdr_checksum;

	sum += RTE_BE16(0x0100);
	ip->hdr_checksum = (uint16_t)(sum + (sum >= 0xffff));
	ip->time_to_live--;
}

#endif /* FR_IP4_H */
