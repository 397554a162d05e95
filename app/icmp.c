/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMP in the control thread.
 * Errors (RFC 792, RFC 1812 4.3.2): from the address of the port they leave
 * by, TTL 64, precedence 6 (RFC 1812 4.3.2.5), quoting the original IP
 * header and as much payload as fits in 576 bytes. Which packets deserve one
 * (never about ICMP errors, fragments after the first, broadcast...) and
 * the rate limit are decided before: the workers do it for theirs.
 * Local delivery: echo requests to any router address are answered (RFC
 * 1812 4.3.3.6), UDP gets port unreachable, TCP a reset, other protocols
 * protocol unreachable; nothing answers broadcast destinations.
 */
#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_random.h>
#include <rte_tcp.h>

#include "control6.h"
#include "icmp.h"
#include "ip4.h"
#include "ip4_opts.h"
#include "reasm.h"
#include "router.h"

/* The ID of a packet the router originates: random, so its IDs tell
 * nobody how much it sends (a global counter lets an idle scan use the
 * router) */
static rte_be16_t ip_id_new(void)
{
	return (rte_be16_t)rte_rand();
}

void icmp_count_sent(struct router *r, uint8_t type, uint8_t code)
{
	if (type == RTE_IP_ICMP_ECHO_REPLY)
		r->cst.icmp_echo_replies++;
	else if (type == 11)
		r->cst.icmp_time_exceeded++;
	else if (type == 3 && code == 0)
		r->cst.icmp_unreach_net++;
	else if (type == 3 && code == 1)
		r->cst.icmp_unreach_host++;
	else if (type == 3 && code == 2)
		r->cst.icmp_unreach_proto++;
	else if (type == 3 && code == 3)
		r->cst.icmp_unreach_port++;
	else if (type == 3 && code == 4)
		r->cst.icmp_frag_needed++;
	else if (type == 3 && code == 13)
		r->cst.icmp_prohibited++;
	else if (type == 12)
		r->cst.icmp_param_problem++;
	else if (type == ICMP_REDIRECT)
		r->cst.icmp_redirects++;
}

int icmp_ctrl_allowed(struct router *r, bool pmtu)
{
	return dp_tokens_take(pmtu ? &r->icmp_pmtu_tokens : &r->icmp_tokens, &r->dpconf);
}

bool icmp_ctrl_error_due(struct router *r, struct rte_mbuf *m, uint8_t type, uint8_t code,
			 bool pmtu)
{
	const void *l3 = rte_pktmbuf_mtod_offset(m, const void *, RTE_ETHER_HDR_LEN);
	bool v6 = frame_is_ip6(m);
	bool ok = v6 ? dp_icmp6_allowed(m, l3, frame_l2_group(m),
					type == 2 || (type == 4 && code == 2))
		     : dp_icmp4_allowed(m, l3, frame_l2_group(m), r->dpconf.local);

	/* none about a source known to be an anycast address (icmp6_error()
	 * refuses it too), asked before a token is spent on it */
	if (ok && v6 && router_anycast6(r, ((const struct rte_ipv6_hdr *)l3)->src_addr))
		ok = false;
	if (!ok) {
		r->cst.icmp_not_sent++;
		return false;
	}
	if (!icmp_ctrl_allowed(r, pmtu)) {
		r->cst.icmp_over_rate++;
		return false;
	}
	return true;
}

/*
 * An ICMP error from @sa (host order) about @orig (Ethernet + IPv4), for its
 * sender on @port: the header, @word as the 4 bytes after the checksum, the
 * quote (the original header and as much payload as fits in 576 bytes). The
 * quote's TTL is raised by @ttl_back (a packet the worker rewrote, quoted
 * as it arrived). NULL (counted) when no mbuf is free; @orig is kept.
 */
static struct rte_mbuf *icmp_build(struct router *r, const struct rte_mbuf *orig, uint16_t port,
				   uint32_t sa, uint8_t type, uint8_t code, rte_be32_t word,
				   uint8_t ttl_back)
{
	const struct rte_ipv4_hdr *oip =
		rte_pktmbuf_mtod_offset(orig, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t olen = RTE_MIN((uint32_t)rte_be_to_cpu_16(oip->total_length),
				rte_pktmbuf_pkt_len(orig) - RTE_ETHER_HDR_LEN);
	uint32_t quote = RTE_MIN(olen, (uint32_t)(ICMP_ERROR_MAX - sizeof(struct rte_ipv4_hdr) -
						  sizeof(struct rte_icmp_hdr)));
	struct rte_ipv4_hdr *ip;
	struct rte_icmp_hdr *ic;
	struct rte_mbuf *m;
	char *p, *q;

	p = control_frame(r, port,
			  (uint16_t)(RTE_ETHER_HDR_LEN + sizeof(*ip) + sizeof(*ic) + quote), &m);
	if (p == NULL)
		return NULL;
	frame_init(p, RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
	ic = (struct rte_icmp_hdr *)(ip + 1);
	memset(ip, 0, sizeof(*ip) + sizeof(*ic));
	ip->version_ihl = 0x45;
	ip->type_of_service = 0xc0; /* internetwork control */
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + sizeof(*ic) + quote));
	ip->packet_id = ip_id_new();
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rte_cpu_to_be_32(sa);
	ip->dst_addr = oip->src_addr;
	ic->icmp_type = type;
	ic->icmp_code = code;
	memcpy(&ic->icmp_ident, &word, sizeof(word));
	q = (char *)(ic + 1);
	frame_copy_out(orig, RTE_ETHER_HDR_LEN, quote, q);
	if (ttl_back != 0 && quote >= sizeof(*ip)) {
		struct rte_ipv4_hdr *qip = (struct rte_ipv4_hdr *)q;

		qip->time_to_live = (uint8_t)(qip->time_to_live + ttl_back);
		qip->hdr_checksum = 0;
		qip->hdr_checksum = rte_ipv4_cksum(qip);
	}
	ic->icmp_cksum = (uint16_t)~rte_raw_cksum(ic, sizeof(*ic) + quote);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	dp_ctrl_set(m, CTRL_ORIGINATED, type, code, CTRL_ORIG_ICMP);
	return m;
}

void icmp_error(struct router *r, struct rte_mbuf *orig, uint8_t type, uint8_t code, uint32_t aux)
{
	const struct rte_ipv4_hdr *oip =
		rte_pktmbuf_mtod_offset(orig, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	struct fr_addr osrc = fr_addr4(rte_be_to_cpu_32(oip->src_addr));
	struct fib_route back;
	struct rte_mbuf *m;
	rte_be32_t word = 0;
	uint32_t sa;

	/* the source address: the port the error leaves by, towards the
	 * original sender's next hop */
	if (fib_route_lookup_flow(r->fib, &osrc, NULL, 0, &back) != 0 ||
	    (back.type != FIB_NH_GATEWAY && back.type != FIB_NH_CONNECTED) ||
	    !router_port_ok(r, back.port)) {
		r->cst.drop[CDROP_NO_ROUTE_BACK]++;
		rte_pktmbuf_free(orig);
		return;
	}
	/* an unnumbered port: another of the router's addresses (RFC 1812
	 * 4.3.2.4), or traceroute and path MTU discovery go blind there. A
	 * 169.254/16 address goes only to a host on its own link (RFC 3927
	 * 2.6.2, 2.7; control_output() holds to it): an error that goes by a
	 * gateway (a link-local /30 to a peer, as cloud VPN and direct links
	 * number them), or out of another port, goes from a routable address,
	 * or traceroute and path MTU discovery through that peer go blind */
	sa = router_addr4_toward(r, back.port, back.type == FIB_NH_GATEWAY ? back.gw.v4 : osrc.v4,
				 back.type == FIB_NH_CONNECTED);
	if (sa == 0) {
		r->cst.drop[CDROP_NO_ROUTE_BACK]++;
		rte_pktmbuf_free(orig);
		return;
	}
	if (type == 3 && code == 4) /* RFC 1191: next-hop MTU in the low 16 bits */
		word = rte_cpu_to_be_32(aux & 0xffff);
	else if (type == 12) /* RFC 792: the pointer, the word's first octet */
		word = rte_cpu_to_be_32((aux & 0xff) << 24);
	m = icmp_build(r, orig, back.port, sa, type, code, word, 0);
	rte_pktmbuf_free(orig);
	if (m != NULL)
		control_output(r, m);
}

/* A sender's Redirects: the first at once, each next one after 20 ms
 * doubled as many times as it had Redirects, none after the ninth until
 * it has been silent 20 s (as Linux damps its own) */
#define REDIRECT_DAMP_MS    20u
#define REDIRECT_DAMP_MAX   9u
#define REDIRECT_SILENCE_MS (REDIRECT_DAMP_MS << (REDIRECT_DAMP_MAX + 1))

bool redirect_undamped(struct router *r, uint32_t src)
{
	struct redirect_peer *p =
		&r->redirect_peers[rte_hash_crc_4byte(src, 0) % RTE_DIM(r->redirect_peers)];
	uint64_t now = control_now_ms();

	if (p->addr != src || p->sent == 0 || now - p->last_ms >= REDIRECT_SILENCE_MS) {
		p->addr = src;
		p->sent = 0;
	} else if (p->sent >= REDIRECT_DAMP_MAX ||
		   now - p->last_ms < ((uint64_t)REDIRECT_DAMP_MS << p->sent)) {
		/* the silence is counted from its last packet, as Linux does */
		if (p->sent >= REDIRECT_DAMP_MAX)
			p->last_ms = now;
		return false;
	}
	p->sent++;
	p->last_ms = now;
	return true;
}

void icmp_redirect(struct router *r, const struct rte_mbuf *orig, uint16_t port)
{
	const struct rte_ipv4_hdr *oip =
		rte_pktmbuf_mtod_offset(orig, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t src = rte_be_to_cpu_32(oip->src_addr);
	struct fr_addr dst = fr_addr4(rte_be_to_cpu_32(oip->dst_addr)), osrc = fr_addr4(src);
	struct fib_route rt;
	struct rte_mbuf *m;
	uint32_t gw, sa;

	/* the next hop the worker forwarded it to: its route's gateway, or
	 * the destination itself on a connected subnet */
	if (fib_route_lookup_flow(r->fib, &dst, &osrc, router_flow_l4(r, orig), &rt) != 0 ||
	    rt.port != port || (rt.type != FIB_NH_GATEWAY && rt.type != FIB_NH_CONNECTED)) {
		r->cst.redirects_not_due++;
		return;
	}
	gw = rt.type == FIB_NH_GATEWAY ? rt.gw.v4 : dst.v4;
	/* RFC 1812 5.2.7.2: the better next hop on the sender's own subnet of
	 * the port (the longest that holds it), and the Redirect from the
	 * router's address there (the one the sender uses as its gateway:
	 * RFC 1122 3.2.2.2 has a host take a Redirect only from its current
	 * first hop) */
	sa = port_addr4_shared(&r->ports[port], src, gw);
	if (sa == 0 || gw == src) {
		r->cst.redirects_not_due++;
		return;
	}
	if (!redirect_undamped(r, src)) {
		r->cst.redirects_damped++;
		return;
	}
	/* Redirect for Host (code 1; RFC 1812 5.2.7.2 forbids codes 0 and 2,
	 * and the router does not route by TOS, so never 3), quoting the
	 * packet as it arrived (the worker lowered its TTL) */
	m = icmp_build(r, orig, port, sa, ICMP_REDIRECT, 1, rte_cpu_to_be_32(gw), 1);
	if (m != NULL)
		control_output(r, m);
}

/*
 * An echo request's options (ip4_options_check() passed them) for its
 * reply: true when it carries a Record Route or a Timestamp, which the
 * reply takes back (RFC 1122 3.2.2.6, RFC 1812 4.3.3.6: the round trip
 * recorded), every other option overwritten with no-operations (Linux
 * echoes those two and source routes, which the router refuses).
 */
static bool echo_options(struct rte_ipv4_hdr *ip, uint32_t ihl)
{
	uint8_t *o = (uint8_t *)(ip + 1);
	uint32_t len = ihl - (uint32_t)sizeof(*ip), i = 0;
	bool keep = false;

	while (i < len && o[i] != 0) {
		if (o[i] == 1) {
			i++;
			continue;
		}
		keep |= o[i] == IP4_OPT_RR || o[i] == IP4_OPT_TS;
		i += o[i + 1];
	}
	if (!keep)
		return false;
	for (i = 0; i < len && o[i] != 0;) {
		uint32_t l = o[i] == 1 ? 1 : o[i + 1];

		if (o[i] != IP4_OPT_RR && o[i] != IP4_OPT_TS)
			memset(o + i, 1, l);
		i += l;
	}
	return true;
}

/* Turn an echo request into its reply, in place. */
static void echo_reply(struct router *r, struct rte_mbuf *m, struct rte_ipv4_hdr *ip, uint32_t ihl,
		       uint32_t tot)
{
	uint32_t len = tot - ihl;
	struct rte_icmp_hdr *ic;
	uint32_t a, sum;
	bool opts = ihl > sizeof(*ip) && echo_options(ip, ihl);

	/* other options stay with the request: the Ethernet and IPv4
	 * headers move up to the data, which stays where it is (in every
	 * segment) */
	if (ihl > sizeof(*ip) && !opts) {
		ip = (struct rte_ipv4_hdr *)(frame_cut(m, RTE_ETHER_HDR_LEN + sizeof(*ip),
						       ihl - (uint32_t)sizeof(*ip)) +
					     RTE_ETHER_HDR_LEN);
		ihl = sizeof(*ip);
	}
	/* the type word drops from 0x0800 to 0, the rest is the request's,
	 * whose sum local_input() checked: the checksum patched as
	 * ip4_ttl_dec() patches it (RFC 1624 eqn. 3), not summed again */
	ic = (struct rte_icmp_hdr *)((uint8_t *)ip + ihl);
	ic->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	sum = (uint32_t)ic->icmp_cksum + RTE_BE16(0x0800);
	ic->icmp_cksum = (uint16_t)(sum + ((sum + 1) >> 16));
	a = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = a;
	ip->version_ihl = (uint8_t)(0x40 | ihl / 4);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(ihl + len));
	ip->fragment_offset = 0;
	/* the router's own datagram: its own identification (the request's,
	 * reused, could meet one of our errors to the same host, and their
	 * fragments be put together) */
	ip->packet_id = ip_id_new();
	ip->time_to_live = 64;
	/* the reply's source, the request's destination, is the router's
	 * address here (echo requests to broadcasts are not answered) */
	if (opts &&
	    ip4_options_fill(ip, rte_be_to_cpu_32(ip->src_addr), ip4_ts_now(), router_owns4_cb, r))
		r->cst.options_filled++;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	dp_ctrl_set(m, CTRL_ORIGINATED, RTE_IP_ICMP_ECHO_REPLY, 0, CTRL_ORIG_ICMP);
	control_output(r, m);
}

/*
 * An IPv4 packet for the router that no service takes (@m), counted
 * local_unreachable: is an error due about it? Not about a frame to an L2
 * group (counted ctrl_icmp_not_sent), nor over the rate
 * (ctrl_icmp_over_rate): @m freed, false. Else true, @m the caller's to
 * send the error about. (IPv6's: ctrl_drop_error(), which asks all of
 * icmp_ctrl_error_due(), its extension headers in front of an error.)
 */
/* @src no host has (with the martian checks off, the workers let them
 * through: 0/8, 127/8, a group, the limited broadcast, RFC 1812 4.2.2.11,
 * RFC 1122 3.2.1.3), or one of the router's own addresses or its subnets'
 * broadcast and network addresses (an answer would come back to the
 * router): answered with nothing, neither an echo reply nor an error. */
static bool src_unanswerable(const struct router *r, uint32_t src)
{
	return ip4_martian_src(src) || dp_local_has4(r->dpconf.local, src);
}

static bool local_error_due(struct router *r, struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t src = rte_be_to_cpu_32(ip->src_addr);

	r->cst.drop[CDROP_LOCAL_UNREACH]++;
	/* to our address in a broadcast/multicast frame, or from a source
	 * no answer may go to (not no_route_back, and no token spent on it) */
	if (frame_l2_group(m) || src_unanswerable(r, src)) {
		r->cst.icmp_not_sent++;
		rte_pktmbuf_free(m);
		return false;
	}
	if (!icmp_ctrl_allowed(r, false)) {
		r->cst.icmp_over_rate++;
		rte_pktmbuf_free(m);
		return false;
	}
	return true;
}

bool local_l4_ok(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint8_t proto,
		 const void *src, const void *dst, size_t alen)
{
	struct {
		uint8_t a[32];
		rte_be32_t len;
		uint8_t zero[3];
		uint8_t proto;
	} __rte_packed ph;
	uint8_t h[20];
	const uint8_t *l4;
	uint16_t sum;
	uint32_t n, v;

	if (proto == IPPROTO_UDP) {
		if (len < 8 || (l4 = rte_pktmbuf_read(m, off, 8, h)) == NULL)
			return false;
		n = (uint32_t)l4[4] << 8 | l4[5];
		/* its length within the packet's; no checksum (0): only IPv4 */
		if (n < 8 || n > len)
			return false;
		if (l4[6] == 0 && l4[7] == 0)
			return alen == 4;
	} else {
		if (len < 20 || (l4 = rte_pktmbuf_read(m, off, 20, h)) == NULL ||
		    (l4[12] >> 4) < 5 || (l4[12] >> 4) * 4u > len)
			return false;
		n = len;
	}
	/* the pseudo-header (RFC 768, RFC 9293 3.1, RFC 8200 8.1): the
	 * addresses, the length and the protocol, which sum alike in either
	 * family's order of fields */
	memset(&ph, 0, sizeof(ph));
	memcpy(ph.a, src, alen);
	memcpy(ph.a + alen, dst, alen);
	ph.len = rte_cpu_to_be_32(n);
	ph.proto = proto;
	if (rte_raw_cksum_mbuf(m, off, n, &sum) != 0)
		return false;
	v = (uint32_t)sum + rte_raw_cksum(&ph, sizeof(ph));
	v = (v & 0xffff) + (v >> 16);
	v = (v & 0xffff) + (v >> 16);
	return v == 0xffff;
}

void tcp_rst_fill(uint8_t *th, const uint8_t *in, uint32_t len)
{
	uint32_t seq, ack;

	memset(th, 0, 20);
	memcpy(th, in + 2, 2); /* the ports, swapped */
	memcpy(th + 2, in, 2);
	th[12] = 5 << 4;
	if (in[13] & RTE_TCP_ACK_FLAG) {
		/* <SEQ=SEG.ACK><CTL=RST> */
		memcpy(th + 4, in + 8, 4);
		th[13] = RTE_TCP_RST_FLAG;
	} else {
		/* <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>: SYN and FIN
		 * count in the length */
		memcpy(&seq, in + 4, 4);
		ack = rte_be_to_cpu_32(seq) + len - (uint32_t)(in[12] >> 4) * 4 +
		      !!(in[13] & RTE_TCP_SYN_FLAG) + !!(in[13] & RTE_TCP_FIN_FLAG);
		ack = rte_cpu_to_be_32(ack);
		memcpy(th + 8, &ack, 4);
		th[13] = RTE_TCP_RST_FLAG | RTE_TCP_ACK_FLAG;
	}
}

void *tcp_rst_alloc(struct router *r, struct rte_mbuf *m, uint16_t ether_type, uint32_t iplen,
		    struct rte_mbuf **n)
{
	/* no mbuf: the reset's count, as an error's (the segment is counted) */
	char *p = control_frame(r, m->port, (uint16_t)(RTE_ETHER_HDR_LEN + iplen + 20), n);

	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	frame_init(p, ether_type);
	memset(p + RTE_ETHER_HDR_LEN, 0, iplen + 20);
	return p + RTE_ETHER_HDR_LEN;
}

/*
 * A TCP segment for the router (@m, whole: local_l4_ok()): no port
 * listens, so a reset goes back (RFC 9293 3.10.7.1; RFC 1812 5.2.7.1 keeps
 * port unreachable for a transport that has no such answer), from the
 * address it was sent to, unless it is a reset itself. Counted
 * local_unreachable, as a UDP datagram's 3/3 is, and within the same rate
 * and rules.
 */
static void tcp_reset(struct router *r, struct rte_mbuf *m, const struct rte_ipv4_hdr *oip,
		      uint32_t ihl, uint32_t tot)
{
	uint8_t th[20];
	const uint8_t *t = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN + ihl, 20, th);
	struct rte_ipv4_hdr *ip;
	struct rte_mbuf *n;

	if (t == NULL || (t[13] & RTE_TCP_RST_FLAG)) {
		r->cst.drop[CDROP_LOCAL_UNREACH]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (!local_error_due(r, m))
		return;
	ip = tcp_rst_alloc(r, m, RTE_ETHER_TYPE_IPV4, sizeof(*ip), &n);
	if (ip == NULL)
		return;
	ip->version_ihl = 0x45;
	ip->total_length = RTE_BE16(sizeof(*ip) + 20);
	ip->packet_id = ip_id_new();
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = oip->dst_addr;
	ip->dst_addr = oip->src_addr;
	tcp_rst_fill((uint8_t *)(ip + 1), t, tot - ihl);
	((struct rte_tcp_hdr *)(ip + 1))->cksum = rte_ipv4_udptcp_cksum(ip, ip + 1);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	rte_pktmbuf_free(m);
	dp_ctrl_set(n, CTRL_ORIGINATED, 0, 0, CTRL_ORIG_TCP_RST);
	control_output(r, n);
}

void local_input(struct router *r, struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * 4;
	uint32_t tot = rte_be_to_cpu_16(ip->total_length);
	uint32_t src = rte_be_to_cpu_32(ip->src_addr);
	const struct rte_icmp_hdr *ic;

	/* broadcast and subnet-broadcast destinations: no service, no answer
	 * (RFC 1812 4.3.3.6 lets a router ignore broadcast echo requests) */
	if (!router_owns4(r, rte_be_to_cpu_32(ip->dst_addr))) {
		rte_pktmbuf_free(m);
		r->cst.drop[CDROP_LOCAL_BROADCAST]++;
		return;
	}
	/* a piece: held until its datagram is whole, which then comes in
	 * as one (reasm.h) */
	if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)) {
		m = reasm4_input(r->reasm, m, control_now_ms(), r->cst.drop);
		if (m != NULL) {
			r->cst.reassembled++;
			local_input(r, m);
		}
		return;
	}
	if (ip->next_proto_id == IPPROTO_ICMP) {
		if (src_unanswerable(r, src)) {
			r->cst.drop[CDROP_LOCAL_ICMP]++;
			rte_pktmbuf_free(m);
			return;
		}
		uint16_t sum;

		/* the ICMP header in the first segment, its data in as many as
		 * it took (a jumbo request a device received scattered; the
		 * workers made the frame the packet's length, ip4_length_ok(),
		 * and the sum reads no further than the frame) */
		if (tot >= ihl + sizeof(*ic) &&
		    rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN + ihl + sizeof(*ic)) {
			ic = (const struct rte_icmp_hdr *)((const char *)ip + ihl);
			if (ic->icmp_type == RTE_IP_ICMP_ECHO_REQUEST && ic->icmp_code == 0 &&
			    rte_raw_cksum_mbuf(m, RTE_ETHER_HDR_LEN + ihl, tot - ihl, &sum) == 0 &&
			    sum == 0xffff) {
				/* to our address in a link-layer broadcast
				 * frame: discarded (RFC 1122 3.3.6), as one
				 * to a broadcast address is */
				if (frame_l2_group(m)) {
					rte_pktmbuf_free(m);
					r->cst.drop[CDROP_LOCAL_BROADCAST]++;
					return;
				}
				echo_reply(r, m, ip, ihl, tot);
				return;
			}
		}
		rte_pktmbuf_free(m);
		r->cst.drop[CDROP_LOCAL_ICMP]++;
		return;
	}
	/* a damaged UDP datagram or TCP segment: discarded, never answered
	 * (RFC 1122 4.1.3.4, RFC 9293 3.10.7.1: a reply would be about what
	 * its sender may never have sent) */
	if ((ip->next_proto_id == IPPROTO_UDP || ip->next_proto_id == IPPROTO_TCP) &&
	    !local_l4_ok(m, RTE_ETHER_HDR_LEN + ihl, tot - ihl, ip->next_proto_id, &ip->src_addr,
			 &ip->dst_addr, 4)) {
		rte_pktmbuf_free(m);
		r->cst.drop[CDROP_LOCAL_BAD_L4]++;
		return;
	}
	/* no TCP, UDP or other service: say so */
	if (ip->next_proto_id == IPPROTO_TCP) {
		tcp_reset(r, m, ip, ihl, tot);
		return;
	}
	if (!local_error_due(r, m))
		return;
	if (ip->next_proto_id == IPPROTO_UDP)
		icmp_error(r, m, 3, 3, 0);
	else
		icmp_error(r, m, 3, 2, 0);
}
