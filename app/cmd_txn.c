/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transactions: every change a command makes is journaled with its inverse,
 * so a command (or a whole file) that fails half-way is undone in reverse
 * order and the router is left exactly as it was.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_rcu_qsbr.h>

#include "cmd_priv.h"
#include "cmd_replace.h"
#include "control6.h"
#include "ip6.h"
#include "nd.h"
#include "reasm.h"

/* ---- transactions ------------------------------------------------------ */

enum undo_op {
	UNDO_ROUTE_DEL,	    /* a route was added: delete it */
	UNDO_ROUTE_RESTORE, /* a route was deleted or replaced: put the old one back */
	UNDO_NEIGH_DEL,	    /* a static neighbour was created: delete it */
	UNDO_NEIGH_SET,	    /* a static neighbour was changed or deleted: set it back */
	UNDO_NEIGH_LEARNT,  /* a learnt neighbour was made static or deleted: learnt again */
	UNDO_ADDR_DEL,	    /* a port address was added: forget it */
	UNDO_ADDR_ADD,	    /* a port address was removed: remember it */
	UNDO_NEIGH_PARAMS,  /* neighbour parameters changed: set the old ones */
	UNDO_SETTING,	    /* a port or router setting changed: set the old value */
	UNDO_RA_DNS,	    /* a port's advertised DNS servers changed: the old ones */
};

/* Put setting @s in place. Non-zero: part of it could not be (said on
 * stderr; a rollback counts it as a failed step). */
static int setting_apply(struct router *r, const struct setting *s)
{
	int rc = 0;

	switch (s->id) {
	case CMD_PORT_MTU:
		DP_STORE(r->dp_ports[s->port].mtu, (uint16_t)s->value);
		/* undo: the device's MTU as it was (value2; 0: unchanged).
		 * A transaction only raises devices (port_mtu_fit()), so
		 * this only lowers one: a device that refuses keeps taking
		 * larger frames than the router sends. First, as
		 * mtu_lower() does, no worker still holds a frame it sized
		 * by the raised MTU: the device would drop it, with no
		 * error back */
		if (s->value2 != 0 && s->value2 != r->ports[s->port].dev_mtu) {
			if (r->ports[s->port].started && r->qsv != NULL)
				rte_rcu_qsbr_synchronize(r->qsv, RTE_QSBR_THRID_INVALID);
			if (r->ports[s->port].started &&
			    (rc = rte_eth_dev_set_mtu(s->port, (uint16_t)s->value2)) != 0)
				fprintf(stderr,
					"fastroute: port %u: rollback: the device's MTU stays %u\n",
					s->port, r->ports[s->port].dev_mtu);
			else
				r->ports[s->port].dev_mtu = (uint16_t)s->value2;
		}
		break;
	case CMD_PORT_ADMIN:
		/* the link itself follows once the transaction ends
		 * (txn_end): a rolled-back one never flaps it. Its learnt
		 * neighbours go at once (port_down_sync()), and are asked
		 * afresh if a rollback puts it back */
		if (s->value != 0 && !r->ports[s->port].admin_down)
			router_ra_leave(r, s->port);
		r->ports[s->port].admin_down = s->value != 0;
		rc = port_down_sync(r, s->port);
		break;
	case CMD_PORT_HOLD:
		/* from the next link poll on */
		r->ports[s->port].hold_up_ms = s->value;
		r->ports[s->port].hold_down_ms = s->value2;
		break;
	case CMD_PORT_RPF:
		/* two bytes workers read per burst: a burst may see the old
		 * mode with the new flag, which only matters for that burst */
		if (r->dp_ports[s->port].rpf_ignore_default != (uint8_t)s->value2) {
			DP_STORE(r->dp_ports[s->port].rpf_ignore_default, (uint8_t)s->value2);
			/* a route cache entry holds the mode it passed, not
			 * the flag: a source let in by the default route
			 * must be checked again */
			fib_invalidate(r->fib);
		}
		DP_STORE(r->dp_ports[s->port].rpf, (uint8_t)s->value);
		break;
	case CMD_PORT_REDIRECTS:
		if (r->dp_ports[s->port].redirects != (uint8_t)s->value) {
			DP_STORE(r->dp_ports[s->port].redirects, (uint8_t)s->value);
			/* a route cache hit would skip the Redirect: a flow
			 * back out of its port cached while they were off goes */
			fib_invalidate(r->fib);
		}
		break;
	case CMD_SET_IP_MARTIANS:
		if (r->dpconf.martians != (uint8_t)s->value) {
			DP_STORE(r->dpconf.martians, (uint8_t)s->value);
			/* route cache hits skip the martian checks (datapath.c) */
			fib_invalidate(r->fib);
		}
		break;
	case CMD_SET_IP_DBCAST:
		DP_STORE(r->dpconf.directed_bcast, (uint8_t)s->value);
		break;
	case CMD_PORT_RA:
		router_ra_set(r, s->port, s->value ? (uint16_t)s->value2 : 0,
			      (uint16_t)(s->value2 >> 16), (uint8_t)(s->value & RA_FLAGS));
		break;
	case CMD_SET_IP_MPHASH:
		/* multipath flows are never cached: nothing to invalidate */
		DP_STORE(r->dpconf.mp_hash_l4, (uint8_t)s->value);
		break;
	case CMD_SET_ICMP_RATE:
		router_icmp_rate_set(r, s->value, s->value2);
		break;
	case CMD_SET_IP_REASM:
		r->reasm_timeout_s = s->value;
		reasm_timeout_set(r->reasm, s->value); /* (unit tests' routers have none) */
		break;
	case CMD_RTCACHE_MODE:
		/* workers switch at their next burst */
		DP_STORE(r->dpconf.rtcache_mode, (uint8_t)s->value);
		break;
	case CMD_RTCACHE_SIZE:
		r->opts.rtcache_size = s->value;
		break;
	default:
		break;
	}
	return rc;
}

void txn_setting_get(const struct router *r, enum cmd_id id, uint16_t port, struct setting *s)
{
	s->id = id;
	s->port = port;
	s->value2 = 0;
	switch (id) {
	case CMD_PORT_MTU:
		s->value = r->dp_ports[port].mtu;
		s->value2 = r->ports[port].dev_mtu;
		break;
	case CMD_PORT_RPF:
		s->value = r->dp_ports[port].rpf;
		s->value2 = r->dp_ports[port].rpf_ignore_default;
		break;
	case CMD_PORT_REDIRECTS:
		s->value = r->dp_ports[port].redirects;
		break;
	case CMD_PORT_ADMIN:
		s->value = r->ports[port].admin_down;
		break;
	case CMD_PORT_HOLD:
		s->value = r->ports[port].hold_up_ms;
		s->value2 = r->ports[port].hold_down_ms;
		break;
	case CMD_SET_IP_MARTIANS:
		s->value = r->dpconf.martians;
		break;
	case CMD_SET_IP_DBCAST:
		s->value = r->dpconf.directed_bcast;
		break;
	case CMD_SET_IP_MPHASH:
		s->value = r->dpconf.mp_hash_l4;
		break;
	case CMD_PORT_RA:
		s->value = r->ports[port].ra_max_s != 0 ? RA_ON | r->ports[port].ra_flags : 0;
		s->value2 = r->ports[port].ra_max_s == 0
				    ? 0
				    : r->ports[port].ra_max_s |
					      (uint32_t)r->ports[port].ra_min_delay_ms << 16;
		break;
	case CMD_SET_ICMP_RATE:
		s->value = r->icmp_rate;
		s->value2 = r->icmp_burst;
		break;
	case CMD_SET_IP_REASM:
		s->value = r->reasm_timeout_s;
		break;
	case CMD_RTCACHE_MODE:
		s->value = r->dpconf.rtcache_mode;
		break;
	case CMD_RTCACHE_SIZE:
		s->value = r->opts.rtcache_size;
		break;
	default:
		s->value = 0;
		break;
	}
}

/* One journal record; a million-route load keeps a million of them. */
struct undo {
	uint8_t op;    /* enum undo_op */
	uint8_t idx;   /* ADDR_ADD: the address's place in the port's list */
	uint16_t port; /* NEIGH_*, ADDR_* */
	union {
		struct fib_route route; /* ROUTE_* */
		struct {
			struct fr_addr addr;
			struct rte_ether_addr mac;
		} n;			/* NEIGH_* */
		struct port_addr pa;	/* ADDR_* */
		struct neigh_params np; /* NEIGH_PARAMS */
		struct setting set;	/* SETTING */
		struct {
			uint8_t n;
			uint8_t a[RA_DNS_MAX][16];
		} dns; /* RA_DNS */
	};
};

struct txn {
	struct router *r;
	struct undo *u;
	size_t n, cap;
	bool failed;	   /* journal could not grow: refuse further changes */
	bool addr_changed; /* port addresses changed: refresh what workers check */
	/* 'port N down/up' of these ports: their links follow at the end */
	uint64_t admin_changed[(FR_MAX_PORTS + 63) / 64];
	/* ports 'port N down' took out of service, whatever followed */
	uint64_t took_down[(FR_MAX_PORTS + 63) / 64];
	/* ports given addresses: announced once committed */
	uint64_t addr_added[(FR_MAX_PORTS + 63) / 64];
	/* ports whose MTU went down: their devices follow once committed */
	uint64_t mtu_lowered[(FR_MAX_PORTS + 63) / 64];
	/* configure replace: the checks see the router a start with its file
	 * would have at the line (txn_replace()) */
	const struct cfg_replace *rp;
};

bool txn_addr_changed(const struct txn *t)
{
	return t != NULL && t->addr_changed;
}

void txn_replace(struct txn *t, const struct cfg_replace *rp)
{
	t->rp = rp;
}

/* IPv6 may leave by @port: its MTU, as a start with the file being
 * replaced would have it at this line, at least 1280 (RFC 8200 5: a port
 * set lower carries no IPv6; its Packet Too Big would say less). */
int mtu6_check(const struct txn *t, uint16_t port, char *err, size_t errlen)
{
	uint16_t mtu = t->rp != NULL ? replace_mtu(t->rp, port) : t->r->dp_ports[port].mtu;

	if (mtu < IP6_MIN_MTU)
		return ERR("port %u has MTU %u: IPv6 needs at least %u (RFC 8200 5)", port, mtu,
			   IP6_MIN_MTU);
	return 0;
}

int route_mtu6_check(const struct txn *t, const struct cmd *c, char *err, size_t errlen)
{
	unsigned int i;
	int e = 0;

	if (c->route.prefix.addr.family != AF_INET6)
		return 0;
	if ((c->route.type == FIB_NH_GATEWAY || c->route.type == FIB_NH_CONNECTED) &&
	    c->route.port != FIB_PORT_NONE)
		return mtu6_check(t, c->route.port, err, errlen);
	for (i = 0; c->route.type == FIB_NH_MULTIPATH && i < c->nmp && e == 0; i++)
		if (c->mp[i].port != FIB_PORT_NONE)
			e = mtu6_check(t, c->mp[i].port, err, errlen);
	return e;
}

struct txn *txn_begin(struct router *r)
{
	struct txn *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->r = r;
	/* a multipath next hop a change leaves unused stays until the end,
	 * for an undo to find (fib_route_restore() by the route as it was) */
	if (r->fib != NULL)
		fib_groups_hold(r->fib);
	return t;
}

static int journal(struct txn *t, const struct undo *u)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct undo *nu = realloc(t->u, cap * sizeof(*nu));

		if (nu == NULL) {
			t->failed = true;
			return -ENOMEM;
		}
		t->u = nu;
		t->cap = cap;
	}
	t->u[t->n++] = *u;
	return 0;
}

static void txn_end(struct txn *t)
{
	uint16_t pid;

	if (t->addr_changed)
		router_local_update(t->r);
	/* committed or rolled back, the links of the ports it took down or
	 * up to their final state (nothing to do where it is there already),
	 * after the routes are published: a driver may take a while */
	for (pid = 0; pid < t->r->nb_ports; pid++)
		if ((t->admin_changed[pid / 64] >> (pid % 64)) & 1)
			port_link_admin(t->r, pid);
	if (t->r->fib != NULL)
		fib_groups_settle(t->r->fib);
	free(t->u);
	free(t);
}

/* A committed transaction lowered port @pid's MTU: its device goes down to
 * it, or to what it reported when probed. A device that will not go down
 * keeps taking larger frames: the router's own limit still holds for what
 * it sends. First (once a commit: @synced), no worker still holds a frame
 * it sized by the old MTU (they report quiescent after their TX): the
 * device would drop it, with no error back. */
static void mtu_lower(struct router *r, uint16_t pid, bool *synced)
{
	struct fr_port *p = &r->ports[pid];
	uint32_t want = RTE_MAX((uint32_t)r->dp_ports[pid].mtu, (uint32_t)p->dev_mtu_probed);

	if (!p->started || want >= p->dev_mtu)
		return;
	if (r->qsv != NULL && !*synced)
		rte_rcu_qsbr_synchronize(r->qsv, RTE_QSBR_THRID_INVALID);
	*synced = true;
	if (rte_eth_dev_set_mtu(pid, (uint16_t)want) == 0)
		p->dev_mtu = (uint16_t)want;
}

/* The groups of the IPv6 addresses @t removed, those no other address
 * keeps, reported left (RFC 3810 6.1), a port's in one report; not before
 * the change is kept. */
static void addrs6_gone(struct txn *t)
{
	uint64_t ports[(FR_MAX_PORTS + 63) / 64] = {0};
	struct port_addr gone[FR_PORT_MAX_ADDRS];
	unsigned int n;
	uint16_t pid;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->u[i].op == UNDO_ADDR_ADD && t->u[i].pa.addr.family == AF_INET6)
			ports[t->u[i].port / 64] |= 1ull << (t->u[i].port % 64);
	for (pid = 0; pid < t->r->nb_ports; pid++) {
		if (!((ports[pid / 64] >> (pid % 64)) & 1))
			continue;
		for (i = 0, n = 0; i < t->n; i++) {
			if (t->u[i].op != UNDO_ADDR_ADD || t->u[i].port != pid ||
			    t->u[i].pa.addr.family != AF_INET6)
				continue;
			if (n == RTE_DIM(gone)) {
				router_addrs_gone(t->r, pid, gone, n);
				n = 0;
			}
			gone[n++] = t->u[i].pa;
		}
		router_addrs_gone(t->r, pid, gone, n);
	}
}

void txn_commit(struct txn *t)
{
	uint64_t said[(FR_MAX_PORTS + 63) / 64];
	struct router *r;
	uint16_t pid;
	unsigned int i;
	bool synced = false;

	if (t == NULL)
		return;
	r = t->r;
	for (i = 0; i < RTE_DIM(said); i++)
		said[i] = t->addr_added[i] | t->admin_changed[i];
	/* a port the operator took out of service probes its IPv6 addresses
	 * again when back (RFC 4862 5.4), in this transaction too ('port N
	 * down' then 'port N up': it was out of service between them, its
	 * learnt neighbours forgotten); not before the change is kept: a
	 * rollback leaves them as they were */
	for (pid = 0; pid < r->nb_ports; pid++)
		if ((t->took_down[pid / 64] >> (pid % 64)) & 1)
			dad_reset(r, pid);
	for (pid = 0; pid < r->nb_ports; pid++)
		if ((t->mtu_lowered[pid / 64] >> (pid % 64)) & 1)
			mtu_lower(r, pid, &synced);
	addrs6_gone(t);
	txn_end(t);
	/* new addresses, and the addresses of a port back in service, said
	 * on their links (RFC 5227 2.3, RFC 4861 7.2.6): once kept, never for
	 * one a rollback takes back; nothing for a port still down */
	for (pid = 0; pid < r->nb_ports; pid++)
		if ((said[pid / 64] >> (pid % 64)) & 1)
			router_announce(r, pid, NULL);
}

static void port_addr_remove(struct fr_port *p, const struct port_addr *pa)
{
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++) {
		if (fr_addr_eq(&p->addrs[i].addr, &pa->addr) && p->addrs[i].len == pa->len) {
			memmove(&p->addrs[i], &p->addrs[i + 1],
				(p->nb_addrs - i - 1) * sizeof(p->addrs[0]));
			p->nb_addrs--;
			return;
		}
	}
}

unsigned int txn_rollback(struct txn *t)
{
	struct router *r;
	unsigned int failed = 0;
	int rc = 0;

	if (t == NULL)
		return 0;
	r = t->r;
	while (t->n > 0) {
		struct undo *u = &t->u[--t->n];
		struct fib_route rt;
		struct fr_port *p;

		/* a million routes' undo takes a while: the service manager's
		 * watchdog is told the router is alive */
		if ((t->n & 4095) == 0 && r->running)
			control_watchdog(r, control_now_ms());
		rc = 0;
		switch ((enum undo_op)u->op) {
		case UNDO_ROUTE_DEL:
			rc = fib_route_del(r->fib, &u->route.prefix, NULL);
			break;
		case UNDO_ROUTE_RESTORE:
			rt = u->route;
			rc = fib_route_restore(r->fib, &rt);
			break;
		case UNDO_NEIGH_DEL:
			rc = neigh_del(r->neigh, &u->n.addr, u->port);
			break;
		case UNDO_NEIGH_SET:
			rc = neigh_static_set(r->neigh, &u->n.addr, u->port, &u->n.mac);
			break;
		case UNDO_NEIGH_LEARNT:
			rc = neigh_learnt_restore(r->neigh, &u->n.addr, u->port, &u->n.mac,
						  control_now_ms());
			break;
		case UNDO_ADDR_DEL:
			port_addr_remove(&r->ports[u->port], &u->pa);
			break;
		case UNDO_NEIGH_PARAMS:
			rc = neigh_params_set(r->neigh, &u->np);
			break;
		case UNDO_SETTING:
			rc = setting_apply(r, &u->set);
			break;
		case UNDO_RA_DNS:
			router_ra_dns_set(r, u->port, u->dns.n, (const uint8_t(*)[16])u->dns.a);
			break;
		case UNDO_ADDR_ADD:
			/* back in its place: the first address of a port is the
			 * source of its ARP probes and ICMP errors */
			p = &r->ports[u->port];
			memmove(&p->addrs[u->idx + 1], &p->addrs[u->idx],
				(p->nb_addrs - u->idx) * sizeof(p->addrs[0]));
			p->addrs[u->idx] = u->pa;
			p->nb_addrs++;
			break;
		}
		if (rc != 0) {
			fprintf(stderr, "fastroute: rollback step %d failed: %s\n", (int)u->op,
				strerror(-rc));
			failed++;
		}
	}
	txn_end(t);
	return failed;
}

void txn_rollback_said(struct txn *t, char *err, size_t errlen)
{
	unsigned int failed = txn_rollback(t);
	char said[128];
	size_t n = strlen(err), k;

	if (failed == 0)
		return;
	k = (size_t)snprintf(said, sizeof(said),
			     " (and %u change(s) could not be undone: the router is not as it "
			     "was; see its log and show config)",
			     failed);
	if (k >= errlen)
		return;
	/* the error's end gives way: this must be read */
	if (n + k >= errlen)
		n = errlen - k - 1;
	memcpy(err + n, said, k + 1);
}

/* ---- changes, each journaled ---------------------------------------- */

/* @a lies in a network of one of the ports' addresses. */
static bool on_port_net(const struct router *r, const struct fr_addr *a)
{
	struct fr_prefix pf;
	uint16_t pid;
	unsigned int i;

	for (pid = 0; pid < r->nb_ports; pid++)
		for (i = 0; i < r->ports[pid].nb_addrs; i++) {
			port_addr_prefix(&r->ports[pid].addrs[i], &pf);
			if (pf.addr.family == a->family && fr_prefix_contains(&pf, a))
				return true;
		}
	return false;
}

/* A route @rt (@p) the tables had no room for: which of them is full,
 * where the counts say so. */
static int route_full(const struct router *r, const struct fib_route *rt, const char *p, char *err,
		      size_t errlen)
{
	const uint8_t fam = rt->prefix.addr.family;
	const bool v6 = fam == AF_INET6;
	struct fib_tbl8_usage u;
	struct fib_route cur;

	/* (a replace takes no more routes) */
	if (fib_route_count(r->fib, fam) >= fib_route_capacity(r->fib, fam) &&
	    fib_route_get(r->fib, &rt->prefix, &cur) != 0)
		return ERRC(-ENOSPC,
			    "no room for %s: the %s route table is full (%u routes, see %s)", p,
			    v6 ? "IPv6" : "IPv4", fib_route_capacity(r->fib, fam),
			    v6 ? "--max-routes6" : "--max-routes");
	/* only a route longer than /24 takes a group (the IPv6 trie's first
	 * level is 24 bits too) */
	if (rt->prefix.len > 24 && fib_tbl8_usage(r->fib, fam, &u) == 0 && u.reserved >= u.total)
		return ERRC(-ENOSPC,
			    "no room for %s: the %s tbl8 groups are all taken (%u, see %s and "
			    "'show memory')",
			    p, v6 ? "IPv6" : "IPv4", u.total, v6 ? "--tbl8-6" : "--tbl8");
	if (fib_nh_count(r->fib) >= fib_nh_capacity(r->fib))
		return ERRC(
			-ENOSPC,
			"no room for %s: the next-hop table is full (%u distinct next hops, see "
			"--max-nexthops)",
			p, fib_nh_capacity(r->fib));
	return ERRC(-ENOSPC,
		    "no room for %s: route or next-hop table full (see %s, --max-nexthops; "
		    "entries freed a moment ago are reused after the workers' grace period)",
		    p, v6 ? "--max-routes6, --tbl8-6" : "--max-routes, --tbl8");
}

unsigned int addr_edges(const struct fr_addr *a, uint8_t len, struct fr_addr edge[3])
{
	unsigned int n = 0;

	edge[n++] = *a;
	if (a->family == AF_INET && len <= 30) {
		edge[n] = *a;
		fr_addr_mask(&edge[n++], len); /* the network */
		edge[n] = edge[n - 1];
		edge[n++].v4 |= UINT32_MAX >> len; /* the broadcast */
	} else if (a->family == AF_INET6 && len <= 126) {
		edge[n] = *a;
		fr_addr_mask(&edge[n++], len);
	}
	return n;
}

int err_gw_unconnected(const struct fr_addr *gw, char *err, size_t errlen)
{
	char g[FR_ADDR_STRLEN];

	fr_addr_fmt(gw, g, sizeof(g));
	return ERRC(-ENETUNREACH,
		    "gateway %s is not on a connected network (add a port address covering it "
		    "first, or give 'port N')",
		    g);
}

int err_gw_covered(const struct fr_addr *gw, const struct fib_route *via, char *err, size_t errlen)
{
	char g[FR_ADDR_STRLEN], vp[FR_ADDR_STRLEN], vg[FR_ADDR_STRLEN + 4] = "";

	fr_addr_fmt(gw, g, sizeof(g));
	fr_prefix_fmt(&via->prefix, vp, sizeof(vp));
	if (via->type == FIB_NH_GATEWAY) {
		memcpy(vg, "via ", 4);
		fr_addr_fmt(&via->gw, vg + 4, sizeof(vg) - 4);
	}
	return ERRC(-ENETUNREACH,
		    "gateway %s is not on a connected network: route %s %s%s covers it (give "
		    "'port N', or a gateway that a port's network holds)",
		    g, vp, vg[0] ? vg : fib_nh_type_names[via->type],
		    via->flags & FIB_RTF_STRANDED ? " (withdrawn: table full)"
		    : via->flags & FIB_RTF_DOWN	  ? " (waiting for its port)"
						  : "");
}

int err_gw_link_local(const struct fr_addr *gw, char *err, size_t errlen)
{
	char g[FR_ADDR_STRLEN];

	return ERRC(-EDESTADDRREQ, "gateway %s is link-local: give the port it is on ('port N')",
		    fr_addr_fmt(gw, g, sizeof(g)));
}

static int route_err(const struct router *r, const struct fib_route *rt, int rc, char *err,
		     size_t errlen)
{
	char p[FR_ADDR_STRLEN], g[FR_ADDR_STRLEN];

	fr_prefix_fmt(&rt->prefix, p, sizeof(p));
	fr_addr_fmt(&rt->gw, g, sizeof(g));
	switch (rc) {
	case -EEXIST:
		return ERRC(-EEXIST, "route %s exists (use 'route replace' to change it)", p);
	case -ENETUNREACH: {
		struct fib_route via;

		/* on a port's network, a longer route may take it elsewhere:
		 * that route is what makes it unreachable (not the route a
		 * replace would replace, which the FIB left out) */
		if (on_port_net(r, &rt->gw) && fib_gw_via(r->fib, rt, &via) == 0 &&
		    via.type != FIB_NH_CONNECTED)
			return err_gw_covered(&rt->gw, &via, err, errlen);
		return err_gw_unconnected(&rt->gw, err, errlen);
	}
	case -EINVAL:
		if (rt->type == FIB_NH_GATEWAY && rt->gw.family != rt->prefix.addr.family)
			return ERR("gateway %s and prefix %s are of different address families", g,
				   p);
		if (rt->type == FIB_NH_GATEWAY)
			return ERR("gateway %s is an address of this router", g);
		return ERR("invalid route %s", p);
	case -ENOSPC:
		/* a new gateway takes a neighbour entry with its next hop */
		if (rt->type == FIB_NH_GATEWAY &&
		    neigh_count(r->neigh) >= neigh_capacity(r->neigh) &&
		    (rt->port == FIB_PORT_NONE ||
		     neigh_find(r->neigh, &rt->gw, rt->port) == NEIGH_IDX_NONE))
			return ERRC(-ENOSPC,
				    "no room for %s: the neighbour table is full (%u entries, "
				    "see --neigh-size and 'show neigh stats')",
				    p, neigh_capacity(r->neigh));
		return route_full(r, rt, p, err, errlen);
	case -EDESTADDRREQ:
		return err_gw_link_local(&rt->gw, err, errlen);
	case -EAFNOSUPPORT:
		return ERRC(-EAFNOSUPPORT, "%s: address family not supported", p);
	case -ENOENT:
		return ERRC(-ENOENT, "no route %s", p);
	default:
		return ERRC(rc, "route %s: %s", p, strerror(-rc));
	}
}

static int t_route_add(struct txn *t, struct fib_route *rt, char *err, size_t errlen)
{
	struct undo u = {.op = UNDO_ROUTE_DEL};
	int rc;

	if (t->failed)
		return ERRC(-ENOMEM, "out of memory");
	rc = fib_route_add(t->r->fib, rt);
	if (rc != 0)
		return route_err(t->r, rt, rc, err, errlen);
	u.route = *rt;
	if (journal(t, &u) != 0) {
		fib_route_del(t->r->fib, &rt->prefix, NULL);
		return ERRC(-ENOMEM, "out of memory");
	}
	return 0;
}

static int t_route_replace(struct txn *t, struct fib_route *rt, char *err, size_t errlen)
{
	struct undo u;
	struct fib_route old;
	int rc;

	if (t->failed)
		return ERRC(-ENOMEM, "out of memory");
	rc = fib_route_replace(t->r->fib, rt, &old);
	if (rc != 0)
		return route_err(t->r, rt, rc, err, errlen);
	memset(&u, 0, sizeof(u));
	if (old.type == FIB_NH_NONE) {
		u.op = UNDO_ROUTE_DEL;
		u.route = *rt;
	} else {
		u.op = UNDO_ROUTE_RESTORE;
		u.route = old;
	}
	if (journal(t, &u) != 0) {
		if (old.type == FIB_NH_NONE)
			fib_route_del(t->r->fib, &rt->prefix, NULL);
		else
			fib_route_restore(t->r->fib, &old);
		return ERRC(-ENOMEM, "out of memory");
	}
	return 0;
}

int txn_route_del(struct txn *t, const struct fr_prefix *p, char *err, size_t errlen)
{
	struct undo u = {.op = UNDO_ROUTE_RESTORE};
	struct fib_route old;
	int rc;

	if (t->failed)
		return ERRC(-ENOMEM, "out of memory");
	rc = fib_route_del(t->r->fib, p, &old);
	if (rc != 0) {
		memset(&old, 0, sizeof(old));
		old.prefix = *p;
		return route_err(t->r, &old, rc, err, errlen);
	}
	u.route = old;
	if (journal(t, &u) != 0) {
		fib_route_restore(t->r->fib, &old);
		return ERRC(-ENOMEM, "out of memory");
	}
	return 0;
}

/* Routes a port address installs: local /32 (/128), connected subnet, and
 * (IPv4, /30 and shorter) the subnet's broadcast and network addresses as
 * broadcast: RFC 1812 4.2.3.1 has a packet to { prefix, 0 } discarded or
 * treated as a broadcast, never sent to a host (no host has it: the
 * router would ask the link for it, and learn whoever answers); (IPv6,
 * /126 and shorter) the prefix's Subnet-Router anycast address { prefix,
 * 0 } as local: RFC 4291 2.6.1 has routers answer it, RFC 6164 leaves a
 * /127 without one. */
#define ADDR_ROUTES_MAX 4

/* @rt: the port's own route to @addr/@len, of @type */
static void port_route(struct fib_route *rt, struct fr_addr addr, uint8_t len, uint8_t type,
		       uint16_t port)
{
	memset(rt, 0, sizeof(*rt));
	rt->prefix.addr = addr;
	fr_addr_mask(&rt->prefix.addr, len);
	rt->prefix.len = len;
	rt->type = type;
	rt->port = port;
	rt->origin = FIB_ORIGIN_PORT;
}

static int addr_routes(const struct port_addr *pa, uint16_t port, struct fib_route *rts)
{
	unsigned int bits = fr_family_bits(pa->addr.family);
	int n = 0;

	port_route(&rts[n++], pa->addr, (uint8_t)bits, FIB_NH_LOCAL, port);
	if (pa->len < bits)
		port_route(&rts[n++], pa->addr, pa->len, FIB_NH_CONNECTED, port);
	/* RFC 3021: /31 has no broadcast address; IPv6 has none at all */
	if (pa->addr.family == AF_INET && pa->len <= 30) {
		port_route(&rts[n++], fr_addr4(pa->addr.v4 | (UINT32_MAX >> pa->len)), 32,
			   FIB_NH_BROADCAST, port);
		port_route(&rts[n++], fr_addr4(pa->addr.v4 & ~(UINT32_MAX >> pa->len)), 32,
			   FIB_NH_BROADCAST, port);
	} else if (pa->addr.family == AF_INET6 && pa->len <= 126) {
		struct fr_addr any = pa->addr;

		fr_addr_mask(&any, pa->len);
		port_route(&rts[n++], any, 128, FIB_NH_LOCAL, port);
	}
	return n;
}

/* @rt, one of the routes addr_routes() gives @pa, is its prefix's
 * Subnet-Router anycast route, which another address of the port in
 * the same prefix (a /64 and a /112 inside it) installs too: one route
 * for both, kept while either is there. */
static bool anycast_shared(const struct fr_port *p, const struct port_addr *pa,
			   const struct fib_route *rt)
{
	unsigned int i;

	if (rt->prefix.addr.family != AF_INET6 || rt->type != FIB_NH_LOCAL ||
	    fr_addr_eq(&rt->prefix.addr, &pa->addr))
		return false;
	for (i = 0; i < p->nb_addrs; i++) {
		struct fr_addr any = p->addrs[i].addr;

		if (any.family != AF_INET6 || p->addrs[i].len > 126 || fr_addr_eq(&any, &pa->addr))
			continue;
		fr_addr_mask(&any, p->addrs[i].len);
		if (fr_addr_eq(&any, &rt->prefix.addr))
			return true;
	}
	return false;
}

static int find_addr_owner(const struct router *r, const struct fr_addr *a)
{
	uint16_t p;
	unsigned int i;

	for (p = 0; p < r->nb_ports; p++)
		for (i = 0; i < r->ports[p].nb_addrs; i++)
			if (fr_addr_eq(&r->ports[p].addrs[i].addr, a))
				return p;
	return -1;
}

/* The port whose own IPv6 link-local address (never in the FIB nor among
 * the configured ones) @a is, or -1. */
static int ll6_owner(const struct router *r, const struct fr_addr *a)
{
	uint16_t p;

	if (a->family != AF_INET6)
		return -1;
	for (p = 0; p < r->nb_ports; p++)
		if (router_port_ok(r, p) && memcmp(r->dp_ports[p].ll6, a->v6, 16) == 0)
			return p;
	return -1;
}

/* @a is the network or broadcast address of a port's IPv4 subnet (of /30
 * or shorter), or the Subnet-Router anycast address of a port's IPv6 prefix
 * (port_anycast6()): no host has it. Returns the port (and which in
 * @what), or -1. */
static int subnet_edge_owner(const struct router *r, const struct fr_addr *a, const char **what)
{
	uint16_t p;
	int e;

	if (a->family == AF_INET6) {
		for (p = 0; p < r->nb_ports; p++) {
			if (port_anycast6(r, p, a->v6)) {
				*what = "Subnet-Router anycast";
				return p;
			}
		}
		return -1;
	}
	if (a->family != AF_INET)
		return -1;
	for (p = 0; p < r->nb_ports; p++) {
		e = port_subnet_edge4(&r->ports[p], a->v4);
		if (e != 0) {
			*what = e == 1 ? "network" : "broadcast";
			return p;
		}
	}
	return -1;
}

/* Port addresses @p a and @p b of one family whose subnets overlap (one
 * holds the other). */
static bool subnets_overlap(const struct port_addr *a, const struct port_addr *b)
{
	struct fr_prefix pa = {.addr = a->addr, .len = a->len};
	struct fr_prefix pb = {.addr = b->addr, .len = b->len};

	if (pa.addr.family != pb.addr.family)
		return false;
	fr_addr_mask(&pa.addr, pa.len);
	fr_addr_mask(&pb.addr, pb.len);
	return fr_prefix_contains(&pa, &pb.addr) || fr_prefix_contains(&pb, &pa.addr);
}

/* The index of @p p's (port @p port) address whose subnet holds @p pa's or
 * lies inside it and that has route @p shared of its own, or -1. */
static int same_port_overlap(const struct fr_port *p, uint16_t port, const struct port_addr *pa,
			     const struct fr_prefix *shared)
{
	unsigned int k;

	for (k = 0; k < p->nb_addrs; k++) {
		struct fib_route rts[ADDR_ROUTES_MAX];
		int j, n;

		if (!subnets_overlap(pa, &p->addrs[k]))
			continue;
		n = addr_routes(&p->addrs[k], port, rts);
		for (j = 0; j < n; j++)
			if (rts[j].prefix.len == shared->len &&
			    fr_addr_eq(&rts[j].prefix.addr, &shared->addr))
				return (int)k;
	}
	return -1;
}

int exec_addr_add(struct txn *t, const struct cmd *c, char *err, size_t errlen)
{
	struct router *r = t->r;
	struct fr_port *p;
	struct port_addr pa;
	struct fib_route rts[ADDR_ROUTES_MAX];
	char buf[FR_ADDR_STRLEN];
	struct undo u = {.op = UNDO_ADDR_DEL};
	uint32_t a, net = 0, bcast = 0;
	int i, n, rc, owner;

	rc = check_port(r, c->port, err, errlen);
	if (rc != 0)
		return rc;
	p = &r->ports[c->port];
	memset(&pa, 0, sizeof(pa)); /* IPv6: ADDR_DAD_WAIT, probed once announced */
	pa.addr = c->prefix.addr;
	pa.len = c->prefix.len;
	fr_prefix_fmt(&c->prefix, buf, sizeof(buf));
	if (pa.addr.family == AF_INET6) {
		const uint8_t *b = pa.addr.v6;

		/* global (or unique-local) unicast only: link-local addresses
		 * are derived from the MAC, one per port */
		if (fr_addr_not_host(&pa.addr) != NULL)
			return ERR("%s is not a unicast host address (%s)", buf,
				   fr_addr_not_host(&pa.addr));
		if (ip6_is_linklocal(b))
			return ERR("%s is not a global unicast address (the port's link-local "
				   "address is derived from its MAC)",
				   buf);
		rc = mtu6_check(t, (uint16_t)c->port, err, errlen);
		if (rc != 0)
			return rc;
		if (pa.len <= 126) {
			struct fr_addr any = pa.addr;

			fr_addr_mask(&any, pa.len);
			if (fr_addr_eq(&any, &pa.addr))
				return ERR("%s is the Subnet-Router anycast address of its prefix "
					   "(RFC 4291 2.6.1), not a host address",
					   buf);
		}
	} else {
		a = pa.addr.v4;
		if (fr_addr_not_host(&pa.addr) != NULL)
			return ERR("%s is not a unicast host address (%s)", buf,
				   fr_addr_not_host(&pa.addr));
		net = pa.len ? a & (UINT32_MAX << (32 - pa.len)) : 0;
		bcast = pa.len >= 32 ? a : a | (UINT32_MAX >> pa.len);
		if (pa.len <= 30 && (a == net || a == bcast))
			return ERR("%s is the %s address of its subnet", buf,
				   a == net ? "network" : "broadcast");
	}
	owner = find_addr_owner(r, &pa.addr);
	if (owner >= 0)
		return ERRC(-EEXIST, "address %s is already on port %d",
			    fr_addr_fmt(&pa.addr, buf, sizeof(buf)), owner);
	if (pa.len == 0)
		return ERR("%s: a port's subnet cannot be /0 (it would cover every address)", buf);
	/* one link per subnet: a subnet inside (or around) another port's
	 * would take part of that link's hosts to this one */
	for (i = 0; i < r->nb_ports; i++) {
		const struct fr_port *o = &r->ports[i];
		unsigned int k;

		if (i == (int)c->port)
			continue;
		for (k = 0; k < o->nb_addrs; k++) {
			if (subnets_overlap(&pa, &o->addrs[k])) {
				char ob[FR_ADDR_STRLEN + 4];
				struct fr_prefix op = {.addr = o->addrs[k].addr,
						       .len = o->addrs[k].len};

				return ERRC(-EEXIST, "%s overlaps %s on port %d", buf,
					    fr_prefix_fmt(&op, ob, sizeof(ob)), i);
			}
		}
	}
	if (p->nb_addrs >= FR_PORT_MAX_ADDRS)
		return ERRC(-ENOSPC, "port %u has %d addresses already (the maximum)", c->port,
			    FR_PORT_MAX_ADDRS);
	/* a gateway of a route may not become ours (nor, IPv4, the subnet's
	 * broadcast): that route would forward to the router itself, and
	 * could not be restored by a rollback */
	n = addr_routes(&pa, (uint16_t)c->port, rts);
	/* nor may a gateway or a static neighbour become the address, or
	 * (IPv4, /30 and shorter) the network or broadcast address of its
	 * subnet: a route or neighbour add refuses those, and show config,
	 * which lists addresses first, would print a file that no router
	 * starts with */
	{
		struct fr_addr edge[3];
		const int ne = (int)addr_edges(&pa.addr, pa.len, edge);
		int k;
		uint16_t q;

		for (k = 0; k < ne; k++) {
			struct neigh_info ni;

			fr_addr_fmt(&edge[k], buf, sizeof(buf));
			if (fib_gw_used(r->fib, &edge[k]) != 0)
				return ERRC(-EBUSY,
					    "%s is the gateway of routes in the table: replace "
					    "or delete them first",
					    buf);
			for (q = 0; q < r->nb_ports; q++) {
				if (neigh_get(r->neigh, &edge[k], q, &ni) != 0)
					continue;
				if (ni.configured)
					return ERRC(-EBUSY,
						    "%s is a static neighbour on port %u: 'neigh "
						    "del' it first",
						    buf, q);
				/* no duplicate address detection (RFC 4862 5.4)
				 * here: at least not a host the router talks
				 * to, whose traffic it would take */
				if (k == 0 && q == c->port && neigh_state_usable(ni.state)) {
					char mb[RTE_ETHER_ADDR_FMT_SIZE];

					rte_ether_format_addr(mb, sizeof(mb), &ni.mac);
					return ERRC(-EADDRINUSE,
						    "%s is in use on port %u by neighbour %s "
						    "(show neigh): 'neigh del' it first if that "
						    "host is gone",
						    buf, q, mb);
				}
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (anycast_shared(p, &pa, &rts[i]))
			continue; /* there already, the other address's */
		rc = t_route_add(t, &rts[i], err, errlen);
		if (rc == -EEXIST) {
			char pb[FR_ADDR_STRLEN], rb[FR_ADDR_STRLEN];
			int k = same_port_overlap(p, (uint16_t)c->port, &pa, &rts[i].prefix);

			fr_prefix_fmt(&c->prefix, buf, sizeof(buf));
			if (k >= 0) {
				struct fr_prefix op = {.addr = p->addrs[k].addr,
						       .len = p->addrs[k].len};

				/* the port's other address in the same subnet
				 * made that route: say so, not the route */
				return ERRC(-EEXIST,
					    "%s overlaps %s on port %u (they would share "
					    "route %s)",
					    buf, fr_prefix_fmt(&op, pb, sizeof(pb)), c->port,
					    fr_prefix_fmt(&rts[i].prefix, rb, sizeof(rb)));
			}
			return ERRC(-EEXIST, "address %s needs route %s, which exists already", buf,
				    fr_prefix_fmt(&rts[i].prefix, pb, sizeof(pb)));
		}
		if (rc != 0)
			return rc; /* earlier routes are in the journal */
	}
	u.port = (uint16_t)c->port;
	u.pa = pa;
	if (journal(t, &u) != 0)
		return ERRC(-ENOMEM, "out of memory");
	p->addrs[p->nb_addrs++] = pa;
	t->addr_changed = true;
	t->addr_added[c->port / 64] |= 1ull << (c->port % 64);
	return 0;
}

int exec_addr_del(struct txn *t, const struct cmd *c, char *err, size_t errlen)
{
	struct router *r = t->r;
	struct fr_port *p;
	struct port_addr pa;
	struct fib_route rts[ADDR_ROUTES_MAX], cur;
	char buf[FR_ADDR_STRLEN];
	struct undo u = {.op = UNDO_ADDR_ADD};
	unsigned int i;
	int j, n, rc;

	rc = check_port(r, c->port, err, errlen);
	if (rc != 0)
		return rc;
	p = &r->ports[c->port];
	pa.addr = c->prefix.addr;
	pa.len = c->prefix.len;
	for (i = 0; i < p->nb_addrs; i++)
		if (fr_addr_eq(&p->addrs[i].addr, &pa.addr) && p->addrs[i].len == pa.len)
			break;
	if (i == p->nb_addrs)
		return ERRC(-ENOENT, "port %u has no address %s", c->port,
			    fr_prefix_fmt(&c->prefix, buf, sizeof(buf)));
	n = addr_routes(&pa, (uint16_t)c->port, rts);
	for (j = 0; j < n; j++) {
		if (fib_route_get(r->fib, &rts[j].prefix, &cur) != 0 ||
		    cur.origin != FIB_ORIGIN_PORT || anycast_shared(p, &pa, &rts[j]))
			continue;
		rc = txn_route_del(t, &rts[j].prefix, err, errlen);
		if (rc != 0)
			return rc;
	}
	u.port = (uint16_t)c->port;
	u.pa = p->addrs[i]; /* as it was, its DAD state with it */
	u.idx = (uint8_t)i;
	if (journal(t, &u) != 0)
		return ERRC(-ENOMEM, "out of memory");
	port_addr_remove(p, &pa);
	t->addr_changed = true;
	return 0;
}

/* addr_gone_gateways()'s walk: @p lost subnet @gone (host bits clear) */
struct gw_gone {
	const struct fib *f;
	const struct fr_port *p;
	uint16_t port;
	struct fr_prefix gone;
	unsigned int n;
};

/* @gw, a gateway on @port, was in the subnet gone, and none of the port's
 * subnets holds it now */
static bool gw_gone_offlink(const struct gw_gone *a, uint16_t port, const struct fr_addr *gw)
{
	unsigned int i;

	if (port != a->port || !fr_prefix_contains(&a->gone, gw))
		return false;
	for (i = 0; i < a->p->nb_addrs; i++) {
		struct fr_prefix s = {.addr = a->p->addrs[i].addr, .len = a->p->addrs[i].len};

		fr_addr_mask(&s.addr, s.len);
		if (fr_prefix_contains(&s, gw))
			return false;
	}
	return true;
}

static int count_gw_gone(const struct fib_route *rt, void *arg)
{
	struct gw_gone *a = arg;

	if (rt->type == FIB_NH_MULTIPATH) {
		struct fib_mp_member m[FIB_MP_MAX];
		unsigned int i, n = fib_mp_members(a->f, rt->nh_idx, m);

		for (i = 0; i < n && !gw_gone_offlink(a, m[i].port, &m[i].gw); i++)
			;
		a->n += i < n;
	} else if (rt->type == FIB_NH_GATEWAY && gw_gone_offlink(a, rt->port, &rt->gw)) {
		a->n++;
	}
	return 0;
}

unsigned int addr_gone_gateways(const struct router *r, uint16_t port, const struct fr_prefix *gone)
{
	struct gw_gone a = {.f = r->fib, .p = &r->ports[port], .port = port, .gone = *gone};

	if (r->fib == NULL)
		return 0;
	(void)fib_route_walk(r->fib, gone->addr.family, count_gw_gone, &a);
	return a.n;
}

/* A route of @family that forwards out of @port (one that names it). */
struct port_of {
	const struct fib *f;
	const struct cfg_replace *rp;
	uint16_t port;
};

static int names_port(const struct fib_route *rt, void *arg)
{
	const struct port_of *a = arg;

	if (a->rp != NULL && !replace_route_made(a->rp, rt))
		return 0; /* a start with the file has no such route yet */
	if (rt->type == FIB_NH_MULTIPATH) {
		struct fib_mp_member m[FIB_MP_MAX];
		unsigned int i, n = fib_mp_members(a->f, rt->nh_idx, m);

		for (i = 0; i < n; i++)
			if (m[i].port == a->port)
				return 1;
		return 0;
	}
	return rt->port == a->port && (rt->type == FIB_NH_GATEWAY || rt->type == FIB_NH_CONNECTED);
}

/* IPv6 routes forward out of @port: its MTU must stay at least 1280. */
static bool port_routes6(const struct txn *t, uint16_t port)
{
	struct port_of a = {.f = t->r->fib, .rp = t->rp, .port = port};

	return fib_route_walk(t->r->fib, AF_INET6, names_port, &a) != 0;
}

/* @port has an IPv6 address (a start with the file being replaced: one
 * whose line ran). */
static bool port_addrs6(const struct txn *t, uint16_t port)
{
	const struct fr_port *p = &t->r->ports[port];
	unsigned int i;

	for (i = 0; i < p->nb_addrs; i++)
		if (p->addrs[i].addr.family == AF_INET6 &&
		    (t->rp == NULL || replace_addr_made(t->rp, port, &p->addrs[i])))
			return true;
	return false;
}

int mtu_set_check(const struct txn *t, uint16_t port, uint32_t mtu, char *err, size_t errlen)
{
	if (mtu < IP6_MIN_MTU && port_addrs6(t, port))
		return ERR("port %u has IPv6 addresses: its MTU must be at least %u (RFC 8200 5)",
			   port, IP6_MIN_MTU);
	if (mtu < IP6_MIN_MTU && port_routes6(t, port))
		return ERR("IPv6 routes leave by port %u (via a link-local gateway, or dev): its "
			   "MTU must be at least %u (RFC 8200 5)",
			   port, IP6_MIN_MTU);
	/* (its advertisements would stop, with no last one to withdraw it) */
	if (mtu < IP6_MIN_MTU &&
	    (t->rp != NULL ? replace_ra_on(t->rp, port) : t->r->ports[port].ra_max_s != 0))
		return ERR("port %u sends router advertisements: its MTU must be at least %u "
			   "(RFC 8200 5; 'port %u ra off' first)",
			   port, IP6_MIN_MTU, port);
	return 0;
}

/* A gateway the router may route by: no address of its own, nor a
 * subnet's network or broadcast address. */
int gw_check(const struct router *r, const struct fr_addr *gw, char *err, size_t errlen)
{
	char buf[FR_ADDR_STRLEN];
	const char *what;
	int owner = subnet_edge_owner(r, gw, &what);

	if (owner >= 0)
		return ERR("gateway %s is the %s address of port %d's subnet: no host has it",
			   fr_addr_fmt(gw, buf, sizeof(buf)), what, owner);
	owner = ll6_owner(r, gw);
	if (owner >= 0)
		return ERR("gateway %s is an address of this router (port %d's link-local)",
			   fr_addr_fmt(gw, buf, sizeof(buf)), owner);
	/* the configured ones, each checked here and not only by the FIB's
	 * local route: an IPv6 address that duplicate address detection
	 * found another host's has none, and is still ours (show config
	 * lists it, and takes it back once DAD passes) */
	owner = find_addr_owner(r, gw);
	if (owner >= 0)
		return ERR("gateway %s is an address of this router (port %d)",
			   fr_addr_fmt(gw, buf, sizeof(buf)), owner);
	return 0;
}

/* @p held by @cur: a static route is replaced by 'route replace'; a port's
 * or the router's own cannot be changed by route commands. */
static int route_held_err(const struct fr_prefix *p, const struct fib_route *cur, char *err,
			  size_t errlen)
{
	char buf[FR_ADDR_STRLEN];

	fr_prefix_fmt(p, buf, sizeof(buf));
	if (cur->origin == FIB_ORIGIN_STATIC)
		return ERRC(-EEXIST, "route %s exists (use 'route replace' to change it)", buf);
	return ERRC(-EEXIST,
		    "route %s exists, installed by %s; it cannot be changed by route commands", buf,
		    cur->origin == FIB_ORIGIN_PORT ? "a port address" : "the router");
}

/* route add|replace PREFIX via GW ... via GW: each gateway checked as a
 * single one is, then one next hop that holds them all */
static int mp_route(struct txn *t, const struct cmd *c, char *err, size_t errlen)
{
	struct router *r = t->r;
	struct fib_mp_member m[FIB_MP_MAX];
	struct fib_route rt = c->route, cur;
	char buf[FR_ADDR_STRLEN];
	unsigned int i, bad;
	uint32_t idx;
	int rc;

	memcpy(m, c->mp, sizeof(m));
	/* a prefix held says so before its gateways are resolved: they are
	 * resolved without the prefix's own route, as for a replace, and one
	 * inside it would be called off the subnets (one gateway: the FIB
	 * says "exists" first, route_put()) */
	if (c->id == CMD_ROUTE_ADD && fib_route_get(r->fib, &c->prefix, &cur) == 0)
		return route_held_err(&c->prefix, &cur, err, errlen);
	for (i = 0; i < c->nmp; i++) {
		if (m[i].port != FIB_PORT_NONE) {
			rc = check_port(r, m[i].port, err, errlen);
			if (rc != 0)
				return rc;
			if (rt.prefix.addr.family == AF_INET6) {
				rc = mtu6_check(t, m[i].port, err, errlen);
				if (rc != 0)
					return rc;
			}
		}
		rc = gw_check(r, &m[i].gw, err, errlen);
		if (rc != 0)
			return rc;
	}
	rc = fib_mp_get(r->fib, &rt, m, c->nmp, &idx, &bad);
	if (rc == -EEXIST)
		return ERR("gateway %s given twice", fr_addr_fmt(&m[bad].gw, buf, sizeof(buf)));
	if (rc == -ENOSPC && bad == c->nmp && fib_mp_count(r->fib) >= FIB_MP_GROUPS) {
		/* sets this command or file replaced or deleted stay until it
		 * ends, for its undo: a change of most of them at once needs
		 * room for the old and the new */
		const uint32_t kept = fib_mp_kept(r->fib);

		if (kept > 0)
			return ERRC(-ENOSPC,
				    "no room for %s: %u distinct sets of multipath gateways are "
				    "in use, the most there can be, %u of them no longer by "
				    "routes but kept until this command or file ends, for its "
				    "undo (change fewer sets at a time)",
				    fr_prefix_fmt(&c->prefix, buf, sizeof(buf)), FIB_MP_GROUPS,
				    kept);
		return ERRC(-ENOSPC,
			    "no room for %s: %u distinct sets of multipath gateways are in use, "
			    "the most there can be (routes with the same gateways share one)",
			    fr_prefix_fmt(&c->prefix, buf, sizeof(buf)), FIB_MP_GROUPS);
	}
	if (rc != 0) {
		struct fib_route g = rt;

		g.type = FIB_NH_GATEWAY;
		if (bad < c->nmp) {
			g.gw = m[bad].gw;
			g.port = m[bad].port;
		}
		return route_err(r, &g, rc, err, errlen);
	}
	rt.nh_idx = idx;
	rc = c->id == CMD_ROUTE_ADD ? t_route_add(t, &rt, err, errlen)
				    : t_route_replace(t, &rt, err, errlen);
	fib_nh_release(r->fib, idx); /* the route holds it now, or nothing does */
	return rc;
}

int exec_route(struct txn *t, const struct cmd *c, char *err, size_t errlen)
{
	struct router *r = t->r;
	struct fib_route rt = c->route, cur;
	char buf[FR_ADDR_STRLEN];
	int rc;

	if (rt.port != FIB_PORT_NONE) {
		rc = check_port(r, rt.port, err, errlen);
		if (rc != 0)
			return rc;
	}
	/* a multipath route's members are checked each in turn (mp_route()) */
	if (c->id != CMD_ROUTE_DEL && rt.type != FIB_NH_MULTIPATH) {
		rc = route_mtu6_check(t, c, err, errlen);
		if (rc != 0)
			return rc;
	}
	if (c->id != CMD_ROUTE_DEL && rt.type == FIB_NH_GATEWAY) {
		rc = gw_check(r, &rt.gw, err, errlen);
		if (rc != 0)
			return rc;
	}
	/* routes a port address installed belong to that address */
	if (c->id != CMD_ROUTE_ADD && fib_route_get(r->fib, &c->prefix, &cur) == 0 &&
	    cur.origin != FIB_ORIGIN_STATIC)
		return ERRC(-EPERM,
			    "route %s was installed by %s; it cannot be changed by route commands",
			    fr_prefix_fmt(&c->prefix, buf, sizeof(buf)),
			    cur.origin == FIB_ORIGIN_PORT ? "a port address" : "the router");
	/* an address's host route stays its own while it is out (duplicate
	 * address detection found another host holding it): taken by a
	 * route, show config would print a file no router starts with, and
	 * the address, usable again, would find it taken */
	if (c->id != CMD_ROUTE_DEL &&
	    c->prefix.len == (c->prefix.addr.family == AF_INET ? 32 : 128)) {
		int owner = find_addr_owner(r, &c->prefix.addr);

		if (owner >= 0 && fib_route_get(r->fib, &c->prefix, &cur) != 0)
			return ERRC(-EPERM,
				    "route %s: an address of this router (port %d), its local "
				    "route out meanwhile%s; it cannot be changed by route commands",
				    fr_prefix_fmt(&c->prefix, buf, sizeof(buf)), owner,
				    c->prefix.addr.family == AF_INET6
					    ? " (duplicate address detection found another host "
					      "holding it, or no room was left to put it back)"
					    : "");
	}
	if (c->id != CMD_ROUTE_DEL && rt.type == FIB_NH_MULTIPATH)
		return mp_route(t, c, err, errlen);
	switch (c->id) {
	case CMD_ROUTE_ADD:
		rc = t_route_add(t, &rt, err, errlen);
		/* a clash with a route the router installed says whose (looked
		 * up only then, not for each of a million adds) */
		if (rc == -EEXIST && fib_route_get(r->fib, &c->prefix, &cur) == 0 &&
		    cur.origin != FIB_ORIGIN_STATIC)
			return route_held_err(&c->prefix, &cur, err, errlen);
		return rc;
	case CMD_ROUTE_REPLACE:
		return t_route_replace(t, &rt, err, errlen);
	default:
		return txn_route_del(t, &c->prefix, err, errlen);
	}
}

int exec_neigh(struct txn *t, const struct cmd *c, char *err, size_t errlen)
{
	struct router *r = t->r;
	struct neigh_info ni;
	char buf[FR_ADDR_STRLEN];
	struct undo u;
	bool exists, had, learnt, undo = true;
	int rc;

	rc = check_port(r, c->port, err, errlen);
	if (rc != 0)
		return rc;
	if (t->failed)
		return ERRC(-ENOMEM, "out of memory");
	memset(&u, 0, sizeof(u));
	u.n.addr = c->addr;
	u.port = (uint16_t)c->port;
	exists = neigh_get(r->neigh, &c->addr, (uint16_t)c->port, &ni) == 0;
	/* a static entry, or a learnt one with its MAC: a rollback puts it
	 * back as it was */
	had = exists && ni.configured;
	learnt = exists && !ni.configured && neigh_state_usable(ni.state);
	if (had || learnt)
		u.n.mac = ni.mac;
	fr_addr_fmt(&c->addr, buf, sizeof(buf));
	if (c->id == CMD_NEIGH_ADD) {
		const char *what;
		int owner = find_addr_owner(r, &c->addr);

		if (owner < 0)
			owner = ll6_owner(r, &c->addr);
		if (owner >= 0)
			return ERR("%s is an address of this router (port %d), not a neighbour's",
				   buf, owner);
		owner = subnet_edge_owner(r, &c->addr, &what);
		if (owner >= 0)
			return ERR("%s is the %s address of port %d's subnet, not a neighbour's",
				   buf, what, owner);
		/* as ARP and ND refuse such a sender (arp_bad_sender): the
		 * entry would send its traffic back into the router */
		owner = router_mac_port(r, &c->mac);
		if (owner >= 0) {
			char mac[RTE_ETHER_ADDR_FMT_SIZE];

			rte_ether_format_addr(mac, sizeof(mac), &c->mac);
			return ERR("lladdr %s is the MAC of this router's port %d, not a "
				   "neighbour's: traffic to %s would come back into the router",
				   mac, owner, buf);
		}
		u.op = had ? UNDO_NEIGH_SET : learnt ? UNDO_NEIGH_LEARNT : UNDO_NEIGH_DEL;
	} else {
		u.op = had ? UNDO_NEIGH_SET : UNDO_NEIGH_LEARNT;
		undo = had || learnt;
	}
	/* journaled before the change: out of memory leaves nothing changed */
	if (undo && journal(t, &u) != 0)
		return ERRC(-ENOMEM, "out of memory");
	if (c->id == CMD_NEIGH_ADD)
		rc = neigh_static_set(r->neigh, &c->addr, (uint16_t)c->port, &c->mac);
	else
		rc = neigh_del(r->neigh, &c->addr, (uint16_t)c->port);
	if (rc != 0) {
		if (undo)
			t->n--; /* nothing to undo */
		if (rc == -ENOSPC)
			return ERRC(rc, "neighbour table full (see --neigh-size)");
		/* listed by show neigh, state NONE: a route's gateway not
		 * asked for yet, no entry of its own to delete */
		if (rc == -ENOENT && exists)
			return ERRC(rc,
				    "no neighbour %s on port %u to delete: the NONE entry show "
				    "neigh lists is a route's gateway not resolved yet (it goes "
				    "with the route)",
				    buf, c->port);
		if (rc == -ENOENT)
			return ERRC(rc, "no neighbour %s on port %u", buf, c->port);
		return ERRC(rc, "neigh %s: %s", buf, strerror(-rc));
	}
	return 0;
}

int exec_set_neigh(struct txn *t, const struct cmd *c, char *err, size_t errlen)
{
	struct undo u = {.op = UNDO_NEIGH_PARAMS};
	struct neigh_params p;

	neigh_params_get(t->r->neigh, &p);
	u.np = p;
	cmd_neigh_params_apply(c, &p);
	if (t->r->pools_ready && p.hold_total > t->r->hold_room && p.hold_total > u.np.hold_total)
		return ERRC(-ENOSPC,
			    "hold-total %u: the mbuf pools have room for %u held mbufs (sized "
			    "at start: put the line in the startup configuration, -f, or give "
			    "--mbufs, and restart)",
			    p.hold_total, t->r->hold_room);
	if (neigh_params_set(t->r->neigh, &p) != 0)
		return ERR("invalid neighbour parameters");
	if (journal(t, &u) != 0) {
		neigh_params_set(t->r->neigh, &u.np);
		return ERRC(-ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * An MTU above what port @pid's device carries: the device is asked to
 * carry it (a started port now, one not set up yet when it is: port.c), or
 * the command fails; the journal holds the device's MTU as it was. Below,
 * the router keeps it (it sends nothing larger), and a device an earlier
 * command raised goes back down to it once the transaction is kept
 * (txn_commit(): mtu_lower()), never below what the device reported: as a
 * router started from show config's file sets it up, so the two take the
 * same frames. Lowered only then, a device is never raised back by a
 * rollback, which it could refuse (some do while started), leaving the
 * router's MTU above the device's. Ports without a device (tests) pass.
 */
static int port_mtu_fit(struct txn *t, uint16_t pid, uint32_t mtu, char *err, size_t errlen)
{
	struct fr_port *p = &t->r->ports[pid];
	int rc;

	if (!rte_eth_dev_is_valid_port(pid))
		return 0;
	if (mtu <= p->dev_mtu) {
		t->mtu_lowered[pid / 64] |= 1ull << (pid % 64);
		return 0;
	}
	if (mtu > PORT_MTU_MAX)
		return ERRC(-EINVAL,
			    "port %u carries at most %u bytes (frames are received whole into "
			    "%u-byte buffers)",
			    pid, (unsigned int)PORT_MTU_MAX,
			    (unsigned int)RTE_MBUF_DEFAULT_DATAROOM);
	{
		/* the device's own bound, said alike whether the port is set
		 * up later (port.c: checked now, with the line) or now */
		uint32_t max = port_mtu_max(pid);

		if (max != 0 && mtu > max)
			return ERRC(-EINVAL,
				    "port %u (%s): the device cannot take MTU %u (at most %u)", pid,
				    p->name, mtu, max);
	}
	if (!p->started)
		return 0;
	rc = rte_eth_dev_set_mtu(pid, (uint16_t)mtu);
	if (rc != 0)
		/* busy: a driver that changes it only while the port is
		 * stopped, which a configuration file's line does at start */
		return ERRC(
			rc < 0 ? rc : -EIO,
			"port %u (%s): the device cannot take MTU %u (%s); it carries %u%s", pid,
			p->name, mtu, rte_strerror(rc < 0 ? -rc : EIO), p->dev_mtu,
			rc == -EBUSY
				? " while started: put it in the file --config applies at start, "
				  "before the port starts"
				: "");
	p->dev_mtu = (uint16_t)mtu;
	return 0;
}

int exec_setting(struct txn *t, const struct cmd *c, char *err, size_t errlen)
{
	struct undo u = {.op = UNDO_SETTING};
	struct setting now;
	uint16_t port = 0;
	int rc;

	if (c->id == CMD_RTCACHE_SIZE) {
		rc = check_rtcache_size(t->r, c, err, errlen);
		if (rc != 0)
			return rc;
	}
	if (c->id == CMD_PORT_MTU || c->id == CMD_PORT_RPF || c->id == CMD_PORT_REDIRECTS ||
	    c->id == CMD_PORT_ADMIN || c->id == CMD_PORT_HOLD || c->id == CMD_PORT_RA) {
		rc = check_port(t->r, c->port, err, errlen);
		if (rc != 0)
			return rc;
		port = (uint16_t)c->port;
	}
	if (c->id == CMD_PORT_MTU) {
		rc = mtu_set_check(t, port, c->value, err, errlen);
		if (rc != 0)
			return rc;
	}
	if (c->id == CMD_PORT_RA && (c->value & RA_ON)) {
		rc = mtu6_check(t, port, err, errlen);
		if (rc != 0)
			return rc;
	}
	txn_setting_get(t->r, c->id, port, &u.set);
	if (journal(t, &u) != 0)
		return ERRC(-ENOMEM, "out of memory");
	if (c->id == CMD_PORT_MTU) {
		rc = port_mtu_fit(t, port, c->value, err, errlen);
		if (rc != 0)
			return rc;
	}
	now.id = c->id;
	now.port = port;
	now.value = c->value;
	now.value2 = c->value2;
	/* what could not be done is said on stderr; the setting stands */
	(void)setting_apply(t->r, &now);
	if (c->id == CMD_PORT_RA) {
		/* after the setting: 'off' withdraws the servers it named */
		const struct fr_port *p = &t->r->ports[port];
		struct undo d = {.op = UNDO_RA_DNS, .port = port};

		d.dns.n = p->ra_ndns;
		memcpy(d.dns.a, p->ra_dns, sizeof(d.dns.a));
		if (journal(t, &d) != 0)
			return ERRC(-ENOMEM, "out of memory");
		router_ra_dns_set(t->r, port, c->value != 0 ? c->ndns : 0,
				  (const uint8_t(*)[16])c->dns);
	}
	if (c->id == CMD_PORT_ADMIN) {
		t->admin_changed[port / 64] |= 1ull << (port % 64);
		if (c->value != 0)
			t->took_down[port / 64] |= 1ull << (port % 64);
	}
	return 0;
}
