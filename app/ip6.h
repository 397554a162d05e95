/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 header checks for forwarding (RFC 8200), inline for the workers.
 * IPv6 has no header checksum and routers never fragment: what is left is
 * the version, the payload length against the frame, and address scopes.
 */
#ifndef FR_IP6_H
#define FR_IP6_H

#include <stdbool.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp_byteorder.h"
#include "ip4.h"
#include "nd.h"
#include "stats.h"

/* IPv6 links carry at least this (RFC 8200 5) */
#define IP6_MIN_MTU 1280

/*
 * ip4_flow_ports() for IPv6 packet @ip (@len bytes contiguous): the ports
 * and protocol of a TCP, UDP, SCTP or UDP-Lite header right after the
 * fixed one; 0 when extension headers come first (a fragment among them),
 * for another protocol, or a header cut short. Datapath-safe.
 */
static inline uint32_t ip6_flow_ports(const struct rte_ipv6_hdr *ip, uint32_t len)
{
	uint32_t w;

	if (len < sizeof(*ip) + 4 || dp_ntohs(ip->payload_len) < 4 || !ip_proto_ported(ip->proto))
		return 0;
	memcpy(&w, ip + 1, sizeof(w));
	return w ^ ip->proto;
}

/*
 * The frame holds a 40-byte header, version 6, and 40 + payload length
 * bytes. A jumbogram (RFC 2675: payload length 0 and a hop-by-hop header,
 * whose 8 bytes at least a real payload length would count) is refused
 * as a bad length: no link here carries one. Frames longer than the packet
 * (Ethernet padding) are trimmed. Extension headers are not looked at: they
 * travel unchanged. Datapath-safe.
 */
static inline bool ip6_validate(struct rte_mbuf *m, const struct rte_ipv6_hdr *ip,
				enum dp_drop *why)
{
	uint32_t first = rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN;
	uint32_t frame = rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN;
	uint32_t tot;

	if (unlikely(first < sizeof(struct rte_ipv6_hdr))) {
		*why = DROP_IP6_TOO_SHORT;
		return false;
	}
	if (unlikely((((const uint8_t *)ip)[0] >> 4) != 6)) {
		*why = DROP_IP6_VERSION;
		return false;
	}
	tot = sizeof(struct rte_ipv6_hdr) + dp_ntohs(ip->payload_len);
	if (unlikely(tot > frame || (ip->payload_len == 0 && ip->proto == IPPROTO_HOPOPTS))) {
		*why = DROP_IP6_LENGTH;
		return false;
	}
	if (unlikely(tot < frame) && rte_pktmbuf_trim(m, (uint16_t)(frame - tot)) != 0) {
		*why = DROP_IP6_LENGTH;
		return false;
	}
	return true;
}

/* Size of the IPv6 packet (header included). */
static inline uint32_t ip6_size(const struct rte_ipv6_hdr *ip)
{
	return sizeof(*ip) + dp_ntohs(ip->payload_len);
}

/* 2000::/3, global unicast (RFC 4291 2.4): none of the special addresses
 * the data path looks for (unspecified, loopback, link-local, multicast). */
static inline bool ip6_is_global(const uint8_t *a)
{
	return (a[0] & 0xe0) == 0x20;
}

/* ::ffff:0:0/96, IPv4-mapped: an IPv4 host's address inside a stack,
 * never on the wire (RFC 4291 2.5.5.2; RFC 6890: not forwardable) */
static inline bool ip6_is_v4mapped(const uint8_t *a)
{
	static const uint8_t pfx[12] = {[10] = 0xff, [11] = 0xff};

	return memcmp(a, pfx, 12) == 0;
}

/* For the router among the groups of link scope: all-nodes, all-routers,
 * solicited-node groups (ND); the control thread checks the target. */
static inline bool ip6_group_ours(const uint8_t *a)
{
	static const uint8_t snm[13] = {0xff, 0x02, [11] = 0x01, [12] = 0xff};
	static const uint8_t all[15] = {0xff, 0x02};

	if (memcmp(a, all, 15) == 0)
		return a[15] == 1 || a[15] == 2;
	return memcmp(a, snm, 13) == 0;
}

/* ff01::/16 and ff02::/16 scopes (RFC 4291 2.7: scope in the low 4 bits) */
static inline unsigned int ip6_mcast_scope(const uint8_t *a)
{
	return a[1] & 0x0f;
}

#endif /* FR_IP6_H */
