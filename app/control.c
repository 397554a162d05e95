/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control thread slow path: packets the workers handed over.
 *   ARP         answer requests for our addresses (RFC 826), learn senders
 *               within the rules of lib/neigh (no entry from a request for
 *               someone else, no update from another port or subnet)
 *   unresolved  hold the packet on its neighbour, resolve, forward it when
 *               the answer comes (or drop it, counted, when none does)
 *   local       no local service yet: counted
 * Sends through worker 0 (control_send). Runs the neighbour timers.
 */
#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "arp.h"
#include "ip4.h"
#include "router.h"

#define TICK_MS 20

uint64_t control_now_ms(void)
{
	static uint64_t per_ms;

	if (per_ms == 0)
		per_ms = rte_get_tsc_hz() / 1000;
	return rte_get_tsc_cycles() / per_ms;
}

static void cdrop(struct router *r, struct rte_mbuf *m, enum ctrl_drop why)
{
	r->cst.drop[why]++;
	rte_pktmbuf_free(m);
}

int control_send(struct router *r, struct rte_mbuf *m, uint16_t port)
{
	m->port = port;
	if (rte_ring_enqueue(r->ctrl_tx, m) != 0) {
		cdrop(r, m, CDROP_TX_RING_FULL);
		return -ENOBUFS;
	}
	r->cst.tx++;
	return 0;
}

bool port_owns4(const struct fr_port *p, uint32_t addr)
{
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].addr.family == AF_INET && p->addrs[i].addr.v4 == addr)
			return true;
	return false;
}

uint32_t port_addr4_for(const struct fr_port *p, uint32_t addr)
{
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++) {
		const struct port_addr *pa = &p->addrs[i];
		uint32_t mask = pa->len ? UINT32_MAX << (32 - pa->len) : 0;

		if (pa->addr.family == AF_INET && (pa->addr.v4 & mask) == (addr & mask))
			return pa->addr.v4;
	}
	return 0;
}

/* The first IPv4 address of the port (source of probes off every subnet). */
static uint32_t port_any_addr4(const struct fr_port *p)
{
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].addr.family == AF_INET)
			return p->addrs[i].addr.v4;
	return 0;
}

/* ---- ARP --------------------------------------------------------------- */

static struct rte_mbuf *alloc_for(struct router *r, uint16_t port)
{
	struct rte_mempool *mp = r->pools[r->ports[port].socket];

	return mp ? rte_pktmbuf_alloc(mp) : NULL;
}

/* neigh_ops.probe: an ARP request, broadcast or unicast to @mac */
static void arp_probe(void *arg, const struct neigh_info *ni, const struct rte_ether_addr *mac)
{
	static const struct rte_ether_addr bcast = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
	static const struct rte_ether_addr zero = {{0}};
	struct router *r = arg;
	const struct fr_port *p;
	struct rte_mbuf *m;
	uint32_t spa;
	char *frame;

	if (!router_port_ok(r, ni->port) || ni->addr.family != AF_INET)
		return;
	p = &r->ports[ni->port];
	spa = port_addr4_for(p, ni->addr.v4);
	if (spa == 0)
		spa = port_any_addr4(p);
	m = alloc_for(r, ni->port);
	if (m == NULL) {
		r->cst.drop[CDROP_NO_MBUF]++;
		return;
	}
	frame = rte_pktmbuf_append(m, ARP_FRAME_MIN);
	arp_build(frame, RTE_ARP_OP_REQUEST, mac ? mac : &bcast, &r->dp_ports[ni->port].mac, spa,
		  &zero, ni->addr.v4);
	if (control_send(r, m, ni->port) == 0)
		r->cst.arp_probes++;
}

static void arp_input(struct router *r, struct rte_mbuf *m)
{
	const struct rte_ether_addr *own;
	struct arp_info a;
	enum neigh_learn_kind kind;
	struct fr_addr sender;
	uint16_t port = m->port;
	bool for_us, answer;

	if (!router_port_ok(r, port) ||
	    arp_parse(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_data_len(m), &a) != 0) {
		cdrop(r, m, CDROP_ARP_MALFORMED);
		return;
	}
	own = &r->dp_ports[port].mac;
	for_us = port_owns4(&r->ports[port], a.tpa);
	if (a.op == RTE_ARP_OP_REQUEST)
		r->cst.arp_requests++;
	else
		r->cst.arp_replies++;
	if (arp_is_gratuitous(&a)) {
		r->cst.arp_gratuitous++;
		kind = NEIGH_LEARN_GRATUITOUS;
	} else if (!for_us) {
		kind = NEIGH_LEARN_OTHER;
	} else if (a.op == RTE_ARP_OP_REQUEST) {
		kind = NEIGH_LEARN_REQUEST;
	} else {
		/* a reply must be for us at L2 too */
		kind = rte_is_same_ether_addr(&a.tha, own) ? NEIGH_LEARN_REPLY : NEIGH_LEARN_OTHER;
	}

	/*
	 * Every ARP packet ends as exactly one of: answered, learnt (changed
	 * the table), or dropped with its reason. Learning is only from
	 * senders on one of this port's subnets: an entry on one port is
	 * never made or moved by a packet from elsewhere.
	 */
	sender = fr_addr4(a.spa);
	answer = kind == NEIGH_LEARN_REQUEST;
	if (kind == NEIGH_LEARN_OTHER) {
		cdrop(r, m, CDROP_ARP_NOT_FOR_US);
		return;
	}
	if (port_addr4_for(&r->ports[port], a.spa) == 0) {
		if (!answer) {
			cdrop(r, m, CDROP_ARP_OFF_LINK);
			return;
		}
		r->cst.drop[CDROP_ARP_OFF_LINK]++; /* not learnt, still answered */
	} else if (neigh_learn(r->neigh, &sender, port, &a.sha, kind, control_now_ms()) == 0) {
		if (!answer) {
			cdrop(r, m, CDROP_ARP_IGNORED);
			return;
		}
	} else if (!answer) {
		r->cst.arp_learnt++;
		rte_pktmbuf_free(m);
		return;
	}
	/* answer in place, the frame trimmed or padded to the Ethernet minimum */
	rte_pktmbuf_reset(m);
	if (rte_pktmbuf_append(m, ARP_FRAME_MIN) == NULL) {
		cdrop(r, m, CDROP_NO_MBUF);
		return;
	}
	arp_build(rte_pktmbuf_mtod(m, void *), RTE_ARP_OP_REPLY, &a.sha, own, a.tpa, &a.sha, a.spa);
	if (control_send(r, m, port) == 0)
		r->cst.arp_answered++;
}

/* ---- resolution ----------------------------------------------------------- */

/* neigh_ops.release: a held packet is sent (mac) or dropped (NULL) */
static void held_release(void *arg, const struct neigh_info *ni, void *pkt,
			 const struct rte_ether_addr *mac)
{
	struct router *r = arg;
	struct rte_mbuf *m = pkt;
	struct rte_ether_hdr *eth;

	if (mac == NULL || !router_port_ok(r, ni->port)) {
		/* ICMP host unreachable arrives with the ICMP issue */
		cdrop(r, m, CDROP_NEIGH_FAILED);
		return;
	}
	/* the worker stopped before the rewrite: finish it here */
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip4_ttl_dec((struct rte_ipv4_hdr *)(eth + 1));
	eth->dst_addr = *mac;
	eth->src_addr = r->dp_ports[ni->port].mac;
	if (control_send(r, m, ni->port) == 0)
		r->cst.resolved_fwd++;
}

static void resolve_input(struct router *r, struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct fr_addr dst = fr_addr4(rte_be_to_cpu_32(ip->dst_addr)), nb;
	struct fib_route rt;
	int rc;

	/* the route as it is now (it may have changed since the worker looked) */
	if (fib_route_lookup(r->fib, &dst, &rt) != 0 ||
	    (rt.type != FIB_NH_GATEWAY && rt.type != FIB_NH_CONNECTED)) {
		cdrop(r, m, CDROP_ROUTE_CHANGED);
		return;
	}
	nb = rt.type == FIB_NH_GATEWAY ? rt.gw : dst;
	rc = neigh_resolve(r->neigh, &nb, rt.port, m, control_now_ms());
	switch (rc) {
	case 0:
		break;
	case -EBUSY:
		cdrop(r, m, CDROP_NEIGH_HOLD_FULL);
		break;
	case -ENOBUFS:
		cdrop(r, m, CDROP_NEIGH_HOLD_TOTAL);
		break;
	case -EDQUOT:
		cdrop(r, m, CDROP_NEIGH_INCOMPLETE_CAP);
		break;
	case -EHOSTUNREACH:
		cdrop(r, m, CDROP_NEIGH_FAILED);
		break;
	default:
		cdrop(r, m, CDROP_NEIGH_TABLE_FULL);
		break;
	}
}

void control_init(struct router *r)
{
	struct neigh_ops ops = {.probe = arp_probe, .release = held_release, .arg = r};

	neigh_ops_set(r->neigh, &ops);
}

void control_input(struct router *r, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		r->cst.rx++;
		switch (dp_ctrl_reason(m)) {
		case CTRL_ARP:
			arp_input(r, m);
			break;
		case CTRL_RESOLVE:
			resolve_input(r, m);
			break;
		case CTRL_LOCAL:
		default:
			cdrop(r, m, CDROP_LOCAL_UNHANDLED);
			break;
		}
	}
}

unsigned int control_poll(struct router *r)
{
	struct rte_mbuf *pkts[DP_BURST];
	unsigned int w, n, rounds, work = 0;
	uint64_t now = control_now_ms();

	for (w = 0; w < r->nb_workers; w++) {
		/* bounded: the CLI must keep getting turns under a flood */
		for (rounds = 0; rounds < 8; rounds++) {
			n = rte_ring_dequeue_burst(r->workers[w]->to_ctrl, (void **)pkts, DP_BURST,
						   NULL);
			if (n == 0)
				break;
			control_input(r, pkts, n);
			work += n;
		}
	}
	if (now >= r->next_tick_ms) {
		neigh_tick(r->neigh, now);
		r->next_tick_ms = now + TICK_MS;
	}
	fib_reclaim(r->fib);
	neigh_reclaim(r->neigh);
	return work;
}
