/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMP in the control thread: errors about packets the workers dropped
 * (RFC 792, RFC 1812 4.3), echo replies and unreachables for packets
 * addressed to the router.
 */
#ifndef FR_ICMP_H
#define FR_ICMP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

struct router;

/* Largest error datagram (RFC 1812 4.3.2.3): header, ICMP, quoted bytes. */
#define ICMP_ERROR_MAX 576

/*
 * Send ICMP @type/@code about @orig (an Ethernet+IPv4 frame as received),
 * from the address of the port it leaves by, TTL 64, quoting the original
 * header and as much payload as fits in 576 bytes; @aux is the next-hop MTU
 * of 3/4. Consumes @orig. The caller decided it is allowed and within rate.
 */
void icmp_error(struct router *r, struct rte_mbuf *orig, uint8_t type, uint8_t code, uint32_t aux);
/*
 * Send an ICMP Redirect for Host (5/1) about @orig (Ethernet + IPv4, which a
 * worker rewrote to forward back out of @port, the port it came in by; a
 * token taken), naming its route's next hop on @port as the better first
 * hop: when its sender and that next hop share one of the port's subnets
 * (RFC 1812 5.2.7.2), else only counted (redirects_not_due). Keeps @orig.
 */
void icmp_redirect(struct router *r, const struct rte_mbuf *orig, uint16_t port);
/* May the sender @src (an IPv4 address in host order, or a hash of an IPv6
 * one) have a Redirect now? Counts it if so (damped as Linux does). */
bool redirect_undamped(struct router *r, uint32_t src);
/* Count an ICMP message of the router's as sent (once handed to its port). */
void icmp_count_sent(struct router *r, uint8_t type, uint8_t code);

/*
 * The UDP datagram or TCP segment (@proto) of @len bytes at @off in @m, for
 * the router from @src to @dst (addresses of @alen bytes, 4 or 16): whole
 * (a UDP length within @len, a TCP header within it) and its checksum right
 * (a UDP checksum of 0, none, only over IPv4: RFC 768, RFC 8200 8.1).
 */
bool local_l4_ok(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint8_t proto,
		 const void *src, const void *dst, size_t alen);

/* The 20-byte TCP reset @th (its checksum left 0) that answers the TCP
 * header @in of a segment of @len bytes, header included, to a closed
 * port (RFC 9293 3.10.7.1). */
void tcp_rst_fill(uint8_t *th, const uint8_t *in, uint32_t len);

/* A frame for the reset that answers @m (Ethernet type @ether_type, an IP
 * header of @iplen bytes, then 20 of TCP, all zero): that IP header, the
 * mbuf in @n; NULL when no mbuf is free (counted ctrl_no_mbuf, @m freed). */
void *tcp_rst_alloc(struct router *r, struct rte_mbuf *m, uint16_t ether_type, uint32_t iplen,
		    struct rte_mbuf **n);

/* A packet for one of the router's addresses or a broadcast address. */
void local_input(struct router *r, struct rte_mbuf *m);

/* The frame @m arrived in was sent to an L2 broadcast or multicast address:
 * no ICMP error is due about it (RFC 1812 4.3.2.7, RFC 4443 2.4 (e.3)). */
static inline bool frame_l2_group(const struct rte_mbuf *m)
{
	return rte_is_multicast_ether_addr(
		&rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->dst_addr);
}

/* The control thread's own token buckets for errors it originates: one for
 * path MTU discovery's (@pmtu: 3/4, Packet Too Big), one for the rest. */
int icmp_ctrl_allowed(struct router *r, bool pmtu);

/*
 * Is an ICMP error of @type/@code (used for IPv6: Packet Too Big and 4/2
 * are allowed about a group) due about @m, a frame the control thread was
 * forwarding (held for resolution, or refused)? The workers' rules (RFC
 * 1812 4.3.2.7, RFC 4443 2.4 (e)) and, for IPv6, none about a source that
 * is one of the router's Subnet-Router anycast addresses (2.4 (e.6)), then
 * the control thread's rate (@pmtu: path MTU discovery's bucket); why not
 * is counted (ctrl_icmp_not_sent, ctrl_icmp_over_rate). TCP resets ask it
 * too.
 */
bool icmp_ctrl_error_due(struct router *r, struct rte_mbuf *m, uint8_t type, uint8_t code,
			 bool pmtu);

#endif /* FR_ICMP_H */
