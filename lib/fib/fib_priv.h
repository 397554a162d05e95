/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/fib private layout; never included outside lib/fib. */
#ifndef FIB_PRIV_H
#define FIB_PRIV_H

#include <stdbool.h>

#include <rte_common.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_hash.h>
#include <rte_lpm.h>
#include <rte_rcu_qsbr.h>
#include <rte_rib.h>
#include <rte_rib6.h>

#include "fib.h"

/* Dedup key of a next hop, zero padded. The origin is part of it, so a
 * route's origin comes with its next hop and the RIB needs no extension
 * (one tree walk less per route change). */
struct nh_key {
	uint8_t type;
	uint8_t family;
	uint8_t origin;
	uint8_t flags; /* FIB_NHF_* */
	uint16_t port;
	uint8_t gw[16];
	uint32_t members[FIB_MP_MAX]; /* FIB_NH_MULTIPATH: its gateways' next hops, 0 after them */
	uint8_t weights[FIB_MP_MAX];  /* and their weights (1 or more) */
};

/* Control-only half of a next hop. */
struct nh_ctl {
	struct nh_key key;
	uint32_t refcnt; /* routes using it */
	uint8_t in_use;
	uint8_t pending; /* a multipath one unused while held (fib_groups_hold()) */
};

/* Ports fib_port_set_down() can take down (more are never down). */
#define FIB_DOWN_PORTS 1024

/* Routes withdrawn while their port is down (fib_down.c). */
struct fib_down {
	uint64_t ports[FIB_DOWN_PORTS / 64]; /* the ports down */
	uint32_t nports;
	struct fib_route *r; /* dense, FIB_RTF_DOWN set; each holds its next hop */
	uint32_t n, cap;
	uint32_t *slot; /* by prefix: index + 1, 0 empty; nslot a power of two */
	uint32_t nslot;
	uint32_t count4[33], count6[129];
	uint32_t stranded;   /* waiting with their port up: could not be put back */
	uint64_t retry_dels; /* fib.dels at the last put-back that left some out */
	/* older stranded routes of a port that came up wait for the next
	 * retry, which then tries whatever the deletes since */
	bool retry_due;
};

/* fib_route.flags in the list of waiting routes only (never shown): its
 * port came up and it could not go back. A port coming up again puts back
 * only those without it (what its going down withdrew, into the room they
 * left); the retry tries the rest. */
#define FIB_RTF_TRIED 0x80

/* A waiting route with @flags leaves the list or is overwritten: one
 * stranded fewer if it was (fib_down.stranded counts the FIB_RTF_TRIED) */
static inline void fib_down_untry(struct fib_down *d, uint8_t flags)
{
	if ((flags & FIB_RTF_TRIED) && d->stranded > 0)
		d->stranded--;
}

struct fib {
	char name[16]; /* fib_create() checks the length */
	enum fib_backend backend;
	struct rte_fib *fib4;  /* FIB_BACKEND_FIB */
	struct rte_lpm *lpm4;  /* FIB_BACKEND_LPM */
	uint32_t lpm_default4; /* rte_lpm has no /0: the next hop of 0.0.0.0/0 lives here */
	struct rte_rib *rib4;  /* rte_fib's own RIB, or ours for LPM */
	uint32_t max_routes4;
	uint32_t tbl8s4;
	struct rte_fib6 *fib6; /* IPv6: rte_fib6 trie whatever the IPv4 backend */
	struct rte_rib6 *rib6; /* its RIB */
	/* the trie's tbl24 and tbl8 groups, which fib6_lookup_bulk() walks
	 * itself where the layout is known (trie_tables()), else NULL */
	const uint8_t *trie24, *trie8;
	uint8_t trie_shift; /* log2 of their entry size */
	uint32_t max_routes6;
	uint32_t tbl8s6;
	uint32_t count6[129];
	uint32_t total6;
	bool tbl8_dirty6;

	struct fib_nh *nh; /* read by workers */
	struct fib_mp *mp; /* FIB_MP_GROUPS member lists, read by workers */
	struct fr_idxpool *mp_pool;
	uint64_t mp_seed;		   /* fib_mp_hash()'s */
	uint32_t mp_count;		   /* multipath next hops in use */
	uint32_t mp_hold;		   /* fib_groups_hold() depth */
	uint32_t *mp_pending, mp_npending; /* unused multipath next hops while held */
	struct nh_ctl *nhc;
	struct rte_hash *nh_hash;
	struct fr_idxpool *nh_pool; /* free indexes, reused after a grace period */
	uint32_t nh_cap;
	uint32_t nh_count;
	uint8_t nh_bytes; /* width of a tbl24/tbl8 entry: 2 while nh_cap <= 2^15 and
			   * both tbl8 counts < 2^15 (entry_bytes()), else 4 */

	struct neigh_table *neigh;
	struct rte_rcu_qsbr *qsv;

	/* rte_fib (22.11) frees tbl8 groups at once and reuses them at once;
	 * set by a change after which a group of tbl8_seen is free (any
	 * change where the layout is not vouched for), cleared by the grace
	 * period before the next change that may take a group (tbl8_wait()) */
	bool tbl8_dirty;
	/* the groups in use at some point since the last grace period (a
	 * worker may still index into any of them), one bit each, as
	 * DIR-24-8's own bitmap; NULL where its layout is not vouched for */
	uint64_t *tbl8_seen;
	uint32_t tbl8_words;
	/* last gateway resolved: bulk loads send thousands of routes to one
	 * gateway; dropped when a change touches a prefix holding it */
	struct {
		bool valid;
		struct fr_addr gw;
		int rc;
		struct fib_route via;
	} gw_cache;
	uint32_t count4[33];
	uint32_t total4;
	struct fib_down down;
	uint64_t dels; /* routes taken out of the lookup structures, ever */

	/* own cache line: workers load it every burst, only the writer stores */
	uint64_t gen __rte_cache_aligned;
	/* odd while the trie changes (fib6_lookup_again()), workers load it
	 * every IPv6 burst */
	uint64_t changing6;
};

int fib_nh_get(struct fib *f, const struct nh_key *k, uint32_t *idx);
/* fib.c: shared by both families */
void fib_route_from_nh(const struct fib *f, uint32_t nh, struct fib_route *r);
int fib_nh_key_make(struct fib *f, struct fib_route *r, struct nh_key *k);
void fib_gw_cache_check(struct fib *f, const struct fr_prefix *p);
void fib_gen_bump(struct fib *f);
/* fib6.c */
int fib6_create(struct fib *f, int socket_id);
void fib6_reserve_init(struct fib *f);
void fib6_free(struct fib *f);
int fib6_route_get(const struct fib *f, const struct fr_prefix *p, struct fib_route *r);
int fib6_route_lookup(const struct fib *f, const struct fr_addr *a, struct fib_route *r);
/* The route that covers installed prefix @p, @p's own left out (-ENOENT: none). */
int fib6_route_parent(const struct fib *f, const struct fr_prefix *p, struct fib_route *r);
int fib6_route_set(struct fib *f, struct fib_route *r, struct fib_route *old, bool replace);
int fib6_route_del(struct fib *f, const struct fr_prefix *p, struct fib_route *old);
int fib6_route_walk(const struct fib *f, int (*cb)(const struct fib_route *r, void *arg),
		    void *arg);
void fib_nh_put(struct fib *f, uint32_t idx);
void fib_nh_ref(struct fib *f, uint32_t idx);
/* fib.c: the lookup structures and RIB only, without the withdrawn routes */
int fib_route_set_installed(struct fib *f, struct fib_route *r);
int fib_route_del_installed(struct fib *f, const struct fr_prefix *p, struct fib_route *old);
int fib_route_walk_installed(const struct fib *f, uint8_t family,
			     int (*cb)(const struct fib_route *r, void *arg), void *arg);
/* fib_down.c */
int fib_down_find(const struct fib *f, const struct fr_prefix *p);
int fib_down_reserve(struct fib *f, uint32_t more);
int fib_down_add(struct fib *f, const struct fib_route *r);
/* Entry @i out of the list, its next hop's reference released. */
void fib_down_remove(struct fib *f, uint32_t i);
void fib_down_free(struct fib *f);
bool fib_route_waits(const struct fib *f, const struct fib_route *r);
/* The longest waiting route holding @a, @skip passed over (NULL: none):
 * 0 and @r, or -ENOENT. */
int fib_down_lookup(const struct fib *f, const struct fr_addr *a, const struct fr_prefix *skip,
		    struct fib_route *r);
/* Waiting route @i as the control plane shows it (FIB_RTF_STRANDED when
 * its port is up). */
void fib_down_get(const struct fib *f, uint32_t i, struct fib_route *r);
/* No room for one more route of @p's family, @p not yet installed: the
 * routes waiting for their port (but @p) count, so that each fits back. */
bool fib_table_full(const struct fib *f, const struct fr_prefix *p);
int fib6_tbl8_usage(const struct fib *f, struct fib_tbl8_usage *u);
int fib_nh_init(struct fib *f, uint32_t cap, int socket_id);
void fib_nh_fini(struct fib *f);

#endif /* FIB_PRIV_H */
