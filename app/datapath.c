/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forwarding pipeline for one burst (IPv4; IPv6 below, dp6_burst):
 *   L2 filter and ethertype -> IPv4 checks (RFC 1812 5.2.2) -> route cache
 *   probe (per-lcore, validated by generations; a hit forwards at once; each
 *   packet probed once the next one is checked while the cache hits, after
 *   the burst's checks while it misses: see dp_probe) ->
 *   martian source/destination checks (5.3.7; a source without rpf before
 *   the probe), the tbl24 lines of the destination (and of the source
 *   when the port has rpf on, RFC 3704) prefetched: at the burst's start
 *   where rte_fib's DIR-24-8 is read here and no route cache answers
 *   first, else while the burst is checked -> per packet: FIB lookup
 *   (the DIR-24-8 read here, a second level after the burst's other
 *   packets; one bulk call per burst with rte_lpm) -> verdict from the
 *   route type ->
 *   neighbour read (lock-free) -> MTU -> TTL decrement (RFC 1624) and
 *   Ethernet rewrite -> cache fill.
 * Packets for the router, ARP, unresolved next hops and packets to fragment
 * go to the control thread; so do dropped packets that deserve an ICMP
 * error, within a per-worker token bucket. Every drop is counted by reason
 * in the worker's own counters.
 */
#include <string.h>

#include <rte_cycles.h>

#include "datapath.h"
#include "ip4.h"
#include "ip6.h"

/* Frame was L2 broadcast/multicast: may be delivered locally, never forwarded. */
#define F_L2_GROUP 0x1
/* IPv4 packet to probe in the route cache, after the burst's checks (a cold
 * cache: see dp_probe); its address checks wait for a miss. */
#define F_PROBE 0x2
/* Probed with the same key as the burst's probed packet before it (a train
 * of one flow): that packet's valid entry serves it without a new probe. */
#define F_SAME_KEY 0x4

const uint8_t dp_martian4[256] = {
	[0] = DP_MARTIAN_SRC | DP_MARTIAN_DST,
	[127] = DP_MARTIAN_SRC | DP_MARTIAN_DST,
	[169] = DP_LINK_LOCAL,
	[224 ... 239] = DP_MARTIAN_SRC | DP_MCAST_DST,
	[240 ... 255] = DP_MARTIAN_SRC | DP_MARTIAN_DST,
};

static inline void drop(struct dp_ctx *c, struct rte_mbuf *m, uint16_t *out, enum dp_drop why)
{
	c->st->drop[why]++;
	rte_pktmbuf_free(m);
	*out = DP_OUT_DROP;
}

/* RFC 1812 4.3.2.7 (datapath.h), with the frame's L2 group flag and the
 * router's own addresses (an error path: the list is loaded here). */
static inline bool icmp_allowed(const struct dp_ctx *c, const struct rte_mbuf *m,
				const struct rte_ipv4_hdr *ip, uint8_t flags)
{
	return dp_icmp4_allowed(m, ip, (flags & F_L2_GROUP) != 0,
				__atomic_load_n(&c->conf->local, __ATOMIC_ACQUIRE));
}

/* One token for an ICMP error from this worker's buckets: those for path
 * MTU discovery (@pmtu: 3/4, ICMPv6 Packet Too Big) have their own. */
static inline bool icmp_token(struct dp_ctx *c, bool pmtu)
{
	return dp_tokens_take(pmtu ? &c->icmp_pmtu : &c->icmp, c->conf);
}

/* Drop @m for @why; hand it over for ICMP @type/@code when one is due. */
static inline void drop_icmp(struct dp_ctx *c, struct rte_mbuf *m, const struct rte_ipv4_hdr *ip,
			     uint8_t flags, uint16_t *out, enum dp_drop why, uint8_t type,
			     uint8_t code, uint32_t aux)
{
	c->st->drop[why]++;
	if (!icmp_allowed(c, m, ip, flags)) {
		c->st->icmp_not_sent++;
	} else if (!icmp_token(c, type == 3 && code == 4)) {
		c->st->icmp_ratelimited++;
	} else {
		dp_ctrl_set(m, CTRL_ICMP_ERROR, type, code, aux);
		*out = DP_OUT_CTRL_ERR;
		return;
	}
	rte_pktmbuf_free(m);
	*out = DP_OUT_DROP;
}

static __rte_noinline bool mp_has_port(const struct dp_ctx *c, const struct fib_nh *h,
				       uint16_t port)
{
	const struct fib_mp *g = &c->mp[h->neigh];
	uint32_t i;

	for (i = 0; i < g->n; i++)
		if (c->nh[g->nh[i]].port == port)
			return true;
	return false;
}

/*
 * RFC 3704 on the next hop @snh of the source: strict, the route back
 * forwards through the arrival port (a multipath route's, one of its
 * gateways: RFC 3704 2.2's feasible paths); loose, the source has a route
 * that forwards (not only the default one with ignore-default).
 */
static inline bool rpf_ok(const struct dp_ctx *c, const struct dp_port *pp, uint8_t rpf,
			  uint64_t snh, uint16_t in_port)
{
	const struct fib_nh *sh = &c->nh[snh];
	bool ok = sh->type == FIB_NH_GATEWAY || sh->type == FIB_NH_CONNECTED;

	if (rpf == DP_RPF_STRICT) {
		ok = ok ? sh->port == in_port
			: sh->type == FIB_NH_MULTIPATH && mp_has_port(c, sh, in_port);
	} else {
		ok = ok || sh->type == FIB_NH_MULTIPATH;
		if (DP_LOAD(pp->rpf_ignore_default))
			ok = ok && !(sh->flags & FIB_NHF_DEFAULT);
	}
	return ok;
}

/*
 * The gateway of multipath next hop @h for the flow of hash @hash: the
 * hash's choice, or while its port is out of service or its neighbour is
 * being resolved or failed (neigh_state_doubtful()) the next one that is
 * neither (so only the flows of such a gateway move, and come back).
 * None such: the first whose port is in service (its packets wait for
 * the resolution, or fail as a single gateway's); all out: the hash's,
 * which the caller then drops as port_down. fib_route_lookup_flow()
 * chooses the same way for the control thread.
 */
static __rte_noinline const struct fib_nh *
mp_pick(const struct dp_ctx *c, const struct dp_port *ports, const struct fib_nh *h, uint32_t hash)
{
	const struct fib_mp *g = &c->mp[h->neigh];
	uint32_t n = g->n, s = g->bucket[fib_mp_slot(hash, g->nb)], i;
	const struct fib_nh *up = NULL;

	for (i = 0; i < n; i++) {
		const struct fib_nh *m = &c->nh[g->nh[(s + i) % n]];

		if (DP_LOAD(ports[m->port].down))
			continue;
		if (m->neigh == NEIGH_IDX_NONE ||
		    !neigh_state_doubtful(neigh_word_state(neigh_word(c->neigh_hot, m->neigh))))
			return m;
		if (up == NULL)
			up = m;
	}
	return up != NULL ? up : &c->nh[g->nh[s]];
}

/* The ports 'set ip multipath-hash l4' adds to the flow hash of @m, whose
 * IPv4 (@v6: IPv6) header @ip lies in its first segment; 0 with l3.
 * router_flow_l4() gives the control thread the same. */
static inline uint32_t mp_l4(const struct dp_ctx *c, const struct rte_mbuf *m, const void *ip,
			     bool v6)
{
	uint32_t len;

	if (!DP_LOAD(c->conf->mp_hash_l4))
		return 0;
	len = (uint32_t)(rte_pktmbuf_mtod(m, const uint8_t *) + rte_pktmbuf_data_len(m) -
			 (const uint8_t *)ip);
	return v6 ? ip6_flow_ports(ip, len) : ip4_flow_ports(ip, len);
}

/* rpf_ok(), or the packet dropped and counted. */
static inline bool rpf_pass(struct dp_ctx *c, const struct dp_port *pp, uint8_t rpf, uint64_t snh,
			    uint16_t in_port, struct rte_mbuf *m, uint16_t *out)
{
	if (likely(rpf_ok(c, pp, rpf, snh, in_port)))
		return true;
	c->st->rpf_drop[in_port][rpf == DP_RPF_STRICT ? 0 : 1]++;
	drop(c, m, out, rpf == DP_RPF_STRICT ? DROP_RPF_STRICT : DROP_RPF_LOOSE);
	return false;
}

/*
 * The neighbour @ni of a packet to forward: usable, read into @v and marked
 * used (the control thread re-probes the STALE neighbours in use); or the
 * packet goes to the control thread to resolve it. @all: all of @v is
 * wanted (a route cache fill keeps its generation); else only its word and
 * state, read in one load.
 */
static __rte_always_inline bool neigh_ready(struct dp_ctx *c, uint32_t ni, struct rte_mbuf *m,
					    struct neigh_view *v, uint16_t *out, const bool all)
{
	if (likely(ni != NEIGH_IDX_NONE)) {
		if (all) {
			neigh_read(c->neigh_hot, ni, v);
		} else {
			v->word = neigh_word(c->neigh_hot, ni);
			v->state = neigh_word_state(v->word);
		}
		if (likely(neigh_state_usable(v->state))) {
			if (c->neigh_used != NULL)
				neigh_mark_used(c->neigh_used, ni);
			return true;
		}
	}
	dp_ctrl_reason_set(m, CTRL_RESOLVE);
	*out = DP_OUT_CTRL;
	return false;
}

/*
 * The common frame: to this port's MAC (@mac_w, its 6 bytes under @mask in
 * an 8-byte word, whose seventh byte, the source's first, has the group
 * bit under the mask and clear in @mac_w: from an individual address),
 * IPv4, version 4 and IHL 5 (no options). Two loads and
 * two compares where the separate tests take about twice as many; the
 * frame holds the whole IPv4 header (the caller checked). Byte order does
 * not matter: each side is read as it lies in memory.
 */
static inline bool frame_ours4(const struct rte_ether_hdr *eth, uint64_t mac_w, uint64_t mask)
{
	static const uint8_t want[4] = {0x08, 0x00, 0x45, 0}, wmask[4] = {0xff, 0xff, 0xff, 0};
	uint32_t t, tw, tm;
	uint64_t d;

	memcpy(&d, eth, sizeof(d));		 /* the destination and 2 bytes of the source */
	memcpy(&t, &eth->ether_type, sizeof(t)); /* the type, version and IHL, TOS */
	memcpy(&tw, want, sizeof(tw));
	memcpy(&tm, wmask, sizeof(tm));
	return ((d ^ mac_w) & mask) == 0 && (t & tm) == tw;
}

/* Packet @i's frame was L2 broadcast or multicast, by the burst's word of
 * them (@l2g, bit i; nearly always 0). */
static inline bool l2_group(uint32_t l2g, unsigned int i)
{
	return unlikely(l2g != 0) && ((l2g >> i) & 1);
}

/* rte_is_same_ether_addr() in two loads a side instead of three. */
static inline bool mac_is(const struct rte_ether_addr *a, const struct rte_ether_addr *b)
{
	uint32_t a4, b4;
	uint16_t a2, b2;

	memcpy(&a4, a, 4);
	memcpy(&b4, b, 4);
	memcpy(&a2, (const uint8_t *)a + 4, 2);
	memcpy(&b2, (const uint8_t *)b + 4, 2);
	return ((a4 ^ b4) | (uint32_t)(a2 ^ b2)) == 0;
}

/* @a is one of the router's own addresses (not a subnet's broadcast). */
static inline bool is_own(const struct dp_local *loc, uint32_t a)
{
	uint32_t i;

	if (loc == NULL)
		return false;
	for (i = 0; i < loc->n_own; i++)
		if (loc->addr[i] == a)
			return true;
	return false;
}

/* @a is one of the router's own IPv6 addresses (link-local ones aside). */
static inline bool is_own6(const struct dp_local *loc, const uint8_t *a)
{
	unsigned int b = dp_local6_bit(a);
	uint32_t i;

	if (loc == NULL || !((loc->filter6[b >> 6] >> (b & 63)) & 1))
		return false;
	for (i = 0; i < loc->n6; i++)
		if (memcmp(loc->addr6[i], a, 16) == 0)
			return true;
	return false;
}

/* RFC 3927 2.7: a packet from or to 169.254/16 is never forwarded; one to
 * the router's own address there (a link numbered in it, a BGP peering) is
 * the router's. Only looked at for addresses in 169/8. */
static inline bool link_local_not_ours(const struct dp_local *loc, uint32_t a, uint32_t d)
{
	return ip4_is_link_local(a) && !(ip4_is_link_local(d) && is_own(loc, d));
}

/*
 * A source never forwarded from (with the martian checks on): RFC 1812
 * 5.3.7's (the limited broadcast is among ip4_martian_src()'s) and ours
 * (DROP_MARTIAN_SRC); 169.254/16 unless the packet is for our own address
 * there (DROP_IP4_LINK_LOCAL, RFC 3927 2.7). DROP_MAX: none of those.
 */
static inline enum dp_drop bad_src(const struct dp_local *loc, uint32_t s, uint32_t d)
{
	uint8_t t = dp_martian4[s >> 24];

	if (unlikely(t != 0)) {
		if (t & DP_MARTIAN_SRC)
			return DROP_MARTIAN_SRC;
		if ((t & DP_LINK_LOCAL) && link_local_not_ours(loc, s, d))
			return DROP_IP4_LINK_LOCAL;
	}
	return dp_local_has4(loc, s) ? DROP_MARTIAN_SRC : DROP_MAX;
}

/* A destination never forwarded nor accepted, as bad_src(): a multicast
 * one whatever the martian checks (no multicast routing, no group joined),
 * RFC 1812's and 169.254/16 but ours with them on. */
static inline enum dp_drop bad_dst(const struct dp_local *loc, uint8_t martians, uint32_t d)
{
	uint8_t t = dp_martian4[d >> 24];

	if (likely(!(t & (DP_MARTIAN_DST | DP_MCAST_DST | DP_LINK_LOCAL))))
		return DROP_MAX;
	if (t & DP_MCAST_DST)
		return DROP_IP4_MCAST;
	if (!martians)
		return DROP_MAX;
	if ((t & DP_MARTIAN_DST) && d != UINT32_MAX)
		return DROP_MARTIAN_DST;
	if ((t & DP_LINK_LOCAL) && link_local_not_ours(loc, d, d))
		return DROP_IP4_LINK_LOCAL;
	return DROP_MAX;
}

/*
 * A malformed option (ip4_validate()'s DROP_IP4_BAD_OPTIONS): dropped, with
 * Parameter Problem 12/0 pointing at the octet in error (RFC 1812 4.3.3.5,
 * RFC 792). It is refused before the checks that follow validation, so
 * those that would have dropped it silently are made here: no error to a
 * source never answered (ours among them) or one the port's rpf refuses
 * (a spoofed source would aim errors at its victim), nor about a packet to
 * one of our subnets' broadcast or network addresses or to a martian
 * destination (@martians: the burst's setting). Out of line: rare, and kept
 * out of each copy of dp_burst().
 */
static __rte_noinline void drop_bad_options(struct dp_ctx *c, struct rte_mbuf *m,
					    const struct rte_ipv4_hdr *ip, uint8_t flags,
					    const struct dp_local *loc, const struct dp_port *pp,
					    uint16_t in_port, uint8_t rpf, uint8_t martians,
					    uint16_t *out)
{
	uint32_t optlen = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * 4 - sizeof(*ip);
	uint32_t s = dp_ntohl(ip->src_addr), d = dp_ntohl(ip->dst_addr), at = 0;
	bool quiet = bad_src(loc, s, d) != DROP_MAX || (dp_local_has4(loc, d) && !is_own(loc, d)) ||
		     bad_dst(loc, martians, d) != DROP_MAX;

	if (!quiet && rpf != DP_RPF_OFF) {
		uint64_t snh;

		fib4_lookup_bulk(c->fib, &s, &snh, 1);
		quiet = !rpf_ok(c, pp, rpf, snh, in_port);
	}
	if (quiet) {
		c->st->icmp_not_sent++;
		drop(c, m, out, DROP_IP4_BAD_OPTIONS);
		return;
	}
	ip4_options_check((const uint8_t *)(ip + 1), optlen, &at);
	drop_icmp(c, m, ip, flags, out, DROP_IP4_BAD_OPTIONS, 12, 0, (uint32_t)sizeof(*ip) + at);
}

/* An error @allowed about the packet, and a Redirect token (counted when
 * none is left). */
static bool redirect_token(struct dp_ctx *c, bool allowed)
{
	if (!allowed)
		return false;
	if (!dp_tokens_take(&c->icmp_redirect, c->conf)) {
		c->st->redirects_ratelimited++;
		return false;
	}
	return true;
}

/*
 * The part of redirect_due() and redirect6_due() both families share: the
 * source's route @snh a connected one out of @in_port, an error @allowed
 * about the packet, and a Redirect token (counted when none is left).
 */
static bool redirect_take(struct dp_ctx *c, uint64_t snh, uint16_t in_port, bool allowed)
{
	const struct fib_nh *sh = &c->nh[snh];

	return sh->type == FIB_NH_CONNECTED && sh->port == in_port && redirect_token(c, allowed);
}

/*
 * A packet about to leave by the port it came in by (@in_port, whose
 * redirects are on): is an ICMP Redirect due to its sender (RFC 1812
 * 5.2.7.2)? Its source must be on that port's link (a connected route out
 * of it: the control thread checks that it shares a subnet with the next
 * hop), an ICMP error must be allowed about it (never about an error, a
 * later fragment...: 4.3.2.7) and the Redirect tokens must allow one (a
 * host that ignores Redirects gets one at the rate, and its packets take
 * the fast path meanwhile). Source-routed packets never get here.
 */
static __rte_noinline __rte_cold bool redirect_due(struct dp_ctx *c, const struct rte_mbuf *m,
						   const struct rte_ipv4_hdr *ip, uint8_t flags,
						   uint16_t in_port)
{
	uint32_t s = dp_ntohl(ip->src_addr);
	uint64_t snh;

	fib4_lookup_bulk(c->fib, &s, &snh, 1);
	return redirect_take(c, snh, in_port, icmp_allowed(c, m, ip, flags));
}

/* ip4_options_to_fill(), out of line: only a header with options asks */
static __rte_noinline __rte_cold bool options_to_fill(const struct rte_ipv4_hdr *ip)
{
	return ip4_options_to_fill(ip);
}

/*
 * The address checks left after the route cache (a source without rpf was
 * checked before it), then the lookups' lines are prefetched. False:
 * dropped and counted.
 */
static inline bool addr_checks(struct dp_ctx *c, struct fib4_tbl24 t24, struct rte_mbuf *m,
			       const struct dp_local *loc, bool rpf_on, uint8_t martians,
			       uint32_t s, uint32_t d, uint16_t *out, const bool fetched)
{
	enum dp_drop why;

	if (martians && rpf_on && unlikely((why = bad_src(loc, s, d)) != DROP_MAX)) {
		drop(c, m, out, why);
		return false;
	}
	if (unlikely((why = bad_dst(loc, martians, d)) != DROP_MAX)) {
		drop(c, m, out, why);
		return false;
	}
	/* the lookups read these lines: start loading them now, under the
	 * work on the packets that follow (unless the burst's start did) */
	if (!fetched) {
		fib4_prefetch(t24, d);
		if (rpf_on)
			fib4_prefetch(t24, s);
	}
	return true;
}

/* The MACs for leaving by @out: the destination's from the first 6 bytes of
 * @dw (its 8 bytes stored at once; the source MAC written next covers the
 * other 2). Both families. */
static inline void eth_rewrite(const struct dp_port *out, struct rte_ether_hdr *eth, uint64_t dw)
{
	memcpy(eth, &dw, sizeof(dw));
	rte_ether_addr_copy(&out->mac, &eth->src_addr);
}

/* IPv4: the TTL, then the MACs. */
static inline void rewrite(const struct dp_port *out, struct rte_ether_hdr *eth,
			   struct rte_ipv4_hdr *ip, uint64_t dw)
{
	ip4_ttl_dec(ip);
	eth_rewrite(out, eth, dw);
}

/*
 * Forward with a cached decision. Per-packet checks the cache cannot hold
 * stay here: TTL, the size against the egress MTU, the egress link, options
 * (a Record Route or Timestamp to fill in, which the full path hands on). Those
 * cases (rare) return false and take the full path, which also sends
 * their ICMP. Always inline: as a call, with the copies of dp_burst() that
 * probe, a hit cost as many instructions as the whole path without the
 * cache.
 */
static __rte_always_inline bool forward_hit(struct dp_ctx *c, struct rte_mbuf *m,
					    const struct rtcache_entry *e, uint16_t *out)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);

	if (unlikely(ip->time_to_live <= 1 || ip->version_ihl != 0x45 ||
		     dp_ntohs(ip->total_length) > DP_LOAD(c->ports[e->out_port].mtu) ||
		     DP_LOAD(c->ports[e->out_port].down)))
		return false;
	ip4_ttl_dec(ip);
	/* the prebuilt header: destination and source MAC (the type is IPv4) */
	memcpy(eth, e->eth, 2 * RTE_ETHER_ADDR_LEN);
	if (c->neigh_used != NULL)
		neigh_mark_used(c->neigh_used, e->neigh);
	*out = e->out_port;
	return true;
}

/*
 * The route cache's valid entry for a probed packet's key in its bucket, or
 * NULL: a miss, or an entry built under a FIB, a neighbour or an rpf mode
 * that no longer holds (forgotten and counted stale).
 */
static __rte_always_inline const struct rtcache_entry *
cache_probe(struct dp_ctx *c, struct rtcache *rtc, uint32_t bkt, uint32_t d, uint32_t s,
	    uint16_t in_port, uint8_t rpf, bool rpf_on)
{
	struct rtcache_entry *e = rtcache_find_at(rtc, bkt, d, rpf_on ? s : 0, in_port);

	if (e == NULL)
		return NULL;
	if (likely(e->fib_gen == c->fib_gen && e->rpf == rpf &&
		   neigh_gen(c->neigh_hot, e->neigh) == e->neigh_gen))
		return e;
	rtcache_stale(rtc, e);
	return NULL;
}

/*
 * The route cache probes of a burst. Each probed packet's bucket starts
 * loading once the packet is checked. A warm cache (the last burst's probes
 * mostly hit: its buckets sit in the CPU's caches) probes each packet once
 * the next one is checked, so a hit is forwarded without a second pass over
 * the burst. A cold one probes after the whole burst is checked: buckets
 * that come from memory then load side by side instead of one at a time.
 */
struct dp_probe {
	/* the last packet whose key was taken: its destination, source and
	 * bucket (a train of one flow compares its key with them) */
	uint32_t pd, ps, pb;
	bool have_key;
	unsigned int pend;		  /* warm: that packet, still to probe; DP_BURST: none */
	const struct rtcache_entry *last; /* the valid entry of the last packet probed */
	unsigned int probes, hits;
};

/*
 * Probe packet @p i (key @p d, @p s, bucket @p b; @p same: the key of the
 * packet probed before it, whose entry serves it without a new probe). A
 * valid entry forwards it; a miss, or a packet the entry cannot take (TTL,
 * size: the full path sends its ICMP), takes the address checks and joins
 * the lookups at @p k. Returns the new count. The key holds the destination
 * (and with rpf on the source), so a valid entry vouches for the martian
 * checks: the same addresses and port passed them under this FIB generation
 * (turning the checks on bumps it). Always inline: the copies of
 * dp_burst() that probe the cache call it at six places, and a call (which
 * the compiler chose once those copies existed) took the 1-flow hit from
 * about 29 to 42 cycles.
 */
static __rte_always_inline unsigned int
cache_resolve(struct dp_ctx *c, struct dp_probe *pr, struct rte_mbuf *m, unsigned int i, uint32_t d,
	      uint32_t s, uint32_t b, bool same, const struct dp_local *loc, uint16_t in_port,
	      uint8_t rpf, bool rpf_on, uint8_t martians, uint16_t *out, uint32_t *dst,
	      uint32_t *src, uint8_t *idx, uint32_t *bkt, unsigned int k)
{
	pr->probes++;
	if (!same || pr->last == NULL)
		pr->last = cache_probe(c, c->rtc, b, d, s, in_port, rpf, rpf_on);
	if (pr->last != NULL) {
		/* a hit, whether or not the packet can take it (TTL, size,
		 * port: the full path sends its ICMP): lookups = hits +
		 * misses + stale */
		pr->hits++;
		if (forward_hit(c, m, pr->last, &out[i]))
			return k;
	}
	if (!addr_checks(c, c->tbl24, m, loc, rpf_on, martians, s, d, &out[i], false))
		return k;
	bkt[k] = b; /* a miss fills the bucket it probed */
	dst[k] = d;
	src[k] = s;
	idx[k] = (uint8_t)i;
	out[i] = DP_OUT_DROP; /* decided below */
	return k + 1;
}

/* ---- IPv6 ------------------------------------------------------------------ */

/* RFC 4443 2.4 (e) (datapath.h), with the frame's L2 group flag; and
 * (e.6) no error about a packet from one of the router's Subnet-Router
 * anycast addresses, refused here rather than by the control thread after
 * it took a token (icmp6_error() checks again, for its own errors). */
static inline bool icmp6_allowed(const struct dp_ctx *c, const struct rte_mbuf *m,
				 const struct rte_ipv6_hdr *ip, uint8_t flags, uint8_t type)
{
	return dp_icmp6_allowed(m, ip, (flags & F_L2_GROUP) != 0, type == 2) &&
	       !dp_local_anycast6(__atomic_load_n(&c->conf->local, __ATOMIC_ACQUIRE), ip->src_addr);
}

static inline void drop_icmp6(struct dp_ctx *c, struct rte_mbuf *m, const struct rte_ipv6_hdr *ip,
			      uint8_t flags, uint16_t *out, enum dp_drop why, uint8_t type,
			      uint8_t code, uint32_t aux)
{
	c->st->drop[why]++;
	if (!icmp6_allowed(c, m, ip, flags, type)) {
		c->st->icmp_not_sent++;
	} else if (!icmp_token(c, type == 2)) {
		c->st->icmp_ratelimited++;
	} else {
		dp_ctrl_set(m, CTRL_ICMP_ERROR, type, code, aux);
		*out = DP_OUT_CTRL_ERR;
		return;
	}
	rte_pktmbuf_free(m);
	*out = DP_OUT_DROP;
}

/*
 * A packet whose route does not forward it: for the router (local), or
 * dropped, silently (blackhole) or with a destination unreachable of its
 * family (RFC 1812 5.2.7.1, RFC 4443 3.1): no route or an unreachable
 * route, or administratively prohibited.
 */
static __rte_always_inline void not_forwarded(struct dp_ctx *c, struct rte_mbuf *m, const void *ip,
					      uint8_t flags, uint16_t *out, uint8_t nh_type,
					      const bool v6)
{
	enum dp_drop why = DROP_NO_ROUTE;
	bool prohibit = false;

	switch (nh_type) {
	case FIB_NH_LOCAL:
		dp_ctrl_reason_set(m, CTRL_LOCAL);
		*out = DP_OUT_CTRL;
		return;
	case FIB_NH_BLACKHOLE:
		drop(c, m, out, DROP_BLACKHOLE);
		return;
	case FIB_NH_UNREACHABLE:
		why = DROP_UNREACHABLE;
		break;
	case FIB_NH_PROHIBIT:
		why = DROP_PROHIBIT;
		prohibit = true;
		break;
	default:
		break;
	}
	if (v6)
		drop_icmp6(c, m, ip, flags, out, why, 1, prohibit ? 1 : 0, 0);
	else
		drop_icmp(c, m, ip, flags, out, why, 3, prohibit ? 13 : 0, 0);
}

/*
 * Forward with a cached IPv6 decision; what the cache cannot hold is checked
 * here: hop limit, size against the egress MTU, and a link-local source
 * (the key holds the source only with rpf on). Those take the full path.
 */
static inline bool forward_hit6(struct dp_ctx *c, struct rte_mbuf *m,
				const struct rtcache_entry6 *e, const uint8_t *src, uint16_t *out)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);

	if (unlikely(ip->hop_limits <= 1 || ip6_size(ip) > DP_LOAD(c->ports[e->out_port].mtu) ||
		     DP_LOAD(c->ports[e->out_port].down) || ip6_is_linklocal(src)))
		return false;
	ip->hop_limits--;
	memcpy(&eth->dst_addr, e->dmac, RTE_ETHER_ADDR_LEN);
	rte_ether_addr_copy(&c->ports[e->out_port].mac, &eth->src_addr);
	if (c->neigh_used != NULL)
		neigh_mark_used(c->neigh_used, e->neigh);
	*out = e->out_port;
	return true;
}

/*
 * The IPv6 twin of redirect_due(): a packet about to leave by its arrival
 * port @in_port, whose Redirects are on. Is an ICMPv6 Redirect due to its
 * sender (RFC 4861 8.2)? Its source @src on that port's link (a connected
 * route out of it: the control thread checks what the target can be), an
 * error allowed about it (RFC 4443 2.4 (e)), a Redirect token.
 */
static __rte_noinline __rte_cold bool redirect6_due(struct dp_ctx *c, const struct rte_mbuf *m,
						    const struct rte_ipv6_hdr *ip, uint8_t flags,
						    uint16_t in_port, const uint8_t *src)
{
	uint8_t s[1][16];
	uint64_t snh;

	/* a link-local source is on the arrival link by its scope, and in
	 * no route */
	if (ip6_is_linklocal(src))
		return redirect_token(c, icmp6_allowed(c, m, ip, flags, ICMP6_REDIRECT));
	memcpy(s[0], src, 16);
	fib6_lookup_bulk(c->fib, s, &snh, 1);
	return redirect_take(c, snh, in_port, icmp6_allowed(c, m, ip, flags, ICMP6_REDIRECT));
}

/* @a is the link-local address of one of the router's ports. */
static bool ll6_ours(const struct dp_ctx *c, const uint8_t *a)
{
	uint16_t p;

	for (p = 0; p < c->nb_ports; p++)
		if (memcmp(a, c->ports[p].ll6, 16) == 0)
			return true;
	return false;
}

/*
 * The IPv6 packets of a burst (indexes @idx into @pkts): checks, scope
 * rules (RFC 4291, RFC 8200), one bulk lookup of the destinations and one
 * of the sources when the port has rpf on, verdict by route type, neighbour,
 * MTU (Packet Too Big: routers never fragment IPv6), hop limit decrement
 * and Ethernet rewrite. Extension headers are forwarded untouched.
 */
static void dp6_burst(struct dp_ctx *c, uint16_t in_port, uint8_t rpf, struct rte_mbuf **pkts,
		      const uint8_t *idx6, unsigned int n6, const uint8_t *flags, uint16_t *out)
{
	/* a local copy: the packet writes would reload c->ports (dp_burst) */
	const struct dp_port *ports = c->ports;
	const struct dp_port *pp = &ports[in_port];
	/* acquire: the list is complete before the pointer to it is seen */
	const struct dp_local *loc = __atomic_load_n(&c->conf->local, __ATOMIC_ACQUIRE);
	struct rtcache *rtc = c->rtc;
	bool use_cache = false;
	uint8_t dst[DP_BURST][16], src[DP_BURST][16];
	uint64_t nh[DP_BURST], snh[DP_BURST];
	uint8_t idx[DP_BURST];
	unsigned int i, j, k = 0;
	enum dp_drop why;

	for (j = 0; j < n6; j++) {
		struct rte_mbuf *m;
		struct rte_ipv6_hdr *ip;

		i = idx6[j];
		m = pkts[i];
		ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
		if (unlikely(!ip6_validate(m, ip, &why))) {
			drop(c, m, &out[i], why);
			continue;
		}
		/* global unicast (2000::/3), nearly all traffic: none of the
		 * checks below can refuse it but the router's own address as
		 * the source */
		if (likely(ip6_is_global(ip->src_addr) && ip6_is_global(ip->dst_addr)) &&
		    likely(!is_own6(loc, ip->src_addr)))
			goto checked;
		/* never from these, to the router's groups too (an NS from ::1
		 * would have its NA sent to ::1 on the link); ::, the router's
		 * own link-local addresses and its own addresses only to a
		 * group (a DAD probe; another host's NS with our address is a
		 * conflict the control thread counts), else an ICMPv6 error
		 * would be sent to the router itself, resolving its own
		 * address (IPv4: martian_source) */
		if (unlikely(ip6_is_loopback(ip->src_addr) || ip6_is_mcast(ip->src_addr) ||
			     ip6_is_v4mapped(ip->src_addr) ||
			     (!ip6_is_mcast(ip->dst_addr) &&
			      (ip6_is_unspec(ip->src_addr) ||
			       (ip6_is_linklocal(ip->src_addr) && ll6_ours(c, ip->src_addr)) ||
			       is_own6(loc, ip->src_addr))))) {
			drop(c, m, &out[i], DROP_IP6_BAD_SRC);
			continue;
		}
		if (unlikely(ip6_is_mcast(ip->dst_addr))) {
			/* interface-local groups never appear on a link; of the
			 * others, the router listens to a few for ND (and MLD's
			 * queries, behind hop-by-hop options) and routes none
			 * (no multicast routing) */
			if (ip6_mcast_scope(ip->dst_addr) <= 1)
				drop(c, m, &out[i], DROP_IP6_BAD_DST);
			else if (ip6_group_ours(ip->dst_addr) &&
				 (ip->proto == IPPROTO_ICMPV6 || ip->proto == IPPROTO_HOPOPTS)) {
				dp_ctrl_reason_set(m, CTRL_LOCAL);
				out[i] = DP_OUT_CTRL;
			} else
				drop(c, m, &out[i], DROP_IP6_MCAST);
			continue;
		}
		if (unlikely(ip6_is_unspec(ip->dst_addr) || ip6_is_loopback(ip->dst_addr) ||
			     ip6_is_v4mapped(ip->dst_addr))) {
			drop(c, m, &out[i], DROP_IP6_BAD_DST);
			continue;
		}
		if (unlikely(ip6_is_linklocal(ip->dst_addr))) {
			/* link-local addresses are per port and not in the FIB */
			if (memcmp(ip->dst_addr, pp->ll6, 16) == 0) {
				/* the router's: rpf as for its other addresses
				 * (of a source beyond the link, looked up here,
				 * a rare packet; a link-local one by scope) */
				if (rpf != DP_RPF_OFF && !(flags[i] & F_L2_GROUP) &&
				    !ip6_is_linklocal(ip->src_addr)) {
					uint8_t s6[1][16];
					uint64_t sh;

					memcpy(s6[0], ip->src_addr, 16);
					fib6_lookup_bulk(c->fib, s6, &sh, 1);
					if (!rpf_pass(c, pp, rpf, sh, in_port, m, &out[i]))
						continue;
				}
				dp_ctrl_reason_set(m, CTRL_LOCAL);
				out[i] = DP_OUT_CTRL;
			} else {
				drop(c, m, &out[i], DROP_IP6_LINKLOCAL);
			}
			continue;
		}
	checked:
		memcpy(dst[k], ip->dst_addr, 16);
		memcpy(src[k], ip->src_addr, 16);
		idx[k++] = (uint8_t)i;
	}
	if (k == 0)
		return;

	/* route cache, as for IPv4: hits skip both lookups. In the mode
	 * dp_input_chunk() put in place for the whole burst: a change read
	 * here would start auto mode's measurement halfway through it */
	if (rtc != NULL)
		use_cache = rtcache_use(rtc, k);
	if (use_cache) {
		static const uint8_t none[16];
		unsigned int km = 0;

		for (j = 0; j < k; j++) {
			struct rtcache_entry6 *e;

			i = idx[j];
			/* a frame to an L2 group is never forwarded: not probed
			 * (as IPv4), so it cannot take a valid entry for stale */
			if (unlikely(flags[i] & F_L2_GROUP))
				goto full;
			e = rtcache6_find(rtc, dst[j], rpf != DP_RPF_OFF ? src[j] : none, in_port);
			if (e != NULL) {
				if (likely(e->fib_gen == c->fib_gen && e->rpf == rpf &&
					   neigh_gen(c->neigh_hot, e->neigh) == e->neigh_gen)) {
					/* a hit, whether or not the packet can take
					 * it (hop limit, size, port: the full path) */
					rtcache_hit(rtc);
					if (forward_hit6(c, pkts[i], e, src[j], &out[i]))
						continue;
				} else {
					rtcache6_stale(rtc, e);
				}
			}
		full:
			memcpy(dst[km], dst[j], 16);
			memcpy(src[km], src[j], 16);
			idx[km++] = (uint8_t)i;
		}
		rtcache_account(rtc);
		k = km;
		if (k == 0)
			return;
	}

	fib6_lookup_bulk(c->fib, dst, nh, k);
	if (rpf != DP_RPF_OFF)
		fib6_lookup_bulk(c->fib, src, snh, k);

	for (j = 0; j < k; j++) {
		struct rte_mbuf *m;
		struct rte_ether_hdr *eth;
		struct rte_ipv6_hdr *ip;
		const struct fib_nh *h;
		struct neigh_view v;
		uint16_t port, mtu;
		uint32_t ni;
		bool hairpin, mp = false;

		i = idx[j];
		m = pkts[i];
		h = &c->nh[nh[j]];
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		ip = (struct rte_ipv6_hdr *)(eth + 1);

		/* RFC 3704, as for IPv4; a link-local source is checked by
		 * scope instead (forwarded back onto its own link only) */
		if (rpf != DP_RPF_OFF && !(flags[i] & F_L2_GROUP) && !ip6_is_linklocal(src[j]) &&
		    unlikely(!rpf_pass(c, pp, rpf, snh[j], in_port, m, &out[i])))
			continue;

		/* by a gateway, the common case, before the switch's jump table */
		if (likely(h->type == FIB_NH_GATEWAY)) {
			ni = h->neigh;
		} else {
			switch (h->type) {
			case FIB_NH_CONNECTED: {
				struct fr_addr a;

				a.family = AF_INET6;
				memcpy(a.v6, dst[j], 16);
				ni = neigh_find(c->neigh, &a, h->port);
				break;
			}
			case FIB_NH_MULTIPATH:
				h = mp_pick(c, ports, h,
					    fib_mp_hash6(c->mp_seed, ip->src_addr, ip->dst_addr,
							 mp_l4(c, m, ip, true)));
				ni = h->neigh;
				mp = true;
				break;
			default:
				not_forwarded(c, m, ip, flags[i], &out[i], h->type, true);
				continue;
			}
		}
		/* forwarding from here on */
		if (unlikely(flags[i] & F_L2_GROUP)) {
			drop(c, m, &out[i], DROP_L2_BCAST_FORWARD);
			continue;
		}
		port = h->port;
		if (unlikely(ip6_is_linklocal(src[j])) && port != in_port) {
			/* RFC 4291 2.5.6: never forwarded to another link;
			 * back onto its own it is, with a Redirect due (RFC
			 * 4861 8.2), as Linux forwards it */
			drop_icmp6(c, m, ip, flags[i], &out[i], DROP_IP6_LINKLOCAL, 1, 2, 0);
			continue;
		}
		if (unlikely(ip->hop_limits <= 1)) {
			drop_icmp6(c, m, ip, flags[i], &out[i], DROP_IP6_HOP_LIMIT, 3, 0, 0);
			continue;
		}
		if (unlikely(DP_LOAD(ports[port].down))) {
			/* a route that stays (the port's connected subnet):
			 * say so, as the neighbour's failure would (RFC 4443
			 * 3.1 code 3) */
			drop_icmp6(c, m, ip, flags[i], &out[i], DROP_PORT_DOWN, 1, 3, 0);
			continue;
		}
		/* RFC 8200 5: too big is refused at once, before the
		 * neighbour, as IPv4 with DF: held for a neighbour not yet
		 * resolved, it would take a hold slot for nothing, and one
		 * that fails would answer unreachable where path MTU
		 * discovery needs Packet Too Big */
		mtu = DP_LOAD(ports[port].mtu);
		if (unlikely(ip6_size(ip) > mtu)) {
			drop_icmp6(c, m, ip, flags[i], &out[i], DROP_IP6_TOO_BIG, 2, 0, mtu);
			continue;
		}
		if (unlikely(!neigh_ready(c, ni, m, &v, &out[i], true)))
			continue;
		ip->hop_limits--;
		eth_rewrite(&ports[port], eth, v.word);
		/* back out of its arrival port, Redirects on there: as IPv4's */
		hairpin = unlikely(port == in_port) && DP_LOAD(pp->redirects);
		if (unlikely(hairpin) && redirect6_due(c, m, ip, flags[i], in_port, src[j])) {
			dp_ctrl_set(m, CTRL_FORWARD, ICMP6_REDIRECT, 0, port);
			out[i] = DP_OUT_CTRL;
			continue;
		}
		out[i] = port;
		/* a multipath flow is not cached: the entry's key may leave
		 * out its source, which picks the gateway; nor a link-local
		 * source's, which a hit never takes (forward_hit6()) */
		if (use_cache && !hairpin && !mp && !ip6_is_linklocal(src[j])) {
			static const uint8_t none[16];
			struct rtcache_entry6 *e =
				rtcache6_slot(rtc, dst[j], rpf != DP_RPF_OFF ? src[j] : none,
					      in_port, c->fib_gen);

			e->out_port = port;
			e->rpf = rpf;
			e->neigh = ni;
			e->neigh_gen = v.gen;
			e->fib_gen = c->fib_gen;
			memcpy(e->dmac, &v.mac, RTE_ETHER_ADDR_LEN);
		}
	}
}

/*
 * The burst's work, with the three per-burst choices that steer it as
 * constants (@use_cache: the route cache is probed; @rpf_on: the port has
 * rpf on; @own_lookup: 0, one bulk lookup call, else the FIB's DIR-24-8 is
 * read here and its entries are 2^own_lookup bytes; @nx: how many packets
 * follow @pkts[@n - 1] in the poll, up to a burst, whose lines are
 * prefetched too): dp_input_burst() calls one copy per combination, so
 * each packet pays only for the steps its burst takes, not for a test of
 * each choice at each step.
 */
static __rte_always_inline void dp_burst(struct dp_ctx *c, uint16_t in_port, uint8_t rpf_mode,
					 struct rte_mbuf **pkts, uint16_t n, uint16_t nx,
					 uint16_t *out, const bool use_cache, const bool rpf_on,
					 const unsigned int own_lookup)
{
	static const uint8_t bcast[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	/* a local copy: the compiler cannot know that the packet writes
	 * leave c->ports alone, and would load it again after each */
	const struct dp_port *ports = c->ports;
	const struct dp_port *pp = &ports[in_port];
	const struct dp_conf *cf = c->conf;
	/* acquire: the list is complete before the pointer to it is seen */
	const struct dp_local *loc = __atomic_load_n(&cf->local, __ATOMIC_ACQUIRE);
	/* rpf_on says whether rpf is on; rpf, which mode (read once per
	 * burst by dp_input_burst(): a change lands between bursts) */
	const uint8_t rpf = rpf_on ? rpf_mode : DP_RPF_OFF, martians = DP_LOAD(cf->martians);
	/* destinations, then sources: with rpf on, one lookup call takes both */
	uint32_t addr[2 * DP_BURST], *dst = addr, *src = addr + DP_BURST;
	uint64_t nhs[2 * DP_BURST], *nh = nhs, *snh;
	uint8_t idx[DP_BURST], idx6[DP_BURST];
	uint8_t flags[DP_BURST];
	uint32_t bkt[DP_BURST]; /* route cache buckets of the misses, for their fill */
	struct rtcache *rtc = c->rtc;
	unsigned int i, j, k = 0, k6 = 0, w, nlate = 0;
	/* the packets whose second FIB level is read last (see the
	 * forwarding loop) */
	uint8_t late[DP_BURST];
	struct dp_probe pr = {.pend = DP_BURST};
	/* own_lookup, when set, is the log2 of the entry size: a constant in
	 * each copy, so the lookups' shifts and loads are fixed */
	const struct fib4_tbl24 t24 = {c->tbl24.base, c->tbl24.tbl8,
				       own_lookup ? (uint8_t)own_lookup : c->tbl24.shift};
	struct rtcache_hasher hk = {0};
	bool warm = false;
	/* the lookups' lines prefetched at the burst's start (below), not as
	 * each packet is checked: where the FIB is read in place and no route
	 * cache may answer first */
	const bool early = own_lookup && !use_cache;
	enum dp_drop why;
	/* the common frame's test (frame_ours4()): this port's MAC */
	uint64_t mac_w = 0, mac_mask = 0;
	/* the packets whose frame was L2 broadcast or multicast (F_L2_GROUP):
	 * the forwarding loop tests this word, not a load per packet */
	uint32_t l2g = 0;

	memset(flags, 0, sizeof(flags));
	memcpy(&mac_w, &pp->mac, RTE_ETHER_ADDR_LEN);
	memset(&mac_mask, 0xff, RTE_ETHER_ADDR_LEN);
	/* the source's group bit: clear (frame_ours4()) */
	((uint8_t *)&mac_mask)[RTE_ETHER_ADDR_LEN] = 0x01;
	if (own_lookup && t24.base == NULL)
		__builtin_unreachable(); /* fib4_tbl24(): tbl8 is known only with base */
	if (use_cache) {
		hk = rtcache_hasher(rtc, in_port);
		warm = rtc->warm;
	}
	if (early) {
		/* Every packet's tbl24 lines asked for before any is checked,
		 * from where an IPv4 header would hold its addresses: a frame
		 * that turns out not to be one costs a useless prefetch, never
		 * a fault (any 32-bit value >> 8 indexes inside tbl24), and a
		 * first segment too short is left out. The @nx packets after
		 * this burst (the next of the poll) too: their lines load
		 * while this one is decided, a whole burst ahead. */
		for (i = 0; i < n + nx; i++) {
			const struct rte_mbuf *m = pkts[i];
			const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
				m, const struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));

			if (unlikely(rte_pktmbuf_data_len(m) <
				     RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr)))
				continue;
			/* rte_prefetch0(), as for the second level below */
			rte_prefetch0(fib4_first_at(t24, dp_ntohl(ip->dst_addr)));
			if (rpf_on)
				rte_prefetch0(fib4_first_at(t24, dp_ntohl(ip->src_addr)));
		}
	}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rte_ether_hdr *eth;
		struct rte_ipv4_hdr *ip;
		uint32_t s, d;

		if (!early && i + 1 < n) /* early: the loop above read them all */
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		if (likely(rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN + sizeof(*ip)) &&
		    likely(frame_ours4(eth, mac_w, mac_mask))) {
			ip = (struct rte_ipv4_hdr *)(eth + 1);
			if (unlikely(!ip4_validate20(m, ip, &why))) {
				drop(c, m, &out[i], why);
				continue;
			}
		} else {
			if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)) {
				drop(c, m, &out[i], DROP_ETH_TOO_SHORT);
				continue;
			}
			/* no station sends from a group address: a forged
			 * source, or a loop's, neither answered nor forwarded
			 * (whatever the type: ARP and ND too) */
			if (unlikely(rte_is_multicast_ether_addr(&eth->src_addr))) {
				drop(c, m, &out[i], DROP_L2_GROUP_SOURCE);
				continue;
			}
			if (unlikely(!mac_is(&eth->dst_addr, &pp->mac))) {
				if (!rte_is_multicast_ether_addr(&eth->dst_addr)) {
					drop(c, m, &out[i], DROP_L2_OTHER_HOST);
					continue;
				}
				flags[i] = F_L2_GROUP;
				l2g |= 1u << i;
			}
			if (unlikely(eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4))) {
				if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
					idx6[k6++] = (uint8_t)i;
					out[i] = DP_OUT_DROP; /* decided by dp6_burst() */
				} else if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP)) {
					dp_ctrl_reason_set(m, CTRL_ARP);
					out[i] = DP_OUT_CTRL;
				} else {
					drop(c, m, &out[i], DROP_ETHERTYPE);
				}
				continue;
			}
			ip = (struct rte_ipv4_hdr *)(eth + 1);
			if (unlikely(!ip4_validate(m, ip, &why))) {
				if (why == DROP_IP4_BAD_OPTIONS)
					drop_bad_options(c, m, ip, flags[i], loc, pp, in_port, rpf,
							 martians, &out[i]);
				else
					drop(c, m, &out[i], why);
				continue;
			}
		}
		s = dp_ntohl(ip->src_addr);
		d = dp_ntohl(ip->dst_addr);
		/* RFC 1812 5.3.7: never from these, never to those. Without
		 * rpf the cache key lacks the source: check it first */
		if (martians && !rpf_on && unlikely((why = bad_src(loc, s, d)) != DROP_MAX)) {
			drop(c, m, &out[i], why);
			continue;
		}
		if (use_cache && !(flags[i] & F_L2_GROUP)) {
			uint32_t b;

			if (pr.have_key && d == pr.pd && (!rpf_on || s == pr.ps)) {
				/* a train: the entry of the packet probed
				 * before serves it */
				if (!warm) {
					flags[i] |= F_PROBE | F_SAME_KEY;
					bkt[k] = pr.pb;
					goto cold;
				}
				if (pr.pend < DP_BURST) {
					k = cache_resolve(c, &pr, pkts[pr.pend], pr.pend, pr.pd,
							  pr.ps, pr.pb, false, loc, in_port, rpf,
							  rpf_on, martians, out, dst, src, idx, bkt,
							  k);
					pr.pend = DP_BURST;
				}
				k = cache_resolve(c, &pr, m, i, d, s, pr.pb, true, loc, in_port,
						  rpf, rpf_on, martians, out, dst, src, idx, bkt,
						  k);
				continue;
			}
			/* its bucket starts loading; the other checks wait
			 * for a miss */
			b = rtcache_prefetch(rtc, &hk, d, rpf_on ? s : 0);
			if (warm) {
				/* the packet before: its bucket loaded while
				 * this one was checked */
				if (pr.pend < DP_BURST)
					k = cache_resolve(c, &pr, pkts[pr.pend], pr.pend, pr.pd,
							  pr.ps, pr.pb, false, loc, in_port, rpf,
							  rpf_on, martians, out, dst, src, idx, bkt,
							  k);
				pr.pend = i;
			} else {
				flags[i] |= F_PROBE;
				bkt[k] = b;
			}
			pr.pd = d;
			pr.ps = s;
			pr.pb = b;
			pr.have_key = true;
			if (warm)
				continue;
		cold:
			/* probed after the burst's checks */
			dst[k] = d;
			src[k] = s;
			idx[k++] = (uint8_t)i;
			out[i] = DP_OUT_DROP; /* decided below */
			continue;
		}
		if (use_cache && pr.pend < DP_BURST) {
			/* warm: the packets keep their order */
			k = cache_resolve(c, &pr, pkts[pr.pend], pr.pend, pr.pd, pr.ps, pr.pb,
					  false, loc, in_port, rpf, rpf_on, martians, out, dst, src,
					  idx, bkt, k);
			pr.pend = DP_BURST;
		}
		if (!addr_checks(c, t24, m, loc, rpf_on, martians, s, d, &out[i], early))
			continue;
		/* out[i] is set by the forwarding loop, on every path */
		dst[k] = d;
		if (rpf_on || use_cache)
			src[k] = s;
		idx[k++] = (uint8_t)i;
	}
	if (use_cache) {
		if (pr.pend < DP_BURST) {
			k = cache_resolve(c, &pr, pkts[pr.pend], pr.pend, pr.pd, pr.ps, pr.pb,
					  false, loc, in_port, rpf, rpf_on, martians, out, dst, src,
					  idx, bkt, k);
		} else if (!warm) {
			/* cold: probe in order, keeping the misses (and the
			 * packets not probed) in place for the lookups */
			unsigned int km = 0;

			for (j = 0; j < k; j++) {
				uint32_t d = dst[j], s = src[j], b = bkt[j];

				i = idx[j];
				if (flags[i] & F_PROBE) {
					km = cache_resolve(c, &pr, pkts[i], i, d, s, b,
							   (flags[i] & F_SAME_KEY) != 0, loc,
							   in_port, rpf, rpf_on, martians, out, dst,
							   src, idx, bkt, km);
					continue;
				}
				dst[km] = d;
				src[km] = s;
				idx[km++] = (uint8_t)i;
			}
			k = km;
		}
		/* the next burst probes warm if this one mostly hit (unless
		 * the window below starts a measurement, which starts cold) */
		if (pr.probes > 0)
			rtc->warm = pr.hits * 2 >= pr.probes;
		/* the IPv4 probes are counted (and auto's window judged)
		 * before the burst's IPv6 packets reach the cache */
		rtcache_count(rtc, pr.probes, pr.hits);
		rtcache_account(rtc);
	} else if (rtc != NULL) {
		rtcache_use(rtc, k); /* counts the bypassed packets */
	}
	if (k6 > 0)
		dp6_burst(c, in_port, rpf, pkts, idx6, k6, flags, out);

	if (k == 0)
		return;

	/* One lookup per packet; rpf adds exactly one more. Where the FIB's
	 * two levels are known (rte_fib's DIR-24-8), each packet is looked up
	 * in the loop below as it is forwarded: the tbl24 lines, prefetched
	 * before this loop, keep loading under the first packets' work
	 * instead of stalling a bulk lookup. Otherwise one call per burst
	 * (the sources right after the destinations: their misses overlap). */
	if (own_lookup) {
		nh = snh = NULL;
	} else if (rpf_on) {
		if (k < DP_BURST)
			memmove(dst + k, src, k * sizeof(*src));
		src = dst + k;
		fib4_lookup_bulk(c->fib, dst, nhs, 2 * k);
		snh = nhs + k;
	} else {
		fib4_lookup_bulk(c->fib, dst, nhs, k);
		snh = NULL;
	}

	/* Reading in place, a packet whose destination (or, rpf on, source)
	 * has a tbl24 entry that points into a second-level group (a /24
	 * holding longer prefixes) has that line prefetched and waits at the
	 * end of the loop (late[]): its second miss loads under the other
	 * packets' work instead of stalling the loop. Each packet's verdict
	 * is the same in any order (out[] is by index); when ICMP tokens run
	 * out mid-burst, or two packets fill one route cache bucket, which
	 * packet gets the token or keeps its entry may differ. */
	for (w = 0; w < k + nlate; w++) {
		struct rte_mbuf *m;
		struct rte_ether_hdr *eth;
		struct rte_ipv4_hdr *ip;
		const struct fib_nh *h;
		struct neigh_view v;
		uint64_t dnh, shop = 0; /* shop: the source's, read in place */
		uint16_t port, mtu;
		uint32_t ni;
		bool big, hairpin, mp = false;

		if (!own_lookup) {
			j = w;
			dnh = nh[j];
		} else {
			uint32_t e, se = 0;

			/* a late packet's entries are read again (in L1 by
			 * now): the gap between a tbl24 read and its group's
			 * stays two loads, as fib4_lookup_one() has it (a
			 * group the control thread collapses or hands on
			 * meanwhile: docs/design.md, Concurrency) */
			j = w < k ? w : late[w - k];
			e = fib4_first(t24, dst[j]);
			if (rpf_on)
				se = fib4_first(t24, src[j]);
			if (w < k && unlikely((e | se) & 1)) {
				/* rte_prefetch0(): inline assembly, which GCC
				 * always emits (in this loop it once emitted
				 * nothing for a __builtin_prefetch() of the
				 * next burst's lines) */
				if (e & 1)
					rte_prefetch0(fib4_second_at(t24, e, dst[j]));
				if (se & 1)
					rte_prefetch0(fib4_second_at(t24, se, src[j]));
				late[nlate++] = (uint8_t)j;
				continue;
			}
			dnh = fib4_hop(t24, e, dst[j]);
			if (rpf_on)
				shop = fib4_hop(t24, se, src[j]);
		}
		i = idx[j];
		m = pkts[i];
		h = &c->nh[dnh];
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		ip = (struct rte_ipv4_hdr *)(eth + 1);

		/* RFC 3704; broadcasts are exempt here (a directed one to
		 * forward is checked below; multicast never reaches here:
		 * bad_dst()) */
		if (rpf_on && h->type != FIB_NH_BROADCAST && !l2_group(l2g, i) &&
		    unlikely(
			    !rpf_pass(c, pp, rpf, own_lookup ? shop : snh[j], in_port, m, &out[i])))
			continue;

		/* by a gateway, the common case, before the switch's jump table */
		if (likely(h->type == FIB_NH_GATEWAY)) {
			ni = h->neigh;
		} else {
			switch (h->type) {
			case FIB_NH_CONNECTED: {
				struct fr_addr a = fr_addr4(dst[j]);

				ni = neigh_find(c->neigh, &a, h->port);
				break;
			}
			case FIB_NH_MULTIPATH:
				h = mp_pick(c, ports, h,
					    fib_mp_hash(c->mp_seed, rte_be_to_cpu_32(ip->src_addr),
							dst[j] ^ mp_l4(c, m, ip, false)));
				ni = h->neigh;
				mp = true;
				break;
			case FIB_NH_BROADCAST:
				/* directed broadcast (RFC 1812 5.3.5.2): off by default */
				if (DP_LOAD(cf->directed_bcast) && h->port != FIB_PORT_NONE &&
				    h->port != in_port && !l2_group(l2g, i)) {
					uint64_t bw;

					big = dp_ntohs(ip->total_length) >
					      DP_LOAD(ports[h->port].mtu);

					/* as a unicast packet, but never an ICMP error
					 * about a broadcast destination (4.3.2.7);
					 * rpf first: a spoofed source sent to a
					 * whole subnet is the smurf attack */
					if (rpf_on &&
					    !rpf_pass(c, pp, rpf, own_lookup ? shop : snh[j],
						      in_port, m, &out[i]))
						continue;
					if (DP_LOAD(ports[h->port].down)) {
						/* what a unicast packet would
						 * earn, host unreachable, is
						 * not sent about a broadcast */
						c->st->icmp_not_sent++;
						drop(c, m, &out[i], DROP_PORT_DOWN);
						continue;
					}
					if (ip->time_to_live <= 1 ||
					    (big && (ip->fragment_offset &
						     RTE_BE16(RTE_IPV4_HDR_DF_FLAG)))) {
						c->st->icmp_not_sent++;
						drop(c, m, &out[i],
						     ip->time_to_live <= 1 ? DROP_TTL_EXCEEDED
									   : DROP_FRAG_NEEDED);
						continue;
					}
					memcpy(&bw, bcast, sizeof(bw));
					rewrite(&ports[h->port], eth, ip, bw);
					if (big ||
					    (ip->version_ihl != 0x45 && options_to_fill(ip))) {
						/* too big, DF clear, or options to
						 * fill in: the control thread does it */
						dp_ctrl_set(m, CTRL_FORWARD, 0, 0, h->port);
						out[i] = DP_OUT_CTRL;
						continue;
					}
					out[i] = h->port;
					continue;
				}
				/* for the router */
				not_forwarded(c, m, ip, flags[i], &out[i], FIB_NH_LOCAL, false);
				continue;
			default:
				not_forwarded(c, m, ip, flags[i], &out[i], h->type, false);
				continue;
			}
		}
		/* forwarding from here on (no multicast destination gets
		 * here: bad_dst()) */
		if (l2_group(l2g, i)) {
			drop(c, m, &out[i], DROP_L2_BCAST_FORWARD);
			continue;
		}
		if (unlikely(ip->time_to_live <= 1)) {
			drop_icmp(c, m, ip, flags[i], &out[i], DROP_TTL_EXCEEDED, 11, 0, 0);
			continue;
		}
		port = h->port;
		if (unlikely(DP_LOAD(ports[port].down))) {
			/* a route that stays (the port's connected subnet):
			 * host unreachable, as a failed ARP would say (RFC
			 * 1812 5.2.7.1) */
			drop_icmp(c, m, ip, flags[i], &out[i], DROP_PORT_DOWN, 3, 1, 0);
			continue;
		}
		mtu = DP_LOAD(ports[port].mtu);
		big = dp_ntohs(ip->total_length) > mtu;
		/* RFC 1191: DF set, too big: refuse and say how big, before
		 * the neighbour (it would be held for it, for nothing) */
		if (unlikely(big) && (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_DF_FLAG))) {
			drop_icmp(c, m, ip, flags[i], &out[i], DROP_FRAG_NEEDED, 3, 4, mtu);
			continue;
		}
		if (unlikely(!neigh_ready(c, ni, m, &v, &out[i], use_cache)))
			continue;
		/* back out of the port it came in by, with Redirects on there:
		 * the control thread sends one when due, and forwards it */
		hairpin = unlikely(port == in_port) && DP_LOAD(pp->redirects);
		if (unlikely(hairpin) && redirect_due(c, m, ip, flags[i], in_port)) {
			rewrite(&ports[port], eth, ip, v.word);
			dp_ctrl_set(m, CTRL_FORWARD, ICMP_REDIRECT, 1, port);
			out[i] = DP_OUT_CTRL;
			continue;
		}
		/* one test for both rare cases: too big, or options */
		if (unlikely(big | (ip->version_ihl != 0x45)) && (big || options_to_fill(ip))) {
			/* fragmenting allocates, and a Record Route or
			 * Timestamp takes the router's address on the port
			 * and the time of day: the control thread does both */
			rewrite(&ports[port], eth, ip, v.word);
			dp_ctrl_set(m, CTRL_FORWARD, 0, 0, port);
			out[i] = DP_OUT_CTRL;
			continue;
		}
		rewrite(&ports[port], eth, ip, v.word);
		out[i] = port;
		/* a hit would skip the Redirect: such a flow is not cached
		 * (turning Redirects on drops the entries made before); nor
		 * is a multipath one (the entry's key may leave out its
		 * source, which picks the gateway) */
		if (use_cache && !hairpin && !mp) {
			struct rtcache_entry *e = rtcache_slot_at(
				rtc, bkt[j], dst[j], rpf_on ? src[j] : 0, in_port, c->fib_gen);

			e->out_port = port;
			e->rpf = rpf;
			e->family = 4;
			e->nh = (uint32_t)dnh;
			e->neigh = ni;
			e->neigh_gen = v.gen;
			e->fib_gen = c->fib_gen;
			memcpy(e->eth, eth, RTE_ETHER_HDR_LEN);
		}
	}
}

static void dp_input_chunk(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
			   uint16_t nx, uint16_t *out)
{
	const struct dp_conf *cf = c->conf;
	struct rtcache *rtc = c->rtc;
	bool use_cache = false, timed = false;
	uint64_t t0 = 0;
	unsigned int how, own;
	uint8_t rpf;

	c->st->rx += n;
	/* acquire, once per burst: lookups below see at least the tables of
	 * this generation (the route cache validates what it keeps against it) */
	c->fib_gen = fib_generation(c->fib);
	if (rtc != NULL) {
		const uint8_t mode = DP_LOAD(cf->rtcache_mode);

		if (unlikely(rtc->mode != mode))
			rtcache_mode_set(rtc, (enum rtcache_mode)mode);
		use_cache = rtcache_probing(rtc);
		/* auto mode measuring: the burst's cycles are a sample */
		timed = rtcache_timing(rtc);
		if (timed)
			t0 = rte_rdtsc();
	}
	rpf = DP_LOAD(c->ports[in_port].rpf);
	/* the FIB's DIR-24-8 read here: own 1 (2-byte entries) or 2 (4-byte) */
	own = c->tbl24.tbl8 == NULL ? 0u : c->tbl24.shift == 1 ? 1u : 2u;
	how = (use_cache ? 6u : 0u) + (rpf != DP_RPF_OFF ? 3u : 0u) + own;
	switch (how) {
	case 0:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, false, false, 0);
		break;
	case 1:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, false, false, 1);
		break;
	case 2:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, false, false, 2);
		break;
	case 3:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, false, true, 0);
		break;
	case 4:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, false, true, 1);
		break;
	case 5:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, false, true, 2);
		break;
	case 6:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, true, false, 0);
		break;
	case 7:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, true, false, 1);
		break;
	case 8:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, true, false, 2);
		break;
	case 9:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, true, true, 0);
		break;
	case 10:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, true, true, 1);
		break;
	default:
		dp_burst(c, in_port, rpf, pkts, n, nx, out, true, true, 2);
		break;
	}
	if (rtc != NULL)
		rtcache_auto_end(rtc, n, timed, timed ? rte_rdtsc() - t0 : 0);
}

void dp_input_burst(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
		    uint16_t *out)
{
	uint16_t off, k;

	for (off = 0; off < n; off += k) {
		k = (uint16_t)RTE_MIN(n - off, DP_BURST);
		dp_input_chunk(c, in_port, pkts + off, k, (uint16_t)RTE_MIN(n - off - k, DP_BURST),
			       out + off);
	}
}
