/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 data path (dp6_burst() through dp_input_burst()): the header
 * checks, each under its own drop reason; forwarding by a gateway (hop
 * limit, MACs), Time Exceeded (hop limit 1 and 0) and Packet Too Big
 * handed over with their type, code and MTU, Packet Too Big's own token
 * bucket against an empty general one, padding trimmed, payload length 0, no
 * error about an error, what goes to the control thread and why; the
 * route cache's IPv6 entries against a new route, its removal, a
 * gateway's new MAC, a port down, a lower MTU, rpf switched on and a
 * link-local source; and random mixed IPv4/IPv6 polls of up to four
 * bursts against each packet sent alone, for every rpf and cache mode:
 * the same verdicts, bytes, handover and drop counters.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "datapath.h"
#include "dp_fixture.h"
#include "eal_helper.h"
#include "fib.h"
#include "ip4.h"
#include "ip6.h"
#include "neigh.h"
#include "rtcache.h"

static const struct rte_ether_addr other_mac = {{0x02, 0, 0, 0, 0x07, 0x07}};
static const struct rte_ether_addr grp_mac = {{0x33, 0x33, 0, 0, 0, 1}};

static void v6(const char *s, uint8_t *a)
{
	struct fr_addr x;

	assert_int_equal(fr_addr_parse(s, &x), 0);
	assert_int_equal(x.family, AF_INET6);
	memcpy(a, x.v6, 16);
}

static void R(struct fib *f, const char *pfx, uint8_t t, uint16_t port, const char *gw)
{
	struct fib_route r;

	memset(&r, 0, sizeof(r));
	assert_int_equal(fr_prefix_parse(pfx, &r.prefix, true), 0);
	r.type = t;
	r.port = port;
	if (gw != NULL)
		assert_int_equal(fr_addr_parse(gw, &r.gw), 0);
	assert_int_equal(fib_route_add(f, &r), 0);
}

static int setup(void **state)
{
	const struct fib_conf fc = {
		.max_routes4 = 1024, .tbl8s4 = 64, .max_routes6 = 1024, .tbl8s6 = 256};
	struct pctx *p = pctx_create(&fc);
	struct fr_addr a;

	R(p->fib, "192.0.2.0/24", FIB_NH_CONNECTED, 0, NULL);
	R(p->fib, "192.0.2.1/32", FIB_NH_LOCAL, 0, NULL);
	R(p->fib, "198.51.100.0/24", FIB_NH_CONNECTED, 1, NULL);
	R(p->fib, "198.51.100.1/32", FIB_NH_LOCAL, 1, NULL);
	R(p->fib, "10.0.0.0/8", FIB_NH_GATEWAY, FIB_PORT_NONE, "198.51.100.2");
	fr_addr_parse("198.51.100.2", &a);
	assert_int_equal(neigh_static_set(p->n, &a, 1, &h2_mac), 0);

	R(p->fib, "2001:db8:1::/64", FIB_NH_CONNECTED, 0, NULL);
	R(p->fib, "2001:db8:1::1/128", FIB_NH_LOCAL, 0, NULL);
	R(p->fib, "2001:db8:2::/64", FIB_NH_CONNECTED, 1, NULL);
	R(p->fib, "2001:db8:2::1/128", FIB_NH_LOCAL, 1, NULL);
	R(p->fib, "2001:db8:5::/48", FIB_NH_GATEWAY, FIB_PORT_NONE, "2001:db8:2::2");
	R(p->fib, "2001:db8:b::/48", FIB_NH_BLACKHOLE, FIB_PORT_NONE, NULL);
	R(p->fib, "2001:db8:c::/48", FIB_NH_UNREACHABLE, FIB_PORT_NONE, NULL);
	R(p->fib, "2001:db8:d::/48", FIB_NH_PROHIBIT, FIB_PORT_NONE, NULL);
	fr_addr_parse("2001:db8:2::2", &a);
	assert_int_equal(neigh_static_set(p->n, &a, 1, &h2_mac), 0);
	fr_addr_parse("2001:db8:1::5", &a);
	assert_int_equal(neigh_static_set(p->n, &a, 0, &h1_mac), 0);

	v6("fe80::1", p->ports[0].ll6);
	v6("fe80::2", p->ports[1].ll6);
	p->ports[1].mtu = 1400;
	/* ICMP tokens never run out: every due error is handed over */
	p->conf.icmp_rate = dp_icmp_rate(1, (1u << 24) - 1);
	p->c.icmp.left = p->c.icmp_pmtu.left = 1ull << 60;
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	pctx_free(*state);
	return 0;
}

/* Ethernet + IPv6 from h1 to port 0's MAC: @plen bytes of payload, @pad
 * bytes of Ethernet padding beyond it, payload length field @plen + @lie. */
static struct rte_mbuf *pkt6(const char *src, const char *dst, uint8_t hl, uint16_t plen,
			     uint8_t proto, uint8_t icmp_type, uint16_t pad, int lie)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool());
	struct rte_ether_hdr *eth;
	struct rte_ipv6_hdr *ip;
	uint16_t i;

	assert_non_null(m);
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, 14 + 40 + plen + pad);
	assert_non_null(eth);
	eth->dst_addr = port_mac[0];
	eth->src_addr = h1_mac;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(eth + 1);
	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28 | 0x12345);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(plen + lie));
	ip->proto = proto;
	ip->hop_limits = hl;
	v6(src, ip->src_addr);
	v6(dst, ip->dst_addr);
	for (i = 0; i < plen + pad; i++)
		((uint8_t *)(ip + 1))[i] = (uint8_t)(i * 3);
	if (plen > 0 && proto == IPPROTO_ICMPV6)
		((uint8_t *)(ip + 1))[0] = icmp_type;
	return m;
}

static struct rte_mbuf *pkt4(uint32_t src, uint32_t dst, uint8_t ttl, uint16_t payload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool());
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;

	assert_non_null(m);
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*ip) + payload);
	eth->dst_addr = port_mac[0];
	eth->src_addr = h1_mac;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	memset(ip, 0, sizeof(*ip) + payload);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + payload));
	ip->time_to_live = ttl;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

static struct rte_ipv6_hdr *ip6h(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, 14);
}

static void run1(struct pctx *p, struct rte_mbuf *m, uint16_t in, uint16_t *out)
{
	dp_input_burst(&p->c, in, &m, 1, out);
}

/* ------------------------------------------------------------------------ */
/* One random packet, made the same way twice from the same seed. */
static const char *const srcs[] = {
	"2001:db8:1::5", "2001:db8:1::6", "2001:db8:2::9",
	"2001:db8:9::9", "fe80::99",	  "::",
	"::1",		 "ff02::1",	  "::ffff:1.2.3.4",
	"fe80::1",	 "fd00::5",	  "2001:db8:1::1",
};
static const char *const dsts[] = {
	"2001:db8:5::7",
	"2001:db8:5::8",
	"2001:db8:2::2",
	"2001:db8:2::77",
	"2001:db8:1::1",
	"2001:db8:9::1",
	"fe80::1",
	"fe80::2",
	"fe80::55",
	"ff02::1",
	"ff02::1:ff00:1",
	"ff05::2",
	"ff01::1",
	"::",
	"::1",
	"2001:db8:b::1",
	"2001:db8:c::1",
	"2001:db8:d::1",
	"2001:db8:1::5",
	"::ffff:1.2.3.4",
};

static struct rte_mbuf *random_pkt(uint64_t seed)
{
	struct rte_mbuf *m;
	uint64_t r;
	unsigned int kind;

	test_srand(seed * 0x9e3779b97f4a7c15ull + 1);
	test_rand();
	test_rand();
	test_rand();
	r = test_rand();
	kind = r % 8;
	if (kind == 0) {
		static const uint32_t d4[] = {0x0a010203, 0xc6336402, 0xc0000201, 0x08080808,
					      0xc6336409};

		m = pkt4(0xc0000202, d4[(r >> 8) % 5], (r >> 16) % 3 == 0 ? 1 : 64, 10);
	} else {
		const char *s = srcs[(r >> 8) % RTE_DIM(srcs)];
		const char *d = dsts[(r >> 16) % RTE_DIM(dsts)];
		static const uint8_t hls[] = {64, 64, 64, 1, 0, 2, 255};
		uint8_t hl = hls[(r >> 24) % RTE_DIM(hls)];
		uint16_t plen = (r >> 28) % 5 == 0 ? 1380 : 8 + (uint16_t)((r >> 32) % 40);
		uint8_t proto = (r >> 40) % 3 == 0 ? IPPROTO_ICMPV6 : IPPROTO_UDP;
		static const uint8_t types[] = {128, 1, 135, 136, 3};
		uint16_t pad = (r >> 44) % 4 == 0 ? 6 : 0;
		int lie = (r >> 46) % 16 == 0 ? 4 : 0;

		m = pkt6(s, d, hl, plen, proto, types[(r >> 48) % RTE_DIM(types)], pad, lie);
		if ((r >> 52) % 8 == 0)
			rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = grp_mac;
		else if ((r >> 52) % 8 == 1)
			rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = other_mac;
	}
	return m;
}

struct seen {
	uint16_t out;
	uint32_t usr, aux;
	uint16_t len;
	uint8_t bytes[1600];
};

static void record(struct seen *s, struct rte_mbuf *m, uint16_t out)
{
	s->out = out;
	if (out == DP_OUT_DROP)
		return;
	s->usr = out >= DP_OUT_CTRL_ERR ? m->hash.usr : 0;
	s->aux = out >= DP_OUT_CTRL_ERR ? m->hash.fdir.hi : 0;
	s->len = (uint16_t)rte_pktmbuf_pkt_len(m);
	memcpy(s->bytes, rte_pktmbuf_mtod(m, void *), s->len);
	rte_pktmbuf_free(m);
}

static void expect_same(const struct seen *a, const struct seen *b, unsigned int i)
{
	if (a->out != b->out)
		fail_msg("packet %u: burst verdict %#x, alone %#x", i, a->out, b->out);
	if (a->out == DP_OUT_DROP)
		return;
	if (a->usr != b->usr || a->aux != b->aux || a->len != b->len ||
	    memcmp(a->bytes, b->bytes, a->len) != 0) {
		unsigned int k;

		for (k = 0; k < a->len && a->bytes[k] == b->bytes[k]; k++)
			;
		fail_msg("packet %u: out %#x usr %#x/%#x aux %u/%u len %u/%u first diff byte %u "
			 "(%02x/%02x)",
			 i, a->out, a->usr, b->usr, a->aux, b->aux, a->len, b->len, k, a->bytes[k],
			 b->bytes[k]);
	}
}

/* A worker's poll: up to four bursts */
#define POLL (4 * DP_BURST)

/* Random polls of up to POLL mixed packets against each packet alone:
 * the same verdict, bytes and counters. */
static void differential(struct pctx *p, uint8_t rpf, uint8_t cache_mode, unsigned int rounds)
{
	static struct seen a[POLL], b[POLL];
	uint64_t base = 0x1234567 + rpf * 1000003 + cache_mode * 7919;
	unsigned int round, i, n;

	if (p->c.rtc == NULL)
		p->c.rtc = rtcache_create(1024, 0, 42);
	p->conf.rtcache_mode = cache_mode;
	p->ports[0].rpf = rpf;
	for (round = 0; round < rounds; round++) {
		struct rte_mbuf *m[POLL];
		uint16_t out[POLL];
		struct dp_stats s0, s1, s2;
		unsigned int d;

		test_srand(base + round);
		n = 1 + (unsigned int)(test_rand() % POLL);
		for (i = 0; i < n; i++)
			m[i] = random_pkt(base * 31 + round * POLL + i);
		s0 = p->st;
		dp_input_burst(&p->c, 0, m, (uint16_t)n, out);
		for (i = 0; i < n; i++)
			record(&a[i], m[i], out[i]);
		s1 = p->st;
		for (i = 0; i < n; i++) {
			struct rte_mbuf *x = random_pkt(base * 31 + round * POLL + i);
			uint16_t o;

			run1(p, x, 0, &o);
			record(&b[i], x, o);
		}
		s2 = p->st;
		for (i = 0; i < n; i++)
			expect_same(&a[i], &b[i], i);
		for (d = 0; d < DROP_MAX; d++)
			if (s1.drop[d] - s0.drop[d] != s2.drop[d] - s1.drop[d])
				fail_msg("round %u: %s %lu in the burst, %lu alone", round,
					 dp_drop_names[d], (unsigned long)(s1.drop[d] - s0.drop[d]),
					 (unsigned long)(s2.drop[d] - s1.drop[d]));
	}
	p->ports[0].rpf = DP_RPF_OFF;
	assert_int_equal(p->c.rtc->st.lookups,
			 p->c.rtc->st.hits + p->c.rtc->st.misses + p->c.rtc->st.stale);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

static void test_differential(void **state)
{
	struct pctx *p = *state;
	uint8_t rpf, mode;

	for (mode = RTCACHE_OFF; mode <= RTCACHE_AUTO; mode++)
		for (rpf = DP_RPF_OFF; rpf <= DP_RPF_STRICT; rpf++)
			differential(p, rpf, mode, mode == RTCACHE_AUTO ? 1000 : 150);
	/* the cache answered some of them: its paths were compared too */
	assert_true(p->c.rtc->st.hits > 0);
}

/* ------------------------------------------------------------------------ */

static void test_basic(void **state)
{
	struct pctx *p = *state;
	struct rte_mbuf *m;
	uint64_t hl_drops;
	uint16_t out;
	uint8_t hl;

	/* via the gateway: hop limit 63, h2's MAC, port 1's MAC */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 20, IPPROTO_UDP, 0, 0, 0);
	run1(p, m, 0, &out);
	assert_int_equal(out, 1);
	assert_int_equal(ip6h(m)->hop_limits, 63);
	assert_true(rte_is_same_ether_addr(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
					   &h2_mac));
	rte_pktmbuf_free(m);
	/* hop limit 1 and 0: time exceeded, hop limit exceeded in transit
	 * (RFC 4443 3.3: 3/0), each counted once; 0 as well as 1, so that a
	 * check of == 1 (0 would wrap to 255 and be forwarded) is caught */
	hl_drops = p->st.drop[DROP_IP6_HOP_LIMIT];
	for (hl = 0; hl <= 1; hl++) {
		m = pkt6("2001:db8:1::5", "2001:db8:5::7", hl, 20, IPPROTO_UDP, 0, 0, 0);
		run1(p, m, 0, &out);
		assert_int_equal(out, DP_OUT_CTRL_ERR);
		assert_int_equal(dp_ctrl_reason(m), CTRL_ICMP_ERROR);
		assert_int_equal(dp_ctrl_icmp_type(m), 3);
		assert_int_equal(dp_ctrl_icmp_code(m), 0);
		/* handed over untouched: the error quotes what was received */
		assert_int_equal(ip6h(m)->hop_limits, hl);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(p->st.drop[DROP_IP6_HOP_LIMIT], hl_drops + 2);
	/* too big for port 1 (1400): Packet Too Big with 1400 */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 1380, IPPROTO_UDP, 0, 0, 0);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL_ERR);
	assert_int_equal(dp_ctrl_icmp_type(m), 2);
	assert_int_equal(dp_ctrl_aux(m), 1400);
	rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

static void expect_only(struct pctx *p, struct rte_mbuf *m, uint16_t want, enum dp_drop why);

static void test_edges(void **state)
{
	struct pctx *p = *state;
	struct rte_mbuf *m;
	uint16_t out;
	uint64_t ns;

	/* padding trimmed, forwarded at its own length */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 6, IPPROTO_UDP, 0, 6, 0);
	run1(p, m, 0, &out);
	assert_int_equal(out, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 14 + 40 + 6);
	rte_pktmbuf_free(m);
	/* payload length 0, next header 59: forwarded; with hop-by-hop: refused */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 0, 59, 0, 6, 0);
	run1(p, m, 0, &out);
	assert_int_equal(out, 1);
	rte_pktmbuf_free(m);
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 0, 0, 0, 16, 0);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	assert_int_equal(p->st.drop[DROP_IP6_LENGTH], 1);
	/* an ICMPv6 error (1/x) with hop limit 1: no error about it */
	ns = p->st.icmp_not_sent;
	run1(p, pkt6("2001:db8:1::5", "2001:db8:5::7", 1, 48, IPPROTO_ICMPV6, 1, 0, 0), 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	assert_int_equal(p->st.icmp_not_sent, ns + 1);
	/* behind a fragment header: the first fragment of an ICMPv6 error
	 * gets no error either; a later fragment holds no upper-layer header
	 * (its first byte, 1 here, is data), and gets one (RFC 4443 2.4 e) */
	{
		uint16_t foff;

		for (foff = 0; foff <= 8; foff += 8) {
			uint8_t *fh;

			m = pkt6("2001:db8:1::5", "2001:db8:5::7", 1, 56, 44, 0, 0, 0);
			fh = (uint8_t *)(ip6h(m) + 1);
			fh[0] = IPPROTO_ICMPV6;
			fh[1] = 0;
			fh[2] = (uint8_t)(foff >> 8);
			fh[3] = (uint8_t)(foff | 1); /* more fragments */
			fh[8] = 1; /* an ICMPv6 Destination Unreachable, or data */
			run1(p, m, 0, &out);
			if (foff == 0) {
				assert_int_equal(out, DP_OUT_DROP);
				assert_int_equal(p->st.icmp_not_sent, ns + 2);
			} else {
				assert_int_equal(out, DP_OUT_CTRL_ERR);
				assert_int_equal(dp_ctrl_icmp_type(m), 3);
				assert_int_equal(p->st.icmp_not_sent, ns + 2);
				rte_pktmbuf_free(m);
			}
		}
	}
	/* an "NS" (ICMPv6 type 135) to forward to an unresolved on-link host:
	 * a packet to resolve (worker_to_control() gives it no more of the
	 * ring's reserve than any: test_worker) */
	m = pkt6("2001:db8:1::5", "2001:db8:2::77", 64, 24, IPPROTO_ICMPV6, 135, 0, 0);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m), CTRL_RESOLVE);
	rte_pktmbuf_free(m);
	/* the same from far away, to the router's address, hop limit 60 */
	m = pkt6("2001:db8:5::9", "2001:db8:1::1", 60, 24, IPPROTO_ICMPV6, 135, 0, 0);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m), CTRL_LOCAL);
	rte_pktmbuf_free(m);
	/* strict rpf on port 0, a source behind port 1: in a link-layer
	 * multicast frame rpf is not asked (to the router's address it is the
	 * router's; to forward it is never forwarded, counted as that); in a
	 * unicast frame to the router it is refused by rpf */
	p->ports[0].rpf = DP_RPF_STRICT;
	m = pkt6("2001:db8:2::9", "2001:db8:1::1", 64, 8, IPPROTO_UDP, 0, 0, 0);
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = grp_mac;
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m), CTRL_LOCAL);
	rte_pktmbuf_free(m);
	m = pkt6("2001:db8:2::9", "2001:db8:5::7", 64, 8, IPPROTO_UDP, 0, 0, 0);
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = grp_mac;
	expect_only(p, m, DP_OUT_DROP, DROP_L2_BCAST_FORWARD);
	m = pkt6("2001:db8:2::9", "2001:db8:1::1", 64, 8, IPPROTO_UDP, 0, 0, 0);
	expect_only(p, m, DP_OUT_DROP, DROP_RPF_STRICT);
	assert_int_equal(p->st.rpf_drop[0][0], 1);
	/* to the port's link-local address alike (not in the FIB), and from
	 * a source on its link it is the router's */
	m = pkt6("2001:db8:2::9", "fe80::1", 64, 8, IPPROTO_UDP, 0, 0, 0);
	expect_only(p, m, DP_OUT_DROP, DROP_RPF_STRICT);
	assert_int_equal(p->st.rpf_drop[0][0], 2);
	m = pkt6("2001:db8:1::9", "fe80::1", 64, 8, IPPROTO_UDP, 0, 0, 0);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m), CTRL_LOCAL);
	rte_pktmbuf_free(m);
	p->ports[0].rpf = DP_RPF_OFF;
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/* Sends @m alone on port 0: its verdict is @want, and of the drop
 * counters only @why rose, by one (DROP_MAX: none rose). */
static void expect_only(struct pctx *p, struct rte_mbuf *m, uint16_t want, enum dp_drop why)
{
	const struct dp_stats s0 = p->st;
	unsigned int d;
	uint16_t out;

	run1(p, m, 0, &out);
	assert_int_equal(out, want);
	for (d = 0; d < DROP_MAX; d++)
		if (p->st.drop[d] != s0.drop[d] + (d == why))
			fail_msg("%s rose by %lu, not %u", dp_drop_names[d],
				 (unsigned long)(p->st.drop[d] - s0.drop[d]), d == why);
}

/*
 * RFC 8200's header checks (ip6_validate()), each packet alone through the
 * pipeline: dropped under its own reason, and nothing else counted; a frame
 * longer than its packet (Ethernet padding) trimmed and forwarded.
 */
static void test_validate6(void **state)
{
	struct pctx *p = *state;
	struct rte_mbuf *m;

	/* version 4 in an IPv6 frame */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 20, IPPROTO_UDP, 0, 0, 0);
	ip6h(m)->vtc_flow = rte_cpu_to_be_32(4u << 28 | 0x12345);
	expect_only(p, m, DP_OUT_DROP, DROP_IP6_VERSION);
	/* one byte short of an IPv6 header (14 + 39): a valid Ethernet
	 * frame, not an IPv6 packet */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 0, 59, 0, 0, 0);
	assert_int_equal(rte_pktmbuf_trim(m, 1), 0);
	expect_only(p, m, DP_OUT_DROP, DROP_IP6_TOO_SHORT);
	/* payload length 4 bytes beyond the frame */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 20, IPPROTO_UDP, 0, 0, 4);
	expect_only(p, m, DP_OUT_DROP, DROP_IP6_LENGTH);
	/* and by one byte: the bound is exact (payload length 20 in 19) */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 19, IPPROTO_UDP, 0, 0, 1);
	expect_only(p, m, DP_OUT_DROP, DROP_IP6_LENGTH);
	/* exactly the frame: forwarded as it is */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 20, IPPROTO_UDP, 0, 0, 0);
	expect_only(p, m, 1, DROP_MAX);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 14 + 40 + 20);
	rte_pktmbuf_free(m);
	/* 10 bytes of padding: trimmed to the packet, forwarded, the bytes
	 * kept and the hop limit the only change */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 20, IPPROTO_UDP, 0, 10, 0);
	expect_only(p, m, 1, DROP_MAX);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 14 + 40 + 20);
	assert_int_equal(rte_pktmbuf_data_len(m), 14 + 40 + 20);
	assert_int_equal(rte_be_to_cpu_16(ip6h(m)->payload_len), 20);
	assert_int_equal(ip6h(m)->hop_limits, 63);
	assert_int_equal(rte_pktmbuf_mtod_offset(m, uint8_t *, 14 + 40 + 19)[0], (uint8_t)(19 * 3));
	rte_pktmbuf_free(m);
	assert_int_equal(p->st.drop[DROP_IP6_VERSION], 1);
	assert_int_equal(p->st.drop[DROP_IP6_TOO_SHORT], 1);
	assert_int_equal(p->st.drop[DROP_IP6_LENGTH], 2);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/*
 * Packet Too Big has a token bucket of its own per worker (c.icmp_pmtu):
 * a flood of other errors (a loop's Time Exceeded) emptying the general
 * one must not starve path MTU discovery (RFC 8201), which without the
 * error black-holes the flow. IPv4's 3/4 twin: test_ip4.c.
 */
static void test_pmtu_bucket6(void **state)
{
	struct pctx *p = *state;
	struct rte_mbuf *m;
	uint64_t rl = p->st.icmp_ratelimited;

	/* tokens that do not refill within the test: 2^39 cycles each, 4 in
	 * a bucket */
	p->conf.icmp_rate = dp_icmp_rate(1ull << 39, 4);
	p->c.icmp.left = 0;
	p->c.icmp_pmtu.left = 1ull << 41;
	p->c.icmp.last = p->c.icmp_pmtu.last = rte_rdtsc();
	/* the general bucket empty: Time Exceeded rate-limited, still counted
	 * under its drop reason */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 1, 20, IPPROTO_UDP, 0, 0, 0);
	expect_only(p, m, DP_OUT_DROP, DROP_IP6_HOP_LIMIT);
	assert_int_equal(p->st.icmp_ratelimited, rl + 1);
	/* too big for port 1 (1400): Packet Too Big handed over all the same,
	 * its token taken from path MTU discovery's bucket */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 1380, IPPROTO_UDP, 0, 0, 0);
	expect_only(p, m, DP_OUT_CTRL_ERR, DROP_IP6_TOO_BIG);
	assert_int_equal(dp_ctrl_reason(m), CTRL_ICMP_ERROR);
	assert_int_equal(dp_ctrl_icmp_type(m), 2);
	assert_int_equal(dp_ctrl_icmp_code(m), 0);
	assert_int_equal(dp_ctrl_aux(m), 1400);
	rte_pktmbuf_free(m);
	assert_int_equal(p->st.icmp_ratelimited, rl + 1);
	assert_true(p->c.icmp_pmtu.left < 1ull << 42);
	/* and a Time Exceeded at that moment: still rate-limited, the other
	 * bucket's tokens not lent to it */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 1, 20, IPPROTO_UDP, 0, 0, 0);
	expect_only(p, m, DP_OUT_DROP, DROP_IP6_HOP_LIMIT);
	assert_int_equal(p->st.icmp_ratelimited, rl + 2);
	/* both empty: Packet Too Big too is dropped, counted rate-limited */
	p->c.icmp_pmtu.left = 0;
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 64, 1380, IPPROTO_UDP, 0, 0, 0);
	expect_only(p, m, DP_OUT_DROP, DROP_IP6_TOO_BIG);
	assert_int_equal(p->st.icmp_ratelimited, rl + 3);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/* Sends a packet from @src to @dst: its verdict (the packet freed). */
static uint16_t verdict6(struct pctx *p, const char *src, const char *dst, uint8_t proto)
{
	struct rte_mbuf *m = pkt6(src, dst, 64, 24, proto, 128, 0, 0);
	uint16_t out;

	run1(p, m, 0, &out);
	if (out != DP_OUT_DROP)
		rte_pktmbuf_free(m);
	return out;
}

/*
 * A packet from one of the router's own addresses is never forwarded nor
 * delivered (ip6_bad_source, as IPv4's martian_source): a spoof, or the
 * router's own packet come back; to a group it goes to the control
 * thread, where a conflict is seen. Not the router's, an address of the
 * same subnet is forwarded.
 */
static void test_own_source(void **state)
{
	struct pctx *p = *state;
	struct dp_local *loc = calloc(1, sizeof(*loc) + 2 * 16 + 16);
	uint8_t a[16];

	assert_non_null(loc);
	loc->addr6 = (uint8_t(*)[16])RTE_PTR_ALIGN_CEIL((uintptr_t)&loc->addr[0], 16);
	v6("2001:db8:1::1", a);
	dp_local6_add(loc, a);
	v6("2001:db8:2::1", a);
	dp_local6_add(loc, a);
	/* no list yet: forwarded */
	assert_int_equal(verdict6(p, "2001:db8:1::1", "2001:db8:5::7", IPPROTO_UDP), 1);
	p->conf.local = loc;
	assert_int_equal(verdict6(p, "2001:db8:1::1", "2001:db8:5::7", IPPROTO_UDP), DP_OUT_DROP);
	assert_int_equal(verdict6(p, "2001:db8:2::1", "2001:db8:5::7", IPPROTO_UDP), DP_OUT_DROP);
	assert_int_equal(verdict6(p, "2001:db8:2::1", "2001:db8:1::1", IPPROTO_ICMPV6),
			 DP_OUT_DROP);
	assert_int_equal(p->st.drop[DROP_IP6_BAD_SRC], 3);
	/* to a group the router listens to: the control thread's */
	assert_int_equal(verdict6(p, "2001:db8:1::1", "ff02::1", IPPROTO_ICMPV6), DP_OUT_CTRL);
	/* another host of the subnet, and the router's address as the
	 * destination: as before */
	assert_int_equal(verdict6(p, "2001:db8:1::2", "2001:db8:5::7", IPPROTO_UDP), 1);
	assert_int_equal(verdict6(p, "2001:db8:1::5", "2001:db8:1::1", IPPROTO_ICMPV6),
			 DP_OUT_CTRL);
	assert_int_equal(p->st.drop[DROP_IP6_BAD_SRC], 3);
	p->conf.local = NULL;
	free(loc);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/*
 * RFC 4443 2.4 (e.6): no error about a packet from one of the router's
 * Subnet-Router anycast addresses. The worker refuses it before a token
 * is taken (icmp_not_sent), so the next error due is still sent; the
 * packet itself is forwarded as any other, without a Redirect (its
 * sender is no single neighbour).
 */
static void test_anycast_source(void **state)
{
	static const struct {
		const char *src, *dst;
		uint8_t hl;
		uint16_t plen;
		enum dp_drop why;
	} due[] = {
		{"2001:db8:2::", "2001:db8:5::7", 1, 20, DROP_IP6_HOP_LIMIT},
		{"2001:db8:1::", "2001:db8:5::7", 1, 20, DROP_IP6_HOP_LIMIT},
		{"2001:db8:1::", "2001:db8:c::7", 64, 20, DROP_UNREACHABLE},
		{"2001:db8:1::", "2001:db8:5::7", 64, 1380, DROP_IP6_TOO_BIG},
	};
	struct pctx *p = *state;
	struct dp_local *loc = calloc(1, sizeof(*loc) + 3 * 16 + 16);
	uint64_t ns = p->st.icmp_not_sent, rl = p->st.icmp_ratelimited, rr;
	struct rte_mbuf *m;
	uint8_t a[16];
	uint16_t out;
	unsigned int i;

	assert_non_null(loc);
	loc->addr6 = (uint8_t(*)[16])RTE_PTR_ALIGN_CEIL((uintptr_t)&loc->addr[0], 16);
	v6("2001:db8:1::1", a);
	dp_local6_add(loc, a);
	v6("2001:db8:1::", a);
	dp_local_any6_add(loc, a);
	v6("2001:db8:2::", a);
	dp_local_any6_add(loc, a);
	assert_true(dp_local_anycast6(loc, a));
	v6("2001:db8:2::1", a);
	assert_false(dp_local_anycast6(loc, a));
	v6("2001:db8:1::1", a);
	assert_false(dp_local_anycast6(loc, a)); /* an own address, not anycast */
	p->conf.local = loc;
	/* one token in the bucket, none refilled within the test */
	p->conf.icmp_rate = dp_icmp_rate(1ull << 39, 1);
	p->c.icmp.left = 1ull << 39;
	p->c.icmp_pmtu.left = 0;
	p->c.icmp.last = p->c.icmp_pmtu.last = rte_rdtsc();
	/* forwarded as any packet */
	assert_int_equal(verdict6(p, "2001:db8:1::", "2001:db8:5::7", IPPROTO_UDP), 1);
	/* each error the workers send, from either prefix's anycast address:
	 * dropped, no error, no token (Packet Too Big's own bucket is empty:
	 * not asked either) */
	for (i = 0; i < RTE_DIM(due); i++) {
		m = pkt6(due[i].src, due[i].dst, due[i].hl, due[i].plen, IPPROTO_UDP, 0, 0, 0);
		expect_only(p, m, DP_OUT_DROP, due[i].why);
	}
	assert_int_equal(p->st.icmp_not_sent, ns + RTE_DIM(due));
	assert_int_equal(p->st.icmp_ratelimited, rl);
	/* the token is still there for a host's error; then it is gone */
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 1, 20, IPPROTO_UDP, 0, 0, 0);
	expect_only(p, m, DP_OUT_CTRL_ERR, DROP_IP6_HOP_LIMIT);
	assert_int_equal(dp_ctrl_icmp_type(m), 3);
	rte_pktmbuf_free(m);
	m = pkt6("2001:db8:1::5", "2001:db8:5::7", 1, 20, IPPROTO_UDP, 0, 0, 0);
	expect_only(p, m, DP_OUT_DROP, DROP_IP6_HOP_LIMIT);
	assert_int_equal(p->st.icmp_ratelimited, rl + 1);
	assert_int_equal(p->st.icmp_not_sent, ns + 4);
	/* back out of port 0, Redirects on, one Redirect token: the anycast
	 * source is sent none and takes no token (forwarded, none over the
	 * rate), so a host of the link is sent one next (the control
	 * thread's) */
	p->ports[0].redirects = 1;
	p->c.icmp_redirect.left = 1ull << 39;
	p->c.icmp_redirect.last = rte_rdtsc();
	rr = p->st.redirects_ratelimited;
	assert_int_equal(verdict6(p, "2001:db8:1::", "2001:db8:1::5", IPPROTO_UDP), 0);
	assert_int_equal(p->st.redirects_ratelimited, rr);
	m = pkt6("2001:db8:1::7", "2001:db8:1::5", 64, 20, IPPROTO_UDP, 0, 0, 0);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_icmp_type(m), ICMP6_REDIRECT);
	rte_pktmbuf_free(m);
	p->ports[0].redirects = 0;
	p->conf.local = NULL;
	free(loc);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

static void send6(struct pctx *p, const char *src, uint16_t want, const struct rte_ether_addr *mac)
{
	struct rte_mbuf *m = pkt6(src, "2001:db8:5::7", 64, 20, IPPROTO_UDP, 0, 0, 0);
	uint16_t out;

	run1(p, m, 0, &out);
	assert_int_equal(out, want);
	if (want < 2) {
		assert_true(rte_is_same_ether_addr(
			&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr, mac));
		assert_int_equal(ip6h(m)->hop_limits, 63);
		rte_pktmbuf_free(m);
	} else if (want != DP_OUT_DROP) {
		rte_pktmbuf_free(m);
	}
}

static void test_cache6(void **state)
{
	struct pctx *p = *state;
	const struct rte_ether_addr h1b = {{0x02, 0, 0, 0, 0x01, 0x55}};
	const struct rte_ether_addr h2b = {{0x02, 0, 0, 0, 0x02, 0x55}};
	struct fib_route r;
	struct fr_addr a;
	struct rtcache *rc = rtcache_create(1024, 0, 7);

	p->c.rtc = rc;
	p->conf.rtcache_mode = RTCACHE_ON;
	send6(p, "2001:db8:1::5", 1, &h2_mac);
	send6(p, "2001:db8:1::5", 1, &h2_mac);
	assert_int_equal(rc->st.hits, 1); /* the second: from the cache */
	p->ports[1].down = 1;
	send6(p, "2001:db8:1::5", DP_OUT_CTRL_ERR, NULL);
	p->ports[1].down = 0;
	p->ports[1].mtu = 1280;
	send6(p, "2001:db8:1::5", 1, &h2_mac);
	/* a more specific route by h1 on port 0 */
	fr_addr_parse("2001:db8:1::9", &a);
	assert_int_equal(neigh_static_set(p->n, &a, 0, &h1b), 0);
	memset(&r, 0, sizeof(r));
	fr_prefix_parse("2001:db8:5::/64", &r.prefix, true);
	r.type = FIB_NH_GATEWAY;
	r.port = FIB_PORT_NONE;
	r.gw = a;
	assert_int_equal(fib_route_add(p->fib, &r), 0);
	send6(p, "2001:db8:1::5", 0, &h1b);
	send6(p, "2001:db8:1::5", 0, &h1b);
	assert_int_equal(fib_route_del(p->fib, &r.prefix, NULL), 0);
	send6(p, "2001:db8:1::5", 1, &h2_mac);
	/* the gateway's MAC changes */
	fr_addr_parse("2001:db8:2::2", &a);
	assert_int_equal(neigh_static_set(p->n, &a, 1, &h2b), 0);
	send6(p, "2001:db8:1::5", 1, &h2b);
	/* rpf strict on: a source behind port 1 */
	send6(p, "2001:db8:2::9", 1, &h2b);
	send6(p, "2001:db8:2::9", 1, &h2b);
	p->ports[0].rpf = DP_RPF_STRICT;
	send6(p, "2001:db8:2::9", DP_OUT_DROP, NULL);
	send6(p, "2001:db8:1::5", 1, &h2b);
	send6(p, "2001:db8:1::5", 1, &h2b);
	/* link-local source, cached key without it (rpf off) */
	p->ports[0].rpf = DP_RPF_OFF;
	send6(p, "2001:db8:1::5", 1, &h2b);
	send6(p, "fe80::99", DP_OUT_CTRL_ERR, NULL);
	/* the new route, its removal and the new MAC each found the entry
	 * stale (3); rpf strict keys by the source too: the spoofed one and
	 * h1's missed (the first packet's miss: 3); the rest, the port down,
	 * the MTU and the link-local source among them, hit and were checked
	 * on the hit (9) */
	assert_int_equal(rc->st.stale, 3);
	assert_int_equal(rc->st.misses, 3);
	assert_int_equal(rc->st.hits, 9);
	assert_int_equal(rc->st.lookups, rc->st.hits + rc->st.misses + rc->st.stale);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_basic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_differential, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validate6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pmtu_bucket6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_source, setup, teardown),
		cmocka_unit_test_setup_teardown(test_anycast_source, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache6, setup, teardown),
	};

	test_eal_init("ip6");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
