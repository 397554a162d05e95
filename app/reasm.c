/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly of the datagrams sent to the router in fragments (reasm.h).
 * Control thread only. Each datagram keeps its fragments in order of
 * offset, none overlapping: it is whole when the last one has said the
 * length and the bytes held add up to it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "reasm.h"
#include "stats.h"

struct reasm_frag {
	uint32_t off, end;  /* its data's place in the datagram's payload */
	struct rte_mbuf *m; /* its data alone; the first fragment's whole frame */
	/* IPv6, the first fragment: its Fragment header's offset past the
	 * IPv6 header, and where the Next Header field that names it is */
	uint16_t fh, nh_at;
};

struct reasm_dg {
	bool used;
	/* dropped for an overlap (RFC 5722 3): its key kept, its fragments
	 * gone, until its deadline, so that the rest of it (those not yet
	 * received) is dropped too, never put together anew */
	bool dead;
	bool last;	 /* the last fragment came: total is the payload's length */
	uint8_t family;	 /* 4 or 6 */
	uint8_t proto;	 /* IPv4's protocol, part of the key (0 for IPv6) */
	uint8_t src[16]; /* the key: addresses, identification */
	uint8_t dst[16];
	uint32_t id;
	uint64_t born;	   /* the first arrival, ms */
	uint64_t deadline; /* freed then, ms */
	uint32_t total;
	uint32_t limit; /* the payload's most: 65,535 less the first fragment's headers */
	uint32_t have;	/* payload bytes held */
	uint32_t segs;	/* mbuf segments held */
	unsigned int n;
	struct reasm_frag f[REASM_FRAGS];
};

struct reasm {
	unsigned int pending;  /* datagrams being put together */
	unsigned int dead;     /* datagrams dropped for an overlap, kept (reasm_dg) */
	unsigned int segs;     /* mbuf segments held in all */
	uint32_t t4_ms, t6_ms; /* how long a datagram waits, IPv4 and IPv6 */
	struct reasm_dg dg[REASM_DATAGRAMS];
};

struct reasm *reasm_create(void)
{
	struct reasm *ra = calloc(1, sizeof(struct reasm));

	if (ra != NULL)
		reasm_timeout_set(ra, 0);
	return ra;
}

void reasm_timeout_set(struct reasm *ra, uint32_t sec)
{
	if (ra == NULL)
		return;
	ra->t4_ms = sec != 0 ? sec * 1000 : REASM4_TIMEOUT_MS;
	ra->t6_ms = sec != 0 ? sec * 1000 : REASM6_TIMEOUT_MS;
}

/* A datagram's place freed (its fragments gone already). */
static void dg_release(struct reasm *ra, struct reasm_dg *d)
{
	ra->segs -= d->segs;
	if (d->dead)
		ra->dead--;
	else
		ra->pending--;
	memset(d, 0, sizeof(*d));
}

/* A datagram's fragments freed, each counted @why; its place kept. */
static void dg_empty(struct reasm *ra, struct reasm_dg *d, uint64_t *drop, enum ctrl_drop why)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		rte_pktmbuf_free(d->f[i].m);
	drop[why] += d->n;
	ra->segs -= d->segs;
	d->segs = d->n = d->have = 0;
}

/* A datagram's fragments freed, each counted @why; its place freed. */
static void dg_drop(struct reasm *ra, struct reasm_dg *d, uint64_t *drop, enum ctrl_drop why)
{
	dg_empty(ra, d, drop, why);
	dg_release(ra, d);
}

void reasm_free(struct reasm *ra, uint64_t *drop)
{
	unsigned int i;

	if (ra == NULL)
		return;
	for (i = 0; i < REASM_DATAGRAMS; i++)
		if (ra->dg[i].used)
			dg_drop(ra, &ra->dg[i], drop, CDROP_REASM_TIMEOUT);
	free(ra);
}

unsigned int reasm_pending(const struct reasm *ra)
{
	return ra->pending;
}

unsigned int reasm_mbufs(const struct reasm *ra)
{
	return ra->segs;
}

/* The oldest datagram other than @spare (@holding: of those that hold
 * mbufs), or NULL. */
static struct reasm_dg *dg_oldest(struct reasm *ra, const struct reasm_dg *spare, bool holding)
{
	struct reasm_dg *o = NULL;
	unsigned int i;

	for (i = 0; i < REASM_DATAGRAMS; i++) {
		struct reasm_dg *d = &ra->dg[i];

		if (d->used && d != spare && (!holding || d->segs > 0) &&
		    (o == NULL || d->born < o->born))
			o = d;
	}
	return o;
}

/* The datagram of a key: the one being put together, or a new one (in the
 * place of its source's oldest when that source has REASM_PER_SOURCE, else
 * of the oldest when all are taken). */
static struct reasm_dg *dg_get(struct reasm *ra, uint8_t family, uint8_t proto, const void *src,
			       const void *dst, uint32_t id, uint64_t now, uint64_t *drop)
{
	const size_t alen = family == 4 ? 4 : 16;
	struct reasm_dg *free_dg = NULL, *mine = NULL, *d;
	unsigned int i, n_mine = 0;

	for (i = 0; i < REASM_DATAGRAMS; i++) {
		d = &ra->dg[i];
		if (!d->used) {
			if (free_dg == NULL)
				free_dg = d;
			continue;
		}
		if (d->family != family || memcmp(d->src, src, alen) != 0)
			continue;
		if (d->proto == proto && d->id == id && memcmp(d->dst, dst, alen) == 0)
			return d;
		n_mine++;
		if (mine == NULL || d->born < mine->born)
			mine = d;
	}
	/* one source (a spoofed one as well) never holds every place */
	if (n_mine >= REASM_PER_SOURCE) {
		free_dg = mine;
		dg_drop(ra, free_dg, drop, CDROP_REASM_OVER_LIMIT);
	} else if (free_dg == NULL) {
		free_dg = dg_oldest(ra, NULL, false);
		dg_drop(ra, free_dg, drop, CDROP_REASM_OVER_LIMIT);
	}
	d = free_dg;
	d->used = true;
	d->family = family;
	d->proto = proto;
	memcpy(d->src, src, alen);
	memcpy(d->dst, dst, alen);
	d->id = id;
	d->born = now;
	d->deadline = now + (family == 4 ? ra->t4_ms : ra->t6_ms);
	d->limit = family == 4 ? 65535 - (uint32_t)sizeof(struct rte_ipv4_hdr) : 65535;
	ra->pending++;
	return d;
}

/* @m freed and counted @why. */
static struct rte_mbuf *refuse(struct rte_mbuf *m, uint64_t *drop, enum ctrl_drop why)
{
	rte_pktmbuf_free(m);
	drop[why]++;
	return NULL;
}

/* @m refused, and with it the datagram @d when @whole (its place freed too
 * when it holds nothing); an overlap keeps the place, dead (reasm_dg). */
static struct rte_mbuf *frag_drop(struct reasm *ra, struct reasm_dg *d, struct rte_mbuf *m,
				  uint64_t *drop, enum ctrl_drop why, bool whole)
{
	refuse(m, drop, why);
	if (whole && why == CDROP_REASM_OVERLAP) {
		dg_empty(ra, d, drop, why);
		d->dead = true;
		ra->pending--;
		ra->dead++;
	} else if (whole || d->n == 0) {
		dg_drop(ra, d, drop, why);
	}
	return NULL;
}

/* The @len data bytes of @a from @aoff and of @b from @boff are the same. */
static bool data_same(const struct rte_mbuf *a, uint32_t aoff, const struct rte_mbuf *b,
		      uint32_t boff, uint32_t len)
{
	uint8_t ca[256], cb[256];

	while (len > 0) {
		const uint32_t n = RTE_MIN(len, (uint32_t)sizeof(ca));
		const void *pa = rte_pktmbuf_read(a, aoff, n, ca);
		const void *pb = rte_pktmbuf_read(b, boff, n, cb);

		if (pa == NULL || pb == NULL || memcmp(pa, pb, n) != 0)
			return false;
		aoff += n;
		boff += n;
		len -= n;
	}
	return true;
}

/*
 * Fragment @m of datagram @d: its payload bytes @off to @off + @len, the last
 * unless @more, its data @hlen bytes into the frame; @limit, the payload's
 * most when it is the first (offset 0), @fh and @nh_at its own (IPv6). The
 * whole datagram's chain once this was its last missing piece, its first
 * fragment's @fh and @nh_at in @first; else NULL.
 */
static struct rte_mbuf *dg_add(struct reasm *ra, struct reasm_dg *d, struct rte_mbuf *m,
			       uint32_t off, uint32_t len, bool more, uint32_t hlen, uint32_t limit,
			       uint16_t fh, uint16_t nh_at, struct reasm_frag *first,
			       uint64_t *drop)
{
	const uint32_t end = off + len;
	/* a first fragment's own limit (a copy that is dropped changes none) */
	const uint32_t lim = off == 0 ? limit : d->limit;
	/* what the frame keeps: the data, after the headers for the first */
	const uint32_t keep = off != 0 ? len : hlen + len;
	struct rte_mbuf *head;
	unsigned int i;

	if (d->dead)
		return refuse(m, drop, CDROP_REASM_OVERLAP);
	for (i = 0; i < d->n && d->f[i].off < off; i++)
		;
	/* a copy the network made: dropped alone (RFC 8200 4.5), before the
	 * checks its own headers' length would make. Only an exact one: the
	 * same range with other data, or another More Fragments flag, is an
	 * overlap (RFC 5722 4), the whole datagram dropped. The piece held
	 * keeps its data at its end (after the headers for the first); only
	 * the last piece held ended the payload */
	if (i < d->n && d->f[i].off == off && d->f[i].end == end) {
		const struct rte_mbuf *h = d->f[i].m;
		const bool same = (d->last && d->total == end) == !more &&
				  data_same(h, rte_pktmbuf_pkt_len(h) - len, m, hlen, len);

		return frag_drop(ra, d, m, drop, CDROP_REASM_OVERLAP, !same);
	}
	/* the last fragment says the length: one that says another, data
	 * past it, or past what a datagram holds, make none */
	if (end > lim || (d->n > 0 && d->f[d->n - 1].end > lim) ||
	    (!more && ((d->last && d->total != end) || (d->n > 0 && d->f[d->n - 1].end > end))) ||
	    (more && d->last && end > d->total))
		return frag_drop(ra, d, m, drop, CDROP_REASM_MALFORMED, true);
	if ((i > 0 && d->f[i - 1].end > off) || (i < d->n && d->f[i].off < end))
		return frag_drop(ra, d, m, drop, CDROP_REASM_OVERLAP, true);
	if (d->n == REASM_FRAGS)
		return frag_drop(ra, d, m, drop, CDROP_REASM_OVER_LIMIT, true);
	/* the data alone (the first keeps its headers), nothing after it: the
	 * workers made the frame the packet's length, its headers in the
	 * first segment, so this fails only for a frame that is not so */
	if ((off != 0 && rte_pktmbuf_adj(m, (uint16_t)hlen) == NULL) ||
	    rte_pktmbuf_pkt_len(m) < keep ||
	    (rte_pktmbuf_pkt_len(m) > keep &&
	     rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - keep)) != 0))
		return frag_drop(ra, d, m, drop, CDROP_REASM_MALFORMED, true);
	/* room among the mbufs held: the oldest datagrams make it */
	while (ra->segs + m->nb_segs > REASM_MBUFS) {
		struct reasm_dg *o = dg_oldest(ra, d, true);

		if (o == NULL)
			return frag_drop(ra, d, m, drop, CDROP_REASM_OVER_LIMIT, true);
		dg_drop(ra, o, drop, CDROP_REASM_OVER_LIMIT);
	}
	d->limit = lim;
	if (!more) {
		d->last = true;
		d->total = end;
	}
	memmove(&d->f[i + 1], &d->f[i], (d->n - i) * sizeof(d->f[0]));
	d->f[i] = (struct reasm_frag){.off = off, .end = end, .m = m, .fh = fh, .nh_at = nh_at};
	d->n++;
	d->have += len;
	d->segs += m->nb_segs;
	ra->segs += m->nb_segs;
	if (!d->last || d->have != d->total)
		return NULL;
	/* no two overlap: bytes adding up to the length cover it from 0 */
	*first = d->f[0];
	head = d->f[0].m;
	for (i = 1; i < d->n; i++)
		if (rte_pktmbuf_chain(head, d->f[i].m) != 0) {
			/* more segments than a chain takes: the rest freed */
			for (; i < d->n; i++)
				rte_pktmbuf_free(d->f[i].m);
			rte_pktmbuf_free(head);
			drop[CDROP_REASM_OVER_LIMIT] += d->n;
			dg_release(ra, d);
			return NULL;
		}
	dg_release(ra, d); /* its fragments are the chain's now */
	/* in one segment where it fits (any reply not fragmented again on its
	 * way out does): a NIC's simple transmit path may send a chain's
	 * first segment only */
	if (rte_pktmbuf_pkt_len(head) <= rte_pktmbuf_data_len(head) + rte_pktmbuf_tailroom(head))
		(void)rte_pktmbuf_linearize(head);
	return head;
}

struct rte_mbuf *reasm4_input(struct reasm *ra, struct rte_mbuf *m, uint64_t now, uint64_t *drop)
{
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	const uint32_t ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * 4;
	const uint32_t tot = rte_be_to_cpu_16(ip->total_length);
	const uint16_t fo = rte_be_to_cpu_16(ip->fragment_offset);
	const uint32_t off = (uint32_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * 8;
	const bool more = (fo & RTE_IPV4_HDR_MF_FLAG) != 0;
	struct reasm_frag first;
	struct reasm_dg *d;
	struct rte_mbuf *w;

	if (ra == NULL)
		return refuse(m, drop, CDROP_REASM_OVER_LIMIT);
	/* no data, a piece before the last not a multiple of 8 bytes, or one
	 * that ends past 65,535 (RFC 791: a datagram's most) */
	if (tot <= ihl || (more && (tot - ihl) % 8 != 0) || ihl + off + (tot - ihl) > 65535 ||
	    rte_pktmbuf_pkt_len(m) < RTE_ETHER_HDR_LEN + tot)
		return refuse(m, drop, CDROP_REASM_MALFORMED);
	d = dg_get(ra, 4, ip->next_proto_id, &ip->src_addr, &ip->dst_addr, ip->packet_id, now,
		   drop);
	w = dg_add(ra, d, m, off, tot - ihl, more, RTE_ETHER_HDR_LEN + ihl, 65535 - ihl, 0, 0,
		   &first, drop);
	if (w == NULL)
		return NULL;
	ip = rte_pktmbuf_mtod_offset(w, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(rte_pktmbuf_pkt_len(w) - RTE_ETHER_HDR_LEN));
	ip->fragment_offset = 0;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return w;
}

/*
 * Does the first fragment's data, @len bytes @at bytes into @m, hold every
 * header through the upper-layer one, the first being @nh (RFC 7112 5)?
 * Options and routing headers by their length, AH by its own; TCP's 20
 * bytes, UDP's 8, ICMPv6's 4 (RFC 4443 2.1: type, code, checksum); of
 * any other protocol, one byte.
 */
static bool chain_whole6(const struct rte_mbuf *m, uint32_t at, uint32_t len, uint8_t nh)
{
	uint32_t o = 0;

	for (;;) {
		uint8_t b[2];
		const uint8_t *h;

		switch (nh) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_DSTOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_FRAGMENT:
		case IPPROTO_AH:
			if (o + 8 > len || (h = rte_pktmbuf_read(m, at + o, 2, b)) == NULL)
				return false;
			if (nh == IPPROTO_FRAGMENT)
				o += 8;
			else if (nh == IPPROTO_AH)
				o += ((uint32_t)h[1] + 2) * 4;
			else
				o += ((uint32_t)h[1] + 1) * 8;
			nh = h[0];
			break;
		case IPPROTO_NONE:
			return o <= len;
		case IPPROTO_TCP:
			return o + 20 <= len;
		case IPPROTO_UDP:
			return o + 8 <= len;
		case IPPROTO_ICMPV6:
			return o + 4 <= len;
		default:
			return o + 1 <= len;
		}
	}
}

bool reasm6_param_problem(const struct rte_mbuf *m, uint32_t fh, uint8_t *code, uint32_t *ptr)
{
	const struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	const uint8_t *f = (const uint8_t *)(ip + 1) + fh;
	const uint32_t plen = rte_be_to_cpu_16(ip->payload_len);
	const uint32_t fo = (uint32_t)f[2] << 8 | f[3];
	const uint32_t off = fo & ~7u;
	uint32_t len;

	if (plen < fh + 8) /* not a whole Fragment header: reasm6_input's */
		return false;
	len = plen - fh - 8;
	*code = 0;
	if ((fo & 1) != 0 && len % 8 != 0) {
		*ptr = offsetof(struct rte_ipv6_hdr, payload_len);
		return true;
	}
	if (fh + off + len > 65535) {
		*ptr = (uint32_t)sizeof(*ip) + fh + 2;
		return true;
	}
	if (off == 0 &&
	    !chain_whole6(m, RTE_ETHER_HDR_LEN + (uint32_t)sizeof(*ip) + fh + 8, len, f[0])) {
		*code = 3;
		*ptr = 0;
		return true;
	}
	return false;
}

struct rte_mbuf *reasm6_input(struct reasm *ra, struct rte_mbuf *m, uint32_t fh, uint32_t nh_at,
			      uint64_t now, uint64_t *drop)
{
	struct rte_ipv6_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	const uint8_t *f = (const uint8_t *)(ip + 1) + fh;
	const uint32_t plen = rte_be_to_cpu_16(ip->payload_len);
	const uint32_t fo = (uint32_t)f[2] << 8 | f[3];
	const uint32_t off = fo & ~7u;
	const bool more = (fo & 1) != 0;
	uint32_t id, len, hdrs;
	struct reasm_frag first;
	struct reasm_dg *d;
	struct rte_mbuf *w;
	uint8_t *p;

	if (ra == NULL)
		return refuse(m, drop, CDROP_REASM_OVER_LIMIT);
	/* RFC 8200 4.5: no data, a piece before the last not a multiple of 8
	 * bytes, or a whole packet's payload past 65,535 */
	if (plen < fh + 8 || (len = plen - fh - 8) == 0 || (more && len % 8 != 0) ||
	    fh + off + len > 65535 ||
	    rte_pktmbuf_pkt_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip) + plen)
		return refuse(m, drop, CDROP_REASM_MALFORMED);
	memcpy(&id, f + 4, sizeof(id));
	d = dg_get(ra, 6, 0, ip->src_addr, ip->dst_addr, id, now, drop);
	hdrs = RTE_ETHER_HDR_LEN + (uint32_t)sizeof(*ip) + fh;
	w = dg_add(ra, d, m, off, len, more, hdrs + 8, 65535 - fh, (uint16_t)fh, (uint16_t)nh_at,
		   &first, drop);
	if (w == NULL)
		return NULL;
	/* the Fragment header out: the headers before it move up over it, the
	 * field that named it names what it named */
	p = rte_pktmbuf_mtod(w, uint8_t *);
	hdrs = RTE_ETHER_HDR_LEN + (uint32_t)sizeof(*ip) + first.fh;
	p[RTE_ETHER_HDR_LEN + first.nh_at] = p[hdrs];
	memmove(p + 8, p, hdrs);
	rte_pktmbuf_adj(w, 8);
	ip = rte_pktmbuf_mtod_offset(w, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	ip->payload_len = rte_cpu_to_be_16(
		(uint16_t)(rte_pktmbuf_pkt_len(w) - RTE_ETHER_HDR_LEN - sizeof(*ip)));
	return w;
}

struct rte_mbuf *reasm_expire(struct reasm *ra, uint64_t now, uint64_t *drop)
{
	unsigned int i;

	if (ra == NULL || ra->pending + ra->dead == 0)
		return NULL;
	for (i = 0; i < REASM_DATAGRAMS; i++) {
		struct reasm_dg *d = &ra->dg[i];
		struct rte_mbuf *first = NULL;

		if (!d->used || now < d->deadline)
			continue;
		if (d->n > 0 && d->f[0].off == 0) {
			/* the caller's, for its Time Exceeded */
			first = d->f[0].m;
			drop[CDROP_REASM_TIMEOUT]++;
			d->segs -= first->nb_segs;
			ra->segs -= first->nb_segs;
			d->n--;
			memmove(&d->f[0], &d->f[1], d->n * sizeof(d->f[0]));
		}
		dg_drop(ra, d, drop, CDROP_REASM_TIMEOUT);
		if (first != NULL)
			return first;
	}
	return NULL;
}
