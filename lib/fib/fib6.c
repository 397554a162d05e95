/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 half of the merged FIB: rte_fib6 (trie) over its own rte_rib6,
 * the same next-hop table, route types, generation and RCU rules as IPv4.
 * (rte_lpm6 rebuilds its tables on delete and has no RCU hook; IPv6 uses
 * rte_fib6 whatever the IPv4 backend.)
 */
#include <errno.h>
#include <stdio.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_fib6.h>
#include <rte_prefetch.h>
#include <rte_rib6.h>
#include <rte_version.h>

#include "fib_priv.h"

static void trie_tables(struct fib *f);

int fib6_create(struct fib *f, int socket_id)
{
	struct rte_fib6_conf fc = {0};
	char name[32];

	fc.type = RTE_FIB6_TRIE;
	fc.default_nh = 0;
	fc.max_routes = (int)f->max_routes6;
	fc.trie.nh_sz = f->nh_bytes == 2 ? RTE_FIB6_TRIE_2B : RTE_FIB6_TRIE_4B;
	fc.trie.num_tbl8 = f->tbl8s6 + 1; /* the routes' groups and the spare (below) */
	snprintf(name, sizeof(name), "f6_%s", f->name);
	f->fib6 = rte_fib6_create(name, socket_id, &fc);
	if (f->fib6 == NULL)
		return -(rte_errno ? rte_errno : ENOMEM);
	f->rib6 = rte_fib6_get_rib(f->fib6);
	fib6_reserve_init(f);
	trie_tables(f);
	return 0;
}

void fib6_free(struct fib *f)
{
	if (f->fib6 != NULL)
		rte_fib6_free(f->fib6);
}

static void route6_from_node(const struct fib *f, const struct rte_rib6_node *n,
			     struct fib_route *r)
{
	uint8_t depth;
	uint64_t nh;

	memset(r, 0, sizeof(*r));
	r->prefix.addr.family = AF_INET6;
	rte_rib6_get_ip(n, r->prefix.addr.v6);
	rte_rib6_get_depth(n, &depth);
	rte_rib6_get_nh(n, &nh);
	r->prefix.len = depth;
	fib_route_from_nh(f, (uint32_t)nh, r);
}

int fib6_route_get(const struct fib *f, const struct fr_prefix *p, struct fib_route *r)
{
	struct rte_rib6_node *n = rte_rib6_lookup_exact(f->rib6, p->addr.v6, p->len);

	if (n == NULL)
		return -ENOENT;
	route6_from_node(f, n, r);
	return 0;
}

int fib6_route_parent(const struct fib *f, const struct fr_prefix *p, struct fib_route *r)
{
	struct rte_rib6_node *n = rte_rib6_lookup_exact(f->rib6, p->addr.v6, p->len);

	n = n != NULL ? rte_rib6_lookup_parent(n) : NULL;
	if (n == NULL)
		return -ENOENT;
	route6_from_node(f, n, r);
	return 0;
}

int fib6_route_lookup(const struct fib *f, const struct fr_addr *a, struct fib_route *r)
{
	struct rte_rib6_node *n = rte_rib6_lookup(f->rib6, a->v6);

	if (n == NULL)
		return -ENOENT;
	route6_from_node(f, n, r);
	return 0;
}

/*
 * DPDK 22.11's trie reserves tbl8 groups for routes longer than /24, by an
 * estimate from the covering route at the time of each add and delete, and
 * a delete finds the route itself where it looks for its cover: it gives
 * back nothing, so the count only grows, and once it reaches the groups
 * configured every IPv6 route longer than /24 is refused as if they had
 * run out (after route churn, or a port's routes going down and up a few
 * dozen times; DPDK fixed it later, 7ff51847e2, not in 22.11). Here the
 * count is kept as the groups the routes hold: per route longer than /24,
 * the byte boundaries b >= 24 below its length where no other route longer
 * than b shares its /b (a lone /64 holds 24, 32, 40, 48, 56; a sibling
 * /64 in the same /56 adds one, 56) - never fewer than the trie uses, at
 * times one fewer than upstream's count - plus one spare: a change to a
 * route at a byte boundary builds its path one group deeper for a moment,
 * and with none free it would fail half done (a delete refused, a replace
 * that DPDK reports done while its tables keep the old next hop).
 * Around each add its admission check (count + its own estimate > groups)
 * is made to judge the exact need instead of the estimate, so a route
 * withdrawn while its port was down goes back whenever its groups are
 * free. The count is the second word of the trie's struct (number,
 * reserved, current tbl8s), used only where the first reads back as
 * configured. The trie is created with one group more than the routes may
 * take (f->tbl8s6), as DIR-24-8 is: the spare comes on top of them.
 */
static uint32_t *trie_words(const struct fib *f)
{
#if RTE_VERSION >= RTE_VERSION_NUM(22, 11, 0, 0) && RTE_VERSION < RTE_VERSION_NUM(22, 12, 0, 0)
	uint32_t *dp = rte_fib6_get_dp(f->fib6);

	if (dp != NULL && dp[0] == f->tbl8s6 + 1 && dp[2] <= dp[0])
		return dp;
#else
	RTE_SET_USED(f);
#endif
	return NULL;
}

/*
 * The trie's tables, for fib6_lookup_bulk()'s own walk: in 22.11's struct
 * (lib/fib/trie.h, not installed) the three counts, the default next hop
 * (64 bits, at byte 16), nh_sz (the log2 of the entry size, at 24), the
 * tbl8 pointer (at 32), the free stack's pointer and position, then tbl24
 * on the next cache line. Taken only where trie_words() vouches for the
 * group count and the default and entry size read back as configured (0,
 * and f->nh_bytes); tests/unit/test_fib.c checks the walk against DPDK's
 * (fib6_lookup_bulk_dpdk()) and a naive longest match
 * (test_fib6_differential) and beside a writer (test_collapse_read).
 */
static void trie_tables(struct fib *f)
{
	const uint32_t *w = trie_words(f);

	f->trie24 = f->trie8 = NULL;
	f->trie_shift = (uint8_t)rte_log2_u32(f->nh_bytes);
	if (w != NULL) {
		const uint64_t *q = (const uint64_t *)(const void *)w;
		const uint8_t *tbl8 = (const uint8_t *)(uintptr_t)q[4];

		if (q[2] == 0 && w[6] == f->trie_shift && tbl8 != NULL) {
			f->trie24 = (const uint8_t *)w + RTE_CACHE_LINE_SIZE;
			f->trie8 = tbl8;
		}
	}
}

/* Is there a route other than @ip/@len, longer than @b, inside @ip/@b? */
static bool other_longer(const struct fib *f, const uint8_t *ip, uint8_t len, uint8_t b)
{
	struct rte_rib6_node *n = NULL;

	while ((n = rte_rib6_get_nxt(f->rib6, ip, b, n, RTE_RIB6_GET_NXT_ALL)) != NULL) {
		uint8_t a[16], d;

		rte_rib6_get_depth(n, &d);
		rte_rib6_get_ip(n, a);
		if (d != len || memcmp(a, ip, 16) != 0)
			return true;
	}
	return false;
}

/* The tbl8 levels @ip/@len (longer than /24) occupies alone. */
static uint32_t levels_alone(const struct fib *f, const uint8_t *ip, uint8_t len)
{
	uint32_t n = 0;
	unsigned int b;

	for (b = 24; b < len; b += 8)
		if (!other_longer(f, ip, len, (uint8_t)b))
			n++;
	return n;
}

/* 22.11's own estimate for adding @ip/@len (trie_modify(), before it
 * inserts): the levels from its cover down, unless a longer route already
 * sits in its /floor8(len). */
static uint32_t trie_estimate(const struct fib *f, const uint8_t *ip, uint8_t len)
{
	struct rte_rib6_node *n;
	uint8_t d, parent = 24;

	if (rte_rib6_get_nxt(f->rib6, ip, (uint8_t)RTE_ALIGN_FLOOR(len, 8), NULL,
			     RTE_RIB6_GET_NXT_COVER) != NULL)
		return 0;
	n = rte_rib6_lookup(f->rib6, ip);
	if (n != NULL && rte_rib6_get_depth(n, &d) == 0)
		parent = RTE_MAX(d, 24);
	return (RTE_ALIGN_CEIL(len, 8) - RTE_ALIGN_CEIL(parent, 8)) >> 3;
}

/* A change of the trie, which a lookup may overlap, begins and ends
 * (f->changing6 odd between; fib6_lookup_again()). */
static void trie_change(struct fib *f)
{
	__atomic_store_n(&f->changing6, f->changing6 + 1, __ATOMIC_RELEASE);
	/* (the odd count before the trie's writes, as a seqlock's writer) */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* As for IPv4 (tbl8_wait() in fib.c): 22.11's trie frees and reuses tbl8
 * groups at once, last freed first, and an IPv6 change of any length may
 * take one, so every change after a change waits for the workers' grace
 * period (the trie's free stack does not say which were freed). A group
 * freed and taken again within one change (one that writes several ranges:
 * a covering route's, around longer ones) is beyond this, as for IPv4. */
static void tbl8_wait6(struct fib *f)
{
	if (f->tbl8_dirty6 && f->qsv != NULL) {
		rte_rcu_qsbr_synchronize(f->qsv, RTE_QSBR_THRID_INVALID);
		f->tbl8_dirty6 = false;
	}
}

/* Groups taken now (UINT32_MAX: not known). 22.11's trie leaves its
 * cur_tbl8s at 0 and keeps the count as its free stack's position
 * (tbl8_pool_pos, after number, reserved, current, def_nh, nh_sz and the
 * two pointers: the thirteenth 32-bit word). */
static uint32_t tbl8_taken6(const struct fib *f)
{
	const uint32_t *w = trie_words(f);

	return w != NULL && w[12] <= w[0] ? w[12] : UINT32_MAX;
}

int fib6_tbl8_usage(const struct fib *f, struct fib_tbl8_usage *u)
{
	const uint32_t *w = trie_words(f);
	uint32_t n = tbl8_taken6(f);

	if (w == NULL || n == UINT32_MAX)
		return -ENOTSUP;
	u->taken = n;
	u->reserved = w[1] > 0 ? w[1] - 1 : 0; /* less the spare (fib6_reserve_init()) */
	/* the spare is on top of them (fib6_create()) */
	u->total = f->tbl8s6;
	return 0;
}

void fib6_reserve_init(struct fib *f)
{
	uint32_t *words = trie_words(f);

	if (words != NULL && words[1] == 0)
		words[1] = 1; /* the spare group (above) */
}

int fib6_route_set(struct fib *f, struct fib_route *r, struct fib_route *old, bool replace)
{
	struct rte_rib6_node *n = rte_rib6_lookup_exact(f->rib6, r->prefix.addr.v6, r->prefix.len);
	struct nh_key k;
	uint32_t nh, old_nh = 0, rsvd, need = 0, est, *words;
	int rc;

	if (old != NULL)
		memset(old, 0, sizeof(*old));
	if (n != NULL) {
		uint64_t v;

		if (!replace)
			return -EEXIST;
		if (old != NULL)
			route6_from_node(f, n, old);
		rte_rib6_get_nh(n, &v);
		old_nh = (uint32_t)v;
	} else if (fib_table_full(f, &r->prefix)) {
		return -ENOSPC;
	}
	rc = fib_nh_key_make(f, r, &k);
	if (rc != 0)
		return rc;
	rc = fib_nh_get(f, &k, &nh);
	if (rc != 0)
		return rc;
	tbl8_wait6(f);
	words = r->prefix.len > 24 && n == NULL ? trie_words(f) : NULL;
	rsvd = words != NULL ? words[1] : 0;
	if (words != NULL) {
		/* its check (count + estimate > groups) made to judge the
		 * exact need (count + need > groups) */
		need = levels_alone(f, r->prefix.addr.v6, r->prefix.len);
		est = trie_estimate(f, r->prefix.addr.v6, r->prefix.len);
		words[1] = rsvd + need > est ? rsvd + need - est : 0;
	}
	trie_change(f);
	rc = rte_fib6_add(f->fib6, r->prefix.addr.v6, r->prefix.len, nh);
	trie_change(f);
	f->tbl8_dirty6 = true;
	if (words != NULL) /* the count: with it in, or as it was */
		words[1] = rc == 0 ? rsvd + need : rsvd;
	if (rc != 0) {
		fib_nh_put(f, nh);
		return rc == -ENOSPC || rc == -ENOMEM ? -ENOSPC : rc;
	}
	r->nh_idx = nh;
	fib_gw_cache_check(f, &r->prefix);
	if (n != NULL) {
		fib_nh_put(f, old_nh);
	} else {
		f->count6[r->prefix.len]++;
		f->total6++;
	}
	fib_gen_bump(f);
	return 0;
}

int fib6_route_del(struct fib *f, const struct fr_prefix *p, struct fib_route *old)
{
	struct rte_rib6_node *n = rte_rib6_lookup_exact(f->rib6, p->addr.v6, p->len);
	uint32_t *words = p->len > 24 ? trie_words(f) : NULL, rsvd = 0, alone = 0;
	struct fib_route cur;
	int rc;

	if (n == NULL)
		return -ENOENT;
	route6_from_node(f, n, &cur);
	if (words != NULL) { /* the levels it leaves, while it is still there */
		rsvd = words[1];
		alone = levels_alone(f, p->addr.v6, p->len);
	}
	tbl8_wait6(f); /* a delete at a byte boundary takes a group for a moment */
	trie_change(f);
	rc = rte_fib6_delete(f->fib6, p->addr.v6, p->len);
	trie_change(f);
	f->tbl8_dirty6 = true;
	if (rc != 0)
		return rc;
	if (words != NULL)
		words[1] = rsvd > alone ? rsvd - alone : 0;
	fib_nh_put(f, cur.nh_idx);
	fib_gw_cache_check(f, p);
	f->count6[p->len]--;
	f->total6--;
	f->dels++;
	if (old != NULL)
		*old = cur;
	fib_gen_bump(f);
	return 0;
}

int fib6_route_walk(const struct fib *f, int (*cb)(const struct fib_route *r, void *arg), void *arg)
{
	static const uint8_t any[16];
	struct rte_rib6_node *n;
	struct fib_route r;
	int rc;

	/* rte_rib6_get_nxt() lists the routes under ::/0 but not ::/0 itself */
	n = rte_rib6_lookup_exact(f->rib6, any, 0);
	if (n != NULL) {
		route6_from_node(f, n, &r);
		rc = cb(&r, arg);
		if (rc != 0)
			return rc;
	}
	n = NULL;
	while ((n = rte_rib6_get_nxt(f->rib6, any, 0, n, RTE_RIB6_GET_NXT_ALL)) != NULL) {
		route6_from_node(f, n, &r);
		rc = cb(&r, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

#define TRIE_WALK_MAX 32

/* the tbl24 entry of @p ip: its first three bytes */
static inline uint32_t tbl24_idx6(const uint8_t *ip)
{
	return (uint32_t)ip[0] << 16 | (uint32_t)ip[1] << 8 | ip[2];
}

/*
 * rte_fib6's trie lookup, level by level over the whole burst. Its own
 * walks one address at a time to the end: an entry that is odd names a
 * tbl8 group (entry >> 1), indexed by the address's next byte (the
 * fourth first), so an address under a /48 or /64 takes four to six
 * dependent loads, each a miss for random destinations, and the misses of
 * one address cannot overlap (kbench, 100,000 routes, a million
 * destinations: over 200 cycles an address). Here every address's entry
 * of one level is asked for before any is read, so each level costs the
 * burst about one miss: the same loads in the same order for each
 * address, one each (the control thread's writes stay ordered by the data
 * dependency, as in DPDK's walk). An entry still odd after the last byte
 * cannot be in a trie the writer left whole: read as no route, which
 * fib6_lookup_bulk() then looks up again. @p n <= TRIE_WALK_MAX.
 */
static __rte_always_inline void trie_walk(const struct fib *f, uint8_t (*ips)[16], uint64_t *nh,
					  unsigned int n, const unsigned int shift)
{
	/* in locals: the stores below could alias the struct's */
	const uint8_t *const t24 = f->trie24, *const t8 = f->trie8;
	const uint8_t *at[TRIE_WALK_MAX], *col;
	uint8_t live[TRIE_WALK_MAX];
	unsigned int i, l, x, m, k;

	for (i = 0; i < n; i++) {
		at[i] = t24 + ((size_t)tbl24_idx6(ips[i]) << shift);
		rte_prefetch0(at[i]);
		live[i] = (uint8_t)i;
	}
	/* byte x of every address still walking indexes its next group: a
	 * group entry read after the last byte's is no route */
	for (x = 3, m = n; m > 0; x++, m = k) {
		if (unlikely(x == 17)) {
			for (l = 0; l < m; l++)
				nh[live[l]] = 0;
			break;
		}
		/* byte x of address 0; of address i, 16 * i further */
		col = (const uint8_t *)ips + (x & 15);
		for (l = 0, k = 0; l < m; l++) {
			uint32_t e;

			i = live[l];
			e = fib4_entry(at[i], 0, (uint8_t)shift);
			if (likely(!(e & 1))) {
				nh[i] = e >> 1;
			} else {
				at[i] = t8 +
					((((size_t)(e >> 1) << 8) + col[(size_t)i << 4]) << shift);
				rte_prefetch0(at[i]);
				live[k++] = (uint8_t)i;
			}
		}
	}
}

static void trie_lookup(const struct fib *f, uint8_t (*ips)[16], uint64_t *nh, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i += k) {
		k = RTE_MIN(n - i, (unsigned int)TRIE_WALK_MAX);
		if (f->trie_shift == 1)
			trie_walk(f, ips + i, nh + i, k, 1);
		else
			trie_walk(f, ips + i, nh + i, k, 2);
	}
}

/* The walk where the trie's layout is known, else DPDK's lookup. */
static inline void lookup6(struct fib *f, uint8_t (*ips)[16], uint64_t *nh, unsigned int n)
{
	if (likely(f->trie8 != NULL))
		trie_lookup(f, ips, nh, n);
	else
		rte_fib6_lookup_bulk(f->fib6, ips, nh, (int)n);
}

/*
 * A lookup that found no route for @p ip, begun when f->changing6 was
 * @p c0, made again while a change of the trie overlapped it. As
 * fib4_lookup_again(): a delete that collapses groups writes each one's
 * parent entry first, then zeroes the group, and a lookup between the two
 * reads 0 for an address its cover routes all along. The trie collapses
 * a chain of groups, one level after the other, so a lookup made again
 * during the change may read another level's zero: tries while a change
 * overlaps the last, out of the burst's @p budget (64: a flood to no
 * route during a long change costs a burst 64 lookups more at most). A
 * lookup that no change overlapped (the count as it was, even) found no
 * route: the cost of a true "no route" is one load.
 */
static __rte_noinline __rte_cold void fib6_lookup_again(struct fib *f, uint64_t c0, uint8_t *ip,
							uint64_t *nh, unsigned int *budget)
{
	uint64_t c;

	while (*nh == 0 && *budget > 0) {
		/* (acquire: the count read before the lookup's table reads
		 * that follow, the end of one try and the start of the next) */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		c = __atomic_load_n(&f->changing6, __ATOMIC_ACQUIRE);
		if (c == c0 && !(c & 1))
			return;
		c0 = c;
		(*budget)--;
		lookup6(f, (uint8_t(*)[16])ip, nh, 1);
	}
}

void fib6_lookup_bulk(struct fib *f, uint8_t (*ips)[16], uint64_t *nh, unsigned int n)
{
	uint64_t c0 = __atomic_load_n(&f->changing6, __ATOMIC_ACQUIRE);
	unsigned int i, budget = 64;

	lookup6(f, ips, nh, n);
	for (i = 0; i < n; i++)
		if (unlikely(nh[i] == 0))
			fib6_lookup_again(f, c0, ips[i], &nh[i], &budget);
}

void fib6_lookup_bulk_dpdk(struct fib *f, uint8_t (*ips)[16], uint64_t *nh, unsigned int n)
{
	rte_fib6_lookup_bulk(f->fib6, ips, nh, (int)n);
}

bool fib6_walks_trie(const struct fib *f)
{
	return f->trie8 != NULL;
}
