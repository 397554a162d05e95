/* SPDX-License-Identifier: BSD-3-Clause */
/* show commands: aligned text, or JSON when the client asked with -j. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_version.h>

#include "cmd_priv.h"
#include "control6.h"
#include "ip6.h"

/* ---- routes ------------------------------------------------------------ */

struct route_list {
	struct fib_route *v;
	size_t n, cap;
	struct router *r;
};

/* every 8 Ki routes walked or written (a few ms), the control thread's other work */
static inline void long_cmd_service(struct router *r, size_t i)
{
	if ((i & 0x1fff) == 0x1fff)
		control_service(r);
}

static void service_cb(void *r)
{
	control_service(r);
}

/* neigh_walk(), the control thread's other work done between strides
 * (neigh_walk_strided(): ARP and ND answered meanwhile may add or take
 * entries, which the listing then shows or not) */
static int neigh_walk_serviced(struct router *r, int (*cb)(const struct neigh_info *, void *),
			       void *arg)
{
	return neigh_walk_strided(r->neigh, cb, arg, service_cb, r);
}

static int route_collect_cb(const struct fib_route *rt, void *arg)
{
	struct route_list *l = arg;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct fib_route *nv = realloc(l->v, cap * sizeof(*nv));

		if (nv == NULL)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	long_cmd_service(l->r, l->n);
	l->v[l->n++] = *rt;
	return 0;
}

/* address order, then shorter prefixes first: what 'ip route' users expect */
static int route_cmp(const void *a, const void *b)
{
	const struct fib_route *x = a, *y = b;
	int c;

	/* IPv4 first, then IPv6 */
	if (x->prefix.addr.family != y->prefix.addr.family)
		return x->prefix.addr.family == AF_INET ? -1 : 1;
	if (x->prefix.addr.family == AF_INET6) {
		c = memcmp(x->prefix.addr.v6, y->prefix.addr.v6, 16);
		if (c != 0)
			return c;
	} else if (x->prefix.addr.v4 != y->prefix.addr.v4) {
		return x->prefix.addr.v4 < y->prefix.addr.v4 ? -1 : 1;
	}
	return (int)x->prefix.len - (int)y->prefix.len;
}

/* Runs of 8 Ki routes sorted, then merged two by two: the control thread's
 * other work is done every 8 Ki routes sorted or merged (a million routes
 * take a second or so to sort, which ARP and ND would otherwise wait for).
 * No memory for the merge: sorted in one go. */
static void route_sort(struct route_list *l)
{
	const size_t run = 0x2000, n = l->n;
	struct fib_route *a = l->v, *b = malloc(n * sizeof(*b)), *t;
	size_t i, w, done = 0;

	if (b == NULL) {
		qsort(a, n, sizeof(*a), route_cmp);
		return;
	}
	for (i = 0; i < n; i += run) {
		qsort(a + i, RTE_MIN(run, n - i), sizeof(*a), route_cmp);
		control_service(l->r);
	}
	for (w = run; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			size_t x = i, xe = RTE_MIN(i + w, n), y = xe, ye = RTE_MIN(i + 2 * w, n);
			size_t k = i;

			while (x < xe || y < ye) {
				/* the left run first on a tie: stable */
				if (y >= ye || (x < xe && route_cmp(&a[x], &a[y]) <= 0))
					b[k++] = a[x++];
				else
					b[k++] = a[y++];
				long_cmd_service(l->r, done++);
			}
		}
		t = a;
		a = b;
		b = t;
	}
	if (a != l->v)
		l->cap = n;
	l->v = a;
	free(b);
}

/* Every route, IPv4 then IPv6, sorted. The caller frees l->v. */
static int route_list_get(struct router *r, struct route_list *l)
{
	memset(l, 0, sizeof(*l));
	l->r = r;
	if (fib_route_walk(r->fib, AF_INET, route_collect_cb, l) != 0 ||
	    fib_route_walk(r->fib, AF_INET6, route_collect_cb, l) != 0) {
		free(l->v);
		return -ENOMEM;
	}
	if (l->n > 1)
		route_sort(l);
	return 0;
}

/* The text table's prefix and gateway columns: as wide as an IPv4 route's
 * needs, wider for the IPv6 routes shown (route_cols_fit()), so that the
 * columns after them stay aligned. */
struct route_cols {
	int pfx, gw;
};
#define ROUTE_COLS_IPV4 ((struct route_cols){20, 18})

/* @c widened to hold @rt's prefix and gateways. */
static void route_cols_fit(struct route_cols *c, const struct fib *f, const struct fib_route *rt)
{
	struct fib_mp_member m[FIB_MP_MAX];
	char b[FR_ADDR_STRLEN];
	unsigned int i, nm;

	c->pfx = RTE_MAX(c->pfx, (int)strlen(fr_prefix_fmt(&rt->prefix, b, sizeof(b))));
	if (rt->type == FIB_NH_GATEWAY)
		c->gw = RTE_MAX(c->gw, (int)strlen(fr_addr_fmt(&rt->gw, b, sizeof(b))));
	if (rt->type != FIB_NH_MULTIPATH)
		return;
	nm = fib_mp_members(f, rt->nh_idx, m);
	for (i = 0; i < nm; i++)
		c->gw = RTE_MAX(c->gw, (int)strlen(fr_addr_fmt(&m[i].gw, b, sizeof(b))));
}

/* A route, a multipath one's gateways one a line under it (JSON:
 * "gateways", each with its "gateway" and "port"), its text in columns @c. */
static void route_out(struct cmd_out *o, const struct fib *f, const char *key,
		      const struct fib_route *rt, struct route_cols c)
{
	char p[FR_ADDR_STRLEN], g[FR_ADDR_STRLEN] = "-", port[8] = "-", w[32] = "";
	struct fib_mp_member m[FIB_MP_MAX];
	const char *note;
	unsigned int i, nm = 0;
	bool weighted = false;

	fr_prefix_fmt(&rt->prefix, p, sizeof(p));
	if (rt->type == FIB_NH_MULTIPATH)
		nm = fib_mp_members(f, rt->nh_idx, m);
	for (i = 0; i < nm; i++)
		weighted |= m[i].weight != 1;
	if (weighted)
		snprintf(w, sizeof(w), " weight %u", m[0].weight);
	if (rt->type == FIB_NH_GATEWAY)
		fr_addr_fmt(&rt->gw, g, sizeof(g));
	else if (nm > 0)
		fr_addr_fmt(&m[0].gw, g, sizeof(g));
	if (rt->port != FIB_PORT_NONE)
		snprintf(port, sizeof(port), "%u", rt->port);
	else if (nm > 0)
		snprintf(port, sizeof(port), "%u", m[0].port);
	if (o->json) {
		jw_obj_open(o, key);
		jw_str(o, "prefix", p);
		jw_str(o, "type", fib_nh_type_names[rt->type]);
		if (rt->type == FIB_NH_GATEWAY)
			jw_str(o, "gateway", g);
		if (rt->port != FIB_PORT_NONE)
			jw_u64(o, "port", rt->port);
		if (rt->type == FIB_NH_MULTIPATH) {
			jw_arr_open(o, "gateways");
			for (i = 0; i < nm; i++) {
				jw_obj_open(o, NULL);
				jw_str(o, "gateway", fr_addr_fmt(&m[i].gw, g, sizeof(g)));
				jw_u64(o, "port", m[i].port);
				jw_u64(o, "weight", m[i].weight);
				jw_obj_close(o);
			}
			jw_arr_close(o);
		}
		jw_str(o, "origin", fib_origin_names[rt->origin]);
		if (rt->flags & FIB_RTF_DOWN)
			jw_str(o, "withdrawn",
			       rt->flags & FIB_RTF_STRANDED ? "table_full" : "port_down");
		jw_obj_close(o);
		return;
	}
	note = !(rt->flags & FIB_RTF_DOWN)    ? ""
	       : rt->flags & FIB_RTF_STRANDED ? " (withdrawn: table full, retried)"
					      : " (withdrawn: port down)";
	out_printf(o, "%-*s %-12s %-*s %-5s %s%s%s\n", c.pfx, p, fib_nh_type_names[rt->type], c.gw,
		   g, port, fib_origin_names[rt->origin], note, w);
	/* the other gateways under the first, their weights under its */
	for (i = 1; i < nm; i++) {
		fr_addr_fmt(&m[i].gw, g, sizeof(g));
		if (!weighted) {
			out_printf(o, "%-*s %-12s %-*s %u\n", c.pfx, "", "", c.gw, g, m[i].port);
			continue;
		}
		out_printf(o, "%-*s %-12s %-*s %-5u %*s weight %u\n", c.pfx, "", "", c.gw, g,
			   m[i].port, (int)(strlen(fib_origin_names[rt->origin]) + strlen(note)),
			   "", m[i].weight);
	}
}

static void route_header(struct cmd_out *o, struct route_cols c)
{
	if (!o->json)
		out_printf(o, "%-*s %-12s %-*s %-5s %s\n", c.pfx, "Prefix", "Type", c.gw, "Gateway",
			   "Port", "Origin");
}

/* @rt alone under its header, in columns that hold it */
static void route_one_out(struct cmd_out *o, const struct fib *f, const struct fib_route *rt)
{
	struct route_cols c = ROUTE_COLS_IPV4;

	route_cols_fit(&c, f, rt);
	route_header(o, c);
	route_out(o, f, NULL, rt, c);
}

static int show_route(struct router *r, const struct cmd *c, struct cmd_out *o, char *err,
		      size_t errlen)
{
	struct route_cols cols = ROUTE_COLS_IPV4;
	struct route_list l;
	struct fib_route rt;
	char buf[FR_ADDR_STRLEN];
	size_t i;

	if (c->has_arg) {
		if (fib_route_get(r->fib, &c->prefix, &rt) != 0)
			return ERRC(-ENOENT, "no route %s",
				    fr_prefix_fmt(&c->prefix, buf, sizeof(buf)));
		route_one_out(o, r->fib, &rt);
		return 0;
	}
	if (route_list_get(r, &l) != 0)
		return ERRC(-ENOMEM, "out of memory");
	/* an IPv4 route fits the narrowest columns: only IPv6 ones (last,
	 * sorted) may widen them */
	for (i = l.n; !o->json && i > 0 && l.v[i - 1].prefix.addr.family == AF_INET6; i--) {
		long_cmd_service(r, l.n - i);
		route_cols_fit(&cols, r->fib, &l.v[i - 1]);
	}
	route_header(o, cols);
	if (o->json)
		jw_arr_open(o, NULL);
	for (i = 0; i < l.n; i++) {
		long_cmd_service(r, i);
		route_out(o, r->fib, NULL, &l.v[i], cols);
	}
	if (o->json)
		jw_arr_close(o);
	free(l.v);
	return 0;
}

/* The drop counter of the workers' checks that stop a packet to @a whatever
 * route matches it, or NULL: the route decides. *@mine: what of it the
 * router takes itself (the rest is dropped as said), or NULL. */
static const char *dest_dropped_as(const struct router *r, const struct fr_addr *a,
				   const char **mine)
{
	const uint8_t *v6 = a->v6;

	*mine = NULL;
	if (a->family == AF_INET) {
		/* as the workers' bad_dst(): a group whatever the route (no
		 * multicast routing), then with the martian checks on */
		if ((a->v4 >> 28) == 0xe)
			return dp_drop_names[DROP_IP4_MCAST];
		if (r->dpconf.martians && ip4_martian_dst(a->v4))
			return dp_drop_names[DROP_MARTIAN_DST];
		if (r->dpconf.martians && ip4_is_link_local(a->v4) && !router_owns4(r, a->v4))
			return dp_drop_names[DROP_IP4_LINK_LOCAL];
		return NULL;
	}
	if (ip6_is_mcast(v6)) {
		if ((v6[1] & 0xf) <= 1)
			return dp_drop_names[DROP_IP6_BAD_DST];
		if (ip6_group_ours(v6))
			*mine = "its ICMPv6 (ND, MLD)";
		return dp_drop_names[DROP_IP6_MCAST];
	}
	if (ip6_is_unspec(v6) || ip6_is_loopback(v6) || ip6_is_v4mapped(v6))
		return dp_drop_names[DROP_IP6_BAD_DST];
	if (ip6_is_linklocal(v6)) {
		/* a port's link-local address: for the router on that port,
		 * out of scope arriving on another */
		if (router_owns6(r, v6))
			*mine = "what arrives on the port whose link-local address it is";
		return dp_drop_names[DROP_IP6_LINKLOCAL];
	}
	return NULL;
}

/* A multipath route's gateway for the flow 'show route lookup' names
 * (from SRC, protocol, ports), as the workers choose it now: after its
 * route, a line (JSON: "flow"). Its ports are hashed only when given (a
 * protocol without them: said not hashed, never taken as ports 0). */
static void lookup_flow_out(struct router *r, const struct cmd *c, struct cmd_out *o)
{
	const uint8_t p = (uint8_t)c->value;
	const bool hashed = r->dpconf.mp_hash_l4 && ip_proto_ported(p) && c->all;
	const uint8_t w[4] = {(uint8_t)(c->value2 >> 24), (uint8_t)(c->value2 >> 16),
			      (uint8_t)(c->value2 >> 8), (uint8_t)c->value2};
	char s[FR_ADDR_STRLEN], g[FR_ADDR_STRLEN];
	const char *state = "none";
	struct fib_route fl;
	struct neigh_info ni;
	uint32_t l4 = 0;

	if (!c->has_arg) {
		if (!o->json)
			out_printf(o, "(each flow takes one of the gateways: add 'from SRC' to see "
				      "which)\n");
		return;
	}
	if (hashed) {
		/* as ip4_flow_ports() reads them: as they lie in a header */
		memcpy(&l4, w, sizeof(l4));
		l4 ^= p;
	}
	if (fib_route_lookup_flow(r->fib, &c->addr, &c->prefix.addr, l4, &fl) != 0 ||
	    fl.type != FIB_NH_GATEWAY)
		return;
	if (neigh_get(r->neigh, &fl.gw, fl.port, &ni) == 0)
		state = neigh_state_names[ni.state];
	fr_addr_fmt(&c->prefix.addr, s, sizeof(s));
	fr_addr_fmt(&fl.gw, g, sizeof(g));
	if (o->json) {
		jw_obj_open(o, "flow");
		jw_str(o, "from", s);
		jw_bool(o, "ports_hashed", hashed);
		jw_str(o, "gateway", g);
		jw_u64(o, "port", fl.port);
		jw_str(o, "neighbour", state);
		jw_obj_close(o);
		return;
	}
	out_printf(o, "the flow from %s%s goes by %s port %u (neighbour %s)\n", s,
		   hashed ? ", its protocol and ports," : "", g, fl.port, state);
	/* what JSON says as ports_hashed false */
	if (r->dpconf.mp_hash_l4 && !hashed)
		out_printf(o,
			   "(its ports not hashed: the multipath hash takes a TCP, UDP, SCTP or "
			   "UDP-Lite flow's ports too, which may take it by another gateway; give "
			   "'proto P sport N dport N')\n");
}

static int show_lookup(struct router *r, const struct cmd *c, struct cmd_out *o)
{
	const char *dropped, *mine;
	struct fib_route rt;
	char a[FR_ADDR_STRLEN];
	bool found;

	fr_addr_fmt(&c->addr, a, sizeof(a));
	found = fib_route_lookup(r->fib, &c->addr, &rt) == 0;
	dropped = dest_dropped_as(r, &c->addr, &mine);
	if (o->json) {
		jw_obj_open(o, NULL);
		jw_str(o, "address", a);
		if (found) {
			route_out(o, r->fib, "route", &rt, ROUTE_COLS_IPV4);
			if (rt.type == FIB_NH_MULTIPATH && dropped == NULL && mine == NULL)
				lookup_flow_out(r, c, o);
		} else {
			jw_null(o, "route");
		}
		if (mine != NULL)
			jw_str(o, "for_the_router", mine);
		if (dropped != NULL)
			jw_str(o, "dropped_as", dropped);
		jw_obj_close(o);
		return 0;
	}
	if (mine != NULL) {
		out_printf(o,
			   "%s: never forwarded: for the router, %s; the workers drop the rest as "
			   "%s\n",
			   a, mine, dropped);
		return 0;
	}
	if (dropped != NULL) {
		/* the longest match would name the default route: say what
		 * the workers do instead */
		out_printf(o, "%s: never forwarded (the workers drop it as %s)\n", a, dropped);
		return 0;
	}
	if (!found) {
		out_printf(o, "%s: no route (packets to it are dropped as no_route)\n", a);
		return 0;
	}
	out_printf(o, "%s matches:\n", a);
	route_one_out(o, r->fib, &rt);
	if (rt.type == FIB_NH_MULTIPATH)
		lookup_flow_out(r, c, o);
	return 0;
}

static int show_summary(struct router *r, struct cmd_out *o)
{
	static const uint8_t fam[2] = {AF_INET, AF_INET6};
	/* each a walk of the waiting routes: once */
	const uint32_t full4 = fib_route_stranded_count(r->fib, AF_INET),
		       full6 = fib_route_stranded_count(r->fib, AF_INET6);
	unsigned int len, f;

	if (o->json) {
		jw_obj_open(o, NULL);
		jw_str(o, "backend", fib_backend_name(r->fib));
		jw_u64(o, "routes", fib_route_count(r->fib, AF_INET));
		jw_u64(o, "routes6", fib_route_count(r->fib, AF_INET6));
		/* withdrawn: their port down, or (stranded) up with no room
		 * to put them back; each counted once */
		jw_u64(o, "routes_withdrawn", fib_route_down_count(r->fib, AF_INET));
		jw_u64(o, "routes6_withdrawn", fib_route_down_count(r->fib, AF_INET6));
		jw_u64(o, "routes_port_down", fib_route_down_count(r->fib, AF_INET) - full4);
		jw_u64(o, "routes6_port_down", fib_route_down_count(r->fib, AF_INET6) - full6);
		jw_u64(o, "routes_table_full", full4);
		jw_u64(o, "routes6_table_full", full6);
		jw_u64(o, "nexthops", fib_nh_count(r->fib));
		jw_u64(o, "generation", fib_generation(r->fib));
		jw_u64(o, "memory_bytes", fib_memory(r->fib));
		for (f = 0; f < 2; f++) {
			jw_obj_open(o, f ? "prefix_lengths6" : "prefix_lengths");
			for (len = 0; len <= fr_family_bits(fam[f]); len++) {
				char k[4];

				if (fib_route_count_len(r->fib, fam[f], len) == 0)
					continue;
				snprintf(k, sizeof(k), "%u", len);
				jw_u64(o, k, fib_route_count_len(r->fib, fam[f], len));
			}
			jw_obj_close(o);
		}
		jw_obj_close(o);
		return 0;
	}
	out_printf(o,
		   "backend      %s (IPv4), trie (IPv6)\nroutes       %u IPv4, %u IPv6 (of them "
		   "%u, %u withdrawn: see show route)\n"
		   "next hops    %u\ngeneration   %" PRIu64
		   "\nmemory       %.1f MiB (tables sized at startup)\n",
		   fib_backend_name(r->fib), fib_route_count(r->fib, AF_INET),
		   fib_route_count(r->fib, AF_INET6), fib_route_down_count(r->fib, AF_INET),
		   fib_route_down_count(r->fib, AF_INET6), fib_nh_count(r->fib),
		   fib_generation(r->fib), (double)fib_memory(r->fib) / (1 << 20));
	if (full4 + full6)
		out_printf(o,
			   "table full   %u IPv4, %u IPv6 of the withdrawn: their port is up, no "
			   "room to put them back (retried as routes leave)\n",
			   full4, full6);
	for (f = 0; f < 2; f++) {
		if (fib_route_count(r->fib, fam[f]) == 0)
			continue;
		out_printf(o, "%s prefix length  routes\n", f ? "IPv6" : "IPv4");
		for (len = 0; len <= fr_family_bits(fam[f]); len++)
			if (fib_route_count_len(r->fib, fam[f], len))
				out_printf(o, "  /%-11u %u\n", len,
					   fib_route_count_len(r->fib, fam[f], len));
	}
	return 0;
}

/* ---- neighbours ---------------------------------------------------------- */

/* ms until @ni's next timer runs (it becomes STALE, is probed, forgotten...),
 * or -1: none (a static entry, a gateway's placeholder) */
static int64_t neigh_timer_ms(const struct neigh_info *ni)
{
	uint64_t now = control_now_ms();

	if (ni->configured || ni->deadline == 0 || ni->state == NEIGH_S_NONE)
		return -1;
	return ni->deadline > now ? (int64_t)(ni->deadline - now) : 0;
}

/* show neigh's output and its address column's width (as wide as an IPv4
 * address needs, wider for the IPv6 ones shown: neigh_width_cb()) */
struct neigh_out {
	struct cmd_out *o;
	int w;
};

static int neigh_width_cb(const struct neigh_info *ni, void *arg)
{
	struct neigh_out *n = arg;
	char a[FR_ADDR_STRLEN];

	n->w = RTE_MAX(n->w, (int)strlen(fr_addr_fmt(&ni->addr, a, sizeof(a))));
	return 0;
}

static int neigh_out_cb(const struct neigh_info *ni, void *arg)
{
	struct neigh_out *n = arg;
	struct cmd_out *o = n->o;
	char a[FR_ADDR_STRLEN], m[RTE_ETHER_ADDR_FMT_SIZE] = "-", tm[24] = "-";
	const int64_t timer = neigh_timer_ms(ni);

	fr_addr_fmt(&ni->addr, a, sizeof(a));
	if (timer >= 0)
		snprintf(tm, sizeof(tm), "%.1fs", (double)timer / 1000);
	if (neigh_state_usable(ni->state))
		rte_ether_format_addr(m, sizeof(m), &ni->mac);
	if (o->json) {
		jw_obj_open(o, NULL);
		jw_str(o, "address", a);
		jw_u64(o, "port", ni->port);
		/* none known yet: null, as scripts test for */
		if (neigh_state_usable(ni->state))
			jw_str(o, "mac", m);
		else
			jw_null(o, "mac");
		jw_str(o, "state", neigh_state_names[ni->state]);
		jw_u64(o, "generation", ni->gen);
		jw_u64(o, "refs", ni->refcnt);
		jw_u64(o, "held", ni->held);
		if (timer >= 0)
			jw_u64(o, "timer_ms", (uint64_t)timer);
		else
			jw_null(o, "timer_ms");
		jw_obj_close(o);
		return 0;
	}
	out_printf(o, "%-*s %-5u %-18s %-11s %-10u %-5u %-5u %s\n", n->w, a, ni->port, m,
		   neigh_state_names[ni->state], ni->gen, ni->refcnt, ni->held, tm);
	return 0;
}

static int show_neigh(struct router *r, struct cmd_out *o)
{
	struct neigh_out n = {.o = o, .w = 18};

	if (o->json) {
		jw_arr_open(o, NULL);
		neigh_walk_serviced(r, neigh_out_cb, &n);
		jw_arr_close(o);
		return 0;
	}
	/* (an entry made between the two walks may stick out of its column) */
	neigh_walk_serviced(r, neigh_width_cb, &n);
	out_printf(o, "%-*s %-5s %-18s %-11s %-10s %-5s %-5s %s\n", n.w, "Address", "Port", "MAC",
		   "State", "Generation", "Refs", "Held", "Timer");
	neigh_walk_serviced(r, neigh_out_cb, &n);
	return 0;
}

static void kv(struct cmd_out *o, const char *name, uint64_t val);
static void section(struct cmd_out *o, const char *name, bool open);

static void kv_cb(void *arg, const char *name, uint64_t val)
{
	kv(arg, name, val);
}

static void section_cb(void *arg, const char *name, bool open)
{
	section(arg, name, open);
}

static int show_neigh_stats(struct router *r, struct cmd_out *o)
{
	const struct stats_visitor v = {kv_cb, section_cb, o};
	struct neigh_params p;

	neigh_params_get(r->neigh, &p);
	if (o->json)
		jw_obj_open(o, NULL);
	router_neigh_visit(r, &v);
	section(o, "parameters", true);
	kv(o, "reachable_time_ms", p.reachable_ms);
	kv(o, "retrans_time_ms", p.retrans_ms);
	kv(o, "mcast_probes", p.mcast_probes);
	kv(o, "ucast_probes", p.ucast_probes);
	kv(o, "stale_time_ms", p.stale_ms);
	kv(o, "failed_time_ms", p.failed_ms);
	kv(o, "hold", p.hold_pkts);
	kv(o, "hold_total", p.hold_total);
	kv(o, "max_incomplete", p.max_incomplete);
	kv(o, "delay_time_ms", p.delay_ms);
	kv(o, "lock_time_ms", p.lock_ms);
	section(o, "parameters", false);
	if (o->json)
		jw_obj_close(o);
	return 0;
}

/* ---- counters ------------------------------------------------------------ */

static void kv(struct cmd_out *o, const char *name, uint64_t val)
{
	if (o->json)
		jw_u64(o, name, val);
	else
		out_printf(o, "  %-26s %" PRIu64 "\n", name, val);
}

static void section(struct cmd_out *o, const char *name, bool open)
{
	if (o->json) {
		if (open)
			jw_obj_open(o, name);
		else
			jw_obj_close(o);
	} else if (open) {
		out_printf(o, "%s:\n", name);
	}
}

/* The per-lcore rows, and how to read each from a worker's counters. */
enum lc_row {
	LC_RX,
	LC_FORWARDED,
	LC_TX,
	LC_TO_CONTROL,
	LC_CTRL_TX,
	LC_CTRL_TX_FULL,
	LC_CTRL_TX_PORT_DOWN,
	LC_CTRL_TX_NO_PORT,
	LC_DROPPED,
	LC_BUSY_CYCLES,
	LC_BUSY_POLLS,
	LC_IDLE_POLLS,
	LC_ICMP_QUEUED,
	LC_ICMP_RATELIMITED,
	LC_ICMP_NOT_SENT,
	LC_ICMP_RING_FULL,
	LC_REDIRECTS_RATELIMITED,
	LC_ROWS, /* then one per drop reason */
};

static const char *const lc_names[LC_ROWS] = {
	"rx",
	"forwarded",
	"tx",
	"to_control",
	"ctrl_tx",
	"ctrl_tx_full",
	"ctrl_tx_port_down",
	"ctrl_tx_no_port",
	"dropped",
	"busy_cycles",
	"busy_polls",
	"idle_polls",
	"icmp_queued",
	"icmp_ratelimited",
	"icmp_not_sent",
	"icmp_ring_full",
	"redirects_ratelimited",
};

static uint64_t lc_val(const struct dp_stats *s, unsigned int row)
{
	switch (row) {
	case LC_RX:
		return s->rx;
	case LC_FORWARDED:
		return dp_stats_forwarded(s);
	case LC_TX:
		return dp_stats_tx(s);
	case LC_TO_CONTROL:
		return s->to_control;
	case LC_CTRL_TX:
		return s->ctrl_tx;
	case LC_CTRL_TX_FULL:
		return s->ctrl_tx_full;
	case LC_CTRL_TX_PORT_DOWN:
		return s->ctrl_tx_port_down;
	case LC_CTRL_TX_NO_PORT:
		return s->ctrl_tx_no_port;
	case LC_DROPPED:
		return dp_stats_dropped(s);
	case LC_BUSY_CYCLES:
		return s->busy_cycles;
	case LC_BUSY_POLLS:
		return s->busy_polls;
	case LC_IDLE_POLLS:
		return s->idle_polls;
	case LC_ICMP_QUEUED:
		return s->icmp_queued;
	case LC_ICMP_RATELIMITED:
		return s->icmp_ratelimited;
	case LC_ICMP_NOT_SENT:
		return s->icmp_not_sent;
	case LC_ICMP_RING_FULL:
		return s->icmp_ring_full;
	case LC_REDIRECTS_RATELIMITED:
		return s->redirects_ratelimited;
	default:
		return s->drop[row - LC_ROWS];
	}
}

static const char *lc_name(unsigned int row)
{
	return row < LC_ROWS ? lc_names[row] : dp_drop_names[row - LC_ROWS];
}

/*
 * show stats lcores: each worker's counters as read once, and their total
 * from those same readings (the total column adds up its row).
 */
static int show_stats_lcores(struct router *r, struct cmd_out *o)
{
	struct dp_stats *snap, total;
	unsigned int row, w, n = r->nb_workers;

	/* cache-line aligned as the type is (sizeof is a multiple of it) */
	snap = aligned_alloc(RTE_CACHE_LINE_SIZE, (n ? n : 1) * sizeof(*snap));
	if (snap == NULL) {
		o->oom = true;
		return 0;
	}
	memset(&total, 0, sizeof(total));
	for (w = 0; w < n; w++) {
		memcpy(&snap[w], &r->workers[w]->st, sizeof(snap[w]));
		dp_stats_add(&total, &snap[w]);
	}
	if (o->json) {
		jw_obj_open(o, NULL);
		jw_arr_open(o, "lcores");
		for (w = 0; w < n; w++)
			jw_u64(o, NULL, r->workers[w]->lcore);
		jw_arr_close(o);
	} else {
		out_printf(o, "%-22s", "counter");
		for (w = 0; w < n; w++)
			out_printf(o, " %14s%-4u", "lcore", r->workers[w]->lcore);
		out_printf(o, " %18s\n", "total");
	}
	for (row = 0; row < LC_ROWS + DROP_MAX; row++) {
		if (o->json) {
			jw_arr_open(o, lc_name(row));
			for (w = 0; w < n; w++)
				jw_u64(o, NULL, lc_val(&snap[w], row));
			jw_arr_close(o);
			continue;
		}
		out_printf(o, "%-22s", lc_name(row));
		for (w = 0; w < n; w++)
			out_printf(o, " %18" PRIu64, lc_val(&snap[w], row));
		out_printf(o, " %18" PRIu64 "\n", lc_val(&total, row));
	}
	if (o->json) {
		/* the text's last column */
		jw_obj_open(o, "total");
		for (row = 0; row < LC_ROWS + DROP_MAX; row++)
			jw_u64(o, lc_name(row), lc_val(&total, row));
		jw_obj_close(o);
		jw_obj_close(o);
	}
	free(snap);
	return 0;
}

static int show_stats(struct router *r, const struct cmd *c, struct cmd_out *o)
{
	struct dp_stats s;

	if (c->all)
		return show_stats_lcores(r, o);
	router_stats_sum(r, &s);
	if (o->json) {
		jw_obj_open(o, NULL);
		jw_u64(o, "workers", r->nb_workers);
	} else {
		out_printf(o, "workers: %u\n", r->nb_workers);
	}
	kv(o, "rx", s.rx);
	kv(o, "forwarded", dp_stats_forwarded(&s));
	kv(o, "tx", dp_stats_tx(&s));
	kv(o, "to_control", s.to_control);
	kv(o, "ctrl_tx", s.ctrl_tx);
	kv(o, "dropped", dp_stats_dropped(&s));
	kv(o, "busy_cycles", s.busy_cycles);
	kv(o, "busy_polls", s.busy_polls);
	kv(o, "idle_polls", s.idle_polls);
	if (o->json)
		jw_dbl(o, "busy_cycles_per_pkt", s.rx ? (double)s.busy_cycles / (double)s.rx : 0);
	else
		out_printf(o, "  %-26s %.1f\n", "busy_cycles_per_pkt",
			   s.rx ? (double)s.busy_cycles / (double)s.rx : 0.0);
	{
		const struct stats_visitor v = {kv_cb, section_cb, o};

		router_stats_visit(r, &s, &v);
	}
	if (o->json)
		jw_obj_close(o);
	return 0;
}

/* ---- ports --------------------------------------------------------------- */

/* What duplicate address detection says of a port's IPv6 address @a (state
 * @dad), for show port info. */
static const char *dad_note(const struct fr_addr *a, uint8_t dad)
{
	if (a->family != AF_INET6)
		return "";
	if (dad == ADDR_DAD_TENTATIVE)
		return " (tentative: duplicate address detection running)";
	if (dad == ADDR_DAD_FAILED)
		return " (duplicate: another host holds it; not used)";
	/* (JSON link_local_dad "not_probed"; control6.c ll_unprobed()) */
	if (dad == ADDR_DAD_WAIT && ip6_is_linklocal(a->v6))
		return " (not probed: not claimed until the port speaks IPv6 with its link up)";
	return "";
}

/* Port @p's advertised DNS server @i as text in @buf (FR_ADDR_STRLEN) */
static const char *ra_dns_fmt(const struct fr_port *p, unsigned int i, char *buf)
{
	struct fr_addr d = {.family = AF_INET6};

	memcpy(d.v6, p->ra_dns[i], 16);
	return fr_addr_fmt(&d, buf, FR_ADDR_STRLEN);
}

/* The default router preference in RA flags @f (RFC 4191 2.2) */
static const char *ra_prf_name(uint8_t f)
{
	f &= RA_PRF_MASK;
	return f == RA_PRF_HIGH ? "high" : f == RA_PRF_LOW ? "low" : "medium";
}

/* Port @p's Router Advertisements, for show port info: what 'port N ra'
 * set (JSON ra_interval_s 0: off) */
static void port_ra(struct cmd_out *o, const struct fr_port *p)
{
	char a[FR_ADDR_STRLEN];
	unsigned int i;

	if (o->json) {
		jw_u64(o, "ra_interval_s", p->ra_max_s);
		jw_u64(o, "ra_min_delay_ms", p->ra_max_s != 0 ? p->ra_min_delay_ms : 0);
		jw_bool(o, "ra_managed", (p->ra_flags & RA_MANAGED) != 0);
		jw_bool(o, "ra_other", (p->ra_flags & RA_OTHER) != 0);
		jw_bool(o, "ra_slaac", (p->ra_flags & RA_NO_SLAAC) == 0);
		jw_str(o, "ra_preference", ra_prf_name(p->ra_flags));
		jw_arr_open(o, "ra_dns");
	} else if (p->ra_max_s == 0) {
		out_printf(o, "  router advertisements off\n");
		return;
	} else {
		out_printf(
			o,
			"  router advertisements every %u s at most, %u ms apart at least%s%s%s, "
			"preference %s",
			p->ra_max_s, p->ra_min_delay_ms,
			p->ra_flags & RA_MANAGED ? ", managed" : "",
			p->ra_flags & RA_OTHER ? ", other" : "",
			p->ra_flags & RA_NO_SLAAC ? ", no-slaac" : "", ra_prf_name(p->ra_flags));
	}
	for (i = 0; i < p->ra_ndns; i++) {
		ra_dns_fmt(p, i, a);
		if (o->json)
			jw_str(o, NULL, a);
		else
			out_printf(o, "%s%s", i == 0 ? ", dns " : " ", a);
	}
	if (o->json)
		jw_arr_close(o);
	else
		out_printf(o, "\n");
}

static void port_info(struct router *r, const struct fr_port *p, struct cmd_out *o)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE], a[FR_ADDR_STRLEN + 8];
	struct rte_eth_link link;
	bool have_link = p->started && port_link_get(r, p->id, &link) == 0;
	/* a driver that cannot tell says RTE_ETH_SPEED_NUM_UNKNOWN; a link
	 * down has none */
	bool speed_known = have_link && link.link_status &&
			   link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN &&
			   link.link_speed != RTE_ETH_SPEED_NUM_NONE;
	unsigned int i, k;

	static const char *const rpf[] = {"off", "loose", "strict"};
	const struct dp_port *dp = &r->dp_ports[p->id];

	rte_ether_format_addr(mac, sizeof(mac), &dp->mac);
	if (o->json) {
		jw_str(o, "mac", mac);
		jw_u64(o, "mtu", dp->mtu);
		jw_u64(o, "device_mtu", p->dev_mtu);
		jw_str(o, "rpf", rpf[dp->rpf % 3]);
		jw_bool(o, "rpf_ignore_default", dp->rpf_ignore_default);
		jw_bool(o, "redirects", dp->redirects);
		jw_u64(o, "socket", (uint64_t)p->socket);
		jw_u64(o, "rx_queues", p->nb_rxq);
		jw_u64(o, "tx_queues", p->nb_txq);
		if (have_link) {
			jw_bool(o, "link_up", link.link_status);
			if (speed_known)
				jw_u64(o, "link_speed_mbps", link.link_speed);
			else
				jw_null(o, "link_speed_mbps");
		}
		jw_bool(o, "forwarding_down", dp->down);
		jw_bool(o, "admin_down", p->admin_down);
		jw_bool(o, "link_held_down", p->link_held_down);
		if (p->link_set_err != 0)
			jw_str(o, "link_set_error", rte_strerror(-p->link_set_err));
		else
			jw_null(o, "link_set_error");
		jw_u64(o, "link_changes", p->link_changes);
		jw_u64(o, "hold_time_up_ms", p->hold_up_ms);
		jw_u64(o, "hold_time_down_ms", p->hold_down_ms);
		/* the last reading differs from what the workers act on: a
		 * hold running */
		jw_bool(o, "link_held", p->started && p->link_read_down != p->link_down);
		jw_u64(o, "link_flaps_ignored", p->link_flaps_ignored);
		port_ra(o, p);
		jw_arr_open(o, "addresses");
	} else {
		out_printf(
			o,
			"  mac %s\n  mtu %u (device %u)\n  rpf %s%s\n  redirects %s\n  socket %d\n"
			"  queues rx %u tx %u\n",
			mac, dp->mtu, p->dev_mtu, rpf[dp->rpf % 3],
			dp->rpf_ignore_default ? " ignore-default" : "",
			dp->redirects ? "on" : "off", p->socket, p->nb_rxq, p->nb_txq);
		if (have_link && speed_known)
			out_printf(o, "  link up %u Mbps\n", link.link_speed);
		else if (have_link)
			out_printf(o, "  link %s\n",
				   link.link_status ? "up (speed unknown)" : "down");
		/* what the workers act on, as of the last poll */
		out_printf(o, "  forwarding %s",
			   dp->down ? "down (port_down, rx_port_down drops)" : "up");
		if (p->admin_down)
			out_printf(o, ", taken down by 'port %u down'", p->id);
		out_printf(o, ", %" PRIu64 " link changes\n", p->link_changes);
		if (p->hold_up_ms != 0 || p->hold_down_ms != 0)
			out_printf(o,
				   "  hold-time up %u ms down %u ms: %" PRIu64 " flaps ignored%s\n",
				   p->hold_up_ms, p->hold_down_ms, p->link_flaps_ignored,
				   p->started && p->link_read_down != p->link_down
					   ? (p->link_read_down ? ", link down, held up"
								: ", link up, held down")
					   : "");
		port_ra(o, p);
		/* what 'port N down' did to the link itself */
		if (p->link_held_down)
			out_printf(o, "  link set down by 'port %u down'%s\n", p->id,
				   p->admin_down ? "" : " (setting it up again failed)");
		if (p->link_set_err != 0 && p->admin_down)
			out_printf(o, "  link left up, %s: %s (traffic is still dropped)\n",
				   p->link_set_err == -ENOTSUP ? "the driver cannot set it down"
							       : "setting it down failed",
				   rte_strerror(-p->link_set_err));
		else if (p->link_set_err != 0)
			out_printf(o, "  link could not be set up again: %s\n",
				   rte_strerror(-p->link_set_err));
	}
	for (i = 0; i < p->nb_addrs; i++) {
		struct fr_prefix pf = {.addr = p->addrs[i].addr, .len = p->addrs[i].len};

		fr_prefix_fmt(&pf, a, sizeof(a));
		if (o->json)
			jw_str(o, NULL, a);
		else
			out_printf(o, "  address %s%s\n", a,
				   dad_note(&p->addrs[i].addr, p->addrs[i].dad));
	}
	if (o->json) {
		jw_arr_close(o);
		/* IPv6 duplicate address detection: the addresses it is
		 * probing, and those another host holds */
		for (k = 0; k < 2; k++) {
			jw_arr_open(o, k ? "addresses_duplicate" : "addresses_tentative");
			for (i = 0; i < p->nb_addrs; i++) {
				struct fr_prefix pf = {.addr = p->addrs[i].addr,
						       .len = p->addrs[i].len};

				if (pf.addr.family == AF_INET6 &&
				    p->addrs[i].dad == (k ? ADDR_DAD_FAILED : ADDR_DAD_TENTATIVE))
					jw_str(o, NULL, fr_prefix_fmt(&pf, a, sizeof(a)));
			}
			jw_arr_close(o);
		}
	}
	{
		struct fr_prefix ll = {.len = 64};

		ll.addr.family = AF_INET6;
		memcpy(ll.addr.v6, dp->ll6, 16);
		fr_prefix_fmt(&ll, a, sizeof(a));
		if (o->json) {
			static const char *const dad[] = {"not_probed", "tentative", "ok",
							  "duplicate"};

			jw_str(o, "link_local", a);
			jw_str(o, "link_local_dad", dad[p->ll_dad & 3]);
		} else
			out_printf(o, "  address %s (link-local)%s\n", a,
				   dad_note(&ll.addr, p->ll_dad));
	}
}

/* The basic device counters 'show port stats' shows, by name. */
static const struct {
	const char *name;
	size_t off; /* in struct rte_eth_stats */
} basic_stats[] = {
	{"rx_packets", offsetof(struct rte_eth_stats, ipackets)},
	{"rx_bytes", offsetof(struct rte_eth_stats, ibytes)},
	{"rx_missed", offsetof(struct rte_eth_stats, imissed)},
	{"rx_errors", offsetof(struct rte_eth_stats, ierrors)},
	{"rx_nombuf", offsetof(struct rte_eth_stats, rx_nombuf)},
	{"tx_packets", offsetof(struct rte_eth_stats, opackets)},
	{"tx_bytes", offsetof(struct rte_eth_stats, obytes)},
	{"tx_errors", offsetof(struct rte_eth_stats, oerrors)},
};

static uint64_t basic_stat(const struct rte_eth_stats *es, unsigned int i)
{
	uint64_t v;

	memcpy(&v, (const char *)es + basic_stats[i].off, sizeof(v));
	return v;
}

/*
 * The device's counters since the last 'clear stats': less its record
 * then (struct fr_port). A set in which any counter is below its record
 * (reset outside fastroute: a secondary process, the driver) is shown
 * whole, as the device counts it: every counter of the set, not only that
 * one, so that the set stays one reading.
 */
static void port_stats(const struct fr_port *p, struct cmd_out *o)
{
	struct rte_eth_stats es;
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *xs = NULL;
	int nx, i;
	unsigned int b;
	bool whole = false;

	if (!p->started || rte_eth_stats_get(p->id, &es) != 0) {
		if (o->json)
			jw_bool(o, "started", false);
		else
			out_printf(o, "  (not started)\n");
		return;
	}
	if (o->json)
		jw_bool(o, "started", true);
	for (b = 0; b < RTE_DIM(basic_stats); b++)
		whole |= basic_stat(&es, b) < basic_stat(&p->stats_base, b);
	for (b = 0; b < RTE_DIM(basic_stats); b++)
		kv(o, basic_stats[b].name,
		   basic_stat(&es, b) - (whole ? 0 : basic_stat(&p->stats_base, b)));
	/* over the last second (port_rates_poll()), whatever the clear */
	if (o->json)
		jw_bool(o, "rates_known", p->rate_known);
	if (p->rate_known) {
		kv(o, "rx_pps", p->rx_pps);
		kv(o, "rx_bps", p->rx_bps);
		kv(o, "tx_pps", p->tx_pps);
		kv(o, "tx_bps", p->tx_bps);
	} else if (o->json) {
		/* the same keys whether known or not: a client reads them */
		jw_null(o, "rx_pps");
		jw_null(o, "rx_bps");
		jw_null(o, "tx_pps");
		jw_null(o, "tx_bps");
	} else {
		out_printf(o, "  rates: not known yet (read each second; none over a counter "
			      "reset or a longer gap)\n");
	}
	nx = rte_eth_xstats_get_names(p->id, NULL, 0);
	if (nx > 0) {
		names = calloc((size_t)nx, sizeof(*names));
		xs = calloc((size_t)nx, sizeof(*xs));
	}
	if (names && xs && rte_eth_xstats_get_names(p->id, names, (unsigned int)nx) == nx &&
	    rte_eth_xstats_get(p->id, xs, (unsigned int)nx) == nx) {
		/* the record applies to the list it was taken from (xs[i].id
		 * is i, so a list of another length is another list) */
		whole = (unsigned int)nx != p->nb_xstats_base;
		for (i = 0; i < nx && !whole; i++)
			whole = xs[i].id >= (uint64_t)nx || xs[i].value < p->xstats_base[xs[i].id];
		section(o, "xstats", true);
		for (i = 0; i < nx; i++) {
			uint64_t v;

			if (xs[i].id >= (uint64_t)nx) /* a driver's error: no name */
				continue;
			v = xs[i].value - (whole ? 0 : p->xstats_base[xs[i].id]);
			if (o->json)
				jw_u64(o, names[xs[i].id].name, v);
			else
				out_printf(o, "    %-32s %" PRIu64 "\n", names[xs[i].id].name, v);
		}
		section(o, "xstats", false);
	}
	free(names);
	free(xs);
}

static int show_port(struct router *r, const struct cmd *c, struct cmd_out *o, char *err,
		     size_t errlen)
{
	uint16_t pid;
	int rc;

	if (!c->all) {
		rc = check_port(r, c->port, err, errlen);
		if (rc != 0)
			return rc;
	}
	if (o->json)
		jw_arr_open(o, NULL);
	for (pid = 0; pid < r->nb_ports; pid++) {
		const struct fr_port *p = &r->ports[pid];

		if (!p->present || (!c->all && pid != c->port))
			continue;
		if (o->json) {
			jw_obj_open(o, NULL);
			jw_u64(o, "port", pid);
			jw_str(o, "name", p->name);
		} else {
			out_printf(o, "port %u (%s)\n", pid, p->name);
		}
		if (c->id == CMD_SHOW_PORT_INFO)
			port_info(r, p, o);
		else
			port_stats(p, o);
		if (o->json)
			jw_obj_close(o);
	}
	if (o->json)
		jw_arr_close(o);
	return 0;
}

/* ---- route cache ----------------------------------------------------------- */

static int show_rtcache(struct router *r, struct cmd_out *o)
{
	struct rtcache_stats sum = {0};
	uint64_t mem = 0;
	unsigned int w;

#define RTC_FIELDS(X) X(lookups) X(hits) X(misses) X(stale) X(inserts) X(evictions) X(bypassed)
	if (o->json) {
		jw_obj_open(o, NULL);
		jw_str(o, "mode", rtcache_mode_names[r->dpconf.rtcache_mode]);
		jw_arr_open(o, "lcores");
	} else {
		out_printf(o, "mode %s\n", rtcache_mode_names[r->dpconf.rtcache_mode]);
		out_printf(o, "%-8s %-9s %12s %12s %12s %10s %10s %10s %12s %8s %9s %10s\n",
			   "lcore", "state", "lookups", "hits", "misses", "stale", "inserts",
			   "evictions", "bypassed", "win_hit%", "probe_cyc", "bypass_cyc");
	}
	for (w = 0; w < r->nb_workers; w++) {
		const struct rtcache *c = r->workers[w]->rtc;
		/* read once: the total then adds up the rows as printed (the
		 * worker counts on meanwhile), as show stats lcores does */
		const struct rtcache_stats snap = c->st;
		const struct rtcache_stats *s = &snap;
		/* auto: the last measurement's cycles a packet, each side */
		const double pc = c->probe_cpp16 / 16.0, bc = c->bypass_cpp16 / 16.0;
		const char *state = c->mode == RTCACHE_OFF		      ? "off"
				    : c->mode == RTCACHE_AUTO && c->measuring ? "measure"
				    : c->bypassing			      ? "bypass"
									      : "probing";
		char pcs[16] = "-", bcs[16] = "-", wins[16] = "-";
		/* auto's last measurement, while in auto mode */
		const bool shown = c->mode == RTCACHE_AUTO && c->measurements > 0;

		mem += rtcache_memory(c);
#define ADD(f) sum.f += s->f;
		RTC_FIELDS(ADD)
#undef ADD
		if (o->json) {
			jw_obj_open(o, NULL);
			jw_u64(o, "lcore", r->workers[w]->lcore);
			jw_str(o, "state", state);
#define J(f) jw_u64(o, #f, s->f);
			RTC_FIELDS(J)
#undef J
			if (c->win_closed)
				jw_u64(o, "window_hit_pct", c->last_win_pct);
			else
				jw_null(o, "window_hit_pct");
			jw_u64(o, "measurements", c->measurements);
			if (shown) {
				jw_dbl(o, "probe_cycles", pc);
				jw_dbl(o, "bypass_cycles", bc);
				jw_u64(o, "measured_hit_pct", c->verdict_pct);
			} else {
				jw_null(o, "probe_cycles");
				jw_null(o, "bypass_cycles");
				jw_null(o, "measured_hit_pct");
			}
			jw_obj_close(o);
		} else {
			if (shown) {
				snprintf(pcs, sizeof(pcs), "%.1f", pc);
				snprintf(bcs, sizeof(bcs), "%.1f", bc);
			}
			if (c->win_closed)
				snprintf(wins, sizeof(wins), "%u", c->last_win_pct);
			out_printf(o,
				   "%-8u %-9s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %10" PRIu64
				   " %10" PRIu64 " %10" PRIu64 " %12" PRIu64 " %8s %9s %10s\n",
				   r->workers[w]->lcore, state, s->lookups, s->hits, s->misses,
				   s->stale, s->inserts, s->evictions, s->bypassed, wins, pcs, bcs);
		}
	}
	if (o->json) {
		jw_arr_close(o);
		jw_obj_open(o, "total");
#define J(f) jw_u64(o, #f, sum.f);
		RTC_FIELDS(J)
#undef J
		jw_obj_close(o);
		jw_u64(o, "memory_bytes", mem);
		jw_obj_close(o);
		return 0;
	}
	out_printf(o,
		   "%-8s %-9s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64
		   " %10" PRIu64 " %12" PRIu64 "\n",
		   "total", "", sum.lookups, sum.hits, sum.misses, sum.stale, sum.inserts,
		   sum.evictions, sum.bypassed);
	out_printf(o, "memory %.1f MiB (fixed: %u entries per worker)\n", (double)mem / (1 << 20),
		   r->opts.rtcache_size);
#undef RTC_FIELDS
	return 0;
}

/* ---- running configuration ----------------------------------------------- */

struct neigh_list {
	struct neigh_info *v;
	size_t n, cap;
};

static int neigh_collect_cb(const struct neigh_info *ni, void *arg)
{
	struct neigh_list *l = arg;

	if (!ni->configured)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct neigh_info *nv = realloc(l->v, cap * sizeof(*nv));

		if (nv == NULL)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = *ni;
	return 0;
}

static int neigh_cmp(const void *a, const void *b)
{
	const struct neigh_info *x = a, *y = b;

	if (x->port != y->port)
		return (int)x->port - (int)y->port;
	if (x->addr.family != y->addr.family)
		return x->addr.family == AF_INET ? -1 : 1;
	if (x->addr.family == AF_INET6)
		return memcmp(x->addr.v6, y->addr.v6, 16);
	return x->addr.v4 < y->addr.v4 ? -1 : x->addr.v4 > y->addr.v4;
}

/* port N's 'ra on' line */
static void show_ra(struct cmd_out *o, uint16_t pid, const struct fr_port *p)
{
	char a[FR_ADDR_STRLEN];
	unsigned int i;

	out_printf(o, "port %u ra on interval %u", pid, p->ra_max_s);
	if (p->ra_min_delay_ms != RA_MIN_DELAY_DEFAULT_MS)
		out_printf(o, " min-delay %u", p->ra_min_delay_ms);
	out_printf(o, "%s%s%s", p->ra_flags & RA_MANAGED ? " managed" : "",
		   p->ra_flags & RA_OTHER ? " other" : "",
		   p->ra_flags & RA_NO_SLAAC ? " no-slaac" : "");
	if ((p->ra_flags & RA_PRF_MASK) != 0)
		out_printf(o, " preference %s", ra_prf_name(p->ra_flags));
	for (i = 0; i < p->ra_ndns; i++)
		out_printf(o, "%s%s", i == 0 ? " dns " : ",", ra_dns_fmt(p, i, a));
	out_printf(o, "\n");
}

/* Config-file form; the same text for the same tables (sorted). */
static int show_config(struct router *r, struct cmd_out *o, char *err, size_t errlen)
{
	struct route_list rl;
	struct neigh_list nl = {0};
	char a[FR_ADDR_STRLEN], g[FR_ADDR_STRLEN], m[RTE_ETHER_ADDR_FMT_SIZE];
	uint16_t pid;
	unsigned int i;
	size_t k;

	if (route_list_get(r, &rl) != 0)
		return ERRC(-ENOMEM, "out of memory");
	if (neigh_walk_serviced(r, neigh_collect_cb, &nl) != 0) {
		free(rl.v);
		free(nl.v);
		return ERRC(-ENOMEM, "out of memory");
	}
	out_printf(o, "# fastroute %s running configuration\n", FASTROUTE_VERSION);
	{
		struct neigh_params np;

		neigh_params_get(r->neigh, &np);
		cmd_neigh_params_line(o, &np);
	}
	out_printf(o, "set ip martians %s\n", r->dpconf.martians ? "on" : "off");
	out_printf(o, "set ip directed-broadcast %s\n", r->dpconf.directed_bcast ? "on" : "off");
	out_printf(o, "set ip multipath-hash %s\n", r->dpconf.mp_hash_l4 ? "l4" : "l3");
	out_printf(o, "set icmp rate %u burst %u\n", r->icmp_rate, r->icmp_burst);
	if (r->reasm_timeout_s != 0)
		out_printf(o, "set ip reassembly-timeout %u\n", r->reasm_timeout_s);
	else
		out_printf(o, "set ip reassembly-timeout default\n");
	out_printf(o, "rtcache size %u\n", r->opts.rtcache_size);
	out_printf(o, "rtcache %s\n", rtcache_mode_names[r->dpconf.rtcache_mode]);
	for (pid = 0; pid < r->nb_ports; pid++) {
		static const char *const rpf[] = {"off", "loose", "strict"};

		if (!r->ports[pid].present)
			continue;
		out_printf(o, "port %u mtu %u\n", pid, r->dp_ports[pid].mtu);
		if (r->ports[pid].admin_down)
			out_printf(o, "port %u down\n", pid);
		out_printf(o, "port %u rpf %s%s\n", pid, rpf[r->dp_ports[pid].rpf % 3],
			   r->dp_ports[pid].rpf_ignore_default ? " ignore-default" : "");
		if (r->dp_ports[pid].redirects)
			out_printf(o, "port %u redirects on\n", pid);
		if (r->ports[pid].ra_max_s != 0)
			show_ra(o, pid, &r->ports[pid]);
		if (r->ports[pid].hold_up_ms != 0 || r->ports[pid].hold_down_ms != 0)
			out_printf(o, "port %u hold-time up %u down %u\n", pid,
				   r->ports[pid].hold_up_ms, r->ports[pid].hold_down_ms);
	}
	for (pid = 0; pid < r->nb_ports; pid++) {
		for (i = 0; i < r->ports[pid].nb_addrs; i++) {
			const struct port_addr *pa = &r->ports[pid].addrs[i];

			out_printf(o, "port %u address add %s/%u\n", pid,
				   fr_addr_fmt(&pa->addr, a, sizeof(a)), pa->len);
		}
	}
	for (k = 0; k < rl.n; k++) {
		const struct fib_route *rt = &rl.v[k];

		long_cmd_service(r, k);
		if (rt->origin != FIB_ORIGIN_STATIC)
			continue;
		/* one the table could not put back: a file that holds it may
		 * not load (the room it needs taken by the routes after it,
		 * all or nothing), so it is said, commented out */
		if (rt->flags & FIB_RTF_STRANDED)
			out_printf(o, "# withdrawn (table full): left out so that this file "
				      "loads; add it once there is room\n# ");
		fr_prefix_fmt(&rt->prefix, a, sizeof(a));
		switch (rt->type) {
		case FIB_NH_GATEWAY:
			out_printf(o, "route add %s via %s port %u\n", a,
				   fr_addr_fmt(&rt->gw, g, sizeof(g)), rt->port);
			break;
		case FIB_NH_CONNECTED:
			out_printf(o, "route add %s dev %u\n", a, rt->port);
			break;
		case FIB_NH_MULTIPATH: {
			struct fib_mp_member mm[FIB_MP_MAX];
			unsigned int j, nm = fib_mp_members(r->fib, rt->nh_idx, mm);

			out_printf(o, "route add %s", a);
			for (j = 0; j < nm; j++) {
				out_printf(o, " via %s port %u",
					   fr_addr_fmt(&mm[j].gw, g, sizeof(g)), mm[j].port);
				if (mm[j].weight != 1)
					out_printf(o, " weight %u", mm[j].weight);
			}
			out_printf(o, "\n");
			break;
		}
		default:
			out_printf(o, "route add %s %s\n", a, fib_nh_type_names[rt->type]);
			break;
		}
	}
	if (nl.n > 1)
		qsort(nl.v, nl.n, sizeof(*nl.v), neigh_cmp);
	for (k = 0; k < nl.n; k++) {
		rte_ether_format_addr(m, sizeof(m), &nl.v[k].mac);
		out_printf(o, "neigh add %s lladdr %s port %u\n",
			   fr_addr_fmt(&nl.v[k].addr, a, sizeof(a)), m, nl.v[k].port);
	}
	free(rl.v);
	free(nl.v);
	return 0;
}

/* ---- memory ---------------------------------------------------------------- */

static int show_memory(struct router *r, struct cmd_out *o)
{
	unsigned int s;

	if (o->json)
		jw_obj_open(o, NULL);
	section(o, "mbufs", true);
	for (s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		char name[32];

		if (r->pools[s] == NULL)
			continue;
		snprintf(name, sizeof(name), "socket%u_in_use", s);
		kv(o, name, rte_mempool_in_use_count(r->pools[s]));
		snprintf(name, sizeof(name), "socket%u_total", s);
		kv(o, name, r->pools[s]->size);
	}
	section(o, "mbufs", false);
	section(o, "heap", true);
	for (s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		struct rte_malloc_socket_stats ms;
		char name[32];

		if (rte_malloc_get_socket_stats((int)s, &ms) != 0 || ms.heap_totalsz_bytes == 0)
			continue;
		snprintf(name, sizeof(name), "socket%u_bytes_total", s);
		kv(o, name, ms.heap_totalsz_bytes);
		snprintf(name, sizeof(name), "socket%u_bytes_used", s);
		kv(o, name, ms.heap_allocsz_bytes);
		snprintf(name, sizeof(name), "socket%u_allocations", s);
		kv(o, name, ms.alloc_count);
	}
	section(o, "heap", false);
	section(o, "tables", true);
	kv(o, "routes", fib_route_count(r->fib, AF_INET));
	kv(o, "routes6", fib_route_count(r->fib, AF_INET6));
	kv(o, "nexthops", fib_nh_count(r->fib));
	kv(o, "neighbours", neigh_count(r->neigh));
	kv(o, "neighbours_max", neigh_capacity(r->neigh));
	{
		struct fib_tbl8_usage u;

		/* routes longer than /24 (IPv6: than /24 too, a group a byte
		 * level) reserve them; with all reserved, such routes are
		 * refused */
		if (fib_tbl8_usage(r->fib, AF_INET, &u) == 0) {
			kv(o, "tbl8_groups_used", u.taken);
			kv(o, "tbl8_groups_reserved", u.reserved);
			kv(o, "tbl8_groups", u.total);
		}
		if (fib_tbl8_usage(r->fib, AF_INET6, &u) == 0) {
			kv(o, "tbl8_groups6_used", u.taken);
			kv(o, "tbl8_groups6_reserved", u.reserved);
			kv(o, "tbl8_groups6", u.total);
		}
	}
	section(o, "tables", false);
	if (o->json)
		jw_obj_close(o);
	return 0;
}

static int show_version(struct router *r, struct cmd_out *o)
{
	if (o->json) {
		jw_obj_open(o, NULL);
		jw_str(o, "fastroute", FASTROUTE_VERSION);
		jw_str(o, "dpdk", rte_version());
		jw_str(o, "fib_backend", fib_backend_name(r->fib));
		jw_obj_close(o);
		return 0;
	}
	out_printf(o, "fastroute %s (%s, FIB backend %s)\n", FASTROUTE_VERSION, rte_version(),
		   fib_backend_name(r->fib));
	return 0;
}

/* show config; with -j the same text as {"lines": [...]}, one string a line
 * (a config file has no other form to give it) */
static int show_config_as(struct router *r, struct cmd_out *o, char *err, size_t errlen)
{
	struct cmd_out text = {0};
	char *line, *nl;
	size_t n = 0;
	int rc;

	if (!o->json)
		return show_config(r, o, err, errlen);
	rc = show_config(r, &text, err, errlen);
	if (rc == 0 && text.oom)
		o->oom = true;
	if (rc == 0 && !text.oom) {
		jw_obj_open(o, NULL);
		jw_arr_open(o, "lines");
		for (line = text.buf; line != NULL && line < text.buf + text.len; line = nl + 1) {
			nl = memchr(line, '\n', (size_t)(text.buf + text.len - line));
			if (nl == NULL)
				nl = text.buf + text.len;
			*nl = '\0';
			jw_str(o, NULL, line);
			/* a million routes' lines: ARP, ND and held packets
			 * served meanwhile, as while the text was made */
			long_cmd_service(r, ++n);
		}
		jw_arr_close(o);
		jw_obj_close(o);
	}
	out_free(&text);
	return rc;
}

int cmd_show(struct router *r, const struct cmd *c, struct cmd_out *o, char *err, size_t errlen)
{
	switch (c->id) {
	case CMD_SHOW_ROUTE:
		return show_route(r, c, o, err, errlen);
	case CMD_SHOW_ROUTE_LOOKUP:
		return show_lookup(r, c, o);
	case CMD_SHOW_ROUTE_SUMMARY:
		return show_summary(r, o);
	case CMD_SHOW_NEIGH:
		return show_neigh(r, o);
	case CMD_SHOW_NEIGH_STATS:
		return show_neigh_stats(r, o);
	case CMD_SHOW_STATS:
		return show_stats(r, c, o);
	case CMD_SHOW_PORT_INFO:
	case CMD_SHOW_PORT_STATS:
		return show_port(r, c, o, err, errlen);
	case CMD_SHOW_CONFIG:
		return show_config_as(r, o, err, errlen);
	case CMD_SHOW_RTCACHE:
		return show_rtcache(r, o);
	case CMD_SHOW_MEMORY:
		return show_memory(r, o);
	case CMD_SHOW_VERSION:
		return show_version(r, o);
	default:
		return ERR("command not implemented");
	}
}
