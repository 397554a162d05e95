/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control thread slow path: packets the workers handed over.
 *   ARP         answer requests for our addresses (RFC 826), learn senders
 *               within the rules of lib/neigh (no entry from a request for
 *               someone else, no update from another port or subnet)
 *   unresolved  hold the packet on its neighbour, resolve, forward it when
 *               the answer comes (or drop it with ICMP host unreachable)
 *   errors      ICMP errors about packets the workers dropped (icmp.c)
 *   fragment    split packets larger than the egress MTU (DF clear)
 *   local       echo replies, port/protocol unreachable (icmp.c)
 * Sends through worker 0 (control_send). Runs the neighbour timers.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>

#include "arp.h"
#include "control6.h"
#include "icmp.h"
#include "ip4.h"
#include "ip4_frag.h"
#include "ip4_opts.h"
#include "ip6.h"
#include "reasm.h"
#include "router.h"
#include "sd_notify.h"

#define TICK_MS	     20
#define LINK_POLL_MS 100

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

/* Out of service: its link down, or 'port N down' (what the workers read). */
bool port_is_down(const struct router *r, uint16_t port)
{
	return port < FR_MAX_PORTS && __atomic_load_n(&r->dp_ports[port].down, __ATOMIC_RELAXED);
}

int control_send(struct router *r, struct rte_mbuf *m, uint16_t port)
{
	m->port = port;
	/* a port out of service sends nothing: refused here, so that what
	 * is counted as sent (an answer, a probe, an ICMP message) was at
	 * least queued for a port that is up */
	if (port_is_down(r, port)) {
		cdrop(r, m, CDROP_PORT_DOWN);
		return -ENETDOWN;
	}
	/* its last quarter is for ARP and ND (fr_ring_reserve()) */
	if (rte_ring_free_count(r->ctrl_tx) <= fr_ring_reserve(r->ctrl_tx) && !frame_neigh(m)) {
		cdrop(r, m, CDROP_TX_RING_RESERVED);
		return -ENOBUFS;
	}
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

int router_mac_port(const struct router *r, const struct rte_ether_addr *mac)
{
	uint16_t pid;

	for (pid = 0; pid < r->nb_ports; pid++)
		if (r->ports[pid].present && rte_is_same_ether_addr(&r->dp_ports[pid].mac, mac))
			return pid;
	return -1;
}

bool router_owns4(const struct router *r, uint32_t addr)
{
	uint16_t pid;

	for (pid = 0; pid < r->nb_ports; pid++)
		if (r->ports[pid].present && port_owns4(&r->ports[pid], addr))
			return true;
	return false;
}

bool router_owns4_cb(const void *r, uint32_t addr)
{
	return router_owns4(r, addr);
}

uint32_t router_addr4_toward(const struct router *r, uint16_t port, uint32_t nb, bool on_link)
{
	uint32_t a = port_addr4_for(&r->ports[port], nb);

	if (a == 0)
		a = port_any_addr4(&r->ports[port]);
	if (a == 0)
		a = router_any_addr4(r);
	if (ip4_is_link_local(a) && (!on_link || !port_owns4(&r->ports[port], a)))
		a = router_routable_addr4(r, port);
	return a;
}

uint32_t port_addr4_for(const struct fr_port *p, uint32_t addr)
{
	return port_addr4_shared(p, addr, addr);
}

uint32_t port_addr4_shared(const struct fr_port *p, uint32_t a, uint32_t b)
{
	const struct port_addr *best = NULL;
	unsigned int i;
	uint32_t mask;

	/* @a's own subnet: the longest of the port's that holds it (a /31
	 * inside a /24 of the same port is its link, not the /24) */
	for (i = 0; i < p->nb_addrs; i++) {
		const struct port_addr *pa = &p->addrs[i];

		if (pa->addr.family != AF_INET || (best != NULL && pa->len <= best->len))
			continue;
		mask = pa->len ? UINT32_MAX << (32 - pa->len) : 0;
		if ((pa->addr.v4 & mask) == (a & mask))
			best = pa;
	}
	if (best == NULL)
		return 0;
	mask = best->len ? UINT32_MAX << (32 - best->len) : 0;
	return (best->addr.v4 & mask) == (b & mask) ? best->addr.v4 : 0;
}

int port_subnet_edge4(const struct fr_port *p, uint32_t a)
{
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++) {
		const struct port_addr *pa = &p->addrs[i];
		uint32_t mask;

		if (pa->addr.family != AF_INET || pa->len == 0 || pa->len > 30)
			continue;
		mask = UINT32_MAX << (32 - pa->len);
		if (a == (pa->addr.v4 & mask))
			return 1;
		if (a == (pa->addr.v4 | ~mask))
			return 2;
	}
	return 0;
}

/* The first IPv4 address of @p, with @routable the first outside
 * 169.254/16 (one that may leave its link); 0 if none. */
static uint32_t port_first_addr4(const struct fr_port *p, bool routable)
{
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].addr.family == AF_INET &&
		    !(routable && ip4_is_link_local(p->addrs[i].addr.v4)))
			return p->addrs[i].addr.v4;
	return 0;
}

/* The same of the lowest-numbered port that has one, or 0. */
static uint32_t router_first_addr4(const struct router *r, bool routable)
{
	uint16_t pid;
	uint32_t a;

	for (pid = 0; pid < r->nb_ports; pid++)
		if (r->ports[pid].present && (a = port_first_addr4(&r->ports[pid], routable)) != 0)
			return a;
	return 0;
}

/* The first IPv4 address of the port (source of probes off every subnet). */
uint32_t port_any_addr4(const struct fr_port *p)
{
	return port_first_addr4(p, false);
}

/* The router's own IPv4 address for a port without one (RFC 1812 4.3.2.4:
 * its router-id): the first of the lowest-numbered port that has one, or 0. */
uint32_t router_any_addr4(const struct router *r)
{
	return router_first_addr4(r, false);
}

uint32_t router_routable_addr4(const struct router *r, uint16_t port)
{
	uint32_t a = port_first_addr4(&r->ports[port], true);

	return a != 0 ? a : router_first_addr4(r, true);
}

/* The first IPv6 (global) address of the port, or NULL. */
const uint8_t *port_any_addr6(const struct fr_port *p)
{
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].addr.family == AF_INET6)
			return p->addrs[i].addr.v6;
	return NULL;
}

bool port_speaks6(const struct fr_port *p)
{
	return p->ll_used || port_any_addr6(p) != NULL;
}

/*
 * A line on stdout from the control thread, never waiting for it: written
 * now if stdout takes it (a terminal stopped with Ctrl-S, a slow session
 * or a full pipe takes nothing), else lost; what is said is counted too
 * (link changes, conflicts). What stdio still holds of the start's lines
 * goes first, in order (once the router runs, every message comes through
 * here: stdio holds nothing then, and the flush writes nothing).
 */
void router_say(const char *fmt, ...)
{
	struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = (int)sizeof(buf) - 1;
	fflush(stdout);
	if (poll(&p, 1, 0) == 1 && (p.revents & POLLOUT))
		(void)!write(STDOUT_FILENO, buf, (size_t)n);
}

/* ---- ARP --------------------------------------------------------------- */

void router_say_conflict(struct router *r, uint16_t port, const struct rte_ether_addr *mac,
			 const struct fr_addr *ours, const char *proto)
{
	uint64_t now = control_now_ms();
	const uint8_t *b = mac->addr_bytes;
	char ip[FR_ADDR_STRLEN];

	if (r->conflict_said_ms != 0 && now - r->conflict_said_ms < 10000)
		return;
	router_say("fastroute: port %u: %02x:%02x:%02x:%02x:%02x:%02x claims our address %s (%s): "
		   "address conflict\n",
		   port, b[0], b[1], b[2], b[3], b[4], b[5], fr_addr_fmt(ours, ip, sizeof(ip)),
		   proto);
	r->conflict_said_ms = now;
}

struct rte_mbuf *control_alloc(struct router *r, uint16_t port)
{
	struct rte_mempool *mp = r->pools[r->ports[port].socket];

	return mp ? rte_pktmbuf_alloc(mp) : NULL;
}

char *control_frame(struct router *r, uint16_t port, uint16_t len, struct rte_mbuf **mp)
{
	struct rte_mbuf *m = control_alloc(r, port);
	char *frame = m ? rte_pktmbuf_append(m, len) : NULL;

	if (frame == NULL) {
		rte_pktmbuf_free(m);
		r->cst.drop[CDROP_NO_MBUF]++;
		m = NULL;
	}
	*mp = m;
	return frame;
}

static const struct rte_ether_addr eth_bcast = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};

/* Where an ARP frame from our @spa goes: @eth_dst, or the broadcast when
 * @spa is in 169.254/16 (RFC 3927 2.5: every ARP packet from such an
 * address, replies and unicast probes too, is a link-layer broadcast, so
 * that each host there sees a conflict with its own address). */
static const struct rte_ether_addr *arp_eth_dst(uint32_t spa, const struct rte_ether_addr *eth_dst)
{
	return ip4_is_link_local(spa) ? &eth_bcast : eth_dst;
}

/* An ARP request on @port to @eth_dst from our @spa for @tpa. True: queued. */
static bool arp_request(struct router *r, uint16_t port, const struct rte_ether_addr *eth_dst,
			uint32_t spa, uint32_t tpa)
{
	static const struct rte_ether_addr zero = {{0}};
	struct rte_mbuf *m;
	char *frame = control_frame(r, port, ARP_FRAME_MIN, &m);

	if (frame == NULL)
		return false;
	arp_build(frame, RTE_ARP_OP_REQUEST, arp_eth_dst(spa, eth_dst), &r->dp_ports[port].mac, spa,
		  &zero, tpa);
	return control_send(r, m, port) == 0;
}

/* neigh_ops.probe: an ARP request, broadcast or unicast to @mac */
static void arp_probe(void *arg, const struct neigh_info *ni, const struct rte_ether_addr *mac)
{
	struct router *r = arg;
	const struct fr_port *p;
	uint32_t spa;

	if (ni->addr.family == AF_INET6) {
		nd_probe(r, ni, mac);
		return;
	}
	if (!router_port_ok(r, ni->port) || ni->addr.family != AF_INET)
		return;
	p = &r->ports[ni->port];
	spa = port_addr4_for(p, ni->addr.v4);
	if (spa == 0)
		spa = port_any_addr4(p);
	/* a port without an IPv4 address ('dev N' routes only): asked from
	 * 0.0.0.0, the host answers to 0.0.0.0, which names nobody; asked
	 * from another port's address (as ICMP errors leave, RFC 1812
	 * 4.3.2.4), its answer names the router (arp_input() takes it) */
	if (spa == 0)
		spa = router_any_addr4(r);
	if (arp_request(r, ni->port, mac ? mac : &eth_bcast, spa, ni->addr.v4))
		r->cst.arp_probes++;
}

/* A gratuitous ARP (an ARP announcement, RFC 5227 2.3: a request, sender
 * and target address both ours, broadcast) or an unsolicited NA for our @a
 * on @port. */
static bool announce_one(struct router *r, uint16_t port, const struct fr_addr *a)
{
	if (!(a->family == AF_INET ? arp_request(r, port, &eth_bcast, a->v4, a->v4)
				   : nd_announce(r, port, a->v6)))
		return false;
	r->cst.addr_announced++;
	return true;
}

/* Announcements go out: the router runs (its pools and rings exist: a
 * configuration applied at start is announced once each link is up) and
 * the port is in service. */
static bool can_announce(const struct router *r, uint16_t port)
{
	return r->running && router_port_ok(r, port) && r->ports[port].started &&
	       !port_is_down(r, port);
}

/* RFC 5227 2.3: ANNOUNCE_NUM announcements, ANNOUNCE_INTERVAL apart */
#define ANNOUNCE_AGAIN_MS 2000

static void announce(struct router *r, uint16_t port, const struct fr_addr *only)
{
	struct fr_port *p = &r->ports[port];
	struct fr_addr ll = {.family = AF_INET6};
	unsigned int i;

	/* the groups ND needs first (RFC 3810 5.2.13, RFC 4862 5.4.2: before
	 * a probe for a new address) */
	if (only == NULL || only->family == AF_INET6)
		mld_report(r, port);
	if (only != NULL) {
		announce_one(r, port, only);
		return;
	}
	/* back in service: what detection found another host's before it
	 * went out is tried again (the other host may be gone) */
	dad_retry_failed(r, port);
	/* an IPv6 address is announced once duplicate address detection
	 * kept it (dad_due() announces it then); one not probed yet is now */
	for (i = 0; i < p->nb_addrs; i++) {
		struct port_addr *pa = &p->addrs[i];

		if (pa->addr.family == AF_INET6 &&
		    !dad_ready(r, port, pa->addr.v6, &pa->dad, &pa->dad_wait))
			continue;
		announce_one(r, port, &pa->addr);
	}
	/* the link-local address, when the port speaks IPv6 */
	if (port_speaks6(p) &&
	    dad_ready(r, port, r->dp_ports[port].ll6, &p->ll_dad, &p->ll_dad_wait)) {
		memcpy(ll.v6, r->dp_ports[port].ll6, 16);
		announce_one(r, port, &ll);
	}
}

void ll_in_use(struct router *r, uint16_t port)
{
	struct fr_port *p = &r->ports[port];
	const bool first = !port_speaks6(p);

	p->ll_used = true;
	/* out of service: announce() does it once the port is in service */
	if (!first || !can_announce(r, port))
		return;
	mld_report(r, port);
	p->ll_mld_again = true;
	/* kept already (the port spoke IPv6 before, by an address since
	 * deleted): no probe's end to report again at */
	if (dad_ready(r, port, r->dp_ports[port].ll6, &p->ll_dad, &p->ll_dad_wait)) {
		p->ll_mld_again = false;
		mld_report_again(r, port);
	}
}

void router_announce(struct router *r, uint16_t port, const struct fr_addr *only)
{
	struct fr_port *p = &r->ports[port];

	if (!can_announce(r, port))
		return;
	announce(r, port, only);
	p->announce_again_ms = control_now_ms() + ANNOUNCE_AGAIN_MS;
}

void router_addrs_gone(struct router *r, uint16_t port, const struct port_addr *gone,
		       unsigned int n)
{
	if (n > 0 && can_announce(r, port))
		mld_leave(r, port, gone, n);
}

void router_announce_due(struct router *r, uint64_t now)
{
	uint16_t port;

	for (port = 0; port < r->nb_ports; port++) {
		struct fr_port *p = &r->ports[port];

		if (can_announce(r, port)) {
			dad_due(r, port, now);
			mld_leave_due(r, port, now);
			mld_answer_due(r, port, now);
			mld_again_due(r, port, now);
			ra_due(r, port, now);
		} else {
			/* out of service: its reports start over once back */
			mld_cancel(p);
		}
		if (p->announce_again_ms == 0 || now < p->announce_again_ms)
			continue;
		p->announce_again_ms = 0;
		/* a link that went down meanwhile announces again when it
		 * comes up */
		if (can_announce(r, port))
			announce(r, port, NULL);
	}
}

/* When @port's address @a was last defended: its own clock, so that a
 * claim on one address holds back no other's; NULL when @a is not one. */
static uint64_t *defended_at(struct router *r, uint16_t port, const struct fr_addr *a)
{
	struct fr_port *p = &r->ports[port];
	unsigned int i;

	if (a->family == AF_INET6 && memcmp(r->dp_ports[port].ll6, a->v6, 16) == 0)
		return &p->ll_defended_ms;
	for (i = 0; i < p->nb_addrs; i++)
		if (fr_addr_eq(&p->addrs[i].addr, a))
			return &p->addrs[i].defended_ms;
	return NULL;
}

void router_defend(struct router *r, uint16_t port, const struct fr_addr *ours)
{
	struct fr_port *p = &r->ports[port];
	uint64_t now = control_now_ms(), *last;

	/* only an address of this link's: another port's is not this
	 * link's to claim back (the conflict is counted all the same) */
	if (!can_announce(r, port) ||
	    !(ours->family == AF_INET ? port_owns4(p, ours->v4) : port_owns6(r, port, ours->v6)))
		return;
	last = defended_at(r, port, ours);
	/* RFC 5227 2.4 (b): one announcement, then none for 10 s, address
	 * by address */
	if (last == NULL || (*last != 0 && now - *last < 10000))
		return;
	if (!announce_one(r, port, ours))
		return;
	*last = now;
	r->cst.addr_defended++;
}

/*
 * IPv4 address @tpa is port @port's to answer a request from @spa for: one
 * of its own; or, on a port with none (unnumbered), the one it borrows,
 * whose ARP requests and ICMP errors name the router there (arp_probe()),
 * to a host of that link: one the router routes back out of the port (a
 * 'dev N' route's, a gateway's there) or has an entry for on it. Its
 * hosts know the router by that address and must resolve it (Linux
 * answers too); any other asker is not the link's, and the address may
 * be someone else's on it.
 */
static bool port_answers4(const struct router *r, uint16_t port, uint32_t tpa, uint32_t spa)
{
	const struct fr_port *p = &r->ports[port];
	const struct fr_addr sender = fr_addr4(spa);
	struct fib_route rt;

	if (port_owns4(p, tpa))
		return true;
	if (tpa == 0 || spa == 0 || port_any_addr4(p) != 0 || tpa != router_any_addr4(r))
		return false;
	if (neigh_find(r->neigh, &sender, port) != NEIGH_IDX_NONE)
		return true;
	return fib_route_lookup(r->fib, &sender, &rt) == 0 && rt.port == port &&
	       (rt.type == FIB_NH_CONNECTED || rt.type == FIB_NH_GATEWAY);
}

static void arp_input(struct router *r, struct rte_mbuf *m)
{
	const struct rte_ether_addr *own;
	struct arp_info a;
	enum neigh_learn_kind kind;
	struct fr_addr sender;
	uint16_t port = m->port;
	bool for_us, answer, off_link;

	if (!router_port_ok(r, port)) {
		/* came in as its port went out of service */
		cdrop(r, m, CDROP_PORT_DOWN);
		return;
	}
	if (arp_parse(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_data_len(m), &a) != 0) {
		cdrop(r, m, CDROP_ARP_MALFORMED);
		return;
	}
	own = &r->dp_ports[port].mac;
	if (a.op == RTE_ARP_OP_REQUEST)
		r->cst.arp_requests++;
	else
		r->cst.arp_replies++;
	if (a.spa != 0 && router_owns4(r, a.spa) && !router_mac(r, &a.sha)) {
		/* another host uses one of our addresses (RFC 5227 address
		 * conflict): nothing is learnt or answered for it; said at
		 * most every 10 s, counted always */
		struct fr_addr ours = fr_addr4(a.spa);

		router_say_conflict(r, port, &a.sha, &ours, "ARP");
		router_defend(r, port, &ours);
		cdrop(r, m, CDROP_ARP_CONFLICT);
		return;
	}
	/* a request asks for this port's address; a reply answers what the
	 * router asked, maybe from another port's address (arp_probe()) */
	for_us = a.op == RTE_ARP_OP_REPLY ? router_owns4(r, a.tpa)
					  : port_answers4(r, port, a.tpa, a.spa);
	/* a sender no host can be (0.0.0.0 is a probe's, RFC 5227): neither
	 * learnt nor answered (an answer would go to whoever forged it,
	 * about an address that is a broadcast on this subnet). The
	 * martian ranges only while the martian checks are on: with them
	 * off (set ip martians off) the data path forwards to and from
	 * them, and their hosts must be resolved */
	if (a.spa != 0 && ((r->dpconf.martians && ip4_martian_src(a.spa)) ||
			   port_subnet_edge4(&r->ports[port], a.spa) != 0)) {
		cdrop(r, m, CDROP_ARP_BAD_SENDER);
		return;
	}
	if (arp_is_gratuitous(&a)) {
		r->cst.arp_gratuitous++;
		kind = NEIGH_LEARN_GRATUITOUS;
	} else if (!for_us) {
		kind = NEIGH_LEARN_OTHER;
	} else if (a.op == RTE_ARP_OP_REQUEST) {
		kind = NEIGH_LEARN_REQUEST;
	} else {
		/* a reply must be for us at L2 too: to our MAC, or to none
		 * (zero or broadcast, as some devices fill it; RFC 826 reads
		 * no target hardware address, nor does Linux); one naming
		 * another station is that station's */
		const bool to_us = rte_is_same_ether_addr(&a.tha, own) ||
				   rte_is_zero_ether_addr(&a.tha) ||
				   rte_is_broadcast_ether_addr(&a.tha);

		/* in a frame to a group, a reply any station could send
		 * unasked proves no two-way reachability (RFC 4861 7.3.1):
		 * its MAC is taken as from a merge, STALE (Linux: replies
		 * not to its own MAC), never confirming an entry */
		if (!to_us)
			kind = NEIGH_LEARN_OTHER;
		else if (rte_is_same_ether_addr(&a.eth_dst, own))
			kind = NEIGH_LEARN_ARP_REPLY;
		else
			kind = NEIGH_LEARN_ARP_MERGE;
	}

	/* a sender whose hardware address is one of the router's own (forged,
	 * or a port's frame on another's link, its request for another host
	 * too): an entry would send its traffic back into the router, round
	 * until its TTL ran out */
	if (a.spa != 0 && router_mac(r, &a.sha)) {
		cdrop(r, m, CDROP_ARP_BAD_SENDER);
		return;
	}

	/*
	 * Every ARP packet ends as exactly one of: answered, learnt (changed
	 * the table), or dropped with its reason. Learning is only from
	 * senders on one of this port's subnets, or that the port already has
	 * an entry for: an entry on one port is never made or moved by a
	 * packet from elsewhere.
	 */
	sender = fr_addr4(a.spa);
	answer = kind == NEIGH_LEARN_REQUEST;
	if (kind == NEIGH_LEARN_OTHER) {
		/* RFC 826's merge: a sender the port has an entry for is
		 * updated by its request for another host, or its reply to
		 * one, as by an announcement (a host that moved to a new MAC,
		 * a failover that announced nothing, would otherwise lose its
		 * traffic until the entry's timers ran out), but not within
		 * the lock time of the entry's last update, as a reply;
		 * nothing is created */
		if (a.spa != 0 && neigh_find(r->neigh, &sender, port) != NEIGH_IDX_NONE &&
		    neigh_learn(r->neigh, &sender, port, &a.sha, NEIGH_LEARN_ARP_MERGE,
				control_now_ms()) != 0) {
			r->cst.arp_learnt++;
			rte_pktmbuf_free(m);
			return;
		}
		cdrop(r, m, CDROP_ARP_NOT_FOR_US);
		return;
	}
	/* a probe (RFC 5227 2.1.1: sender 0.0.0.0) is from no address at all */
	off_link = a.spa != 0 && port_addr4_for(&r->ports[port], a.spa) == 0;
	/* a neighbour the configuration puts on this port off its subnets
	 * ('via GW port N', a 'dev N' route's hosts) exists once resolved: its
	 * answers are learnt as an on-link one's */
	if (off_link && neigh_find(r->neigh, &sender, port) != NEIGH_IDX_NONE)
		off_link = false;
	if (off_link) {
		if (!answer) {
			cdrop(r, m, CDROP_ARP_OFF_LINK);
			return;
		}
		/* not learnt, still answered (counted once sent, below) */
	} else if (a.spa == 0) {
		/* a probe for our address: answered (to its sender's MAC, the
		 * prober then knows it taken), nothing to learn */
		if (!answer) {
			cdrop(r, m, CDROP_ARP_IGNORED);
			return;
		}
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
	/* to the sender's hardware address: a host's, never a group or zero
	 * (a forged one would make the router reflect to the whole link;
	 * nothing was learnt from it, neigh_learn() refuses it) */
	if (!rte_is_valid_assigned_ether_addr(&a.sha)) {
		cdrop(r, m, CDROP_ARP_MALFORMED);
		return;
	}
	/* answer in place, the frame trimmed or padded to the Ethernet minimum */
	control_reuse(m);
	if (rte_pktmbuf_append(m, ARP_FRAME_MIN) == NULL) {
		cdrop(r, m, CDROP_NO_MBUF);
		return;
	}
	arp_build(rte_pktmbuf_mtod(m, void *), RTE_ARP_OP_REPLY, arp_eth_dst(a.tpa, &a.sha), own,
		  a.tpa, &a.sha, a.spa);
	if (control_send(r, m, port) == 0) {
		r->cst.arp_answered++;
		if (off_link)
			r->cst.arp_off_link_answered++;
	}
}

/* ---- resolution ----------------------------------------------------------- */

/* Send a rewritten frame on @port in pieces that fit its MTU. Consumes @m.
 * Returns how many pieces were handed to the port. */
static int fragment_send(struct router *r, struct rte_mbuf *m, uint16_t port)
{
	struct rte_mbuf *frags[64];
	int n;

	n = ip4_fragment(m, r->dp_ports[port].mtu, r->pools[r->ports[port].socket], frags,
			 RTE_DIM(frags));
	rte_pktmbuf_free(m);
	return control_send_train(r, frags, n, port);
}

int control_send_train(struct router *r, struct rte_mbuf **frags, int n, uint16_t port)
{
	enum ctrl_drop why = CDROP_MAX;
	unsigned int room;
	int i, sent = 0;

	if (n < 0) {
		/* out of mbufs is the pool's, not the packet's (-E2BIG: more
		 * pieces than a train holds; -EINVAL: options that do not
		 * fit, data past offset 65,535, a frame cut short) */
		r->cst.drop[n == -ENOBUFS ? CDROP_NO_MBUF : CDROP_FRAG_FAILED]++;
		return 0;
	}
	/* all the fragments or none: a train the ring cuts short can never
	 * be reassembled, and would only take the link. Refused, it is one
	 * packet dropped, counted once under its reason, as control_send()
	 * would count the packet whole: its port down, the ring full, or
	 * down to the last quarter kept for ARP and ND. */
	room = rte_ring_free_count(r->ctrl_tx);
	if (port_is_down(r, port))
		why = CDROP_PORT_DOWN;
	else if (room < (unsigned int)n)
		why = CDROP_TX_RING_FULL;
	else if (room < (unsigned int)n + fr_ring_reserve(r->ctrl_tx))
		why = CDROP_TX_RING_RESERVED;
	if (why != CDROP_MAX) {
		rte_pktmbuf_free_bulk(frags, (unsigned int)n);
		r->cst.drop[why]++;
		return 0;
	}
	for (i = 0; i < n; i++)
		if (control_send(r, frags[i], port) == 0) {
			r->cst.fragments++;
			sent++;
		}
	if (sent > 0)
		r->cst.fragmented++;
	return sent;
}

/*
 * A forwarded packet's Record Route and Timestamp options filled in
 * (ip4_options_fill()), as it leaves by @port towards @nb (host order: its
 * next hop, which picks the port's address when the port has several; 0:
 * the route's, looked up only when there is something to fill): the
 * address recorded is the port's (RFC 791: as known where the packet goes),
 * or, on an unnumbered port, another of the router's, as for ICMP errors.
 */
static void options_fill(struct router *r, struct rte_mbuf *m, uint16_t port, uint32_t nb)
{
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);

	if (ip->version_ihl == 0x45 || !ip4_options_to_fill(ip))
		return;
	if (nb == 0) {
		struct fr_addr dst = fr_addr4(rte_be_to_cpu_32(ip->dst_addr));
		struct fr_addr src = fr_addr4(rte_be_to_cpu_32(ip->src_addr));
		struct fib_route rt;

		nb = dst.v4;
		if (fib_route_lookup_flow(r->fib, &dst, &src, router_flow_l4(r, m), &rt) == 0 &&
		    rt.type == FIB_NH_GATEWAY && rt.port == port)
			nb = rt.gw.v4;
	}
	if (ip4_options_fill(ip, router_addr4_toward(r, port, nb, true), ip4_ts_now(),
			     router_owns4_cb, r) != 0)
		r->cst.options_filled++;
}

/*
 * A forwarded packet (@forwarded) or one of the router's own, too big for
 * @port with DF set: counted, refused with 3/4 if forwarded and the rate
 * allows, quoting its header as it arrived. Consumes @m.
 */
static void refuse_too_big(struct router *r, struct rte_mbuf *m, uint16_t port, bool forwarded)
{
	if (forwarded)
		ctrl_drop_error(r, m, CDROP_TOO_BIG, 3, 4, r->dp_ports[port].mtu);
	else
		cdrop(r, m, CDROP_TOO_BIG);
}

/* Finish an IPv4 frame for @port and @mac and send it: the TTL of a
 * forwarded packet, the MAC addresses, the MTU. Consumes @m. */
static void send_ip(struct router *r, struct rte_mbuf *m, uint16_t port, uint32_t nb,
		    const struct rte_ether_addr *mac, bool forwarded)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	bool big = rte_be_to_cpu_16(ip->total_length) > r->dp_ports[port].mtu;
	/* read now: once sent, @m belongs to a worker */
	const bool icmp = !forwarded && dp_ctrl_aux(m) == CTRL_ORIG_ICMP;
	const bool rst = !forwarded && dp_ctrl_aux(m) == CTRL_ORIG_TCP_RST;
	const uint8_t type = dp_ctrl_icmp_type(m), code = dp_ctrl_icmp_code(m);

	if (big && (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_DF_FLAG))) {
		/* too big for its port: as the worker would, counted and
		 * refused with 3/4, quoting the header as it arrived (TTL
		 * not yet spent) */
		refuse_too_big(r, m, port, forwarded);
		return;
	}
	if (forwarded) {
		ip4_ttl_dec(ip);
		options_fill(r, m, port, nb);
	}
	eth->dst_addr = *mac;
	eth->src_addr = r->dp_ports[port].mac;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	if (big) {
		if (fragment_send(r, m, port) == 0)
			return;
		if (forwarded)
			r->cst.resolved_fwd++;
		else if (icmp)
			icmp_count_sent(r, type, code);
		else if (rst)
			r->cst.tcp_resets++;
		return;
	}
	if (control_send(r, m, port) != 0)
		return;
	if (forwarded)
		r->cst.resolved_fwd++;
	else if (icmp)
		icmp_count_sent(r, type, code);
	else if (rst)
		r->cst.tcp_resets++;
}

void ctrl_drop_error(struct router *r, struct rte_mbuf *m, enum ctrl_drop why, uint8_t type,
		     uint8_t code, uint32_t aux)
{
	const bool v6 = frame_is_ip6(m);

	r->cst.drop[why]++;
	/* a too big's token bucket is its own, as the workers' (icmp_token()) */
	if (!icmp_ctrl_error_due(r, m, type, code, v6 ? type == 2 : type == 3 && code == 4))
		rte_pktmbuf_free(m);
	else if (v6)
		icmp6_error(r, m, type, code, aux);
	else
		icmp_error(r, m, type, code, aux);
}

void host_unreachable(struct router *r, struct rte_mbuf *m, bool forwarded, enum ctrl_drop why)
{
	if (!forwarded)
		cdrop(r, m, why);
	else if (frame_is_ip6(m))
		ctrl_drop_error(r, m, why, 1, 3, 0);
	else
		ctrl_drop_error(r, m, why, 3, 1, 0);
}

static void resolve_input(struct router *r, struct rte_mbuf *m);

void route_changed(struct router *r, struct rte_mbuf *m, int type)
{
	const bool v6 = frame_is_ip6(m);
	uint8_t code = 0; /* no route, or an unreachable one */

	switch (type) {
	case FIB_NH_LOCAL:
		/* as control_input() takes one for the router */
		if (port_is_down(r, m->port))
			cdrop(r, m, CDROP_PORT_DOWN);
		else if (v6)
			local_input6(r, m);
		else
			local_input(r, m);
		return;
	case FIB_NH_BLACKHOLE:
	case FIB_NH_BROADCAST:
		cdrop(r, m, CDROP_ROUTE_CHANGED);
		return;
	case FIB_NH_PROHIBIT:
		code = v6 ? 1 : 13;
		break;
	default:
		break;
	}
	/* RFC 1812 5.2.7.1, RFC 4443 3.1, as not_forwarded() says them */
	ctrl_drop_error(r, m, CDROP_ROUTE_CHANGED, v6 ? 1 : 3, code, 0);
}

uint32_t router_flow_l4(const struct router *r, const struct rte_mbuf *m)
{
	const void *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	uint32_t len = rte_pktmbuf_data_len(m);

	if (!r->dpconf.mp_hash_l4 || len <= RTE_ETHER_HDR_LEN)
		return 0;
	len -= RTE_ETHER_HDR_LEN;
	return (*(const uint8_t *)ip >> 4) == 6 ? ip6_flow_ports(ip, len) : ip4_flow_ports(ip, len);
}

/* @m, held for neighbour @ni, would still go to it by the routes as they
 * are now (control_output()'s and resolve_input()'s choice). */
static bool held_route_holds(struct router *r, const struct rte_mbuf *m,
			     const struct neigh_info *ni)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	struct fr_addr dst = fr_addr4(rte_be_to_cpu_32(ip->dst_addr));
	struct fr_addr src = fr_addr4(rte_be_to_cpu_32(ip->src_addr));
	struct fib_route rt;
	const bool own = dp_ctrl_reason(m) == CTRL_ORIGINATED;

	/* a multipath route's gateway as it was chosen: for the flow by the
	 * worker, with no flow hash for the router's own packets
	 * (control_output()); another choice here would count a packet
	 * rerouted and send it to the very neighbour it waited for */
	if (fib_route_lookup_flow(r->fib, &dst, own ? NULL : &src, own ? 0 : router_flow_l4(r, m),
				  &rt) != 0 ||
	    (rt.type != FIB_NH_GATEWAY && rt.type != FIB_NH_CONNECTED) || rt.port != ni->port)
		return false;
	return fr_addr_eq(rt.type == FIB_NH_GATEWAY ? &rt.gw : &dst, &ni->addr);
}

/* neigh_ops.release: a held packet is sent to @mac; without one (NULL), or
 * for a port out of service, dropped with its reason; by another route
 * when the routes changed while it waited, whatever became of its
 * neighbour */
static void held_release(void *arg, const struct neigh_info *ni, void *pkt,
			 const struct rte_ether_addr *mac)
{
	struct router *r = arg;
	struct rte_mbuf *m = pkt;
	bool forwarded = dp_ctrl_reason(m) != CTRL_ORIGINATED;

	/* a route changed while the packet waited (replaced, deleted, a
	 * more specific one, a blackhole over it): it goes where the routes
	 * say now, held again or dropped as route_changed, never to the
	 * neighbour it waited for, nor answered host unreachable when that
	 * one failed, went away or its port went out of service */
	if (!(ni->addr.family == AF_INET6 ? held_route_holds6(r, m, ni)
					  : held_route_holds(r, m, ni))) {
		r->cst.held_rerouted++;
		if (ni->addr.family == AF_INET6) {
			if (forwarded)
				resolve_input6(r, m);
			else
				control_output6(r, m, ni->port);
		} else if (forwarded) {
			resolve_input(r, m);
		} else {
			control_output(r, m);
		}
		return;
	}
	/* its port went out of service while it waited (its entry forgotten
	 * then): refused as the workers refuse a down port's traffic */
	if (port_is_down(r, ni->port)) {
		host_unreachable(r, m, forwarded, CDROP_PORT_DOWN);
		return;
	}
	if (mac == NULL && ni->state != NEIGH_S_FAILED) {
		/* its entry went away ('neigh del'): not the neighbour's
		 * silence; dropped, no error said */
		cdrop(r, m, CDROP_NEIGH_FLUSHED);
		return;
	}
	if (mac == NULL || !router_port_ok(r, ni->port)) {
		/* RFC 1812 4.3.3.1 (host unreachable), RFC 4443 3.1 (address
		 * unreachable) for what we could not deliver */
		host_unreachable(r, m, forwarded, CDROP_NEIGH_FAILED);
		return;
	}
	/* the neighbour's family is the packet's */
	if (ni->addr.family == AF_INET6)
		send_ip6(r, m, ni->port, mac, forwarded);
	else
		send_ip(r, m, ni->port, ni->addr.v4, mac, forwarded);
}

/* Hold @m on neighbour @nb of @port, or drop it with the reason. */
void control_resolve(struct router *r, struct rte_mbuf *m, const struct fr_addr *nb, uint16_t port)
{
	void *old = NULL;

	/* a port out of service resolves nothing: no entry made, no probe
	 * refused on the way out (probes a neighbour would count as
	 * unanswered, to find it FAILED when the port is back) */
	if (port_is_down(r, port)) {
		host_unreachable(r, m, dp_ctrl_reason(m) != CTRL_ORIGINATED, CDROP_PORT_DOWN);
		return;
	}
	/* a chain counts each of its mbufs against hold-total: an echo
	 * reply to a datagram reassembled from tiny fragments is one mbuf
	 * a fragment, and would otherwise take the pool's RX mbufs */
	switch (neigh_resolve_bufs(r->neigh, nb, port, m, m->nb_segs, control_now_ms(), &old)) {
	case 0:
		break;
	case 1:
		/* held; the neighbour's oldest held packet made room */
		cdrop(r, old, CDROP_NEIGH_HOLD_FULL);
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
		host_unreachable(r, m, dp_ctrl_reason(m) != CTRL_ORIGINATED, CDROP_NEIGH_FAILED);
		break;
	default:
		cdrop(r, m, CDROP_NEIGH_TABLE_FULL);
		break;
	}
}

void control_output(struct router *r, struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	struct fr_addr dst = fr_addr4(rte_be_to_cpu_32(ip->dst_addr)), nb;
	const uint32_t src = rte_be_to_cpu_32(ip->src_addr);
	struct fib_route rt;
	struct neigh_info ni;

	if (dp_ctrl_reason(m) != CTRL_ORIGINATED)
		dp_ctrl_reason_set(m, CTRL_ORIGINATED);
	/* the router's own: a multipath route's gateway with no flow hash,
	 * its first whose neighbour is not doubtful (icmp_error() chose its
	 * source address so) */
	if (fib_route_lookup_flow(r->fib, &dst, NULL, 0, &rt) != 0 ||
	    (rt.type != FIB_NH_GATEWAY && rt.type != FIB_NH_CONNECTED) ||
	    !router_port_ok(r, rt.port)) {
		cdrop(r, m, CDROP_NO_ROUTE_BACK);
		return;
	}
	/* from one of our 169.254/16 addresses (an answer to a request sent
	 * to it): only onto that address's own link, to a host there, never
	 * to a router (RFC 3927 2.6.2, 2.7) */
	if (ip4_is_link_local(src) &&
	    (rt.type != FIB_NH_CONNECTED || !port_owns4(&r->ports[rt.port], src))) {
		cdrop(r, m, CDROP_NO_ROUTE_BACK);
		return;
	}
	nb = rt.type == FIB_NH_GATEWAY ? rt.gw : dst;
	if (neigh_get(r->neigh, &nb, rt.port, &ni) == 0 && neigh_state_usable(ni.state)) {
		if (ni.state == NEIGH_S_STALE)
			neigh_use(r->neigh, &nb, rt.port);
		send_ip(r, m, rt.port, 0, &ni.mac, false);
		return;
	}
	control_resolve(r, m, &nb, rt.port);
}

static void resolve_input(struct router *r, struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct fr_addr dst = fr_addr4(rte_be_to_cpu_32(ip->dst_addr)), nb;
	struct fr_addr src = fr_addr4(rte_be_to_cpu_32(ip->src_addr));
	struct fib_route rt;

	/* the route as it is now (it may have changed since the worker looked) */
	if (fib_route_lookup_flow(r->fib, &dst, &src, router_flow_l4(r, m), &rt) != 0) {
		route_changed(r, m, -1);
		return;
	}
	if (rt.type != FIB_NH_GATEWAY && rt.type != FIB_NH_CONNECTED) {
		route_changed(r, m, rt.type);
		return;
	}
	nb = rt.type == FIB_NH_GATEWAY ? rt.gw : dst;
	control_resolve(r, m, &nb, rt.port);
}

void router_local_update(struct router *r)
{
	struct dp_local *nl, *old;
	uint32_t n = 0;
	uint16_t p;
	unsigned int i;

	for (p = 0; p < r->nb_ports; p++)
		n += 3 * r->ports[p].nb_addrs;
	/* IPv4: up to n (an address and its subnet's two broadcast forms
	 * each); IPv6: up to n / 3 and as many anycast ones, 16-byte aligned
	 * after them */
	nl = rte_zmalloc("dp_local", sizeof(*nl) + n * sizeof(nl->addr[0]) + 16 + 2 * (n / 3) * 16,
			 RTE_CACHE_LINE_SIZE);
	if (nl == NULL) {
		/* the old list stays, the workers' checks by the old
		 * addresses: said once, tried again with each poll of the
		 * links (control_poll(), every 100 ms) */
		if (!r->local_stale)
			router_say("fastroute: out of memory for the list of the router's own "
				   "addresses: workers check by the old one until it is rebuilt\n");
		r->local_stale = true;
		return;
	}
	if (r->local_stale)
		router_say("fastroute: the list of the router's own addresses is rebuilt\n");
	r->local_stale = false;
	nl->addr6 = (uint8_t(*)[16])RTE_PTR_ALIGN_CEIL(&nl->addr[n], 16);
	/* the router's own IPv6 addresses, never a source of a packet that
	 * arrives: a failed one (duplicate address detection) is another
	 * host's, whose packets are forwarded */
	for (p = 0; p < r->nb_ports; p++)
		for (i = 0; i < r->ports[p].nb_addrs; i++)
			if (r->ports[p].addrs[i].addr.family == AF_INET6 &&
			    r->ports[p].addrs[i].dad != ADDR_DAD_FAILED)
				dp_local6_add(nl, r->ports[p].addrs[i].addr.v6);
	/* after them, the Subnet-Router anycast addresses of the router's
	 * prefixes, as router_anycast6() finds them */
	for (p = 0; p < r->nb_ports; p++) {
		if (!r->ports[p].present)
			continue;
		for (i = 0; i < r->ports[p].nb_addrs; i++) {
			struct fr_prefix pf;

			if (port_addr_anycast6(&r->ports[p].addrs[i], &pf) &&
			    !dp_local_anycast6(nl, pf.addr.v6))
				dp_local_any6_add(nl, pf.addr.v6);
		}
	}
	/* the router's own addresses first, then its subnets' broadcast
	 * addresses: never a source either (RFC 1812 4.2.2.11 (d), 5.3.7),
	 * nor their network addresses, which are broadcasts as destinations
	 * (addr_routes(): RFC 1812 4.2.3.1's older form) */
	for (p = 0; p < r->nb_ports; p++)
		for (i = 0; i < r->ports[p].nb_addrs; i++)
			if (r->ports[p].addrs[i].addr.family == AF_INET)
				dp_local_add(nl, r->ports[p].addrs[i].addr.v4);
	nl->n_own = nl->n;
	for (p = 0; p < r->nb_ports; p++) {
		for (i = 0; i < r->ports[p].nb_addrs; i++) {
			const struct port_addr *pa = &r->ports[p].addrs[i];

			if (pa->addr.family == AF_INET && pa->len <= 30) {
				dp_local_add(nl, pa->addr.v4 | (UINT32_MAX >> pa->len));
				dp_local_add(nl, pa->addr.v4 & ~(UINT32_MAX >> pa->len));
			}
		}
	}
	old = r->dpconf.local;
	/* release: the list is complete before workers can see the pointer */
	__atomic_store_n(&r->dpconf.local, nl, __ATOMIC_RELEASE);
	/* a route cache hit skips the address checks this list feeds (a
	 * destination of 169.254/16 ours or not, a source that is ours): what
	 * was decided with the old list goes. The routes of the change moved
	 * the generation before (a transaction publishes the list at its
	 * end), so it moves once more now; a worker that loads the new
	 * generation (acquire) reads the new list after it */
	if (r->fib != NULL)
		fib_invalidate(r->fib);
	if (old != NULL) {
		/* a worker may be scanning the old list: wait until none can be */
		if (r->qsv != NULL)
			rte_rcu_qsbr_synchronize(r->qsv, RTE_QSBR_THRID_INVALID);
		rte_free(old);
	}
}

void router_icmp_rate_set(struct router *r, uint32_t pps, uint32_t burst)
{
	uint64_t hz = rte_get_tsc_hz();

	r->icmp_rate = pps;
	r->icmp_burst = burst;
	/* each error costs hz/pps cycles of credit; the bucket holds burst of
	 * them. One store: a worker reads both or neither */
	__atomic_store_n(&r->dpconf.icmp_rate,
			 dp_icmp_rate(pps ? RTE_MAX(hz / pps, 1ull) : 0, RTE_MAX(burst, 1u)),
			 __ATOMIC_RELAXED);
}

/* The hop a worker spent on forwarded @m given back, so that an error
 * about it quotes it as it arrived. */
void forward_hop_back(struct rte_mbuf *m)
{
	if (frame_is_ip6(m)) {
		rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN)->hop_limits++;
	} else {
		struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);

		ip->time_to_live++;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
}

bool forward_port_gone(struct router *r, struct rte_mbuf *m, uint32_t port)
{
	if (!router_port_ok(r, port)) {
		cdrop(r, m, CDROP_PORT_DOWN);
		return true;
	}
	if (!port_is_down(r, (uint16_t)port))
		return false;
	/* out of service since the worker's check: refused as the worker
	 * refuses it, host unreachable quoting the packet as it arrived */
	forward_hop_back(m);
	host_unreachable(r, m, true, CDROP_PORT_DOWN);
	return true;
}

/*
 * A forwarded packet a worker rewrote and handed over (CTRL_FORWARD): its
 * Redirect sent if one is due, its options filled in, then fragmented if
 * larger than its port's MTU, else sent as it is.
 */
static void forward_finish(struct router *r, struct rte_mbuf *m, uint32_t port)
{
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);

	if (forward_port_gone(r, m, port))
		return;
	if (rte_be_to_cpu_16(ip->total_length) > r->dp_ports[port].mtu &&
	    (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_DF_FLAG))) {
		/* handed over for its options, with DF, and the port's MTU
		 * went down under it meanwhile: refused as the worker refuses
		 * it, the header quoted as it arrived */
		forward_hop_back(m);
		refuse_too_big(r, m, (uint16_t)port, true);
		return;
	}
	if (dp_ctrl_icmp_type(m) == ICMP_REDIRECT)
		icmp_redirect(r, m, (uint16_t)port);
	options_fill(r, m, (uint16_t)port, 0);
	if (rte_be_to_cpu_16(ip->total_length) > r->dp_ports[port].mtu)
		fragment_send(r, m, (uint16_t)port);
	else
		control_send(r, m, (uint16_t)port);
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
			/* queued before its port went down: nothing learnt on
			 * a port out of service (its entries are forgotten) */
			if (port_is_down(r, m->port))
				cdrop(r, m, CDROP_PORT_DOWN);
			else
				arp_input(r, m);
			break;
		case CTRL_RESOLVE:
			if (frame_is_ip6(m))
				resolve_input6(r, m);
			else
				resolve_input(r, m);
			break;
		case CTRL_ICMP_ERROR:
			/* the worker decided it is due, allowed and within rate */
			if (frame_is_ip6(m))
				icmp6_error(r, m, dp_ctrl_icmp_type(m), dp_ctrl_icmp_code(m),
					    dp_ctrl_aux(m));
			else
				icmp_error(r, m, dp_ctrl_icmp_type(m), dp_ctrl_icmp_code(m),
					   dp_ctrl_aux(m));
			break;
		case CTRL_FORWARD:
			if (frame_is_ip6(m))
				forward_finish6(r, m, (uint16_t)dp_ctrl_aux(m));
			else
				forward_finish(r, m, dp_ctrl_aux(m));
			break;
		case CTRL_LOCAL:
		default:
			if (port_is_down(r, m->port))
				cdrop(r, m, CDROP_PORT_DOWN); /* as CTRL_ARP: ND too */
			else if (frame_is_ip6(m))
				local_input6(r, m);
			else
				local_input(r, m);
			break;
		}
	}
}

/* The datagrams for the router not whole in time: their fragments freed,
 * counted reasm_timeout, and where the first had come a Time Exceeded
 * about it (code 1: RFC 792, RFC 1122 3.3.2, RFC 8200 4.5), within the
 * rules and the rate of an error. */
static void reasm_due(struct router *r, uint64_t now)
{
	struct rte_mbuf *m;

	while ((m = reasm_expire(r->reasm, now, r->cst.drop)) != NULL) {
		bool v6 = frame_is_ip6(m);

		if (!icmp_ctrl_error_due(r, m, v6 ? 3 : 11, 1, false))
			rte_pktmbuf_free(m);
		else if (v6)
			icmp6_error(r, m, 3, 1, 0);
		else
			icmp_error(r, m, 11, 1, 0);
	}
}

/* The workers' packets (ARP, ND, held, errors) and the neighbour timers:
 * nothing here changes a route. */
static unsigned int packets_and_timers(struct router *r, uint64_t now)
{
	struct rte_mbuf *pkts[DP_BURST];
	unsigned int w, n, rounds, work = 0;

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
		router_announce_due(r, now);
		reasm_due(r, now);
		r->next_tick_ms = now + TICK_MS;
	}
	control_watchdog(r, now);
	return work;
}

void control_watchdog(struct router *r, uint64_t now)
{
	/* here, where long commands come too: a control thread that stops
	 * coming here gets the router restarted by the service manager */
	if (r->watchdog_ms != 0 && now >= r->next_watchdog_ms) {
		fr_sd_notify("WATCHDOG=1");
		r->next_watchdog_ms = now + r->watchdog_ms / 2;
	}
}

void control_service(struct router *r)
{
	if (!r->running)
		return;
	r->in_command = true;
	packets_and_timers(r, control_now_ms());
	r->in_command = false;
}

unsigned int control_poll(struct router *r)
{
	uint64_t now = control_now_ms();
	unsigned int work = packets_and_timers(r, now);

	if (now >= r->next_link_ms) {
		port_link_poll(r);
		r->next_link_ms = now + LINK_POLL_MS;
		if (r->local_stale)
			router_local_update(r);
	}
	if (now >= r->next_rate_ms) {
		port_rates_poll(r, now);
		r->next_rate_ms = now + PORT_RATE_MS;
	}
	if (r->dad_routes_due)
		dad_routes_sync(r);
	fib_reclaim(r->fib);
	neigh_reclaim(r->neigh);
	return work;
}
