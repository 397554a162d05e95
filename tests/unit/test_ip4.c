/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 input: RFC 1812 5.2.2 checks (each malformed case dropped with its
 * own reason), TTL decrement with the RFC 1624 incremental checksum against
 * a full recompute, and the burst pipeline's verdicts and rewrites.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_arp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "datapath.h"
#include "dp_fixture.h"
#include "eal_helper.h"
#include "fib.h"
#include "ip4.h"
#include "ip4_frag.h"
#include "ip4_opts.h"
#include "ip6_frag.h"
#include "neigh.h"

/* Ethernet + IPv4 (+ payload) from h1 to the router's port 0 */
static struct rte_mbuf *pkt(uint32_t src, uint32_t dst, uint8_t ttl, uint16_t payload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool());
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	uint16_t i;

	assert_non_null(m);
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + sizeof(*ip) + payload);
	assert_non_null(eth);
	eth->dst_addr = port_mac[0];
	eth->src_addr = h1_mac;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + payload));
	ip->packet_id = RTE_BE16(0x1234);
	ip->time_to_live = ttl;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	for (i = 0; i < payload; i++)
		((uint8_t *)(ip + 1))[i] = (uint8_t)i;
	return m;
}

static struct rte_ipv4_hdr *iph(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
}

static void expect_invalid(struct rte_mbuf *m, enum dp_drop want)
{
	enum dp_drop why = DROP_MAX;

	assert_false(ip4_validate(m, iph(m), &why));
	if (why != want)
		fail_msg("dropped as %s, want %s", dp_drop_names[why], dp_drop_names[want]);
	rte_pktmbuf_free(m);
}

static void test_validate(void **state)
{
	struct rte_mbuf *m;
	struct rte_ipv4_hdr *ip;
	enum dp_drop why;

	(void)state;
	/* valid, with Ethernet padding that must be trimmed */
	m = pkt(0xc0000202, 0x0a000001, 64, 6);
	assert_non_null(rte_pktmbuf_append(m, 20)); /* padding */
	assert_true(ip4_validate(m, iph(m), &why));
	assert_int_equal(rte_pktmbuf_pkt_len(m), 14 + 20 + 6);
	rte_pktmbuf_free(m);

	/* (1) frame too short for a header */
	m = pkt(0xc0000202, 0x0a000001, 64, 0);
	rte_pktmbuf_trim(m, 1);
	expect_invalid(m, DROP_IP4_TOO_SHORT);

	/* (3) version */
	m = pkt(0xc0000202, 0x0a000001, 64, 8);
	ip = iph(m);
	ip->version_ihl = 0x65;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	expect_invalid(m, DROP_IP4_VERSION);

	/* (4) IHL 4, with a checksum that is right for 16 bytes */
	m = pkt(0xc0000202, 0x0a000001, 64, 8);
	ip = iph(m);
	ip->version_ihl = 0x44;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = (uint16_t)~rte_raw_cksum(ip, 16);
	expect_invalid(m, DROP_IP4_IHL);

	/* IHL 15: a 60-byte header in a 34-byte packet */
	m = pkt(0xc0000202, 0x0a000001, 64, 0);
	ip = iph(m);
	ip->version_ihl = 0x4f;
	expect_invalid(m, DROP_IP4_IHL);

	/* (2) checksum */
	m = pkt(0xc0000202, 0x0a000001, 64, 8);
	iph(m)->hdr_checksum ^= RTE_BE16(0x0101);
	expect_invalid(m, DROP_IP4_CHECKSUM);

	/* options (IHL 6, four bytes of NOP): valid, then a wrong checksum,
	 * then a wrong checksum the NIC vouched for (trusted), then one the
	 * NIC refused */
	m = pkt(0xc0000202, 0x0a000001, 64, 8);
	ip = iph(m);
	ip->version_ihl = 0x46;
	memset(ip + 1, 1, 4);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = (uint16_t)~rte_raw_cksum(ip, 24);
	assert_true(ip4_validate(m, ip, &why));
	ip->hdr_checksum ^= RTE_BE16(0x0101);
	assert_false(ip4_validate(m, ip, &why));
	assert_int_equal(why, DROP_IP4_CHECKSUM);
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	assert_true(ip4_validate(m, ip, &why));
	ip->hdr_checksum ^= RTE_BE16(0x0101);
	m->ol_flags = (m->ol_flags & ~RTE_MBUF_F_RX_IP_CKSUM_MASK) | RTE_MBUF_F_RX_IP_CKSUM_BAD;
	expect_invalid(m, DROP_IP4_CHECKSUM);

	/* no options: a wrong checksum the NIC vouched for is trusted */
	m = pkt(0xc0000202, 0x0a000001, 64, 8);
	iph(m)->hdr_checksum ^= RTE_BE16(0x0101);
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	assert_true(ip4_validate(m, iph(m), &why));
	rte_pktmbuf_free(m);

	/* NIC said the checksum is bad */
	m = pkt(0xc0000202, 0x0a000001, 64, 8);
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_BAD;
	expect_invalid(m, DROP_IP4_CHECKSUM);

	/* (5) total length shorter than the header */
	m = pkt(0xc0000202, 0x0a000001, 64, 8);
	ip = iph(m);
	ip->total_length = RTE_BE16(19);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	expect_invalid(m, DROP_IP4_LENGTH);

	/* total length longer than the frame */
	m = pkt(0xc0000202, 0x0a000001, 64, 8);
	ip = iph(m);
	ip->total_length = RTE_BE16(20 + 9);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	expect_invalid(m, DROP_IP4_LENGTH);
}

/* Spend @h's TTL with the incremental update and return the checksum it
 * wrote; @h is left with the checksum a full recompute gives. */
static uint16_t ttl_dec_vs_full(struct rte_ipv4_hdr *h)
{
	uint16_t inc;

	ip4_ttl_dec(h);
	inc = h->hdr_checksum;
	h->hdr_checksum = 0;
	h->hdr_checksum = rte_ipv4_cksum(h);
	return inc;
}

/* RFC 1624: the incremental update equals a full recompute, 100,000 times. */
static void test_ttl_checksum(void **state)
{
	struct rte_ipv4_hdr h;
	unsigned int i, zero = 0;

	(void)state;
	test_srand(1624);
	for (i = 0; i < 100000; i++) {
		uint16_t inc;
		unsigned int j;

		for (j = 0; j < sizeof(h); j += 8) {
			uint64_t r = test_rand();

			memcpy((uint8_t *)&h + j, &r, RTE_MIN(sizeof(r), sizeof(h) - j));
		}
		if (i % 3 == 0) /* high bytes: the word sums carry out of 64 bits */
			for (j = 0; j < sizeof(h); j++)
				((uint8_t *)&h)[j] |= 0xf0;
		if (i % 3001 == 0) /* all ones, but for the fields set below */
			memset(&h, 0xff, sizeof(h));
		h.version_ihl = 0x45;
		h.time_to_live = (uint8_t)(2 + test_rand() % 254);
		if (i % 1000 == 0) /* corner: header words that sum to 0xffff */
			h.time_to_live = 0xff;
		/* the fast 20-byte check agrees with DPDK's sum on any
		 * header, right or wrong */
		assert_int_equal(ip4_cksum20_ok(&h), rte_raw_cksum(&h, sizeof(h)) == 0xffff);
		h.hdr_checksum = 0;
		h.hdr_checksum = rte_ipv4_cksum(&h);
		assert_int_equal(rte_raw_cksum(&h, sizeof(h)), 0xffff);
		assert_true(ip4_cksum20_ok(&h));
		{
			/* any one bit flipped is caught */
			unsigned int bit = (unsigned int)(test_rand() % (8 * sizeof(h)));

			((uint8_t *)&h)[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			assert_false(ip4_cksum20_ok(&h));
			((uint8_t *)&h)[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		inc = ttl_dec_vs_full(&h);
		if (inc != h.hdr_checksum)
			fail_msg("header %u: incremental %04x, full %04x", i, inc, h.hdr_checksum);
		if (inc == 0)
			zero++;
	}
	print_message("100000 headers, %u with checksum 0x0000\n", zero);
	/* every checksum a header can carry: the identification field takes
	 * all 65536 values, the rest fixed, so the checksum takes each of its
	 * 65535 (0xffff never comes from a full computation) */
	memset(&h, 0, sizeof(h));
	h.version_ihl = 0x45;
	h.time_to_live = 64;
	h.next_proto_id = IPPROTO_UDP;
	h.total_length = RTE_BE16(28);
	h.src_addr = RTE_BE32(0xc0000202);
	h.dst_addr = RTE_BE32(0xc6336402);
	for (i = 0; i < 65536; i++) {
		uint16_t inc;

		h.packet_id = (uint16_t)i;
		h.time_to_live = 64;
		h.hdr_checksum = 0;
		h.hdr_checksum = rte_ipv4_cksum(&h);
		inc = ttl_dec_vs_full(&h);
		if (inc != h.hdr_checksum)
			fail_msg("id %u: incremental %04x, full %04x", i, inc, h.hdr_checksum);
	}
}

/* ---- pipeline ------------------------------------------------------- */

/* Add @pfx of @type out of (or owned by) @port to @f. */
static void add_route(struct fib *f, const char *pfx, uint8_t type, uint16_t port)
{
	struct fib_route r;

	memset(&r, 0, sizeof(r));
	assert_int_equal(fr_prefix_parse(pfx, &r.prefix, true), 0);
	r.type = type;
	r.port = port;
	assert_int_equal(fib_route_add(f, &r), 0);
}

/* Add @pfx by gateway @gw (its port from the connected route to it). */
static struct fib_route gw_route_add(struct fib *f, const char *pfx, const char *gw)
{
	struct fib_route r;

	memset(&r, 0, sizeof(r));
	fr_prefix_parse(pfx, &r.prefix, true);
	r.type = FIB_NH_GATEWAY;
	r.port = FIB_PORT_NONE;
	fr_addr_parse(gw, &r.gw);
	assert_int_equal(fib_route_add(f, &r), 0);
	return r;
}

/* The pipeline's tables; @max_nh next hops (0: the default, which gives
 * rte_fib 2-byte entries; more than 32,768 give 4-byte ones). */
static int pipe_setup_nh(void **state, uint32_t max_nh)
{
	struct fib_conf fc = {.max_routes4 = 1024, .tbl8s4 = 64, .max_nexthops = max_nh};
	struct pctx *p = pctx_create(&fc);
	struct fib_route r;
	struct fr_addr a;

#define R(pfx, t, prt)                                          \
	do {                                                    \
		memset(&r, 0, sizeof(r));                       \
		fr_prefix_parse(pfx, &r.prefix, true);          \
		r.type = t;                                     \
		r.port = prt;                                   \
		assert_int_equal(fib_route_add(p->fib, &r), 0); \
	} while (0)
	R("192.0.2.0/24", FIB_NH_CONNECTED, 0);
	R("192.0.2.1/32", FIB_NH_LOCAL, 0);
	R("198.51.100.0/24", FIB_NH_CONNECTED, 1);
	R("198.51.100.1/32", FIB_NH_LOCAL, 1);
	R("203.0.113.0/24", FIB_NH_BLACKHOLE, FIB_PORT_NONE);
	R("203.0.114.0/24", FIB_NH_UNREACHABLE, FIB_PORT_NONE);
	R("203.0.115.0/24", FIB_NH_PROHIBIT, FIB_PORT_NONE);
	R("255.255.255.255/32", FIB_NH_BROADCAST, FIB_PORT_NONE); /* as main.c installs */
	gw_route_add(p->fib, "10.0.0.0/8", "198.51.100.2");
	fr_addr_parse("198.51.100.2", &a);
	assert_int_equal(neigh_static_set(p->n, &a, 1, &h2_mac), 0);
	*state = p;
	return 0;
}

static int pipe_setup(void **state)
{
	int rc = pipe_setup_nh(state, 0);

	if (rc != 0)
		return rc;
	/* 2-byte entries: the copies with own_lookup 1 */
	assert_int_equal(((struct pctx *)*state)->c.tbl24.shift, 1);
	return 0;
}

/* The same tables with 4-byte DIR-24-8 entries: the data path's copies
 * that read them (dp_burst()'s own_lookup 2) */
static int pipe_setup_4b(void **state)
{
	struct pctx *p;

	pipe_setup_nh(state, 40000);
	p = *state;
	assert_int_equal(p->c.tbl24.shift, 2);
	assert_non_null(p->c.tbl24.tbl8);
	return 0;
}

/* The same tables, looked up through fib4_lookup_bulk() alone: the data
 * path's way when the FIB's second level is not known (rte_lpm, or an
 * rte_fib layout other than DPDK 22.11's) */
static int pipe_setup_bulk(void **state)
{
	struct pctx *p;

	pipe_setup(state);
	p = *state;
	assert_non_null(p->c.tbl24.tbl8); /* the default backend looks up itself */
	p->c.tbl24.tbl8 = NULL;
	return 0;
}

static int pipe_teardown(void **state)
{
	pctx_free(*state);
	return 0;
}

static void test_pipeline(void **state)
{
	struct pctx *p = *state;
	struct rte_mbuf *m[16];
	uint16_t out[16];
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	unsigned int n = 0, i;
	uint32_t unresolved = 0xc6336409; /* 198.51.100.9: connected, no neighbour */

	m[n++] = pkt(0xc0000202, 0x0a010203, 64, 10); /* 0: via gateway h2 */
	m[n++] = pkt(0xc0000202, 0xc6336402, 64, 10); /* 1: connected, h2 */
	m[n++] = pkt(0xc0000202, 0xc0000201, 64, 10); /* 2: local */
	m[n++] = pkt(0xc0000202, 0xcb007101, 64, 10); /* 3: blackhole */
	m[n++] = pkt(0xc0000202, 0xcb007201, 64, 10); /* 4: unreachable */
	m[n++] = pkt(0xc0000202, 0xcb007301, 64, 10); /* 5: prohibit */
	m[n++] = pkt(0xc0000202, 0x08080808, 64, 10); /* 6: no route */
	m[n++] = pkt(0xc0000202, 0x0a010203, 1, 10);  /* 7: TTL 1 */
	m[n++] = pkt(0xc0000202, unresolved, 64, 10); /* 8: unresolved */
	m[n++] = pkt(0xc0000202, 0x0a010203, 64, 10); /* 9: to another MAC */
	rte_pktmbuf_mtod(m[9], struct rte_ether_hdr *)->dst_addr = h2_mac;
	m[n++] = pkt(0xc0000202, 0x0a010203, 64, 10); /* 10: L2 broadcast, unicast IP */
	memset(&rte_pktmbuf_mtod(m[10], struct rte_ether_hdr *)->dst_addr, 0xff, 6);
	m[n++] = pkt(0xc0000202, 0x0a010203, 64, 10); /* 11: ARP */
	rte_pktmbuf_mtod(m[11], struct rte_ether_hdr *)->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	m[n++] = pkt(0xc0000202, 0x0a010203, 64, 10); /* 12: LLDP: an unknown ethertype */
	rte_pktmbuf_mtod(m[12], struct rte_ether_hdr *)->ether_type = RTE_BE16(0x88cc);
	m[n++] = pkt(0xc0000202, 0x0a010203, 64, 10); /* 13: bad checksum */
	iph(m[13])->hdr_checksum ^= 0xffff;
	m[n++] = pkt(0xc0000202, 0xffffffff, 64, 10); /* 14: limited broadcast */
	memset(&rte_pktmbuf_mtod(m[14], struct rte_ether_hdr *)->dst_addr, 0xff, 6);
	m[n++] = pkt(0xc0000202, 0x0a010203, 64, 10); /* 15: 10 bytes, no whole Ethernet header */
	assert_int_equal(rte_pktmbuf_trim(m[15], (uint16_t)(rte_pktmbuf_data_len(m[15]) - 10)), 0);

	/* the burst holds local/ctrl packets to inspect after the call */
	dp_input_burst(&p->c, 0, m, (uint16_t)n, out);

	assert_int_equal(out[0], 1);
	eth = rte_pktmbuf_mtod(m[0], struct rte_ether_hdr *);
	ip = iph(m[0]);
	assert_true(rte_is_same_ether_addr(&eth->dst_addr, &h2_mac));
	assert_true(rte_is_same_ether_addr(&eth->src_addr, &port_mac[1]));
	assert_int_equal(ip->time_to_live, 63);
	assert_int_equal(rte_raw_cksum(ip, sizeof(*ip)), 0xffff);
	assert_int_equal(out[1], 1);
	assert_int_equal(iph(m[1])->time_to_live, 63);
	assert_int_equal(out[2], DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m[2]), CTRL_LOCAL);
	assert_int_equal(iph(m[2])->time_to_live, 64); /* not rewritten */
	for (i = 3; i <= 7; i++)
		assert_int_equal(out[i], DP_OUT_DROP);
	assert_int_equal(out[8], DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m[8]), CTRL_RESOLVE);
	assert_int_equal(out[9], DP_OUT_DROP);
	assert_int_equal(out[10], DP_OUT_DROP);
	assert_int_equal(out[11], DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m[11]), CTRL_ARP);
	assert_int_equal(out[12], DP_OUT_DROP);
	assert_int_equal(out[13], DP_OUT_DROP);
	assert_int_equal(out[14], DP_OUT_CTRL); /* delivered locally, never forwarded */
	assert_int_equal(out[15], DP_OUT_DROP);

	assert_int_equal(p->st.rx, n);
	assert_int_equal(p->st.drop[DROP_BLACKHOLE], 1);
	assert_int_equal(p->st.drop[DROP_UNREACHABLE], 1);
	assert_int_equal(p->st.drop[DROP_PROHIBIT], 1);
	assert_int_equal(p->st.drop[DROP_NO_ROUTE], 1);
	assert_int_equal(p->st.drop[DROP_TTL_EXCEEDED], 1);
	assert_int_equal(p->st.drop[DROP_L2_OTHER_HOST], 1);
	assert_int_equal(p->st.drop[DROP_L2_BCAST_FORWARD], 1);
	assert_int_equal(p->st.drop[DROP_ETHERTYPE], 1);
	assert_int_equal(p->st.drop[DROP_IP4_CHECKSUM], 1);
	assert_int_equal(p->st.drop[DROP_ETH_TOO_SHORT], 1);
	for (i = 0; i < n; i++)
		if (out[i] != DP_OUT_DROP)
			rte_pktmbuf_free(m[i]);
	/* every mbuf is back: drops were freed by the pipeline */
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/* h3, a neighbour on port 0, and the second-level tests' routes: 10.9.0.0/16
 * by h2 (port 1), and by h3 10.9.1.128/25 and 10.9.3.64/26, whose /24s
 * each become a second-level group */
static const struct rte_ether_addr h3_mac = {{0x02, 0, 0, 0, 0x01, 0x03}};

static void second_level_tables(struct pctx *p)
{
	struct fr_addr a;

	gw_route_add(p->fib, "10.9.0.0/16", "198.51.100.2");
	gw_route_add(p->fib, "10.9.1.128/25", "192.0.2.3");
	gw_route_add(p->fib, "10.9.3.64/26", "192.0.2.3");
	fr_addr_parse("192.0.2.3", &a);
	assert_int_equal(neigh_static_set(p->n, &a, 0, &h3_mac), 0);
}

/* A destination whose /24 holds a longer prefix takes the FIB's second
 * level, which the forwarding loop reads after the burst's other packets
 * (dp_burst()'s late[]). In one full burst of both kinds, each packet must
 * still leave by its own route, with its own bytes. */
static void second_level(void **state, bool cache)
{
	/* by fives: in 10.9.1.128/25 (second level, out port 0 to h3), in
	 * the rest of its /24 (second level, port 1 to h2), in a /24 of the
	 * /16 alone (first level, port 1 to h2), in 10.9.3.64/26 (another
	 * group, port 0 to h3), in the rest of that /24 (port 1 to h2) */
	static const uint32_t dst[5] = {0x0a0901c8, 0x0a090105, 0x0a090205, 0x0a090346, 0x0a090305};
	struct pctx *p = *state;
	struct rte_mbuf *m[DP_BURST];
	uint16_t out[DP_BURST];
	struct rtcache *rc = NULL;
	unsigned int i;

	second_level_tables(p);
	if (cache) {
		/* the misses of a cold cache take the same loop, and fill. A
		 * fixed secret, under which the five flows (keyed without the
		 * source: rpf off) take five buckets: with a random one, three
		 * of them (10.9.1.5, 10.9.2.5, 10.9.3.5, keys in a step of 256)
		 * shared a bucket of two ways for about 1 secret in 1,100
		 * (simulated), and one flow missed below */
		rc = rtcache_create(1024, 0, 7);
		assert_non_null(rc);
		for (i = 0; i < 5; i++) {
			unsigned int j;

			for (j = 0; j < i; j++)
				assert_int_not_equal(rtcache_bucket(rc, dst[i], 0, 0),
						     rtcache_bucket(rc, dst[j], 0, 0));
		}
		p->c.rtc = rc;
		p->conf.rtcache_mode = RTCACHE_ON;
	}
	/* the last one, to a group, with TTL 1: dropped, counted, late too */
	for (i = 0; i < DP_BURST; i++)
		m[i] = pkt(0xc0000202, dst[i % 5], (uint8_t)(i == DP_BURST - 1 ? 1 : 100 - i), 10);
	dp_input_burst(&p->c, 0, m, DP_BURST, out);
	assert_int_equal(dst[(DP_BURST - 1) % 5], 0x0a090105);
	assert_int_equal(out[DP_BURST - 1], DP_OUT_DROP);
	assert_int_equal(p->st.drop[DROP_TTL_EXCEEDED], 1);
	for (i = 0; i < DP_BURST - 1; i++) {
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m[i], struct rte_ether_hdr *);
		bool h3 = i % 5 == 0 || i % 5 == 3;

		assert_int_equal(out[i], h3 ? 0 : 1);
		assert_true(rte_is_same_ether_addr(&eth->dst_addr, h3 ? &h3_mac : &h2_mac));
		assert_true(rte_is_same_ether_addr(&eth->src_addr, &port_mac[out[i]]));
		assert_int_equal(iph(m[i])->dst_addr, rte_cpu_to_be_32(dst[i % 5]));
		assert_int_equal(iph(m[i])->time_to_live, 99 - i);
		assert_int_equal(rte_raw_cksum(iph(m[i]), sizeof(struct rte_ipv4_hdr)), 0xffff);
		rte_pktmbuf_free(m[i]);
	}
	assert_int_equal(p->st.rx, DP_BURST);
	for (i = 0; i < DROP_MAX; i++)
		assert_int_equal(p->st.drop[i], i == DROP_TTL_EXCEEDED ? 1 : 0);
	if (cache) {
		/* every forwarded packet probed, missed and filled: the
		 * second burst of the same flows hits */
		for (i = 0; i < DP_BURST; i++)
			m[i] = pkt(0xc0000202, dst[i % 5], 64, 10);
		dp_input_burst(&p->c, 0, m, DP_BURST, out);
		for (i = 0; i < DP_BURST; i++) {
			struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m[i], struct rte_ether_hdr *);
			bool h3 = i % 5 == 0 || i % 5 == 3;

			assert_int_equal(out[i], h3 ? 0 : 1);
			assert_true(rte_is_same_ether_addr(&eth->dst_addr, h3 ? &h3_mac : &h2_mac));
			rte_pktmbuf_free(m[i]);
		}
		assert_int_equal(rc->st.hits, DP_BURST);
		p->c.rtc = NULL;
		rtcache_free(rc);
	}
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

static void test_second_level(void **state)
{
	second_level(state, false);
}

static void test_second_level_cache(void **state)
{
	second_level(state, true);
}

/* The same with strict rpf on the arrival port: a source in a group is
 * read last too, with the destination; each packet passes or fails on its
 * own source. */
static void test_second_level_rpf(void **state)
{
	/* by fours: 192.0.2.2 (a group: the /24 holds 192.0.2.1/32; back
	 * through port 0, passes), 10.9.1.5 (a group, back through port 1,
	 * fails), 10.9.2.5 (first level, port 1, fails), 10.9.1.200 (a group,
	 * port 0, passes) */
	static const uint32_t src[4] = {0xc0000202, 0x0a090105, 0x0a090205, 0x0a0901c8};
	/* by threes: first level to h2, a group to h2, a group to h3 */
	static const uint32_t dst[3] = {0x0a090205, 0x0a090105, 0x0a090346};
	struct pctx *p = *state;
	struct rte_mbuf *m[DP_BURST];
	uint16_t out[DP_BURST];
	unsigned int i, fails = 0;

	second_level_tables(p);
	p->ports[0].rpf = DP_RPF_STRICT;
	for (i = 0; i < DP_BURST; i++)
		m[i] = pkt(src[i % 4], dst[i % 3], 64, 10);
	dp_input_burst(&p->c, 0, m, DP_BURST, out);
	for (i = 0; i < DP_BURST; i++) {
		struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m[i], struct rte_ether_hdr *);
		bool h3 = i % 3 == 2;

		if (i % 4 == 1 || i % 4 == 2) {
			assert_int_equal(out[i], DP_OUT_DROP);
			fails++;
			continue;
		}
		assert_int_equal(out[i], h3 ? 0 : 1);
		assert_true(rte_is_same_ether_addr(&eth->dst_addr, h3 ? &h3_mac : &h2_mac));
		assert_int_equal(iph(m[i])->src_addr, rte_cpu_to_be_32(src[i % 4]));
		rte_pktmbuf_free(m[i]);
	}
	assert_int_equal(p->st.drop[DROP_RPF_STRICT], fails);
	assert_int_equal(p->st.rpf_drop[0][0], fails);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/* The first-octet table behind the martian checks says what RFC 1812 5.3.7
 * says, for every octet (and both ends of each /8). */
static void test_martian_table(void **state)
{
	unsigned int top;

	(void)state;
	for (top = 0; top < 256; top++) {
		bool src = top == 0 || top == 127 || top >= 224; /* 0/8, 127/8, 224/3 */
		bool dst = top == 0 || top == 127 || top >= 240; /* 0/8, 127/8, 240/4 */
		uint32_t lo = top << 24, hi = lo | 0xffffff;

		assert_int_equal(ip4_martian_src(lo), src);
		assert_int_equal(ip4_martian_src(hi), src);
		assert_int_equal(ip4_martian_dst(lo), dst);
		/* the limited broadcast is delivered, not a martian */
		assert_int_equal(ip4_martian_dst(hi), dst && hi != UINT32_MAX);
	}
}

/* Martians, rpf, ICMP handover and MTU, through the same pipeline. */
static void run1(struct pctx *p, struct rte_mbuf *m, uint16_t port, uint16_t *out)
{
	dp_input_burst(&p->c, port, &m, 1, out);
}

/* @m arriving on port @in leaves by port @want (and is freed) */
static void expect_out(struct pctx *p, struct rte_mbuf *m, uint16_t in, uint16_t want)
{
	uint16_t out;

	run1(p, m, in, &out);
	assert_int_equal(out, want);
	rte_pktmbuf_free(m);
}

static void test_martians_rpf(void **state)
{
	struct pctx *p = *state;
	uint16_t out;
	struct rte_mbuf *m;

	/* martian sources and destinations */
	run1(p, pkt(0x7f000001, 0x0a010203, 64, 10), 0, &out); /* from 127.0.0.1 */
	assert_int_equal(out, DP_OUT_DROP);
	run1(p, pkt(0xe0000001, 0x0a010203, 64, 10), 0, &out); /* from multicast */
	assert_int_equal(p->st.drop[DROP_MARTIAN_SRC], 2);
	/* from one of our own addresses, once the router lists them: 48 of
	 * them, 32 in one subnet, so that the filter in front of the list
	 * has bits shared and clear */
	{
		struct dp_local *loc = calloc(1, sizeof(*loc) + 48 * sizeof(uint32_t));
		uint32_t a;

		for (a = 0; a < 32; a++)
			dp_local_add(loc, 0xc0000201 + a); /* 192.0.2.1-32 */
		for (a = 0; a < 16; a++)
			dp_local_add(loc, 0x0a000001 + (a << 16)); /* 10.0-15.0.1 */
		p->conf.local = loc;
		for (a = 0; a < loc->n; a++) {
			run1(p, pkt(loc->addr[a], 0x0a010203, 64, 10), 0, &out);
			assert_int_equal(out, DP_OUT_DROP);
		}
		assert_int_equal(p->st.drop[DROP_MARTIAN_SRC], 2 + 48);
		/* their neighbours are forwarded: 192.0.2.33-160, 10.0-15.0.2 */
		for (a = 0; a < 128 + 16; a++) {
			uint32_t src = a < 128 ? 0xc0000221 + a : 0x0a000002 + ((a - 128) << 16);

			m = pkt(src, 0x0a010203, 64, 10);
			run1(p, m, 0, &out);
			assert_int_equal(out, 1);
			rte_pktmbuf_free(m);
		}
		assert_int_equal(p->st.drop[DROP_MARTIAN_SRC], 2 + 48);
		p->conf.local = NULL;
		free(loc);
	}
	run1(p, pkt(0xc0000202, 0x7f000001, 64, 10), 0, &out);
	run1(p, pkt(0xc0000202, 0x00000001, 64, 10), 0, &out);
	run1(p, pkt(0xc0000202, 0xf0000001, 64, 10), 0, &out);
	assert_int_equal(p->st.drop[DROP_MARTIAN_DST], 3);
	/* a group address in a unicast frame: never forwarded, even where a
	 * route (the default one here) would take it, nor an error sent */
	{
		struct fib_route r = gw_route_add(p->fib, "0.0.0.0/0", "198.51.100.2");

		run1(p, pkt(0xc0000202, 0xef010203, 64, 10), 0, &out); /* 239.1.2.3 */
		assert_int_equal(out, DP_OUT_DROP);
		run1(p, pkt(0xc0000202, 0xe0000005, 64, 10), 0, &out); /* 224.0.0.5 */
		assert_int_equal(out, DP_OUT_DROP);
		assert_int_equal(p->st.drop[DROP_IP4_MCAST], 2);
		m = pkt(0xc0000202, 0xdf010203, 64, 10); /* 223.1.2.3: by the default */
		run1(p, m, 0, &out);
		assert_int_equal(out, 1);
		rte_pktmbuf_free(m);
		assert_int_equal(fib_route_del(p->fib, &r.prefix, NULL), 0);
	}
	/* without a route, and in a multicast frame (OSPF's 224.0.0.5):
	 * counted as multicast too, not as no_route */
	m = pkt(0xc0000202, 0xe0000005, 1, 10);
	{
		static const struct rte_ether_addr grp = {{0x01, 0x00, 0x5e, 0, 0, 5}};

		rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = grp;
	}
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	run1(p, pkt(0xc0000202, 0xe0000005, 64, 10), 0, &out);
	assert_int_equal(p->st.drop[DROP_IP4_MCAST], 4);
	assert_int_equal(p->st.drop[DROP_NO_ROUTE], 0);
	/* from a group source MAC (broadcast, multicast): no station's, so
	 * dropped before anything else, an IPv4 packet to forward and an ARP
	 * frame alike */
	{
		static const struct rte_ether_addr gsrc[3] = {
			{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
			{{0x01, 0x00, 0x5e, 0, 0, 1}},
			{{0x33, 0x33, 0, 0, 0, 1}}};
		unsigned int g;

		for (g = 0; g < RTE_DIM(gsrc); g++) {
			m = pkt(0xc0000202, 0x0a010203, 64, 10);
			rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->src_addr = gsrc[g];
			if (g == 2)
				rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type =
					RTE_BE16(RTE_ETHER_TYPE_ARP);
			run1(p, m, 0, &out);
			assert_int_equal(out, DP_OUT_DROP);
		}
		assert_int_equal(p->st.drop[DROP_L2_GROUP_SOURCE], 3);
	}
	/* switched off, they get through to the lookup */
	p->conf.martians = 0;
	expect_out(p, pkt(0x7f000001, 0x0a010203, 64, 10), 0, 1);
	p->conf.martians = 1;

	/* strict rpf on port 0: 192.0.2.0/24 is back through port 0, 198.51.100.0/24
	 * through port 1, 8.8.8.8 has no route */
	p->ports[0].rpf = DP_RPF_STRICT;
	m = pkt(0xc0000202, 0x0a010203, 64, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, 1); /* good source */
	rte_pktmbuf_free(m);
	run1(p, pkt(0xc6336405, 0x0a010203, 64, 10), 0, &out); /* spoofed: other port */
	assert_int_equal(out, DP_OUT_DROP);
	run1(p, pkt(0x08080808, 0x0a010203, 64, 10), 0, &out); /* no route back */
	assert_int_equal(p->st.drop[DROP_RPF_STRICT], 2);
	assert_int_equal(p->st.rpf_drop[0][0], 2);
	/* in a link-layer broadcast frame, rpf is not asked: to the router's
	 * address the packet is the router's (an ARP-less host's broadcast),
	 * to forward it is never forwarded, counted as that, not as rpf */
	{
		static const struct rte_ether_addr l2_bcast = {
			{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};

		m = pkt(0xc6336405, 0xc0000201, 64, 10); /* to 192.0.2.1, ours */
		rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = l2_bcast;
		run1(p, m, 0, &out);
		assert_int_equal(out, DP_OUT_CTRL);
		assert_int_equal(dp_ctrl_reason(m), CTRL_LOCAL);
		rte_pktmbuf_free(m);
		m = pkt(0xc6336405, 0x0a010203, 64, 10);
		rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = l2_bcast;
		run1(p, m, 0, &out);
		assert_int_equal(out, DP_OUT_DROP);
		assert_int_equal(p->st.drop[DROP_L2_BCAST_FORWARD], 1);
		assert_int_equal(p->st.drop[DROP_RPF_STRICT], 2);
		assert_int_equal(p->st.rpf_drop[0][0], 2);
		/* in a unicast frame, the same packet to the router is
		 * refused by rpf */
		run1(p, pkt(0xc6336405, 0xc0000201, 64, 10), 0, &out);
		assert_int_equal(out, DP_OUT_DROP);
		assert_int_equal(p->st.drop[DROP_RPF_STRICT], 3);
		assert_int_equal(p->st.rpf_drop[0][0], 3);
	}
	/* loose: any route that forwards will do, not a blackhole one */
	p->ports[0].rpf = DP_RPF_LOOSE;
	m = pkt(0xc6336405, 0x0a010203, 64, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, 1);
	rte_pktmbuf_free(m);
	run1(p, pkt(0xcb007105, 0x0a010203, 64, 10), 0, &out); /* from a blackholed net */
	run1(p, pkt(0x08080808, 0x0a010203, 64, 10), 0, &out);
	assert_int_equal(p->st.drop[DROP_RPF_LOOSE], 2);
	/* broadcast destinations are exempt */
	m = pkt(0x08080808, 0xffffffff, 64, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	rte_pktmbuf_free(m);
	p->ports[0].rpf = DP_RPF_OFF;
	/* back out of the port it came in by (its gateway is on the sender's
	 * link): forwarded, nothing handed over (no Redirect is sent) */
	m = pkt(0xc6336405, 0x0a010203, 64, 10);
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = port_mac[1];
	run1(p, m, 1, &out);
	assert_int_equal(out, 1);
	assert_int_equal(iph(m)->time_to_live, 63);
	assert_true(rte_is_same_ether_addr(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
					   &h2_mac));
	rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/* A DF-flagged copy of @m's header, checksum redone. */
static void set_df(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = iph(m);

	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

static void test_icmp_handover_mtu(void **state)
{
	struct pctx *p = *state;
	struct rte_ipv4_hdr *ip;
	struct rte_mbuf *m;
	unsigned int i;
	uint16_t out;

	/* a generous bucket: errors are handed over with their type and code */
	p->conf.icmp_rate = dp_icmp_rate(1, 1u << 23);
	p->c.icmp.left = p->c.icmp_pmtu.left = 1u << 30;
	m = pkt(0xc0000202, 0x0a010203, 1, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL_ERR);
	assert_int_equal(dp_ctrl_reason(m), CTRL_ICMP_ERROR);
	assert_int_equal(dp_ctrl_icmp_type(m), 11);
	assert_int_equal(p->st.drop[DROP_TTL_EXCEEDED], 1);
	rte_pktmbuf_free(m);
	m = pkt(0xc0000202, 0x08080808, 64, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL_ERR);
	assert_int_equal(dp_ctrl_icmp_type(m), 3);
	assert_int_equal(dp_ctrl_icmp_code(m), 0);
	rte_pktmbuf_free(m);
	m = pkt(0xc0000202, 0xcb007301, 64, 10);
	run1(p, m, 0, &out);
	assert_int_equal(dp_ctrl_icmp_code(m), 13);
	rte_pktmbuf_free(m);
	/* never about an ICMP error (RFC 1812 4.3.2.7: destination
	 * unreachable, source quench, redirect, time exceeded, parameter
	 * problem), nor a non-first fragment; an echo request gets one */
	for (i = 0; i < 6; i++) {
		static const uint8_t types[6] = {3, 4, 5, 11, 12, 8};

		m = pkt(0xc0000202, 0x08080808, 64, 10);
		ip = iph(m);
		ip->next_proto_id = IPPROTO_ICMP;
		*(uint8_t *)(ip + 1) = types[i];
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		run1(p, m, 0, &out);
		if (types[i] == 8) {
			assert_int_equal(out, DP_OUT_CTRL_ERR);
			rte_pktmbuf_free(m);
		} else {
			assert_int_equal(out, DP_OUT_DROP);
		}
	}
	assert_int_equal(p->st.icmp_not_sent, 5);
	m = pkt(0xc0000202, 0x08080808, 64, 10);
	ip = iph(m);
	ip->fragment_offset = RTE_BE16(100);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	assert_int_equal(p->st.icmp_not_sent, 6);
	/* MTU: DF set -> 3/4 with the MTU; DF clear -> rewritten, to fragment */
	p->ports[1].mtu = 576;
	m = pkt(0xc0000202, 0x0a010203, 64, 1000);
	ip = iph(m);
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL_ERR);
	assert_int_equal(dp_ctrl_icmp_code(m), 4);
	assert_int_equal(dp_ctrl_aux(m), 576);
	assert_int_equal(p->st.drop[DROP_FRAG_NEEDED], 1);
	rte_pktmbuf_free(m);
	m = pkt(0xc0000202, 0x0a010203, 64, 1000);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m), CTRL_FORWARD);
	assert_int_equal(dp_ctrl_aux(m), 1);
	assert_int_equal(iph(m)->time_to_live, 63);
	rte_pktmbuf_free(m);
	/* too big with DF for a next hop not resolved yet (192.0.2.2 on port
	 * 0): refused at once, not held for the neighbour */
	p->ports[0].mtu = 576;
	m = pkt(0xc6336402, 0xc0000202, 64, 1000);
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = port_mac[1];
	set_df(m);
	run1(p, m, 1, &out);
	assert_int_equal(out, DP_OUT_CTRL_ERR);
	assert_int_equal(dp_ctrl_icmp_code(m), 4);
	assert_int_equal(dp_ctrl_aux(m), 576);
	rte_pktmbuf_free(m);
	p->ports[0].mtu = 1500;
	/* the general bucket empty, path MTU discovery's full: a TTL error
	 * is suppressed, a 3/4 still handed over */
	p->conf.icmp_rate = dp_icmp_rate(1ull << 39, 4);
	p->c.icmp.left = 0;
	p->c.icmp_pmtu.left = 1ull << 41;
	p->c.icmp.last = p->c.icmp_pmtu.last = rte_rdtsc();
	m = pkt(0xc0000202, 0x0a010203, 1, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	assert_int_equal(p->st.icmp_ratelimited, 1);
	m = pkt(0xc0000202, 0x0a010203, 64, 1000);
	set_df(m);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL_ERR);
	assert_int_equal(dp_ctrl_icmp_code(m), 4);
	rte_pktmbuf_free(m);
	/* both empty: dropped and counted, not handed over */
	p->c.icmp.left = p->c.icmp_pmtu.left = 0;
	m = pkt(0xc0000202, 0x0a010203, 64, 1000);
	set_df(m);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	assert_int_equal(p->st.icmp_ratelimited, 2);
	p->ports[1].mtu = 1500;
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/*
 * A port whose link is down: what would leave by it is dropped, port_down,
 * after the checks that answer the sender (TTL), and the sender told host
 * unreachable (3/1); what leaves by another port is not affected; a
 * directed broadcast to its subnet is dropped without an error (counted
 * icmp_not_sent, as every error the rules forbid).
 */
static void test_port_down(void **state)
{
	struct pctx *p = *state;
	struct rte_mbuf *m;
	uint16_t out;

	add_route(p->fib, "198.51.100.255/32", FIB_NH_BROADCAST, 1);
	p->conf.directed_bcast = 1;
	p->conf.icmp_rate = dp_icmp_rate(1, 1u << 23);
	p->c.icmp.left = p->c.icmp_pmtu.left = 1u << 30;
	p->ports[1].down = 1;
	m = pkt(0xc0000202, 0x0a010203, 64, 10); /* via 198.51.100.2 on port 1 */
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL_ERR);
	assert_int_equal(dp_ctrl_icmp_type(m), 3);
	assert_int_equal(dp_ctrl_icmp_code(m), 1);
	assert_int_equal(p->st.drop[DROP_PORT_DOWN], 1);
	rte_pktmbuf_free(m);
	assert_int_equal(p->st.icmp_not_sent, 0);
	m = pkt(0xc0000202, 0xc63364ff, 64, 10); /* 198.51.100.255 */
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	assert_int_equal(p->st.drop[DROP_PORT_DOWN], 2);
	/* the host unreachable it would earn, not sent: said */
	assert_int_equal(p->st.icmp_not_sent, 1);
	m = pkt(0xc0000202, 0x0a010203, 1, 10); /* TTL first: 11/0 */
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL_ERR);
	assert_int_equal(dp_ctrl_icmp_type(m), 11);
	rte_pktmbuf_free(m);
	/* back the other way, to 192.0.2.2 on port 0 (its neighbour is
	 * unknown: to the control thread to resolve, not dropped) */
	m = pkt(0xc6336402, 0xc0000202, 64, 10);
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = port_mac[1];
	run1(p, m, 1, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m), CTRL_RESOLVE);
	rte_pktmbuf_free(m);
	p->ports[1].down = 0;
	m = pkt(0xc0000202, 0x0a010203, 64, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, 1);
	rte_pktmbuf_free(m);
	assert_int_equal(p->st.drop[DROP_PORT_DOWN], 2);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/*
 * RFC 1812 5.3.5.2 directed broadcast to port 1's subnet: for the router
 * while off; on, forwarded as an L2 broadcast like a unicast packet (TTL,
 * fragmented by the control thread when too big with DF clear), but never
 * with an ICMP error about it (4.3.2.7): counted icmp_not_sent instead.
 */
static void test_directed_broadcast(void **state)
{
	static const struct rte_ether_addr l2_bcast = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
	const uint32_t bc = 0xc63364ff; /* 198.51.100.255 */
	struct pctx *p = *state;
	struct rte_mbuf *m;
	uint16_t out;

	add_route(p->fib, "198.51.100.255/32", FIB_NH_BROADCAST, 1);
	/* a generous bucket: any error would be handed over */
	p->conf.icmp_rate = dp_icmp_rate(1, 1u << 23);
	p->c.icmp.left = p->c.icmp_pmtu.left = 1u << 30;
	m = pkt(0xc0000202, bc, 64, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m), CTRL_LOCAL);
	rte_pktmbuf_free(m);
	p->conf.directed_bcast = 1;
	m = pkt(0xc0000202, bc, 64, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, 1);
	assert_true(rte_is_same_ether_addr(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
					   &l2_bcast));
	assert_true(rte_is_same_ether_addr(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->src_addr,
					   &port_mac[1]));
	assert_int_equal(iph(m)->time_to_live, 63);
	assert_true(ip4_cksum20_ok(iph(m))); /* checksum still right */
	rte_pktmbuf_free(m);
	/* with strict rpf on the arrival port, a spoofed source (one routed
	 * back through port 1) is not broadcast onto port 1's subnet */
	p->ports[0].rpf = DP_RPF_STRICT;
	run1(p, pkt(0xc6336405, bc, 64, 10), 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	assert_int_equal(p->st.drop[DROP_RPF_STRICT], 1);
	expect_out(p, pkt(0xc0000202, bc, 64, 10), 0, 1);
	p->ports[0].rpf = DP_RPF_OFF;
	/* from the subnet's own port: for the router */
	m = pkt(0xc6336402, bc, 64, 10);
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = port_mac[1];
	run1(p, m, 1, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m), CTRL_LOCAL);
	rte_pktmbuf_free(m);
	/* TTL 1: dropped, no error */
	m = pkt(0xc0000202, bc, 1, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	assert_int_equal(p->st.drop[DROP_TTL_EXCEEDED], 1);
	assert_int_equal(p->st.icmp_not_sent, 1);
	/* too big with DF: dropped, no error; DF clear: to be fragmented */
	p->ports[1].mtu = 576;
	m = pkt(0xc0000202, bc, 64, 1000);
	set_df(m);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	assert_int_equal(p->st.drop[DROP_FRAG_NEEDED], 1);
	assert_int_equal(p->st.icmp_not_sent, 2);
	m = pkt(0xc0000202, bc, 64, 1000);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m), CTRL_FORWARD);
	assert_int_equal(dp_ctrl_aux(m), 1);
	assert_int_equal(iph(m)->time_to_live, 63);
	assert_true(rte_is_same_ether_addr(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
					   &l2_bcast));
	rte_pktmbuf_free(m);
	p->ports[1].mtu = 1500;
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/* RFC 791 fragmentation: offsets, MF, options by copy bit, payload intact. */
static void test_fragment(void **state)
{
	struct rte_mbuf *m = pkt(0xc0000202, 0x0a010203, 63, 1500), *f[16];
	struct rte_ipv4_hdr *ip = iph(m);
	uint8_t opts[8] = {0x07, 3, 4,	  /* record route: copy bit clear */
			   0x94, 4, 0, 0, /* router alert: copy bit set */
			   0x00};
	uint8_t buf[2000];
	unsigned int i, total = 0;
	int n;

	(void)state;
	/* give the packet 8 bytes of options */
	assert_non_null(rte_pktmbuf_append(m, 8));
	memmove((uint8_t *)(ip + 1) + 8, ip + 1, 1500);
	memcpy(ip + 1, opts, 8);
	ip->version_ihl = 0x47;
	ip->total_length = rte_cpu_to_be_16(28 + 1500);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	assert_int_equal(ip4_fragment(m, 60, test_pool(), f, 16), -E2BIG);
	assert_int_equal(ip4_fragment(m, 30, test_pool(), f, 16), -EINVAL);
	n = ip4_fragment(m, 576, test_pool(), f, 16);
	assert_int_equal(n, 3);
	for (i = 0; i < (unsigned int)n; i++) {
		struct rte_ipv4_hdr *fi = iph(f[i]);
		uint32_t ihl = (fi->version_ihl & 0xf) * 4,
			 len = rte_be_to_cpu_16(fi->total_length);
		uint16_t off = rte_be_to_cpu_16(fi->fragment_offset);

		assert_true(len <= 576);
		assert_int_equal(rte_raw_cksum(fi, ihl), 0xffff);
		assert_int_equal((off & RTE_IPV4_HDR_OFFSET_MASK) * 8, total);
		assert_int_equal(!!(off & RTE_IPV4_HDR_MF_FLAG), i + 1 < (unsigned int)n);
		if (i == 0) {
			assert_int_equal(ihl, 28);
			assert_memory_equal(fi + 1, opts, 8);
		} else {
			/* only router alert (copy bit) follows; padded to 4 */
			assert_int_equal(ihl, 24);
			assert_int_equal(((uint8_t *)(fi + 1))[0], 0x94);
		}
		if (i + 1 < (unsigned int)n)
			assert_int_equal((len - ihl) % 8, 0);
		memcpy(buf + total, (uint8_t *)fi + ihl, len - ihl);
		total += len - ihl;
		assert_int_equal(fi->time_to_live, 63);
		assert_int_equal(fi->packet_id, ip->packet_id);
	}
	assert_int_equal(total, 1500);
	assert_memory_equal(buf, (uint8_t *)ip + 28, 1500);
	rte_pktmbuf_free_bulk(f, (unsigned int)n);
	/* a fragment whose data would end past 65535: its pieces' offsets
	 * would spill into the flags; refused, nothing left allocated */
	ip->fragment_offset = rte_cpu_to_be_16(8125); /* 65000 bytes in */
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	assert_int_equal(ip4_fragment(m, 576, test_pool(), f, 16), -EINVAL);
	/* where it still fits, the pieces carry the original's offset on */
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | 8000);
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	n = ip4_fragment(m, 576, test_pool(), f, 16);
	assert_int_equal(n, 3);
	assert_int_equal(rte_be_to_cpu_16(iph(f[2])->fragment_offset),
			 RTE_IPV4_HDR_MF_FLAG | (8000 + (544 + 552) / 8)); /* 544, 552, 404 */
	rte_pktmbuf_free_bulk(f, (unsigned int)n);
	rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/* RFC 8200 4.5 at the source: the router's own IPv6 packet (an echo reply)
 * cut into fragments with a Fragment header, the payload whole once joined:
 * to 1280 bytes, or to a port's lower MTU (an IPv4 port answering on its
 * link-local address). */
static void test_fragment6(void **state)
{
	static const struct {
		uint16_t mtu;
		int n;
	} cut[] = {{1280, 2}, {576, 3}};
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool()), *f[8];
	const uint32_t plen = 1408;
	struct rte_ipv6_hdr *ip;
	uint8_t *p, buf[2000];
	unsigned int i, k, total;
	int n;

	(void)state;
	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + 40 + plen));
	assert_non_null(p);
	memset(p, 0, 14);
	p[12] = 0x86;
	p[13] = 0xdd;
	ip = (struct rte_ipv6_hdr *)(p + 14);
	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)plen);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 64;
	for (i = 0; i < plen; i++)
		p[54 + i] = (uint8_t)(i * 7);
	/* no room for 8 bytes of payload after the two headers */
	assert_int_equal(ip6_fragment(m, 55, 9, test_pool(), f, 8), -EINVAL);
	/* room for 8: more fragments than the caller holds */
	assert_int_equal(ip6_fragment(m, 56, 9, test_pool(), f, 8), -E2BIG);
	for (k = 0; k < RTE_DIM(cut); k++) {
		n = ip6_fragment(m, cut[k].mtu, 0x01020304, test_pool(), f, 8);
		assert_int_equal(n, cut[k].n);
		for (i = 0, total = 0; i < (unsigned int)n; i++) {
			const struct rte_ipv6_hdr *fi =
				rte_pktmbuf_mtod_offset(f[i], const struct rte_ipv6_hdr *, 14);
			const uint8_t *fh = (const uint8_t *)(fi + 1);
			uint32_t len = rte_be_to_cpu_16(fi->payload_len);
			uint16_t off = (uint16_t)(fh[2] << 8 | fh[3]);

			assert_true(40 + len <= cut[k].mtu);
			assert_int_equal(fi->proto, 44);
			assert_int_equal(fh[0], IPPROTO_ICMPV6);
			assert_int_equal(off & ~7u, total); /* the offset, in bytes */
			assert_int_equal(off & 1, i + 1 < (unsigned int)n);
			assert_memory_equal(fh + 4, "\x01\x02\x03\x04", 4);
			if (i + 1 < (unsigned int)n)
				assert_int_equal((len - 8) % 8, 0);
			assert_int_equal(rte_pktmbuf_data_len(f[i]), 14 + 40 + len);
			memcpy(buf + total, fh + 8, len - 8);
			total += len - 8;
		}
		assert_int_equal(total, plen);
		assert_memory_equal(buf, p + 54, plen);
		rte_pktmbuf_free_bulk(f, (unsigned int)n);
	}
	/* extension headers are not split: refused */
	ip->proto = 60;
	assert_int_equal(ip6_fragment(m, 1280, 9, test_pool(), f, 8), -EINVAL);
	rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/* The route cache: warmed, then every kind of change must show on the very
 * next packet, and the entries it invalidated are counted stale. */
/* @pfx via 192.0.2.9 (port 0, MAC @mac, a static neighbour); @r: the route */
static void gw2_route(struct pctx *p, const char *pfx, const struct rte_ether_addr *mac,
		      struct fib_route *r)
{
	struct fr_addr a;

	fr_addr_parse("192.0.2.9", &a);
	assert_int_equal(neigh_static_set(p->n, &a, 0, mac), 0);
	memset(r, 0, sizeof(*r));
	fr_prefix_parse(pfx, &r->prefix, true);
	r->type = FIB_NH_GATEWAY;
	r->port = FIB_PORT_NONE;
	r->gw = a;
	assert_int_equal(fib_route_add(p->fib, r), 0);
}

static void test_rtcache_coherency(void **state)
{
	struct pctx *p = *state;
	struct rtcache *rc = rtcache_create(1024, 0, 7); /* fixed: the same buckets each run */
	const struct rte_ether_addr gw2_mac = {{0x02, 0, 0, 0, 0x01, 0x09}};
	const struct rte_ether_addr h2_new = {{0x02, 0, 0, 0, 0x02, 0x99}};
	struct fib_route r;
	struct fr_addr a;
	struct rte_mbuf *m;
	uint16_t out;
	uint64_t stale;

#define SEND(src, want_port, want_mac)                                                  \
	do {                                                                            \
		m = pkt(src, 0x0a010203, 64, 10);                                       \
		run1(p, m, 0, &out);                                                    \
		assert_int_equal(out, want_port);                                       \
		if ((want_port) < 2) {                                                  \
			assert_true(rte_is_same_ether_addr(                             \
				&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr, \
				want_mac));                                             \
			assert_int_equal(iph(m)->time_to_live, 63);                     \
			rte_pktmbuf_free(m);                                            \
		}                                                                       \
	} while (0)

	p->c.rtc = rc;
	p->conf.rtcache_mode = RTCACHE_ON;
	SEND(0xc0000202, 1, &h2_mac);
	SEND(0xc0000202, 1, &h2_mac);
	assert_int_equal(rc->st.hits, 1);
	assert_int_equal(rc->st.inserts, 1);
	/* the egress link goes down: the cached decision does not send to it */
	p->ports[1].down = 1;
	SEND(0xc0000202, DP_OUT_DROP, NULL);
	assert_int_equal(p->st.drop[DROP_PORT_DOWN], 1);
	p->ports[1].down = 0;
	SEND(0xc0000202, 1, &h2_mac);

	/* a more specific route appears */
	gw2_route(p, "10.1.2.0/24", &gw2_mac, &r);
	stale = rc->st.stale;
	SEND(0xc0000202, 0, &gw2_mac);
	assert_int_equal(rc->st.stale, stale + 1);
	SEND(0xc0000202, 0, &gw2_mac); /* cached again */
	/* ... and goes away */
	assert_int_equal(fib_route_del(p->fib, &r.prefix, NULL), 0);
	SEND(0xc0000202, 1, &h2_mac);
	assert_int_equal(rc->st.stale, stale + 2);
	/* replaced by a drop route */
	memset(&r, 0, sizeof(r));
	fr_prefix_parse("10.0.0.0/8", &r.prefix, true);
	r.type = FIB_NH_BLACKHOLE;
	assert_int_equal(fib_route_replace(p->fib, &r, NULL), 0);
	SEND(0xc0000202, DP_OUT_DROP, NULL);
	assert_int_equal(p->st.drop[DROP_BLACKHOLE], 1);
	r.type = FIB_NH_GATEWAY;
	r.port = FIB_PORT_NONE;
	fr_addr_parse("198.51.100.2", &r.gw);
	assert_int_equal(fib_route_replace(p->fib, &r, NULL), 0);
	SEND(0xc0000202, 1, &h2_mac);
	SEND(0xc0000202, 1, &h2_mac);
	/* the neighbour's MAC changes: no FIB change, the entry's generation does */
	fr_addr_parse("198.51.100.2", &a);
	assert_int_equal(neigh_static_set(p->n, &a, 1, &h2_new), 0);
	stale = rc->st.stale;
	SEND(0xc0000202, 1, &h2_new);
	assert_int_equal(rc->st.stale, stale + 1);
	/* rpf switched on: a source routed elsewhere is dropped at once */
	SEND(0xc6336405, 1, &h2_new); /* warm, from a source behind port 1 */
	SEND(0xc6336405, 1, &h2_new);
	p->ports[0].rpf = DP_RPF_STRICT;
	SEND(0xc6336405, DP_OUT_DROP, NULL);
	assert_int_equal(p->st.drop[DROP_RPF_STRICT], 1);
	/* with rpf on a hit skips the martian checks (the key holds the
	 * source): turning them on must reach the very next packet. A
	 * loopback source routed back through port 0 is cached while the
	 * checks are off... */
	add_route(p->fib, "127.0.0.0/8", FIB_NH_CONNECTED, 0);
	p->conf.martians = 0;
	SEND(0x7f000005, 1, &h2_new);
	stale = rc->st.hits;
	SEND(0x7f000005, 1, &h2_new);
	assert_int_equal(rc->st.hits, stale + 1);
	/* ... then `set ip martians on` (cmd_txn.c does exactly this) */
	p->conf.martians = 1;
	fib_invalidate(p->fib);
	stale = rc->st.stale;
	SEND(0x7f000005, DP_OUT_DROP, NULL);
	assert_int_equal(p->st.drop[DROP_MARTIAN_SRC], 1);
	assert_int_equal(rc->st.stale, stale + 1);
	p->ports[0].rpf = DP_RPF_OFF;
	assert_true(rc->st.hits >= 4);
	p->c.rtc = NULL;
	rtcache_free(rc);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
#undef SEND
}

/*
 * ICMP Redirects (RFC 1812 5.2.7.2): h1 (192.0.2.2, port 0) sends to
 * 10.1.2.0/24, whose gateway 192.0.2.9 is on h1's own link. With Redirects
 * on for port 0 the packet is rewritten and handed over as CTRL_FORWARD
 * type 5 code 1 (the control thread sends the Redirect, then the packet);
 * otherwise, and when none is due, it leaves by port 0 at once.
 */
/*
 * With the martian checks off, a packet from one of the router's own
 * addresses, or a subnet's broadcast or network address, is forwarded like
 * any other, but no ICMP error about it is handed over, nor a Redirect, and
 * no token is spent on it (icmp_not_sent): the error would be routed back to
 * the router itself. A host's error then still finds the bucket's token.
 */
static void test_own_source_no_error(void **state)
{
	/* 192.0.2.1 (the router's), 192.0.2.255 and 192.0.2.0 (its /24's) */
	static const uint32_t srcs[] = {0xc0000201, 0xc00002ff, 0xc0000200};
	struct pctx *p = *state;
	const struct rte_ether_addr gw2_mac = {{0x02, 0, 0, 0, 0x01, 0x09}};
	struct dp_local *loc = calloc(1, sizeof(*loc) + RTE_DIM(srcs) * sizeof(uint32_t));
	uint64_t ns = p->st.icmp_not_sent, rl = p->st.icmp_ratelimited;
	struct fib_route r;
	struct rte_mbuf *m;
	unsigned int i;
	uint16_t out;

	assert_non_null(loc);
	for (i = 0; i < RTE_DIM(srcs); i++)
		dp_local_add(loc, srcs[i]);
	loc->n_own = 1;
	p->conf.local = loc;
	p->conf.martians = 0;
	p->ports[1].mtu = 576;
	/* one token in each bucket (Packet Too Big's: none), none refilled
	 * within the test */
	p->conf.icmp_rate = dp_icmp_rate(1ull << 39, 1);
	p->c.icmp.left = p->c.icmp_redirect.left = 1ull << 39;
	p->c.icmp_pmtu.left = 0;
	p->c.icmp.last = p->c.icmp_pmtu.last = p->c.icmp_redirect.last = rte_rdtsc();
	for (i = 0; i < RTE_DIM(srcs); i++) {
		/* forwarded */
		expect_out(p, pkt(srcs[i], 0x0a010203, 64, 10), 0, 1);
		/* hop limit, no route, too big with DF: dropped, no error */
		run1(p, pkt(srcs[i], 0x0a010203, 1, 10), 0, &out);
		assert_int_equal(out, DP_OUT_DROP);
		run1(p, pkt(srcs[i], 0x08080808, 64, 10), 0, &out);
		assert_int_equal(out, DP_OUT_DROP);
		m = pkt(srcs[i], 0x0a010203, 64, 1000);
		iph(m)->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
		iph(m)->hdr_checksum = 0;
		iph(m)->hdr_checksum = rte_ipv4_cksum(iph(m));
		run1(p, m, 0, &out);
		assert_int_equal(out, DP_OUT_DROP);
	}
	assert_int_equal(p->st.drop[DROP_TTL_EXCEEDED], RTE_DIM(srcs));
	assert_int_equal(p->st.drop[DROP_NO_ROUTE], RTE_DIM(srcs));
	assert_int_equal(p->st.drop[DROP_FRAG_NEEDED], RTE_DIM(srcs));
	assert_int_equal(p->st.icmp_not_sent, ns + 3 * RTE_DIM(srcs));
	assert_int_equal(p->st.icmp_ratelimited, rl);
	/* the token is still there for a host's error; then it is gone */
	m = pkt(0xc0000202, 0x0a010203, 1, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL_ERR);
	assert_int_equal(dp_ctrl_icmp_type(m), 11);
	rte_pktmbuf_free(m);
	run1(p, pkt(0xc0000202, 0x0a010203, 1, 10), 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	assert_int_equal(p->st.icmp_ratelimited, rl + 1);
	/* back out of port 0 with Redirects on: none to such a source, and
	 * its token is left for a host of the link */
	gw2_route(p, "10.1.2.0/24", &gw2_mac, &r);
	p->ports[0].redirects = 1;
	for (i = 0; i < RTE_DIM(srcs); i++)
		expect_out(p, pkt(srcs[i], 0x0a010203, 64, 10), 0, 0);
	assert_int_equal(p->st.redirects_ratelimited, 0);
	m = pkt(0xc0000202, 0x0a010203, 64, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_icmp_type(m), ICMP_REDIRECT);
	rte_pktmbuf_free(m);
	p->ports[0].redirects = 0;
	p->conf.local = NULL;
	free(loc);
}

static void test_redirect(void **state)
{
	struct pctx *p = *state;
	const struct rte_ether_addr gw2_mac = {{0x02, 0, 0, 0, 0x01, 0x09}};
	struct rtcache *rc = rtcache_create(1024, 0, 7); /* fixed: the same buckets each run */
	struct fib_route r;
	struct rte_mbuf *m;
	uint16_t out;

	gw2_route(p, "10.1.2.0/24", &gw2_mac, &r);
	p->conf.icmp_rate = dp_icmp_rate(1, 1u << 23);
	p->c.icmp_redirect.left = 1u << 30;
	p->c.icmp_redirect.last = rte_rdtsc();
	/* off (the default): forwarded back out, nothing handed over */
	expect_out(p, pkt(0xc0000202, 0x0a010203, 64, 10), 0, 0);
	/* on: handed over, already rewritten for its next hop */
	p->ports[0].redirects = 1;
	m = pkt(0xc0000202, 0x0a010203, 64, 10);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m), CTRL_FORWARD);
	assert_int_equal(dp_ctrl_icmp_type(m), ICMP_REDIRECT);
	assert_int_equal(dp_ctrl_icmp_code(m), 1);
	assert_int_equal(dp_ctrl_aux(m), 0);
	assert_true(rte_is_same_ether_addr(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
					   &gw2_mac));
	assert_int_equal(iph(m)->time_to_live, 63);
	assert_int_equal(rte_ipv4_cksum(iph(m)), 0); /* valid */
	rte_pktmbuf_free(m);
	/* a packet that leaves by another port: no Redirect */
	expect_out(p, pkt(0xc0000202, 0x0a090909, 64, 10), 0, 1);
	/* a sender off the link (its route by a gateway): none either */
	expect_out(p, pkt(0x0a050505, 0x0a010203, 64, 10), 0, 0);
	/* nor about an ICMP error (RFC 1812 4.3.2.7) */
	m = pkt(0xc0000202, 0x0a010203, 64, 10);
	iph(m)->next_proto_id = IPPROTO_ICMP;
	((uint8_t *)(iph(m) + 1))[0] = 3; /* destination unreachable */
	iph(m)->hdr_checksum = 0;
	iph(m)->hdr_checksum = rte_ipv4_cksum(iph(m));
	expect_out(p, m, 0, 0);
	/* out of tokens: forwarded at once, counted */
	p->c.icmp_redirect.left = 0;
	p->c.icmp_redirect.last = rte_rdtsc();
	p->conf.icmp_rate = dp_icmp_rate(1ull << 39, 1);
	expect_out(p, pkt(0xc0000202, 0x0a010203, 64, 10), 0, 0);
	assert_int_equal(p->st.redirects_ratelimited, 1);
	/* the other errors' tokens are not the Redirects' */
	assert_int_equal(p->st.icmp_ratelimited, 0);
	/* with the route cache on, such a flow is never cached: every packet
	 * takes the full path, so a Redirect is sent whenever tokens allow */
	p->c.rtc = rc;
	p->conf.rtcache_mode = RTCACHE_ON;
	expect_out(p, pkt(0xc0000202, 0x0a010203, 64, 10), 0, 0);
	expect_out(p, pkt(0xc0000202, 0x0a010203, 64, 10), 0, 0);
	assert_int_equal(rc->st.inserts, 0);
	assert_int_equal(rc->st.hits, 0);
	/* Redirects off: cached as any other flow */
	p->ports[0].redirects = 0;
	expect_out(p, pkt(0xc0000202, 0x0a010203, 64, 10), 0, 0);
	expect_out(p, pkt(0xc0000202, 0x0a010203, 64, 10), 0, 0);
	assert_int_equal(rc->st.inserts, 1);
	assert_int_equal(rc->st.hits, 1);
	p->c.rtc = NULL;
	rtcache_free(rc);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/*
 * A train of 10 packets of one flow, h1 to 10.1.2.3 (via h2, port 1), but
 * 7, to 10.1.3.9 (via @p gw2_mac, port 0); 3 has TTL 1 and 5 is too big for
 * port 1, its MTU set to 100 for the burst (DF clear: fragmented by the
 * control thread, after the rewrite). Packet @p bcast (10: none) goes to the
 * L2 broadcast address. Runs the burst and checks every verdict and byte.
 */
static void train_burst(struct pctx *p, const struct rte_ether_addr *gw2_mac, unsigned int bcast)
{
	static const struct rte_ether_addr l2_bcast = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
	struct rte_mbuf *m[10];
	uint16_t out[10];
	unsigned int i;

	for (i = 0; i < 10; i++)
		m[i] = pkt(0xc0000202, 0x0a010203, i == 3 ? 1 : 64, i == 5 ? 200 : 10);
	iph(m[7])->dst_addr = rte_cpu_to_be_32(0x0a010309); /* 10.1.3.9 */
	iph(m[7])->hdr_checksum = 0;
	iph(m[7])->hdr_checksum = rte_ipv4_cksum(iph(m[7]));
	if (bcast < 10)
		rte_pktmbuf_mtod(m[bcast], struct rte_ether_hdr *)->dst_addr = l2_bcast;
	p->ports[1].mtu = 100;
	dp_input_burst(&p->c, 0, m, 10, out);
	p->ports[1].mtu = 1500;
	for (i = 0; i < 10; i++) {
		if (i == 3 || i == bcast) {
			assert_int_equal(out[i], DP_OUT_DROP); /* TTL 1; L2 broadcast */
			continue;
		}
		if (i == 5) {
			assert_int_equal(out[i], DP_OUT_CTRL);
			assert_int_equal(dp_ctrl_reason(m[i]), CTRL_FORWARD);
		} else {
			assert_int_equal(out[i], i == 7 ? 0 : 1);
		}
		assert_true(rte_is_same_ether_addr(
			&rte_pktmbuf_mtod(m[i], struct rte_ether_hdr *)->dst_addr,
			i == 7 ? gw2_mac : &h2_mac));
		assert_int_equal(iph(m[i])->time_to_live, 63);
		assert_int_equal(rte_raw_cksum(iph(m[i]), sizeof(struct rte_ipv4_hdr)), 0xffff);
		rte_pktmbuf_free(m[i]);
	}
}

/* A train of one flow in a burst takes its first packet's cache entry; each
 * packet still gets its own TTL and MTU checks, and a packet of another flow
 * in between ends the train. */
static void test_rtcache_train(void **state)
{
	struct pctx *p = *state;
	struct rtcache *rc = rtcache_create(1024, 0, 7); /* fixed: the same buckets each run */
	const struct rte_ether_addr gw2_mac = {{0x02, 0, 0, 0, 0x01, 0x09}};
	struct rte_mbuf *m[1];
	struct fib_route r;
	uint16_t out[1];
	uint64_t hits;

	p->c.rtc = rc;
	p->conf.rtcache_mode = RTCACHE_ON;
	m[0] = pkt(0xc0000202, 0x0a010203, 64, 10);
	dp_input_burst(&p->c, 0, m, 1, out); /* warm: one miss, one insert */
	assert_int_equal(out[0], 1);
	rte_pktmbuf_free(m[0]);
	assert_int_equal(rc->st.inserts, 1);

	/* another flow, to another next hop, breaks the train at 7 */
	gw2_route(p, "10.1.3.0/24", &gw2_mac, &r);
	m[0] = pkt(0xc0000202, 0x0a010203, 64, 10);
	dp_input_burst(&p->c, 0, m, 1, out); /* warm again (the FIB changed) */
	assert_int_equal(out[0], 1);
	rte_pktmbuf_free(m[0]);
	hits = rc->st.hits;
	train_burst(p, &gw2_mac, 10);
	assert_int_equal(p->st.drop[DROP_TTL_EXCEEDED], 1);
	/* 9 hits (all but 7, a new flow); 3 and 5 found the entry valid
	 * but take the full path (TTL, size): hits all the same, so that
	 * lookups = hits + misses + stale */
	assert_int_equal(rc->st.hits, hits + 9);
	assert_int_equal(rc->st.lookups, 2 + 10);
	assert_int_equal(rc->st.lookups, rc->st.hits + rc->st.misses + rc->st.stale);
	assert_int_equal(rc->st.inserts, 3); /* the warm-ups and the new flow */
	p->c.rtc = NULL;
	rtcache_free(rc);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/*
 * A burst probes the route cache warm (each packet once the next one is
 * checked) after a burst that mostly hit, cold (after the whole burst is
 * checked) otherwise. Both give the same verdicts, bytes and counters: the
 * same train burst runs cold twice (an empty cache, then after a burst that
 * all missed), then warm, then warm with an L2 broadcast among its packets
 * (never probed; the packets keep their order).
 */
static void test_rtcache_warm(void **state)
{
	struct pctx *p = *state;
	struct rtcache *rc = rtcache_create(1024, 0, 7); /* fixed: the same buckets each run */
	const struct rte_ether_addr gw2_mac = {{0x02, 0, 0, 0, 0x01, 0x09}};
	struct fib_route r;
	unsigned int round;

	p->c.rtc = rc;
	p->conf.rtcache_mode = RTCACHE_ON;
	gw2_route(p, "10.1.3.0/24", &gw2_mac, &r);
	for (round = 0; round < 4; round++) {
		uint64_t hits = rc->st.hits, lookups = rc->st.lookups, ins = rc->st.inserts;
		uint64_t ttl = p->st.drop[DROP_TTL_EXCEEDED],
			 l2 = p->st.drop[DROP_L2_BCAST_FORWARD];

		/* rounds 0 and 1 run cold (the cache empty, then after a
		 * burst that all missed), 2 and 3 warm */
		assert_int_equal(rc->warm, round >= 2);
		train_burst(p, &gw2_mac, round == 3 ? 4 : 10);
		assert_int_equal(p->st.drop[DROP_TTL_EXCEEDED], ttl + 1);
		assert_int_equal(p->st.drop[DROP_L2_BCAST_FORWARD], l2 + (round == 3));
		/* round 0: every probe misses (the train has no entry until
		 * the burst's fills) and the 8 packets forwarded fill; then
		 * every probe hits, 3 and 5 too, which the entry cannot take
		 * (round 3: the broadcast is not probed) */
		assert_int_equal(rc->st.lookups, lookups + (round == 3 ? 9 : 10));
		assert_int_equal(rc->st.hits, hits + (round == 0 ? 0 : round == 3 ? 9 : 10));
		assert_int_equal(rc->st.lookups, rc->st.hits + rc->st.misses + rc->st.stale);
		assert_int_equal(rc->st.inserts, ins + (round == 0 ? 8 : 0));
	}
	assert_int_equal(rc->warm, 1);
	p->c.rtc = NULL;
	rtcache_free(rc);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/*
 * Auto mode through the data path: the bursts time themselves while a
 * measurement runs, and the side kept is the one its samples found
 * cheaper. A flood of new destinations makes every probe a miss and an
 * insert, so bypassing must win (by about 3x here); it may take up to five
 * measurements to show that verdict once on this shared machine (a wrong
 * comparison or unwired timing shows in none). One flow makes every probe
 * a hit that skips the lookup, but with this test's few routes, all in
 * cache, the lookup it skips costs about what the probe does (within a few
 * cycles of 70, either side from one run to the next): the verdict must
 * follow what each measurement found, with a hit rate of 100%, whichever
 * side won. That a hit pays where lookups cost more is kbench's cache rows.
 */
static void auto_bursts(struct pctx *p, struct rtcache *rc, bool flood, uint64_t *x)
{
	uint64_t before = rc->measurements;

	while (rc->measurements == before) {
		struct rte_mbuf *m[32];
		uint16_t out[32];
		unsigned int i;

		for (i = 0; i < 32; i++) {
			/* a fresh destination in 10/8 each, or 10.1.2.3 */
			*x = *x * 6364136223846793005ull + 1442695040888963407ull;
			m[i] = pkt(0xc0000202,
				   flood ? 0x0a000000 | (uint32_t)(*x >> 40) : 0x0a010203, 64, 10);
		}
		dp_input_burst(&p->c, 0, m, 32, out);
		for (i = 0; i < 32; i++) {
			assert_int_equal(out[i], 1);
			rte_pktmbuf_free(m[i]);
		}
	}
}

static void test_rtcache_auto(void **state)
{
	struct pctx *p = *state;
	struct rtcache *rc = rtcache_create(1024, 0, 7); /* fixed: the same buckets each run */
	uint64_t x = 1, pkts;
	unsigned int tries;
	bool seen;

	p->c.rtc = rc;
	p->conf.rtcache_mode = RTCACHE_AUTO;
	for (tries = 0, seen = false; tries < 5 && !seen; tries++) {
		pkts = p->st.rx;
		auto_bursts(p, rc, true, &x);
		/* a warming sample and 8 timed ones, of at least 1,024 each */
		assert_true(p->st.rx - pkts >= 9 * 1024);
		assert_true(rc->probe_cpp16 > 0 && rc->bypass_cpp16 > 0);
		/* the verdict, the last thing the burst did: the cheaper side */
		assert_int_equal(rc->bypassing, rc->probe_cpp16 > rc->bypass_cpp16);
		print_message("flood: probed %.1f, bypassed %.1f cycles a packet\n",
			      rc->probe_cpp16 / 16.0, rc->bypass_cpp16 / 16.0);
		seen = rc->bypassing;
		rtcache_measure_start(rc);
	}
	assert_true(seen);
	assert_true(rc->verdict_pct < 10); /* the flood's probes missed */
	for (tries = 0; tries < 3; tries++) {
		rtcache_measure_start(rc);
		auto_bursts(p, rc, false, &x);
		print_message("one flow: probed %.1f, bypassed %.1f cycles a packet\n",
			      rc->probe_cpp16 / 16.0, rc->bypass_cpp16 / 16.0);
		assert_true(rc->probe_cpp16 > 0 && rc->bypass_cpp16 > 0);
		assert_int_equal(rc->bypassing, rc->probe_cpp16 > rc->bypass_cpp16);
		assert_int_equal(rc->verdict_pct, 100); /* every probe hit */
	}
	p->c.rtc = NULL;
	rtcache_free(rc);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/*
 * RFC 3927 2.7: nothing from or to 169.254/16 is forwarded, whatever route
 * would take it; a packet for the router's own address in it is for the
 * router (a peering link may be numbered there).
 */
static void test_link_local(void **state)
{
	struct pctx *p = *state;
	struct dp_local *loc = calloc(1, sizeof(*loc) + sizeof(uint32_t));
	struct fib_route r = gw_route_add(p->fib, "0.0.0.0/0", "198.51.100.2");
	struct rte_mbuf *m;
	uint16_t out, rpf;

	assert_non_null(loc);
	add_route(p->fib, "169.254.0.0/16", FIB_NH_CONNECTED, 0);
	add_route(p->fib, "169.254.0.1/32", FIB_NH_LOCAL, 0);
	dp_local_add(loc, 0xa9fe0001); /* 169.254.0.1 */
	loc->n_own = loc->n;
	p->conf.local = loc;
	for (rpf = DP_RPF_OFF; rpf <= DP_RPF_STRICT; rpf += DP_RPF_STRICT) {
		uint64_t base = p->st.drop[DROP_IP4_LINK_LOCAL];

		p->ports[0].rpf = (uint8_t)rpf;
		run1(p, pkt(0xa9fe0102, 0x0a010203, 64, 10), 0, &out); /* 169.254.1.2 -> 10/8 */
		assert_int_equal(out, DP_OUT_DROP);
		run1(p, pkt(0xc0000202, 0xa9fe0707, 64, 10), 0, &out); /* -> 169.254.7.7 */
		assert_int_equal(out, DP_OUT_DROP);
		assert_int_equal(p->st.drop[DROP_IP4_LINK_LOCAL], base + 2);
		/* to our own 169.254.0.1, from the link or not: for us */
		m = pkt(0xa9fe0102, 0xa9fe0001, 64, 10);
		run1(p, m, 0, &out);
		assert_int_equal(out, DP_OUT_CTRL);
		assert_int_equal(dp_ctrl_reason(m), CTRL_LOCAL);
		rte_pktmbuf_free(m);
		m = pkt(0xc0000202, 0xa9fe0001, 64, 10);
		run1(p, m, 0, &out);
		assert_int_equal(out, DP_OUT_CTRL);
		rte_pktmbuf_free(m);
		/* from 169.254 to our address elsewhere (the reply would
		 * leave the link), or to a subnet's broadcast: dropped */
		run1(p, pkt(0xa9fe0102, 0xc0000201, 64, 10), 0, &out);
		assert_int_equal(out, DP_OUT_DROP);
		run1(p, pkt(0xa9fe0102, 0xc63364ff, 64, 10), 0, &out);
		assert_int_equal(out, DP_OUT_DROP);
		assert_int_equal(p->st.drop[DROP_IP4_LINK_LOCAL], base + 4);
	}
	p->ports[0].rpf = DP_RPF_OFF;
	/* 169.253/16 shares the first octet and is forwarded */
	expect_out(p, pkt(0xa9fd0102, 0x0a010203, 64, 10), 0, 1);
	/* with the martian checks off, as the other martians */
	p->conf.martians = 0;
	expect_out(p, pkt(0xa9fe0102, 0x0a010203, 64, 10), 0, 1);
	p->conf.martians = 1;
	p->conf.local = NULL;
	free(loc);
	assert_int_equal(fib_route_del(p->fib, &r.prefix, NULL), 0);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/* A packet from 192.0.2.2 to 10.1.2.3 whose header carries the @len bytes
 * of options at @opt (a multiple of 4), checksum right. */
static struct rte_mbuf *pkt_opts(const uint8_t *opt, uint8_t len)
{
	struct rte_mbuf *m = pkt(0xc0000202, 0x0a010203, 64, (uint16_t)(len + 10));
	struct rte_ipv4_hdr *ip = iph(m);

	memcpy(ip + 1, opt, len);
	ip->version_ihl = (uint8_t)(0x40 | (5 + len / 4));
	ip->hdr_checksum = 0;
	ip->hdr_checksum = (uint16_t)~rte_raw_cksum(ip, 20u + len);
	return m;
}

/* Source routes are dropped (RFC 7126 3.13.2.4), options whose lengths do
 * not add up too; the others pass through the pipeline unchanged. */
static void test_options(void **state)
{
	static const uint8_t lsrr[8] = {0x83, 7, 4, 10, 9, 9, 9, 0};
	static const uint8_t ssrr[8] = {1, 0x89, 3, 4, 0, 0, 0, 0};
	static const uint8_t past[4] = {7, 8, 4, 0};   /* record route, 8 bytes in 4 */
	static const uint8_t one[4] = {1, 1, 0x44, 1}; /* timestamp of length 1 */
	static const uint8_t cut[4] = {1, 1, 1, 7};    /* no room for the length */
	static const uint8_t fine[12] = {1, 7, 7, 4, 0, 0, 0, 0, 0, 0, 0, 0}; /* NOP, RR */
	struct pctx *p = *state;
	struct rte_mbuf *m;
	uint16_t out;

	expect_invalid(pkt_opts(lsrr, sizeof(lsrr)), DROP_IP4_SOURCE_ROUTE);
	expect_invalid(pkt_opts(ssrr, sizeof(ssrr)), DROP_IP4_SOURCE_ROUTE);
	expect_invalid(pkt_opts(past, sizeof(past)), DROP_IP4_BAD_OPTIONS);
	expect_invalid(pkt_opts(one, sizeof(one)), DROP_IP4_BAD_OPTIONS);
	expect_invalid(pkt_opts(cut, sizeof(cut)), DROP_IP4_BAD_OPTIONS);
	/* a total length of 20 under an IHL of 6: the length is what is
	 * wrong (RFC 1812 5.2.2's order), not the "options", which are the
	 * payload's first bytes (an option 4 of length 0x57 here) */
	m = pkt_opts(past, sizeof(past));
	iph(m)->total_length = RTE_BE16(20);
	memcpy(iph(m) + 1, "\x04\x57\x00\x35", 4);
	iph(m)->hdr_checksum = 0;
	iph(m)->hdr_checksum = (uint16_t)~rte_raw_cksum(iph(m), 24);
	expect_invalid(m, DROP_IP4_LENGTH);
	/* through the pipeline: counted under the reason; a source route
	 * naming the router (the destination is then ours) is dropped too */
	run1(p, pkt_opts(lsrr, sizeof(lsrr)), 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	m = pkt_opts(ssrr, sizeof(ssrr));
	iph(m)->dst_addr = RTE_BE32(0xc0000201); /* 192.0.2.1, ours */
	iph(m)->hdr_checksum = 0;
	iph(m)->hdr_checksum = (uint16_t)~rte_raw_cksum(iph(m), 28);
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_DROP);
	assert_int_equal(p->st.drop[DROP_IP4_SOURCE_ROUTE], 2);
	/* a Record Route with room: rewritten (TTL, MACs) and handed to the
	 * control thread, which fills it in, for port 1 */
	m = pkt_opts(fine, sizeof(fine));
	run1(p, m, 0, &out);
	assert_int_equal(out, DP_OUT_CTRL);
	assert_int_equal(dp_ctrl_reason(m), CTRL_FORWARD);
	assert_int_equal(dp_ctrl_aux(m), 1);
	assert_int_equal(iph(m)->time_to_live, 63);
	assert_int_equal(memcmp(iph(m) + 1, fine, sizeof(fine)), 0);
	assert_int_equal(rte_raw_cksum(iph(m), 32), 0xffff); /* still right */
	rte_pktmbuf_free(m);
	/* one already full, and options with nothing to write: forwarded
	 * by the worker, unchanged */
	for (int k = 0; k < 2; k++) {
		static const uint8_t full[8] = {7, 7, 8, 1, 2, 3, 4, 0};
		static const uint8_t alert[4] = {0x94, 4, 0, 0};

		m = k ? pkt_opts(alert, sizeof(alert)) : pkt_opts(full, sizeof(full));
		run1(p, m, 0, &out);
		assert_int_equal(out, 1);
		assert_int_equal(memcmp(iph(m) + 1, k ? alert : full, k ? 4 : 8), 0);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(rte_mempool_in_use_count(test_pool()), 0);
}

/* The format of Record Route and Timestamp (RFC 791 3.1): each malformed
 * one refused, the offset of the octet in error given for 12/0. */
static void test_option_formats(void **state)
{
	static const struct {
		uint8_t o[12];
		uint32_t len;
		enum dp_drop want;
		uint32_t at;
	} cases[] = {
		{{7, 7, 4, 0, 0, 0, 0, 0}, 8, DROP_MAX, 0},		/* RR, one slot */
		{{7, 3, 4, 0}, 4, DROP_MAX, 0},				/* RR, no room: full */
		{{7, 7, 8, 1, 2, 3, 4, 0}, 8, DROP_MAX, 0},		/* RR, full */
		{{7, 2, 0, 0}, 4, DROP_IP4_BAD_OPTIONS, 1},		/* RR without a pointer */
		{{7, 7, 3, 0, 0, 0, 0, 0}, 8, DROP_IP4_BAD_OPTIONS, 2}, /* pointer 3 */
		{{7, 8, 6, 0, 0, 0, 0, 0}, 8, DROP_IP4_BAD_OPTIONS, 2}, /* 3 bytes left */
		{{1, 7, 7, 4, 0, 0, 0, 0, 7, 3, 4, 0}, 12, DROP_IP4_BAD_OPTIONS, 8}, /* twice */
		/* twice, the second malformed too (pointer 3): the repeat, at its type */
		{{7, 3, 4, 7, 7, 3, 0, 0, 0, 0, 0, 0}, 12, DROP_IP4_BAD_OPTIONS, 3},
		{{0x44, 8, 5, 0, 0, 0, 0, 0}, 8, DROP_MAX, 0},		     /* TS, one slot */
		{{0x44, 12, 5, 1, 0, 0, 0, 0, 0, 0, 0, 0}, 12, DROP_MAX, 0}, /* flag 1 */
		{{0x44, 4, 5, 0xe0}, 4, DROP_MAX, 0},			     /* full, overflow 14 */
		{{0x44, 4, 5, 0xf0}, 4, DROP_IP4_BAD_OPTIONS, 3},	     /* overflow 15 */
		{{0x44, 3, 5, 0}, 4, DROP_IP4_BAD_OPTIONS, 1},		     /* too short */
		{{0x44, 8, 4, 0, 0, 0, 0, 0}, 8, DROP_IP4_BAD_OPTIONS, 2},   /* pointer 4 */
		{{0x44, 8, 5, 2, 0, 0, 0, 0}, 8, DROP_IP4_BAD_OPTIONS, 3},   /* flag 2 */
		{{0x44, 8, 5, 1, 0, 0, 0, 0}, 8, DROP_IP4_BAD_OPTIONS, 2},   /* flag 1, 4 left */
		{{0x44, 4, 5, 0xe0, 0x44, 4, 5, 0}, 8, DROP_IP4_BAD_OPTIONS, 4}, /* TS twice */
		/* source routes: dropped by policy, but a malformed one is 12/0 */
		{{0x83, 7, 4, 10, 1, 1, 1, 0}, 8, DROP_IP4_SOURCE_ROUTE, 0},
		{{0x89, 7, 8, 10, 1, 1, 1, 0}, 8, DROP_IP4_SOURCE_ROUTE, 0}, /* completed */
		{{0x83, 7, 3, 10, 1, 1, 1, 0}, 8, DROP_IP4_BAD_OPTIONS, 2},  /* pointer 3 */
		{{1, 0x89, 2, 0}, 4, DROP_IP4_BAD_OPTIONS, 2},		     /* no pointer */
		/* the options after a source route are checked still (as Linux) */
		{{0x83, 7, 4, 10, 1, 1, 1, 7, 3, 4, 0, 0}, 12, DROP_IP4_SOURCE_ROUTE, 0},
		{{0x83, 7, 4, 10, 1, 1, 1, 0x44, 0x20, 5, 0, 0}, 12, DROP_IP4_BAD_OPTIONS, 8},
		{{0x83, 3, 4, 0x89, 3, 4, 0, 0}, 8, DROP_IP4_BAD_OPTIONS, 3}, /* two */
	};
	unsigned int k;

	(void)state;
	for (k = 0; k < RTE_DIM(cases); k++) {
		uint32_t at = 99;
		enum dp_drop w = ip4_options_check(cases[k].o, cases[k].len, &at);

		if (w != cases[k].want || (w == DROP_IP4_BAD_OPTIONS && at != cases[k].at))
			fail_msg("case %u: %s at %u, want %s at %u", k, dp_drop_names[w], at,
				 dp_drop_names[cases[k].want], cases[k].at);
	}
}

static bool own_10_9(const void *arg, uint32_t a)
{
	(void)arg;
	return a == 0x0a090909;
}

/* ip4_options_fill(): what the control thread writes, checksum right. */
static void test_option_fill(void **state)
{
	struct {
		uint8_t o[20];
		uint8_t len;
		unsigned int want;
		uint8_t after[20];
	} cases[] = {
		/* NOP, RR with two slots: the first gets 198.51.100.1 */
		{{1, 7, 11, 4, 0, 0, 0, 0, 0, 0, 0, 0},
		 12,
		 IP4_FILLED_RR,
		 {1, 7, 11, 8, 198, 51, 100, 1, 0, 0, 0, 0}},
		/* RR full: as it was */
		{{7, 7, 8, 1, 2, 3, 4, 0}, 8, 0, {7, 7, 8, 1, 2, 3, 4, 0}},
		/* TS flag 0 */
		{{0x44, 8, 5, 0, 0, 0, 0, 0},
		 8,
		 IP4_FILLED_TS,
		 {0x44, 8, 9, 0, 0, 0x12, 0x34, 0x56}},
		/* TS flag 1: address, then time */
		{{0x44, 12, 5, 1, 0, 0, 0, 0, 0, 0, 0, 0},
		 12,
		 IP4_FILLED_TS,
		 {0x44, 12, 13, 1, 198, 51, 100, 1, 0, 0x12, 0x34, 0x56}},
		/* TS flag 3: the slot names another host: nothing; then ours */
		{{0x44, 20, 5, 3, 10, 1, 1, 1, 0, 0, 0, 0, 10, 9, 9, 9, 0, 0, 0, 0},
		 20,
		 0,
		 {0x44, 20, 5, 3, 10, 1, 1, 1, 0, 0, 0, 0, 10, 9, 9, 9, 0, 0, 0, 0}},
		{{0x44, 20, 13, 3, 10, 1, 1, 1, 0, 0, 0, 0, 10, 9, 9, 9, 0, 0, 0, 0},
		 20,
		 IP4_FILLED_TS,
		 {0x44, 20, 21, 3, 10, 1, 1, 1, 0, 0, 0, 0, 10, 9, 9, 9, 0, 0x12, 0x34, 0x56}},
		/* TS full: its overflow count goes 2 -> 3 */
		{{0x44, 4, 5, 0x21}, 4, IP4_FILLED_TS_OVERFLOW, {0x44, 4, 5, 0x31}},
		/* both */
		{{7, 3, 4, 0x44, 8, 5, 0, 0, 0, 0, 0, 0},
		 12,
		 IP4_FILLED_TS,
		 {7, 3, 4, 0x44, 8, 9, 0, 0, 0x12, 0x34, 0x56, 0}},
	};
	unsigned int k;

	(void)state;
	for (k = 0; k < RTE_DIM(cases); k++) {
		struct rte_mbuf *m = pkt_opts(cases[k].o, cases[k].len);
		struct rte_ipv4_hdr *ip = iph(m);
		uint32_t at;
		unsigned int got;

		assert_int_equal(ip4_options_check(cases[k].o, cases[k].len, &at), DROP_MAX);
		assert_int_equal(ip4_options_to_fill(ip), cases[k].want != 0 || k == 4);
		got = ip4_options_fill(ip, 0xc6336401, 0x123456, own_10_9, NULL);
		if (got != cases[k].want || memcmp(ip + 1, cases[k].after, cases[k].len) != 0)
			fail_msg("case %u: filled %#x, want %#x", k, got, cases[k].want);
		assert_int_equal(rte_raw_cksum(ip, 20u + cases[k].len), 0xffff);
		rte_pktmbuf_free(m);
	}
	/* no address of the router's: Record Route and flag 1 left alone */
	{
		static const uint8_t rr[8] = {7, 7, 4, 0, 0, 0, 0, 0};
		struct rte_mbuf *m = pkt_opts(rr, sizeof(rr));

		assert_int_equal(ip4_options_fill(iph(m), 0, 1, NULL, NULL), 0);
		assert_memory_equal(iph(m) + 1, rr, sizeof(rr));
		rte_pktmbuf_free(m);
	}
	assert_true(ip4_ts_now() < 24u * 3600 * 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_ttl_checksum),
		cmocka_unit_test(test_martian_table),
		cmocka_unit_test(test_option_formats),
		cmocka_unit_test(test_option_fill),
		cmocka_unit_test_setup_teardown(test_pipeline, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_pipeline, pipe_setup_bulk, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_pipeline, pipe_setup_4b, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_second_level, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_second_level, pipe_setup_4b, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_second_level, pipe_setup_bulk, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_second_level_cache, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_second_level_cache, pipe_setup_4b,
						pipe_teardown),
		cmocka_unit_test_setup_teardown(test_second_level_rpf, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_second_level_rpf, pipe_setup_4b,
						pipe_teardown),
		cmocka_unit_test_setup_teardown(test_second_level_rpf, pipe_setup_bulk,
						pipe_teardown),
		cmocka_unit_test_setup_teardown(test_martians_rpf, pipe_setup_4b, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_rtcache_coherency, pipe_setup_4b,
						pipe_teardown),
		cmocka_unit_test_setup_teardown(test_martians_rpf, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_martians_rpf, pipe_setup_bulk, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_icmp_handover_mtu, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_icmp_handover_mtu, pipe_setup_bulk,
						pipe_teardown),
		cmocka_unit_test_setup_teardown(test_directed_broadcast, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_port_down, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_port_down, pipe_setup_bulk, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_directed_broadcast, pipe_setup_bulk,
						pipe_teardown),
		cmocka_unit_test_setup_teardown(test_link_local, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_link_local, pipe_setup_bulk, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_options, pipe_setup, pipe_teardown),
		cmocka_unit_test(test_fragment),
		cmocka_unit_test(test_fragment6),
		cmocka_unit_test_setup_teardown(test_rtcache_coherency, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_redirect, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_own_source_no_error, pipe_setup,
						pipe_teardown),
		cmocka_unit_test_setup_teardown(test_redirect, pipe_setup_4b, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_redirect, pipe_setup_bulk, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_rtcache_train, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_rtcache_warm, pipe_setup, pipe_teardown),
		cmocka_unit_test_setup_teardown(test_rtcache_auto, pipe_setup, pipe_teardown),
	};

	test_eal_init("ip4");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
