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
 * sum is 0xffff (RFC 1071), without rte_raw_cksum()'s generic loop. The
 * header is read as two 64-bit words and a 32-bit one, added with the carry
 * out of the top added back: a one's-complement sum modulo 2^64 - 1, of which
 * 65535 is a divisor, so it is congruent modulo 65535 to the sum of the
 * header's 16-bit words (2^16 is 1 modulo 65535; the byte order of the loads
 * multiplies it by 256, which keeps a multiple of 65535 one). The folded sum
 * is 0xffff exactly when that sum is a nonzero multiple of 65535 (it is 0
 * only for an all-zero header, and the added carries never make 0 of
 * anything else). The compiler tests the multiple with one multiplication,
 * no division.
 */
static inline bool ip4_cksum20_ok(const struct rte_ipv4_hdr *ip)
{
	const uint8_t *b = (const uint8_t *)ip;
	uint64_t w0, w1, sum, w2c;
	uint32_t w2;
	bool carry;

	memcpy(&w0, b, 8);
	memcpy(&w1, b + 8, 8);
	memcpy(&w2, b + 16, 4);
	/* the carry of the first add rides with the 32-bit word (at most
	 * 2^32 together); the carry of that add is added back last, and
	 * cannot carry again (what wrapped is below 2^32) */
	carry = __builtin_add_overflow(w0, w1, &sum);
	w2c = (uint64_t)w2 + carry;
	sum += w2c;
	sum += sum < w2c;
	return sum % 65535 == 0 && sum != 0;
}

/* Option types the router reads (RFC 791 3.1) */
#define IP4_OPT_RR   0x07 /* record route */
#define IP4_OPT_TS   0x44 /* internet timestamp */
#define IP4_OPT_LSRR 0x83 /* loose source route */
#define IP4_OPT_SSRR 0x89 /* strict source route */

/*
 * The format of a Record Route (RFC 791 3.1) option of length @l at @o:
 * the offset in @o of the octet in error, or 0 when it is right. At least
 * its type, length and pointer; a pointer of 4 or more, and one that points
 * inside the data either at room for a whole address or past the end (full:
 * forwarded as it is). "Some room but not enough" is an error.
 */
static inline uint32_t ip4_rr_bad(const uint8_t *o, uint32_t l)
{
	if (l < 3)
		return 1;
	if (o[2] < 4 || (o[2] <= l && o[2] + 3u > l))
		return 2;
	return 0;
}

/*
 * The same for an Internet Timestamp option: at least type, length, pointer
 * and the overflow/flag octet; a pointer of 5 or more; a flag of 0
 * (timestamps only), 1 (each with the address before it) or 3 (at the
 * addresses given); a pointer inside the data at room for a whole entry (4
 * or 8 bytes), or past it with an overflow count that can still grow (RFC
 * 791: one that would overflow makes the datagram an error).
 */
static inline uint32_t ip4_ts_bad(const uint8_t *o, uint32_t l)
{
	uint8_t flag;

	if (l < 4)
		return 1;
	if (o[2] < 5)
		return 2;
	flag = o[3] & 0x0f;
	if (flag != 0 && flag != 1 && flag != 3)
		return 3;
	if (o[2] <= l)
		return o[2] + (flag ? 7u : 3u) > l ? 2 : 0;
	return (o[3] >> 4) == 15 ? 3 : 0;
}

/*
 * The options of a header longer than 20 bytes (@len bytes at @o): DROP_MAX
 * when they may pass; DROP_IP4_BAD_OPTIONS when one's length runs past the
 * header or is below 2, a Record Route or Timestamp is malformed
 * (ip4_rr_bad(), ip4_ts_bad()) or either appears twice (RFC 791: at most
 * once), *@bad_at then the offset in @o of the octet in error, for
 * Parameter Problem's pointer (RFC 792): the option's length byte, or its
 * type when the header ends before a length or the option repeats one;
 * DROP_IP4_SOURCE_ROUTE for a loose or strict source route of the right
 * format (Record Route's; a malformed one, or a second, is
 * DROP_IP4_BAD_OPTIONS), which the router does not follow and, as RFC 7126
 * 3.13.2.4 advises and Linux does by default, does not deliver or forward
 * either; once every option was checked (as Linux: an error after it is a
 * Parameter Problem still). Record Route and Timestamp
 * are filled in as the packet is forwarded (ip4_options_fill()); the others
 * pass unchanged.
 */
static inline enum dp_drop ip4_options_check(const uint8_t *o, uint32_t len, uint32_t *bad_at)
{
	uint32_t i = 0, at;
	bool rr = false, ts = false, sr = false;

	while (i < len) {
		uint8_t type = o[i];

		if (type == 0) /* end of the list */
			break;
		if (type == 1) { /* no operation */
			i++;
			continue;
		}
		if (len - i < 2 || o[i + 1] < 2 || o[i + 1] > len - i) {
			*bad_at = len - i < 2 ? i : i + 1;
			return DROP_IP4_BAD_OPTIONS;
		}
		if (type == IP4_OPT_LSRR || type == IP4_OPT_SSRR) {
			/* a source route has Record Route's format (RFC 791
			 * 3.1): a malformed one is a Parameter Problem, as
			 * Linux answers it, before the policy drop */
			at = ip4_rr_bad(o + i, o[i + 1]);
			if (sr || at != 0) {
				*bad_at = sr ? i : i + at;
				return DROP_IP4_BAD_OPTIONS;
			}
			sr = true;
		}
		if (type == IP4_OPT_RR || type == IP4_OPT_TS) {
			bool *seen = type == IP4_OPT_RR ? &rr : &ts;

			at = type == IP4_OPT_RR ? ip4_rr_bad(o + i, o[i + 1])
						: ip4_ts_bad(o + i, o[i + 1]);
			if (*seen || at != 0) {
				/* a repeat is the error first, at its type */
				*bad_at = *seen ? i : i + at;
				return DROP_IP4_BAD_OPTIONS;
			}
			*seen = true;
		}
		i += o[i + 1];
	}
	return sr ? DROP_IP4_SOURCE_ROUTE : DROP_MAX;
}

/*
 * The options of a forwarded header that ip4_options_check() passed have
 * something for the router to write (ip4_options_fill()): a Record Route
 * with room, or a Timestamp (an entry, or its overflow count).
 */
static inline bool ip4_options_to_fill(const struct rte_ipv4_hdr *ip)
{
	const uint8_t *o = (const uint8_t *)(ip + 1);
	uint32_t len = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * 4 - sizeof(*ip);
	uint32_t i = 0;

	while (i < len && o[i] != 0) {
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (o[i] == IP4_OPT_TS || (o[i] == IP4_OPT_RR && o[i + 2] <= o[i + 1]))
			return true;
		i += o[i + 1];
	}
	return false;
}

/*
 * The total length of a header of @ihl bytes that fits the first segment:
 * at least the header, at most the frame; a frame longer than the packet
 * (Ethernet padding) is trimmed. The common packet fills its frame exactly:
 * one compare (the header fits, so that length is at least @ihl).
 */
static inline bool ip4_length_ok(struct rte_mbuf *m, const struct rte_ipv4_hdr *ip, uint32_t ihl,
				 enum dp_drop *why)
{
	uint32_t frame = rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN;
	uint32_t tot = dp_ntohs(ip->total_length);

	if (likely(tot == frame))
		return true;
	if (unlikely(tot < ihl || tot > frame)) {
		*why = DROP_IP4_LENGTH;
		return false;
	}
	if (rte_pktmbuf_trim(m, (uint16_t)(frame - tot)) != 0) {
		*why = DROP_IP4_LENGTH; /* padding spread over segments: not ours to fix */
		return false;
	}
	return true;
}

/*
 * ip4_validate() for a header that starts version 4, IHL 5 (0x45) and lies
 * whole in the first segment: the checksum (unless the NIC checked it),
 * then the length.
 */
static inline bool ip4_validate20(struct rte_mbuf *m, struct rte_ipv4_hdr *ip, enum dp_drop *why)
{
	uint64_t ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;

	if (unlikely(ck != RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
		     (ck == RTE_MBUF_F_RX_IP_CKSUM_BAD || !ip4_cksum20_ok(ip)))) {
		*why = DROP_IP4_CHECKSUM;
		return false;
	}
	return ip4_length_ok(m, ip, sizeof(*ip), why);
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
	uint32_t ihl;
	uint64_t ck;

	if (unlikely(first < sizeof(struct rte_ipv4_hdr))) {
		*why = DROP_IP4_TOO_SHORT;
		return false;
	}
	/* version 4, no options: the header fits (first >= 20) */
	if (likely(ip->version_ihl == 0x45))
		return ip4_validate20(m, ip, why);
	if (unlikely((ip->version_ihl >> 4) != 4)) {
		*why = DROP_IP4_VERSION;
		return false;
	}
	ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * 4;
	if (unlikely(ihl < sizeof(struct rte_ipv4_hdr) || ihl > first)) {
		*why = DROP_IP4_IHL;
		return false;
	}
	ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	if (ck != RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
	    (ck == RTE_MBUF_F_RX_IP_CKSUM_BAD || rte_raw_cksum(ip, ihl) != 0xffff)) {
		*why = DROP_IP4_CHECKSUM;
		return false;
	}
	/* the length before the options: a total length short of the header
	 * is that, whatever bytes its options would be */
	if (!ip4_length_ok(m, ip, ihl, why))
		return false;
	if (ihl > sizeof(*ip)) {
		uint32_t at; /* drop_bad_options() asks again, for the error */
		enum dp_drop w = ip4_options_check((const uint8_t *)(ip + 1),
						   ihl - (uint32_t)sizeof(*ip), &at);

		if (unlikely(w != DROP_MAX)) {
			*why = w;
			return false;
		}
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

	/* sum + 0x0100, plus 1 when that is 0xffff or more: the carry of
	 * sum + 0x0100 + 1 out of 16 bits says so, without a compare */
	sum += RTE_BE16(0x0100);
	ip->hdr_checksum = (uint16_t)(sum + ((sum + 1) >> 16));
	ip->time_to_live--;
}

/* A protocol whose first 4 bytes are its source and destination ports. */
static inline bool ip_proto_ported(uint8_t p)
{
	return p == IPPROTO_TCP || p == IPPROTO_UDP || p == IPPROTO_SCTP || p == IPPROTO_UDPLITE;
}

/*
 * What 'set ip multipath-hash l4' adds to the flow hash of the IPv4 packet
 * @ip, of which @len bytes lie contiguous: its ports (as they lie in memory)
 * and protocol, for TCP, UDP, SCTP and UDP-Lite; 0 for any other, for a
 * header cut short, and for a fragment, first or not, so that the pieces of
 * a datagram take one path. The workers and the control thread call it
 * alike, so both choose the same gateway. Datapath-safe.
 */
static inline uint32_t ip4_flow_ports(const struct rte_ipv4_hdr *ip, uint32_t len)
{
	uint32_t hl, w;

	if (len < sizeof(*ip))
		return 0;
	hl = (uint32_t)(ip->version_ihl & 0xf) * 4;
	if (hl < sizeof(*ip) || len < hl + 4 || dp_ntohs(ip->total_length) < hl + 4 ||
	    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) ||
	    !ip_proto_ported(ip->next_proto_id))
		return 0;
	memcpy(&w, (const uint8_t *)ip + hl, sizeof(w));
	return w ^ ip->next_proto_id;
}

#endif /* FR_IP4_H */
