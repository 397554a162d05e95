/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The merged FIB: RIB (rte_rib) + lookup structure (rte_fib DIR-24-8 or
 * rte_lpm) + next-hop table, one writer, lock-free readers.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_mempool.h>
#include <rte_ring_elem.h>

#include "fib_priv.h"
#include "neigh.h"

const char *const fib_nh_type_names[FIB_NH_TYPE_MAX] = {
	[FIB_NH_NONE] = "none",
	[FIB_NH_GATEWAY] = "unicast",
	[FIB_NH_CONNECTED] = "connected",
	[FIB_NH_LOCAL] = "local",
	[FIB_NH_BROADCAST] = "broadcast",
	[FIB_NH_BLACKHOLE] = "blackhole",
	[FIB_NH_UNREACHABLE] = "unreachable",
	[FIB_NH_PROHIBIT] = "prohibit",
	[FIB_NH_MULTIPATH] = "multipath",
};

const char *const fib_origin_names[FIB_ORIGIN_MAX] = {
	[FIB_ORIGIN_STATIC] = "static",
	[FIB_ORIGIN_PORT] = "port",
	[FIB_ORIGIN_SYSTEM] = "system",
};

/* A 2-byte rte_fib entry holds 15 bits of next-hop index or tbl8 group
 * number (the 16th marks a group): the defaults stay within them, so the
 * IPv4 tbl24 takes 32 MiB instead of 64 and much of it stays in the
 * last-level cache. Larger --max-nexthops or --tbl8 switch to 4 bytes. */
#define MAX_NH_2B	    (1u << 15)	     /* indexes 0 .. 32767 */
#define MAX_TBL8S_2B	    ((1u << 15) - 1) /* rte_fib: groups <= the largest next hop */
#define DEFAULT_MAX_ROUTES4 (1u << 20)
#define DEFAULT_TBL8S4	    MAX_TBL8S_2B
#define DEFAULT_MAX_NH	    MAX_NH_2B
#define DEFAULT_MAX_ROUTES6 (1u << 16)
#define DEFAULT_TBL8S6	    (1u << 14)
/* rte_lpm keeps 24 bits of next hop; rte_fib 4-byte entries keep 31 */
#define MAX_NH_LIMIT (1u << 24)

/* The width of a tbl24/tbl8 entry (rte_fib, rte_fib6) for these sizes. */
static uint32_t entry_bytes(uint32_t nh, uint32_t tbl8s4, uint32_t tbl8s6)
{
	/* the IPv6 trie gets one group more (fib6_create()) */
	return nh <= MAX_NH_2B && tbl8s4 <= MAX_TBL8S_2B && tbl8s6 + 1 <= MAX_TBL8S_2B ? 2 : 4;
}

/*
 * The tbl8 groups rte_fib's DIR-24-8 is created with: one more than the
 * routes may reserve (tbl8s4), rounded up to its bitmap's 64 as it rounds.
 * A change whose range starts inside a /24 that has no group yet (a
 * covering route replaced under more-specific routes that share its next
 * hop) checks for two free groups, the one it takes and a spare: with
 * every group reserved and taken, 22.11 would stop it half way (a replace
 * reported done with the old next hop in the RIB, a delete refused). The
 * reservations are capped at tbl8s4 in dp4_set(), so the spare is there.
 */
static uint32_t dir24_8_groups(uint32_t tbl8s4)
{
	return RTE_ALIGN_CEIL(tbl8s4 + 1, 64);
}

/* rte_fib's DIR-24-8 name for f->nh_bytes */
static enum rte_fib_dir24_8_nh_sz dir24_8_nh_sz(const struct fib *f)
{
	return f->nh_bytes == 2 ? RTE_FIB_DIR24_8_2B : RTE_FIB_DIR24_8_4B;
}

/* rte_fib's DIR-24-8 struct (see fib4_tbl24()), when the words we know read
 * back as configured (rte_fib rounds the group count up to a bitmap slab
 * of 64), else NULL. */
static uint32_t *dir24_8_dp(const struct fib *f)
{
	uint32_t *dp = rte_fib_get_dp(f->fib4);

	if (dp != NULL && dp[0] == dir24_8_groups(f->tbl8s4) && dp[2] <= dp[0] &&
	    dp[3] == (uint32_t)dir24_8_nh_sz(f))
		return dp;
	return NULL;
}

/* DIR-24-8's bitmap of the groups in use (a bit set each; after the tbl8
 * pointer, the struct's fifth 64-bit word), where the layout is vouched
 * for and fastroute has its copy's room (tbl8_seen), else NULL. */
static const uint64_t *dir24_8_used(const struct fib *f)
{
#if FIB4_DIR24_8_KNOWN
	const uint32_t *dp = f->tbl8_seen != NULL ? dir24_8_dp(f) : NULL;

	if (dp != NULL)
		return (const uint64_t *)(uintptr_t)((const uint64_t *)(const void *)dp)[4];
#else
	RTE_SET_USED(f);
#endif
	return NULL;
}

static int backend_create4(struct fib *f, int socket_id)
{
	char name[32];

	if (f->backend == FIB_BACKEND_FIB) {
		struct rte_fib_conf fc = {0};

		fc.type = RTE_FIB_DIR24_8;
		fc.default_nh = 0;
		fc.max_routes = (int)f->max_routes4;
		fc.dir24_8.nh_sz = dir24_8_nh_sz(f);
		/* rounded up to dir24_8_groups(); DPDK takes no more than the
		 * entries index (2 bytes: 32767, which it rounds to 32768) */
		fc.dir24_8.num_tbl8 = f->nh_bytes == 2 && f->tbl8s4 + 1 > MAX_TBL8S_2B
					      ? MAX_TBL8S_2B
					      : f->tbl8s4 + 1;
		snprintf(name, sizeof(name), "f4_%s", f->name);
		f->fib4 = rte_fib_create(name, socket_id, &fc);
		if (f->fib4 == NULL)
			return -(rte_errno ? rte_errno : ENOMEM);
		f->rib4 = rte_fib_get_rib(f->fib4);
		if (FIB4_DIR24_8_KNOWN && dir24_8_dp(f) != NULL) {
			/* the groups seen in use (tbl8_note()), as DPDK's bitmap */
			f->tbl8_words = dir24_8_groups(f->tbl8s4) / 64;
			f->tbl8_seen = rte_zmalloc_socket(
				"tbl8_seen", f->tbl8_words * sizeof(uint64_t), 0, socket_id);
			if (f->tbl8_seen == NULL)
				return -ENOMEM;
		}
		return 0;
	} else {
		struct rte_lpm_config lc = {0};
		struct rte_rib_conf rc = {0};

		lc.max_rules = f->max_routes4;
		lc.number_tbl8s = f->tbl8s4;
		snprintf(name, sizeof(name), "l4_%s", f->name);
		f->lpm4 = rte_lpm_create(name, socket_id, &lc);
		if (f->lpm4 == NULL)
			return -(rte_errno ? rte_errno : ENOMEM);
		if (f->qsv != NULL) {
			struct rte_lpm_rcu_config rcu = {0};

			rcu.v = f->qsv;
			/* tbl8 groups freed by a delete wait for a grace period */
			rcu.mode = RTE_LPM_QSBR_MODE_DQ;
			if (rte_lpm_rcu_qsbr_add(f->lpm4, &rcu) != 0)
				return -(rte_errno ? rte_errno : EINVAL);
		}
		rc.max_nodes = (int)(f->max_routes4 * 2);
		snprintf(name, sizeof(name), "r4_%s", f->name);
		f->rib4 = rte_rib_create(name, socket_id, &rc);
		if (f->rib4 == NULL)
			return -(rte_errno ? rte_errno : ENOMEM);
		return 0;
	}
}

struct fib *fib_create(const char *name, const struct fib_conf *conf)
{
	struct fib *f;
	uint32_t max_nh;
	int rc;

	if (name == NULL || conf == NULL || strlen(name) >= 16 ||
	    (conf->backend != FIB_BACKEND_FIB && conf->backend != FIB_BACKEND_LPM) ||
	    conf->max_nexthops > MAX_NH_LIMIT ||
	    (conf->max_nexthops != 0 && conf->max_nexthops < 2)) {
		errno = EINVAL;
		return NULL;
	}
	f = rte_zmalloc_socket("fib", sizeof(*f), RTE_CACHE_LINE_SIZE, conf->socket_id);
	if (f == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->mp_seed = (rte_rand() ^ rte_rdtsc()) | 1;
	f->backend = conf->backend;
	f->max_routes4 = conf->max_routes4 ? conf->max_routes4 : DEFAULT_MAX_ROUTES4;
	f->tbl8s4 = conf->tbl8s4 ? conf->tbl8s4 : DEFAULT_TBL8S4;
	f->max_routes6 = conf->max_routes6 ? conf->max_routes6 : DEFAULT_MAX_ROUTES6;
	f->tbl8s6 = conf->tbl8s6 ? conf->tbl8s6 : DEFAULT_TBL8S6;
	f->neigh = conf->neigh;
	f->qsv = conf->qsv;
	max_nh = conf->max_nexthops ? conf->max_nexthops : DEFAULT_MAX_NH;
	f->nh_bytes = (uint8_t)entry_bytes(max_nh, f->tbl8s4, f->tbl8s6);
	rc = fib_nh_init(f, max_nh, conf->socket_id);
	if (rc == 0)
		rc = backend_create4(f, conf->socket_id);
	if (rc == 0)
		rc = fib6_create(f, conf->socket_id);
	if (rc != 0) {
		fib_free(f);
		errno = -rc;
		return NULL;
	}
	return f;
}

void fib_free(struct fib *f)
{
	if (f == NULL)
		return;
	if (f->fib4 != NULL)
		rte_fib_free(f->fib4); /* frees its RIB too */
	if (f->lpm4 != NULL) {
		rte_lpm_free(f->lpm4);
		rte_rib_free(f->rib4);
	}
	fib6_free(f);
	fib_down_free(f);
	fib_nh_fini(f);
	rte_free(f->tbl8_seen);
	rte_free(f);
}

const char *fib_backend_name(const struct fib *f)
{
	return f->backend == FIB_BACKEND_FIB ? "fib" : "lpm";
}

void fib_gen_bump(struct fib *f)
{
	/* release: a worker that loads the new generation (acquire) also sees
	 * every table store made for this change. Each change, even one of
	 * many (a load, a port going down): the tables the workers read have
	 * it at once, so the route cache must drop what it decided before */
	__atomic_store_n(&f->gen, f->gen + 1, __ATOMIC_RELEASE);
}

uint64_t fib_generation(const struct fib *f)
{
	return __atomic_load_n(&f->gen, __ATOMIC_ACQUIRE);
}

void fib_invalidate(struct fib *f)
{
	fib_gen_bump(f);
}

static struct rte_rib_node *rib4_exact(const struct fib *f, const struct fr_prefix *p)
{
	return rte_rib_lookup_exact(f->rib4, p->addr.v4, p->len);
}

/* Fill @r from a RIB node. */
/* Type, port, gateway and origin of a route from its next hop. */
void fib_route_from_nh(const struct fib *f, uint32_t nh, struct fib_route *r)
{
	const struct nh_ctl *c = &f->nhc[nh];

	r->nh_idx = nh;
	r->origin = c->key.origin;
	r->type = c->key.type;
	r->port = c->key.port;
	memset(&r->gw, 0, sizeof(r->gw));
	if (c->key.type == FIB_NH_GATEWAY) {
		r->gw.family = c->key.family;
		if (c->key.family == AF_INET)
			memcpy(&r->gw.v4, c->key.gw, sizeof(r->gw.v4));
		else
			memcpy(r->gw.v6, c->key.gw, 16);
	}
}

static void route_from_node(const struct fib *f, const struct rte_rib_node *n, struct fib_route *r)
{
	uint32_t ip;
	uint8_t depth;
	uint64_t nh;

	memset(r, 0, sizeof(*r));
	rte_rib_get_ip(n, &ip);
	rte_rib_get_depth(n, &depth);
	rte_rib_get_nh(n, &nh);
	r->prefix.addr = fr_addr4(ip);
	r->prefix.len = depth;
	fib_route_from_nh(f, (uint32_t)nh, r);
}

static int route_get_installed(const struct fib *f, const struct fr_prefix *p, struct fib_route *r)
{
	struct rte_rib_node *n;

	if (p->addr.family == AF_INET6)
		return fib6_route_get(f, p, r);
	if (p->addr.family != AF_INET)
		return -EAFNOSUPPORT;
	n = rib4_exact(f, p);
	if (n == NULL)
		return -ENOENT;
	route_from_node(f, n, r);
	return 0;
}

int fib_route_get(const struct fib *f, const struct fr_prefix *p, struct fib_route *r)
{
	int rc = route_get_installed(f, p, r), i;

	if (rc == -ENOENT && (i = fib_down_find(f, p)) >= 0) {
		fib_down_get(f, (uint32_t)i, r);
		rc = 0;
	}
	return rc;
}

int fib_route_lookup(const struct fib *f, const struct fr_addr *a, struct fib_route *r)
{
	struct rte_rib_node *n;

	if (a->family == AF_INET6)
		return fib6_route_lookup(f, a, r);
	if (a->family != AF_INET)
		return -EAFNOSUPPORT;
	n = rte_rib_lookup(f->rib4, a->v4);
	if (n == NULL)
		return -ENOENT;
	route_from_node(f, n, r);
	return 0;
}

int fib_route_parent(const struct fib *f, const struct fr_prefix *p, struct fib_route *r)
{
	struct rte_rib_node *n;

	if (p->addr.family == AF_INET6)
		return fib6_route_parent(f, p, r);
	n = rib4_exact(f, p);
	n = n != NULL ? rte_rib_lookup_parent(n) : NULL;
	if (n == NULL)
		return -ENOENT;
	route_from_node(f, n, r);
	return 0;
}

/* Longest match of a gateway, remembered until a change covers it. */
static int gw_lookup(struct fib *f, const struct fr_addr *gw, struct fib_route *via)
{
	if (f->gw_cache.valid && fr_addr_eq(&f->gw_cache.gw, gw)) {
		*via = f->gw_cache.via;
		return f->gw_cache.rc;
	}
	f->gw_cache.rc = fib_route_lookup(f, gw, &f->gw_cache.via);
	f->gw_cache.gw = *gw;
	f->gw_cache.valid = true;
	*via = f->gw_cache.via;
	return f->gw_cache.rc;
}

/* A route for @p changed: forget a cached gateway it covers. */
void fib_gw_cache_check(struct fib *f, const struct fr_prefix *p)
{
	if (f->gw_cache.valid && fr_prefix_contains(p, &f->gw_cache.gw))
		f->gw_cache.valid = false;
}

int fib_gw_via(struct fib *f, const struct fib_route *r, struct fib_route *via)
{
	int rc = gw_lookup(f, &r->gw, via);

	/* a replace resolves its gateway as an add of the new route would:
	 * without the route it replaces (a gateway inside its own prefix is
	 * found by the route that holds that prefix) */
	if (rc == 0 && fr_prefix_eq(&via->prefix, &r->prefix))
		rc = fib_route_parent(f, &r->prefix, via);
	if (f->down.n > 0) {
		/* a route waiting for its port (a 'dev' route) still says
		 * where its gateways are, as it would in a RIB */
		struct fib_route w;

		/* (not the route replaced: a shorter one waiting holds the
		 * gateway then, as fib_route_parent()) */
		if (fib_down_lookup(f, &r->gw, &r->prefix, &w) == 0 &&
		    (rc != 0 || w.prefix.len > via->prefix.len)) {
			*via = w;
			rc = 0;
		}
	}
	return rc;
}

/* Work out the next-hop key of @r, resolving the gateway's port. */
int fib_nh_key_make(struct fib *f, struct fib_route *r, struct nh_key *k)
{
	struct fib_route via;
	int rc;

	memset(k, 0, sizeof(*k));
	k->type = r->type;
	k->origin = r->origin;
	k->family = r->prefix.addr.family;
	if (r->prefix.len == 0)
		k->flags = FIB_NHF_DEFAULT;
	k->port = FIB_PORT_NONE;
	switch (r->type) {
	case FIB_NH_GATEWAY:
		if (r->gw.family != r->prefix.addr.family)
			return -EINVAL;
		/* fe80::/10 names a neighbour only together with its link */
		if (r->gw.family == AF_INET6 && r->gw.v6[0] == 0xfe &&
		    (r->gw.v6[1] & 0xc0) == 0x80 && r->port == FIB_PORT_NONE)
			return -EDESTADDRREQ;
		rc = fib_gw_via(f, r, &via);
		if (rc == 0 && (via.type == FIB_NH_LOCAL || via.type == FIB_NH_BROADCAST))
			return -EINVAL; /* a gateway cannot be one of our addresses */
		if (r->port == FIB_PORT_NONE) {
			if (rc != 0 || via.type != FIB_NH_CONNECTED)
				return -ENETUNREACH;
			r->port = via.port;
		}
		k->port = r->port;
		if (r->gw.family == AF_INET)
			memcpy(k->gw, &r->gw.v4, sizeof(r->gw.v4));
		else
			memcpy(k->gw, r->gw.v6, 16);
		break;
	case FIB_NH_CONNECTED:
	case FIB_NH_LOCAL:
		if (r->port == FIB_PORT_NONE)
			return -EINVAL;
		k->port = r->port;
		memset(&r->gw, 0, sizeof(r->gw));
		break;
	case FIB_NH_BROADCAST: /* 255.255.255.255 belongs to no port */
		k->port = r->port;
		memset(&r->gw, 0, sizeof(r->gw));
		break;
	case FIB_NH_BLACKHOLE:
	case FIB_NH_UNREACHABLE:
	case FIB_NH_PROHIBIT:
		r->port = FIB_PORT_NONE;
		memset(&r->gw, 0, sizeof(r->gw));
		break;
	case FIB_NH_MULTIPATH: {
		/* the gateways of a multipath next hop held for it
		 * (fib_mp_get(), or the route's own as fib_route_get() gave
		 * it): this route's own next hop shares them */
		const struct nh_ctl *g = r->nh_idx < f->nh_cap ? &f->nhc[r->nh_idx] : NULL;

		if (g == NULL || r->nh_idx == 0 || !g->in_use || g->key.type != FIB_NH_MULTIPATH ||
		    g->key.family != k->family)
			return -EINVAL;
		memcpy(k->members, g->key.members, sizeof(k->members));
		memcpy(k->weights, g->key.weights, sizeof(k->weights));
		r->port = FIB_PORT_NONE;
		memset(&r->gw, 0, sizeof(r->gw));
		break;
	}
	default:
		return -EINVAL;
	}
	return 0;
}

static int route_check(const struct fib_route *r);

int fib_mp_get(struct fib *f, const struct fib_route *r, struct fib_mp_member *m, unsigned int n,
	       uint32_t *idx, unsigned int *bad)
{
	uint32_t mem[FIB_MP_MAX] = {0};
	struct nh_key k;
	unsigned int i, j, got = 0, sum = 0;
	int rc = 0;

	*bad = n;
	if (n < 2 || n > FIB_MP_MAX || route_check(r) != 0)
		return -EINVAL;
	for (i = 0; i < n; i++)
		sum += m[i].weight != 0 ? m[i].weight : 1;
	if (sum > FIB_MP_BUCKETS)
		return -E2BIG;
	for (i = 0; i < n && rc == 0; i++) {
		struct fib_route g = *r;

		g.type = FIB_NH_GATEWAY;
		g.gw = m[i].gw;
		g.port = m[i].port;
		rc = fib_nh_key_make(f, &g, &k);
		if (rc == 0)
			rc = fib_nh_get(f, &k, &mem[i]);
		if (rc != 0) {
			*bad = i;
			break;
		}
		got++;
		m[i].port = g.port;
		for (j = 0; j < i; j++)
			if (mem[j] == mem[i]) {
				*bad = i;
				rc = -EEXIST;
			}
	}
	if (rc == 0) {
		memset(&k, 0, sizeof(k));
		k.type = FIB_NH_MULTIPATH;
		k.origin = r->origin;
		k.family = r->prefix.addr.family;
		k.flags = r->prefix.len == 0 ? FIB_NHF_DEFAULT : 0;
		k.port = FIB_PORT_NONE;
		memcpy(k.members, mem, sizeof(k.members));
		for (i = 0; i < n; i++)
			k.weights[i] = m[i].weight != 0 ? m[i].weight : 1;
		rc = fib_nh_get(f, &k, idx);
	}
	/* the group holds its gateways now (or nothing was made) */
	for (i = 0; i < got; i++)
		fib_nh_put(f, mem[i]);
	return rc;
}

unsigned int fib_mp_members(const struct fib *f, uint32_t idx, struct fib_mp_member *m)
{
	const struct nh_ctl *g;
	unsigned int i;
	struct fib_route gw;

	if (idx == 0 || idx >= f->nh_cap || !f->nhc[idx].in_use)
		return 0;
	g = &f->nhc[idx];
	if (g->key.type != FIB_NH_MULTIPATH)
		return 0;
	for (i = 0; i < FIB_MP_MAX && g->key.members[i] != 0; i++) {
		fib_route_from_nh(f, g->key.members[i], &gw);
		m[i].gw = gw.gw;
		m[i].port = gw.port;
		m[i].weight = g->key.weights[i];
	}
	return i;
}

uint64_t fib_mp_seed(const struct fib *f)
{
	return f->mp_seed;
}

const struct fib_mp *fib_mp_table(const struct fib *f)
{
	return f->mp;
}

int fib_route_lookup_flow(const struct fib *f, const struct fr_addr *a, const struct fr_addr *src,
			  uint32_t l4, struct fib_route *r)
{
	const struct fib_mp *g;
	struct fr_prefix p;
	uint32_t h = 0, i, s, mi;
	bool up = false;
	int rc = fib_route_lookup(f, a, r);

	if (rc != 0 || r->type != FIB_NH_MULTIPATH)
		return rc;
	if (src != NULL && src->family == a->family)
		h = a->family == AF_INET ? fib_mp_hash(f->mp_seed, src->v4, a->v4 ^ l4)
					 : fib_mp_hash6(f->mp_seed, src->v6, a->v6, l4);
	/* as the data path's mp_pick(): the first from the hash's whose port
	 * is in service and whose neighbour is not doubtful, or else the
	 * first whose port is, or else the hash's */
	g = &f->mp[f->nh[r->nh_idx].neigh];
	s = g->bucket[fib_mp_slot(h, g->nb)];
	mi = g->nh[s];
	for (i = 0; i < g->n; i++) {
		uint32_t c = g->nh[(s + i) % g->n];

		if (fib_port_is_down(f, f->nh[c].port))
			continue;
		if (!up)
			mi = c;
		up = true;
		if (f->neigh == NULL || f->nh[c].neigh == FIB_NEIGH_NONE ||
		    !neigh_state_doubtful(neigh_word_state(
			    neigh_word(neigh_hot_table(f->neigh), f->nh[c].neigh)))) {
			mi = c;
			break;
		}
	}
	p = r->prefix;
	fib_route_from_nh(f, mi, r);
	r->prefix = p;
	return 0;
}

static int route_check(const struct fib_route *r)
{
	struct fr_addr m;

	if ((r->prefix.addr.family != AF_INET && r->prefix.addr.family != AF_INET6) ||
	    r->prefix.len > fr_family_bits(r->prefix.addr.family) || r->origin >= FIB_ORIGIN_MAX)
		return -EINVAL;
	m = r->prefix.addr;
	fr_addr_mask(&m, r->prefix.len);
	if (!fr_addr_eq(&m, &r->prefix.addr))
		return -EINVAL;
	return 0;
}

/* Store @nh for the prefix in the lookup structure and the RIB. */
/*
 * DPDK 22.11's DIR-24-8 reserves a tbl8 group for each /24 that holds
 * routes longer than /24, counting the first such route in and the last one
 * out, except that an add whose covering route has the same next hop
 * returns before counting it in: its delete still counts it out, the count
 * goes below zero (it is unsigned) and from then on every route longer
 * than /24 is refused as if the groups had run out ('route add
 * 10.0.0.0/8 via G', 'route add 10.1.2.0/25 via G', 'route del
 * 10.1.2.0/25'). Such an add is told apart here and counted in after it,
 * in the struct's second word (rsvd_tbl8s, see fib4_tbl24()), where the
 * layout is known (22.11, the words we configured read back); the /24 then
 * has its reservation, as it needs once the covering route changes.
 */
static uint32_t *dir24_8_words(const struct fib *f)
{
#if FIB4_DIR24_8_KNOWN
	uint32_t *dp = dir24_8_dp(f);

	if (dp != NULL && dp[1] < dp[0])
		return dp;
#else
	RTE_SET_USED(f);
#endif
	return NULL;
}

/* Will rte_fib_add() of @ip/>24 with @nh, the first route longer than /24
 * in its /24 (which has no reservation yet), skip its reservation? */
static bool dir24_8_skips_reserve(const struct fib *f, uint32_t ip, uint32_t nh)
{
	struct rte_rib_node *n;
	uint64_t pnh;

	if (dir24_8_words(f) == NULL)
		return false;
	n = rte_rib_lookup(f->rib4, ip); /* the covering route it will have */
	return n != NULL && rte_rib_get_nh(n, &pnh) == 0 && pnh == nh;
}

/* After the add: count it in, unless this DPDK did (a 22.11 with the fix) */
static void dir24_8_reserve(const struct fib *f, uint32_t before)
{
	uint32_t *dp = dir24_8_words(f);

	if (dp != NULL && dp[1] == before)
		dp[1]++;
}

/*
 * DPDK 22.11's DIR-24-8 has no RCU hook: a tbl8 group that a change
 * collapsed is free at once, and the next change that takes a group may
 * take it while a worker that read the old tbl24 entry still indexes into
 * it (it would see another prefix's next hop). So before a change that may
 * take a group, if a group in use since the last grace period is free now,
 * wait until every worker has been quiescent since. An add longer than /24
 * may take one; so may any other change (a covering route's add, replace
 * or delete writing ranges that start inside a /24) where a /24 holding
 * longer routes has its group reserved but not taken (they share their
 * cover's next hop: reserved > taken, the struct's second and third words).
 * "A group in use since, free now" is known exactly from DIR-24-8's bitmap
 * of groups in use, ORed into tbl8_seen after every change (tbl8_note()):
 * a change that frees one and takes another counts. Where the layout is not
 * vouched for, every change counts as one that freed, and only adds longer
 * than /24 wait. A change waits only after one that collapsed a group (a
 * delete, a replace, or an add that made a /24 uniform). Workers that read a group
 * while it is being zeroed get next hop 0 (no route) for that one lookup;
 * that is counted, never misdelivered. A group freed and taken again within
 * one change is beyond this (22.11 takes the lowest free one).
 */
static void tbl8_wait(struct fib *f, bool longer24)
{
	const uint32_t *dp;
	const uint64_t *used;

	if (!f->tbl8_dirty || f->qsv == NULL)
		return;
	dp = dir24_8_dp(f);
	if (!longer24 && (dp == NULL || dp[1] <= dp[2]))
		return;
	rte_rcu_qsbr_synchronize(f->qsv, RTE_QSBR_THRID_INVALID);
	f->tbl8_dirty = false;
	used = dir24_8_used(f);
	if (used != NULL) /* from now on, what is in use now */
		memcpy(f->tbl8_seen, used, f->tbl8_words * sizeof(uint64_t));
}

/* After a change: is a group that was in use since the last grace period
 * free now? Those in use now join them. */
static void tbl8_note(struct fib *f)
{
	const uint64_t *used;
	uint64_t freed = 0;
	uint32_t i;

	if (f->qsv == NULL)
		return; /* no concurrent readers: nothing to wait for */
	used = dir24_8_used(f);
	if (used == NULL) {
		f->tbl8_dirty = true;
		return;
	}
	for (i = 0; i < f->tbl8_words; i++) {
		freed |= f->tbl8_seen[i] & ~used[i];
		f->tbl8_seen[i] |= used[i];
	}
	if (freed != 0)
		f->tbl8_dirty = true;
}

int fib_tbl8_usage(const struct fib *f, uint8_t family, struct fib_tbl8_usage *u)
{
	const uint32_t *dp;

	if (family == AF_INET6)
		return fib6_tbl8_usage(f, u);
	dp = FIB4_DIR24_8_KNOWN && f->backend == FIB_BACKEND_FIB ? dir24_8_dp(f) : NULL;
	if (dp == NULL)
		return -ENOTSUP;
	u->taken = dp[2];
	u->reserved = dp[1];
	u->total = f->tbl8s4;
	return 0;
}

static int dp4_set(struct fib *f, const struct fib_route *r, uint32_t nh, bool exists)
{
	struct rte_rib_node *n;
	uint32_t ip = r->prefix.addr.v4;
	uint8_t depth = r->prefix.len;
	bool unreserved, first24;
	uint32_t rsvd;
	int rc;

	if (!exists && fib_table_full(f, &r->prefix))
		return -ENOSPC;
	if (f->backend == FIB_BACKEND_FIB) {
		tbl8_wait(f, depth > 24);
		/* a route longer than /24 first in its /24 reserves a group:
		 * no more than tbl8s4, the spare stays (dir24_8_groups()) */
		first24 = depth > 24 && !exists &&
			  rte_rib_get_nxt(f->rib4, ip & 0xffffff00, 24, NULL,
					  RTE_RIB_GET_NXT_COVER) == NULL;
		if (first24 && dir24_8_words(f) != NULL && dir24_8_words(f)[1] >= f->tbl8s4)
			return -ENOSPC;
		unreserved = first24 && dir24_8_skips_reserve(f, ip, nh);
		rsvd = unreserved ? dir24_8_words(f)[1] : 0;
		rc = rte_fib_add(f->fib4, ip, depth, nh);
		tbl8_note(f);
		if (rc != 0)
			return rc == -ENOSPC || rc == -ENOMEM ? -ENOSPC : rc;
		if (unreserved)
			dir24_8_reserve(f, rsvd);
		return 0;
	} else {
		n = exists ? rte_rib_lookup_exact(f->rib4, ip, depth)
			   : rte_rib_insert(f->rib4, ip, depth);
		if (n == NULL)
			return -ENOSPC;
		if (depth == 0) {
			/* a plain 32-bit store: readers see the old or the new next hop */
			__atomic_store_n(&f->lpm_default4, nh, __ATOMIC_RELEASE);
			rc = 0;
		} else {
			rc = rte_lpm_add(f->lpm4, ip, depth, nh);
			/* every tbl8 group taken, or waiting on rte_lpm's defer
			 * queue (a delete a moment ago: a rollback putting back
			 * what it deleted), which it reclaims without waiting:
			 * once the workers have been quiescent, once more */
			if (rc == -ENOSPC && depth > 24 && f->qsv != NULL) {
				rte_rcu_qsbr_synchronize(f->qsv, RTE_QSBR_THRID_INVALID);
				rc = rte_lpm_add(f->lpm4, ip, depth, nh);
			}
		}
		if (rc != 0) {
			if (!exists)
				rte_rib_remove(f->rib4, ip, depth);
			return rc == -ENOSPC || rc == -ENOMEM ? -ENOSPC : rc;
		}
		rte_rib_set_nh(n, nh);
		return 0;
	}
}

static int route_set(struct fib *f, struct fib_route *r, struct fib_route *old, bool replace)
{
	struct rte_rib_node *n;
	struct nh_key k;
	uint32_t nh, old_nh = 0;
	int rc;

	rc = route_check(r);
	if (rc != 0)
		return rc;
	if (r->prefix.addr.family == AF_INET6)
		return fib6_route_set(f, r, old, replace);
	if (old != NULL)
		memset(old, 0, sizeof(*old));
	n = rib4_exact(f, &r->prefix);
	if (n != NULL) {
		uint64_t v;

		if (!replace)
			return -EEXIST;
		if (old != NULL)
			route_from_node(f, n, old);
		rte_rib_get_nh(n, &v);
		old_nh = (uint32_t)v;
	}
	rc = fib_nh_key_make(f, r, &k);
	if (rc != 0)
		return rc;
	rc = fib_nh_get(f, &k, &nh);
	if (rc != 0)
		return rc;
	rc = dp4_set(f, r, nh, n != NULL);
	if (rc != 0) {
		fib_nh_put(f, nh);
		return rc;
	}
	r->nh_idx = nh;
	fib_gw_cache_check(f, &r->prefix);
	if (n != NULL) {
		fib_nh_put(f, old_nh);
	} else {
		f->count4[r->prefix.len]++;
		f->total4++;
	}
	fib_gen_bump(f);
	return 0;
}

int fib_route_set_installed(struct fib *f, struct fib_route *r)
{
	return route_set(f, r, NULL, false);
}

/* @r, whose port is down, into the list of routes waiting for their port
 * (@i: its prefix's place there, or -1), in place of what held the prefix. */
static int route_wait(struct fib *f, struct fib_route *r, const struct nh_key *k, int i,
		      struct fib_route *old, bool replace)
{
	struct fib_route cur;
	bool installed = i < 0 && route_get_installed(f, &r->prefix, &cur) == 0;
	uint32_t nh;
	int rc;

	if (installed && !replace)
		return -EEXIST;
	if (i < 0 && !installed && fib_table_full(f, &r->prefix))
		return -ENOSPC;
	rc = fib_down_reserve(f, 1);
	if (rc == 0)
		rc = fib_nh_get(f, k, &nh);
	if (rc != 0)
		return rc;
	r->nh_idx = nh;
	r->flags = FIB_RTF_DOWN;
	if (i >= 0) {
		cur = f->down.r[i];
		fib_down_untry(&f->down, cur.flags);
		f->down.r[i] = *r;
		fib_nh_put(f, cur.nh_idx);
	} else {
		if (installed) {
			rc = fib_route_del_installed(f, &r->prefix, &cur);
			if (rc != 0) {
				fib_nh_put(f, nh);
				return rc;
			}
		}
		fib_down_add(f, r); /* room reserved above */
	}
	if (old != NULL) {
		if (i >= 0 || installed)
			*old = cur;
		else
			memset(old, 0, sizeof(*old));
	}
	fib_gw_cache_check(f, &r->prefix);
	fib_gen_bump(f);
	return 0;
}

/* Add or replace @r where it belongs: the lookup structures, or, while its
 * port is down, the routes waiting for it (fib_port_set_down()). */
static int route_put(struct fib *f, struct fib_route *r, struct fib_route *old, bool replace)
{
	struct fib_route cur;
	struct nh_key k;
	int i, rc;

	rc = route_check(r);
	if (rc != 0)
		return rc;
	r->flags = 0;
	i = fib_down_find(f, &r->prefix);
	if (i >= 0 && !replace)
		return -EEXIST;
	/* an add of a prefix held is "exists" whatever its gateway, as with
	 * every port up (route_set()), not the gateway's resolution below,
	 * which leaves the prefix's own route out as for a replace */
	if (!replace && i < 0 && f->down.nports > 0 &&
	    route_get_installed(f, &r->prefix, &cur) == 0)
		return -EEXIST;
	if (f->down.nports > 0) {
		/* the port a gateway resolves to decides where it goes */
		rc = fib_nh_key_make(f, r, &k);
		if (rc != 0)
			return rc;
		if (fib_route_waits(f, r))
			return route_wait(f, r, &k, i, old, replace);
	}
	if (i < 0)
		return route_set(f, r, old, replace);
	/* a waiting route replaced by one that can be installed: an add, then
	 * the waiting one goes */
	cur = f->down.r[i];
	rc = route_set(f, r, NULL, false);
	if (rc != 0)
		return rc;
	fib_down_remove(f, (uint32_t)i);
	if (old != NULL)
		*old = cur;
	return 0;
}

int fib_route_add(struct fib *f, struct fib_route *r)
{
	return route_put(f, r, NULL, false);
}

int fib_route_replace(struct fib *f, struct fib_route *r, struct fib_route *old)
{
	return route_put(f, r, old, true);
}

int fib_route_restore(struct fib *f, struct fib_route *r)
{
	struct nh_key k;
	int rc;

	/* installed, or waiting for its port: where route_put() puts it
	 * (installed if its port came up meanwhile and there is room) */
	if ((r->flags & (FIB_RTF_DOWN | FIB_RTF_TRIED)) != (FIB_RTF_DOWN | FIB_RTF_TRIED)) {
		struct fib_route want = *r;

		rc = route_put(f, r, NULL, true);
		if (rc != -ENOSPC || !(want.flags & FIB_RTF_DOWN))
			return rc;
		*r = want; /* no room: it waits, stranded, as below */
	}
	/* stranded (tried, no room; the journal's record says so, whatever
	 * its port's state now, which the transaction may have changed): it
	 * waits again, retried with the others, whatever room there is now.
	 * Installed, it could take the room a route the undo restores after
	 * it (deleted earlier in the transaction) needs back; a port coming
	 * up (the undo of its going down) leaves it to the retry too */
	rc = route_check(r);
	if (rc == 0)
		rc = fib_nh_key_make(f, r, &k);
	if (rc == 0)
		rc = route_wait(f, r, &k, fib_down_find(f, &r->prefix), NULL, true);
	if (rc == 0) {
		if (f->down.stranded == 0)
			f->down.retry_dels = f->dels;
		f->down.stranded++;
		f->down.r[fib_down_find(f, &r->prefix)].flags |= FIB_RTF_TRIED;
	}
	return rc;
}

int fib_route_del(struct fib *f, const struct fr_prefix *p, struct fib_route *old)
{
	struct fib_route canon = {.prefix = *p};
	int i;

	/* host bits set: refused (the counts below need the route's own key) */
	if (route_check(&canon) != 0)
		return -EINVAL;
	i = fib_down_find(f, p);
	if (i < 0)
		return fib_route_del_installed(f, p, old);
	if (old != NULL)
		*old = f->down.r[i];
	fib_down_remove(f, (uint32_t)i);
	fib_gw_cache_check(f, p);
	fib_gen_bump(f);
	return 0;
}

int fib_route_del_installed(struct fib *f, const struct fr_prefix *p, struct fib_route *old)
{
	struct fib_route cur;
	struct rte_rib_node *n;
	int rc;

	if (p->addr.family == AF_INET6)
		return p->len > 128 ? -EINVAL : fib6_route_del(f, p, old);
	if (p->addr.family != AF_INET || p->len > 32)
		return -EINVAL;
	n = rib4_exact(f, p);
	if (n == NULL)
		return -ENOENT;
	route_from_node(f, n, &cur);
	if (f->backend == FIB_BACKEND_FIB) {
		tbl8_wait(f, false);
		rc = rte_fib_delete(f->fib4, p->addr.v4, p->len); /* removes the RIB node too */
		tbl8_note(f);
	} else {
		if (p->len == 0) {
			__atomic_store_n(&f->lpm_default4, 0, __ATOMIC_RELEASE);
			rc = 0;
		} else {
			rc = rte_lpm_delete(f->lpm4, p->addr.v4, p->len);
		}
		if (rc == 0)
			rte_rib_remove(f->rib4, p->addr.v4, p->len);
	}
	if (rc != 0)
		return rc;
	fib_nh_put(f, cur.nh_idx);
	fib_gw_cache_check(f, p);
	f->count4[p->len]--;
	f->total4--;
	f->dels++;
	if (old != NULL)
		*old = cur;
	fib_gen_bump(f);
	return 0;
}

int fib_route_walk(const struct fib *f, uint8_t family,
		   int (*cb)(const struct fib_route *r, void *arg), void *arg)
{
	uint32_t i;
	int rc = fib_route_walk_installed(f, family, cb, arg);

	/* then the routes waiting for their port */
	for (i = 0; rc == 0 && i < f->down.n; i++) {
		struct fib_route r;

		if (f->down.r[i].prefix.addr.family != family)
			continue;
		fib_down_get(f, i, &r);
		rc = cb(&r, arg);
	}
	return rc;
}

int fib_route_walk_installed(const struct fib *f, uint8_t family,
			     int (*cb)(const struct fib_route *r, void *arg), void *arg)
{
	struct rte_rib_node *n = NULL;
	struct fib_route r;
	int rc;

	if (family == AF_INET6)
		return fib6_route_walk(f, cb, arg);
	if (family != AF_INET)
		return 0;
	/* rte_rib_get_nxt() lists the routes under 0/0 but not 0/0 itself */
	n = rte_rib_lookup_exact(f->rib4, 0, 0);
	if (n != NULL) {
		route_from_node(f, n, &r);
		rc = cb(&r, arg);
		if (rc != 0)
			return rc;
	}
	n = NULL;
	while ((n = rte_rib_get_nxt(f->rib4, 0, 0, n, RTE_RIB_GET_NXT_ALL)) != NULL) {
		route_from_node(f, n, &r);
		rc = cb(&r, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

uint32_t fib_route_count(const struct fib *f, uint8_t family)
{
	return (family == AF_INET    ? f->total4
		: family == AF_INET6 ? f->total6
				     : 0) +
	       fib_route_down_count(f, family);
}

uint32_t fib_route_capacity(const struct fib *f, uint8_t family)
{
	return family == AF_INET ? f->max_routes4 : family == AF_INET6 ? f->max_routes6 : 0;
}

uint32_t fib_route_count_len(const struct fib *f, uint8_t family, unsigned int len)
{
	if (family == AF_INET)
		return len <= 32 ? f->count4[len] + f->down.count4[len] : 0;
	if (family == AF_INET6)
		return len <= 128 ? f->count6[len] + f->down.count6[len] : 0;
	return 0;
}

__rte_cold uint64_t fib4_hop_again(struct fib4_tbl24 t, uint32_t e, uint32_t ip)
{
	uint32_t now;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	now = fib4_first(t, ip);
	if (now == e)
		return 0;
	return now & 1 ? fib4_second(t, now, ip) : now >> 1;
}

/*
 * A lookup of rte_fib that found no route for @p ip, made once more: a
 * group its tables collapsed under the first (DPDK writes the parent entry
 * first, then zeroes the group: fib4_hop_again()) reads 0 for an address
 * its cover routes all along; the second lookup, ordered after that zero,
 * reads the parent as it is now. Only for no route, off the fast path.
 */
static __rte_noinline __rte_cold void fib4_lookup_again(struct fib *f, uint32_t ip, uint64_t *nh)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	rte_fib_lookup_bulk(f->fib4, &ip, nh, 1);
}

void fib4_lookup_bulk(struct fib *f, uint32_t *ips, uint64_t *nh, unsigned int n)
{
	uint32_t res[64], def;
	unsigned int i, j, k;

	if (f->backend == FIB_BACKEND_FIB) {
		rte_fib_lookup_bulk(f->fib4, ips, nh, (int)n);
		for (i = 0; i < n; i++)
			if (unlikely(nh[i] == 0))
				fib4_lookup_again(f, ips[i], &nh[i]);
		return;
	}
	def = __atomic_load_n(&f->lpm_default4, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i += k) {
		k = RTE_MIN(n - i, (unsigned int)RTE_DIM(res));
		rte_lpm_lookup_bulk(f->lpm4, ips + i, res, k);
		for (j = 0; j < k; j++)
			nh[i + j] = (res[j] & RTE_LPM_LOOKUP_SUCCESS) ? (res[j] & 0x00ffffff) : def;
	}
}

/*
 * rte_fib keeps its DIR-24-8 tables behind rte_fib_get_dp(), in a struct
 * that DPDK does not install (lib/fib/dir24_8.h): four 32-bit words
 * (number_tbl8s, rsvd_tbl8s, cur_tbl8s, nh_sz), the default next hop (64
 * bits), the tbl8 and free-group bitmap pointers, then tbl24 on the next
 * cache line. The tbl24 address is used for prefetching when the words we
 * know match what we configured. The data path also looks up through both
 * levels itself (fib4_lookup_one()), so the tbl8 pointer is taken only
 * where that struct is known to be laid out so, DPDK 22.11, and only when
 * the default next hop reads back as the 0 we configured;
 * tests/unit/test_fib.c checks both against rte_fib's own lookups.
 */
struct fib4_tbl24 fib4_tbl24(const struct fib *f)
{
	struct fib4_tbl24 t = {NULL, NULL, 2};

	if (f->backend == FIB_BACKEND_LPM) {
		t.base = (const uint8_t *)f->lpm4->tbl24; /* public: struct rte_lpm */
	} else {
		const uint32_t *dp = dir24_8_dp(f);

		if (dp != NULL) {
			t.base = (const uint8_t *)dp + RTE_CACHE_LINE_SIZE;
			t.shift = (uint8_t)rte_log2_u32(f->nh_bytes);
#if FIB4_DIR24_8_KNOWN
			{
				const uint64_t *w = (const uint64_t *)(const void *)dp;
				const uint8_t *tbl8 = (const uint8_t *)(uintptr_t)w[3];

				if (w[2] == 0 && tbl8 != NULL)
					t.tbl8 = tbl8;
			}
#endif
		}
	}
	return t;
}

/*
 * What fib_create() takes from the DPDK heap, as DPDK 22.11 allocates it
 * (measured against rte_malloc_get_socket_stats() in tests/unit/test_fib.c).
 * The RIBs dominate: rte_fib, rte_fib6 and our rte_lpm's RIB are mempools of
 * two nodes per route (40-byte rte_rib_node, 56-byte rte_rib6_node), each
 * object behind a mempool header and padded to whole cache lines spread
 * over the memory channels (192 bytes with the default -n), not crossing a
 * page, plus the mempool's ring of the next power of two above the node
 * count (8 bytes a slot). Then the tbl24s (2^24 entries; rte_lpm's 4
 * bytes), the tbl8 groups (rte_fib and rte_fib6 allocate one more than
 * configured), rte_lpm's rules, the next-hop table, its hash and its index
 * pool, and the RCU defer queues (12 bytes a slot) when there are readers.
 * Each allocation's malloc header and the small structs come to a few KiB.
 */
#define RIB_NODE_BYTES	 40	      /* sizeof(struct rte_rib_node), DPDK 22.11 (opaque) */
#define RIB6_NODE_BYTES	 56	      /* sizeof(struct rte_rib6_node) */
#define MALLOC_OVERHEAD	 (16u * 1024) /* headers and the structs of each table */
#define RCU_DQ_SLOT	 (8 + sizeof(uint32_t)) /* token + a uint32_t */
#define HASH_BUCKET_KEYS 8			/* RTE_HASH_BUCKET_ENTRIES */

static uint64_t ring_bytes(uint32_t slots, unsigned int esize)
{
	ssize_t n = rte_ring_get_memsize_elem(esize, rte_align32pow2(slots + 1));

	return n > 0 ? (uint64_t)n : (uint64_t)rte_align32pow2(slots + 1) * esize;
}

/* A mempool of @n objects of @elt bytes (rte_mempool_create(), no cache). */
static uint64_t pool_bytes(uint32_t n, uint32_t elt)
{
	uint64_t obj = rte_mempool_calc_obj_size(elt, 0, NULL);
	/* objects do not cross a page: a 4 KiB one wastes a little (no hugepages) */
	uint64_t pg = rte_eal_has_hugepages() ? 2u << 20 : (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t per = pg / obj;

	return (n / per) * pg + (n % per + 1) * obj + ring_bytes(n, sizeof(void *));
}

/* The next hops' rte_hash (nexthop.c: extendable buckets, struct nh_key keys) */
static uint64_t nh_hash_bytes(uint32_t nh)
{
	uint32_t entries = RTE_MAX(nh, 8u);
	uint64_t buckets = rte_align32pow2(entries) / HASH_BUCKET_KEYS;

	return ring_bytes(entries, sizeof(uint32_t)) + ring_bytes(buckets, sizeof(uint32_t)) +
	       2 * buckets * RTE_CACHE_LINE_SIZE +
	       (uint64_t)(entries + 1) * RTE_ALIGN(sizeof(void *) + sizeof(struct nh_key), 16);
}

static uint64_t memory_of(enum fib_backend backend, uint32_t w, uint32_t routes4, uint32_t tbl8s4,
			  uint32_t routes6, uint32_t tbl8s6, uint32_t nh, bool rcu)
{
	uint64_t m = MALLOC_OVERHEAD + sizeof(struct fib);

	if (backend == FIB_BACKEND_LPM) {
		m += (1ull << 24) * 4 + (uint64_t)tbl8s4 * 256 * 4 + (uint64_t)routes4 * 8;
		if (rcu)
			m += ring_bytes(tbl8s4, RCU_DQ_SLOT);
	} else {
		uint64_t g4 = dir24_8_groups(tbl8s4);

		m += (1ull << 24) * w + (g4 + 1) * 256 * w + g4 / 8 * 2; /* + its bitmap, ours */
	}
	m += pool_bytes(routes4 * 2, RIB_NODE_BYTES);
	/* IPv6: the trie's tbl24, tbl8 groups and their free stack, its RIB */
	m += (1ull << 24) * w + ((uint64_t)tbl8s6 + 2) * 256 * w + ((uint64_t)tbl8s6 + 1) * 4;
	m += pool_bytes(routes6 * 2, RIB6_NODE_BYTES);
	/* next hops: the table, the control half, the hash, the index pool */
	m += (uint64_t)nh * (sizeof(struct fib_nh) + sizeof(struct nh_ctl) + sizeof(uint32_t));
	m += nh_hash_bytes(nh);
	if (rcu)
		m += ring_bytes(nh, RCU_DQ_SLOT);
	/* multipath member lists, their index pool and pending list */
	m += 3 * MALLOC_OVERHEAD +
	     (uint64_t)FIB_MP_GROUPS * (sizeof(struct fib_mp) + 2 * sizeof(uint32_t));
	if (rcu)
		m += ring_bytes(FIB_MP_GROUPS, RCU_DQ_SLOT);
	return m;
}

uint64_t fib_memory(const struct fib *f)
{
	return memory_of(f->backend, f->nh_bytes, f->max_routes4, f->tbl8s4, f->max_routes6,
			 f->tbl8s6, f->nh_cap, f->qsv != NULL);
}

uint64_t fib_memory_need(const struct fib_conf *conf)
{
	uint32_t r4 = conf->max_routes4 ? conf->max_routes4 : DEFAULT_MAX_ROUTES4;
	uint32_t t4 = conf->tbl8s4 ? conf->tbl8s4 : DEFAULT_TBL8S4;
	uint32_t r6 = conf->max_routes6 ? conf->max_routes6 : DEFAULT_MAX_ROUTES6;
	uint32_t t6 = conf->tbl8s6 ? conf->tbl8s6 : DEFAULT_TBL8S6;
	uint32_t nh = conf->max_nexthops ? conf->max_nexthops : DEFAULT_MAX_NH;

	return memory_of(conf->backend, entry_bytes(nh, t4, t6), r4, t4, r6, t6, nh,
			 conf->qsv != NULL);
}
