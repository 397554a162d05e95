/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 half of the control thread's slow path (control6.c): ND,
 * ICMPv6, output of what the router originates. Control thread only.
 */
#ifndef FR_CONTROL6_H
#define FR_CONTROL6_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

struct router;
struct neigh_info;
struct fr_addr;
struct port_addr;
struct fr_port;
struct dad_wait;

/* Is @a an address of @port (its link-local one included)? */
bool port_owns6(const struct router *r, uint16_t port, const uint8_t *a);
/* Is @a an address of any port (link-local ones included)? */
bool router_owns6(const struct router *r, const uint8_t *a);
/* @a is the Subnet-Router anycast address (RFC 4291 2.6.1: the prefix, its
 * host bits zero) of one of @port's IPv6 prefixes of /126 or shorter (RFC
 * 6164 leaves a /127 without one); router_anycast6(): of any port's. */
bool port_anycast6(const struct router *r, uint16_t port, const uint8_t *a);
bool router_anycast6(const struct router *r, const uint8_t *a);

/* An MLDv2 report on @port of the groups it listens to (control6.c), when
 * it speaks IPv6 (port_speaks6()); sent as its addresses are announced. */
void mld_report(struct router *r, uint16_t port);

/* @port lost its @k IPv6 addresses @gone (at most FR_PORT_MAX_ADDRS; a
 * change kept, the port in service): the groups it listens to no more
 * reported left, in one report, and in MLDv2 once more within a second
 * (mld_leave_due()). */
void mld_leave(struct router *r, uint16_t port, const struct port_addr *gone, unsigned int k);
void mld_leave_due(struct router *r, uint16_t port, uint64_t now);
/* The answers to MLD queries due on @port by @now sent (in service; a port
 * speaking IPv6 no more has them dropped). */
void mld_answer_due(struct router *r, uint16_t port, uint64_t now);
/* @port's groups, just reported joined, reported again after a random
 * delay of up to a second (RFC 3810 6.1: a state change goes twice), by
 * mld_again_due(). */
void mld_report_again(struct router *r, uint16_t port);
void mld_again_due(struct router *r, uint16_t port, uint64_t now);
/* @p's pending MLD answers and repeated reports dropped (out of service,
 * or a change of MLD version: RFC 3810 8.2.1). */
void mld_cancel(struct fr_port *p);

/* Router Advertisements on @port (RFC 4861 6.2): @max_s the interval
 * (MaxRtrAdvInterval), 0 off; @flags their M and O flags (RA_MANAGED,
 * RA_OTHER), RA_NO_SLAAC and the preference (RA_PRF_*). Turned off, a
 * last one with router lifetime 0 goes (6.2.5). router_ra_dns_set(): the
 * @n DNS servers @dns they name (RFC 8106). A change while on is
 * advertised within 3 s. ra_due(): the one due on
 * @port, when in service, not within a command; a change of what it says
 * (addresses, MTU), seen within a second, is advertised as soon as may be,
 * and what it no longer says is withdrawn in the next 3. */
void router_ra_set(struct router *r, uint16_t port, uint16_t max_s, uint16_t min_delay_ms,
		   uint8_t flags);
void router_ra_dns_set(struct router *r, uint16_t port, unsigned int n, const uint8_t (*dns)[16]);
void ra_due(struct router *r, uint16_t port, uint64_t now);
/* @port is taken out of service ('port N down') while it advertises and is
 * in service: its last Router Advertisement (lifetime 0, what the last one
 * said, RFC 4861 6.2.5) is sent before the port stops sending (the call
 * waits for the workers, about 500 ms at most: only a worker the host
 * descheduled takes that long), unless the last one sent was a
 * last one already. Hosts take another default router at once; the
 * advertisements start over when the port is back. */
void router_ra_leave(struct router *r, uint16_t port);
/* The router stops, its workers have: each advertising port's last
 * Router Advertisement (lifetime 0, RFC 4861 6.2.5), sent by the calling
 * thread from worker 0's TX queue with what else the control thread
 * queued. How many were sent. */
unsigned int router_ra_final(struct router *r);

/* Source address for a packet the router sends on @port to @dst. */
void port_src6(const struct router *r, uint16_t port, const uint8_t *dst, uint8_t *src);
/* The source of an ICMPv6 error to @dst leaving by @port: port_src6(), but
 * a global address of another port where @port has none and @dst is not
 * link-local. */
void error_src6(const struct router *r, uint16_t port, const uint8_t *dst, uint8_t *src);

/* neigh_ops.probe for IPv6 entries: an NS to the solicited-node group, or
 * unicast to @mac. */
void nd_probe(struct router *r, const struct neigh_info *ni, const struct rte_ether_addr *mac);

/* For the router: ND, echo requests, the rest answered or counted. */
void local_input6(struct router *r, struct rte_mbuf *m);

/* Duplicate address detection (RFC 4862 5.4, optimistic: RFC 4429) of
 * @port's address @a whose state is *@st (enum addr_dad) and probe's wait
 * *@w: true when it is done and the address may be announced; one waiting
 * for it is probed now (tentative for ADDR_DAD_MS at least). */
bool dad_ready(struct router *r, uint16_t port, const uint8_t *a, uint8_t *st, struct dad_wait *w);
/* The tentative addresses of @port whose wait ended at @now without
 * another host's claim: kept, and announced (probed again instead, up to
 * ADDR_DAD_REPROBES times, when the port failed to transmit meanwhile). */
void dad_due(struct router *r, uint16_t port, uint64_t now);
/* @port went out of service: its IPv6 addresses are probed again when it
 * is back (RFC 4862 5.4); a failed one too, but it stays failed (not the
 * router's, its local route out) until then: dad_retry_failed(). */
void dad_reset(struct router *r, uint16_t port);
/* @port is back in service (a full announce()): the addresses whose
 * detection failed before it went out get their local route back and are
 * probed again. Once a dad_reset(). */
void dad_retry_failed(struct router *r, uint16_t port);
/* The local routes of the addresses whose detection failed while a command
 * held the tables (r->in_command): taken out now. Main loop only. */
void dad_routes_sync(struct router *r);

/* An unsolicited NA for our @addr to all-nodes on @port, override set
 * (RFC 4861 7.2.6). True: queued. */
bool nd_announce(struct router *r, uint16_t port, const uint8_t *addr);

/* A worker could not send @m: no usable neighbour. */
void resolve_input6(struct router *r, struct rte_mbuf *m);

/* @m, held for neighbour @ni, would still go to it by the routes as they
 * are now. */
bool held_route_holds6(struct router *r, const struct rte_mbuf *m, const struct neigh_info *ni);

/*
 * Send ICMPv6 @type/@code about @orig (Ethernet+IPv6 as received), at most
 * 1280 bytes, quoting as much of it as fits; @aux is the MTU of 2/0 or the
 * pointer of 4/x. Consumes @orig. The caller decided it is due and within
 * rate.
 */
void icmp6_error(struct router *r, struct rte_mbuf *orig, uint8_t type, uint8_t code, uint32_t aux);
/* An IPv6 packet a worker rewrote to forward back out of @port, its
 * arrival port, and handed over for an ICMPv6 Redirect (RFC 4861 8.2):
 * the Redirect sent when one is due, then the packet. */
void forward_finish6(struct router *r, struct rte_mbuf *m, uint16_t port);
/* Count an ICMPv6 message of the router's as sent (once handed to its port). */
void icmp6_count_sent(struct router *r, uint8_t type, uint8_t code);

/* Route, resolve and send an IPv6 packet the router built (Ethernet header
 * room in front; an ICMPv6 message has dp_ctrl_set(CTRL_ORIGINATED, type,
 * code, CTRL_ORIG_ICMP) and is counted when sent); link-local destinations
 * go out of @port_hint. */
void control_output6(struct router *r, struct rte_mbuf *m, uint16_t port_hint);

/* Finish a frame for @port and @mac and send it (hop limit of a forwarded
 * packet, MAC addresses, MTU). Consumes @m. */
void send_ip6(struct router *r, struct rte_mbuf *m, uint16_t port, const struct rte_ether_addr *mac,
	      bool forwarded);

/* control.c: hold @m on neighbour @nb of @port while resolving it. */
void control_resolve(struct router *r, struct rte_mbuf *m, const struct fr_addr *nb, uint16_t port);

/* True when the frame in @m is IPv6 (by its ethertype). */
static inline bool frame_is_ip6(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type ==
	       RTE_BE16(RTE_ETHER_TYPE_IPV6);
}

/* A frame the router builds itself: its Ethernet header says the family
 * from the start (the MACs come when it is sent), so whatever reads it
 * meanwhile (a hold queue's release) never meets a recycled buffer's
 * bytes. */
static inline void frame_init(void *frame, uint16_t ether_type)
{
	struct rte_ether_hdr *eth = frame;

	memset(eth, 0, sizeof(*eth));
	eth->ether_type = rte_cpu_to_be_16(ether_type);
}

/* The @len bytes of @m from @off into @dst (a quote of a packet the
 * router answers; the caller bounded @len by the packet's). */
static inline void frame_copy_out(const struct rte_mbuf *m, uint32_t off, uint32_t len, void *dst)
{
	const void *from = rte_pktmbuf_read(m, off, len, dst);

	if (from != NULL && from != dst)
		memcpy(dst, from, len);
}

#endif /* FR_CONTROL6_H */
