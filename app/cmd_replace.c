/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * configure replace FILE: the running configuration made the one FILE
 * describes, changing only what differs, in one transaction. The file's
 * first pass notes what it adds (routes by prefix, port addresses,
 * static neighbours) and sets; what the router has and the file does not
 * add is removed before the second pass, whose lines leave alone what is
 * there already, and the settings the file does not set go back to what
 * they were before the router's startup file (config_boot_save()). Each
 * line's checks see the router a start with the file has at that line
 * (replace_mtu(), replace_route_made(), replace_addr_made()). A
 * route the router has and the file keeps is never taken out of the
 * lookups, so its traffic never notices the replace, unless its gateway
 * becomes one of the router's own addresses (a renumbering: it goes
 * before the second pass, whose line puts it back). At the end each
 * port's addresses are in the file's order, as a router started with it
 * has them (the first is the source of the port's own packets).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "cmd_priv.h"
#include "cmd_replace.h"
#include "fr_kset.h"
#include "ip6.h"
#include "nd.h"

static_assert(FR_BOOT_SETTINGS == CMD_CONFIG_LAST + 1, "FR_BOOT_SETTINGS: one per config command");

/* What a line adds, by what names it: a route by its prefix, a port
 * address by port and prefix (and by its address alone, K_OWN: the
 * router's in the end), a neighbour by address and port. */
enum { K_ROUTE = 1, K_ADDR, K_NEIGH, K_OWN };

struct rkey {
	uint8_t kind, family, len, pad;
	uint16_t port, pad2;
	uint8_t a[16];
};

/* state: 0 empty slot, NOTED by the first pass, APPLIED once the second
 * pass has seen its first line (a later line for it runs as in a plain
 * load: a second 'route add' fails as it would there; its gateways are
 * resolved as a start would, route_as_started()) */
enum { S_NOTED = 1, S_APPLIED };

struct rslot {
	struct rkey k;
	uint32_t state;
	uint32_t seq; /* K_ADDR: the file's order of its addresses */
};

struct cfg_replace {
	struct router *r;
	struct fr_kset s;  /* struct rslot, by its key */
	uint32_t nb_addrs; /* port address lines noted */
	/* settings the file sets, by command id and port (0: the router's) */
	uint64_t seen[CMD_CONFIG_LAST + 1][(FR_MAX_PORTS + 63) / 64];
	uint32_t np_seen; /* neighbour parameters it sets (cmd.nparams_set bits) */
	/* ports whose MTU line, 'ra' line, the second pass has run */
	uint64_t mtu_ran[(FR_MAX_PORTS + 63) / 64];
	uint64_t ra_ran[(FR_MAX_PORTS + 63) / 64];
	unsigned int unchanged, removed, reset;
};

/* The settings: per port, then the router's (rtcache size is fixed at
 * start: a file's must match, one without it leaves it). */
static const enum cmd_id port_settings[] = {CMD_PORT_MTU, CMD_PORT_RPF,	  CMD_PORT_REDIRECTS,
					    CMD_PORT_RA,  CMD_PORT_ADMIN, CMD_PORT_HOLD};
static const enum cmd_id router_settings[] = {CMD_SET_IP_MARTIANS, CMD_SET_IP_DBCAST,
					      CMD_SET_IP_MPHASH,   CMD_SET_ICMP_RATE,
					      CMD_SET_IP_REASM,	   CMD_RTCACHE_MODE};

static bool in_list(const enum cmd_id *l, size_t n, enum cmd_id id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i] == id)
			return true;
	return false;
}

static bool is_port_setting(enum cmd_id id)
{
	return in_list(port_settings, RTE_DIM(port_settings), id);
}

static bool is_router_setting(enum cmd_id id)
{
	return in_list(router_settings, RTE_DIM(router_settings), id);
}

static struct rkey key_of(uint8_t kind, const struct fr_addr *a, uint8_t len, uint16_t port)
{
	struct rkey k;

	memset(&k, 0, sizeof(k));
	k.kind = kind;
	k.family = a->family;
	k.len = len;
	k.port = port;
	if (a->family == AF_INET)
		memcpy(k.a, &a->v4, 4);
	else
		memcpy(k.a, a->v6, 16);
	return k;
}

static int note(struct cfg_replace *rp, const struct rkey *k)
{
	bool added;
	struct rslot *s = fr_kset_put(&rp->s, k, &added);

	if (s == NULL)
		return -ENOMEM;
	if (added) {
		s->state = S_NOTED;
		s->seq = 0;
	}
	/* an address's place on its port: its last add line's, as in a start
	 * (one deleted, then added again, goes last) */
	if (k->kind == K_ADDR)
		s->seq = rp->nb_addrs++;
	return 0;
}

/* @k's state: 0 if the file names it nowhere */
static uint32_t state_of(const struct cfg_replace *rp, const struct rkey *k)
{
	const struct rslot *s = fr_kset_get(&rp->s, k);

	return s != NULL ? s->state : 0;
}

struct cfg_replace *replace_new(struct router *r)
{
	struct cfg_replace *rp = calloc(1, sizeof(*rp));

	if (rp == NULL)
		return NULL;
	rp->r = r;
	if (fr_kset_init(&rp->s, sizeof(struct rslot), sizeof(struct rkey), 1024) != 0) {
		free(rp);
		return NULL;
	}
	return rp;
}

void replace_free(struct cfg_replace *rp)
{
	if (rp == NULL)
		return;
	fr_kset_free(&rp->s);
	free(rp);
}

static void seen_set(struct cfg_replace *rp, enum cmd_id id, uint32_t port)
{
	rp->seen[id][port / 64] |= 1ull << (port % 64);
}

static bool seen(const struct cfg_replace *rp, enum cmd_id id, uint32_t port)
{
	return (rp->seen[id][port / 64] >> (port % 64)) & 1;
}

int replace_note(struct cfg_replace *rp, const struct cmd *c)
{
	struct rkey k;

	switch (c->id) {
	case CMD_ROUTE_ADD:
	case CMD_ROUTE_REPLACE:
		k = key_of(K_ROUTE, &c->route.prefix.addr, c->route.prefix.len, 0);
		return note(rp, &k);
	case CMD_PORT_ADDR_ADD: {
		/* the router's in the end: the address and the addresses of
		 * its subnet no gateway may be */
		struct fr_addr edge[3];
		unsigned int i, n = addr_edges(&c->prefix.addr, c->prefix.len, edge);

		k = key_of(K_ADDR, &c->prefix.addr, c->prefix.len, (uint16_t)c->port);
		if (note(rp, &k) != 0)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			k = key_of(K_OWN, &edge[i], 0, 0);
			if (note(rp, &k) != 0)
				return -ENOMEM;
		}
		return 0;
	}
	case CMD_NEIGH_ADD:
		k = key_of(K_NEIGH, &c->addr, 0, (uint16_t)c->port);
		return note(rp, &k);
	case CMD_SET_NEIGH:
		rp->np_seen |= c->nparams_set;
		return 0;
	default:
		if (is_port_setting(c->id))
			seen_set(rp, c->id, c->port);
		else if (is_router_setting(c->id))
			seen_set(rp, c->id, 0);
		return 0;
	}
}

/* ---- before the second pass: what the file does not add goes ----------- */

/* A growing array of @size-byte items (prefixes, neighbours). */
struct list {
	struct cfg_replace *rp;
	void *v;
	size_t n, cap, size;
};

static int push(struct list *l, const void *item)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		void *nv = realloc(l->v, cap * l->size);

		if (nv == NULL)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	memcpy((char *)l->v + l->n++ * l->size, item, l->size);
	return 0;
}

static bool becomes_own(const struct cfg_replace *rp, const struct fr_addr *gw)
{
	struct rkey k = key_of(K_OWN, gw, 0, 0);

	return state_of(rp, &k) != 0;
}

/* Route @rt's gateway, or one of them, is an address the file gives a port. */
static bool via_own(const struct cfg_replace *rp, const struct fib_route *rt)
{
	struct fib_mp_member m[FIB_MP_MAX];
	unsigned int i, n;

	if (rt->type == FIB_NH_GATEWAY)
		return becomes_own(rp, &rt->gw);
	if (rt->type != FIB_NH_MULTIPATH)
		return false;
	n = fib_mp_members(rp->r->fib, rt->nh_idx, m);
	for (i = 0; i < n; i++)
		if (becomes_own(rp, &m[i].gw))
			return true;
	return false;
}

/* the static routes the file does not add (@gone), and those it adds again
 * whose gateway becomes the router's own address (@renumbered) */
struct route_lists {
	struct list gone, renumbered;
};

static int route_gone_cb(const struct fib_route *rt, void *arg)
{
	struct route_lists *l = arg;
	struct cfg_replace *rp = l->gone.rp;
	struct rkey k;

	if (rt->origin != FIB_ORIGIN_STATIC)
		return 0;
	k = key_of(K_ROUTE, &rt->prefix.addr, rt->prefix.len, 0);
	if (state_of(rp, &k) == 0)
		return push(&l->gone, &rt->prefix);
	return via_own(rp, rt) ? push(&l->renumbered, &rt->prefix) : 0;
}

struct neigh_key {
	struct fr_addr addr;
	uint16_t port;
};

static int neigh_gone_cb(const struct neigh_info *ni, void *arg)
{
	struct list *l = arg;
	struct neigh_key nk = {.addr = ni->addr, .port = ni->port};
	struct rkey k;

	if (!ni->configured)
		return 0;
	k = key_of(K_NEIGH, &ni->addr, 0, ni->port);
	return state_of(l->rp, &k) != 0 ? 0 : push(l, &nk);
}

static int routes_del(struct txn *t, const struct list *l, void (*serve)(void *), void *arg,
		      char *err, size_t errlen)
{
	const struct fr_prefix *v = l->v;
	size_t i;
	int rc;

	for (i = 0; i < l->n; i++) {
		if ((i & 0x1fff) == 0x1fff)
			serve(arg);
		rc = txn_route_del(t, &v[i], err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int replace_prune(struct cfg_replace *rp, struct txn *t, void (*serve)(void *), void *arg,
		  char *err, size_t errlen)
{
	struct router *r = rp->r;
	struct route_lists routes = {
		.gone = {.rp = rp, .size = sizeof(struct fr_prefix)},
		.renumbered = {.rp = rp, .size = sizeof(struct fr_prefix)},
	};
	struct list neighs = {.rp = rp, .size = sizeof(struct neigh_key)};
	const struct neigh_key *nk;
	struct cmd c;
	char buf[FR_ADDR_STRLEN];
	uint16_t pid;
	size_t i;
	int rc = 0;

	if (!r->boot_saved)
		return ERRC(-ENOTSUP, "the settings before the configuration file were not "
				      "recorded: nothing to put back");
	/* routes first: an address that goes takes its own routes, and a
	 * static route may not outlive nothing (the walk may not change the
	 * tables: collected, then deleted) */
	if (fib_route_walk(r->fib, AF_INET, route_gone_cb, &routes) != 0 ||
	    fib_route_walk(r->fib, AF_INET6, route_gone_cb, &routes) != 0) {
		rc = ERRC(-ENOMEM, "out of memory");
		goto out;
	}
	rc = routes_del(t, &routes.gone, serve, arg, err, errlen);
	if (rc != 0)
		goto out;
	rp->removed += (unsigned int)routes.gone.n;
	/* the file's line for such a route adds it again (not counted as
	 * removed): it could not stay while its gateway becomes ours */
	rc = routes_del(t, &routes.renumbered, serve, arg, err, errlen);
	if (rc != 0)
		goto out;
	/* the packets served between strides: what ARP and ND change
	 * meanwhile is learnt entries, never the static ones collected */
	if (neigh_walk_strided(r->neigh, neigh_gone_cb, &neighs, serve, arg) != 0) {
		rc = ERRC(-ENOMEM, "out of memory");
		goto out;
	}
	nk = neighs.v;
	for (i = 0; i < neighs.n; i++) {
		memset(&c, 0, sizeof(c));
		c.id = CMD_NEIGH_DEL;
		c.addr = nk[i].addr;
		c.port = nk[i].port;
		rc = exec_neigh(t, &c, err, errlen);
		if (rc != 0)
			goto out;
		rp->removed++;
	}
	for (pid = 0; pid < r->nb_ports; pid++) {
		struct fr_port *p = &r->ports[pid];
		unsigned int k = 0;

		if (!p->present)
			continue;
		/* the list shrinks under each removal: the next to look at
		 * stays at k */
		while (k < p->nb_addrs) {
			struct rkey key = key_of(K_ADDR, &p->addrs[k].addr, p->addrs[k].len, pid);

			if (state_of(rp, &key) != 0) {
				k++;
				continue;
			}
			memset(&c, 0, sizeof(c));
			c.id = CMD_PORT_ADDR_DEL;
			c.port = pid;
			c.prefix.addr = p->addrs[k].addr;
			c.prefix.len = p->addrs[k].len;
			rc = exec_addr_del(t, &c, err, errlen);
			if (rc != 0) {
				char e[CMD_ERR_LEN];

				snprintf(e, sizeof(e), "%s", err);
				snprintf(err, errlen,
					 "removing port %u address %s (not in the file): %s", pid,
					 fr_prefix_fmt(&c.prefix, buf, sizeof(buf)), e);
				goto out;
			}
			rp->removed++;
		}
	}
out:
	free(routes.gone.v);
	free(routes.renumbered.v);
	free(neighs.v);
	return rc;
}

/* ---- the second pass: what is there already stays -------------------- */

/* Gateway @gw by port @port (FIB_PORT_NONE: the connected subnet's that
 * holds it, as the FIB gives it; not found: not the same, and the line
 * replacing the route says what is wrong) is @cur_gw by @cur_port. */
static bool gw_same(const struct router *r, const struct fr_addr *gw, uint16_t port,
		    const struct fr_addr *cur_gw, uint16_t cur_port)
{
	if (!fr_addr_eq(gw, cur_gw))
		return false;
	if (port == FIB_PORT_NONE) {
		struct fib_route via;

		if (fib_route_lookup(r->fib, gw, &via) != 0 || via.type != FIB_NH_CONNECTED)
			return false;
		port = via.port;
	}
	return port == cur_port;
}

/* Static route @cur is what line @c would install. */
static bool route_same(const struct router *r, const struct cmd *c, const struct fib_route *cur)
{
	const struct fib_route *want = &c->route;

	if (cur->origin != FIB_ORIGIN_STATIC || cur->type != want->type)
		return false;
	switch (want->type) {
	case FIB_NH_GATEWAY:
		return gw_same(r, &want->gw, want->port, &cur->gw, cur->port);
	case FIB_NH_CONNECTED:
		return want->port == cur->port;
	case FIB_NH_MULTIPATH: {
		struct fib_mp_member m[FIB_MP_MAX];
		unsigned int i, n = fib_mp_members(r->fib, cur->nh_idx, m);

		if (n != c->nmp)
			return false;
		for (i = 0; i < n; i++)
			if (!gw_same(r, &c->mp[i].gw, c->mp[i].port, &m[i].gw, m[i].port) ||
			    RTE_MAX(c->mp[i].weight, 1) != m[i].weight)
				return false;
		return true;
	}
	default:
		return true;
	}
}

static bool port_has_addr(const struct router *r, uint32_t port, const struct fr_prefix *p)
{
	const struct fr_port *fp = &r->ports[port];
	unsigned int i;

	for (i = 0; i < fp->nb_addrs; i++)
		if (fp->addrs[i].len == p->len && fr_addr_eq(&fp->addrs[i].addr, &p->addr))
			return true;
	return false;
}

/* @c: the line's DNS servers for 'port N ra on' (NULL: none) */
static bool setting_same(const struct router *r, enum cmd_id id, uint32_t port, uint32_t value,
			 uint32_t value2, const struct cmd *c)
{
	const unsigned int ndns = c != NULL ? c->ndns : 0;
	struct setting s;

	txn_setting_get(r, id, (uint16_t)port, &s);
	switch (id) {
	case CMD_PORT_MTU: /* value2: the device's, not set by the line */
		return s.value == value;
	case CMD_PORT_ADMIN:
		return (s.value != 0) == (value != 0);
	case CMD_PORT_RA:
		return s.value == value && s.value2 == value2 && r->ports[port].ra_ndns == ndns &&
		       (ndns == 0 || memcmp(r->ports[port].ra_dns, c->dns, 16u * ndns) == 0);
	case CMD_PORT_RPF:
	case CMD_PORT_HOLD:
	case CMD_SET_ICMP_RATE:
		return s.value == value && s.value2 == value2;
	default:
		return s.value == value;
	}
}

static bool params_same(const struct router *r, const struct cmd *c)
{
	struct neigh_params now, want;

	neigh_params_get(r->neigh, &now);
	want = now;
	cmd_neigh_params_apply(c, &want);
	return memcmp(&now, &want, sizeof(now)) == 0;
}

/* Route @rt, which the router has, would be there at this point of a start
 * with the file: a static route whose line ran already, a port's route
 * whose address's line did, the router's own always. */
bool replace_route_made(const struct cfg_replace *rp, const struct fib_route *rt)
{
	const struct fr_port *p;
	struct rkey k;
	unsigned int i;

	if (rt->origin == FIB_ORIGIN_STATIC) {
		k = key_of(K_ROUTE, &rt->prefix.addr, rt->prefix.len, 0);
		return state_of(rp, &k) == S_APPLIED;
	}
	if (rt->origin != FIB_ORIGIN_PORT || rt->port >= rp->r->nb_ports)
		return true;
	p = &rp->r->ports[rt->port];
	for (i = 0; i < p->nb_addrs; i++) {
		struct fr_prefix pf;

		port_addr_prefix(&p->addrs[i], &pf);
		if (!fr_prefix_contains(&pf, &rt->prefix.addr) &&
		    !fr_prefix_contains(&rt->prefix, &p->addrs[i].addr))
			continue;
		k = key_of(K_ADDR, &p->addrs[i].addr, p->addrs[i].len, rt->port);
		if (state_of(rp, &k) == S_APPLIED)
			return true;
	}
	return false;
}

bool replace_addr_made(const struct cfg_replace *rp, uint16_t port, const struct port_addr *pa)
{
	struct rkey k = key_of(K_ADDR, &pa->addr, pa->len, port);

	return state_of(rp, &k) == S_APPLIED;
}

bool replace_ra_on(const struct cfg_replace *rp, uint16_t port)
{
	if (seen(rp, CMD_PORT_RA, port) && !((rp->ra_ran[port / 64] >> (port % 64)) & 1))
		return rp->r->boot_set[CMD_PORT_RA][port][0] & RA_ON;
	return rp->r->ports[port].ra_max_s != 0;
}

uint16_t replace_mtu(const struct cfg_replace *rp, uint16_t port)
{
	if (seen(rp, CMD_PORT_MTU, port) && !((rp->mtu_ran[port / 64] >> (port % 64)) & 1))
		return (uint16_t)rp->r->boot_set[CMD_PORT_MTU][port][0];
	return rp->r->dp_ports[port].mtu;
}

/*
 * Gateway @gw of a line for prefix @own, given without a port, resolved as
 * a start with the file would at this line: by the longest route that
 * lines before it made (not by an address or route the router keeps whose
 * line comes later), which must be a connected one. 0 with *@port set, or
 * -ENETUNREACH with @err filled as the start's refusal.
 */
/* The longest route that the lines before this one made and that covers
 * @gw, the line's own static one at @own left out (the one it adds or
 * replaces, which neither an add nor a replace resolves its gateway by),
 * one waiting for its port included (it says where its gateways are, and
 * the refusal names it, as fib_gw_via() and a start do). */
static bool made_cover(const struct cfg_replace *rp, const struct fr_prefix *own,
		       const struct fr_addr *gw, struct fib_route *rt)
{
	struct fr_prefix pf;
	int len;

	for (len = (int)fr_family_bits(gw->family); len >= 0; len--) {
		pf.addr = *gw;
		pf.len = (uint8_t)len;
		fr_addr_mask(&pf.addr, pf.len);
		if (fib_route_get(rp->r->fib, &pf, rt) == 0 && replace_route_made(rp, rt) &&
		    !(rt->origin == FIB_ORIGIN_STATIC && fr_prefix_eq(&pf, own)))
			return true;
	}
	return false;
}

static int gw_resolve(const struct cfg_replace *rp, const struct fr_prefix *own,
		      const struct fr_addr *gw, uint16_t *port, char *err, size_t errlen)
{
	const struct router *r = rp->r;
	struct fib_route rt;
	struct fr_prefix pf;
	bool on_net = false;
	uint16_t pid;
	unsigned int i;
	int e;

	/* a start refuses a gateway that is no host's before it looks for
	 * its network, and a link-local one without its port before that */
	if (gw->family == AF_INET6 && ip6_is_linklocal(gw->v6)) {
		e = gw_check(r, gw, err, errlen);
		return e != 0 ? e : err_gw_link_local(gw, err, errlen);
	}
	if (made_cover(rp, own, gw, &rt) && rt.type == FIB_NH_CONNECTED) {
		*port = rt.port;
		return 0;
	}
	e = gw_check(r, gw, err, errlen);
	if (e != 0)
		return e;
	/* why, as a start says it: on a network of an address the lines
	 * before made, the longest route in the lookups that covers the
	 * gateway takes it elsewhere */
	for (pid = 0; pid < r->nb_ports && !on_net; pid++)
		for (i = 0; i < r->ports[pid].nb_addrs && !on_net; i++) {
			port_addr_prefix(&r->ports[pid].addrs[i], &pf);
			on_net = replace_addr_made(rp, pid, &r->ports[pid].addrs[i]) &&
				 pf.addr.family == gw->family && fr_prefix_contains(&pf, gw);
		}
	return on_net && made_cover(rp, own, gw, &rt) && rt.type != FIB_NH_CONNECTED
		       ? err_gw_covered(gw, &rt, err, errlen)
		       : err_gw_unconnected(gw, err, errlen);
}

/* Line @c as a start with the file would run it at this point: its
 * gateways given without a port resolved into @out (a copy) by
 * gw_resolve(). */
static int route_as_started(const struct cfg_replace *rp, const struct cmd *c, struct cmd *out,
			    char *err, size_t errlen)
{
	unsigned int i;
	int rc;

	*out = *c;
	if (c->route.type == FIB_NH_GATEWAY && c->route.port == FIB_PORT_NONE)
		return gw_resolve(rp, &c->route.prefix, &c->route.gw, &out->route.port, err,
				  errlen);
	if (c->route.type != FIB_NH_MULTIPATH)
		return 0;
	/* a start checks every gateway before it resolves one */
	for (i = 0; i < c->nmp; i++) {
		rc = gw_check(rp->r, &c->mp[i].gw, err, errlen);
		if (rc != 0)
			return rc;
	}
	for (i = 0; i < c->nmp; i++) {
		if (c->mp[i].port != FIB_PORT_NONE)
			continue;
		rc = gw_resolve(rp, &c->route.prefix, &c->mp[i].gw, &out->mp[i].port, err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Line @c removes what only the router has so far (its line in the file
 * comes later): -ENOENT with a start's refusal, else 0. */
static int del_too_early(const struct cfg_replace *rp, const struct cmd *c, char *err,
			 size_t errlen)
{
	char buf[FR_ADDR_STRLEN];
	struct rkey k;

	switch (c->id) {
	case CMD_ROUTE_DEL:
		k = key_of(K_ROUTE, &c->prefix.addr, c->prefix.len, 0);
		if (state_of(rp, &k) == S_NOTED)
			return ERRC(-ENOENT, "no route %s",
				    fr_prefix_fmt(&c->prefix, buf, sizeof(buf)));
		return 0;
	case CMD_PORT_ADDR_DEL:
		k = key_of(K_ADDR, &c->prefix.addr, c->prefix.len, (uint16_t)c->port);
		if (state_of(rp, &k) == S_NOTED)
			return ERRC(-ENOENT, "port %u has no address %s", c->port,
				    fr_prefix_fmt(&c->prefix, buf, sizeof(buf)));
		return 0;
	default:
		k = key_of(K_NEIGH, &c->addr, 0, (uint16_t)c->port);
		if (state_of(rp, &k) == S_NOTED)
			return ERRC(-ENOENT, "no neighbour %s on port %u",
				    fr_addr_fmt(&c->addr, buf, sizeof(buf)), c->port);
		return 0;
	}
}

int replace_exec(struct cfg_replace *rp, struct txn *t, const struct cmd *c, struct cmd_out *o,
		 char *err, size_t errlen)
{
	struct router *r = rp->r;
	struct rslot *s = NULL;
	struct fib_route cur;
	struct neigh_info ni;
	struct rkey k;
	struct cmd rc;
	bool first;

	switch (c->id) {
	case CMD_ROUTE_ADD:
	case CMD_ROUTE_REPLACE:
		k = key_of(K_ROUTE, &c->route.prefix.addr, c->route.prefix.len, 0);
		break;
	case CMD_PORT_ADDR_ADD:
		k = key_of(K_ADDR, &c->prefix.addr, c->prefix.len, (uint16_t)c->port);
		break;
	case CMD_NEIGH_ADD:
		k = key_of(K_NEIGH, &c->addr, 0, (uint16_t)c->port);
		break;
	case CMD_SET_NEIGH:
		if (params_same(r, c)) {
			rp->unchanged++;
			return 0;
		}
		return cmd_exec(r, t, c, CMD_SRC_FILE, o, err, errlen);
	case CMD_ROUTE_DEL:
	case CMD_PORT_ADDR_DEL:
	case CMD_NEIGH_DEL: {
		/* what the router has only from before, the file adding it
		 * later, a start with the file has not: nothing to remove */
		int e = del_too_early(rp, c, err, errlen);

		return e != 0 ? e : cmd_exec(r, t, c, CMD_SRC_FILE, o, err, errlen);
	}
	case CMD_PORT_MTU:
	case CMD_PORT_RA: {
		const bool mtu = c->id == CMD_PORT_MTU;
		uint64_t *ran = mtu ? rp->mtu_ran : rp->ra_ran;
		int e = check_port(r, c->port, err, errlen);

		if (e != 0)
			return e;
		ran[c->port / 64] |= 1ull << (c->port % 64);
		if (mtu && c->value < IP6_MIN_MTU && r->ports[c->port].ra_max_s != 0 &&
		    !replace_ra_on(rp, (uint16_t)c->port)) {
			/* an MTU below IPv6's on a port that advertises, which a
			 * start with the file does not yet (its 'ra' line comes
			 * later): the advertisements stop first, with their last
			 * one, while the port can still send it */
			struct cmd off;

			memset(&off, 0, sizeof(off));
			off.id = CMD_PORT_RA;
			off.port = c->port;
			e = exec_setting(t, &off, err, errlen);
			if (e != 0)
				return e;
		}
		if (!setting_same(r, c->id, c->port, c->value, c->value2, c))
			return cmd_exec(r, t, c, CMD_SRC_FILE, o, err, errlen);
		/* the same, refused where a start with the file has by now
		 * IPv6 on the port (an MTU below 1280), or an MTU below
		 * 1280 (advertisements on) */
		e = mtu ? mtu_set_check(t, (uint16_t)c->port, c->value, err, errlen)
		    : (c->value & RA_ON) ? mtu6_check(t, (uint16_t)c->port, err, errlen)
					 : 0;
		if (e == 0)
			rp->unchanged++;
		return e;
	}
	default:
		if ((is_port_setting(c->id) && check_port(r, c->port, err, errlen) == 0 &&
		     setting_same(r, c->id, c->port, c->value, c->value2, c)) ||
		    ((is_router_setting(c->id) || c->id == CMD_RTCACHE_SIZE) &&
		     setting_same(r, c->id, 0, c->value, c->value2, NULL))) {
			rp->unchanged++;
			return 0;
		}
		return cmd_exec(r, t, c, CMD_SRC_FILE, o, err, errlen);
	}
	s = fr_kset_get(&rp->s, &k);
	first = s != NULL && s->state == S_NOTED;
	if (s != NULL)
		s->state = S_APPLIED;
	if (!first) {
		/* a later line for the prefix: as in a plain load, but its
		 * gateways resolved as a start would, as the first line's */
		if (c->id == CMD_ROUTE_ADD || c->id == CMD_ROUTE_REPLACE) {
			int e = route_as_started(rp, c, &rc, err, errlen);

			return e != 0 ? e : cmd_exec(r, t, &rc, CMD_SRC_FILE, o, err, errlen);
		}
		return cmd_exec(r, t, c, CMD_SRC_FILE, o, err, errlen);
	}
	switch (c->id) {
	case CMD_PORT_ADDR_ADD:
		if (check_port(r, c->port, err, errlen) == 0 &&
		    port_has_addr(r, c->port, &c->prefix)) {
			/* kept, where a start with the file has the MTU for it */
			int e = c->prefix.addr.family == AF_INET6
					? mtu6_check(t, (uint16_t)c->port, err, errlen)
					: 0;

			if (e == 0)
				rp->unchanged++;
			return e;
		}
		break;
	case CMD_NEIGH_ADD:
		if (check_port(r, c->port, err, errlen) == 0 &&
		    neigh_get(r->neigh, &c->addr, (uint16_t)c->port, &ni) == 0 && ni.configured &&
		    rte_is_same_ether_addr(&ni.mac, &c->mac)) {
			rp->unchanged++;
			return 0;
		}
		break;
	default: {
		/* its gateways where a start with the file puts them */
		int e = route_as_started(rp, c, &rc, err, errlen);

		if (e != 0)
			return e;
		if (fib_route_get(r->fib, &c->route.prefix, &cur) != 0 ||
		    cur.origin != FIB_ORIGIN_STATIC)
			return cmd_exec(r, t, &rc, CMD_SRC_FILE, o, err, errlen);
		if (route_same(r, &rc, &cur)) {
			e = route_mtu6_check(t, &rc, err, errlen);
			if (e == 0)
				rp->unchanged++;
			return e;
		}
		/* the router's route for the prefix, the file's another:
		 * replaced in place, never out of the lookups meanwhile */
		rc.id = CMD_ROUTE_REPLACE;
		return cmd_exec(r, t, &rc, CMD_SRC_FILE, o, err, errlen);
	}
	}
	return cmd_exec(r, t, c, CMD_SRC_FILE, o, err, errlen);
}

/* ---- after the prune: the settings the file does not set go back ------ */

static int put_back(struct cfg_replace *rp, struct txn *t, enum cmd_id id, uint16_t port, char *err,
		    size_t errlen)
{
	struct router *r = rp->r;
	const uint32_t *v = r->boot_set[id][port];
	struct cmd c;
	int rc;

	if (setting_same(r, id, port, v[0], v[1], NULL))
		return 0;
	memset(&c, 0, sizeof(c));
	c.id = id;
	c.port = port;
	c.value = v[0];
	c.value2 = id == CMD_PORT_MTU ? 0 : v[1];
	rc = exec_setting(t, &c, err, errlen);
	if (rc != 0) {
		char e[CMD_ERR_LEN];

		snprintf(e, sizeof(e), "%s", err);
		snprintf(err, errlen, "a setting not in the file, back to its start value: %s", e);
		return rc;
	}
	rp->reset++;
	return 0;
}

int replace_settings(struct cfg_replace *rp, struct txn *t, char *err, size_t errlen)
{
	struct router *r = rp->r;
	unsigned int i;
	uint16_t pid;
	int rc;

	for (pid = 0; pid < r->nb_ports; pid++) {
		if (!r->ports[pid].present)
			continue;
		for (i = 0; i < RTE_DIM(port_settings); i++) {
			if (seen(rp, port_settings[i], pid))
				continue;
			rc = put_back(rp, t, port_settings[i], pid, err, errlen);
			if (rc != 0)
				return rc;
		}
	}
	for (i = 0; i < RTE_DIM(router_settings); i++) {
		if (seen(rp, router_settings[i], 0))
			continue;
		rc = put_back(rp, t, router_settings[i], 0, err, errlen);
		if (rc != 0)
			return rc;
	}
	/* the neighbour parameters it does not name: one 'set neigh' of
	 * their start values */
	{
		struct cmd c;

		memset(&c, 0, sizeof(c));
		c.id = CMD_SET_NEIGH;
		c.nparams = r->boot_np;
		c.nparams_set = ~rp->np_seen;
		if (params_same(r, &c))
			return 0;
		rc = exec_set_neigh(t, &c, err, errlen);
		if (rc != 0) {
			char e[CMD_ERR_LEN];

			snprintf(e, sizeof(e), "%s", err);
			snprintf(err, errlen,
				 "neighbour parameters not in the file, back to their start "
				 "values: %s",
				 e);
			return rc;
		}
		rp->reset++;
	}
	return 0;
}

/* The file's order of port @pid's address @pa (those it does not add,
 * none after the prune, last). */
static uint32_t addr_seq(const struct cfg_replace *rp, uint16_t pid, const struct port_addr *pa)
{
	struct rkey k = key_of(K_ADDR, &pa->addr, pa->len, pid);
	const struct rslot *s = fr_kset_get(&rp->s, &k);

	return s != NULL ? s->seq : UINT32_MAX;
}

void replace_order(struct cfg_replace *rp)
{
	struct router *r = rp->r;
	uint16_t pid;

	for (pid = 0; pid < r->nb_ports; pid++) {
		struct fr_port *p = &r->ports[pid];
		unsigned int i, j;

		/* an insertion sort, stable: at most FR_PORT_MAX_ADDRS */
		for (i = 1; i < p->nb_addrs; i++) {
			struct port_addr pa = p->addrs[i];
			uint32_t seq = addr_seq(rp, pid, &pa);

			for (j = i; j > 0 && addr_seq(rp, pid, &p->addrs[j - 1]) > seq; j--)
				p->addrs[j] = p->addrs[j - 1];
			p->addrs[j] = pa;
		}
	}
}

void replace_counts(const struct cfg_replace *rp, struct config_result *res)
{
	res->unchanged = rp->unchanged;
	res->removed = rp->removed;
	res->reset = rp->reset;
}

void config_boot_save(struct router *r)
{
	struct setting s;
	unsigned int i;
	uint16_t pid;

	for (pid = 0; pid < r->nb_ports; pid++) {
		for (i = 0; i < RTE_DIM(port_settings); i++) {
			txn_setting_get(r, port_settings[i], pid, &s);
			r->boot_set[port_settings[i]][pid][0] = s.value;
			r->boot_set[port_settings[i]][pid][1] = s.value2;
		}
	}
	for (i = 0; i < RTE_DIM(router_settings); i++) {
		txn_setting_get(r, router_settings[i], 0, &s);
		r->boot_set[router_settings[i]][0][0] = s.value;
		r->boot_set[router_settings[i]][0][1] = s.value2;
	}
	neigh_params_get(r->neigh, &r->boot_np);
	r->boot_saved = true;
}
