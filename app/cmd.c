/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command parser and dispatcher. One table holds every command: its fixed
 * words ('*' is the port number in "port * address"), the parser of its
 * arguments, its usage and help. The same table drives parsing, 'help',
 * error messages that list what was expected, and CLI completion.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_priv.h"
#include "ip4.h"

typedef int (*args_fn)(char **tok, int n, struct cmd *c, char *err, size_t errlen);

/* ---- argument parsers -------------------------------------------------- */

/* @s digits with a leading zero ("010"): 8 to tools that take it for
 * octal (iproute2's mtu), as in dotted quads and prefix lengths
 * (zero_hint()), so never read */
static bool leading_zero(const char *s)
{
	return s[0] == '0' && s[1] != '\0' && s[strspn(s, "0123456789")] == '\0';
}

/* A number in @min-@max: the setting @what (NULL: none named) it is for
 * named in the error */
static int parse_u32(const char *what, const char *s, uint32_t min, uint32_t max, uint32_t *v,
		     char *err, size_t errlen)
{
	char *end;
	unsigned long x;

	if (s == NULL)
		return what != NULL ? ERR("%s: missing number (%u-%u)", what, min, max)
				    : ERR("missing number");
	errno = 0;
	x = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno || x < min || x > max)
		return what != NULL ? ERR("%s: '%s' is not a number in %u-%u", what, s, min, max)
				    : ERR("'%s' is not a number in %u-%u", s, min, max);
	if (leading_zero(s))
		return what != NULL
			       ? ERR("%s: '%s' has a leading zero (octal to some tools)", what, s)
			       : ERR("'%s' has a leading zero (octal to some tools)", s);
	*v = (uint32_t)x;
	return 0;
}

static int parse_port(const char *s, uint32_t *port, char *err, size_t errlen)
{
	if (s == NULL)
		return ERR("missing port number");
	if (parse_u32(NULL, s, 0, FIB_PORT_NONE - 1, port, err, errlen) != 0)
		return leading_zero(s)
			       ? ERR("bad port number '%s': a leading zero (octal to some tools)",
				     s)
			       : ERR("bad port number '%s'", s);
	return 0;
}

/* Why dotted-quad @s (up to a '/') or the prefix length after it was
 * refused, if for a leading zero: "" or the reason, to follow an error that
 * quotes it */
static const char *zero_hint(const char *s)
{
	unsigned int parts = 1, digits = 0;
	bool zero = false;

	/* four parts of 1 to 3 digits, one of them 0 then more */
	for (; *s != '\0' && *s != '/'; s++) {
		if (*s == '.') {
			if (digits == 0)
				return "";
			parts++;
			digits = 0;
			continue;
		}
		if (*s < '0' || *s > '9' || ++digits > 3)
			return "";
		zero |= digits == 1 && *s == '0' && s[1] >= '0' && s[1] <= '9';
	}
	if (parts != 4 || digits == 0 || !zero)
		return "";
	return " (an IPv4 octet with a leading zero, octal to some tools, is refused)";
}

/* zero_hint() for ADDR/LEN @s, its length too: refused for a leading zero
 * where the address before it is good */
static const char *prefix_zero_hint(const char *s)
{
	const char *slash = strchr(s, '/');
	char addr[FR_ADDR_STRLEN];
	struct fr_addr a;

	if (slash != NULL && slash[1] == '0' && slash[2] >= '0' && slash[2] <= '9' &&
	    strspn(slash + 1, "0123456789") == strlen(slash + 1) &&
	    (size_t)(slash - s) < sizeof(addr)) {
		memcpy(addr, s, (size_t)(slash - s));
		addr[slash - s] = '\0';
		if (fr_addr_parse(addr, &a) == 0)
			return " (a prefix length with a leading zero, octal to some tools, is "
			       "refused)";
	}
	return zero_hint(s);
}

static int parse_addr(const char *s, struct fr_addr *a, char *err, size_t errlen)
{
	if (s == NULL)
		return ERR("missing address");
	if (fr_addr_parse(s, a) != 0)
		return ERR("bad address '%s'%s", s, zero_hint(s));
	return 0;
}

static bool addr_is_zero(const struct fr_addr *a)
{
	static const uint8_t zero[16];

	return a->family == AF_INET ? a->v4 == 0 : memcmp(a->v6, zero, 16) == 0;
}

/* A prefix as a route key: must be canonical. A bare address is a host
 * route (but 0.0.0.0 and ::). */
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
		if (strchr(s, '/') == NULL && fr_addr_parse(s, &p->addr) == 0) {
			p->len = (uint8_t)fr_family_bits(p->addr.family);
			/* 'route add 0.0.0.0 via ...' means a default route
			 * to those used to 'ip route 0.0.0.0 0.0.0.0': as a
			 * host route it would never be used */
			if (addr_is_zero(&p->addr))
				return ERR("a bare '%s' is the host route %s/%u, which nothing is "
					   "forwarded to: write %s/0 for the default route, or "
					   "%s/%u if that host route is what you mean",
					   s, s, p->len, s, s, p->len);
			return 0;
		}
		return ERR("bad prefix '%s' (expected ADDR/LEN)%s", s, prefix_zero_hint(s));
	}
	return 0;
}

static int expect_end(char **tok, int n, int i, char *err, size_t errlen)
{
	if (i < n)
		return ERR("unexpected '%s'", tok[i]);
	return 0;
}

static int a_none(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	(void)c;
	return expect_end(tok, n, 0, err, errlen);
}

static int a_ifaddr(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	int rc;

	if (n < 1)
		return ERR("missing address (port N address [add|del] ADDR/LEN)");
	rc = fr_prefix_parse(tok[0], &c->prefix, false);
	if (rc == -ERANGE)
		return ERR("prefix length out of range in '%s' (0-%u)", tok[0],
			   fr_family_bits(c->prefix.addr.family));
	if (rc != 0)
		return ERR("bad interface address '%s' (expected ADDR/LEN)%s", tok[0],
			   prefix_zero_hint(tok[0]));
	return expect_end(tok, n, 1, err, errlen);
}

static int a_prefix(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (parse_prefix(n > 0 ? tok[0] : NULL, &c->prefix, err, errlen) != 0)
		return -EINVAL;
	c->route.prefix = c->prefix;
	return expect_end(tok, n, 1, err, errlen);
}

/* PREFIX via GW [port N] [weight W] ... | PREFIX dev N | PREFIX
 * blackhole|unreachable|prohibit */
static int a_route(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	struct fib_route *r = &c->route;
	uint32_t port, w, sum = 0;
	bool weighted = false;
	int i;

	if (parse_prefix(n > 0 ? tok[0] : NULL, &c->prefix, err, errlen) != 0)
		return -EINVAL;
	r->prefix = c->prefix;
	r->port = FIB_PORT_NONE;
	r->origin = FIB_ORIGIN_STATIC;
	if (n < 2)
		return ERR("missing 'via GW', 'dev N' or a route type");
	if (strcmp(tok[1], "via") == 0) {
		/* via GW [port N], once or (multipath) more, each with its weight */
		for (i = 1; i < n && strcmp(tok[i], "via") == 0;) {
			struct fib_mp_member *g = &c->mp[c->nmp];
			const char *gw_word;

			if (c->nmp == FIB_MP_MAX)
				return ERR("more than %u gateways (a multipath route has at most "
					   "%u)",
					   FIB_MP_MAX, FIB_MP_MAX);
			g->port = FIB_PORT_NONE;
			if (parse_addr(i + 1 < n ? tok[i + 1] : NULL, &g->gw, err, errlen) != 0)
				return -EINVAL;
			if (g->gw.family != r->prefix.addr.family)
				return ERR("gateway %s is not of the prefix's address family",
					   tok[i + 1]);
			if (fr_addr_not_host(&g->gw) != NULL)
				return ERR("gateway %s is not a unicast host address (%s)",
					   tok[i + 1], fr_addr_not_host(&g->gw));
			i += 2;
			if (i < n && strcmp(tok[i], "port") == 0) {
				if (parse_port(i + 1 < n ? tok[i + 1] : NULL, &port, err, errlen) !=
				    0)
					return -EINVAL;
				g->port = (uint16_t)port;
				i += 2;
			}
			gw_word = tok[i - 1 - 2 * (g->port != FIB_PORT_NONE)];
			g->weight = 1;
			if (i < n && strcmp(tok[i], "weight") == 0) {
				if (parse_u32("weight", i + 1 < n ? tok[i + 1] : NULL, 1,
					      FIB_MP_BUCKETS, &w, err, errlen) != 0)
					return -EINVAL;
				g->weight = (uint8_t)w;
				weighted = true;
				i += 2;
			}
			/* iproute2's spellings, or the two in the other order:
			 * said what is meant */
			if (i < n && strcmp(tok[i], "dev") == 0)
				return ERR("unexpected 'dev': a gateway's port is 'via GW port N'");
			if (i < n && strcmp(tok[i], "port") == 0 && g->port != FIB_PORT_NONE)
				return ERR("'port' given twice for gateway %s", gw_word);
			if (i < n && strcmp(tok[i], "port") == 0)
				return ERR("unexpected 'port': it comes before the weight ('via GW "
					   "port N weight W')");
			sum += g->weight;
			c->nmp++;
		}
		if (weighted && c->nmp == 1)
			return ERR("a weight needs two or more gateways (a multipath route)");
		if (sum > FIB_MP_BUCKETS)
			return ERR("the gateways' weights add up to %u: at most %u", sum,
				   FIB_MP_BUCKETS);
		if (c->nmp == 1) {
			r->type = FIB_NH_GATEWAY;
			r->gw = c->mp[0].gw;
			r->port = c->mp[0].port;
			c->nmp = 0;
		} else {
			r->type = FIB_NH_MULTIPATH;
		}
		return expect_end(tok, n, i, err, errlen);
	}
	if (strcmp(tok[1], "dev") == 0 || strcmp(tok[1], "port") == 0) {
		r->type = FIB_NH_CONNECTED;
		if (parse_port(n > 2 ? tok[2] : NULL, &port, err, errlen) != 0)
			return -EINVAL;
		r->port = (uint16_t)port;
		return expect_end(tok, n, 3, err, errlen);
	}
	if (strcmp(tok[1], "blackhole") == 0)
		r->type = FIB_NH_BLACKHOLE;
	else if (strcmp(tok[1], "unreachable") == 0)
		r->type = FIB_NH_UNREACHABLE;
	else if (strcmp(tok[1], "prohibit") == 0)
		r->type = FIB_NH_PROHIBIT;
	else
		return ERR("unknown route target '%s' (expected via, dev, blackhole, unreachable "
			   "or prohibit)",
			   tok[1]);
	return expect_end(tok, n, 2, err, errlen);
}

/* ADDR lladdr MAC port N */
static int a_neigh_add(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (parse_addr(n > 0 ? tok[0] : NULL, &c->addr, err, errlen) != 0)
		return -EINVAL;
	if (fr_addr_not_host(&c->addr) != NULL)
		return ERR("neighbour %s is not a unicast host address (%s)", tok[0],
			   fr_addr_not_host(&c->addr));
	if (n < 3 || strcmp(tok[1], "lladdr") != 0)
		return ERR("usage: neigh add ADDR lladdr MAC port N");
	if (rte_ether_unformat_addr(tok[2], &c->mac) != 0)
		return ERR("bad MAC address '%s'", tok[2]);
	if (!rte_is_valid_assigned_ether_addr(&c->mac))
		return ERR("MAC %s is not a unicast address", tok[2]);
	if (n > 3 && strcmp(tok[3], "lladdr") == 0)
		return ERR("lladdr given twice");
	if (n < 5 || strcmp(tok[3], "port") != 0)
		return ERR("missing 'port N' (neigh add ADDR lladdr MAC port N)");
	if (parse_port(tok[4], &c->port, err, errlen) != 0)
		return -EINVAL;
	return expect_end(tok, n, 5, err, errlen);
}

/* ADDR port N */
static int a_neigh_del(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (parse_addr(n > 0 ? tok[0] : NULL, &c->addr, err, errlen) != 0)
		return -EINVAL;
	if (n < 3 || strcmp(tok[1], "port") != 0)
		return ERR("missing 'port N' (neigh del ADDR port N)");
	if (parse_port(tok[2], &c->port, err, errlen) != 0)
		return -EINVAL;
	return expect_end(tok, n, 3, err, errlen);
}

/* set neigh PARAM VALUE [PARAM VALUE ...] */
static const struct {
	const char *name;
	size_t off;
	uint32_t min, max;
} neigh_param_names[] = {
	{"reachable-time", offsetof(struct neigh_params, reachable_ms), 100, 3600000},
	{"retrans-time", offsetof(struct neigh_params, retrans_ms), 10, 60000},
	{"mcast-probes", offsetof(struct neigh_params, mcast_probes), 1, 100},
	{"ucast-probes", offsetof(struct neigh_params, ucast_probes), 1, 100},
	{"stale-time", offsetof(struct neigh_params, stale_ms), 100, 86400000},
	{"failed-time", offsetof(struct neigh_params, failed_ms), 0, 3600000},
	{"hold", offsetof(struct neigh_params, hold_pkts), 0, NEIGH_HOLD_MAX},
	{"hold-total", offsetof(struct neigh_params, hold_total), 0, 1u << 20},
	{"max-incomplete", offsetof(struct neigh_params, max_incomplete), 1, 1u << 24},
	{"delay-time", offsetof(struct neigh_params, delay_ms), 0, 3600000},
	{"lock-time", offsetof(struct neigh_params, lock_ms), 0, 60000},
};

static int a_neigh_params(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	int i;
	unsigned int k;

	if (n == 0)
		return ERR("usage: set neigh PARAM VALUE [PARAM VALUE ...]");
	for (i = 0; i < n; i += 2) {
		for (k = 0; k < RTE_DIM(neigh_param_names); k++)
			if (strcmp(tok[i], neigh_param_names[k].name) == 0)
				break;
		if (k == RTE_DIM(neigh_param_names))
			return ERR(
				"unknown neighbour parameter '%s' (reachable-time, retrans-time, "
				"mcast-probes, ucast-probes, stale-time, failed-time, hold, "
				"hold-total, max-incomplete, delay-time, lock-time)",
				tok[i]);
		if (c->nparams_set & (1u << k))
			return ERR("%s given twice", tok[i]);
		if (i + 1 >= n)
			return ERR("missing the value of %s (usage: set neigh PARAM VALUE [PARAM "
				   "VALUE ...])",
				   tok[i]);
		/* digits only, as every number of the CLI (strtoul() alone
		 * would take a sign, and wrap a negative number round) */
		if (parse_u32(tok[i], tok[i + 1], neigh_param_names[k].min,
			      neigh_param_names[k].max,
			      (uint32_t *)((char *)&c->nparams + neigh_param_names[k].off), err,
			      errlen) != 0)
			return -EINVAL;
		c->nparams_set |= 1u << k;
	}
	return 0;
}

void cmd_neigh_params_line(struct cmd_out *o, const struct neigh_params *p)
{
	unsigned int k;

	out_printf(o, "set neigh");
	for (k = 0; k < RTE_DIM(neigh_param_names); k++)
		out_printf(o, " %s %u", neigh_param_names[k].name,
			   *(const uint32_t *)((const char *)p + neigh_param_names[k].off));
	out_printf(o, "\n");
}

void cmd_neigh_params_apply(const struct cmd *c, struct neigh_params *p)
{
	unsigned int k;

	for (k = 0; k < RTE_DIM(neigh_param_names); k++)
		if (c->nparams_set & (1u << k))
			*(uint32_t *)((char *)p + neigh_param_names[k].off) =
				*(const uint32_t *)((const char *)&c->nparams +
						    neigh_param_names[k].off);
}

static int a_mtu(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	const char *s = n > 0 ? tok[0] : NULL;

	/* RFC 791: every link carries 68 bytes; a port no more than one
	 * buffer holds (PORT_MTU_MAX, what the help says), whatever its
	 * device takes */
	if (parse_u32("mtu", s, 68, PORT_MTU_MAX, &c->value, err, errlen) != 0) {
		if (s != NULL && s[0] != '\0' && s[strspn(s, "0123456789")] == '\0' &&
		    strtoul(s, NULL, 10) > PORT_MTU_MAX) /* ULONG_MAX when larger */
			return ERR("port %u carries at most %u bytes, not %s (frames are received "
				   "whole into %u-byte buffers)",
				   c->port, (unsigned int)PORT_MTU_MAX, s,
				   (unsigned int)RTE_MBUF_DEFAULT_DATAROOM);
		return -EINVAL;
	}
	return expect_end(tok, n, 1, err, errlen);
}

static int a_rpf(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (n < 1)
		return ERR("usage: port N rpf off|loose [ignore-default]|strict");
	if (strcmp(tok[0], "off") == 0)
		c->value = DP_RPF_OFF;
	else if (strcmp(tok[0], "loose") == 0)
		c->value = DP_RPF_LOOSE;
	else if (strcmp(tok[0], "strict") == 0)
		c->value = DP_RPF_STRICT;
	else
		return ERR("unknown rpf mode '%s' (expected off, loose or strict)", tok[0]);
	if (n > 1 && strcmp(tok[1], "ignore-default") == 0) {
		if (c->value != DP_RPF_LOOSE)
			return ERR("ignore-default goes with loose");
		c->value2 = 1;
		return expect_end(tok, n, 2, err, errlen);
	}
	return expect_end(tok, n, 1, err, errlen);
}

/* "up MS" and/or "down MS": value the up hold, value2 the down hold; one
 * left out is 0 */
static int a_hold(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	bool up = false, down = false;
	int i;

	c->value = c->value2 = 0;
	for (i = 0; i + 1 < n && i < 4; i += 2) {
		uint32_t *v;

		if (strcmp(tok[i], "up") == 0 && !up) {
			v = &c->value;
			up = true;
		} else if (strcmp(tok[i], "down") == 0 && !down) {
			v = &c->value2;
			down = true;
		} else {
			break;
		}
		if (parse_u32(tok[i], tok[i + 1], 0, 600000, v, err, errlen) != 0)
			return -EINVAL;
	}
	if (i + 1 == n && i < 4 &&
	    ((strcmp(tok[i], "up") == 0 && !up) || (strcmp(tok[i], "down") == 0 && !down)))
		return ERR("missing MS after '%s' (usage: port N hold-time [up MS] [down MS], one "
			   "or both)",
			   tok[i]);
	if (!up && !down)
		return ERR("usage: port N hold-time [up MS] [down MS], one or both");
	return expect_end(tok, n, i, err, errlen);
}

static int a_port_down(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	c->value = 1;
	return expect_end(tok, n, 0, err, errlen);
}

static int a_port_up(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	c->value = 0;
	return expect_end(tok, n, 0, err, errlen);
}

static int a_onoff(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (n < 1 || (strcmp(tok[0], "on") != 0 && strcmp(tok[0], "off") != 0))
		return ERR("expected on or off");
	c->value = strcmp(tok[0], "on") == 0;
	return expect_end(tok, n, 1, err, errlen);
}

static int a_mphash(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (n < 1 || (strcmp(tok[0], "l3") != 0 && strcmp(tok[0], "l4") != 0))
		return ERR("expected l3 or l4");
	c->value = strcmp(tok[0], "l4") == 0;
	return expect_end(tok, n, 1, err, errlen);
}

/* 'dns ADDR[,ADDR[,ADDR]]': unicast IPv6 host addresses, each once */
static int parse_dns(const char *s, struct cmd *c, char *err, size_t errlen)
{
	char buf[FR_ADDR_STRLEN];
	const char *end;
	struct fr_addr a;
	size_t len;
	unsigned int i;

	if (s == NULL)
		return ERR("missing ADDR[,ADDR[,ADDR]] after 'dns'");
	for (c->ndns = 0; *s != '\0'; s = *end == ',' ? end + 1 : end) {
		end = s + strcspn(s, ",");
		len = (size_t)(end - s);
		if (len == 0 || len >= sizeof(buf))
			return ERR("bad address '%.*s' in the dns list", (int)RTE_MIN(len, 64u), s);
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (fr_addr_parse(buf, &a) != 0)
			return ERR("bad address '%s' in the dns list", buf);
		if (a.family != AF_INET6)
			return ERR("'%s': Router Advertisements name IPv6 DNS servers only", buf);
		if (fr_addr_not_host(&a) != NULL)
			return ERR("DNS server %s is not a unicast host address (%s)", buf,
				   fr_addr_not_host(&a));
		if (c->ndns == RA_DNS_MAX)
			return ERR("at most %u DNS servers", RA_DNS_MAX);
		for (i = 0; i < c->ndns; i++)
			if (memcmp(c->dns[i], a.v6, 16) == 0)
				return ERR("'%s' listed twice", buf);
		memcpy(c->dns[c->ndns++], a.v6, 16);
		if (*end == ',' && end[1] == '\0')
			return ERR("missing address after the last ',' of the dns list");
	}
	return 0;
}

/* 'preference high|medium|low' (RFC 4191 2.2) into @c's value */
static int a_ra_prf(const char *w, struct cmd *c, char *err, size_t errlen)
{
	if (w != NULL && strcmp(w, "high") == 0)
		c->value |= RA_PRF_HIGH;
	else if (w != NULL && strcmp(w, "low") == 0)
		c->value |= RA_PRF_LOW;
	else if (w == NULL || strcmp(w, "medium") != 0)
		return ERR("preference: expected high, medium or low, got '%s'", w ? w : "");
	return 0;
}

/* port N ra on [interval S] [min-delay MS] [managed] [other] [no-slaac]
 * [preference P] [dns LIST] | port N ra off: value RA_ON with the M and O
 * flags, RA_NO_SLAAC and the preference (RA_PRF_*; 0: off), value2 the
 * interval (MaxRtrAdvInterval, RFC 4861 6.2.1: 4-1800 s, default 600) in its
 * low half, the least time between two advertisements in its high half
 * (MinDelayBetweenRAs: RFC 4861 10's 3 s by default; RFC 6275 7.5 allows as
 * little as 30 ms), the DNS servers in dns[] (off: value and value2 0) */
static int a_ra(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	uint32_t min_delay = RA_MIN_DELAY_DEFAULT_MS;
	unsigned int seen = 0;
	int i;

	if (n >= 1 && strcmp(tok[0], "off") == 0) {
		c->value = c->value2 = 0;
		return expect_end(tok, n, 1, err, errlen);
	}
	if (n < 1 || strcmp(tok[0], "on") != 0)
		return ERR("usage: port N ra on [interval SEC] [min-delay MS] [managed] "
			   "[other] [no-slaac] [preference high|medium|low] "
			   "[dns ADDR[,ADDR[,ADDR]]] | port N ra off");
	c->value = RA_ON;
	c->value2 = 600;
	for (i = 1; i < n; i++) {
		const char *w = tok[i];
		unsigned int bit = strcmp(w, "interval") == 0	  ? 1
				   : strcmp(w, "managed") == 0	  ? 2
				   : strcmp(w, "other") == 0	  ? 4
				   : strcmp(w, "dns") == 0	  ? 8
				   : strcmp(w, "no-slaac") == 0	  ? 16
				   : strcmp(w, "preference") == 0 ? 32
				   : strcmp(w, "min-delay") == 0  ? 64
								  : 0;

		if (bit == 0)
			return ERR("unknown '%s' after 'ra on' (expected interval SEC, min-delay "
				   "MS, managed, other, no-slaac, preference high|medium|low or "
				   "dns ADDR[,ADDR[,ADDR]])",
				   w);
		if (seen & bit)
			return ERR("'%s' given twice", w);
		seen |= bit;
		if ((bit == 1 || bit == 64) && i + 1 >= n)
			return ERR("missing %s after '%s'", bit == 1 ? "SEC" : "MS", w);
		if (bit == 2)
			c->value |= RA_MANAGED;
		else if (bit == 4)
			c->value |= RA_OTHER;
		else if (bit == 16)
			c->value |= RA_NO_SLAAC;
		else if (bit == 32 && a_ra_prf(i + 1 < n ? tok[++i] : NULL, c, err, errlen) != 0)
			return -EINVAL;
		else if (bit == 1 && parse_u32("interval", i + 1 < n ? tok[++i] : NULL, 4, 1800,
					       &c->value2, err, errlen) != 0)
			return -EINVAL;
		else if (bit == 8 && parse_dns(i + 1 < n ? tok[++i] : NULL, c, err, errlen) != 0)
			return -EINVAL;
		else if (bit == 64 &&
			 parse_u32("min-delay", i + 1 < n ? tok[++i] : NULL, RA_MIN_DELAY_LEAST_MS,
				   RA_MIN_DELAY_DEFAULT_MS, &min_delay, err, errlen) != 0)
			return -EINVAL;
	}
	c->value2 |= min_delay << 16;
	return 0;
}

static int a_icmp_rate(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (parse_u32("rate", n > 0 ? tok[0] : NULL, 0, 1000000, &c->value, err, errlen) != 0)
		return -EINVAL;
	if (n < 3 || strcmp(tok[1], "burst") != 0)
		return ERR("usage: set icmp rate PPS burst N");
	if (parse_u32("burst", tok[2], 1, 100000, &c->value2, err, errlen) != 0)
		return -EINVAL;
	return expect_end(tok, n, 3, err, errlen);
}

static int a_reasm_timeout(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	c->value = 0;
	if (n < 1)
		return ERR("missing SEC (1-120) or 'default'");
	if (strcmp(tok[0], "default") != 0 &&
	    parse_u32("reassembly-timeout", tok[0], 1, 120, &c->value, err, errlen) != 0)
		return -EINVAL;
	return expect_end(tok, n, 1, err, errlen);
}

static int a_rtcache_mode(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	unsigned int m;

	for (m = 0; m < RTCACHE_MODE_MAX && n > 0; m++)
		if (strcmp(tok[0], rtcache_mode_names[m]) == 0)
			break;
	if (n < 1 || m == RTCACHE_MODE_MAX)
		return ERR("usage: rtcache off|on|auto, or rtcache size N");
	c->value = m;
	return expect_end(tok, n, 1, err, errlen);
}

static int a_rtcache_size(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (parse_u32("rtcache size", n > 0 ? tok[0] : NULL, 64, 1u << 24, &c->value, err,
		      errlen) != 0)
		return -EINVAL;
	/* the cache has a power of two of entries: the size is what it gets */
	c->value = rte_align32pow2(c->value);
	return expect_end(tok, n, 1, err, errlen);
}

/* show route lookup ADDR [from SRC] [proto P] [sport N dport N]: the
 * source in prefix.addr (has_arg), the protocol in value (0: none given),
 * the ports in value2 (source in the high half; 'all': given, both of
 * them, as the multipath hash takes both) */
static int a_lookup(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		uint8_t proto;
	} protos[] = {{"tcp", IPPROTO_TCP},
		      {"udp", IPPROTO_UDP},
		      {"sctp", IPPROTO_SCTP},
		      {"udplite", IPPROTO_UDPLITE}};
	static const char *const words[] = {"from", "proto", "sport", "dport"};
	bool sport = false, dport = false, seen[RTE_DIM(words)] = {false};
	uint32_t v;
	int i;
	size_t k;

	if (parse_addr(n > 0 ? tok[0] : NULL, &c->addr, err, errlen) != 0)
		return -EINVAL;
	for (i = 1; i < n; i += 2) {
		for (k = 0; k < RTE_DIM(words); k++)
			if (strcmp(tok[i], words[k]) == 0)
				break;
		if (k == RTE_DIM(words))
			return ERR("unknown '%s' after the address (expected from, proto, sport, "
				   "dport)",
				   tok[i]);
		/* the last of two would be taken, and another flow looked up
		 * than the one meant */
		if (seen[k])
			return ERR("'%s' given twice", tok[i]);
		seen[k] = true;
		if (i + 1 >= n)
			return ERR("'%s' needs a value (show route lookup ADDR [from SRC] [proto "
				   "tcp|udp|sctp|udplite|N] [sport N dport N])",
				   tok[i]);
		if (strcmp(tok[i], "from") == 0) {
			if (parse_addr(tok[i + 1], &c->prefix.addr, err, errlen) != 0)
				return -EINVAL;
			if (c->prefix.addr.family != c->addr.family)
				return ERR("from %s: not the family of %s", tok[i + 1], tok[0]);
			c->has_arg = true;
		} else if (strcmp(tok[i], "proto") == 0) {
			for (k = 0; k < RTE_DIM(protos); k++)
				if (strcmp(tok[i + 1], protos[k].name) == 0)
					break;
			if (k < RTE_DIM(protos))
				c->value = protos[k].proto;
			else if (parse_u32(NULL, tok[i + 1], 0, 255, &c->value, err, errlen) != 0)
				return ERR("proto: '%s' is none of tcp, udp, sctp, udplite nor a "
					   "number in 0-255%s",
					   tok[i + 1],
					   leading_zero(tok[i + 1])
						   ? " (a leading zero: octal to some tools)"
						   : "");
		} else if (strcmp(tok[i], "sport") == 0 || strcmp(tok[i], "dport") == 0) {
			if (parse_u32(tok[i], tok[i + 1], 0, 65535, &v, err, errlen) != 0)
				return -EINVAL;
			c->value2 = tok[i][0] == 's' ? (c->value2 & 0xffff) | v << 16
						     : (c->value2 & 0xffff0000) | v;
			if (tok[i][0] == 's')
				sport = true;
			else
				dport = true;
		}
	}
	if ((sport || dport) && !ip_proto_ported((uint8_t)c->value))
		return ERR("ports need proto tcp, udp, sctp or udplite");
	if (sport != dport)
		return ERR("%s needs %s too: the multipath hash takes both ports",
			   sport ? "sport" : "dport", sport ? "dport" : "sport");
	c->all = sport;
	return 0;
}

/* route del PREFIX: whatever route holds it (no next hop to match) */
static int a_route_del(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (n > 1 && parse_prefix(tok[0], &c->prefix, err, errlen) == 0)
		return ERR("unexpected '%s': route del takes PREFIX alone, and removes the "
			   "route that holds it, whatever its next hops",
			   tok[1]);
	return a_prefix(tok, n, c, err, errlen);
}

static int a_opt_prefix(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (n == 0)
		return 0;
	c->has_arg = true;
	return a_prefix(tok, n, c, err, errlen);
}

static int a_opt_lcores(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (n > 0 && strcmp(tok[0], "lcores") == 0) {
		c->all = true;
		return expect_end(tok, n, 1, err, errlen);
	}
	return expect_end(tok, n, 0, err, errlen);
}

static int a_opt_port(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	c->all = true;
	if (n == 0 || strcmp(tok[0], "all") == 0)
		return expect_end(tok, n, n ? 1 : 0, err, errlen);
	c->all = false;
	if (parse_port(tok[0], &c->port, err, errlen) != 0)
		return -EINVAL;
	return expect_end(tok, n, 1, err, errlen);
}

static int a_file(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	if (n < 1)
		return ERR("missing file name");
	if (strlen(tok[0]) >= sizeof(c->arg))
		return ERR("file name too long");
	strcpy(c->arg, tok[0]);
	return expect_end(tok, n, 1, err, errlen);
}

static int a_topic(char **tok, int n, struct cmd *c, char *err, size_t errlen)
{
	size_t len = 0;
	int i;

	(void)err;
	(void)errlen;
	for (i = 0; i < n; i++) {
		int w = snprintf(c->arg + len, sizeof(c->arg) - len, "%s%s", i ? " " : "", tok[i]);

		if (w < 0 || (size_t)w >= sizeof(c->arg) - len)
			break;
		len += (size_t)w;
	}
	return 0;
}

/* ---- the command table ------------------------------------------------- */

/* route add's help names the multipath limit */
_Static_assert(FIB_MP_MAX == 8 && FIB_MP_BUCKETS == 64,
	       "route add's help: 8 gateways, weights to 64");

static const struct cmd_syntax {
	const char *words; /* fixed words; '*' is the port number */
	enum cmd_id id;
	args_fn args;
	const char *usage; /* arguments after the words, for help */
	const char *help;
} syntax[] = {
	{"port * address add", CMD_PORT_ADDR_ADD, a_ifaddr, "ADDR/LEN",
	 "add an IPv4 or IPv6 address to port N: installs the local /32 (/128), the\n"
	 "connected subnet and, for IPv4, its broadcast and network addresses as\n"
	 "broadcast (prefixes up to /30), for IPv6 its Subnet-Router anycast address\n"
	 "(the prefix, host bits zero; up to /126) as local, as routes. Every port\n"
	 "also has an EUI-64 link-local IPv6 address"},
	{"port * address del", CMD_PORT_ADDR_DEL, a_ifaddr, "ADDR/LEN",
	 "remove an address from port N, with the routes it installed; routes via\n"
	 "gateways in its subnet stay on the port (a warning counts them)"},
	{"port * address", CMD_PORT_ADDR_ADD, a_ifaddr, "ADDR/LEN",
	 "same as 'port N address add ADDR/LEN'"},
	{"port * mtu", CMD_PORT_MTU, a_mtu, "BYTES",
	 "largest IP packet sent on port N (68-2030: an mbuf holds one 2048-byte frame):\n"
	 "larger IPv4 ones are fragmented,\n"
	 "or dropped with ICMP 3/4 'fragmentation needed' when DF is set (RFC 1191);\n"
	 "larger IPv6 ones to forward are dropped with ICMPv6 2/0 'packet too big'\n"
	 "(RFC 8201; the router's own are fragmented at the source, to 1280 bytes\n"
	 "or to this MTU if lower);\n"
	 "above the device's MTU the device must take it too;\n"
	 "at least 1280 on a port with IPv6 addresses or that IPv6 routes leave by"},
	{"port * rpf", CMD_PORT_RPF, a_rpf, "off|loose [ignore-default]|strict",
	 "reverse-path filter on packets arriving on port N (RFC 3704): strict, the route\n"
	 "back to the source leaves by port N; loose, the source has a route that\n"
	 "forwards (with ignore-default, not only the default route); packets to the\n"
	 "router's broadcast addresses are exempt, a directed broadcast it forwards is\n"
	 "checked (multicast is never forwarded); IPv4 and IPv6 alike"},
	{"port * redirects", CMD_PORT_REDIRECTS, a_onoff, "on|off",
	 "send ICMP Redirects for Host (5/1, RFC 1812 5.2.7.2) to senders on port N's\n"
	 "link whose packets the router forwards back out of port N to a next hop on\n"
	 "the sender's own subnet, and ICMPv6 Redirects (RFC 4861 8.2) to a next hop\n"
	 "that is the destination or a gateway by its link-local address (default\n"
	 "off); the packet is forwarded all the same. Within the ICMP rate (set icmp\n"
	 "rate), with tokens of their own, and damped per sender"},
	{"port * ra", CMD_PORT_RA, a_ra,
	 "on [interval SEC] [min-delay MS] [managed] [other] [no-slaac] "
	 "[preference high|medium|low] [dns ADDR[,ADDR[,ADDR]]] | off",
	 "send IPv6 Router Advertisements on port N (RFC 4861 6.2; default off; its MTU\n"
	 "1280 at least): every SEC/3 (3 s at least) to SEC seconds (4-1800, default\n"
	 "600; the wait after each of the first three at most 16 s), and\n"
	 "soon after a Router Solicitation, never two within MS ms ('min-delay',\n"
	 "30-3000, default 3000: RFC 4861's MIN_DELAY_BETWEEN_RAS; less only where\n"
	 "hosts must learn fast, as RFC 6275 7.5 allows), to all nodes, from its\n"
	 "link-local address: the router as default router for 3 x SEC s (at most\n"
	 "9000), the port's MTU, each global prefix of its IPv6 addresses on-link, and\n"
	 "/64 ones for SLAAC; a soliciting host's link-layer address is learnt.\n"
	 "'managed' and 'other' set the M and O flags (addresses, or the rest of the\n"
	 "configuration, by DHCPv6); 'no-slaac' clears the /64 prefixes' autonomous\n"
	 "flag (hosts make no SLAAC address); 'preference' ranks the router among\n"
	 "the link's default routers (RFC 4191; default medium); 'dns' names up to 3\n"
	 "IPv6 DNS servers (RFC 8106 RDNSS, for 3 x SEC s). A change while on is\n"
	 "advertised within min-delay (of the port's addresses or MTU, 1 s more); a\n"
	 "removed address's prefix (deprecated: lifetimes 0) and a dropped server\n"
	 "(lifetime 0) are withdrawn in the next 3.\n"
	 "'off', and the router's stop, send a last one with router lifetime 0 (and\n"
	 "DNS lifetime 0)"},
	{"port * hold-time", CMD_PORT_HOLD, a_hold, "[up MS] [down MS]",
	 "damp port N's link (0-600000 ms, default 0): a link that comes up is put\n"
	 "in service once it has stayed up MS (its routes back, its traffic taken),\n"
	 "one that goes down is taken out once it has stayed down MS; a flap shorter\n"
	 "than that changes nothing (counted in show port info). At least one of up\n"
	 "and down; one left out is 0.\n"
	 "'port N down' and 'up' act at once"},
	{"port * down", CMD_PORT_ADMIN, a_port_down, "",
	 "take port N out of service: what would leave by it is dropped and counted\n"
	 "port_down (the sender told unreachable), what arrives on it rx_port_down;\n"
	 "its learnt neighbours are forgotten; the static routes through it are withdrawn\n"
	 "until it is up (as with a down link), so their traffic takes the covering\n"
	 "route; its link is set down too where the driver can (show port info says);\n"
	 "a port that advertises (port N ra) sends its last Router Advertisement first"},
	{"port * up", CMD_PORT_ADMIN, a_port_up, "",
	 "put port N back in service (the default; it forwards while its link is up),\n"
	 "its link set up again if 'port N down' had set it down"},
	{"set ip martians", CMD_SET_IP_MARTIANS, a_onoff, "on|off",
	 "drop martian sources (0/8, 127/8, 224/4, 240/4, 255.255.255.255, our\n"
	 "addresses and our subnets' broadcast and network addresses) and\n"
	 "destinations (0/8, 127/8, 240/4) (RFC 1812 5.3.7), and 169.254/16 either\n"
	 "way but to our own address there (RFC 3927 2.7); default on. Off: none of\n"
	 "these checked"},
	{"set ip directed-broadcast", CMD_SET_IP_DBCAST, a_onoff, "on|off",
	 "forward packets to a connected subnet's broadcast address (or its network\n"
	 "address, an older broadcast form) from another port (RFC 1812 5.3.5.2;\n"
	 "default off)"},
	{"set ip multipath-hash", CMD_SET_IP_MPHASH, a_mphash, "l3|l4",
	 "what picks a multipath route's gateway for a packet, IPv4 and IPv6: l3, its\n"
	 "source and destination addresses (the default); l4, those and, for TCP, UDP,\n"
	 "SCTP and UDP-Lite, its protocol and ports (a fragment, or IPv6 with extension\n"
	 "headers first, by its addresses alone, so a datagram's pieces keep together)"},
	{"set icmp rate", CMD_SET_ICMP_RATE, a_icmp_rate, "PPS burst N",
	 "ICMP errors per second (0-1000000) and burst (1-100000), per lcore (token\n"
	 "bucket; default 1000 burst 50; rate 0 sends none); suppressed errors are\n"
	 "counted"},
	{"set ip reassembly-timeout", CMD_SET_IP_REASM, a_reasm_timeout, "SEC|default",
	 "how long fragments sent to the router wait for the rest of their datagram,\n"
	 "IPv4 and IPv6 (1-120 s); then dropped (reasm_timeout), with a Time Exceeded\n"
	 "when the first came. default: 30 s for IPv4 (as Linux), 60 s for IPv6 (RFC\n"
	 "8200 4.5); datagrams begun before a change keep their time"},
	{"rtcache size", CMD_RTCACHE_SIZE, a_rtcache_size, "N",
	 "route cache entries per worker (64-2^24), rounded up to a power of two, fixed\n"
	 "at startup (config file; later, only a size that rounds to the one it has;\n"
	 "default 65536; 64 bytes each for IPv4 and as many again for IPv6)"},
	{"rtcache", CMD_RTCACHE_MODE, a_rtcache_mode, "off|on|auto",
	 "per-worker route cache, validated by generations: off, on, or auto (default:\n"
	 "time bursts with the cache probed and bypassed, keep the cheaper for 2^20\n"
	 "packets, measure again; each choice in a row to bypass doubles that, up to\n"
	 "2^23)"},
	{"route add", CMD_ROUTE_ADD, a_route,
	 "PREFIX via GW [port N] [weight W] [via GW ...] | PREFIX dev|port N | PREFIX "
	 "blackhole|unreachable|prohibit",
	 "add a route: via a gateway (its port is the one of the connected subnet that\n"
	 "holds GW unless 'port N' is given; a link-local IPv6 GW needs 'port N'), or\n"
	 "via 2 to 8 gateways (multipath: each flow keeps to one gateway whose port is\n"
	 "in service and whose neighbour is not failing to resolve; a flow is its\n"
	 "addresses, see set ip multipath-hash; a gateway takes a share of the flows\n"
	 "as its weight, 1-64, default 1, the weights adding up to 64 at most),\n"
	 "straight out of a port (each destination is a neighbour), or a drop type\n"
	 "(each has its own counter). IPv4 or IPv6 prefixes"},
	{"route replace", CMD_ROUTE_REPLACE, a_route, "PREFIX ...",
	 "add the route, or change the existing route for PREFIX"},
	{"route del", CMD_ROUTE_DEL, a_route_del, "PREFIX",
	 "remove the route for exactly PREFIX, whatever its next hops"},
	{"neigh add", CMD_NEIGH_ADD, a_neigh_add, "ADDR lladdr MAC port N",
	 "add or change a static neighbour (IPv4 or IPv6) on port N"},
	{"neigh del", CMD_NEIGH_DEL, a_neigh_del, "ADDR port N",
	 "remove a neighbour, static or learnt (a learnt one comes back when next\n"
	 "resolved; a rollback puts it back as it was, a learnt one as learnt, STALE)"},
	{"set neigh", CMD_SET_NEIGH, a_neigh_params, "PARAM VALUE [PARAM VALUE ...]",
	 "neighbour resolution timers and limits (times in ms): reachable-time (30000,\n"
	 "randomised x0.5-1.5), retrans-time (1000: probes to one neighbour at most this\n"
	 "often), mcast-probes (3), ucast-probes (3), stale-time (60000: unused STALE\n"
	 "entries expire), failed-time (3000), hold (4 packets per unresolved neighbour),\n"
	 "hold-total (4096; a running router refuses more than its mbufs were sized\n"
	 "for at start), max-incomplete (1024 neighbours being resolved at once; the\n"
	 "gateways of routes are resolved past it),\n"
	 "delay-time (5000: a STALE entry in use waits this long in DELAY before it is\n"
	 "probed; 0: probe at once), lock-time (1000: an ARP reply or merge does not\n"
	 "change a MAC set or confirmed, or whose entry changed state (STALE, DELAY,\n"
	 "PROBE), this recently; 0: none). Ranges:\n"
	 "reachable-time 100-3600000, retrans-time 10-60000, mcast- and ucast-probes\n"
	 "1-100, stale-time 100-86400000, failed-time and delay-time 0-3600000,\n"
	 "lock-time 0-60000, hold-total 0-2^20, max-incomplete 1-2^24, hold\n"
	 "0-" RTE_STR(NEIGH_HOLD_MAX)},
	{"show route lookup", CMD_SHOW_ROUTE_LOOKUP, a_lookup,
	 "ADDR [from SRC] [proto tcp|udp|sctp|udplite|N] [sport N dport N]",
	 "longest-prefix match: which route forwards ADDR, its type, gateway and port\n"
	 "(or the drop counter of an address the workers never forward); of a\n"
	 "multipath route, the gateway the workers choose for the flow from SRC (and\n"
	 "with set ip multipath-hash l4, of that protocol and those ports, both given)\n"
	 "as things are now (ports in service, neighbours), and its neighbour's state"},
	{"show route summary", CMD_SHOW_ROUTE_SUMMARY, a_none, "",
	 "routes per prefix length, next hops, FIB generation and memory"},
	{"show route", CMD_SHOW_ROUTE, a_opt_prefix, "[PREFIX]",
	 "list routes, or the route for exactly PREFIX"},
	{"show neigh stats", CMD_SHOW_NEIGH_STATS, a_none, "",
	 "resolution counters (probes, resolved, failed, held, refused...) and parameters"},
	{"show neigh", CMD_SHOW_NEIGH, a_none, "",
	 "list neighbours with state, MAC, generation, references, held packets and the time "
	 "to their next timer"},
	{"show stats", CMD_SHOW_STATS, a_opt_lcores, "[lcores]",
	 "forwarding and drop counters, summed or per worker lcore"},
	{"clear stats", CMD_CLEAR_STATS, a_none, "",
	 "zero the router's counters: workers', control thread's, neighbours', route\n"
	 "caches', the ports' (link changes; device statistics as show port stats\n"
	 "shows them: counted from the clear, the devices' own not reset); under\n"
	 "traffic, what is in flight between threads at the clear may count on one\n"
	 "side of the README's equations only"},
	{"show port info", CMD_SHOW_PORT_INFO, a_opt_port, "[N|all]",
	 "MAC, NUMA socket, queues, link, forwarding state (down: port_down and\n"
	 "rx_port_down drops) and\n"
	 "link changes, addresses"},
	{"show port stats", CMD_SHOW_PORT_STATS, a_opt_port, "[N|all]",
	 "port counters and DPDK extended stats, since the last clear stats; and the\n"
	 "packets and bits a second received and sent over the last second (rx_pps,\n"
	 "rx_bps, tx_pps, tx_bps: the device's packet and byte counters, so no\n"
	 "preamble, gap or, on most drivers, CRC in the bits)"},
	{"show rtcache stats", CMD_SHOW_RTCACHE, a_none, "",
	 "route cache counters per worker and summed: lookups, hits, misses, stale,\n"
	 "inserts, evictions, bypassed; mode, state, window hit rate, auto's last\n"
	 "measured cycles a packet probed and bypassed, memory"},
	{"show config", CMD_SHOW_CONFIG, a_none, "",
	 "the running configuration as a config file: a router started with it (-f)\n"
	 "rebuilds the same tables"},
	{"show memory", CMD_SHOW_MEMORY, a_none, "",
	 "mbufs in use, DPDK heap usage, table occupancy"},
	{"show version", CMD_SHOW_VERSION, a_none, "", "fastroute and DPDK versions"},
	{"load", CMD_LOAD, a_file, "FILE",
	 "apply FILE (on the router's filesystem) as one transaction: a line that fails\n"
	 "rolls every earlier one back; not an atomic switch: the workers forward by\n"
	 "each line as it is applied until the file commits or rolls back; FILE is one\n"
	 "word: no spaces, and a '#' in it starts a comment as on every line"},
	{"configure replace", CMD_CONFIGURE_REPLACE, a_file, "FILE",
	 "make the running configuration FILE's, as if the router had been started\n"
	 "with it (same checks, FILE:LINE errors), in one transaction that changes only\n"
	 "what differs: static routes, static neighbours and port addresses FILE does\n"
	 "not add are removed, its lines applied (one whose change is made already\n"
	 "is left alone: an unchanged route never leaves the lookups), and settings\n"
	 "it does not set go back to their values before the startup file; an error\n"
	 "rolls everything back. FILE as for load; an empty one, or one whose last\n"
	 "line has no newline (cut short?), is refused"},
	{"help", CMD_HELP, a_topic, "[WORDS]",
	 "this text, or the commands starting with WORDS ('help --keywords': one line per\n"
	 "command, tab-separated, for completion in clients)"},
	{"quit", CMD_QUIT, a_none, "",
	 "end this CLI session; the router keeps running, except on its own terminal\n"
	 "(fastroute started interactively), where quit stops it"},
	{"exit", CMD_QUIT, a_none, "", "same as quit"},
};

static void print_entry(struct cmd_out *o, const struct cmd_syntax *s)
{
	const char *t = s->help;
	const char *w;

	for (w = s->words; *w; w++)
		out_printf(o, "%s", *w == '*' ? "N" : (char[2]){*w, 0});
	out_printf(o, "%s%s\n", *s->usage ? " " : "", s->usage);
	while (*t) {
		const char *nl = strchr(t, '\n');
		size_t l = nl ? (size_t)(nl - t) : strlen(t);

		out_printf(o, "    %.*s\n", (int)l, t);
		t += l + (nl ? 1 : 0);
	}
}

/* Does @topic ("route", "show route") start the words of @s? '*' matches N. */
static bool topic_matches(const struct cmd_syntax *s, const char *topic)
{
	const char *w = s->words, *t = topic;

	while (*t && *w) {
		if (*w == '*') {
			while (*t && *t != ' ')
				t++;
			w++;
			continue;
		}
		if (*w != *t)
			return false;
		w++;
		t++;
	}
	return *t == '\0' && (*w == '\0' || *w == ' ');
}

unsigned int cmd_help(struct cmd_out *o, const char *topic)
{
	unsigned int i, shown = 0;

	for (i = 0; i < RTE_DIM(syntax); i++) {
		if (topic != NULL && *topic && !topic_matches(&syntax[i], topic))
			continue;
		print_entry(o, &syntax[i]);
		shown++;
	}
	return shown;
}

void cmd_keywords(void (*cb)(const char *words, const char *usage, bool args, void *arg), void *arg)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(syntax); i++)
		cb(syntax[i].words, syntax[i].usage, syntax[i].args != a_none, arg);
}

/* ---- parsing ----------------------------------------------------------- */

/* @line: the command, its comment and line end cut off (cmd_parse()) */
static int tokenize(char *line, char **tok, int max)
{
	int n = 0;
	char *p = line;

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

/* The table's words, split once: parsing a million-route file compares a
 * lot of words. */
#define SYNTAX_MAX_WORDS 6
static struct {
	const char *w[SYNTAX_MAX_WORDS];
	uint8_t len[SYNTAX_MAX_WORDS];
	uint8_t n;
} split[RTE_DIM(syntax)];

static void split_words(void)
{
	unsigned int k;

	if (split[0].n != 0)
		return;
	for (k = 0; k < RTE_DIM(syntax); k++) {
		const char *w = syntax[k].words;

		while (*w && split[k].n < SYNTAX_MAX_WORDS) {
			size_t l = strcspn(w, " ");

			split[k].w[split[k].n] = w;
			split[k].len[split[k].n++] = (uint8_t)l;
			w += l;
			while (*w == ' ')
				w++;
		}
	}
}

/* How many of entry @k's words tok[] matches; -1 at the first mismatch. */
static int match_words(unsigned int k, char **tok, int n, struct cmd *c, int *depth, char *err,
		       size_t errlen, int *bad)
{
	int i;

	*depth = 0;
	for (i = 0; i < split[k].n; i++) {
		const char *w = split[k].w[i];
		size_t l = split[k].len[i];

		if (i >= n)
			return -1;
		if (l == 1 && *w == '*') {
			if (parse_port(tok[i], &c->port, err, errlen) != 0) {
				*bad = 1;
				return -1;
			}
		} else if (tok[i][0] != w[0] || strncmp(w, tok[i], l) != 0 || tok[i][l] != '\0') {
			return -1;
		}
		*depth = i + 1;
	}
	return i;
}

/* "expected add, replace or del" from the entries that share tok[0..depth) */
static void expected_words(char **tok, int depth, char *buf, size_t len)
{
	unsigned int i, k = 0;
	size_t used = 0;

	buf[0] = '\0';
	for (i = 0; i < RTE_DIM(syntax); i++) {
		const char *w = syntax[i].words;
		char word[32];
		int d;

		for (d = 0; d < depth && *w; d++) {
			size_t l = strcspn(w, " ");

			if (!(l == 1 && *w == '*') &&
			    (strlen(tok[d]) != l || strncmp(w, tok[d], l) != 0))
				break;
			w += l;
			while (*w == ' ')
				w++;
		}
		if (d < depth || !*w)
			continue;
		/* the port number, as help writes it */
		if (strcspn(w, " ") == 1 && *w == '*')
			snprintf(word, sizeof(word), "N");
		else
			snprintf(word, sizeof(word), "%.*s", (int)strcspn(w, " "), w);
		if (strstr(buf, word) != NULL)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", word);
		k++;
		if (used >= len)
			break;
	}
}

/* The @n bytes at @p are all '\r' or '\n'. */
static bool line_end(const char *p, size_t n)
{
	while (n > 0 && (*p == '\r' || *p == '\n')) {
		p++;
		n--;
	}
	return n == 0;
}

int cmd_line_check(const char *line, size_t len, char *err, size_t errlen)
{
	bool comment = false;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char b = (unsigned char)line[i];

		if ((b < 0x20 && b != '\t' && b != '\r') || b == 0x7f)
			return ERR("control byte 0x%02x at byte %zu of the line", b, i + 1);
		/* a line ends "\n", "\r\n" or (a terminal's) "\r": one inside
		 * is a file of old Mac line endings, read as one line, whose
		 * first comment would hide the rest */
		if (b == '\r' && !line_end(line + i, len - i))
			return ERR("carriage return at byte %zu inside the line (lines end with "
				   "\\n or \\r\\n, not \\r alone)",
				   i + 1);
		comment |= b == '#';
		/* no command or argument has one, and an error quoting it
		 * would show nothing amiss ('route' is no command, say) */
		if (b >= 0x80 && !comment)
			return ERR("byte 0x%02x at byte %zu of the line is not ASCII: commands are "
				   "ASCII (a UTF-8 no-break space or byte order mark from an "
				   "editor?); "
				   "a comment may hold any text",
				   b, i + 1);
	}
	return 0;
}

int cmd_parse(const char *line, struct cmd *c, char *err, size_t errlen)
{
	char buf[CMD_MAX_LEN + 1], exp[160];
	char *tok[CMD_MAX_TOKENS + 1];
	const struct cmd_syntax *best = NULL;
	int n, best_depth = 0, bad = 0;
	unsigned int k;
	/* the command: what comes before a comment, or before the line's end
	 * (a file's line keeps its "\n" or "\r\n", a terminal's its "\r") */
	size_t len = strcspn(line, "#");

	memset(c, 0, sizeof(*c));
	if (line[len] == '\0') {
		if (len > 0 && line[len - 1] == '\n')
			len--;
		if (len > 0 && line[len - 1] == '\r')
			len--;
	}
	if (len > CMD_MAX_LEN)
		return ERR("command too long (%zu bytes, at most %u; a comment does not count)",
			   len, CMD_MAX_LEN);
	memcpy(buf, line, len);
	buf[len] = '\0';
	n = tokenize(buf, tok, CMD_MAX_TOKENS);
	if (n < 0)
		return ERR("too many words (at most %d)", CMD_MAX_TOKENS);
	if (n == 0)
		return -ENODATA;
	/* the entry whose words match the most tokens wins */
	split_words();
	for (k = 0; k < RTE_DIM(syntax); k++) {
		int depth, m = match_words(k, tok, n, c, &depth, err, errlen, &bad);

		if (bad)
			return -EINVAL;
		if (m > 0 && (best == NULL || m > best_depth)) {
			best = &syntax[k];
			best_depth = m;
		}
		if (m < 0 && depth > best_depth && best == NULL)
			best_depth = depth; /* how far the closest one got */
	}
	if (best == NULL) {
		/* tok[0..best_depth) matched some command's words: say what may follow */
		expected_words(tok, best_depth, exp, sizeof(exp));
		if (best_depth == 0)
			return ERR("unknown command '%s' ('help' lists the commands)", tok[0]);
		if (best_depth >= n)
			return ERR("incomplete command (expected %s after '%s')", exp,
				   tok[best_depth - 1]);
		return ERR("unknown '%s' after '%s' (expected %s)", tok[best_depth],
			   tok[best_depth - 1], exp);
	}
	c->id = best->id;
	return best->args(tok + best_depth, n - best_depth, c, err, errlen);
}

/* ---- dispatch ---------------------------------------------------------- */

int check_port(const struct router *r, uint32_t port, char *err, size_t errlen)
{
	if (router_port_ok(r, port))
		return 0;
	if (r->nb_ports == 0)
		return ERRC(-ENODEV, "port %u does not exist (the router has no ports)", port);
	return ERRC(-ENODEV, "port %u does not exist (ports are 0-%u)", port, r->nb_ports - 1);
}

static void keyword_line(const char *words, const char *usage, bool args, void *arg)
{
	out_printf(arg, "%s\t%s\t%d\n", words, usage, args ? 1 : 0);
}

int check_rtcache_size(const struct router *r, const struct cmd *c, char *err, size_t errlen)
{
	if (r->running && c->value != r->opts.rtcache_size)
		return ERRC(-EBUSY,
			    "the route cache size is fixed at startup at %u (put %u in "
			    "the startup configuration, -f, and restart)",
			    r->opts.rtcache_size, c->value);
	return 0;
}

unsigned int cmd_settings(const struct cmd *c, uint32_t key[CMD_SETTINGS_MAX], char *name,
			  size_t namelen)
{
	const char *words = NULL;
	unsigned int i, n = 0, k;

	RTE_BUILD_BUG_ON(RTE_DIM(neigh_param_names) > CMD_SETTINGS_MAX);
	if (c->id == CMD_SET_NEIGH) {
		for (k = 0; k < RTE_DIM(neigh_param_names); k++) {
			if (!(c->nparams_set & (1u << k)))
				continue;
			key[n] = (uint32_t)c->id << 24 | k;
			if (name != NULL)
				snprintf(name + n * namelen, namelen, "set neigh %s",
					 neigh_param_names[k].name);
			n++;
		}
		return n;
	}
	if (c->id > CMD_CONFIG_LAST || c->id == CMD_PORT_ADDR_ADD || c->id == CMD_PORT_ADDR_DEL ||
	    c->id == CMD_ROUTE_ADD || c->id == CMD_ROUTE_REPLACE || c->id == CMD_ROUTE_DEL ||
	    c->id == CMD_NEIGH_ADD || c->id == CMD_NEIGH_DEL)
		return 0;
	for (i = 0; i < RTE_DIM(syntax) && words == NULL; i++)
		if (syntax[i].id == c->id)
			words = syntax[i].words;
	if (words == NULL)
		return 0;
	if (strncmp(words, "port * ", 7) == 0) {
		key[0] = (uint32_t)c->id << 24 | 1u << 23 | c->port;
		if (name != NULL)
			snprintf(name, namelen, "port %u %s", c->port, words + 7);
	} else {
		key[0] = (uint32_t)c->id << 24;
		if (name != NULL)
			snprintf(name, namelen, "%s", words);
	}
	return 1;
}

int cmd_file_check(const struct router *r, const struct cmd *c, char *err, size_t errlen)
{
	if (c->id > CMD_CONFIG_LAST)
		return ERR("not a configuration command (only port, route, neigh, set and "
			   "rtcache commands belong in a file)");
	if (c->id == CMD_RTCACHE_SIZE)
		return check_rtcache_size(r, c, err, errlen);
	if (c->id == CMD_PORT_MTU || c->id == CMD_PORT_RPF || c->id == CMD_PORT_REDIRECTS ||
	    c->id == CMD_PORT_ADMIN || c->id == CMD_PORT_HOLD || c->id == CMD_PORT_RA ||
	    c->id == CMD_PORT_ADDR_ADD || c->id == CMD_PORT_ADDR_DEL || c->id == CMD_NEIGH_ADD ||
	    c->id == CMD_NEIGH_DEL)
		return check_port(r, c->port, err, errlen);
	if (c->id == CMD_ROUTE_ADD || c->id == CMD_ROUTE_REPLACE) {
		unsigned int i;
		int rc;

		if (c->route.port != FIB_PORT_NONE)
			return check_port(r, c->route.port, err, errlen);
		/* a multipath route: each gateway's port, as a single one's */
		for (i = 0; i < c->nmp; i++) {
			if (c->mp[i].port == FIB_PORT_NONE)
				continue;
			rc = check_port(r, c->mp[i].port, err, errlen);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

/* load FILE, configure replace FILE: their own transaction; errors say the
 * command ("load: FILE: why", "load: FILE:LINE: ...") */
/*
 * What a committed change leaves that its answer says, beside its own
 * warnings: a port whose driver refused to set its link up (out of service
 * while not set down), and routes a port coming up could not put back
 * (table full). Noted before the change (after_note()), said after its
 * commit (after_say()), as text lines "warning: ...\n".
 */
struct after {
	uint32_t stranded;
	uint64_t refused[(FR_MAX_PORTS + 63) / 64];
};

static bool link_refused(const struct router *r, uint16_t pid)
{
	const struct fr_port *p = &r->ports[pid];

	return p->present && !p->admin_down && p->link_set_err != 0 && p->link_set_err != -ENOTSUP;
}

static void after_note(const struct router *r, struct after *a)
{
	uint16_t pid;

	memset(a, 0, sizeof(*a));
	a->stranded = r->fib != NULL ? fib_route_stranded(r->fib) : 0;
	for (pid = 0; pid < r->nb_ports; pid++)
		if (link_refused(r, pid))
			a->refused[pid / 64] |= 1ull << (pid % 64);
}

/* A port refused before is said again only when @c (NULL: a file) set it up. */
static void after_say(const struct router *r, const struct after *a, const struct cmd *c,
		      struct cmd_out *o)
{
	uint32_t stranded = r->fib != NULL ? fib_route_stranded(r->fib) : 0;
	uint16_t pid;

	for (pid = 0; pid < r->nb_ports; pid++)
		if (link_refused(r, pid) &&
		    (!(a->refused[pid / 64] & (1ull << (pid % 64))) ||
		     (c != NULL && c->id == CMD_PORT_ADMIN && c->port == pid)))
			out_printf(o,
				   "warning: port %u: its link could not be set up (%s): out of "
				   "service until it is up ('show port info')\n",
				   pid, rte_strerror(-r->ports[pid].link_set_err));
	if (stranded > a->stranded)
		out_printf(o,
			   "warning: %u routes could not be put back (table full): withdrawn, "
			   "retried as routes leave the table; 'show route' marks them\n",
			   stranded - a->stranded);
}

/* JSON array @key of @text's lines (each ends in '\n'; @text is changed) */
static void jw_lines(struct cmd_out *o, const char *key, char *text)
{
	char *s = text, *nl;

	jw_arr_open(o, key);
	while (s != NULL && (nl = strchr(s, '\n')) != NULL) {
		*nl = '\0';
		jw_str(o, NULL, s);
		s = nl + 1;
	}
	jw_arr_close(o);
}

static int exec_file(struct router *r, const struct cmd *c, struct cmd_out *o, char *err,
		     size_t errlen)
{
	const bool replace = c->id == CMD_CONFIGURE_REPLACE;
	const char *pfx = replace ? "configure replace: " : "load: ";
	const size_t pl = errlen > strlen(pfx) ? strlen(pfx) : 0;
	struct cmd_out warn = {0};
	struct config_result res = {.warn = &warn};
	struct after a;
	int rc;

	after_note(r, &a);
	rc = replace ? config_replace(r, c->arg, &res, err + pl, errlen - pl)
		     : config_load(r, c->arg, false, &res, err + pl, errlen - pl);
	if (rc != 0) {
		out_free(&warn);
		memcpy(err, pfx, pl);
		return rc;
	}
	after_say(r, &a, NULL, &warn);
	if (o->json) {
		jw_obj_open(o, NULL);
		jw_str(o, "file", c->arg);
		/* each "FILE:LINE: warning: ..." its lines said (warn_lines()),
		 * then what its commit left (after_say()) */
		jw_lines(o, "warnings", warn.buf);
		out_free(&warn);
		jw_u64(o, "commands", res.cmds);
		jw_u64(o, "routes", res.routes);
		if (replace) {
			jw_u64(o, "unchanged", res.unchanged);
			jw_u64(o, "applied", res.cmds - res.unchanged);
			jw_u64(o, "removed", res.removed);
			jw_u64(o, "settings_reset", res.reset);
		}
		jw_dbl(o, "seconds", res.seconds);
		jw_obj_close(o);
		return 0;
	}
	if (warn.len > 0)
		out_printf(o, "%s", warn.buf);
	out_free(&warn);
	out_printf(o, "%s %s: %u command%s (%u route%s)",
		   replace ? "replaced the configuration with" : "loaded", c->arg, res.cmds,
		   res.cmds == 1 ? "" : "s", res.routes, res.routes == 1 ? "" : "s");
	if (replace)
		out_printf(o,
			   ", %u unchanged, %u applied; %u removed (not in the file), %u "
			   "setting%s back to start values;",
			   res.unchanged, res.cmds - res.unchanged, res.removed, res.reset,
			   res.reset == 1 ? "" : "s");
	out_printf(o, " in %.3f s", res.seconds);
	if (!replace && res.routes >= 1000 && res.seconds > 0)
		out_printf(o, ", %.0f routes/s", res.routes / res.seconds);
	out_printf(o, "\n");
	return 0;
}

int cmd_exec(struct router *r, struct txn *t, const struct cmd *c, enum cmd_src src,
	     struct cmd_out *o, char *err, size_t errlen)
{
	if (src == CMD_SRC_FILE) {
		int rc = cmd_file_check(r, c, err, errlen);

		if (rc != 0)
			return rc;
	}
	switch (c->id) {
	case CMD_PORT_ADDR_ADD:
		return exec_addr_add(t, c, err, errlen);
	case CMD_PORT_ADDR_DEL: {
		int rc = exec_addr_del(t, c, err, errlen);
		unsigned int n;
		struct fr_prefix net = c->prefix;
		char buf[FR_ADDR_STRLEN];

		/* said on the CLI (JSON: in "warnings", cmd_run_line()), and by
		 * a file's load (config_load()) */
		if (rc != 0)
			return rc;
		fr_addr_mask(&net.addr, net.len);
		n = addr_gone_gateways(r, (uint16_t)c->port, &net);
		if (n > 0)
			out_printf(o,
				   "warning: %u route%s via gateways in %s stay%s on port %u, "
				   "their gateways off its subnets now ('show route' lists them: "
				   "'route replace' or 'route del' them)\n",
				   n, n == 1 ? "" : "s", fr_prefix_fmt(&net, buf, sizeof(buf)),
				   n == 1 ? "s" : "", c->port);
		return rc;
	}
	case CMD_ROUTE_ADD:
	case CMD_ROUTE_REPLACE:
	case CMD_ROUTE_DEL:
		return exec_route(t, c, err, errlen);
	case CMD_NEIGH_ADD:
	case CMD_NEIGH_DEL:
		return exec_neigh(t, c, err, errlen);
	case CMD_SET_NEIGH:
		return exec_set_neigh(t, c, err, errlen);
	case CMD_PORT_MTU:
	case CMD_PORT_RPF:
	case CMD_PORT_REDIRECTS:
	case CMD_PORT_ADMIN:
	case CMD_PORT_HOLD:
	case CMD_PORT_RA:
	case CMD_SET_IP_MARTIANS:
	case CMD_SET_IP_DBCAST:
	case CMD_SET_IP_MPHASH:
	case CMD_SET_ICMP_RATE:
	case CMD_SET_IP_REASM:
	case CMD_RTCACHE_MODE:
	case CMD_RTCACHE_SIZE:
		return exec_setting(t, c, err, errlen);
	case CMD_CLEAR_STATS: {
		unsigned int late = router_stats_clear(r), unread;
		int n = 0;

		neigh_stats_clear(r->neigh);
		unread = port_stats_clear(r);
		/* the rest is cleared; say what is not rather than show a
		 * total that no longer adds up as if it did */
		if (late > 0)
			n = snprintf(
				err, errlen,
				"%u worker(s) did not zero their counters within a second (busy or "
				"descheduled); they will at their next loop: show stats may not "
				"add up until then",
				late);
		if (unread > 0 && n >= 0 && (size_t)n < errlen)
			snprintf(err + n, errlen - (size_t)n,
				 "%s%u port(s) did not give all their device counters to record: "
				 "show port stats shows those as the device counts them",
				 n > 0 ? "; " : "", unread);
		if (late > 0)
			return -ETIMEDOUT;
		return unread > 0 ? -EIO : 0;
	}
	case CMD_LOAD:
	case CMD_CONFIGURE_REPLACE:
		return exec_file(r, c, o, err, errlen);
	case CMD_HELP:
		if (strcmp(c->arg, "--keywords") == 0)
			cmd_keywords(keyword_line, o); /* for fastroute-cli's completion */
		else if (cmd_help(o, c->arg) == 0)
			return ERRC(-ENOENT, "no command starts with '%s'; 'help' lists them all",
				    c->arg);
		return 0;
	case CMD_QUIT:
		o->quit = true;
		return 0;
	default:
		return cmd_show(r, c, o, err, errlen);
	}
}

int cmd_run_line(struct router *r, const char *line, struct cmd_out *o)
{
	char err[CMD_ERR_LEN];
	struct after a;
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
	/* a show is answered; a change is not run from a line that may have
	 * been cut short (what was sent may have been longer) */
	if (o->cut && (c.id <= CMD_CONFIG_LAST || c.id == CMD_CLEAR_STATS || c.id == CMD_LOAD ||
		       c.id == CMD_CONFIGURE_REPLACE)) {
		out_printf(o, "error: the last line came without its newline (cut short?): a "
			      "change is not run from it\n");
		return -EINVAL;
	}
	t = txn_begin(r);
	if (t == NULL) {
		out_printf(o, "error: out of memory\n");
		return -ENOMEM;
	}
	after_note(r, &a);
	rc = cmd_exec(r, t, &c, CMD_SRC_CLI, o, err, sizeof(err));
	if (rc != 0) {
		txn_rollback_said(t, err, sizeof(err));
		o->len = 0; /* no partial output with an error */
		out_printf(o, "error: %s\n", err);
		return rc;
	}
	txn_commit(t);
	/* the command is done, but a driver that refused to set the link up
	 * leaves the port out of service: said, not only logged (a file's
	 * load says it in its own answer, exec_file()) */
	if (c.id == CMD_LOAD || c.id == CMD_CONFIGURE_REPLACE || c.id > CMD_CONFIG_LAST)
		return 0;
	if (!o->json) {
		after_say(r, &a, &c, o);
	} else {
		/* a change answers nothing in JSON, unless it warns: then
		 * {"warnings": [...]}, its own lines and its commit's */
		struct cmd_out w = {0};

		if (o->len > 0)
			out_printf(&w, "%.*s", (int)o->len, o->buf);
		after_say(r, &a, &c, &w);
		o->len = 0;
		if (w.len > 0) {
			jw_obj_open(o, NULL);
			jw_lines(o, "warnings", w.buf);
			jw_obj_close(o);
		}
		out_free(&w);
	}
	return 0;
}
