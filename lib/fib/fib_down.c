/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes withdrawn while their port is down. A static route that forwards
 * through a port (by a gateway on it, or 'dev') leaves the lookup
 * structures when the port goes down, so the covering route (a default by
 * another port, say) takes its traffic, as a router's RIB does with a route
 * whose interface went down. It stays configured: kept here with its next
 * hop's reference, found by get, walk, count, del and replace, and put back
 * when the port comes up. A hash on the prefix (open addressing, linear
 * probing, backward-shift deletion) over a dense array; control thread only,
 * in DPDK's heap as the rest of the FIB (freed with it, or with EAL's memory
 * at exit).
 */
#include <errno.h>
#include <string.h>

#include <rte_jhash.h>
#include <rte_malloc.h>

#include "fib_priv.h"

static uint32_t prefix_hash(const struct fr_prefix *p)
{
	uint32_t w[5] = {(uint32_t)p->addr.family << 8 | p->len};

	if (p->addr.family == AF_INET)
		w[1] = p->addr.v4;
	else
		memcpy(&w[1], p->addr.v6, 16);
	return rte_jhash_32b(w, 5, 0x5bd1e995);
}

static bool prefix_eq(const struct fr_prefix *a, const struct fr_prefix *b)
{
	return a->len == b->len && fr_addr_eq(&a->addr, &b->addr);
}

/* The slot holding @p p, or the empty slot where it would go. */
static uint32_t slot_of(const struct fib_down *d, const struct fr_prefix *p)
{
	uint32_t mask = d->nslot - 1, h = prefix_hash(p) & mask;

	while (d->slot[h] != 0 && !prefix_eq(&d->r[d->slot[h] - 1].prefix, p))
		h = (h + 1) & mask;
	return h;
}

int fib_down_find(const struct fib *f, const struct fr_prefix *p)
{
	const struct fib_down *d = &f->down;
	uint32_t h;

	if (d->n == 0)
		return -1;
	h = slot_of(d, p);
	return d->slot[h] != 0 ? (int)(d->slot[h] - 1) : -1;
}

static int rehash(struct fib_down *d, uint32_t nslot)
{
	uint32_t *slot = rte_zmalloc("fib_down_slot", (size_t)nslot * sizeof(*slot), 0), i;

	if (slot == NULL)
		return -ENOMEM;
	rte_free(d->slot);
	d->slot = slot;
	d->nslot = nslot;
	for (i = 0; i < d->n; i++)
		d->slot[slot_of(d, &d->r[i].prefix)] = i + 1;
	return 0;
}

int fib_down_reserve(struct fib *f, uint32_t more)
{
	struct fib_down *d = &f->down;
	uint32_t want = d->n + more, cap = d->cap ? d->cap : 64, nslot;

	if (want <= d->cap)
		return 0;
	while (cap < want)
		cap *= 2;
	{
		struct fib_route *r =
			rte_realloc(d->r, (size_t)cap * sizeof(*r), RTE_CACHE_LINE_SIZE);

		if (r == NULL)
			return -ENOMEM;
		d->r = r;
	}
	nslot = 2 * cap; /* at most half full */
	if (nslot > d->nslot && rehash(d, nslot) != 0)
		return -ENOMEM; /* the capacity stays what the slots allow */
	d->cap = cap;
	return 0;
}

int fib_down_lookup(const struct fib *f, const struct fr_addr *a, const struct fr_prefix *skip,
		    struct fib_route *r)
{
	const struct fib_down *d = &f->down;
	int len = (int)fr_family_bits(a->family), i;

	if (d->n == 0)
		return -ENOENT;
	for (; len >= 0; len--) {
		struct fr_prefix p = {.addr = *a, .len = (uint8_t)len};

		if ((a->family == AF_INET ? d->count4[len] : d->count6[len]) == 0)
			continue;
		fr_addr_mask(&p.addr, (uint8_t)len);
		if (skip != NULL && fr_prefix_eq(&p, skip))
			continue;
		i = fib_down_find(f, &p);
		if (i >= 0) {
			fib_down_get(f, (uint32_t)i, r); /* stranded said so */
			return 0;
		}
	}
	return -ENOENT;
}

int fib_down_add(struct fib *f, const struct fib_route *r)
{
	struct fib_down *d = &f->down;
	int rc = fib_down_reserve(f, 1);

	if (rc != 0)
		return rc;
	d->r[d->n] = *r;
	d->r[d->n].flags |= FIB_RTF_DOWN;
	d->slot[slot_of(d, &r->prefix)] = d->n + 1;
	d->n++;
	if (r->prefix.addr.family == AF_INET)
		d->count4[r->prefix.len]++;
	else
		d->count6[r->prefix.len]++;
	return 0;
}

void fib_down_remove(struct fib *f, uint32_t i)
{
	struct fib_down *d = &f->down;
	const struct fr_prefix *p = &d->r[i].prefix;
	uint32_t mask = d->nslot - 1, h = slot_of(d, p), j = h, last = d->n - 1;

	fib_nh_put(f, d->r[i].nh_idx); /* the list's reference */
	fib_down_untry(d, d->r[i].flags);
	if (p->addr.family == AF_INET)
		d->count4[p->len]--;
	else
		d->count6[p->len]--;
	/* backward shift: pull later entries of the probe run into the hole */
	d->slot[h] = 0;
	for (;;) {
		uint32_t k;

		j = (j + 1) & mask;
		if (d->slot[j] == 0)
			break;
		k = prefix_hash(&d->r[d->slot[j] - 1].prefix) & mask;
		/* stays if its home lies cyclically in (h, j] */
		if (h <= j ? (h < k && k <= j) : (h < k || k <= j))
			continue;
		d->slot[h] = d->slot[j];
		d->slot[j] = 0;
		h = j;
	}
	/* the last entry fills the hole in the array */
	if (i != last) {
		d->slot[slot_of(d, &d->r[last].prefix)] = i + 1;
		d->r[i] = d->r[last];
	}
	d->n--;
}

void fib_down_free(struct fib *f)
{
	rte_free(f->down.r);
	rte_free(f->down.slot);
	memset(&f->down, 0, sizeof(f->down));
}

bool fib_port_is_down(const struct fib *f, uint16_t port)
{
	return port < FIB_DOWN_PORTS && (f->down.ports[port >> 6] >> (port & 63)) & 1;
}

/* The ports @r forwards through into @ports: its own, or a multipath
 * route's gateways' (FIB_MP_MAX at most); how many. */
static unsigned int route_ports(const struct fib *f, const struct fib_route *r, uint16_t *ports)
{
	const struct nh_ctl *g;
	unsigned int i;

	if (r->type != FIB_NH_MULTIPATH) {
		ports[0] = r->port;
		return 1;
	}
	g = &f->nhc[r->nh_idx];
	for (i = 0; i < FIB_MP_MAX && g->key.members[i] != 0; i++)
		ports[i] = f->nhc[g->key.members[i]].key.port;
	return i;
}

/* @r forwards through @port (a multipath route: one of its gateways). */
static bool route_on_port(const struct fib *f, const struct fib_route *r, uint16_t port)
{
	uint16_t ports[FIB_MP_MAX];
	unsigned int i, n = route_ports(f, r, ports);

	for (i = 0; i < n; i++)
		if (ports[i] == port)
			return true;
	return false;
}

/* Every port @r forwards through is down (a multipath route's: all its
 * gateways'; while one is up, its flows go by the others). */
static bool route_port_down(const struct fib *f, const struct fib_route *r)
{
	uint16_t ports[FIB_MP_MAX];
	unsigned int i, n = route_ports(f, r, ports);

	for (i = 0; i < n; i++)
		if (!fib_port_is_down(f, ports[i]))
			return false;
	return true;
}

/* Does @r (its port resolved) wait while its port is down? */
bool fib_route_waits(const struct fib *f, const struct fib_route *r)
{
	return f->down.nports > 0 && r->origin == FIB_ORIGIN_STATIC &&
	       (r->type == FIB_NH_GATEWAY || r->type == FIB_NH_CONNECTED ||
		r->type == FIB_NH_MULTIPATH) &&
	       route_port_down(f, r);
}

struct collect {
	struct fib *f;
	uint16_t port;
	int rc;
	uint32_t left; /* counting: routes through the port still installed */
};

/* walk callback: count the installed routes through the port that wait */
static int count_cb(const struct fib_route *r, void *arg)
{
	struct collect *c = arg;

	c->left += route_on_port(c->f, r, c->port) && fib_route_waits(c->f, r);
	return 0;
}

/* walk callback: remember each installed route through the port */
static int collect_cb(const struct fib_route *r, void *arg)
{
	struct collect *c = arg;

	if (!route_on_port(c->f, r, c->port) || !fib_route_waits(c->f, r))
		return 0;
	c->rc = fib_down_add(c->f, r);
	return c->rc;
}

/* Put back the waiting routes through @port (FIB_DOWN_PORTS: every port
 * that is up); returns how many could not be, *@done how many were. A
 * port's own (@port set) are those its going down withdrew, or added while
 * it was down: *@older counts its routes stranded before, left out (every
 * port: the stranded ones of the ports down, left out). */
static uint32_t put_back(struct fib *f, uint16_t port, uint32_t *done, uint32_t *older)
{
	struct fib_down *d = &f->down;
	uint32_t i, bad = 0;

	*done = *older = 0;
	for (i = 0; i < d->n;) {
		struct fib_route r = d->r[i];
		const bool tried = (r.flags & FIB_RTF_TRIED) != 0;

		const bool mine = port < FIB_DOWN_PORTS && route_on_port(f, &r, port);

		if (port < FIB_DOWN_PORTS ? !mine || tried : route_port_down(f, &r)) {
			/* left out: one stranded before, of this port, or of a
			 * port down */
			*older += tried && (port == FIB_DOWN_PORTS || mine);
			i++;
			continue;
		}
		r.flags = 0;
		/* not in the lookup structures: an add, its next hop found
		 * again by its key (the list's reference goes with its entry) */
		if (fib_route_set_installed(f, &r) != 0) {
			d->r[i].flags |= FIB_RTF_TRIED;
			bad++;
			i++;
			continue;
		}
		fib_down_remove(f, i);
		(*done)++;
	}
	return bad;
}

bool fib_table_full(const struct fib *f, const struct fr_prefix *p)
{
	bool v4 = p->addr.family == AF_INET;
	uint32_t others = f->down.n ? fib_route_down_count(f, p->addr.family) : 0;

	if (others > 0 && fib_down_find(f, p) >= 0)
		others--;
	return (v4 ? f->total4 : f->total6) + others >= (v4 ? f->max_routes4 : f->max_routes6);
}

void fib_down_get(const struct fib *f, uint32_t i, struct fib_route *r)
{
	*r = f->down.r[i];
	r->flags &= (uint8_t)~FIB_RTF_TRIED;
	if (!route_port_down(f, r))
		r->flags |= FIB_RTF_STRANDED;
}

uint32_t fib_route_stranded(const struct fib *f)
{
	return f->down.stranded;
}

uint32_t fib_route_stranded_count(const struct fib *f, uint8_t family)
{
	uint32_t i, n = 0;

	for (i = 0; i < f->down.n; i++)
		n += f->down.r[i].prefix.addr.family == family &&
		     !route_port_down(f, &f->down.r[i]);
	return n;
}

int fib_down_retry(struct fib *f, uint32_t *restored, uint32_t *failed)
{
	uint32_t bad, done = 0, older;

	*restored = *failed = 0;
	if (f->down.stranded == 0)
		return 0;
	/* nothing has left the tables since: no more room than then (rte_lpm
	 * frees groups a grace period after the delete: it is tried anyway) */
	if (f->dels == f->down.retry_dels && !f->down.retry_due && f->backend != FIB_BACKEND_LPM) {
		*failed = f->down.stranded;
		return -ENOSPC;
	}
	f->down.retry_dels = f->dels;
	f->down.retry_due = false;
	bad = put_back(f, FIB_DOWN_PORTS, &done, &older);
	/* exact again: those left out, and those of ports now down, which
	 * their port's coming up leaves to the next retry */
	f->down.stranded = bad + older;
	*restored = done;
	*failed = bad;
	return bad ? -ENOSPC : 0;
}

int fib_port_set_down(struct fib *f, uint16_t port, bool down, uint32_t *failed)
{
	struct fib_down *d = &f->down;
	uint32_t i, n0, bad = 0;
	int rc = 0;

	if (failed != NULL)
		*failed = 0;
	if (port >= FIB_DOWN_PORTS || fib_port_is_down(f, port) == down)
		return 0;
	if (down) {
		d->ports[port >> 6] |= 1ull << (port & 63);
		d->nports++;
	} else {
		d->ports[port >> 6] &= ~(1ull << (port & 63));
		d->nports--;
	}
	if (down) {
		struct collect c = {f, port, 0, 0};

		/* the list first (a walk must not change the FIB), then each
		 * leaves the lookup structures, its next hop kept by the list */
		n0 = d->n;
		if (fib_route_walk_installed(f, AF_INET, collect_cb, &c) == 0)
			fib_route_walk_installed(f, AF_INET6, collect_cb, &c);
		for (i = n0; i < d->n;) {
			struct fr_prefix p = d->r[i].prefix;

			fib_nh_ref(f, d->r[i].nh_idx);
			if (fib_route_del_installed(f, &p, NULL) != 0) {
				/* still installed: it cannot wait too */
				fib_down_remove(f, i);
				bad++;
				continue;
			}
			i++;
		}
		if (c.rc != 0) {
			/* the list could not grow (out of memory): the routes
			 * the walk did not reach stay installed; counted with
			 * those a delete failed to take out */
			c.left = 0;
			fib_route_walk_installed(f, AF_INET, count_cb, &c);
			fib_route_walk_installed(f, AF_INET6, count_cb, &c);
			bad = c.left;
		}
		rc = c.rc != 0 ? c.rc : bad ? -EIO : 0;
	} else {
		/* what cannot go back (the tables filled meanwhile) waits,
		 * stranded, for fib_down_retry(); so do the port's routes
		 * stranded before it went down, not to take the room another
		 * route's withdrawal left (a rollback would not find it) */
		uint32_t done, older;

		bad = put_back(f, port, &done, &older);
		/* the room seen now is this port's; older stranded routes
		 * keep their claim on any made since their last try */
		if (d->stranded == 0)
			d->retry_dels = f->dels;
		/* the older ones are counted already (since they failed, and
		 * by every retry since): due for the next retry, not said
		 * again as this port's */
		d->stranded += bad;
		if (older > 0)
			d->retry_due = true;
		rc = bad ? -ENOSPC : 0;
	}
	fib_gen_bump(f);
	if (failed != NULL)
		*failed = bad;
	return rc;
}

uint32_t fib_route_down_count(const struct fib *f, uint8_t family)
{
	const struct fib_down *d = &f->down;
	uint32_t n = 0, len;

	for (len = 0; len <= 128; len++)
		n += family == AF_INET ? (len <= 32 ? d->count4[len] : 0) : d->count6[len];
	return n;
}
