/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbour discovery frames (RFC 4861 4.3, 4.4, 7.1), Ethernet/IPv6 only. */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "nd.h"
#include "neigh.h"

#define ICMP6_HDR_LEN 4	 /* type, code, checksum */
#define ND_MSG_LEN    24 /* ICMPv6 header, reserved/flags word, target */
#define OPT_TLLA      2

void nd_solicited_node(const uint8_t *a, uint8_t *group)
{
	static const uint8_t pfx[13] = {0xff, 0x02, [11] = 0x01, [12] = 0xff};

	memcpy(group, pfx, sizeof(pfx));
	memcpy(group + 13, a + 13, 3);
}

bool nd_is_solicited_node_of(const uint8_t *group, const uint8_t *a)
{
	uint8_t g[16];

	nd_solicited_node(a, g);
	return memcmp(g, group, 16) == 0;
}

void nd_mcast_mac(const uint8_t *group, struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], group + 12, 4);
}

void nd_eui64_linklocal(const struct rte_ether_addr *mac, uint8_t *a)
{
	const uint8_t *m = mac->addr_bytes;

	memset(a, 0, 16);
	a[0] = 0xfe;
	a[1] = 0x80;
	a[8] = m[0] ^ 0x02; /* the universal/local bit, inverted */
	a[9] = m[1];
	a[10] = m[2];
	a[11] = 0xff;
	a[12] = 0xfe;
	a[13] = m[3];
	a[14] = m[4];
	a[15] = m[5];
}

bool nd_opts_ok(const uint8_t *opt, uint32_t left, uint8_t type, const uint8_t **found)
{
	*found = NULL;
	while (left > 0) {
		uint32_t olen;

		if (left < 2 || opt[1] == 0)
			return false;
		olen = (uint32_t)opt[1] * 8;
		if (olen > left)
			return false;
		if (opt[0] == type)
			*found = opt;
		opt += olen;
		left -= olen;
	}
	return true;
}

enum nd_err nd_parse(const void *frame, uint32_t len, struct nd_info *nd)
{
	const struct rte_ether_hdr *eth = frame;
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(eth + 1);
	const uint8_t *icmp = (const uint8_t *)(ip + 1), *lla;
	uint32_t plen;
	bool unspec;

	if (len < sizeof(*eth) + sizeof(*ip) + ICMP6_HDR_LEN ||
	    eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6) ||
	    (((const uint8_t *)ip)[0] >> 4) != 6 || ip->proto != IPPROTO_ICMPV6)
		return ND_ERR_MALFORMED;
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (plen < ICMP6_HDR_LEN || sizeof(*eth) + sizeof(*ip) + plen > len)
		return ND_ERR_MALFORMED;
	if (icmp[0] != ND_TYPE_NS && icmp[0] != ND_TYPE_NA)
		return ND_ERR_NOT_ND;
	/* RFC 4861 7.1.1/7.1.2, in order */
	if (ip->hop_limits != 255)
		return ND_ERR_HOP_LIMIT;
	if (__rte_ipv6_udptcp_cksum(ip, icmp) != 0xffff)
		return ND_ERR_CHECKSUM;
	if (icmp[1] != 0 || plen < ND_MSG_LEN)
		return ND_ERR_MALFORMED;
	memset(nd, 0, sizeof(*nd));
	nd->type = icmp[0];
	memcpy(nd->src, ip->src_addr, 16);
	memcpy(nd->dst, ip->dst_addr, 16);
	memcpy(nd->target, icmp + 8, 16);
	nd->eth_src = eth->src_addr;
	nd->eth_dst = eth->dst_addr;
	if (ip6_is_mcast(nd->target))
		return ND_ERR_MALFORMED;
	if (!nd_opts_ok(icmp + ND_MSG_LEN, plen - ND_MSG_LEN,
			nd->type == ND_TYPE_NS ? ND_OPT_SLLA : OPT_TLLA, &lla))
		return ND_ERR_MALFORMED;
	if (lla != NULL) {
		/* Ethernet's is 8 bytes (RFC 2464 6): another length holds no
		 * MAC, and the message is dropped as Linux drops it, not taken
		 * as one without the option (an advertisement would then
		 * confirm a neighbour) */
		if (lla[1] != 1)
			return ND_ERR_MALFORMED;
		nd->has_lla = true;
		memcpy(&nd->lla, lla + 2, RTE_ETHER_ADDR_LEN);
	}
	unspec = ip6_is_unspec(nd->src);
	if (nd->type == ND_TYPE_NS) {
		/* duplicate address detection: to the target's solicited-node
		 * group, and no source link-layer address */
		if (unspec && (!nd_is_solicited_node_of(nd->dst, nd->target) || nd->has_lla))
			return ND_ERR_MALFORMED;
	} else {
		nd->flags = icmp[4];
		/* a solicited advertisement answers one node, never a group */
		if (ip6_is_mcast(nd->dst) && (nd->flags & ND_NA_SOLICITED))
			return ND_ERR_MALFORMED;
		if (unspec)
			return ND_ERR_MALFORMED;
	}
	if (ip6_is_mcast(nd->src))
		return ND_ERR_MALFORMED;
	return ND_OK;
}

/* Ethernet + IPv6 header of an ND message from us, hop limit 255. */
static uint8_t *nd_header(void *frame, const struct rte_ether_addr *eth_src,
			  const struct rte_ether_addr *eth_dst, const uint8_t *src,
			  const uint8_t *dst, struct rte_ipv6_hdr **ipp)
{
	struct rte_ether_hdr *eth = frame;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);

	memset(frame, 0, ND_FRAME_LEN);
	eth->dst_addr = *eth_dst;
	eth->src_addr = *eth_src;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = RTE_BE16(ND_MSG_LEN + 8);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	*ipp = ip;
	return (uint8_t *)(ip + 1);
}

void nd_build_ns(void *frame, const struct rte_ether_addr *src_mac, const uint8_t *src,
		 const uint8_t *target, const struct rte_ether_addr *unicast_mac)
{
	struct rte_ether_addr dmac;
	struct rte_ipv6_hdr *ip;
	uint8_t dst[16], *icmp;
	uint16_t ck;

	if (unicast_mac != NULL) {
		memcpy(dst, target, 16);
		dmac = *unicast_mac;
	} else {
		nd_solicited_node(target, dst);
		nd_mcast_mac(dst, &dmac);
	}
	icmp = nd_header(frame, src_mac, &dmac, src, dst, &ip);
	icmp[0] = ND_TYPE_NS;
	memcpy(icmp + 8, target, 16);
	icmp[ND_MSG_LEN] = ND_OPT_SLLA;
	icmp[ND_MSG_LEN + 1] = 1;
	memcpy(icmp + ND_MSG_LEN + 2, src_mac, RTE_ETHER_ADDR_LEN);
	ck = rte_ipv6_udptcp_cksum(ip, icmp);
	memcpy(icmp + 2, &ck, 2);
}

uint32_t nd_build_dad_ns(void *frame, const struct rte_ether_addr *src_mac, const uint8_t *target)
{
	static const uint8_t unspec[16];
	struct rte_ether_addr dmac;
	struct rte_ipv6_hdr *ip;
	uint8_t dst[16], *icmp;
	uint16_t ck;

	nd_solicited_node(target, dst);
	nd_mcast_mac(dst, &dmac);
	icmp = nd_header(frame, src_mac, &dmac, unspec, dst, &ip);
	ip->payload_len = RTE_BE16(ND_MSG_LEN); /* no option (RFC 4862 5.4.2) */
	icmp[0] = ND_TYPE_NS;
	memcpy(icmp + 8, target, 16);
	ck = rte_ipv6_udptcp_cksum(ip, icmp);
	memcpy(icmp + 2, &ck, 2);
	return ND_FRAME_LEN - 8;
}

void nd_build_na(void *frame, const struct rte_ether_addr *src_mac, const uint8_t *src,
		 const struct rte_ether_addr *dst_mac, const uint8_t *dst, const uint8_t *target,
		 uint8_t flags)
{
	struct rte_ipv6_hdr *ip;
	uint8_t *icmp;
	uint16_t ck;

	icmp = nd_header(frame, src_mac, dst_mac, src, dst, &ip);
	icmp[0] = ND_TYPE_NA;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[ND_MSG_LEN] = OPT_TLLA;
	icmp[ND_MSG_LEN + 1] = 1;
	memcpy(icmp + ND_MSG_LEN + 2, src_mac, RTE_ETHER_ADDR_LEN);
	ck = rte_ipv6_udptcp_cksum(ip, icmp);
	memcpy(icmp + 2, &ck, 2);
}

enum nd_verdict nd_process(struct neigh_table *t, const struct nd_info *nd, uint16_t port,
			   bool target_ours, bool src_onlink, uint64_t now, bool *learnt)
{
	const struct rte_ether_addr *lla;
	struct neigh_info cur;
	struct fr_addr who;

	*learnt = false;
	memset(&who, 0, sizeof(who));
	who.family = AF_INET6;
	if (nd->type == ND_TYPE_NS) {
		if (ip6_is_unspec(nd->src))
			return target_ours ? ND_V_DEFEND : ND_V_DAD_OTHER;
		if (!target_ours)
			return ND_V_NOT_FOR_US;
		if (nd->has_lla && src_onlink) {
			memcpy(who.v6, nd->src, 16);
			*learnt =
				neigh_learn(t, &who, port, &nd->lla, NEIGH_LEARN_REQUEST, now) == 1;
		}
		return ND_V_ANSWER;
	}
	memcpy(who.v6, nd->target, 16);
	if (neigh_get(t, &who, port, &cur) != 0)
		return ND_V_IGNORED; /* never an entry from an advertisement */
	lla = nd->has_lla ? &nd->lla : NULL;
	if (lla == NULL) {
		/* no address: only confirms a neighbour we can already reach */
		if (!neigh_state_usable(cur.state))
			return ND_V_IGNORED;
		lla = &cur.mac;
	}
	if (!(nd->flags & ND_NA_OVERRIDE) && neigh_state_usable(cur.state) &&
	    !rte_is_same_ether_addr(lla, &cur.mac))
		/* no override: the address we have stands, but a REACHABLE
		 * entry turns STALE, to be confirmed again (RFC 4861 7.2.5) */
		return neigh_unconfirm(t, &who, port, now) ? ND_V_LEARNT : ND_V_IGNORED;
	return neigh_learn(t, &who, port, lla,
			   (nd->flags & ND_NA_SOLICITED) ? NEIGH_LEARN_REPLY
							 : NEIGH_LEARN_GRATUITOUS,
			   now) == 1
		       ? ND_V_LEARNT
		       : ND_V_IGNORED;
}
