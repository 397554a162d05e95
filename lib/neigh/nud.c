/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour unreachability detection: the state machine behind ARP and ND
 * (one for both families), after RFC 4861 7.3 and Linux's neighbour code:
 *
 *   (packet needs it)  NONE --> INCOMPLETE --(reply)--> REACHABLE
 *   INCOMPLETE --(mcast_probes unanswered)--> FAILED --(failed_ms)--> gone
 *   (packets for a FAILED neighbour are refused until it is gone)
 *   REACHABLE --(reachable time, x0.5-1.5)--> STALE
 *   STALE --(used)--> DELAY --(delay_ms)--> PROBE --(reply)--> REACHABLE
 *   (a reply in DELAY confirms it: REACHABLE, no probe sent)
 *   PROBE --(ucast_probes unanswered)--> gone: the next packet resolves it
 *   again by broadcast (RFC 4861 7.3.3; the neighbour may have a new MAC)
 *   STALE --(unused for stale_ms)--> gone
 *   FAILED, STALE idle 5 s --(no next hop's, the table 7/8 full)--> gone
 *   (evicted, from a tick that found the table 7/8 full, down to 3/4)
 *   request for us / gratuitous ARP with a new MAC --> STALE
 *   its port out of service (link lost, port down) --> gone (neigh_port_flush())
 *
 * "gone" keeps the entry in state NONE while next hops refer to it. Time is
 * passed in (milliseconds), so tests drive the machine with a fake clock.
 * The table never sends anything: it asks the control thread to, through
 * neigh_ops. Control thread only.
 */
#include <errno.h>
#include <string.h>

#include "neigh_priv.h"

void neigh_params_get(const struct neigh_table *t, struct neigh_params *p)
{
	*p = t->params;
}

int neigh_params_set(struct neigh_table *t, const struct neigh_params *p)
{
	/* a state's probes are counted in a byte (neigh_cold): more would
	 * wrap it, and the entry would probe for ever */
	if (p->hold_pkts > NEIGH_HOLD_MAX || p->retrans_ms == 0 || p->reachable_ms == 0 ||
	    p->mcast_probes == 0 || p->ucast_probes == 0 || p->mcast_probes > UINT8_MAX ||
	    p->ucast_probes > UINT8_MAX || p->max_incomplete == 0)
		return -EINVAL;
	t->params = *p;
	return 0;
}

void neigh_ops_set(struct neigh_table *t, const struct neigh_ops *ops)
{
	t->ops = *ops;
}

void neigh_stats_get(const struct neigh_table *t, struct neigh_stats *s)
{
	*s = t->stats;
}

void neigh_stats_clear(struct neigh_table *t)
{
	memset(&t->stats, 0, sizeof(t->stats));
}

/* REACHABLE lasts reachable_ms x [0.5, 1.5) (RFC 4861 6.3.2), so that
 * neighbours learnt together do not all expire together. */
static uint64_t reachable_time(struct neigh_table *t)
{
	uint64_t x = t->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t->rng = x;
	/* 64-bit: reachable_ms + 1 wraps to 0 at UINT32_MAX */
	return t->params.reachable_ms / 2 + x % ((uint64_t)t->params.reachable_ms + 1);
}

/*
 * Hand every held packet back: to send to @mac, or without one (mac NULL). The
 * queue is emptied before the first hand-over: what release does with a
 * packet (an ICMP error about it) may be held on this very entry again.
 */
void neigh_hold_release(struct neigh_table *t, uint32_t idx, const struct rte_ether_addr *mac)
{
	struct neigh_cold *c = &t->cold[idx];
	void *held[NEIGH_HOLD_MAX];
	struct neigh_info ni;
	unsigned int i, n = c->nheld;

	if (n == 0)
		return;
	memcpy(held, c->held, n * sizeof(held[0]));
	memset(c->held, 0, n * sizeof(c->held[0]));
	for (i = 0; i < n; i++)
		t->bufs_held -= c->held_bufs[i];
	c->nheld = 0;
	t->nb_held -= n;
	if (mac != NULL)
		t->stats.released += n;
	else if (c->state == NEIGH_S_FAILED)
		t->stats.hold_failed += n;
	else
		t->stats.hold_flushed += n; /* the entry went away first */
	neigh_info_fill(t, idx, &ni);
	for (i = 0; i < n; i++)
		if (t->ops.release != NULL)
			t->ops.release(t->ops.arg, &ni, held[i], mac);
}

/* Drop every held packet of an entry going away, and what their release
 * held on it again (ICMP errors, about which no error follows: a second
 * round ends it; the bound is a guard). */
void neigh_hold_drop_all(struct neigh_table *t, uint32_t idx)
{
	unsigned int round;

	for (round = 0; round < 4 && t->cold[idx].nheld > 0; round++)
		neigh_hold_release(t, idx, NULL);
}

static void probe(struct neigh_table *t, uint32_t idx, bool unicast, uint64_t now)
{
	struct neigh_cold *c = &t->cold[idx];
	struct neigh_info ni;

	c->probes++;
	c->last_probe = now;
	c->deadline = now + t->params.retrans_ms;
	if (unicast)
		t->stats.probes_ucast++;
	else
		t->stats.probes_bcast++;
	if (t->ops.probe == NULL)
		return;
	neigh_info_fill(t, idx, &ni);
	t->ops.probe(t->ops.arg, &ni, unicast ? &c->mac : NULL);
}

/* Start (or restart) resolution: broadcast probes, at most one per
 * retrans_ms to this target whatever the traffic does. */
static void incomplete(struct neigh_table *t, uint32_t idx, uint64_t now)
{
	struct neigh_cold *c = &t->cold[idx];

	neigh_state_write(t, idx, NEIGH_S_INCOMPLETE, NULL);
	c->probes = 0;
	if (c->last_probe == 0 || now >= c->last_probe + t->params.retrans_ms)
		probe(t, idx, false, now);
	else
		c->deadline = c->last_probe + t->params.retrans_ms;
}

int neigh_resolve_bufs(struct neigh_table *t, const struct fr_addr *addr, uint16_t port, void *pkt,
		       uint16_t bufs, uint64_t now, void **evicted)
{
	uint32_t idx = neigh_find(t, addr, port);
	struct neigh_cold *c;

	/* a neighbour that just failed to answer is not asked again until
	 * failed_ms passes: its packets are refused (ICMP host unreachable),
	 * which also bounds the ARP traffic a dead neighbour costs */
	if (idx != NEIGH_IDX_NONE && t->cold[idx].state == NEIGH_S_FAILED) {
		return -EHOSTUNREACH;
	}
	if (idx == NEIGH_IDX_NONE || t->cold[idx].state == NEIGH_S_NONE) {
		/* a new resolution: bounded, so a flood of destinations cannot
		 * fill the table or the mbuf pool; but a gateway of a route
		 * (an entry next hops refer to: as many as the next hops at
		 * most) is always resolved, or a scan of a connected subnet
		 * would blackhole every route through a gateway not resolved
		 * yet, or forgotten (RFC 6583 7) */
		if (t->nb_incomplete >= t->params.max_incomplete &&
		    (idx == NEIGH_IDX_NONE || t->cold[idx].refcnt == 0)) {
			t->stats.refused_incomplete++;
			return -EDQUOT;
		}
		if (idx == NEIGH_IDX_NONE) {
			idx = neigh_entry_new(t, addr, port);
			if (idx == NEIGH_IDX_NONE) {
				t->stats.refused_full++;
				return -ENOSPC;
			}
			t->stats.created++;
		}
		incomplete(t, idx, now);
	}
	c = &t->cold[idx];
	if (neigh_state_usable(c->state)) {
		/* resolved since the worker looked: send it now */
		struct neigh_info ni;

		if (c->state == NEIGH_S_STALE)
			c->used = 1;
		neigh_info_fill(t, idx, &ni);
		if (t->ops.release != NULL)
			t->ops.release(t->ops.arg, &ni, pkt, &c->mac);
		/* held and sent at once: counted as both, so that held =
		 * sent + evicted + failed + flushed + those waiting */
		t->stats.held++;
		t->stats.released++;
		return 0;
	}
	if (bufs == 0)
		bufs = 1;
	if (c->nheld >= t->params.hold_pkts) {
		if (evicted == NULL || c->nheld == 0) {
			t->stats.hold_dropped++;
			return -EBUSY;
		}
		/* the oldest's room taken, the newest's mbufs must fit */
		if (t->bufs_held - c->held_bufs[0] + bufs > t->params.hold_total) {
			t->stats.hold_total_dropped++;
			return -ENOBUFS;
		}
		/* the oldest goes, the newest waits: a retransmission is
		 * worth more than what it repeats */
		*evicted = c->held[0];
		t->bufs_held += (uint32_t)bufs - c->held_bufs[0];
		memmove(&c->held[0], &c->held[1], (c->nheld - 1) * sizeof(c->held[0]));
		memmove(&c->held_bufs[0], &c->held_bufs[1],
			(c->nheld - 1) * sizeof(c->held_bufs[0]));
		c->held[c->nheld - 1] = pkt;
		c->held_bufs[c->nheld - 1] = bufs;
		t->stats.hold_evicted++;
		t->stats.held++;
		return 1;
	}
	/* hold_total bounds the mbufs held: a packet of many segments (a
	 * reassembled datagram's echo reply) takes as many of the pool's */
	if (t->bufs_held + bufs > t->params.hold_total) {
		t->stats.hold_total_dropped++;
		return -ENOBUFS;
	}
	c->held_bufs[c->nheld] = bufs;
	c->held[c->nheld++] = pkt;
	t->nb_held++;
	t->bufs_held += bufs;
	t->stats.held++;
	return 0;
}

static void reachable(struct neigh_table *t, uint32_t idx, const struct rte_ether_addr *mac,
		      uint64_t now)
{
	struct neigh_cold *c = &t->cold[idx];

	if (c->state != NEIGH_S_REACHABLE && c->state != NEIGH_S_STALE)
		t->stats.resolved++;
	neigh_state_write(t, idx, NEIGH_S_REACHABLE, mac);
	c->probes = 0;
	c->used = 0;
	c->mac_ms = now;
	c->deadline = now + reachable_time(t);
	neigh_hold_release(t, idx, mac);
}

static void stale(struct neigh_table *t, uint32_t idx, const struct rte_ether_addr *mac,
		  uint64_t now)
{
	struct neigh_cold *c = &t->cold[idx];

	neigh_state_write(t, idx, NEIGH_S_STALE, mac);
	c->probes = 0;
	c->mac_ms = now;
	/* the packets held for it go now: it is in use, DELAY at the next
	 * tick (RFC 4861 7.3.3), as a packet to a STALE entry makes it */
	c->used = c->nheld > 0;
	c->deadline = now + t->params.stale_ms;
	neigh_hold_release(t, idx, mac);
}

int neigh_unconfirm(struct neigh_table *t, const struct fr_addr *addr, uint16_t port, uint64_t now)
{
	uint32_t idx = neigh_find(t, addr, port);

	if (idx == NEIGH_IDX_NONE || t->cold[idx].state != NEIGH_S_REACHABLE)
		return 0;
	stale(t, idx, &t->cold[idx].mac, now);
	return 1;
}

void neigh_use(struct neigh_table *t, const struct fr_addr *addr, uint16_t port)
{
	uint32_t idx = neigh_find(t, addr, port);

	if (idx != NEIGH_IDX_NONE && t->cold[idx].state == NEIGH_S_STALE)
		t->cold[idx].used = 1;
}

int neigh_learnt_restore(struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
			 const struct rte_ether_addr *mac, uint64_t now)
{
	uint32_t idx;
	int rc = neigh_entry_set(t, addr, port, mac, &idx);

	if (rc != 0)
		return rc;
	/* learnt again since it was deleted (a load serves packets as it
	 * goes): what the link said since is newer than what the rollback
	 * holds (a NIC swapped, a failover), and stays */
	if (!t->cold[idx].configured && neigh_state_usable(t->cold[idx].state))
		return 0;
	t->cold[idx].configured = 0;
	stale(t, idx, mac, now);
	/* what the link says next is newer (the lock over); in use perhaps,
	 * not idle (evicted) before lock_ms from now */
	t->cold[idx].mac_ms = now - t->params.lock_ms;
	return 0;
}

int neigh_learn(struct neigh_table *t, const struct fr_addr *addr, uint16_t port,
		const struct rte_ether_addr *mac, enum neigh_learn_kind kind, uint64_t now)
{
	uint32_t idx = neigh_find(t, addr, port);
	struct neigh_cold *c;
	bool changed;

	if (!rte_is_valid_assigned_ether_addr(mac) || kind == NEIGH_LEARN_OTHER) {
		t->stats.ignored++;
		return 0;
	}
	if (idx == NEIGH_IDX_NONE) {
		/* only a request for one of our addresses creates an entry:
		 * the sender is about to talk to us (RFC 826) */
		if (kind != NEIGH_LEARN_REQUEST) {
			t->stats.ignored++;
			return 0;
		}
		/* a quarter of the table stays for the neighbours the
		 * router itself needs (next hops, resolution): requests
		 * from many forged link-local or on-link senders cannot
		 * take it all */
		if (t->count >= t->capacity - t->capacity / 4) {
			t->stats.refused_learn++;
			return 0;
		}
		idx = neigh_entry_new(t, addr, port);
		if (idx == NEIGH_IDX_NONE) {
			t->stats.refused_full++;
			return 0;
		}
		t->stats.created++;
		stale(t, idx, mac, now);
		return 1;
	}
	c = &t->cold[idx];
	if (c->configured) {
		t->stats.ignored++; /* the operator's word stands */
		return 0;
	}
	/* a placeholder (a gateway not resolved yet, or forgotten) is no
	 * known neighbour and was asked nothing: neither a gratuitous
	 * announcement nor an answer to no request gives it a MAC, or a host
	 * on the link could plant a gateway's ahead of its resolution (RFC
	 * 4861 7.2.5: no entry, silently discarded); a request for us may */
	if (c->state == NEIGH_S_NONE && kind != NEIGH_LEARN_REQUEST) {
		t->stats.ignored++;
		return 0;
	}
	changed = !rte_is_same_ether_addr(&c->mac, mac);
	/* another station's answer to the same request, or ARP right after
	 * an update or a change of state (to STALE, DELAY or PROBE, as
	 * Linux's locktime counts from each): the MAC just learnt stands
	 * (two proxies answering would flap the entry) */
	if ((kind == NEIGH_LEARN_ARP_REPLY || kind == NEIGH_LEARN_ARP_MERGE) && changed &&
	    neigh_state_usable(c->state) && now < c->mac_ms + t->params.lock_ms) {
		t->stats.locked++;
		return 0;
	}
	switch (kind) {
	case NEIGH_LEARN_ARP_REPLY:
	case NEIGH_LEARN_REPLY:
		if (changed && neigh_state_usable(c->state))
			t->stats.updated++;
		reachable(t, idx, mac, now);
		return 1;
	case NEIGH_LEARN_REQUEST:
	case NEIGH_LEARN_GRATUITOUS:
	case NEIGH_LEARN_ARP_MERGE:
		if (!changed && neigh_state_usable(c->state))
			return 0; /* nothing new: keep its state and timers */
		if (changed && neigh_state_usable(c->state))
			t->stats.updated++;
		else
			t->stats.resolved++;
		/* a new address is not confirmed reachability (RFC 4861 7.2.5) */
		stale(t, idx, mac, now);
		return 1;
	default:
		return 0;
	}
}

/* Collect the workers' used marks into the entries, clearing the maps. */
static void collect_used(struct neigh_table *t)
{
	uint32_t words = (t->capacity + 63) / 64, w;
	unsigned int r;

	for (w = 0; w < words; w++) {
		uint64_t bits = 0;

		for (r = 0; r < t->nb_readers; r++)
			if (__atomic_load_n(&t->used[r][w], __ATOMIC_RELAXED))
				bits |= __atomic_exchange_n(&t->used[r][w], 0, __ATOMIC_RELAXED);
		while (bits) {
			uint32_t idx = w * 64 + (uint32_t)__builtin_ctzll(bits);

			bits &= bits - 1;
			if (idx < t->capacity)
				t->cold[idx].used = 1;
		}
	}
}

static void expire(struct neigh_table *t, uint32_t idx)
{
	t->stats.expired++;
	neigh_entry_forget(t, idx);
}

/* The table's fill where a tick starts evicting (7/8) and where it stops
 * (3/4, where requests stop creating entries: neigh_learn()); at most
 * NEIGH_EVICT_MAX entries a tick (each a hash delete and an RCU deferral:
 * the control thread has rings to serve), the next tick going on; a STALE
 * entry only once it has been so NEIGH_EVICT_IDLE_MS (the turn from
 * REACHABLE forgets a use, and a neighbour talked to every few seconds
 * keeps its entry, as Linux's forced collection spares entries updated
 * within 5 s). */
#define NEIGH_EVICT_FROM(t) ((t)->capacity - (t)->capacity / 8)
#define NEIGH_EVICT_TO(t)   ((t)->capacity - (t)->capacity / 4)
#define NEIGH_EVICT_MAX	    1024
#define NEIGH_EVICT_IDLE_MS 5000

/* May the running tick evict one more entry? */
static bool evict_more(const struct neigh_table *t)
{
	return t->evict_left > 0 && t->count > NEIGH_EVICT_TO(t);
}

/* Entry @idx of @t (FAILED, or STALE and idle; no next hop's: the count
 * goes down) forgotten early: the table is nearly full. */
static void evict(struct neigh_table *t, uint32_t idx)
{
	t->stats.evicted++;
	t->evict_left--;
	neigh_entry_forget(t, idx);
}

static void tick_one(struct neigh_table *t, uint32_t i, uint64_t now)
{
	struct neigh_cold *c = &t->cold[i];

	if (!c->in_use || c->configured)
		return;
	switch (c->state) {
	case NEIGH_S_INCOMPLETE:
		if (now < c->deadline)
			break;
		if (c->probes < t->params.mcast_probes) {
			probe(t, i, false, now);
			break;
		}
		t->stats.failed++;
		neigh_state_write(t, i, NEIGH_S_FAILED, NULL);
		c->deadline = now + t->params.failed_ms;
		neigh_hold_release(t, i, NULL);
		break;
	case NEIGH_S_REACHABLE:
		if (now >= c->deadline)
			stale(t, i, &c->mac, now);
		break;
	case NEIGH_S_STALE:
		/* in use: confirm it is still there, by unicast, after
		 * giving the traffic delay_ms to confirm it (RFC 4861 7.3.3) */
		if (c->used && t->params.delay_ms > 0) {
			neigh_state_write(t, i, NEIGH_S_DELAY, &c->mac);
			c->used = 0;
			c->mac_ms = now; /* each change of state restarts ARP's lock */
			c->deadline = now + t->params.delay_ms;
		} else if (c->used) {
			neigh_state_write(t, i, NEIGH_S_PROBE, &c->mac);
			c->probes = 0;
			c->used = 0;
			c->mac_ms = now;
			probe(t, i, true, now);
		} else if (now >= c->deadline) {
			expire(t, i);
		} else if (c->refcnt == 0 && now >= c->mac_ms + NEIGH_EVICT_IDLE_MS &&
			   evict_more(t)) {
			/* idle 5 s (a sum, not now - mac_ms: a packet handled
			 * since the tick's now was read may have set mac_ms
			 * past it) */
			evict(t, i);
		}
		break;
	case NEIGH_S_DELAY:
		if (now < c->deadline)
			break;
		neigh_state_write(t, i, NEIGH_S_PROBE, &c->mac);
		c->probes = 0;
		c->used = 0;
		c->mac_ms = now;
		probe(t, i, true, now);
		break;
	case NEIGH_S_PROBE:
		if (now < c->deadline)
			break;
		if (c->probes < t->params.ucast_probes) {
			probe(t, i, true, now);
			break;
		}
		/* the MAC it had no longer answers: forgotten, not
		 * refused (RFC 4861 7.3.3), so the next packet asks
		 * again by broadcast at once (its last probe was
		 * retrans_ms ago) and finds a neighbour that moved */
		t->stats.failed++;
		neigh_entry_forget(t, i);
		break;
	case NEIGH_S_FAILED:
		if (now >= c->deadline)
			expire(t, i);
		break;
	default:
		break;
	}
}

/*
 * The entries in use, in index order: the next one after *@i (start with
 * *@i = UINT32_MAX), false when there is none. The bitmap is read afresh at
 * each step, so an entry @fn deletes on the way is simply not there any
 * more, and one it creates is visited if it lies further on.
 */
static bool active_next(const struct neigh_table *t, uint32_t *i)
{
	uint32_t words = (t->capacity + 63) / 64;
	uint32_t start = *i + 1, w = start / 64;
	uint64_t bits;

	if (w >= words)
		return false;
	bits = t->active[w] & (~0ull << (start % 64));
	while (bits == 0) {
		if (++w >= words)
			return false;
		bits = t->active[w];
	}
	*i = w * 64 + (uint32_t)__builtin_ctzll(bits);
	return true;
}

void neigh_tick(struct neigh_table *t, uint64_t now)
{
	uint32_t i = UINT32_MAX;
	bool on;

	if (t->nb_readers > 0)
		collect_used(t);
	/* nearly full: the FAILED entries go first (what a scan of a
	 * connected subnet leaves: their packets would be refused for
	 * failed_ms), then the idle STALE ones, in table order */
	on = t->count >= NEIGH_EVICT_FROM(t) || t->evict_on;
	t->evict_left = on ? NEIGH_EVICT_MAX : 0;
	while (t->nb_failed > 0 && evict_more(t) && active_next(t, &i)) {
		const struct neigh_cold *c = &t->cold[i];

		if (!c->configured && c->state == NEIGH_S_FAILED && c->refcnt == 0)
			evict(t, i);
	}
	i = UINT32_MAX;
	while (active_next(t, &i))
		tick_one(t, i, now);
	/* the cap stopped it above 3/4, not a want of entries to evict:
	 * the next tick goes on, below 7/8 too */
	t->evict_on = on && t->evict_left == 0 && t->count > NEIGH_EVICT_TO(t);
	t->evict_left = 0;
}

uint32_t neigh_port_flush(struct neigh_table *t, uint16_t port)
{
	uint32_t i = UINT32_MAX, n = 0;

	while (active_next(t, &i)) {
		const struct neigh_cold *c = &t->cold[i];

		if (c->key.port != port || c->configured || c->state == NEIGH_S_NONE)
			continue;
		neigh_entry_forget(t, i);
		n++;
	}
	t->stats.flushed += n;
	return n;
}
