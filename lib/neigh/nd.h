/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 neighbour discovery (RFC 4861) frames for Ethernet: Neighbor
 * Solicitation and Advertisement parsed with every check of RFC 4861 7.1
 * (hop limit 255, ICMPv6 checksum, code 0, lengths, options, the rules for
 * the unspecified source), and built; the address helpers ND needs
 * (solicited-node group, its MAC, EUI-64 link-local). Pure functions on
 * buffers: the control thread owns the mbufs and sends. Part of lib/neigh's
 * interface.
 */
#ifndef NEIGH_ND_H
#define NEIGH_ND_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>

#define ND_TYPE_RS 133
#define ND_TYPE_RA 134
#define ND_TYPE_NS 135
#define ND_TYPE_NA 136

/* NA flags (first byte of the reserved word) */
#define ND_NA_ROUTER	0x80
#define ND_NA_SOLICITED 0x40
#define ND_NA_OVERRIDE	0x20

/** Frame length of the NS/NA this module builds: Ethernet, IPv6, 24 bytes
 * of message, one 8-byte link-layer address option. */
#define ND_FRAME_LEN (14 + 40 + 24 + 8)

/** Why nd_parse() refused a frame. */
enum nd_err {
	ND_OK = 0,
	ND_ERR_MALFORMED, /**< lengths, version, next header, code, options */
	ND_ERR_HOP_LIMIT, /**< hop limit is not 255: may come from off-link (7.1) */
	ND_ERR_CHECKSUM,  /**< ICMPv6 checksum wrong */
	ND_ERR_NOT_ND,	  /**< an ICMPv6 message other than NS or NA */
};

/** An NS or NA, fields as on the wire (addresses in network order). */
struct nd_info {
	uint8_t type;  /**< ND_TYPE_NS or ND_TYPE_NA */
	uint8_t flags; /**< NA: ND_NA_* */
	uint8_t src[16], dst[16], target[16];
	bool has_lla; /**< source (NS) / target (NA) link-layer address option */
	struct rte_ether_addr lla;
	struct rte_ether_addr eth_src, eth_dst;
};

/** True for :: */
static inline bool ip6_is_unspec(const uint8_t *a)
{
	static const uint8_t z[16];

	return memcmp(a, z, 16) == 0;
}

/** True for ff00::/8 */
static inline bool ip6_is_mcast(const uint8_t *a)
{
	return a[0] == 0xff;
}

/** True for fe80::/10 */
static inline bool ip6_is_linklocal(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/** True for ::1 */
static inline bool ip6_is_loopback(const uint8_t *a)
{
	static const uint8_t lo[16] = {[15] = 1};

	return memcmp(a, lo, 16) == 0;
}

/** ff02::1:ffXX:XXXX, the solicited-node group of @p a (RFC 4291 2.7.1). */
void nd_solicited_node(const uint8_t *a, uint8_t *group);

/** True when @p group is the solicited-node group of @p a. */
bool nd_is_solicited_node_of(const uint8_t *group, const uint8_t *a);

/** 33:33 and the group's last 32 bits (RFC 2464 7). */
void nd_mcast_mac(const uint8_t *group, struct rte_ether_addr *mac);

/** fe80::/64 with the modified EUI-64 interface id of @p mac (RFC 4291 2.5.1). */
void nd_eui64_linklocal(const struct rte_ether_addr *mac, uint8_t *a);

/**
 * Parse an Ethernet frame holding an IPv6 packet whose next header is
 * ICMPv6. Returns ND_OK with @p nd filled for a valid NS or NA.
 */
enum nd_err nd_parse(const void *frame, uint32_t len, struct nd_info *nd);

/** The source link-layer address option's type (RFC 4861 4.6.1). */
#define ND_OPT_SLLA 1

/**
 * The @p len bytes of ND options at @p opt are well formed (RFC 4861 4.6:
 * none of length 0, the last ending at @p len); @p found receives the last
 * option of type @p type (NULL: none). NS, NA and RS alike.
 */
bool nd_opts_ok(const uint8_t *opt, uint32_t len, uint8_t type, const uint8_t **found);

/**
 * Write a Neighbor Solicitation for @p target (ND_FRAME_LEN bytes), with
 * the source link-layer address option, hop limit 255. @p unicast_mac NULL:
 * to the target's solicited-node group (resolution); else to the target
 * itself at that MAC (unreachability probe, RFC 4861 7.3.3).
 */
void nd_build_ns(void *frame, const struct rte_ether_addr *src_mac, const uint8_t *src,
		 const uint8_t *target, const struct rte_ether_addr *unicast_mac);

/**
 * Write the Neighbor Solicitation of duplicate address detection for our
 * tentative @p target (RFC 4862 5.4.2): from ::, to its solicited-node
 * group, no option. Writes ND_FRAME_LEN bytes; returns the frame's length
 * (ND_FRAME_LEN - 8).
 */
uint32_t nd_build_dad_ns(void *frame, const struct rte_ether_addr *src_mac, const uint8_t *target);

/**
 * Write a Neighbor Advertisement for @p target (ND_FRAME_LEN bytes) with the
 * target link-layer address option (@p src_mac), hop limit 255.
 */
void nd_build_na(void *frame, const struct rte_ether_addr *src_mac, const uint8_t *src,
		 const struct rte_ether_addr *dst_mac, const uint8_t *dst, const uint8_t *target,
		 uint8_t flags);

/** What nd_process() made of an NS or NA. */
enum nd_verdict {
	ND_V_ANSWER,	 /**< NS for one of our addresses: answer it (NA, solicited) */
	ND_V_DEFEND,	 /**< DAD probe for one of our addresses: NA to all-nodes */
	ND_V_LEARNT,	 /**< NA that changed the table */
	ND_V_NOT_FOR_US, /**< NS for an address we do not own */
	ND_V_DAD_OTHER,	 /**< DAD probe for another address: nothing learnt */
	ND_V_IGNORED,	 /**< NA that changed nothing (RFC 4861 7.2.5) */
};

struct neigh_table;

/**
 * Apply RFC 4861 7.2 to a parsed NS or NA that arrived on @p port:
 * an NS with a source link-layer address from an on-link source creates or
 * updates the sender's entry (STALE), a DAD probe (source ::) creates
 * nothing, an NA updates only an entry that exists (solicited: REACHABLE;
 * unsolicited with a new address and the override flag: STALE; without the
 * override flag a known address stands). Control thread.
 * @param target_ours the NS target is one of the port's addresses
 * @param src_onlink the NS source is link-local or on one of the port's prefixes
 * @param learnt set when an NS changed the table
 */
enum nd_verdict nd_process(struct neigh_table *t, const struct nd_info *nd, uint16_t port,
			   bool target_ours, bool src_onlink, uint64_t now_ms, bool *learnt);

#endif /* NEIGH_ND_H */
