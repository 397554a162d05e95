/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control thread slow path, IPv6:
 *   ND        answer NS for our addresses (global and link-local) with NA
 *             (router flag set), defend them against duplicate address
 *             detection, learn within RFC 4861 7.2 (no entry from a DAD
 *             probe or an unsolicited NA), solicit neighbours to resolve
 *             them (to the solicited-node group, then unicast to confirm)
 *   ICMPv6    echo replies; errors about packets the workers dropped
 *             (RFC 4443: at most 1280 bytes, from the address of the port
 *             they leave by); port unreachable / parameter problem (TCP:
 *             a reset) for packets to the router that no service takes
 *   MLD       report the groups the router listens to (RFC 3810), so that
 *             a switch snooping MLD lets NS to them through
 *   output    route, resolve and send what the router originates
 */
#include <stddef.h>

#include <rte_hash_crc.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_tcp.h>

#include "control6.h"
#include "icmp.h"
#include "ip6.h"
#include "ip6_frag.h"
#include "nd.h"
#include "reasm.h"
#include "router.h"

#define ICMP6_ERROR_MAX 1280 /* RFC 4443 2.4 (c): the minimum IPv6 MTU */
#define ICMP6_HOP_LIMIT 64

static const struct rte_ether_addr all_nodes_mac = {{0x33, 0x33, 0, 0, 0, 1}};
static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};

static void cdrop6(struct router *r, struct rte_mbuf *m, enum ctrl_drop why)
{
	r->cst.drop[why]++;
	rte_pktmbuf_free(m);
}

/* ---- the port's IPv6 addresses -------------------------------------------- */

/* The DAD state of @a among @port's addresses (its link-local one
 * included); NULL when @a is none of them. */
static uint8_t *dad_state(const struct router *r, uint16_t port, const uint8_t *a)
{
	struct fr_port *p = (struct fr_port *)(uintptr_t)&r->ports[port];
	unsigned int i;

	if (memcmp(r->dp_ports[port].ll6, a, 16) == 0)
		return &p->ll_dad;
	for (i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].addr.family == AF_INET6 && memcmp(p->addrs[i].addr.v6, a, 16) == 0)
			return &p->addrs[i].dad;
	return NULL;
}

/* The first IPv6 address of @p another host does not hold (DAD failed),
 * or with @kept only one DAD kept; NULL when there is none. */
static const uint8_t *port_addr6_usable(const struct fr_port *p, bool kept)
{
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].addr.family == AF_INET6 &&
		    (kept ? p->addrs[i].dad == ADDR_DAD_OK : p->addrs[i].dad != ADDR_DAD_FAILED))
			return p->addrs[i].addr.v6;
	return NULL;
}

bool port_owns6(const struct router *r, uint16_t port, const uint8_t *a)
{
	const uint8_t *st = dad_state(r, port, a);

	/* an address another host holds (DAD failed) is not the router's */
	return st != NULL && *st != ADDR_DAD_FAILED;
}

/* @a is an address of the router's that duplicate address detection
 * found another host holds (on any port). */
static bool dad_failed_any(const struct router *r, const uint8_t *a)
{
	uint16_t p;

	for (p = 0; p < r->nb_ports; p++) {
		const uint8_t *st = dad_state(r, p, a);

		if (st != NULL && *st == ADDR_DAD_FAILED)
			return true;
	}
	return false;
}

/* The local route of @port's address @a (not the link-local one, which
 * has none), taken out while another host holds the address (its traffic
 * then goes to that host by the connected route) or put back. */
static bool dad_local_route(struct router *r, uint16_t port, const uint8_t *a, bool on)
{
	struct fib_route rt, cur;

	if (ip6_is_linklocal(a))
		return true;
	memset(&rt, 0, sizeof(rt));
	rt.prefix.addr.family = AF_INET6;
	memcpy(rt.prefix.addr.v6, a, 16);
	rt.prefix.len = 128;
	rt.type = FIB_NH_LOCAL;
	rt.port = port;
	rt.origin = FIB_ORIGIN_PORT;
	if (fib_route_get(r->fib, &rt.prefix, &cur) == 0) {
		/* a static route of the operator's in its place: not ours to move */
		if (!on && cur.origin == FIB_ORIGIN_PORT && cur.type == FIB_NH_LOCAL)
			fib_route_del(r->fib, &rt.prefix, NULL);
		return true;
	}
	if (on && fib_route_add(r->fib, &rt) != 0) {
		char b[FR_ADDR_STRLEN];

		router_say("fastroute: port %u: %s: its local route could not be put back "
			   "(table full): it stays given up; 'port %u address del' it\n",
			   port, fr_addr_fmt(&rt.prefix.addr, b, sizeof(b)), port);
		return false;
	}
	return true;
}

/* RFC 4862 5.4.5: another host holds our tentative @a on @port (its NA,
 * or its own DAD probe for it, from @mac). */
static void dad_fail(struct router *r, uint16_t port, const uint8_t *a,
		     const struct rte_ether_addr *mac)
{
	uint8_t *st = dad_state(r, port, a);
	const uint8_t *b = mac->addr_bytes;
	struct fr_addr x = {.family = AF_INET6};
	char ip[FR_ADDR_STRLEN];

	if (st == NULL || *st != ADDR_DAD_TENTATIVE)
		return;
	*st = ADDR_DAD_FAILED;
	r->cst.nd_dad_failed++;
	/* in a command (a walk of the routes that serves packets every 8 Ki,
	 * a load's transaction): the route goes once it has ended, not under
	 * the walk's feet nor into the transaction's journal */
	if (r->in_command) {
		r->dad_routes_due = true;
	} else {
		dad_local_route(r, port, a, false);
		router_local_update(r); /* no longer ours as a source either */
	}
	memcpy(x.v6, a, 16);
	if (ip6_is_linklocal(a))
		router_say("fastroute: port %u: its link-local address %s (from its MAC) is in use "
			   "on the link by %02x:%02x:%02x:%02x:%02x:%02x (duplicate address "
			   "detection): not answered for; free it and take the port down and up\n",
			   port, fr_addr_fmt(&x, ip, sizeof(ip)), b[0], b[1], b[2], b[3], b[4],
			   b[5]);
	else
		router_say("fastroute: port %u: %s is in use on the link by "
			   "%02x:%02x:%02x:%02x:%02x:%02x (duplicate address detection): not "
			   "used; 'port %u address del' it, or free it and take the port down "
			   "and up\n",
			   port, fr_addr_fmt(&x, ip, sizeof(ip)), b[0], b[1], b[2], b[3], b[4],
			   b[5], port);
}

/* What @port failed to transmit so far (a probe's wait compares it): the
 * frames its driver counted as errors, and the control thread's frames its
 * TX queue refused (struct worker's ctrl_refused). The driver's count
 * includes forwarded frames, and a reset of the port's statistics by
 * another program (the router makes none) reads as a failure too: a
 * probe more, at worst. */
static uint64_t dad_tx_failed(const struct router *r, uint16_t port)
{
	struct rte_eth_stats es;
	uint64_t n = 0;
	unsigned int w;

	if (rte_eth_stats_get(port, &es) == 0)
		n = es.oerrors;
	for (w = 0; w < r->nb_workers; w++)
		n += __atomic_load_n(&r->workers[w]->ctrl_refused[port], __ATOMIC_RELAXED);
	return n;
}

/* A DAD probe for @port's address @a, its wait *@w from now; @tx_failed
 * is dad_tx_failed() now. */
static bool dad_probe(struct router *r, uint16_t port, const uint8_t *a, struct dad_wait *w,
		      uint64_t tx_failed)
{
	const uint64_t now = control_now_ms();
	struct rte_mbuf *m;
	char *frame;

	/* the first probe's failures are looked for all along its wait (the
	 * stuck frames of one refused kick leave with the probe sent again);
	 * a probe sent again is looked at once its wait ended, a second
	 * apart, so that a link in trouble longer does not spend them all */
	w->until_ms = now + ADDR_DAD_MS;
	w->check_ms = w->reprobes == 0 ? now + ADDR_DAD_CHECK_MS : w->until_ms;
	w->tx_failed = tx_failed;
	w->lost = true; /* a probe not sent fails its wait like one refused */
	frame = control_frame(r, port, ND_FRAME_LEN, &m);
	if (frame == NULL)
		return false;
	rte_pktmbuf_trim(
		m, (uint16_t)(ND_FRAME_LEN - nd_build_dad_ns(frame, &r->dp_ports[port].mac, a)));
	w->lost = control_send(r, m, port) != 0;
	return !w->lost;
}

bool dad_ready(struct router *r, uint16_t port, const uint8_t *a, uint8_t *st, struct dad_wait *w)
{
	if (*st == ADDR_DAD_OK)
		return true;
	if (*st != ADDR_DAD_WAIT)
		return false;
	/* optimistic (RFC 4429): the address serves from now on */
	*st = ADDR_DAD_TENTATIVE;
	w->reprobes = 0;
	if (dad_probe(r, port, a, w, dad_tx_failed(r, port)))
		r->cst.nd_dad_probes++;
	return false;
}

/* @port's tentative address @a (state *@st, its wait *@w): kept, and
 * announced, once @now is past its wait; probed again, the wait started
 * over, when the port failed to transmit since the probe (struct
 * dad_wait), up to ADDR_DAD_REPROBES times. *@txf caches dad_tx_failed()
 * for the port's addresses (UINT64_MAX: not read yet). */
static void dad_kept(struct router *r, uint16_t port, const uint8_t *a, uint8_t *st,
		     struct dad_wait *w, uint64_t now, uint64_t *txf)
{
	struct fr_port *p = &r->ports[port];
	bool failed;

	if (*st != ADDR_DAD_TENTATIVE || now < w->check_ms)
		return;
	if (*txf == UINT64_MAX)
		*txf = dad_tx_failed(r, port);
	failed = w->lost || *txf != w->tx_failed;
	if (failed && w->reprobes < ADDR_DAD_REPROBES) {
		w->reprobes++;
		if (dad_probe(r, port, a, w, *txf))
			r->cst.nd_dad_reprobes++;
		return;
	}
	if (now < w->until_ms) {
		w->check_ms = RTE_MIN(now + ADDR_DAD_CHECK_MS, w->until_ms);
		return;
	}
	if (failed) {
		struct fr_addr x = {.family = AF_INET6};
		char ip[FR_ADDR_STRLEN];

		memcpy(x.v6, a, 16);
		router_say("fastroute: port %u: %s kept by duplicate address detection, though "
			   "the port failed to transmit during each of its %u probes: another "
			   "host holding it may have gone unseen (show port stats: tx_errors; "
			   "show stats: ctrl_tx_full)\n",
			   port, fr_addr_fmt(&x, ip, sizeof(ip)), ADDR_DAD_REPROBES + 1);
	}
	*st = ADDR_DAD_OK;
	if (nd_announce(r, port, a))
		r->cst.addr_announced++;
	/* a port new to IPv6 through its link-local address reported its
	 * groups once, from :: (ll_in_use()): again now, from that address,
	 * as a state change is reported twice (RFC 3810 6.1); a snooping
	 * switch that lost the first still learns the solicited-node group
	 * its neighbours' NS for us go to */
	if (a == r->dp_ports[port].ll6 && p->ll_mld_again) {
		p->ll_mld_again = false;
		mld_report(r, port);
	}
}

void dad_due(struct router *r, uint16_t port, uint64_t now)
{
	struct fr_port *p = &r->ports[port];
	uint64_t txf = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].addr.family == AF_INET6)
			dad_kept(r, port, p->addrs[i].addr.v6, &p->addrs[i].dad,
				 &p->addrs[i].dad_wait, now, &txf);
	dad_kept(r, port, r->dp_ports[port].ll6, &p->ll_dad, &p->ll_dad_wait, now, &txf);
}

static void ra_restart(struct fr_port *p);

void dad_reset(struct router *r, uint16_t port)
{
	struct fr_port *p = &r->ports[port];
	unsigned int i;

	/* a failed one stays failed, not the router's, while the port is
	 * out of service (another host holds it, and packets for it that
	 * come in by the other ports are that host's); it is tried again
	 * once the port is back (dad_retry_failed()) */
	for (i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].addr.family == AF_INET6 && p->addrs[i].dad != ADDR_DAD_FAILED)
			p->addrs[i].dad = ADDR_DAD_WAIT;
	p->dad_retry = true;
	p->ll_dad = ADDR_DAD_WAIT;
	ra_restart(p);
	/* back in service, announce() reports twice */
	p->ll_mld_again = false;
}

void dad_retry_failed(struct router *r, uint16_t port)
{
	struct fr_port *p = &r->ports[port];
	bool back = false;
	unsigned int i;

	if (!p->dad_retry)
		return;
	p->dad_retry = false;
	for (i = 0; i < p->nb_addrs; i++) {
		struct port_addr *pa = &p->addrs[i];

		/* the other host may be gone: probed again once its local
		 * route is back */
		if (pa->addr.family != AF_INET6 || pa->dad != ADDR_DAD_FAILED ||
		    !dad_local_route(r, port, pa->addr.v6, true))
			continue;
		pa->dad = ADDR_DAD_WAIT;
		back = true;
	}
	if (back)
		router_local_update(r); /* ours again as a source too */
}

void dad_routes_sync(struct router *r)
{
	uint16_t port;
	unsigned int i;

	r->dad_routes_due = false;
	for (port = 0; port < r->nb_ports; port++) {
		struct fr_port *p = &r->ports[port];

		for (i = 0; i < p->nb_addrs; i++)
			if (p->addrs[i].addr.family == AF_INET6 &&
			    p->addrs[i].dad == ADDR_DAD_FAILED)
				dad_local_route(r, port, p->addrs[i].addr.v6, false);
	}
	router_local_update(r); /* the failed ones are no longer ours as sources */
}

bool router_owns6(const struct router *r, const uint8_t *a)
{
	uint16_t p;

	for (p = 0; p < r->nb_ports; p++)
		if (r->ports[p].present && port_owns6(r, p, a))
			return true;
	return false;
}

bool port_anycast6(const struct router *r, uint16_t port, const uint8_t *a)
{
	const struct fr_port *p = &r->ports[port];
	struct fr_prefix pf;
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++) {
		if (port_addr_anycast6(&p->addrs[i], &pf) && memcmp(pf.addr.v6, a, 16) == 0)
			return true;
	}
	return false;
}

bool router_anycast6(const struct router *r, const uint8_t *a)
{
	uint16_t p;

	for (p = 0; p < r->nb_ports; p++)
		if (r->ports[p].present && port_anycast6(r, p, a))
			return true;
	return false;
}

/* Is @a on one of the port's prefixes (link-local counts)? */
static bool port_onlink6(const struct router *r, uint16_t port, const uint8_t *a)
{
	const struct fr_port *p = &r->ports[port];
	struct fr_addr x;
	unsigned int i;

	if (ip6_is_linklocal(a))
		return true;
	x.family = AF_INET6;
	memcpy(x.v6, a, 16);
	for (i = 0; i < p->nb_addrs; i++) {
		struct fr_prefix pf;

		port_addr_prefix(&p->addrs[i], &pf);
		if (pf.addr.family == AF_INET6 && fr_prefix_contains(&pf, &x))
			return true;
	}
	return false;
}

void port_src6(const struct router *r, uint16_t port, const uint8_t *dst, uint8_t *src)
{
	const struct fr_port *p = &r->ports[port];
	const uint8_t *any = NULL;
	struct fr_addr x;
	unsigned int i;

	/* a link-local destination is answered from the link-local address;
	 * otherwise an address on the destination's prefix, or any global one
	 * (RFC 4861 7.2.2: of the port, for NS) */
	x.family = AF_INET6;
	memcpy(x.v6, dst, 16);
	if (!ip6_is_linklocal(dst)) {
		for (i = 0; i < p->nb_addrs; i++) {
			struct fr_prefix pf;

			if (p->addrs[i].addr.family != AF_INET6 ||
			    p->addrs[i].dad == ADDR_DAD_FAILED)
				continue;
			port_addr_prefix(&p->addrs[i], &pf);
			if (fr_prefix_contains(&pf, &x)) {
				memcpy(src, p->addrs[i].addr.v6, 16);
				return;
			}
			if (any == NULL)
				any = p->addrs[i].addr.v6;
		}
		if (any != NULL) {
			memcpy(src, any, 16);
			return;
		}
	}
	memcpy(src, r->dp_ports[port].ll6, 16);
}

void error_src6(const struct router *r, uint16_t port, const uint8_t *dst, uint8_t *src)
{
	uint16_t q;

	port_src6(r, port, dst, src);
	if (ip6_is_linklocal(dst) || !ip6_is_linklocal(src))
		return;
	/* a port numbered by its link-local address only ('via fe80::1 port
	 * N'): an error from it would not reach a distant host (RFC 4291
	 * 2.5.6); a global address of another port will */
	for (q = 0; q < r->nb_ports; q++) {
		/* not one another host holds (DAD failed) */
		const uint8_t *a = port_addr6_usable(&r->ports[q], false);

		if (a != NULL) {
			memcpy(src, a, 16);
			return;
		}
	}
}

/* ---- neighbour discovery ------------------------------------------------- */

void nd_probe(struct router *r, const struct neigh_info *ni, const struct rte_ether_addr *mac)
{
	const uint8_t *st;
	struct rte_mbuf *m;
	uint8_t src[16];
	char *frame;

	if (!router_port_ok(r, ni->port))
		return;
	port_src6(r, ni->port, ni->addr.v6, src);
	if (memcmp(src, r->dp_ports[ni->port].ll6, 16) == 0)
		ll_in_use(r, ni->port); /* probed first, on a port new to IPv6 */
	/* a source DAD has not kept (tentative, or another host's): the
	 * link-local address once that one is sure (RFC 4429 3.3: an NS from
	 * a tentative address puts our MAC for it in the neighbours' caches).
	 * Within the first second of a port's service the link-local one is
	 * tentative too: the NS goes from the tentative address all the same
	 * (without our link-layer address a host must resolve ours before it
	 * answers: in the e2e tests Linux hosts did not, within the probes a
	 * resolution sends) */
	st = dad_state(r, ni->port, src);
	if (st != NULL && (*st == ADDR_DAD_TENTATIVE || *st == ADDR_DAD_FAILED)) {
		/* the link-local one another host's (or tentative): an
		 * address of the port's DAD kept, if any */
		const uint8_t *kept = r->ports[ni->port].ll_dad == ADDR_DAD_OK
					      ? r->dp_ports[ni->port].ll6
					      : port_addr6_usable(&r->ports[ni->port], true);

		if (kept != NULL) {
			memcpy(src, kept, 16);
		} else if (*st == ADDR_DAD_FAILED) {
			/* another host's address, with our MAC as its
			 * link-layer address: the neighbours would send that
			 * host's traffic to us (RFC 4861 7.2.3). None goes:
			 * the resolution fails, its packets dropped as
			 * unresolved */
			r->cst.nd_probes_no_source++;
			return;
		}
	}
	frame = control_frame(r, ni->port, ND_FRAME_LEN, &m);
	if (frame == NULL)
		return;
	nd_build_ns(frame, &r->dp_ports[ni->port].mac, src, ni->addr.v6, mac);
	if (control_send(r, m, ni->port) == 0)
		r->cst.nd_probes++;
}

/* Answer in place: an NA for @target to @dst at @dst_mac. True: sent (else
 * dropped and counted). */
static bool nd_answer(struct router *r, struct rte_mbuf *m, uint16_t port, const uint8_t *target,
		      const uint8_t *dst, const struct rte_ether_addr *dst_mac, uint8_t flags)
{
	uint8_t src[16];

	/* from the target, one of ours; a Subnet-Router anycast target from
	 * a unicast address of the port, as Linux answers (RFC 4861 7.2.4:
	 * an address of the interface; an anycast source is best avoided):
	 * to all-nodes (a defence) the link-local one. The caller's
	 * addresses are its own copies, not the request's bytes that
	 * control_reuse() gives up. */
	if (!port_anycast6(r, port, target))
		memcpy(src, target, 16);
	else if (ip6_is_mcast(dst))
		memcpy(src, r->dp_ports[port].ll6, 16);
	else
		port_src6(r, port, dst, src);
	control_reuse(m);
	if (rte_pktmbuf_append(m, ND_FRAME_LEN) == NULL) {
		cdrop6(r, m, CDROP_NO_MBUF);
		return false;
	}
	nd_build_na(rte_pktmbuf_mtod(m, void *), &r->dp_ports[port].mac, src, dst_mac, dst, target,
		    flags);
	return control_send(r, m, port) == 0;
}

bool nd_announce(struct router *r, uint16_t port, const uint8_t *addr)
{
	struct rte_mbuf *m;
	char *frame = control_frame(r, port, ND_FRAME_LEN, &m);

	if (frame == NULL)
		return false;
	nd_build_na(frame, &r->dp_ports[port].mac, addr, &all_nodes_mac, all_nodes, addr,
		    ND_NA_ROUTER | ND_NA_OVERRIDE);
	return control_send(r, m, port) == 0;
}

/* A link-local address of the router's (its DAD state @st) never probed:
 * its port does not speak IPv6. Not the router's yet, the other host's to
 * keep: not defended, no conflict; the router's own DAD finds it taken,
 * should the port ever use it. */
static bool ll_unprobed(const uint8_t *st, const uint8_t *a)
{
	return st != NULL && *st == ADDR_DAD_WAIT && ip6_is_linklocal(a);
}

/*
 * Another host claims one of our addresses (RFC 4862 5.4, as ARP's RFC
 * 5227): an NS from it, or an NA advertising it, from a MAC not ours (our
 * own frame looped back is none). Neither learnt nor answered; said.
 */
static bool nd_conflict(struct router *r, uint16_t port, const struct nd_info *nd)
{
	const uint8_t *claimed = nd->type == ND_TYPE_NS ? nd->src : nd->target;
	const struct rte_ether_addr *mac = nd->has_lla ? &nd->lla : &nd->eth_src;
	struct fr_addr a = {.family = AF_INET6};

	/* a link-local address is the link's: another port's is no conflict */
	const uint8_t *st;

	if (ip6_is_unspec(claimed) ||
	    !(ip6_is_linklocal(claimed) ? port_owns6(r, port, claimed)
					: router_owns6(r, claimed)) ||
	    router_mac(r, mac) || router_mac(r, &nd->eth_src))
		return false;
	st = dad_state(r, port, claimed);
	if (ll_unprobed(st, claimed))
		return false;
	/* while ours is tentative, the other host keeps it (RFC 4862 5.4.4) */
	if (st != NULL && *st == ADDR_DAD_TENTATIVE) {
		dad_fail(r, port, claimed, mac);
		return true;
	}
	memcpy(a.v6, claimed, 16);
	router_say_conflict(r, port, mac, &a, "ND");
	router_defend(r, port, &a);
	return true;
}

static void nd_input(struct router *r, struct rte_mbuf *m)
{
	uint16_t port = m->port;
	struct nd_info nd;
	uint8_t target[16];
	bool ours, onlink, learnt, tentative, anycast;
	const struct rte_ether_addr *lla;
	const uint8_t *st;

	switch (nd_parse(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_data_len(m), &nd)) {
	case ND_OK:
		break;
	case ND_ERR_HOP_LIMIT:
		cdrop6(r, m, CDROP_ND_HOP_LIMIT);
		return;
	case ND_ERR_CHECKSUM:
		cdrop6(r, m, CDROP_ND_CHECKSUM);
		return;
	default:
		cdrop6(r, m, CDROP_ND_MALFORMED);
		return;
	}
	if (nd.type == ND_TYPE_NS)
		r->cst.nd_ns_rx++;
	else
		r->cst.nd_na_rx++;
	memcpy(target, nd.target, 16);
	if (nd_conflict(r, port, &nd)) {
		cdrop6(r, m, CDROP_ND_CONFLICT);
		return;
	}
	/* a sender whose link-layer address is one of the router's own
	 * (forged, or a port's NS or NA on another's link; not a DAD probe,
	 * from ::, which is ours looped back): neither learnt nor answered,
	 * an entry would send its traffic back into the router */
	if (!ip6_is_unspec(nd.src) &&
	    (router_mac(r, &nd.eth_src) || (nd.has_lla && router_mac(r, &nd.lla)))) {
		cdrop6(r, m, CDROP_ND_IGNORED);
		return;
	}
	/* a host solicits our link-local address (not a DAD probe, which is
	 * defended as ever): the answer uses it, probed first on a port new
	 * to IPv6, and tentative meanwhile */
	if (nd.type == ND_TYPE_NS && !ip6_is_unspec(nd.src) &&
	    memcmp(nd.target, r->dp_ports[port].ll6, 16) == 0)
		ll_in_use(r, port);
	tentative = (st = dad_state(r, port, nd.target)) != NULL && *st == ADDR_DAD_TENTATIVE;
	/* another host's DAD probe for our tentative address: both lose it
	 * (RFC 4862 5.4.3; our own probe, looped back, is none) */
	if (tentative && nd.type == ND_TYPE_NS && ip6_is_unspec(nd.src) &&
	    !router_mac(r, &nd.eth_src)) {
		dad_fail(r, port, nd.target, &nd.eth_src);
		cdrop6(r, m, CDROP_ND_CONFLICT);
		return;
	}
	/* the Subnet-Router anycast address of a prefix of this port is
	 * solicited as ours, and advertised without override (RFC 4861
	 * 7.2.7: another router of the link may answer for it too) */
	anycast = nd.type == ND_TYPE_NS && port_anycast6(r, port, nd.target);
	ours = nd.type == ND_TYPE_NS && (port_owns6(r, port, nd.target) || anycast) &&
	       !ll_unprobed(st, nd.target);
	onlink = nd.type == ND_TYPE_NS && port_onlink6(r, port, nd.src);
	/* a neighbour the configuration puts on this port off its prefixes
	 * (a 'via GW port N' route's gateway, from the route on; a 'dev N'
	 * route's hosts, once resolved) has an entry: its solicitations are
	 * learnt from as an on-link one's (RFC 4861 7.2.3; a gateway whose
	 * NIC was swapped says so this way) */
	if (nd.type == ND_TYPE_NS && !onlink && !ip6_is_unspec(nd.src)) {
		struct fr_addr s = {.family = AF_INET6};

		memcpy(s.v6, nd.src, 16);
		onlink = neigh_find(r->neigh, &s, port) != NEIGH_IDX_NONE;
	}
	/* learnt: not needed here (an answered NS counts as answered either
	 * way, an NA that updated the table returns ND_V_LEARNT) */
	switch (nd_process(r->neigh, &nd, port, ours, onlink, control_now_ms(), &learnt)) {
	case ND_V_ANSWER:
		/* counted as answered, learnt from or not (nd_learnt counts
		 * the NS/NA not answered, as arp_learnt does); the answer goes
		 * to the solicitor at the address it gave, else where it sent
		 * from: a host's, never a group or zero (a forged one would
		 * make the router reflect to the whole link) */
		lla = nd.has_lla ? &nd.lla : &nd.eth_src;
		if (!rte_is_valid_assigned_ether_addr(lla)) {
			cdrop6(r, m, CDROP_ND_MALFORMED);
			return;
		}
		/* a tentative address is advertised without override (RFC
		 * 4429 3.3): a host that holds it keeps its entries */
		if (nd_answer(r, m, port, target, nd.src, lla,
			      ND_NA_ROUTER | ND_NA_SOLICITED |
				      (tentative || anycast ? 0 : ND_NA_OVERRIDE))) {
			r->cst.nd_answered++;
			if (!onlink)
				r->cst.nd_off_link_answered++; /* not learnt, still answered */
		}
		return;
	case ND_V_DEFEND:
		if (tentative) {
			/* our own probe, looped back by the link */
			cdrop6(r, m, CDROP_ND_DAD);
			return;
		}
		/* someone tests an address we hold (RFC 4862 5.4.3): defend it
		 * to all-nodes; the prober gets no entry */
		if (nd_answer(r, m, port, target, all_nodes, &all_nodes_mac,
			      ND_NA_ROUTER | (anycast ? 0 : ND_NA_OVERRIDE)))
			r->cst.nd_dad_defended++;
		return;
	case ND_V_LEARNT:
		r->cst.nd_learnt++;
		rte_pktmbuf_free(m);
		return;
	case ND_V_NOT_FOR_US:
		cdrop6(r, m, CDROP_ND_NOT_FOR_US);
		return;
	case ND_V_DAD_OTHER:
		cdrop6(r, m, CDROP_ND_DAD);
		return;
	default:
		cdrop6(r, m, CDROP_ND_IGNORED);
		return;
	}
}

/* ---- redirects --------------------------------------------------------------- */

/*
 * An ICMPv6 Redirect (RFC 4861 4.5, 8.2) about @orig, a packet a worker
 * rewrote to forward back out of @port, its arrival port, from a sender on
 * that link: the Target is the route's gateway, which must then be a
 * link-local address (8.1: a host takes nothing else for a router), or the
 * destination itself on a connected prefix; with the Target's link-layer
 * address (the frame's new destination MAC) and as much of the packet, as
 * it arrived, as keeps the Redirect within 1280 bytes. From the port's
 * link-local address, hop limit 255. Keeps @orig.
 */
static void icmp6_redirect(struct router *r, const struct rte_mbuf *orig, uint16_t port)
{
	const struct rte_ether_hdr *oeth = rte_pktmbuf_mtod(orig, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *oip = (const struct rte_ipv6_hdr *)(oeth + 1);
	uint32_t olen = RTE_MIN(ip6_size(oip), rte_pktmbuf_pkt_len(orig) - RTE_ETHER_HDR_LEN);
	/* the Redirected Header option: its 8 bytes and the packet, to
	 * whole 8-byte units (as Linux cuts it) */
	uint32_t rd = RTE_MIN(olen + 8, (uint32_t)(IP6_MIN_MTU - sizeof(*oip) - 40 - 8)) & ~7u;
	struct fr_addr dst, src;
	struct fib_route rt;
	struct rte_ipv6_hdr *ip;
	struct rte_mbuf *m;
	uint8_t target[16], *ic, *q;
	uint64_t key[2];
	uint16_t ck;
	char *p;

	dst.family = AF_INET6;
	memcpy(dst.v6, oip->dst_addr, 16);
	src.family = AF_INET6;
	memcpy(src.v6, oip->src_addr, 16);
	if (fib_route_lookup_flow(r->fib, &dst, &src, router_flow_l4(r, orig), &rt) != 0 ||
	    rt.port != port || (rt.type == FIB_NH_GATEWAY && !ip6_is_linklocal(rt.gw.v6)) ||
	    (rt.type != FIB_NH_GATEWAY && rt.type != FIB_NH_CONNECTED)) {
		r->cst.redirects_not_due++;
		return;
	}
	memcpy(target, rt.type == FIB_NH_GATEWAY ? rt.gw.v6 : oip->dst_addr, 16);
	if (memcmp(target, oip->src_addr, 16) == 0) {
		r->cst.redirects_not_due++;
		return;
	}
	/* the hash reads 8 bytes at a time: from an aligned copy */
	memcpy(key, oip->src_addr, 16);
	if (!redirect_undamped(r, rte_hash_crc(key, 16, 6))) {
		r->cst.redirects_damped++;
		return;
	}
	p = control_frame(r, port, (uint16_t)(RTE_ETHER_HDR_LEN + sizeof(*ip) + 40 + 8 + rd), &m);
	if (p == NULL)
		return;
	frame_init(p, RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);
	ic = (uint8_t *)(ip + 1);
	memset(ip, 0, sizeof(*ip) + 40 + 8 + 8);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(40 + 8 + rd));
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255; /* RFC 4861 4.5: a host takes no other */
	memcpy(ip->src_addr, r->dp_ports[port].ll6, 16);
	memcpy(ip->dst_addr, oip->src_addr, 16);
	ic[0] = ICMP6_REDIRECT;
	memcpy(ic + 8, target, 16);
	memcpy(ic + 24, oip->dst_addr, 16);
	/* Target Link-Layer Address (type 2, one unit) */
	ic[40] = 2;
	ic[41] = 1;
	memcpy(ic + 42, &oeth->dst_addr, RTE_ETHER_ADDR_LEN);
	/* Redirected Header (type 4): 6 reserved bytes, then the packet */
	ic[48] = 4;
	ic[49] = (uint8_t)(rd / 8);
	q = ic + 56;
	frame_copy_out(orig, RTE_ETHER_HDR_LEN, rd - 8, q);
	/* quoted as it arrived: the worker spent a hop */
	((struct rte_ipv6_hdr *)q)->hop_limits++;
	ck = rte_ipv6_udptcp_cksum(ip, ic);
	memcpy(ic + 2, &ck, 2);
	dp_ctrl_set(m, CTRL_ORIGINATED, ICMP6_REDIRECT, 0, CTRL_ORIG_ICMP);
	control_output6(r, m, port);
}

void forward_finish6(struct router *r, struct rte_mbuf *m, uint16_t port)
{
	struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);

	if (forward_port_gone(r, m, port))
		return;
	if (ip6_size(ip) > r->dp_ports[port].mtu) {
		/* its port's MTU went down after the worker's check: refused
		 * as the worker refuses it, with a Packet Too Big quoting the
		 * packet as it arrived, as IPv4's forward_finish() does */
		forward_hop_back(m);
		ctrl_drop_error(r, m, CDROP_TOO_BIG, 2, 0, r->dp_ports[port].mtu);
		return;
	}
	if (dp_ctrl_icmp_type(m) == ICMP6_REDIRECT)
		icmp6_redirect(r, m, port);
	control_send(r, m, port);
}

/* ---- output ------------------------------------------------------------------ */

void icmp6_count_sent(struct router *r, uint8_t type, uint8_t code)
{
	if (type == 129)
		r->cst.icmp6_echo_replies++;
	else if (type == 3)
		r->cst.icmp6_time_exceeded++;
	else if (type == 2)
		r->cst.icmp6_too_big++;
	else if (type == 4)
		r->cst.icmp6_param_problem++;
	else if (type == 1 && code == 0)
		r->cst.icmp6_no_route++;
	else if (type == 1 && code == 1)
		r->cst.icmp6_prohibited++;
	else if (type == 1 && code == 2)
		r->cst.icmp6_beyond_scope++;
	else if (type == 1 && code == 3)
		r->cst.icmp6_addr_unreach++;
	else if (type == 1 && code == 4)
		r->cst.icmp6_port_unreach++;
	else if (type == ICMP6_REDIRECT)
		r->cst.icmp6_redirects++;
}

/* Fragment the router's own IPv6 packet @m to @mtu bytes and queue the
 * pieces for @port, all or none; @m is consumed. How many were queued. */
static int fragment6_send(struct router *r, struct rte_mbuf *m, uint16_t port, uint16_t mtu)
{
	struct rte_mbuf *frags[64];
	int n;

	/* unpredictable, so that no one off the path can slip fragments into
	 * the reassembly of our replies (RFC 7739) */
	n = ip6_fragment(m, mtu, (uint32_t)rte_rand(), r->pools[r->ports[port].socket], frags,
			 RTE_DIM(frags));
	rte_pktmbuf_free(m);
	return control_send_train(r, frags, n, port);
}

void send_ip6(struct router *r, struct rte_mbuf *m, uint16_t port, const struct rte_ether_addr *mac,
	      bool forwarded)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	/* read now: once sent, @m belongs to a worker */
	const bool icmp = !forwarded && dp_ctrl_aux(m) == CTRL_ORIG_ICMP;
	const bool rst = !forwarded && dp_ctrl_aux(m) == CTRL_ORIG_TCP_RST;
	const uint8_t type = dp_ctrl_icmp_type(m), code = dp_ctrl_icmp_code(m);

	/* the router's own packet over 1280 bytes (an echo reply to a large
	 * request) is fragmented at its source (RFC 8200 4.5): it does no
	 * path MTU discovery, and RFC 8201 1 has it send nothing larger than
	 * the IPv6 minimum MTU, so a Packet Too Big from a narrower return
	 * path, which it drops, never matters. On a port below that (IPv4
	 * only, its link-local address answering), to the port's MTU */
	const uint16_t own_mtu = RTE_MIN((uint16_t)IP6_MIN_MTU, r->dp_ports[port].mtu);
	const bool frag = !forwarded && ip6_size(ip) > own_mtu;

	if (!frag && ip6_size(ip) > r->dp_ports[port].mtu) {
		/* routers never fragment IPv6: a held packet too big for its
		 * port is refused as the worker would, the frame and hop
		 * limit as they arrived */
		if (forwarded)
			ctrl_drop_error(r, m, CDROP_TOO_BIG, 2, 0, r->dp_ports[port].mtu);
		else
			cdrop6(r, m, CDROP_TOO_BIG);
		return;
	}
	if (forwarded)
		ip->hop_limits--;
	eth->dst_addr = *mac;
	eth->src_addr = r->dp_ports[port].mac;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	if (frag) {
		/* all the fragments queued or none */
		if (fragment6_send(r, m, port, own_mtu) > 0 && icmp)
			icmp6_count_sent(r, type, code);
		return;
	}
	if (control_send(r, m, port) != 0)
		return;
	if (forwarded)
		r->cst.resolved_fwd++;
	else if (icmp)
		icmp6_count_sent(r, type, code);
	else if (rst)
		r->cst.tcp_resets++;
}

/* The neighbour a packet to @dst goes to, and its port; link-local
 * destinations are on @port_hint's link. A multipath route's gateway is
 * the one the workers choose for a packet from @src with ports @l4
 * (router_flow_l4()) (NULL: the router's own, with no flow hash: the
 * first gateway whose neighbour is not doubtful). */
static int next_hop6(struct router *r, const uint8_t *dst, const uint8_t *src, uint32_t l4,
		     uint16_t port_hint, struct fr_addr *nb, uint16_t *port)
{
	struct fr_addr d, s;
	struct fib_route rt;

	d.family = AF_INET6;
	memcpy(d.v6, dst, 16);
	if (ip6_is_linklocal(dst)) {
		if (!router_port_ok(r, port_hint))
			return -1;
		*nb = d;
		*port = port_hint;
		return 0;
	}
	if (src != NULL) {
		s.family = AF_INET6;
		memcpy(s.v6, src, 16);
	}
	if (fib_route_lookup_flow(r->fib, &d, src != NULL ? &s : NULL, src != NULL ? l4 : 0, &rt) !=
		    0 ||
	    (rt.type != FIB_NH_GATEWAY && rt.type != FIB_NH_CONNECTED) ||
	    !router_port_ok(r, rt.port))
		return -1;
	*nb = rt.type == FIB_NH_GATEWAY ? rt.gw : d;
	*port = rt.port;
	return 0;
}

bool held_route_holds6(struct router *r, const struct rte_mbuf *m, const struct neigh_info *ni)
{
	const struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	struct fr_addr nb;
	uint16_t port;
	/* the router's own: with no flow hash, as control_output6() chose
	 * (held_route_holds()) */
	const bool own = dp_ctrl_reason(m) == CTRL_ORIGINATED;

	return next_hop6(r, ip->dst_addr, own ? NULL : ip->src_addr, own ? 0 : router_flow_l4(r, m),
			 ni->port, &nb, &port) == 0 &&
	       port == ni->port && fr_addr_eq(&nb, &ni->addr);
}

void control_output6(struct router *r, struct rte_mbuf *m, uint16_t port_hint)
{
	struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	struct neigh_info ni;
	struct fr_addr nb;
	uint16_t port;

	if (dp_ctrl_reason(m) != CTRL_ORIGINATED)
		dp_ctrl_reason_set(m, CTRL_ORIGINATED);
	if (next_hop6(r, ip->dst_addr, NULL, 0, port_hint, &nb, &port) != 0) {
		cdrop6(r, m, CDROP_NO_ROUTE_BACK);
		return;
	}
	/* from one of our link-local addresses (an echo reply to a request
	 * sent to it, whatever its source claimed): only onto that address's
	 * own link, to the destination itself, never through a router (RFC
	 * 4291 2.5.6), as IPv4's 169.254/16 (control_output()) */
	if (ip6_is_linklocal(ip->src_addr) &&
	    (!port_owns6(r, port, ip->src_addr) || memcmp(nb.v6, ip->dst_addr, 16) != 0)) {
		cdrop6(r, m, CDROP_NO_ROUTE_BACK);
		return;
	}
	if (ip6_is_linklocal(ip->src_addr))
		ll_in_use(r, port); /* probed first, on a port new to IPv6 */
	if (neigh_get(r->neigh, &nb, port, &ni) == 0 && neigh_state_usable(ni.state)) {
		if (ni.state == NEIGH_S_STALE)
			neigh_use(r->neigh, &nb, port);
		send_ip6(r, m, port, &ni.mac, false);
		return;
	}
	control_resolve(r, m, &nb, port);
}

void resolve_input6(struct router *r, struct rte_mbuf *m)
{
	struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	struct fr_addr nb;
	uint16_t port;

	/* the route as it is now (it may have changed since the worker looked);
	 * a link-local source that the worker let back out of its arrival
	 * port never leaves by another (RFC 4291 2.5.6; m->port is still the
	 * arrival port) */
	if (ip6_is_linklocal(ip->dst_addr)) {
		cdrop6(r, m, CDROP_ROUTE_CHANGED);
		return;
	}
	if (next_hop6(r, ip->dst_addr, ip->src_addr, router_flow_l4(r, m), FIB_PORT_NONE, &nb,
		      &port) != 0) {
		/* no route that forwards it now: what the route is */
		struct fr_addr d = {.family = AF_INET6};
		struct fib_route rt;

		memcpy(d.v6, ip->dst_addr, 16);
		route_changed(r, m, fib_route_lookup(r->fib, &d, &rt) == 0 ? rt.type : -1);
		return;
	}
	if (ip6_is_linklocal(ip->src_addr) && port != m->port) {
		/* as the worker refuses it now: beyond the scope of its
		 * source (RFC 4443 3.1, code 2), to its own link */
		ctrl_drop_error(r, m, CDROP_ROUTE_CHANGED, 1, 2, 0);
		return;
	}
	control_resolve(r, m, &nb, port);
}

/* ---- ICMPv6 -------------------------------------------------------------------- */

void icmp6_error(struct router *r, struct rte_mbuf *orig, uint8_t type, uint8_t code, uint32_t aux)
{
	const struct rte_ipv6_hdr *oip =
		rte_pktmbuf_mtod_offset(orig, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t olen = RTE_MIN(ip6_size(oip), rte_pktmbuf_pkt_len(orig) - RTE_ETHER_HDR_LEN);
	uint32_t quote =
		RTE_MIN(olen, (uint32_t)(ICMP6_ERROR_MAX - sizeof(struct rte_ipv6_hdr) - 8));
	struct rte_ipv6_hdr *ip;
	struct fr_addr nb;
	uint16_t port;
	uint8_t *ic;
	uint32_t v;
	char *p;
	struct rte_mbuf *m;

	/* none about a source known to be an anycast address, the Subnet-Router
	 * anycast address of one of the router's prefixes (RFC 4443 2.4
	 * (e.6)): counted as every error the rules forbid, not as an error
	 * with no way back (the route back is the router's own) */
	if (router_anycast6(r, oip->src_addr)) {
		r->cst.icmp_not_sent++;
		rte_pktmbuf_free(orig);
		return;
	}
	/* the error leaves by the port towards the original source */
	if (next_hop6(r, oip->src_addr, NULL, 0, orig->port, &nb, &port) != 0) {
		cdrop6(r, orig, CDROP_NO_ROUTE_BACK);
		return;
	}
	m = control_alloc(r, port);
	p = m ? rte_pktmbuf_append(m, (uint16_t)(RTE_ETHER_HDR_LEN + sizeof(*ip) + 8 + quote))
	      : NULL;
	if (p == NULL) {
		rte_pktmbuf_free(m);
		cdrop6(r, orig, CDROP_NO_MBUF);
		return;
	}
	frame_init(p, RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);
	ic = (uint8_t *)(ip + 1);
	memset(ip, 0, sizeof(*ip) + 8);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(8 + quote));
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = ICMP6_HOP_LIMIT;
	/* RFC 4443 2.2: the address the packet was sent to when it was one of
	 * ours (a link-local one when the error leaves by its link to a host
	 * on it: a link-local source goes no further, RFC 4291 2.5.6); about
	 * a packet to a group or a Subnet-Router anycast address, a unicast
	 * address of the port it came in by (2.2 (b): never another port's,
	 * as an echo reply to a group, echo_reply6()); else an address of the
	 * port the error leaves by */
	if (router_owns6(r, oip->dst_addr) &&
	    (!ip6_is_linklocal(oip->dst_addr) ||
	     (port_owns6(r, port, oip->dst_addr) && port_onlink6(r, port, oip->src_addr))))
		memcpy(ip->src_addr, oip->dst_addr, 16);
	else if (ip6_is_mcast(oip->dst_addr) || router_anycast6(r, oip->dst_addr))
		port_src6(r, orig->port, oip->src_addr, ip->src_addr);
	else
		error_src6(r, port, oip->src_addr, ip->src_addr);
	memcpy(ip->dst_addr, oip->src_addr, 16);
	ic[0] = type;
	ic[1] = code;
	v = rte_cpu_to_be_32(aux); /* MTU (2/0) or pointer (4/x) */
	memcpy(ic + 4, &v, 4);
	frame_copy_out(orig, RTE_ETHER_HDR_LEN, quote, ic + 8);
	{
		uint16_t ck = rte_ipv6_udptcp_cksum(ip, ic);

		memcpy(ic + 2, &ck, 2);
	}
	rte_pktmbuf_free(orig);
	dp_ctrl_set(m, CTRL_ORIGINATED, type, code, CTRL_ORIG_ICMP);
	control_output6(r, m, port);
}

/* Turn an echo request into its reply, in place. */
static void echo_reply6(struct router *r, struct rte_mbuf *m, struct rte_ipv6_hdr *ip)
{
	uint8_t *ic = (uint8_t *)(ip + 1), a[16];
	uint16_t ck = 0;

	ic[0] = 129;
	memcpy(ic + 2, &ck, 2);
	memcpy(a, ip->src_addr, 16);
	/* to a Subnet-Router anycast address or a group: answered from a
	 * unicast address of the port it came in by (RFC 4443 2.2 (b), 4.2:
	 * a group's answer never from another port's; group_echo6() answers
	 * only a source on that link) */
	if (ip6_is_mcast(ip->dst_addr))
		port_src6(r, m->port, a, ip->src_addr);
	else if (router_anycast6(r, ip->dst_addr))
		error_src6(r, m->port, a, ip->src_addr);
	else
		memcpy(ip->src_addr, ip->dst_addr, 16);
	memcpy(ip->dst_addr, a, 16);
	ip->hop_limits = ICMP6_HOP_LIMIT;
	ck = rte_ipv6_udptcp_cksum_mbuf(m, ip, RTE_ETHER_HDR_LEN + sizeof(*ip));
	memcpy(ic + 2, &ck, 2);
	dp_ctrl_set(m, CTRL_ORIGINATED, 129, 0, CTRL_ORIG_ICMP);
	control_output6(r, m, m->port);
}

/*
 * A TCP segment for the router (@m; its @len bytes at @off past the IPv6
 * header, whole): no port listens, so a reset goes back (RFC 9293
 * 3.10.7.1), from the address it was sent to (a unicast one of the port it
 * came in by for a Subnet-Router anycast address), unless it is a reset
 * itself. Counted local_unreachable, as a UDP datagram's 1/4 is; within
 * the rate and the rules of an error (never to a group, nor about a frame
 * to one, nor to one of the router's anycast addresses: such a segment
 * can only be forged).
 */
static void tcp_reset6(struct router *r, struct rte_mbuf *m, const struct rte_ipv6_hdr *oip,
		       uint32_t off, uint32_t len)
{
	uint8_t th[20];
	const uint8_t *t = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN + sizeof(*oip) + off, 20, th);
	struct rte_ipv6_hdr *ip;
	struct rte_mbuf *n;
	uint16_t ck;

	r->cst.drop[CDROP_LOCAL_UNREACH]++;
	/* a reset is never answered; why not the rest, icmp_ctrl_error_due()
	 * counts */
	if (t == NULL || (t[13] & RTE_TCP_RST_FLAG) || !icmp_ctrl_error_due(r, m, 1, 4, false)) {
		rte_pktmbuf_free(m);
		return;
	}
	ip = tcp_rst_alloc(r, m, RTE_ETHER_TYPE_IPV6, sizeof(*ip), &n);
	if (ip == NULL)
		return;
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = RTE_BE16(20);
	ip->proto = IPPROTO_TCP;
	ip->hop_limits = ICMP6_HOP_LIMIT;
	if (router_anycast6(r, oip->dst_addr))
		error_src6(r, m->port, oip->src_addr, ip->src_addr);
	else
		memcpy(ip->src_addr, oip->dst_addr, 16);
	memcpy(ip->dst_addr, oip->src_addr, 16);
	tcp_rst_fill((uint8_t *)(ip + 1), t, len);
	ck = rte_ipv6_udptcp_cksum(ip, ip + 1);
	memcpy((uint8_t *)(ip + 1) + 16, &ck, 2);
	n->port = m->port;
	rte_pktmbuf_free(m);
	dp_ctrl_set(n, CTRL_ORIGINATED, 0, 0, CTRL_ORIG_TCP_RST);
	control_output6(r, n, n->port);
}

/* The options of the hop-by-hop or destination options header (@nh) of
 * @len bytes at @h: 0 when each is known or to be skipped when not; else
 * the top two bits of the type of the first unknown one that says
 * otherwise (1: discard, 2: discard and send 4/2, 3: the same unless the
 * packet went to a group), its offset in the header in @at; -1 when an
 * option runs past the header. */
static int opts6_action(const uint8_t *h, uint32_t len, uint8_t nh, uint32_t *at)
{
	uint32_t i;

	for (i = 2; i < len;) {
		uint8_t t = h[i];

		if (t == 0) { /* Pad1 */
			i++;
			continue;
		}
		if (i + 2 > len || i + 2 + h[i + 1] > len)
			return -1;
		/* PadN; router alert (hop-by-hop): nothing to do */
		if (t != 1 && !(t == 5 && nh == IPPROTO_HOPOPTS) && (t >> 6) != 0) {
			*at = i;
			return t >> 6;
		}
		i += 2u + h[i + 1];
	}
	return 0;
}

/*
 * RFC 8200 4: the extension headers of a packet for the router, in order:
 * hop-by-hop options (first only) and destination options, each option as
 * the top bits of its type say when unknown (skip, discard, or discard
 * with 4/2 pointing at it); a routing header with no segments left is
 * passed over, one with segments left earns 4/0 at its type (the router
 * routes by none). An atomic fragment (offset 0, no more fragments) is
 * the whole packet, processed on its own (RFC 6946 4, RFC 8200 4.5): its
 * fragment header is passed over too; a real fragment stops the walk
 * (IPPROTO_FRAGMENT, @off its offset: reasm6_input()). Returns the
 * upper-layer protocol, its offset after the IPv6 header in @off and where
 * its next-header field is in @nh_at; or -1 when the packet was consumed
 * (dropped and counted, or answered).
 */
static int ext_headers6(struct router *r, struct rte_mbuf *m, const struct rte_ipv6_hdr *ip,
			uint32_t plen, uint32_t *off, uint32_t *nh_at)
{
	const uint8_t *p = (const uint8_t *)(ip + 1);
	uint8_t nh = ip->proto;
	uint32_t o = 0, at = offsetof(struct rte_ipv6_hdr, proto);

	/* the headers in the first segment, which holds the IPv6 header
	 * (ip6_validate()); a jumbo packet's data may go on in others: a
	 * header that runs past it is malformed below */
	plen = RTE_MIN(plen, rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN - (uint32_t)sizeof(*ip));
	while (nh == IPPROTO_HOPOPTS || nh == IPPROTO_DSTOPTS || nh == IPPROTO_ROUTING ||
	       nh == IPPROTO_FRAGMENT) {
		uint32_t len, i;

		if (nh == IPPROTO_FRAGMENT) {
			/* 8 bytes: next header, reserved, offset and M, id */
			if (o + 8 > plen) {
				cdrop6(r, m, CDROP_LOCAL6_EXT);
				return -1;
			}
			if ((p[o + 2] << 8 | p[o + 3]) & ~0x6u) /* offset, M: a fragment */
				break;
			at = sizeof(*ip) + o;
			nh = p[o];
			o += 8;
			continue;
		}
		if (nh == IPPROTO_HOPOPTS && o != 0) {
			/* hop-by-hop must come first */
			ctrl_drop_error(r, m, CDROP_LOCAL6_EXT, 4, 1, at);
			return -1;
		}
		if (o + 8 > plen || o + ((uint32_t)p[o + 1] + 1) * 8 > plen) {
			cdrop6(r, m, CDROP_LOCAL6_EXT);
			return -1;
		}
		len = ((uint32_t)p[o + 1] + 1) * 8;
		if (nh == IPPROTO_ROUTING) {
			if (p[o + 3] != 0) { /* segments left */
				ctrl_drop_error(r, m, CDROP_LOCAL6_EXT, 4, 0, sizeof(*ip) + o + 2);
				return -1;
			}
		} else {
			int act = opts6_action(p + o, len, nh, &i);

			/* 11 asks for 4/2 unless the packet went to a group:
			 * to our address in an L2 group frame, no error (RFC
			 * 4443 2.4 (e.4)); 10 even then */
			if (act < 0 || act == 1 || (act == 3 && frame_l2_group(m))) {
				cdrop6(r, m, CDROP_LOCAL6_EXT);
				return -1;
			}
			if (act >= 2) {
				ctrl_drop_error(r, m, CDROP_LOCAL6_EXT, 4, 2, sizeof(*ip) + o + i);
				return -1;
			}
		}
		at = sizeof(*ip) + o;
		nh = p[o];
		o += len;
	}
	if (nh == IPPROTO_NONE) {
		cdrop6(r, m, CDROP_LOCAL6_EXT);
		return -1;
	}
	*off = o;
	*nh_at = at;
	return nh;
}

/* Take @off bytes of extension headers out from after the IPv6 header of
 * @m; the upper layer @proto then follows it. */
static struct rte_ipv6_hdr *ext_strip6(struct rte_mbuf *m, uint32_t off, uint8_t proto)
{
	struct rte_ipv6_hdr *ip =
		(struct rte_ipv6_hdr *)(frame_cut(m,
						  RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr),
						  off) +
					RTE_ETHER_HDR_LEN);

	ip->proto = proto;
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ip->payload_len) - off));
	return ip;
}

/* ---- MLD (RFC 3810) ------------------------------------------------------ */

/*
 * The ports take every group frame (all-multicast), but a switch snooping
 * MLD forwards a group's frames only to ports that reported listening to
 * it: the router reports the groups ND needs of it (RFC 4861 7.2.1: the
 * solicited-node group of each of its addresses, link-local and
 * Subnet-Router anycast ones included; RFC 4291 2.8: all-routers; never
 * all-nodes, RFC 3810 6), when a port's addresses are announced (in
 * service, an address added: twice, 2 s apart, as the announcements) and
 * in answer to a query. Reports are MLDv2 (RFC 3810 5.2), each group in
 * EXCLUDE mode with no sources (listening to every source), but for
 * MLD_V1_PRESENT_MS after an MLDv1 query on the port: then MLDv1 reports
 * (RFC 2710 3), one per group, for a querier (and the switches snooping
 * it) that knows no other (RFC 3810 8.2.1).
 */
#define MLD_QUERY	   130
#define MLD_REPORT_V1	   131
#define MLD_REPORT_V2	   143
#define MLD_REC_IS_INCLUDE 1 /* current state, of sources asked about (answers) */
#define MLD_REC_IS_EXCLUDE 2 /* current state (answers) */
#define MLD_REC_TO_INCLUDE 3 /* state change: a group left (no source) */
#define MLD_REC_TO_EXCLUDE 4 /* state change (unsolicited) */
#define MLD_DONE_V1	   132
#define MLD_HBH_LEN	   8 /* hop-by-hop header: router alert and padding */
#define MLD_REC_LEN	   20
#define MLD_V1_LEN	   24 /* an MLDv1 query or report; MLDv2's query is 28 and more */
#define MLD_V2_QUERY_MIN   28
/* an MLDv2 report's ICMPv6 message at most: what the IPv6 minimum MTU
 * takes after the IPv6 and hop-by-hop headers */
#define MLD_REPORT_MAX (1280 - 40 - MLD_HBH_LEN)
/* (a record of MLD_SRC_MAX sources fits one report: mld_answer_send()) */
_Static_assert(8 + MLD_REC_LEN + 16 * MLD_SRC_MAX <= MLD_REPORT_MAX, "MLD_SRC_MAX too large");
/* RFC 3810 9.12: Older Version Querier Present Timeout, the robustness
 * variable (2) times the query interval (125 s) plus a query's response
 * interval (10 s) */
#define MLD_V1_PRESENT_MS 260000
/* the least time between two answers to queries on a port: a flood of
 * queries delays answers, merged, and loses none */
#define MLD_ANSWER_INTERVAL_MS 100
/* RFC 3810 9.11: Unsolicited Report Interval, the most between a state
 * change's two reports */
#define MLD_LEFT_AGAIN_MS 1000

static const uint8_t mld_reports_group[16] = {0xff, 0x02, [15] = 0x16}; /* all MLDv2 routers */
static const uint8_t all_routers[16] = {0xff, 0x02, [15] = 2};

/* Where group @a is among the @n in @g; @n when it is not. */
static unsigned int group_at(uint8_t (*g)[16], unsigned int n, const uint8_t *a)
{
	unsigned int i;

	for (i = 0; i < n && memcmp(g[i], a, 16) != 0; i++)
		;
	return i;
}

static unsigned int group_add(uint8_t (*g)[16], unsigned int n, const uint8_t *a)
{
	if (group_at(g, n, a) < n)
		return n;
	memcpy(g[n], a, 16);
	return n + 1;
}

/* The groups of @port's IPv6 address @pa added to the @n in @g: its
 * solicited-node group, and its prefix's (the Subnet-Router anycast
 * address's) but for a /127 or /128. How many there are now. */
static unsigned int addr_groups(uint8_t (*g)[16], unsigned int n, const struct port_addr *pa)
{
	struct fr_prefix pf;
	uint8_t sn[16];

	nd_solicited_node(pa->addr.v6, sn);
	n = group_add(g, n, sn);
	if (port_addr_anycast6(pa, &pf)) {
		nd_solicited_node(pf.addr.v6, sn);
		n = group_add(g, n, sn);
	}
	return n;
}

/* all-routers and the link-local address's solicited-node group, added to
 * the @n in @g: how many there are now. */
static unsigned int port_groups(const struct router *r, uint16_t port, uint8_t (*g)[16],
				unsigned int n)
{
	uint8_t sn[16];

	n = group_add(g, n, all_routers);
	nd_solicited_node(r->dp_ports[port].ll6, sn);
	return group_add(g, n, sn);
}

/* The groups @port listens to (above), into @g: how many. */
static unsigned int mld_groups(const struct router *r, uint16_t port,
			       uint8_t (*g)[MLD_GROUPS_MAX][16])
{
	const struct fr_port *p = &r->ports[port];
	unsigned int i, n = port_groups(r, port, *g, 0);

	for (i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].addr.family == AF_INET6)
			n = addr_groups(*g, n, &p->addrs[i]);
	return n;
}

/* The header the ICMPv6 checksum of an MLD message after @ip's hop-by-hop
 * options is taken with: the upper layer's @len and type. */
static struct rte_ipv6_hdr mld_pseudo(const struct rte_ipv6_hdr *ip, uint32_t len)
{
	struct rte_ipv6_hdr ph = *ip;

	ph.payload_len = rte_cpu_to_be_16((uint16_t)len);
	ph.proto = IPPROTO_ICMPV6;
	return ph;
}

/* An MLD message of @ilen bytes on @port to group @dst (its frame, the
 * router alert's hop-by-hop header before it): where its ICMPv6 message
 * goes, zeroed, or NULL when no mbuf was free. From the link-local address
 * once duplicate address detection kept it, before that from :: (RFC 3810
 * 5.2.13, RFC 3590 4). */
static uint8_t *mld_frame(struct router *r, uint16_t port, const uint8_t *dst, uint16_t ilen,
			  struct rte_mbuf **m)
{
	struct rte_ipv6_hdr *ip;
	struct rte_ether_hdr *eth;
	uint8_t *hbh;
	char *frame = control_frame(
		r, port, (uint16_t)(RTE_ETHER_HDR_LEN + sizeof(*ip) + MLD_HBH_LEN + ilen), m);

	if (frame == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)frame;
	nd_mcast_mac(dst, &eth->dst_addr);
	eth->src_addr = r->dp_ports[port].mac;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(eth + 1);
	memset(ip, 0, sizeof(*ip) + MLD_HBH_LEN + ilen);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(MLD_HBH_LEN + ilen));
	ip->proto = IPPROTO_HOPOPTS;
	ip->hop_limits = 1;
	if (r->ports[port].ll_dad == ADDR_DAD_OK)
		memcpy(ip->src_addr, r->dp_ports[port].ll6, 16);
	memcpy(ip->dst_addr, dst, 16);
	hbh = (uint8_t *)(ip + 1);
	hbh[0] = IPPROTO_ICMPV6;
	hbh[2] = 5; /* router alert (RFC 2711), value 0: MLD; */
	hbh[3] = 2;
	hbh[6] = 1; /* then PadN of no data */
	return hbh + MLD_HBH_LEN;
}

/* @m's MLD message @ic of @ilen bytes: its checksum put in, and sent on
 * @port. True: queued. */
static bool mld_send(struct router *r, uint16_t port, struct rte_mbuf *m, uint8_t *ic,
		     uint16_t ilen)
{
	const struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	struct rte_ipv6_hdr ph = mld_pseudo(ip, ilen);
	uint16_t ck = rte_ipv6_udptcp_cksum(&ph, ic);

	memcpy(ic + 2, &ck, 2);
	if (control_send(r, m, port) != 0)
		return false;
	r->cst.mld_reports++;
	return true;
}

/* In MLDv1 compatibility on @port: an MLDv1 query came within
 * MLD_V1_PRESENT_MS. */
static bool mld_v1(const struct router *r, uint16_t port)
{
	return control_now_ms() < r->ports[port].mld_v1_until_ms;
}

/* A report on @port of the @n groups @g: MLDv2, each a record of @type,
 * or in MLDv1 compatibility one MLDv1 message per group: a report to the
 * group, or for a group left a Done to all routers (RFC 2710 4). True:
 * all queued. */
static bool mld_report_send(struct router *r, uint16_t port, uint8_t type, uint8_t (*g)[16],
			    unsigned int n)
{
	uint16_t ilen = (uint16_t)(8 + n * MLD_REC_LEN);
	struct rte_mbuf *m;
	uint8_t *ic;
	unsigned int i;
	bool sent = true;

	if (mld_v1(r, port)) {
		for (i = 0; i < n; i++) {
			const bool done = type == MLD_REC_TO_INCLUDE;

			ic = mld_frame(r, port, done ? all_routers : g[i], MLD_V1_LEN, &m);
			if (ic == NULL)
				return false;
			ic[0] = done ? MLD_DONE_V1 : MLD_REPORT_V1;
			memcpy(ic + 8, g[i], 16);
			sent &= mld_send(r, port, m, ic, MLD_V1_LEN);
		}
		return sent;
	}
	ic = mld_frame(r, port, mld_reports_group, ilen, &m);
	if (ic == NULL)
		return false;
	ic[0] = MLD_REPORT_V2;
	ic[6] = (uint8_t)(n >> 8);
	ic[7] = (uint8_t)n;
	for (i = 0; i < n; i++) {
		uint8_t *rec = ic + 8 + i * MLD_REC_LEN;

		rec[0] = type;
		memcpy(rec + 4, g[i], 16);
	}
	return mld_send(r, port, m, ic, ilen);
}

void mld_report(struct router *r, uint16_t port)
{
	uint8_t g[MLD_GROUPS_MAX][16];

	if (!port_speaks6(&r->ports[port]))
		return; /* not speaking IPv6 on this link */
	mld_report_send(r, port, MLD_REC_TO_EXCLUDE, g, mld_groups(r, port, &g));
}

/* Of the @n groups @g, those @port listens to no more (a later change may
 * have joined one again) kept, in place: how many. */
static unsigned int groups_gone(const struct router *r, uint16_t port, uint8_t (*g)[16],
				unsigned int n)
{
	uint8_t now[MLD_GROUPS_MAX][16];
	const unsigned int m = port_speaks6(&r->ports[port]) ? mld_groups(r, port, &now) : 0;
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (group_at(now, m, g[i]) == m)
			memmove(g[k++], g[i], 16);
	return k;
}

/* When a state change's second report goes: after a random delay of up
 * to the Unsolicited Report Interval (RFC 3810 6.1), never 0 (none) */
static uint64_t mld_again_at(void)
{
	return control_now_ms() + 1 + rte_rand_max(MLD_LEFT_AGAIN_MS);
}

void mld_leave(struct router *r, uint16_t port, const struct port_addr *gone, unsigned int k)
{
	struct fr_port *p = &r->ports[port];
	uint8_t g[MLD_GROUPS_MAX][16];
	unsigned int n = 0, i;

	RTE_ASSERT(k <= FR_PORT_MAX_ADDRS);
	for (i = 0; i < k; i++)
		n = addr_groups(g, n, &gone[i]);
	/* its last IPv6: the port speaks it no more, its groups all left */
	n = port_groups(r, port, g, n);
	n = groups_gone(r, port, g, n);
	if (n == 0)
		return;
	mld_report_send(r, port, MLD_REC_TO_INCLUDE, g, n);
	/* MLDv2: once more, after a random delay up to the Unsolicited
	 * Report Interval (RFC 3810 6.1; what no longer fits goes once).
	 * MLDv1's Done goes once (RFC 2710 4) */
	if (mld_v1(r, port))
		return;
	for (i = 0; i < n && p->nb_mld_left < RTE_DIM(p->mld_left); i++)
		p->nb_mld_left = (uint8_t)group_add(p->mld_left, p->nb_mld_left, g[i]);
	if (p->mld_left_ms == 0)
		p->mld_left_ms = mld_again_at();
}

void mld_report_again(struct router *r, uint16_t port)
{
	r->ports[port].mld_again_ms = mld_again_at();
}

void mld_cancel(struct fr_port *p)
{
	p->mld_general_ms = 0;
	p->nb_mld_asked = 0;
	p->mld_left_ms = 0;
	p->nb_mld_left = 0;
	p->mld_again_ms = 0;
}

void mld_again_due(struct router *r, uint16_t port, uint64_t now)
{
	struct fr_port *p = &r->ports[port];

	if (p->mld_again_ms == 0 || now < p->mld_again_ms)
		return;
	p->mld_again_ms = 0;
	mld_report(r, port); /* (none when the port speaks IPv6 no more) */
}

void mld_leave_due(struct router *r, uint16_t port, uint64_t now)
{
	struct fr_port *p = &r->ports[port];
	unsigned int n;

	if (p->mld_left_ms == 0 || now < p->mld_left_ms)
		return;
	p->mld_left_ms = 0;
	n = groups_gone(r, port, p->mld_left, p->nb_mld_left);
	p->nb_mld_left = 0;
	if (n > 0)
		mld_report_send(r, port, MLD_REC_TO_INCLUDE, p->mld_left, n);
}

/* The Maximum Response Delay of the MLD query @ic of @ilen bytes, in ms:
 * MLDv1's as it is (RFC 2710 3.4), MLDv2's Maximum Response Code decoded
 * (RFC 3810 5.1.3: from 32768 on, a mantissa and an exponent) */
static uint32_t mld_max_delay_ms(const uint8_t *ic, uint32_t ilen)
{
	const uint32_t code = (uint32_t)ic[4] << 8 | ic[5];

	if (ilen == MLD_V1_LEN || code < 32768)
		return code;
	return ((code & 0xfff) | 0x1000) << (((code >> 12) & 7) + 3);
}

/* The @n sources @src added to group @i's asked ones (none kept past
 * MLD_SRC_MAX: the whole group is answered about then) */
static void mld_sources_merge(struct fr_port *p, unsigned int i, const uint8_t *src, unsigned int n)
{
	unsigned int j, k;

	for (j = 0; j < n && p->nb_mld_asked_src[i] != 0; j++) {
		const uint8_t *a = src + 16 * j;

		for (k = 0; k < p->nb_mld_asked_src[i] && memcmp(p->mld_asked_src[i][k], a, 16);
		     k++)
			;
		if (k < p->nb_mld_asked_src[i])
			continue;
		if (k == MLD_SRC_MAX) {
			p->nb_mld_asked_src[i] = 0;
			return;
		}
		memcpy(p->mld_asked_src[i][k], a, 16);
		p->nb_mld_asked_src[i]++;
	}
}

/* An answer on @p about group @g (NULL: to a general query; @nsrc
 * sources @src when the query asked about those) made due at @due, as
 * RFC 3810 6.2 merges them: none when one to a general query is due
 * sooner; else to a general query, the one due before replaced; about a
 * group, the sooner of the two when one is due already, about the whole
 * group when either is, else about both queries' sources. */
static void mld_answer_at(struct fr_port *p, const uint8_t *g, const uint8_t *src,
			  unsigned int nsrc, uint64_t due)
{
	unsigned int i;

	if (p->mld_general_ms != 0 && p->mld_general_ms <= due)
		return;
	i = g != NULL ? group_at(p->mld_asked, p->nb_mld_asked, g) : 0;
	/* (a full list holds groups the port left: a general answer says
	 * what it listens to now) */
	if (g == NULL || i == RTE_DIM(p->mld_asked)) {
		p->mld_general_ms = due;
		return;
	}
	if (i == p->nb_mld_asked) {
		memcpy(p->mld_asked[i], g, 16);
		p->mld_asked_ms[i] = due;
		p->nb_mld_asked++;
		/* (sources: one to merge with, then those) */
		p->nb_mld_asked_src[i] = nsrc > 0 && nsrc <= MLD_SRC_MAX;
		if (p->nb_mld_asked_src[i] != 0) {
			memcpy(p->mld_asked_src[i][0], src, 16);
			mld_sources_merge(p, i, src + 16, nsrc - 1);
		}
		return;
	}
	if (due < p->mld_asked_ms[i])
		p->mld_asked_ms[i] = due;
	if (nsrc == 0)
		p->nb_mld_asked_src[i] = 0;
	else
		mld_sources_merge(p, i, src, nsrc);
}

/* An answer on @port about the @n groups @g (MLDv1 compatibility:
 * mld_report_send()): IS_IN of a group's @nsrc[i] sources @src[i] where
 * source-specific queries asked about those (RFC 3810 6.3: the EXCLUDE {}
 * of a group the port listens to answers IS_IN(B) to a query about B),
 * else IS_EX {}; in as many reports as the records take within the IPv6
 * minimum MTU. True: all queued. */
static bool mld_answer_send(struct router *r, uint16_t port, uint8_t (*g)[16], unsigned int n,
			    uint8_t (*src)[MLD_SRC_MAX][16], const uint8_t *nsrc)
{
	unsigned int i = 0, j, k;
	bool sent = true;

	if (mld_v1(r, port))
		return mld_report_send(r, port, MLD_REC_IS_EXCLUDE, g, n);
	while (i < n) {
		uint16_t ilen = 8;
		struct rte_mbuf *m;
		uint8_t *ic, *rec;

		for (j = i; j < n && ilen + MLD_REC_LEN + 16u * nsrc[j] <= MLD_REPORT_MAX; j++)
			ilen = (uint16_t)(ilen + MLD_REC_LEN + 16u * nsrc[j]);
		ic = mld_frame(r, port, mld_reports_group, ilen, &m);
		if (ic == NULL)
			return false;
		ic[0] = MLD_REPORT_V2;
		ic[6] = (uint8_t)((j - i) >> 8);
		ic[7] = (uint8_t)(j - i);
		for (rec = ic + 8, k = i; k < j; rec += MLD_REC_LEN + 16u * nsrc[k], k++) {
			rec[0] = nsrc[k] != 0 ? MLD_REC_IS_INCLUDE : MLD_REC_IS_EXCLUDE;
			rec[3] = nsrc[k]; /* number of sources (16 bits) */
			memcpy(rec + 4, g[k], 16);
			memcpy(rec + MLD_REC_LEN, src[k], 16u * nsrc[k]);
		}
		sent &= mld_send(r, port, m, ic, ilen);
		i = j;
	}
	return sent;
}

void mld_answer_due(struct router *r, uint16_t port, uint64_t now)
{
	struct fr_port *p = &r->ports[port];
	uint8_t g[MLD_GROUPS_MAX][16], asked[MLD_GROUPS_MAX][16];
	uint8_t src[MLD_GROUPS_MAX][MLD_SRC_MAX][16], nsrc[MLD_GROUPS_MAX];
	unsigned int n, i, k = 0, kept = 0;

	if (p->mld_general_ms == 0 && p->nb_mld_asked == 0)
		return;
	if (!port_speaks6(p)) {
		p->mld_general_ms = 0;
		p->nb_mld_asked = 0;
		return;
	}
	if (now - p->mld_answered_ms < MLD_ANSWER_INTERVAL_MS)
		return;
	if (p->mld_general_ms != 0 && now >= p->mld_general_ms) {
		/* every group: the answers about one are in it */
		p->mld_general_ms = 0;
		p->nb_mld_asked = 0;
		p->mld_answered_ms = now;
		mld_report_send(r, port, MLD_REC_IS_EXCLUDE, g, mld_groups(r, port, &g));
		return;
	}
	for (i = 0; i < p->nb_mld_asked && now < p->mld_asked_ms[i]; i++)
		;
	if (i == p->nb_mld_asked)
		return; /* none due yet */
	n = mld_groups(r, port, &g);
	for (i = 0; i < p->nb_mld_asked; i++) {
		if (now < p->mld_asked_ms[i]) {
			memmove(p->mld_asked[kept], p->mld_asked[i], 16);
			memmove(p->mld_asked_src[kept], p->mld_asked_src[i],
				16u * p->nb_mld_asked_src[i]);
			p->nb_mld_asked_src[kept] = p->nb_mld_asked_src[i];
			p->mld_asked_ms[kept++] = p->mld_asked_ms[i];
		} else if (group_at(g, n, p->mld_asked[i]) < n) { /* still one of ours */
			memcpy(asked[k], p->mld_asked[i], 16);
			memcpy(src[k], p->mld_asked_src[i], 16u * p->nb_mld_asked_src[i]);
			nsrc[k++] = p->nb_mld_asked_src[i];
		}
	}
	p->nb_mld_asked = (uint8_t)kept;
	if (k == 0)
		return;
	p->mld_answered_ms = now;
	mld_answer_send(r, port, asked, k, src, nsrc);
}

/* RFC 3810 5: an MLD message's hop-by-hop header (@len bytes at @h) holds
 * a Router Alert of value 0 (MLD, RFC 2711), and, RFC 8200 4.2, no unknown
 * option that asks the packet discarded. */
static bool hbh_mld_ok(const uint8_t *h, uint32_t len)
{
	bool alert = false;
	uint32_t i, at;

	if (opts6_action(h, len, IPPROTO_HOPOPTS, &at) != 0)
		return false;
	/* each option within the header: opts6_action() checked */
	for (i = 2; i < len; i += h[i] == 0 ? 1u : 2u + h[i + 1])
		if (h[i] == 5 && h[i + 1] == 2 && h[i + 2] == 0 && h[i + 3] == 0)
			alert = true;
	return alert;
}

/*
 * An MLD query to a group frame (@ip, hop-by-hop options first, @plen bytes
 * after the IPv6 header): answered with a report of the groups it asks
 * about that the port listens to, or counted mld_query_ignored. False:
 * not an MLD query (the caller has it). The answer is made due after a
 * random delay within the query's Maximum Response Delay, merged with
 * those due already (RFC 3810 6.2, mld_answer_at()), and goes from the
 * control thread's timers (mld_answer_due(), every TICK_MS), at most one
 * per MLD_ANSWER_INTERVAL_MS on a port: later when the last was sooner.
 */
static bool mld_query_input(struct router *r, struct rte_mbuf *m, struct rte_ipv6_hdr *ip,
			    uint32_t plen)
{
	const uint8_t *hbh = (const uint8_t *)(ip + 1), *ic;
	uint8_t g[MLD_GROUPS_MAX][16];
	uint16_t port = m->port;
	struct rte_ipv6_hdr ph;
	uint32_t hlen, ilen, nsrc;
	unsigned int n, i;
	uint64_t now, due;
	bool ok;

	if (ip->proto != IPPROTO_HOPOPTS || plen < 8 ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip) + plen)
		return false;
	hlen = (hbh[1] + 1u) * 8;
	if (hbh[0] != IPPROTO_ICMPV6 || plen < hlen + MLD_V1_LEN)
		return false;
	ic = hbh + hlen;
	/* without its Router Alert, no MLD message at all (the caller's) */
	if (ic[0] != MLD_QUERY || !hbh_mld_ok(hbh, hlen))
		return false;
	ilen = plen - hlen;
	ph = mld_pseudo(ip, ilen);
	now = control_now_ms();
	/* an MLDv2 query's sources (RFC 3810 5.1.10); an MLDv1 query has none */
	nsrc = ilen >= MLD_V2_QUERY_MIN ? (uint32_t)ic[26] << 8 | ic[27] : 0;
	/* RFC 3810 5.1.14: a query from other than a link-local source, or
	 * with a hop limit other than 1, is not one to answer; 8.1: one of
	 * 24 bytes is MLDv1's, of 28 and more MLDv2's, any other none. An
	 * MLDv2 query shorter than its sources, or a general one with
	 * sources (5.1.10), is malformed: ignored, as Linux does (nsrc is
	 * 0 below 28 bytes) */
	ok = ip->hop_limits == 1 && ip6_is_linklocal(ip->src_addr) &&
	     (ilen == MLD_V1_LEN ||
	      (ilen >= MLD_V2_QUERY_MIN + 16 * nsrc && (nsrc == 0 || !ip6_is_unspec(ic + 8)))) &&
	     __rte_ipv6_udptcp_cksum(&ph, ic) == 0xffff && router_port_ok(r, port);
	/* an MLDv1 querier: MLDv1 reports on the link for a while (8.2.1),
	 * announcements too, answered or not; a node changing its
	 * compatibility mode cancels its pending answers and repeated
	 * reports (8.2.1) */
	if (ok && ilen == MLD_V1_LEN) {
		struct fr_port *p = &r->ports[port];

		if (!mld_v1(r, port))
			mld_cancel(p);
		p->mld_v1_until_ms = now + MLD_V1_PRESENT_MS;
	}
	/* nor is one answered on a port that does not speak IPv6 (it reports
	 * no groups) */
	if (!ok || !port_speaks6(&r->ports[port])) {
		cdrop6(r, m, CDROP_MLD_QUERY_IGNORED);
		return true;
	}
	due = now + rte_rand_max((uint64_t)mld_max_delay_ms(ic, ilen) + 1);
	due += due == 0; /* (0 is none due) */
	if (ip6_is_unspec(ic + 8)) {
		mld_answer_at(&r->ports[port], NULL, NULL, 0, due);
	} else { /* about one group: answered if it is ours */
		n = mld_groups(r, port, &g);
		i = group_at(g, n, ic + 8);
		if (i == n) {
			cdrop6(r, m, CDROP_MLD_QUERY_IGNORED);
			return true;
		}
		mld_answer_at(&r->ports[port], g[i], ic + MLD_V2_QUERY_MIN, nsrc, due);
	}
	rte_pktmbuf_free(m);
	r->cst.mld_queries++;
	return true;
}

/* A packet to a group, @m, that the router answers as a node: to one of the
 * groups the port it came in by is in (all-nodes, or one it reports), from
 * a source that names another node (not ::, as an MLD report may be sent
 * from, nor one of the router's own addresses, anycast ones too). */
static bool group_ours6(const struct router *r, const struct rte_mbuf *m,
			const struct rte_ipv6_hdr *ip)
{
	uint8_t g[MLD_GROUPS_MAX][16];
	unsigned int n;

	if (!router_port_ok(r, m->port) || !port_speaks6(&r->ports[m->port]) ||
	    ip6_is_unspec(ip->src_addr) || router_owns6(r, ip->src_addr) ||
	    router_anycast6(r, ip->src_addr))
		return false;
	if (memcmp(ip->dst_addr, all_nodes, 16) == 0)
		return true;
	n = mld_groups(r, m->port, &g);
	return group_at(g, n, ip->dst_addr) < n;
}

/* RFC 8200 4.2: an unknown hop-by-hop option whose type's top bits are 10
 * earns 4/2 even about a packet to a group (RFC 4443 2.4 (e.3)), which
 * the router otherwise drops unread (local_multicast), when the router is
 * in it (group_ours6()). Only what decides that error is looked at: any
 * other outcome leaves the packet to the caller. True when @m was
 * consumed. */
static bool group_option_error6(struct router *r, struct rte_mbuf *m, const struct rte_ipv6_hdr *ip,
				uint32_t plen)
{
	const uint8_t *h = (const uint8_t *)(ip + 1);
	uint32_t len, at;

	if (ip->proto != IPPROTO_HOPOPTS || plen < 8 ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip) + 8)
		return false;
	len = (h[1] + 1u) * 8;
	if (len > plen || rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip) + len ||
	    !group_ours6(r, m, ip))
		return false;
	if (opts6_action(h, len, IPPROTO_HOPOPTS, &at) != 2)
		return false;
	ctrl_drop_error(r, m, CDROP_LOCAL6_EXT, 4, 2, sizeof(*ip) + at);
	return true;
}

/* An echo request to a group the router is in (group_ours6(); `ping
 * ff02::2%eth0` finds the routers on a link): answered (RFC 4443 4.2
 * says SHOULD), from a unicast address of the port it came in by, to a
 * source on that link only (link-local, or on one of the port's
 * prefixes): the group is the link's, and no rpf check stands before it
 * (group frames skip it), so another source could be a forger's, its
 * reply sent off the link to the host it names. Dropped then,
 * local_multicast. No extension headers: any other packet to a group is
 * left to the caller. True when @m was consumed. */
static bool group_echo6(struct router *r, struct rte_mbuf *m, struct rte_ipv6_hdr *ip,
			uint32_t plen)
{
	const uint8_t *ic = (const uint8_t *)(ip + 1);

	if (ip->proto != IPPROTO_ICMPV6 || plen < 8 ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip) + 8 || ic[0] != 128 ||
	    ic[1] != 0 || !group_ours6(r, m, ip) ||
	    __rte_ipv6_udptcp_cksum_mbuf(m, ip, RTE_ETHER_HDR_LEN + sizeof(*ip)) != 0xffff)
		return false;
	if (!port_onlink6(r, m->port, ip->src_addr)) {
		cdrop6(r, m, CDROP_LOCAL6_MCAST);
		return true;
	}
	echo_reply6(r, m, ip);
	return true;
}

/* ---- Router Advertisements (RFC 4861 6.2) ------------------------------ */

/* RFC 4861 10: the first ones faster, at most one per 3 s after a
 * solicitation, answered within 0.5 s; prefixes as RFC 4861 6.2.1's
 * defaults (valid 30 days, preferred 7) */
#define RA_INITIAL	   3
#define RA_INITIAL_MAX_MS  16000
#define RA_DELAY_MAX_MS	   500
#define RA_PREFIX_VALID_S  2592000
#define RA_PREFIX_PREFER_S 604800
/* the options: source link-layer address, MTU, the DNS servers and the
 * prefixes, each twice at most (advertised, withdrawn) */
#define RA_LEN_MAX   (16 + 8 + 8 + 2 * (8 + RA_DNS_MAX * 16) + 2 * FR_PORT_MAX_ADDRS * 32)
#define RA_CHECK_MS  1000
#define ND_OPT_RDNSS 25 /* RFC 8106 5.1 */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Where @c says prefix @addr/@len, -1 if it does not */
static int said_pfx(const struct ra_said *c, const uint8_t *addr, uint8_t len)
{
	unsigned int i;

	for (i = 0; i < c->npfx; i++)
		if (c->pfx[i].len == len && memcmp(c->pfx[i].addr, addr, 16) == 0)
			return (int)i;
	return -1;
}

/* What @port's advertisement says now: its MTU, flags, the prefix of each
 * global IPv6 address (once, DAD failures left out), its DNS servers. */
static void ra_said_now(const struct router *r, uint16_t port, struct ra_said *c)
{
	const struct fr_port *p = &r->ports[port];
	struct fr_prefix pf;
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->mtu = r->dp_ports[port].mtu;
	c->flags = p->ra_flags & (RA_MANAGED | RA_OTHER | RA_PRF_MASK);
	for (i = 0; i < p->nb_addrs; i++) {
		const struct port_addr *pa = &p->addrs[i];

		if (pa->addr.family != AF_INET6 || ip6_is_linklocal(pa->addr.v6) ||
		    pa->dad == ADDR_DAD_FAILED)
			continue;
		port_addr_prefix(pa, &pf);
		if (said_pfx(c, pf.addr.v6, pf.len) >= 0)
			continue;
		memcpy(c->pfx[c->npfx].addr, pf.addr.v6, 16);
		c->pfx[c->npfx].len = pa->len;
		/* on-link; autonomous (SLAAC) for a /64 (RFC 4862 5.5.3)
		 * unless 'no-slaac' */
		c->pfx[c->npfx].la =
			(uint8_t)(0x80 |
				  (pa->len == 64 && !(p->ra_flags & RA_NO_SLAAC) ? 0x40 : 0));
		c->npfx++;
	}
	memcpy(c->dns, p->ra_dns, 16u * p->ra_ndns);
	c->ndns = p->ra_ndns;
}

static int said_dns(const struct ra_said *c, const uint8_t *addr)
{
	unsigned int i;

	for (i = 0; i < c->ndns; i++)
		if (memcmp(c->dns[i], addr, 16) == 0)
			return (int)i;
	return -1;
}

/* Whether @p still has an address in @addr/@len, DAD failed or not. */
static bool port_has_pfx(const struct fr_port *p, const uint8_t *addr, uint8_t len)
{
	struct fr_prefix pf;
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++) {
		if (p->addrs[i].addr.family != AF_INET6 || p->addrs[i].len != len)
			continue;
		port_addr_prefix(&p->addrs[i], &pf);
		if (memcmp(pf.addr.v6, addr, 16) == 0)
			return true;
	}
	return false;
}

static void said_pfx_del(struct ra_said *c, unsigned int i)
{
	memmove(&c->pfx[i], &c->pfx[i + 1], (--c->npfx - i) * sizeof(c->pfx[0]));
}

static void said_dns_del(struct ra_said *c, unsigned int i)
{
	memmove(c->dns[i], c->dns[i + 1], (--c->ndns - i) * sizeof(c->dns[0]));
}

/* @p's prefix @x withdrawn: in the next RA_INITIAL advertisements (the
 * oldest makes room when they are full) */
static void ra_pfx_gone(struct fr_port *p, const struct ra_pfx *x)
{
	struct ra_said *g = &p->ra_gone;

	if (said_pfx(g, x->addr, x->len) >= 0)
		return;
	if (g->npfx == RTE_DIM(g->pfx))
		said_pfx_del(g, 0);
	g->pfx[g->npfx++] = *x;
	p->ra_gone_left = RA_INITIAL;
}

/* Whether a prefix @p held (ra_held) is no longer the port's: its
 * withdrawal is due */
static bool ra_held_gone(const struct fr_port *p)
{
	unsigned int i;

	for (i = 0; i < p->ra_held.npfx; i++)
		if (!port_has_pfx(p, p->ra_held.pfx[i].addr, p->ra_held.pfx[i].len))
			return true;
	return false;
}

/* @p's withdrawn prefixes and DNS servers, once it advertises @now: what
 * the last advertisement said and @now does not joins them (the oldest
 * make room when they are full), and the next RA_INITIAL advertisements
 * carry them; what @now says again leaves them. A prefix left out only
 * because the router's address in it failed DAD is held instead, not
 * withdrawn (another node holds that address, the link may still have the
 * prefix), until that address is removed. */
static void ra_gone_update(struct fr_port *p, const struct ra_said *now)
{
	struct ra_said *g = &p->ra_gone, *h = &p->ra_held;
	const struct ra_said *was = &p->ra_said;
	unsigned int i;

	for (i = 0; i < g->npfx;)
		if (said_pfx(now, g->pfx[i].addr, g->pfx[i].len) >= 0)
			said_pfx_del(g, i);
		else
			i++;
	for (i = 0; i < g->ndns;)
		if (said_dns(now, g->dns[i]) >= 0)
			said_dns_del(g, i);
		else
			i++;
	for (i = 0; i < h->npfx;)
		if (said_pfx(now, h->pfx[i].addr, h->pfx[i].len) >= 0) {
			said_pfx_del(h, i); /* advertised again */
		} else if (!port_has_pfx(p, h->pfx[i].addr, h->pfx[i].len)) {
			ra_pfx_gone(p, &h->pfx[i]);
			said_pfx_del(h, i);
		} else {
			i++;
		}
	for (i = 0; i < was->npfx; i++) {
		if (said_pfx(now, was->pfx[i].addr, was->pfx[i].len) >= 0)
			continue;
		if (!port_has_pfx(p, was->pfx[i].addr, was->pfx[i].len))
			ra_pfx_gone(p, &was->pfx[i]);
		else if (said_pfx(h, was->pfx[i].addr, was->pfx[i].len) < 0 &&
			 h->npfx < RTE_DIM(h->pfx))
			h->pfx[h->npfx++] = was->pfx[i];
	}
	for (i = 0; i < was->ndns; i++) {
		if (said_dns(now, was->dns[i]) >= 0 || said_dns(g, was->dns[i]) >= 0)
			continue;
		if (g->ndns == RA_DNS_MAX)
			said_dns_del(g, 0);
		memcpy(g->dns[g->ndns++], was->dns[i], 16);
		p->ra_gone_left = RA_INITIAL;
	}
}

static uint8_t *ra_opt_rdnss(uint8_t *o, const uint8_t (*dns)[16], unsigned int n, uint32_t life)
{
	o[0] = ND_OPT_RDNSS;
	o[1] = (uint8_t)(1 + 2 * n);
	put32(o + 4, life);
	memcpy(o + 8, dns, 16u * n);
	return o + 8 + 16 * n;
}

static uint8_t *ra_opt_prefix(uint8_t *o, const uint8_t *addr, uint8_t len, uint8_t la,
			      uint32_t valid, uint32_t preferred)
{
	o[0] = 3;
	o[1] = 4;
	o[2] = len;
	o[3] = la;
	put32(o + 4, valid);
	put32(o + 8, preferred);
	memcpy(o + 16, addr, 16);
	return o + 32;
}

/* @port's Router Advertisement, with router lifetime @lifetime_s, sent to
 * all nodes from its link-local address: what the port has, or with
 * @again what the last one said (the withdrawals due included). True:
 * queued. */
static bool ra_send(struct router *r, uint16_t port, uint16_t lifetime_s, bool again)
{
	struct fr_port *p = &r->ports[port];
	uint8_t msg[RA_LEN_MAX], *o;
	struct rte_ipv6_hdr *ip;
	struct rte_ether_hdr *eth;
	struct ra_said now;
	struct rte_mbuf *m;
	uint16_t len, ck;
	unsigned int i;
	char *frame;

	if (again) {
		memcpy(&now, &p->ra_said, sizeof(now));
	} else {
		ra_said_now(r, port, &now);
		ra_gone_update(p, &now);
	}
	memset(msg, 0, sizeof(msg));
	msg[0] = ND_TYPE_RA;
	msg[4] = 64; /* Cur Hop Limit: what hosts should use */
	/* RFC 4191 2.2: no preference (medium) with router lifetime 0 */
	msg[5] = lifetime_s == 0 ? now.flags & ~RA_PRF_MASK : now.flags;
	msg[6] = (uint8_t)(lifetime_s >> 8);
	msg[7] = (uint8_t)lifetime_s;
	o = msg + 16; /* source link-layer address */
	o[0] = 1;
	o[1] = 1;
	memcpy(o + 2, &r->dp_ports[port].mac, RTE_ETHER_ADDR_LEN);
	o += 8;
	o[0] = 5; /* MTU */
	o[1] = 1;
	put32(o + 4, now.mtu);
	o += 8;
	/* RFC 8106 5.1: for 3 x MaxRtrAdvInterval by default; the last
	 * advertisement withdraws them, as the router (0) */
	if (now.ndns > 0)
		o = ra_opt_rdnss(o, now.dns, now.ndns, lifetime_s == 0 ? 0 : 3u * p->ra_max_s);
	if (p->ra_gone_left > 0 && p->ra_gone.ndns > 0)
		o = ra_opt_rdnss(o, p->ra_gone.dns, p->ra_gone.ndns, 0);
	for (i = 0; i < now.npfx; i++)
		o = ra_opt_prefix(o, now.pfx[i].addr, now.pfx[i].len, now.pfx[i].la,
				  RA_PREFIX_VALID_S, RA_PREFIX_PREFER_S);
	/* a prefix gone: deprecated, its addresses no longer chosen, and
	 * off-link at once (RFC 4861 6.3.4); hosts keep an address made
	 * from it up to 2 hours more (RFC 4862 5.5.3 e). RA_LEN_MAX holds
	 * them all, under the 1280 bytes of the least MTU ra_can_send()
	 * asks for. */
	for (i = 0; p->ra_gone_left > 0 && i < p->ra_gone.npfx; i++)
		o = ra_opt_prefix(o, p->ra_gone.pfx[i].addr, p->ra_gone.pfx[i].len,
				  p->ra_gone.pfx[i].la, 0, 0);
	len = (uint16_t)(o - msg);
	frame = control_frame(r, port, (uint16_t)(RTE_ETHER_HDR_LEN + sizeof(*ip) + len), &m);
	if (frame == NULL)
		return false;
	eth = (struct rte_ether_hdr *)frame;
	eth->dst_addr = all_nodes_mac;
	eth->src_addr = r->dp_ports[port].mac;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(eth + 1);
	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(len);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255; /* RFC 4861 6.1.2: receivers check it */
	memcpy(ip->src_addr, r->dp_ports[port].ll6, 16);
	memcpy(ip->dst_addr, all_nodes, 16);
	memcpy(ip + 1, msg, len);
	ck = rte_ipv6_udptcp_cksum(ip, ip + 1);
	memcpy((uint8_t *)(ip + 1) + 2, &ck, 2);
	if (control_send(r, m, port) != 0)
		return false;
	r->cst.ra_sent++;
	p->ra_last_ms = control_now_ms();
	p->ra_withdrawn = lifetime_s == 0;
	RTE_BUILD_BUG_ON(sizeof(*ip) + RA_LEN_MAX > IP6_MIN_MTU);
	if (lifetime_s == 0) {
		/* the last one: every server it named is withdrawn */
		now.ndns = 0;
		memset(now.dns, 0, sizeof(now.dns));
		p->ra_gone.ndns = 0;
	}
	memcpy(&p->ra_said, &now, sizeof(now));
	if (p->ra_gone_left > 0 && --p->ra_gone_left == 0)
		memset(&p->ra_gone, 0, sizeof(p->ra_gone));
	return true;
}

/* Whether @port may advertise: from its link-local address once DAD kept
 * it (RFC 4861 6.1.2), on a link that carries IPv6 (an MTU of 1280 at
 * least: below, only a port without IPv6 addresses, whose hosts would
 * ignore the MTU option) */
static bool ra_can_send(const struct router *r, uint16_t port)
{
	return r->ports[port].ll_dad == ADDR_DAD_OK && r->dp_ports[port].mtu >= IP6_MIN_MTU;
}

/* Whether what @p's last advertisement said may be said again: there was
 * one, and it was not a last one (lifetime 0) */
static bool ra_said_live(const struct fr_port *p)
{
	return p->ra_said.mtu != 0 && !p->ra_withdrawn;
}

/* Whether @port's last advertisement (lifetime 0) is due: it advertises
 * and is in service, and the last one sent told hosts to use the router
 * (none since a last one: an undo's 'port N down' again, an 'off' after
 * one) */
static bool ra_last_due(const struct router *r, uint16_t port)
{
	const struct fr_port *p = &r->ports[port];

	return r->running && router_port_ok(r, port) && !r->dp_ports[port].down &&
	       ra_can_send(r, port) && ra_said_live(p);
}

/* The router lifetime @port's advertisements give: 3 x MaxRtrAdvInterval,
 * at most 9000 s (RFC 4861 6.2.1) */
static uint16_t ra_lifetime(const struct fr_port *p)
{
	return (uint16_t)RTE_MIN(3u * p->ra_max_s, 9000u);
}

/* The soonest @p's next advertisement may go: now, or min-delay (3 s
 * unless set) after the last (RFC 4861 6.2.6, MIN_DELAY_BETWEEN_RAS; the
 * last one of an 'off' too) */
static uint64_t ra_soonest(const struct fr_port *p)
{
	uint64_t now = control_now_ms();

	return p->ra_last_ms == 0 ? now : RTE_MAX(now, p->ra_last_ms + p->ra_min_delay_ms);
}

/* @p was out of service: once back (its link-local address kept), its
 * advertisements start over, the first ones fast (RFC 4861 6.2.4) */
static void ra_restart(struct fr_port *p)
{
	if (p->ra_max_s == 0)
		return;
	p->ra_initial = 0;
	p->ra_next_ms = ra_soonest(p);
}

/* What @port advertises changed while it advertises: the next as soon as
 * may be, and those after it as fast as after a start (RFC 4861 6.2.4) */
static void ra_changed(struct fr_port *p)
{
	p->ra_initial = 0;
	p->ra_next_ms = RTE_MIN(p->ra_next_ms, ra_soonest(p));
}

void router_ra_set(struct router *r, uint16_t port, uint16_t max_s, uint16_t min_delay_ms,
		   uint8_t flags)
{
	struct fr_port *p = &r->ports[port];
	const uint16_t was = p->ra_max_s, min_delay_was = p->ra_min_delay_ms;
	const uint8_t flags_was = p->ra_flags;

	p->ra_max_s = max_s;
	if (max_s == 0) {
		/* no longer a default router here: hosts drop it now rather
		 * than at the lifetime's end (RFC 4861 6.2.5); what the last
		 * one said, its flags included (a change would read as
		 * another router's; inside a file, what the file has changed
		 * so far may yet be rolled back). None if none was sent, or
		 * the last one sent was a last one already. */
		if (was != 0 && ra_last_due(r, port))
			ra_send(r, port, 0, true);
		p->ra_flags = flags;
		p->ra_next_ms = 0;
		return;
	}
	p->ra_flags = flags;
	/* what is due already keeps its time */
	p->ra_min_delay_ms = min_delay_ms;
	if (was == 0) {
		p->ra_initial = 0;
		p->ra_next_ms = ra_soonest(p); /* the first at once */
	} else if (flags != flags_was) {
		ra_changed(p);
	} else if (max_s < was) {
		p->ra_next_ms = RTE_MIN(p->ra_next_ms, control_now_ms() + max_s * 1000ull);
	}
	/* a longer min-delay holds back what is due already too: none
	 * sooner than that after the last (RFC 4861 6.2.6) */
	if (was != 0 && min_delay_ms > min_delay_was)
		p->ra_next_ms = RTE_MAX(p->ra_next_ms, ra_soonest(p));
}

void router_ra_dns_set(struct router *r, uint16_t port, unsigned int n, const uint8_t (*dns)[16])
{
	struct fr_port *p = &r->ports[port];

	if (n == p->ra_ndns && memcmp(p->ra_dns, dns, 16u * n) == 0)
		return;
	memset(p->ra_dns, 0, sizeof(p->ra_dns));
	memcpy(p->ra_dns, dns, 16u * n);
	p->ra_ndns = (uint8_t)n;
	if (p->ra_max_s != 0)
		ra_changed(p);
}

/* A wait's pause: a spin until @spin_until, then 100 us asleep, so a
 * worker sharing the control thread's CPU (or waiting on the host for
 * one) gets it */
static void ra_leave_pause(uint64_t spin_until)
{
	if (rte_get_tsc_cycles() < spin_until)
		rte_pause();
	else
		rte_delay_us_sleep(100);
}

void router_ra_leave(struct router *r, uint16_t port)
{
	struct fr_port *p = &r->ports[port];
	uint64_t until, spin, token;

	if (p->ra_max_s == 0 || !ra_last_due(r, port) || !ra_send(r, port, 0, true))
		return;
	/* a failing file puts the port back: the next in 3 s, as after an
	 * 'on' (hosts have just dropped the router) */
	ra_restart(p);
	/* worker 0 takes it off the ring within microseconds and checks
	 * the port's state as it sends it; every worker's next quiescent
	 * state (RCU) comes after that drain, worker 0's TX included.
	 * Bounded at 500 ms, which only a worker the host has descheduled
	 * takes (a busy 2-CPU host can for 50 ms): what is later is counted
	 * ctrl_tx_port_down. A spin for the first millisecond, then sleeps. */
	spin = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000;
	until = spin + rte_get_tsc_hz() / 2;
	while (rte_ring_count(r->ctrl_tx) > 0 && rte_get_tsc_cycles() < until)
		ra_leave_pause(spin);
	token = rte_rcu_qsbr_start(r->qsv);
	while (rte_rcu_qsbr_check(r->qsv, token, false) == 0 && rte_get_tsc_cycles() < until)
		ra_leave_pause(spin);
}

unsigned int router_ra_final(struct router *r)
{
	const uint64_t sent = r->cst.ra_sent;
	unsigned int i;
	uint16_t port;

	for (port = 0; port < r->nb_ports; port++)
		if (r->ports[port].ra_max_s != 0)
			router_ra_set(r, port, 0, 0, r->ports[port].ra_flags);
	/* the ring's whole content, a burst at a time: bounded, as a TX
	 * queue that takes nothing more leaves it */
	for (i = 0; r->cst.ra_sent != sent && r->nb_workers > 0 && i < 64 &&
		    (rte_ring_count(r->ctrl_tx) > 0 || r->workers[0]->nb_ctrl_pend > 0);
	     i++)
		worker_ctrl_tx_drain(r, r->workers[0]);
	return (unsigned int)(r->cst.ra_sent - sent);
}

void ra_due(struct router *r, uint16_t port, uint64_t now)
{
	struct fr_port *p = &r->ports[port];
	uint64_t min_ms, max_ms, next;

	if (p->ra_max_s == 0) {
		/* turned off while it could not say so (its link down, its
		 * link-local address tentative again, its MTU below 1280):
		 * the last one (lifetime 0) once it can, min-delay after the
		 * one before (RFC 4861 6.2.5, 6.2.6); not inside a long command
		 * or file, which may yet turn it back on */
		if (ra_said_live(p) && !r->in_command && now >= ra_soonest(p) &&
		    ra_last_due(r, port))
			ra_send(r, port, 0, true);
		return;
	}
	if (now < p->ra_next_ms) {
		/* what it says changed (an address, the MTU): soon, as a
		 * change of its setting is (RFC 4861 6.2.4). Not inside a
		 * long command or file (control_service()), which may yet
		 * put it back. */
		if (now >= p->ra_check_ms && !r->in_command) {
			struct ra_said c;

			p->ra_check_ms = now + RA_CHECK_MS;
			ra_said_now(r, port, &c);
			if (memcmp(&c, &p->ra_said, sizeof(c)) != 0 || ra_held_gone(p))
				ra_changed(p);
		}
		return;
	}
	/* from the link-local address only (RFC 4861 6.1.2), once DAD kept
	 * it: in use while the port advertises, its groups reported (MLD)
	 * whatever addresses the port has or loses (its last IPv6 address
	 * deleted, the port still speaks IPv6: hosts solicit it) */
	if (!p->ll_used)
		ll_in_use(r, port);
	if (p->ll_dad != ADDR_DAD_OK)
		return;
	/* inside a long command or file, what the last one said: the
	 * router stays the hosts' default router through a long load, and
	 * what the file changes is advertised only once it is in force.
	 * None if that was a last one (lifetime 0) or there was none: what
	 * it said is not what the port has now. */
	if (!ra_can_send(r, port) || (r->in_command && !ra_said_live(p))) {
		p->ra_next_ms = now + 1000;
		return;
	}
	if (!ra_send(r, port, ra_lifetime(p), r->in_command)) {
		p->ra_next_ms = now + 1000; /* no mbuf: try again */
		return;
	}
	max_ms = p->ra_max_s * 1000ull;
	/* MinRtrAdvInterval: a third of the maximum, 3 s at least (RFC 4861
	 * 6.2.1; min-delay spaces solicited and changed ones only) */
	min_ms = RTE_MAX(max_ms / 3, (uint64_t)RA_MIN_DELAY_DEFAULT_MS);
	if (min_ms > max_ms)
		min_ms = max_ms;
	next = min_ms + rte_rand_max(max_ms - min_ms + 1);
	if (p->ra_initial < RA_INITIAL) {
		p->ra_initial++;
		next = RTE_MIN(next, (uint64_t)RA_INITIAL_MAX_MS);
	}
	p->ra_next_ms = now + next;
}

/* A Router Solicitation (RFC 4861 6.1.1: hop limit 255, a whole message,
 * its checksum right, no source link-layer option from ::; one of another
 * length than Ethernet's is malformed, as in an NS) on a port that
 * advertises: the next advertisement within 0.5 s, or within 0.5 s of
 * min-delay's end when the last was sooner (6.2.6). Frees @m. */
static void rs_input(struct router *r, struct rte_mbuf *m, const struct rte_ipv6_hdr *ip,
		     uint32_t plen)
{
	struct fr_port *p = &r->ports[m->port];
	const uint8_t *ic = (const uint8_t *)(ip + 1), *slla;
	uint64_t now = control_now_ms(), at;

	if (!router_port_ok(r, m->port) || p->ra_max_s == 0 || ip->hop_limits != 255 || plen < 8 ||
	    ic[1] != 0 ||
	    __rte_ipv6_udptcp_cksum_mbuf(m, ip, RTE_ETHER_HDR_LEN + sizeof(*ip)) != 0xffff ||
	    !nd_opts_ok(ic + 8, plen - 8, ND_OPT_SLLA, &slla) ||
	    (slla != NULL && (slla[1] != 1 || ip6_is_unspec(ip->src_addr)))) {
		cdrop6(r, m, CDROP_LOCAL6_ICMP);
		return;
	}
	r->cst.rs_received++;
	/* its source link-layer address (Ethernet's: 8 bytes) makes or
	 * updates the host's entry, STALE (RFC 4861 6.2.6): the first packet
	 * to the host needs no solicitation of ours */
	if (slla != NULL && port_onlink6(r, m->port, ip->src_addr) &&
	    !router_owns6(r, ip->src_addr) &&
	    rte_is_valid_assigned_ether_addr((const struct rte_ether_addr *)(slla + 2)) &&
	    !router_mac(r, (const struct rte_ether_addr *)(slla + 2))) {
		struct fr_addr who = {.family = AF_INET6};

		memcpy(who.v6, ip->src_addr, 16);
		if (neigh_learn(r->neigh, &who, m->port, (const struct rte_ether_addr *)(slla + 2),
				NEIGH_LEARN_REQUEST, now) == 1)
			r->cst.nd_learnt++;
	}
	/* RFC 4861 6.2.6: within min-delay of the last, the random delay
	 * counts from the end of min-delay (routers that answer the same
	 * solicitation stay spread) */
	at = rte_rand_max(RA_DELAY_MAX_MS + 1);
	at += p->ra_last_ms != 0 && now < p->ra_last_ms + p->ra_min_delay_ms
		      ? p->ra_last_ms + p->ra_min_delay_ms
		      : now;
	if (at < p->ra_next_ms)
		p->ra_next_ms = at;
	rte_pktmbuf_free(m);
}

/* local_input6(); @reassembled: @m was put together from fragments, and no
 * ND message may come in any (RFC 6980 5: ignored, so that fragments cannot
 * carry one past a switch's ND or RA inspection): read as any other ICMPv6
 * message for the router, as one behind another extension header is, an
 * atomic fragment's header too (local_icmp6) */
static void local_input6_from(struct router *r, struct rte_mbuf *m, bool reassembled)
{
	struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t plen = rte_be_to_cpu_16(ip->payload_len), off = 0, nh_at = 0;
	const uint8_t *ic = (const uint8_t *)(ip + 1);
	int proto;

	if (!reassembled && ip->proto == IPPROTO_ICMPV6 && plen >= 4 &&
	    rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN + sizeof(*ip) + plen) {
		if (ic[0] == ND_TYPE_NS || ic[0] == ND_TYPE_NA) {
			nd_input(r, m);
			return;
		}
		if (ic[0] == ND_TYPE_RS) {
			rs_input(r, m, ip, plen);
			return;
		}
	}
	/* groups: the router listens to them for ND (and MLD) only */
	if (ip6_is_mcast(ip->dst_addr)) {
		if (mld_query_input(r, m, ip, plen) || group_option_error6(r, m, ip, plen) ||
		    group_echo6(r, m, ip, plen))
			return;
		cdrop6(r, m, CDROP_LOCAL6_MCAST);
		return;
	}
	if (dad_failed_any(r, ip->dst_addr)) {
		/* another host holds it: not the router's (its local route is
		 * out; one that came meanwhile ends here) */
		cdrop6(r, m, CDROP_LOCAL6_DAD_FAILED);
		return;
	}
	if (!router_port_ok(r, m->port) ||
	    !(router_owns6(r, ip->dst_addr) || router_anycast6(r, ip->dst_addr)) ||
	    (ip6_is_linklocal(ip->dst_addr) && !port_owns6(r, m->port, ip->dst_addr))) {
		cdrop6(r, m, CDROP_LOCAL_BROADCAST);
		return;
	}
	proto = ext_headers6(r, m, ip, plen, &off, &nh_at);
	if (proto < 0)
		return;
	if (proto == IPPROTO_ICMPV6) {
		if (off > 0) { /* answered as if they were not there */
			ip = ext_strip6(m, off, (uint8_t)proto);
			plen -= off;
			ic = (const uint8_t *)(ip + 1);
		}
		/* the ICMPv6 header in the first segment, the data in as many
		 * as it took (a jumbo request a device received scattered; the
		 * workers made the frame the packet's length, ip6_validate(),
		 * and the sum reads no further than the frame) */
		if (plen >= 8 && rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN + sizeof(*ip) + 8 &&
		    ic[0] == 128 && ic[1] == 0 &&
		    __rte_ipv6_udptcp_cksum_mbuf(m, ip, RTE_ETHER_HDR_LEN + sizeof(*ip)) ==
			    0xffff) {
			/* from one of the router's Subnet-Router anycast
			 * addresses (another router of that link, or a
			 * forger): the reply could only come back here.
			 * Refused as a TCP reset to it is, and counted so */
			if (router_anycast6(r, ip->src_addr)) {
				r->cst.icmp_not_sent++;
				rte_pktmbuf_free(m);
				return;
			}
			/* to our unicast address in a link-layer group
			 * frame: discarded, as IPv4's in a broadcast frame
			 * (RFC 1122 3.3.6); such frames skip rpf, and the
			 * source could be a forger's */
			if (frame_l2_group(m)) {
				cdrop6(r, m, CDROP_LOCAL6_MCAST);
				return;
			}
			echo_reply6(r, m, ip);
			return;
		}
		cdrop6(r, m, CDROP_LOCAL6_ICMP);
		return;
	}
	if (proto == IPPROTO_FRAGMENT) {
		uint32_t ptr;
		uint8_t code;

		/* one RFC 8200 4.5 has answered: dropped, a Parameter Problem
		 * back within the rules and the rate of an error */
		if (reasm6_param_problem(m, off, &code, &ptr)) {
			ctrl_drop_error(r, m, CDROP_REASM_MALFORMED, 4, code, ptr);
			return;
		}
		/* held until its packet is whole, which then comes in as one,
		 * its Fragment header gone (reasm.h) */
		m = reasm6_input(r->reasm, m, off, nh_at, control_now_ms(), r->cst.drop);
		if (m != NULL) {
			r->cst.reassembled++;
			local_input6_from(r, m, true);
		}
		return;
	}
	if ((proto == IPPROTO_UDP || proto == IPPROTO_TCP) &&
	    !local_l4_ok(m, RTE_ETHER_HDR_LEN + sizeof(*ip) + off, plen - off, (uint8_t)proto,
			 ip->src_addr, ip->dst_addr, 16)) {
		/* damaged: discarded, never answered (as local_input()) */
		cdrop6(r, m, CDROP_LOCAL_BAD_L4);
		return;
	}
	if (proto == IPPROTO_TCP)
		tcp_reset6(r, m, ip, off, plen - off);
	else if (proto == IPPROTO_UDP)
		ctrl_drop_error(r, m, CDROP_LOCAL_UNREACH, 1, 4, 0);
	else /* unrecognized next header: point at it (RFC 4443 3.4) */
		ctrl_drop_error(r, m, CDROP_LOCAL_UNREACH, 4, 1, nh_at);
}

void local_input6(struct router *r, struct rte_mbuf *m)
{
	local_input6_from(r, m, false);
}
