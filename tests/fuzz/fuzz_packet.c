/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: bytes -> mbuf -> the worker pipeline (classify, validate,
 * martians, rpf, lookup, rewrite) against a small fixed FIB, then what went
 * to the control thread through the slow path (ARP, ICMP, fragmentation).
 * The frame sits in a heap buffer of exactly its size, so ASan catches any
 * read past it. Invariants: every packet is forwarded, handed over or
 * dropped and counted, never two of those; a forwarded IPv4 packet has TTL-1
 * and a valid header checksum, an IPv6 one its hop limit - 1 and every other
 * byte unchanged, both the egress port's MAC as source.
 * The first byte picks the knobs (input port, rpf mode, martian check, the
 * route cache: then the frame runs once, then twice in one burst, twice).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "datapath.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mbuf *frame_mbuf(struct router *r, uint8_t *buf, size_t len, void **orig_addr,
				   uint16_t *orig_len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(r->pools[0]);

	if (m == NULL)
		abort();
	*orig_addr = m->buf_addr;
	*orig_len = m->buf_len;
	/* the pipeline never frees it: a second reference keeps it ours */
	rte_mbuf_refcnt_set(m, 2);
	m->buf_addr = buf;
	m->buf_len = (uint16_t)len;
	m->data_off = 0;
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	return m;
}

static void frame_release(struct rte_mbuf *m, void *orig_addr, uint16_t orig_len)
{
	m->buf_addr = orig_addr;
	m->buf_len = orig_len;
	rte_pktmbuf_reset(m);
	rte_mbuf_refcnt_set(m, 1);
	rte_pktmbuf_free(m);
}

static uint64_t total(const struct dp_stats *s)
{
	uint64_t t = 0;
	unsigned int i;

	for (i = 0; i < DROP_MAX; i++)
		t += s->drop[i];
	return t;
}

/*
 * Run @n copies of the frame as one burst and check each packet's fate
 * against the counters' growth: exactly one outcome each, forwarded packets
 * rewritten as they must be. What goes to the control thread goes through
 * its slow path.
 */
static void burst(struct router *r, struct dp_ctx *c, uint16_t in_port, const uint8_t *data,
		  size_t size, unsigned int n)
{
	struct rte_mbuf *m[2], *copy[2];
	uint8_t *buf[2], ttl = 0;
	void *orig_addr[2];
	uint16_t orig_len[2], out[2];
	uint64_t drops0 = total(c->st), rx0 = c->st->rx;
	unsigned int i, nd = 0, ne = 0, nc = 0;
	bool is6;

	/* (data is not aligned: bytes only) */
	is6 = size >= RTE_ETHER_HDR_LEN && data[12] == 0x86 && data[13] == 0xdd;
	if (is6 && size >= RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr))
		ttl = data[RTE_ETHER_HDR_LEN + offsetof(struct rte_ipv6_hdr, hop_limits)];
	else if (size >= RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))
		ttl = ((const struct rte_ipv4_hdr *)(data + RTE_ETHER_HDR_LEN))->time_to_live;
	for (i = 0; i < n; i++) {
		buf[i] = malloc(size ? size : 1);
		memcpy(buf[i], data, size);
		m[i] = frame_mbuf(r, buf[i], size, &orig_addr[i], &orig_len[i]);
	}

	dp_input_burst(c, in_port, m, (uint16_t)n, out);

	if (c->st->rx != rx0 + n)
		abort();
	for (i = 0; i < n; i++) {
		const struct rte_ether_hdr *eth;
		const struct rte_ipv4_hdr *ip;

		if (out[i] == DP_OUT_DROP) {
			nd++;
			continue;
		}
		if (out[i] == DP_OUT_CTRL_ERR) {
			ne++;
			continue;
		}
		if (out[i] == DP_OUT_CTRL) {
			nc++;
			continue;
		}
		eth = rte_pktmbuf_mtod(m[i], const struct rte_ether_hdr *);
		ip = (const struct rte_ipv4_hdr *)(eth + 1);
		if (out[i] >= r->nb_ports)
			abort();
		if (is6) {
			/* IPv6: one hop less, nothing else of the packet changed */
			const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)(eth + 1);

			if (ip6->hop_limits != ttl - 1 ||
			    memcmp((const uint8_t *)ip6 + 8, data + RTE_ETHER_HDR_LEN + 8,
				   rte_pktmbuf_data_len(m[i]) - RTE_ETHER_HDR_LEN - 8) != 0 ||
			    !rte_is_same_ether_addr(&eth->src_addr, &r->dp_ports[out[i]].mac))
				abort();
		} else if (ip->time_to_live != ttl - 1 ||
			   rte_raw_cksum(ip, (ip->version_ihl & 0xf) * 4u) != 0xffff ||
			   !rte_is_same_ether_addr(&eth->src_addr, &r->dp_ports[out[i]].mac)) {
			abort();
		}
	}
	/* exactly one outcome each: a drop counts once (an ICMP error's drop
	 * too; the worker counts it queued), a hand-over or a forward not at all */
	if (total(c->st) != drops0 + nd + ne)
		abort();
	(void)nc;

	for (i = 0; i < n; i++) {
		/* the slow path gets its own copy in a normal mbuf (it may keep it) */
		copy[i] = NULL;
		if (out[i] == DP_OUT_CTRL || out[i] == DP_OUT_CTRL_ERR) {
			copy[i] = rte_pktmbuf_alloc(r->pools[0]);
			if (copy[i] != NULL &&
			    rte_pktmbuf_append(copy[i], (uint16_t)rte_pktmbuf_data_len(m[i]))) {
				memcpy(rte_pktmbuf_mtod(copy[i], void *),
				       rte_pktmbuf_mtod(m[i], void *), rte_pktmbuf_data_len(m[i]));
				copy[i]->hash = m[i]->hash;
				copy[i]->port = in_port;
			} else if (copy[i] != NULL) {
				rte_pktmbuf_free(copy[i]);
				copy[i] = NULL;
			}
		}
		/* give the mbuf its own buffer back */
		frame_release(m[i], orig_addr[i], orig_len[i]);
		free(buf[i]);
	}
	for (i = 0; i < n; i++)
		if (copy[i] != NULL)
			control_input(r, &copy[i], 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rtcache *rtc;
	struct router *r = fuzz_router();
	struct dp_stats st;
	struct dp_ctx c;
	uint8_t knobs;
	uint16_t in_port;

	if (size < 1 || size > 4096)
		return 0;
	knobs = data[0];
	data++;
	size--;
	in_port = knobs & 1;
	r->dp_ports[in_port].rpf = (uint8_t)((knobs >> 1) % 3);
	r->dp_ports[in_port].rpf_ignore_default = (knobs >> 3) & 1;
	r->dpconf.martians = !((knobs >> 4) & 1);

	memset(&st, 0, sizeof(st));
	memset(&c, 0, sizeof(c));
	c.fib = r->fib;
	c.nh = fib_nh_table(r->fib);
	c.neigh = r->neigh;
	c.neigh_hot = neigh_hot_table(r->neigh);
	c.tbl24 = fib4_tbl24(r->fib);
	c.ports = r->dp_ports;
	c.conf = &r->dpconf;
	c.nb_ports = r->nb_ports;
	c.st = &st;

	if ((knobs >> 5) & 1) {
		/* the route cache on, empty: the frame once (a miss that may
		 * fill), then twice in one burst (a hit, then the same key
		 * again: the train path), probed after the burst's checks
		 * (cold); then the same burst again, probed packet by packet
		 * if the one before hit (warm) */
		if (rtc == NULL && (rtc = rtcache_create(64, 0, 0)) == NULL)
			abort();
		rtcache_flush(rtc);
		r->dpconf.rtcache_mode = RTCACHE_ON;
		c.rtc = rtc;
		burst(r, &c, in_port, data, size, 1);
		burst(r, &c, in_port, data, size, 2);
		burst(r, &c, in_port, data, size, 2);
		r->dpconf.rtcache_mode = RTCACHE_OFF;
	} else {
		burst(r, &c, in_port, data, size, 1);
	}
	/* time passes: held packets age out, the pool stays whole */
	neigh_tick(r->neigh, control_now_ms() + 100000);
	fuzz_drain(r);
	return 0;
}
