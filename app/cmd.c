/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command parser, executor and transaction journal. The same code serves
 * config files, "load", the CLI socket and the terminal.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_version.h>

#include "cmd.h"
#include "router.h"

/* ---- output ---------------------------------------------------------- */

void out_printf(struct cmd_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = o->cap - o->len;

		va_start(ap, fmt);
		n = vsnprintf(o->buf ? o->buf + o->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			o->len += (size_t)n;
			return;
		}
		size_t cap = o->cap ? o->cap * 2 : 4096;
		while (cap - o->len <= (size_t)n)
			cap *= 2;
		char *nb = realloc(o->buf, cap);
		if (nb == NULL)
			return; /* output truncated; the command itself still ran */
		o->buf = nb;
		o->cap = cap;
	}
}

void out_reset(struct cmd_out *o)
{
	o->len = 0;
	if (o->buf)
		o->buf[0] = '\0';
	o->quit = false;
}

void out_free(struct cmd_out *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

/* ---- help ------------------------------------------------------------ */

static const struct {
	const char *syntax;
	const char *text;
} help_tab[] = {
	{"port N address A.B.C.D/LEN", "same as 'port N address add A.B.C.D/LEN'"},
	{"port N address add|del A.B.C.D/LEN",
	 "add or remove an address of port N; adding installs the local /32, the connected\n"
	 "subnet and its broadcast address (prefixes up to /30) as routes"},
	{"route add|replace PREFIX via GW [port N]",
	 "forward PREFIX to gateway GW; the port is the one of the connected subnet that\n"
	 "holds GW unless 'port N' is given"},
	{"route add|replace PREFIX dev N",
	 "forward PREFIX straight out of port N (each destination is a neighbour)"},
	{"route add|replace PREFIX blackhole|unreachable|prohibit",
	 "drop packets to PREFIX (each type has its own counter)"},
	{"route del PREFIX", "remove the route for exactly PREFIX"},
	{"neigh add ADDR lladdr MAC port N", "add or change a static neighbour on port N"},
	{"neigh del ADDR port N", "remove a static neighbour"},
	{"show route [PREFIX]", "list routes, or the route for exactly PREFIX"},
	{"show route lookup ADDR", "longest-prefix match: which route forwards ADDR, and where"},
	{"show neigh", "list neighbours with state, MAC and generation"},
	{"show stats [lcores]", "forwarding and drop counters, summed or per worker lcore"},
	{"clear stats", "zero every counter"},
	{"show port info|stats [N|all]", "port details or port counters (with extended stats)"},
	{"show version", "fastroute and DPDK versions"},
	{"help [WORD]", "this text, or the commands starting with WORD"},
	{"quit", "end this CLI session (the router keeps running)"},
};

void cmd_help(struct cmd_out *o, const char *topic)
{
	size_t i, tl = topic ? strlen(topic) : 0;
	unsigned int shown = 0;

	for (i = 0; i < RTE_DIM(help_tab); i++) {
		if (tl && strncmp(help_tab[i].syntax, topic, tl) != 0)
			continue;
		out_printf(o, "%s\n", help_tab[i].syntax);
		const char *t = help_tab[i].text;
		while (*t) {
			const char *nl = strchr(t, '\n');
			size_t l = nl ? (size_t)(nl - t) : strlen(t);

			out_printf(o, "    %.*s\n", (int)l, t);
			t += l + (nl ? 1 : 0);
		}
		shown++;
	}
	if (shown == 0)
		out_printf(o, "no command starts with '%s'; 'help' lists them all\n", topic);
}

/* ---- parsing --------------------------------------------------------- */

static int tokenize(char *line, char **tok, int max)
{
	int n = 0;
	char *p = line, *h = strchr(line, '#');

	if (h != NULL)
		*h = '\0';
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			*p++ = '\0';
		if (!*p)
			break;
		if (n == max)
			return -1;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			p++;
	}
	return n;
}

/* fill err, evaluate to -EINVAL (ERR) or to a given negative errno (ERRC) */
#define ERR(...)	(snprintf(err, errlen, __VA_ARGS__), -EINVAL)
#define ERRC(code, ...) (snprintf(err, errlen, __VA_ARGS__), (code))

static int parse_port(const char *s, uint32_t *port, char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	if (s == NULL)
		return ERR("missing port number");
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v >= FIB_PORT_NONE)
		return ERR("bad port number '%s'", s);
	*port = (uint32_t)v;
	return 0;
}

static int parse_addr(const char *s, struct fr_addr *a, char *err, size_t errlen)
{
	if (s == NULL)
		return ERR("missing address");
	if (fr_addr_parse(s, a) != 0)
		return ERR("bad address '%s'", s);
	return 0;
}

/* A prefix as a route key: must be canonical. */
static int parse_prefix(const char *s, struct fr_prefix *p, char *err, size_t errlen)
{
	char buf[FR_ADDR_STRLEN];
	int rc;

	if (s == NULL)
		return ERR("missing prefix");
	rc = fr_prefix_parse(s, p, true);
	if (rc == -ERANGE)
		return ERR("prefix length out of range in '%s' (0-%u)", s,
			   fr_family_bits(p->addr.family));
	if (rc == -EDOM) {
		struct fr_prefix m;

		fr_prefix_parse(s, &m, false);
		fr_addr_mask(&m.addr, m.len);
		return ERR("'%s' is not a canonical prefix: host bits are set (did you mean %s?)",
			   s, fr_prefix_fmt(&m, buf, sizeof(buf)));
	}
	if (rc != 0) {
		/* a bare address is a /32 (or /128), as in ip route */
		if (strchr(s, '/') == NULL && fr_addr_parse(s, &p->addr) == 0) {
			p->len = (uint8_t)fr_family_bits(p->addr.family);
			return 0;
		}
		return ERR("bad prefix '%s' (expected ADDR/LEN)", s);
	}
	return 0;
}

/* After "route add|replace PREFIX": via GW [port N] | dev N | TYPE */
static int parse_route_target(char **tok, int n, struct fib_route *r, char *err, size_t errlen)
{
	uint32_t port;
	int i = 0;

	r->port = FIB_PORT_NONE;
	r->origin = FIB_ORIGIN_STATIC;
	if (n == 0)
		return ERR("missing 'via GW', 'dev N' or a route type");
	if (strcmp(tok[0], "via") == 0) {
		r->type = FIB_NH_GATEWAY;
		if (parse_addr(n > 1 ? tok[1] : NULL, &r->gw, err, errlen) != 0)
			return -EINVAL;
		if (r->gw.family != r->prefix.addr.family)
			return ERR("gateway %s is not of the prefix's address family", tok[1]);
		i = 2;
		if (i < n && strcmp(tok[i], "port") == 0) {
			if (parse_port(i + 1 < n ? tok[i + 1] : NULL, &port, err, errlen) != 0)
				return -EINVAL;
			r->port = (uint16_t)port;
			i += 2;
		}
	} else if (strcmp(tok[0], "dev") == 0 || strcmp(tok[0], "port") == 0) {
		r->type = FIB_NH_CONNECTED;
		if (parse_port(n > 1 ? tok[1] : NULL, &port, err, errlen) != 0)
			return -EINVAL;
		r->port = (uint16_t)port;
		i = 2;
	} else if (strcmp(tok[0], "blackhole") == 0) {
		r->type = FIB_NH_BLACKHOLE;
		i = 1;
	} else if (strcmp(tok[0], "unreachable") == 0) {
		r->type = FIB_NH_UNREACHABLE;
		i = 1;
	} else if (strcmp(tok[0], "prohibit") == 0) {
		r->type = FIB_NH_PROHIBIT;
		i = 1;
	} else {
		return ERR(
			"unknown route target '%s' (expected via, dev, blackhole, unreachable or "
			"prohibit)",
			tok[0]);
	}
	if (i < n)
		return ERR("unexpected '%s'", tok[i]);
	return 0;
}

static int expect_end(char **tok, int n, int i, char *err, size_t errlen)
{
	if (i < n)
		return ERR("unexpected '%s'", tok[i]);
	return 0;
}

int cmd_parse(const char *line, struct cmd *c, char *err, size_t errlen)
{
	char buf[1024];
	char *tok[CMD_MAX_TOKENS + 1];
	int n;

	memset(c, 0, sizeof(*c));
	if (strlen(line) >= sizeof(buf))
		return ERR("line too long (%zu bytes, at most %zu)", strlen(line), sizeof(buf) - 1);
	strcpy(buf, line);
	n = tokenize(buf, tok, CMD_MAX_TOKENS);
	if (n < 0)
		return ERR("too many words (at most %d)", CMD_MAX_TOKENS);
	if (n == 0)
		return -ENODATA;

	if (strcmp(tok[0], "port") == 0) {
		int i = 3;

		if (n < 2 || parse_port(tok[1], &c->port, err, errlen) != 0)
			return n < 2 ? ERR("usage: port N address [add|del] A.B.C.D/LEN") : -EINVAL;
		if (n < 3 || strcmp(tok[2], "address") != 0)
			return ERR("unknown port command '%s' (expected 'address')",
				   n < 3 ? "" : tok[2]);
		c->id = CMD_PORT_ADDR_ADD;
		if (n > 3 && strcmp(tok[3], "add") == 0) {
			i = 4;
		} else if (n > 3 && strcmp(tok[3], "del") == 0) {
			c->id = CMD_PORT_ADDR_DEL;
			i = 4;
		}
		if (i >= n)
			return ERR("missing address (port N address [add|del] A.B.C.D/LEN)");
		if (fr_prefix_parse(tok[i], &c->prefix, false) != 0)
			return ERR("bad interface address '%s' (expected ADDR/LEN)", tok[i]);
		return expect_end(tok, n, i + 1, err, errlen);
	}
	if (strcmp(tok[0], "route") == 0) {
		if (n < 2)
			return ERR("usage: route add|replace|del PREFIX ...");
		if (strcmp(tok[1], "add") == 0)
			c->id = CMD_ROUTE_ADD;
		else if (strcmp(tok[1], "replace") == 0)
			c->id = CMD_ROUTE_REPLACE;
		else if (strcmp(tok[1], "del") == 0)
			c->id = CMD_ROUTE_DEL;
		else
			return ERR("unknown route command '%s' (expected add, replace or del)",
				   tok[1]);
		if (parse_prefix(n > 2 ? tok[2] : NULL, &c->route.prefix, err, errlen) != 0)
			return -EINVAL;
		c->prefix = c->route.prefix;
		if (c->id == CMD_ROUTE_DEL)
			return expect_end(tok, n, 3, err, errlen);
		return parse_route_target(tok + 3, n - 3, &c->route, err, errlen);
	}
	if (strcmp(tok[0], "neigh") == 0) {
		if (n < 2)
			return ERR("usage: neigh add|del ADDR ...");
		if (strcmp(tok[1], "add") == 0) {
			c->id = CMD_NEIGH_ADD;
			if (parse_addr(n > 2 ? tok[2] : NULL, &c->addr, err, errlen) != 0)
				return -EINVAL;
			if (n < 5 || strcmp(tok[3], "lladdr") != 0)
				return ERR("usage: neigh add ADDR lladdr MAC port N");
			if (rte_ether_unformat_addr(tok[4], &c->mac) != 0)
				return ERR("bad MAC address '%s'", tok[4]);
			if (!rte_is_valid_assigned_ether_addr(&c->mac))
				return ERR("MAC %s is not a unicast address", tok[4]);
			if (n < 7 || strcmp(tok[5], "port") != 0)
				return ERR("missing 'port N' (neigh add ADDR lladdr MAC port N)");
			if (parse_port(tok[6], &c->port, err, errlen) != 0)
				return -EINVAL;
			return expect_end(tok, n, 7, err, errlen);
		}
		if (strcmp(tok[1], "del") == 0) {
			c->id = CMD_NEIGH_DEL;
			if (parse_addr(n > 2 ? tok[2] : NULL, &c->addr, err, errlen) != 0)
				return -EINVAL;
			if (n < 5 || strcmp(tok[3], "port") != 0)
				return ERR("missing 'port N' (neigh del ADDR port N)");
			if (parse_port(tok[4], &c->port, err, errlen) != 0)
				return -EINVAL;
			return expect_end(tok, n, 5, err, errlen);
		}
		return ERR("unknown neigh command '%s' (expected add or del)", tok[1]);
	}
	if (strcmp(tok[0], "show") == 0) {
		if (n < 2)
			return ERR("usage: show route|neigh|stats|port|version");
		if (strcmp(tok[1], "route") == 0) {
			c->id = CMD_SHOW_ROUTE;
			if (n > 2 && strcmp(tok[2], "lookup") == 0) {
				c->id = CMD_SHOW_ROUTE_LOOKUP;
				if (parse_addr(n > 3 ? tok[3] : NULL, &c->addr, err, errlen) != 0)
					return -EINVAL;
				return expect_end(tok, n, 4, err, errlen);
			}
			if (n > 2) {
				c->has_arg = true;
				if (parse_prefix(tok[2], &c->prefix, err, errlen) != 0)
					return -EINVAL;
			}
			return expect_end(tok, n, 3, err, errlen);
		}
		if (strcmp(tok[1], "neigh") == 0) {
			c->id = CMD_SHOW_NEIGH;
			return expect_end(tok, n, 2, err, errlen);
		}
		if (strcmp(tok[1], "stats") == 0) {
			c->id = CMD_SHOW_STATS;
			if (n > 2 && strcmp(tok[2], "lcores") == 0) {
				c->all = true;
				return expect_end(tok, n, 3, err, errlen);
			}
			return expect_end(tok, n, 2, err, errlen);
		}
		if (strcmp(tok[1], "port") == 0) {
			if (n < 3)
				return ERR("usage: show port info|stats [N|all]");
			if (strcmp(tok[2], "info") == 0)
				c->id = CMD_SHOW_PORT_INFO;
			else if (strcmp(tok[2], "stats") == 0)
				c->id = CMD_SHOW_PORT_STATS;
			else
				return ERR("unknown 'show port %s' (expected info or stats)",
					   tok[2]);
			c->all = true;
			if (n > 3 && strcmp(tok[3], "all") != 0) {
				c->all = false;
				if (parse_port(tok[3], &c->port, err, errlen) != 0)
					return -EINVAL;
			}
			return expect_end(tok, n, 4, err, errlen);
		}
		if (strcmp(tok[1], "version") == 0) {
			c->id = CMD_SHOW_VERSION;
			return expect_end(tok, n, 2, err, errlen);
		}
		return ERR("unknown 'show %s' (expected route, neigh, stats, port or version)",
			   tok[1]);
	}
	if (strcmp(tok[0], "clear") == 0) {
		if (n < 2 || strcmp(tok[1], "stats") != 0)
			return ERR("usage: clear stats");
		c->id = CMD_CLEAR_STATS;
		return expect_end(tok, n, 2, err, errlen);
	}
	if (strcmp(tok[0], "help") == 0) {
		c->id = CMD_HELP;
		if (n > 1)
			snprintf(c->topic, sizeof(c->topic), "%s", tok[1]);
		return 0;
	}
	if (strcmp(tok[0], "quit") == 0 || strcmp(tok[0], "exit") == 0) {
		c->id = CMD_QUIT;
		return expect_end(tok, n, 1, err, errlen);
	}
	return ERR("unknown command '%s' ('help' lists the commands)", tok[0]);
}

/* ---- transactions ------------------------------------------------------ */

enum undo_op {
	UNDO_ROUTE_DEL,	    /* a route was added: delete it */
	UNDO_ROUTE_RESTORE, /* a route was deleted or replaced: put the old one back */
	UNDO_NEIGH_DEL,	    /* a static neighbour was created: delete it */
	UNDO_NEIGH_SET,	    /* a static neighbour was changed or deleted: set it back */
	UNDO_ADDR_DEL,	    /* a port address was added: forget it */
	UNDO_ADDR_ADD,	    /* a port address was removed: remember it */
};

struct undo {
	enum undo_op op;
	struct fib_route route;
	struct fr_addr addr;
	uint16_t port;
	struct rte_ether_addr mac;
	struct port_addr pa;
};

struct txn {
	struct router *r;
	struct undo *u;
	size_t n, cap;
	bool failed; /* journal could not grow: refuse further changes */
};

struct txn *txn_begin(struct router *r)
{
	struct txn *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->r = r;
	/* the whole transaction becomes one FIB generation */
	fib_batch_begin(r->fib);
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
	fib_batch_end(t->r->fib);
	free(t->u);
	free(t);
}

void txn_commit(struct txn *t)
{
	if (t != NULL)
		txn_end(t);
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

void txn_rollback(struct txn *t)
{
	struct router *r;
	int rc = 0;

	if (t == NULL)
		return;
	r = t->r;
	while (t->n > 0) {
		struct undo *u = &t->u[--t->n];
		struct fib_route rt;

		switch (u->op) {
		case UNDO_ROUTE_DEL:
			rc = fib_route_del(r->fib, &u->route.prefix, NULL);
			break;
		case UNDO_ROUTE_RESTORE:
			rt = u->route;
			rc = fib_route_replace(r->fib, &rt, NULL);
			break;
		case UNDO_NEIGH_DEL:
			rc = neigh_del(r->neigh, &u->addr, u->port);
			break;
		case UNDO_NEIGH_SET:
			rc = neigh_static_set(r->neigh, &u->addr, u->port, &u->mac);
			break;
		case UNDO_ADDR_DEL:
			port_addr_remove(&r->ports[u->port], &u->pa);
			break;
		case UNDO_ADDR_ADD:
			r->ports[u->port].addrs[r->ports[u->port].nb_addrs++] = u->pa;
			break;
		}
		if (rc != 0)
			fprintf(stderr, "fastroute: rollback step %d failed: %s\n", (int)u->op,
				strerror(-rc));
	}
	txn_end(t);
}

/* ---- changes, each journaled ---------------------------------------- */

static int route_err(const struct fib_route *rt, int rc, char *err, size_t errlen)
{
	char p[FR_ADDR_STRLEN], g[FR_ADDR_STRLEN];

	fr_prefix_fmt(&rt->prefix, p, sizeof(p));
	fr_addr_fmt(&rt->gw, g, sizeof(g));
	switch (rc) {
	case -EEXIST:
		return ERRC(-EEXIST, "route %s exists (use 'route replace' to change it)", p);
	case -ENETUNREACH:
		return ERRC(-ENETUNREACH,
			    "gateway %s is not on a connected network (add a port address "
			    "covering it first, or give 'port N')",
			    g);
	case -EINVAL:
		if (rt->type == FIB_NH_GATEWAY)
			return ERR("gateway %s is an address of this router", g);
		return ERR("invalid route %s", p);
	case -ENOSPC:
		return ERRC(-ENOSPC,
			    "no room for %s: route or next-hop table full (see --max-routes, "
			    "--tbl8, --max-nexthops)",
			    p);
	case -EAFNOSUPPORT:
		return ERRC(-EAFNOSUPPORT, "%s: IPv6 is not supported yet", p);
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
		return route_err(rt, rc, err, errlen);
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
		return route_err(rt, rc, err, errlen);
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
			fib_route_replace(t->r->fib, &old, NULL);
		return ERRC(-ENOMEM, "out of memory");
	}
	return 0;
}

static int t_route_del(struct txn *t, const struct fr_prefix *p, char *err, size_t errlen)
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
		return route_err(&old, rc, err, errlen);
	}
	u.route = old;
	if (journal(t, &u) != 0) {
		fib_route_replace(t->r->fib, &old, NULL);
		return ERRC(-ENOMEM, "out of memory");
	}
	return 0;
}

static int check_port(const struct router *r, uint32_t port, char *err, size_t errlen)
{
	if (router_port_ok(r, port))
		return 0;
	if (r->nb_ports == 0)
		return ERRC(-ENODEV, "port %u does not exist (the router has no ports)", port);
	return ERRC(-ENODEV, "port %u does not exist (ports are 0-%u)", port, r->nb_ports - 1);
}

/* Routes a port address installs: local /32, connected subnet, subnet broadcast. */
static int addr_routes(const struct port_addr *pa, uint16_t port, struct fib_route *rts)
{
	int n = 0;

	memset(rts, 0, 3 * sizeof(*rts));
	rts[n].prefix.addr = pa->addr;
	rts[n].prefix.len = 32;
	rts[n].type = FIB_NH_LOCAL;
	rts[n].port = port;
	rts[n++].origin = FIB_ORIGIN_PORT;
	if (pa->len < 32) {
		rts[n].prefix.addr = pa->addr;
		fr_addr_mask(&rts[n].prefix.addr, pa->len);
		rts[n].prefix.len = pa->len;
		rts[n].type = FIB_NH_CONNECTED;
		rts[n].port = port;
		rts[n++].origin = FIB_ORIGIN_PORT;
	}
	if (pa->len <= 30) { /* RFC 3021: /31 has no broadcast address */
		rts[n].prefix.addr = fr_addr4(pa->addr.v4 | (UINT32_MAX >> pa->len));
		rts[n].prefix.len = 32;
		rts[n].type = FIB_NH_BROADCAST;
		rts[n].port = port;
		rts[n++].origin = FIB_ORIGIN_PORT;
	}
	return n;
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

static int exec_addr_add(struct txn *t, const struct cmd *c, char *err, size_t errlen)
{
	struct router *r = t->r;
	struct fr_port *p;
	struct port_addr pa;
	struct fib_route rts[3];
	char buf[FR_ADDR_STRLEN];
	struct undo u = {.op = UNDO_ADDR_DEL};
	uint32_t a, net, bcast;
	int i, n, rc, owner;

	rc = check_port(r, c->port, err, errlen);
	if (rc != 0)
		return rc;
	p = &r->ports[c->port];
	pa.addr = c->prefix.addr;
	pa.len = c->prefix.len;
	fr_prefix_fmt(&c->prefix, buf, sizeof(buf));
	if (pa.addr.family != AF_INET)
		return ERRC(-EAFNOSUPPORT, "%s: IPv6 is not supported yet", buf);
	a = pa.addr.v4;
	if ((a >> 24) == 0 || (a >> 24) == 127 || (a >> 28) >= 14)
		return ERR("%s is not a unicast host address", buf);
	net = pa.len ? a & (UINT32_MAX << (32 - pa.len)) : 0;
	bcast = a | (pa.len ? UINT32_MAX >> pa.len : UINT32_MAX);
	if (pa.len <= 30 && (a == net || a == bcast))
		return ERR("%s is the %s address of its subnet", buf,
			   a == net ? "network" : "broadcast");
	owner = find_addr_owner(r, &pa.addr);
	if (owner >= 0)
		return ERRC(-EEXIST, "address %s is already on port %d",
			    fr_addr_fmt(&pa.addr, buf, sizeof(buf)), owner);
	if (p->nb_addrs >= FR_PORT_MAX_ADDRS)
		return ERRC(-ENOSPC, "port %u has %d addresses already (the maximum)", c->port,
			    FR_PORT_MAX_ADDRS);
	n = addr_routes(&pa, (uint16_t)c->port, rts);
	for (i = 0; i < n; i++) {
		rc = t_route_add(t, &rts[i], err, errlen);
		if (rc != 0)
			return rc; /* earlier routes are in the journal */
	}
	u.port = (uint16_t)c->port;
	u.pa = pa;
	if (journal(t, &u) != 0)
		return ERRC(-ENOMEM, "out of memory");
	p->addrs[p->nb_addrs++] = pa;
	return 0;
}

static int exec_addr_del(struct txn *t, const struct cmd *c, char *err, size_t errlen)
{
	struct router *r = t->r;
	struct fr_port *p;
	struct port_addr pa;
	struct fib_route rts[3], cur;
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
		    cur.origin != FIB_ORIGIN_PORT)
			continue;
		rc = t_route_del(t, &rts[j].prefix, err, errlen);
		if (rc != 0)
			return rc;
	}
	u.port = (uint16_t)c->port;
	u.pa = pa;
	if (journal(t, &u) != 0)
		return ERRC(-ENOMEM, "out of memory");
	port_addr_remove(p, &pa);
	return 0;
}

static int exec_route(struct txn *t, const struct cmd *c, char *err, size_t errlen)
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
	/* routes a port address installed belong to that address */
	if (c->id != CMD_ROUTE_ADD && fib_route_get(r->fib, &c->prefix, &cur) == 0 &&
	    cur.origin != FIB_ORIGIN_STATIC)
		return ERRC(-EPERM,
			    "route %s was installed by %s; it cannot be changed by route commands",
			    fr_prefix_fmt(&c->prefix, buf, sizeof(buf)),
			    cur.origin == FIB_ORIGIN_PORT ? "a port address" : "the router");
	switch (c->id) {
	case CMD_ROUTE_ADD:
		return t_route_add(t, &rt, err, errlen);
	case CMD_ROUTE_REPLACE:
		return t_route_replace(t, &rt, err, errlen);
	default:
		return t_route_del(t, &c->prefix, err, errlen);
	}
}

static int exec_neigh(struct txn *t, const struct cmd *c, char *err, size_t errlen)
{
	struct router *r = t->r;
	struct neigh_info ni;
	char buf[FR_ADDR_STRLEN];
	struct undo u;
	bool had;
	int rc;

	rc = check_port(r, c->port, err, errlen);
	if (rc != 0)
		return rc;
	if (c->addr.family != AF_INET)
		return ERRC(-EAFNOSUPPORT, "IPv6 neighbours are not supported yet");
	if (t->failed)
		return ERRC(-ENOMEM, "out of memory");
	memset(&u, 0, sizeof(u));
	u.addr = c->addr;
	u.port = (uint16_t)c->port;
	had = neigh_get(r->neigh, &c->addr, (uint16_t)c->port, &ni) == 0 && ni.configured;
	if (had)
		u.mac = ni.mac;
	fr_addr_fmt(&c->addr, buf, sizeof(buf));
	if (c->id == CMD_NEIGH_ADD) {
		rc = neigh_static_set(r->neigh, &c->addr, (uint16_t)c->port, &c->mac);
		if (rc == -ENOSPC)
			return ERRC(rc, "neighbour table full (see --neigh-size)");
		if (rc != 0)
			return ERRC(rc, "neigh %s: %s", buf, strerror(-rc));
		u.op = had ? UNDO_NEIGH_SET : UNDO_NEIGH_DEL;
	} else {
		if (!had)
			return ERRC(-ENOENT, "no static neighbour %s on port %u", buf, c->port);
		rc = neigh_del(r->neigh, &c->addr, (uint16_t)c->port);
		if (rc != 0)
			return ERRC(rc, "neigh %s: %s", buf, strerror(-rc));
		u.op = UNDO_NEIGH_SET;
	}
	if (journal(t, &u) != 0)
		return ERRC(-ENOMEM, "out of memory");
	return 0;
}

/* ---- show ------------------------------------------------------------- */

static void route_line(struct cmd_out *o, const struct fib_route *rt)
{
	char p[FR_ADDR_STRLEN], g[FR_ADDR_STRLEN], port[8];

	fr_prefix_fmt(&rt->prefix, p, sizeof(p));
	if (rt->type == FIB_NH_GATEWAY)
		fr_addr_fmt(&rt->gw, g, sizeof(g));
	else
		snprintf(g, sizeof(g), "-");
	if (rt->port == FIB_PORT_NONE)
		snprintf(port, sizeof(port), "-");
	else
		snprintf(port, sizeof(port), "%u", rt->port);
	out_printf(o, "%-20s %-12s %-18s %-5s %s\n", p, fib_nh_type_names[rt->type], g, port,
		   fib_origin_names[rt->origin]);
}

struct route_list {
	struct fib_route *v;
	size_t n, cap;
};

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
	l->v[l->n++] = *rt;
	return 0;
}

/* address order, then shorter prefixes first: what 'ip route' users expect */
static int route_cmp(const void *a, const void *b)
{
	const struct fib_route *x = a, *y = b;

	if (x->prefix.addr.v4 != y->prefix.addr.v4)
		return x->prefix.addr.v4 < y->prefix.addr.v4 ? -1 : 1;
	return (int)x->prefix.len - (int)y->prefix.len;
}

/* Every IPv4 route, sorted. The caller frees l->v. */
static int route_list_get(struct router *r, struct route_list *l)
{
	memset(l, 0, sizeof(*l));
	if (fib_route_walk(r->fib, AF_INET, route_collect_cb, l) != 0) {
		free(l->v);
		return -ENOMEM;
	}
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), route_cmp);
	return 0;
}

static void route_header(struct cmd_out *o)
{
	out_printf(o, "%-20s %-12s %-18s %-5s %s\n", "Prefix", "Type", "Gateway", "Port", "Origin");
}

static int show_route(struct router *r, const struct cmd *c, struct cmd_out *o, char *err,
		      size_t errlen)
{
	struct fib_route rt;
	char buf[FR_ADDR_STRLEN];

	if (c->has_arg) {
		if (fib_route_get(r->fib, &c->prefix, &rt) != 0)
			return ERRC(-ENOENT, "no route %s",
				    fr_prefix_fmt(&c->prefix, buf, sizeof(buf)));
		route_header(o);
		route_line(o, &rt);
		return 0;
	}
	struct route_list l;
	size_t i;

	if (route_list_get(r, &l) != 0)
		return ERRC(-ENOMEM, "out of memory");
	route_header(o);
	for (i = 0; i < l.n; i++)
		route_line(o, &l.v[i]);
	free(l.v);
	return 0;
}

static int show_lookup(struct router *r, const struct cmd *c, struct cmd_out *o, char *err,
		       size_t errlen)
{
	struct fib_route rt;
	char a[FR_ADDR_STRLEN];

	fr_addr_fmt(&c->addr, a, sizeof(a));
	if (c->addr.family != AF_INET)
		return ERRC(-EAFNOSUPPORT, "IPv6 lookups are not supported yet");
	if (fib_route_lookup(r->fib, &c->addr, &rt) != 0) {
		out_printf(o, "%s: no route (packets are dropped as no_route)\n", a);
		return 0;
	}
	out_printf(o, "%s via route:\n", a);
	route_header(o);
	route_line(o, &rt);
	return 0;
}

static int neigh_line_cb(const struct neigh_info *ni, void *arg)
{
	struct cmd_out *o = arg;
	char a[FR_ADDR_STRLEN], m[RTE_ETHER_ADDR_FMT_SIZE];

	fr_addr_fmt(&ni->addr, a, sizeof(a));
	if (ni->state == NEIGH_S_NONE || ni->state == NEIGH_S_INCOMPLETE ||
	    ni->state == NEIGH_S_FAILED)
		snprintf(m, sizeof(m), "-");
	else
		rte_ether_format_addr(m, sizeof(m), &ni->mac);
	out_printf(o, "%-18s %-5u %-18s %-11s %-10u %u\n", a, ni->port, m,
		   neigh_state_names[ni->state], ni->gen, ni->refcnt);
	return 0;
}

static int show_neigh(struct router *r, struct cmd_out *o)
{
	out_printf(o, "%-18s %-5s %-18s %-11s %-10s %s\n", "Address", "Port", "MAC", "State",
		   "Generation", "Refs");
	neigh_walk(r->neigh, neigh_line_cb, o);
	return 0;
}

void router_stats_sum(const struct router *r, struct dp_stats *sum)
{
	unsigned int w, i;

	memset(sum, 0, sizeof(*sum));
	for (w = 0; w < r->nb_workers; w++) {
		const struct dp_stats *s = &r->workers[w]->st;

		sum->rx += s->rx;
		sum->tx += s->tx;
		sum->to_control += s->to_control;
		sum->ctrl_tx += s->ctrl_tx;
		sum->busy_cycles += s->busy_cycles;
		sum->busy_polls += s->busy_polls;
		sum->idle_polls += s->idle_polls;
		for (i = 0; i < DROP_MAX; i++)
			sum->drop[i] += s->drop[i];
	}
}

void router_stats_clear(struct router *r)
{
	unsigned int w;

	/* Workers write their own counters without atomics; a clear racing an
	 * increment may lose that one increment, never corrupt the counter. */
	for (w = 0; w < r->nb_workers; w++)
		memset(&r->workers[w]->st, 0, sizeof(r->workers[w]->st));
	memset(&r->cst, 0, sizeof(r->cst));
}

static uint64_t drops_total(const struct dp_stats *s)
{
	uint64_t t = 0;
	unsigned int i;

	for (i = 0; i < DROP_MAX; i++)
		t += s->drop[i];
	return t;
}

#define KV(name, val) out_printf(o, "  %-22s %" PRIu64 "\n", name, (uint64_t)(val))

static int show_stats(struct router *r, const struct cmd *c, struct cmd_out *o)
{
	struct dp_stats s;
	unsigned int i, w;

	router_stats_sum(r, &s);
	if (c->all) {
		out_printf(o, "%-22s", "counter");
		for (w = 0; w < r->nb_workers; w++)
			out_printf(o, " %14s%-4u", "lcore", r->workers[w]->lcore);
		out_printf(o, " %18s\n", "total");
#define ROW(label, field)                                                      \
	do {                                                                   \
		out_printf(o, "%-22s", label);                                 \
		for (w = 0; w < r->nb_workers; w++)                            \
			out_printf(o, " %18" PRIu64, r->workers[w]->st.field); \
		out_printf(o, " %18" PRIu64 "\n", s.field);                    \
	} while (0)
		ROW("rx", rx);
		ROW("tx", tx);
		ROW("to_control", to_control);
		ROW("ctrl_tx", ctrl_tx);
		ROW("busy_cycles", busy_cycles);
		ROW("busy_polls", busy_polls);
		for (i = 0; i < DROP_MAX; i++)
			ROW(dp_drop_names[i], drop[i]);
#undef ROW
		return 0;
	}
	out_printf(o, "workers: %u\n", r->nb_workers);
	KV("rx", s.rx);
	KV("forwarded", s.tx - s.ctrl_tx);
	KV("tx", s.tx);
	KV("to_control", s.to_control);
	KV("ctrl_tx", s.ctrl_tx);
	KV("dropped", drops_total(&s));
	KV("busy_cycles", s.busy_cycles);
	KV("busy_polls", s.busy_polls);
	KV("idle_polls", s.idle_polls);
	out_printf(o, "  %-22s %.1f\n", "busy_cycles_per_pkt",
		   s.rx ? (double)s.busy_cycles / (double)s.rx : 0.0);
	out_printf(o, "drops:\n");
	for (i = 0; i < DROP_MAX; i++)
		KV(dp_drop_names[i], s.drop[i]);
	out_printf(o, "control:\n");
	KV("ctrl_rx", r->cst.rx);
	KV("arp_rx", r->cst.arp_rx);
	KV("arp_replies", r->cst.arp_replies);
	KV("ctrl_sent", r->cst.tx);
	out_printf(o, "control drops:\n");
	for (i = 0; i < CDROP_MAX; i++)
		KV(ctrl_drop_names[i], r->cst.drop[i]);
	return 0;
}

static int show_port(struct router *r, const struct cmd *c, struct cmd_out *o, char *err,
		     size_t errlen)
{
	uint16_t pid, first = 0, last = (uint16_t)(r->nb_ports ? r->nb_ports - 1 : 0);
	int rc;

	if (!c->all) {
		rc = check_port(r, c->port, err, errlen);
		if (rc != 0)
			return rc;
		first = last = (uint16_t)c->port;
	}
	for (pid = first; pid <= last && pid < r->nb_ports; pid++) {
		const struct fr_port *p = &r->ports[pid];
		char mac[RTE_ETHER_ADDR_FMT_SIZE], a[FR_ADDR_STRLEN];
		unsigned int i;

		if (!p->present)
			continue;
		out_printf(o, "port %u (%s)\n", pid, p->name);
		if (c->id == CMD_SHOW_PORT_INFO) {
			struct rte_eth_link link;

			rte_ether_format_addr(mac, sizeof(mac), &r->dp_ports[pid].mac);
			out_printf(o, "  mac %s\n  socket %d\n  queues rx %u tx %u\n", mac,
				   p->socket, p->nb_rxq, p->nb_txq);
			if (p->started && rte_eth_link_get_nowait(pid, &link) == 0)
				out_printf(o, "  link %s %u Mbps\n",
					   link.link_status ? "up" : "down", link.link_speed);
			for (i = 0; i < p->nb_addrs; i++) {
				fr_addr_fmt(&p->addrs[i].addr, a, sizeof(a));
				out_printf(o, "  address %s/%u\n", a, p->addrs[i].len);
			}
		} else {
			struct rte_eth_stats es;
			struct rte_eth_xstat_name *names = NULL;
			struct rte_eth_xstat *xs = NULL;
			int nx;

			if (!p->started || rte_eth_stats_get(pid, &es) != 0) {
				out_printf(o, "  (not started)\n");
				continue;
			}
			KV("rx_packets", es.ipackets);
			KV("rx_bytes", es.ibytes);
			KV("rx_missed", es.imissed);
			KV("rx_errors", es.ierrors);
			KV("rx_nombuf", es.rx_nombuf);
			KV("tx_packets", es.opackets);
			KV("tx_bytes", es.obytes);
			KV("tx_errors", es.oerrors);
			nx = rte_eth_xstats_get_names(pid, NULL, 0);
			if (nx > 0) {
				names = calloc((size_t)nx, sizeof(*names));
				xs = calloc((size_t)nx, sizeof(*xs));
			}
			if (names && xs &&
			    rte_eth_xstats_get_names(pid, names, (unsigned)nx) == nx &&
			    rte_eth_xstats_get(pid, xs, (unsigned)nx) == nx) {
				out_printf(o, "  xstats:\n");
				for (i = 0; i < (unsigned)nx; i++)
					out_printf(o, "    %-32s %" PRIu64 "\n",
						   names[xs[i].id].name, xs[i].value);
			}
			free(names);
			free(xs);
		}
	}
	return 0;
}

/* ---- dispatch ---------------------------------------------------------- */

static bool cmd_is_config(enum cmd_id id)
{
	return id <= CMD_NEIGH_DEL;
}

int cmd_exec(struct router *r, struct txn *t, const struct cmd *c, enum cmd_src src,
	     struct cmd_out *o, char *err, size_t errlen)
{
	if (src == CMD_SRC_FILE && !cmd_is_config(c->id))
		return ERR("'%s' is not a configuration command", c->id == CMD_QUIT ? "quit"
								  : c->id == CMD_HELP
									  ? "help"
									  : "show/clear");
	switch (c->id) {
	case CMD_PORT_ADDR_ADD:
		return exec_addr_add(t, c, err, errlen);
	case CMD_PORT_ADDR_DEL:
		return exec_addr_del(t, c, err, errlen);
	case CMD_ROUTE_ADD:
	case CMD_ROUTE_REPLACE:
	case CMD_ROUTE_DEL:
		return exec_route(t, c, err, errlen);
	case CMD_NEIGH_ADD:
	case CMD_NEIGH_DEL:
		return exec_neigh(t, c, err, errlen);
	case CMD_SHOW_ROUTE:
		return show_route(r, c, o, err, errlen);
	case CMD_SHOW_ROUTE_LOOKUP:
		return show_lookup(r, c, o, err, errlen);
	case CMD_SHOW_NEIGH:
		return show_neigh(r, o);
	case CMD_SHOW_STATS:
		return show_stats(r, c, o);
	case CMD_CLEAR_STATS:
		router_stats_clear(r);
		return 0;
	case CMD_SHOW_PORT_INFO:
	case CMD_SHOW_PORT_STATS:
		return show_port(r, c, o, err, errlen);
	case CMD_SHOW_VERSION:
		out_printf(o, "fastroute %s (%s, FIB backend %s)\n", FASTROUTE_VERSION,
			   rte_version(), fib_backend_name(r->fib));
		return 0;
	case CMD_HELP:
		cmd_help(o, c->topic[0] ? c->topic : NULL);
		return 0;
	case CMD_QUIT:
		o->quit = true;
		return 0;
	default:
		return ERR("command not implemented");
	}
}

int cmd_run_line(struct router *r, const char *line, struct cmd_out *o)
{
	char err[CMD_ERR_LEN];
	struct cmd c;
	struct txn *t;
	int rc;

	rc = cmd_parse(line, &c, err, sizeof(err));
	if (rc == -ENODATA)
		return 0;
	if (rc != 0) {
		out_printf(o, "error: %s\n", err);
		return rc;
	}
	t = txn_begin(r);
	if (t == NULL) {
		out_printf(o, "error: out of memory\n");
		return -ENOMEM;
	}
	rc = cmd_exec(r, t, &c, CMD_SRC_CLI, o, err, sizeof(err));
	if (rc != 0) {
		txn_rollback(t);
		out_printf(o, "error: %s\n", err);
		return rc;
	}
	txn_commit(t);
	return 0;
}
