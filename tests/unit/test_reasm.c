/* SPDX-License-Identifier: BSD-3-Clause */
/* Reassembly of the datagrams for the router (app/reasm.c): whole datagrams
 * out of fragments in any order, their bytes and headers; copies, overlaps,
 * malformed pieces, timeouts and the limits, each counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "eal_helper.h"
#include "reasm.h"
#include "stats.h"

static uint64_t drop[CDROP_MAX];
static struct reasm *ra;

static int setup(void **state)
{
	(void)state;
	memset(drop, 0, sizeof(drop));
	ra = reasm_create();
	return ra == NULL;
}

static int teardown(void **state)
{
	(void)state;
	reasm_free(ra, drop);
	return 0;
}

/* The byte at @off of a test datagram's payload. */
static uint8_t pat(uint32_t off)
{
	return (uint8_t)(off * 7 + 3);
}

/* The source of frag4()'s fragments (host order) */
static uint32_t src4 = 0xc0000202;

/* An IPv4 fragment of datagram @id: payload bytes @off to @off + @len. */
static struct rte_mbuf *frag4(uint16_t id, uint32_t off, uint32_t len, bool more)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool());
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(RTE_ETHER_HDR_LEN + 20 + len));
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
	uint32_t i;

	assert_non_null(p);
	memset(p, 0, RTE_ETHER_HDR_LEN);
	((struct rte_ether_hdr *)p)->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + len));
	ip->packet_id = rte_cpu_to_be_16(id);
	ip->fragment_offset =
		rte_cpu_to_be_16((uint16_t)(off / 8 | (more ? RTE_IPV4_HDR_MF_FLAG : 0)));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rte_cpu_to_be_32(src4);
	ip->dst_addr = RTE_BE32(0xc0000201);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	for (i = 0; i < len; i++)
		p[RTE_ETHER_HDR_LEN + 20 + i] = pat(off + i);
	return m;
}

/* An IPv6 fragment: a hop-by-hop header (8 bytes) unless @bare, the
 * Fragment header, then payload bytes @off to @off + @len of packet @id. */
static struct rte_mbuf *frag6_of(uint32_t id, uint32_t off, uint32_t len, bool more, bool bare)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool());
	uint8_t *p =
		(uint8_t *)rte_pktmbuf_append(m, (uint16_t)(RTE_ETHER_HDR_LEN + 40 + 16 + len));
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);
	uint8_t *h = (uint8_t *)(ip + 1);
	uint32_t i;

	assert_non_null(p);
	memset(p, 0, RTE_ETHER_HDR_LEN + 40 + 16);
	((struct rte_ether_hdr *)p)->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(16 + len));
	ip->proto = IPPROTO_HOPOPTS;
	ip->hop_limits = 64;
	ip->src_addr[0] = 0x20;
	ip->src_addr[15] = 2;
	ip->dst_addr[0] = 0x20;
	ip->dst_addr[15] = 1;
	h[0] = IPPROTO_FRAGMENT; /* hop-by-hop: next header, length 0, PadN */
	h[2] = 1;
	h[3] = 4;
	h[8] = IPPROTO_ICMPV6; /* the Fragment header */
	h[10] = (uint8_t)(off >> 8);
	h[11] = (uint8_t)((off & 0xf8) | (more ? 1 : 0));
	memcpy(h + 12, &id, 4);
	for (i = 0; i < len; i++)
		h[16 + i] = pat(off + i);
	if (bare) { /* the hop-by-hop header out */
		ip->proto = IPPROTO_FRAGMENT;
		memmove(h, h + 8, 8 + len);
		rte_pktmbuf_trim(m, 8);
		ip->payload_len = rte_cpu_to_be_16((uint16_t)(8 + len));
	}
	return m;
}

static struct rte_mbuf *frag6(uint32_t id, uint32_t off, uint32_t len, bool more)
{
	return frag6_of(id, off, len, more, false);
}

/* A whole datagram's payload of @len bytes after @hlen bytes of headers. */
static void check_payload(const struct rte_mbuf *m, uint32_t hlen, uint32_t len)
{
	uint8_t buf[8192];
	const uint8_t *d;
	uint32_t i;

	assert_int_equal(rte_pktmbuf_pkt_len(m), hlen + len);
	assert_true(len <= sizeof(buf));
	d = rte_pktmbuf_read(m, hlen, len, buf);
	assert_non_null(d);
	for (i = 0; i < len; i++)
		assert_int_equal(d[i], pat(i));
}

static uint64_t drops(void)
{
	return drop[CDROP_REASM_MALFORMED] + drop[CDROP_REASM_OVERLAP] + drop[CDROP_REASM_TIMEOUT] +
	       drop[CDROP_REASM_OVER_LIMIT];
}

static void test_any_order(void **state)
{
	struct rte_mbuf *w;
	struct rte_ipv4_hdr *ip;
	uint16_t sum;

	(void)state;
	assert_null(reasm4_input(ra, frag4(7, 2960, 40, false), 1, drop));
	assert_null(reasm4_input(ra, frag4(7, 0, 1480, true), 2, drop));
	assert_int_equal(reasm_pending(ra), 1);
	assert_int_equal(reasm_mbufs(ra), 2);
	/* another datagram meanwhile, the same addresses and another id */
	assert_null(reasm4_input(ra, frag4(8, 0, 8, true), 3, drop));
	w = reasm4_input(ra, frag4(7, 1480, 1480, true), 4, drop);
	assert_non_null(w);
	ip = rte_pktmbuf_mtod_offset(w, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	assert_int_equal(rte_be_to_cpu_16(ip->total_length), 20 + 3000);
	assert_int_equal(ip->fragment_offset, 0);
	assert_int_equal(rte_be_to_cpu_16(ip->packet_id), 7);
	sum = ip->hdr_checksum;
	ip->hdr_checksum = 0;
	assert_int_equal(rte_ipv4_cksum(ip), sum);
	assert_int_equal(w->nb_segs, 3);
	check_payload(w, RTE_ETHER_HDR_LEN + 20, 3000);
	rte_pktmbuf_free(w);
	assert_int_equal(reasm_pending(ra), 1);
	assert_int_equal(reasm_mbufs(ra), 1);
	assert_int_equal(drops(), 0);
}

static void test_copy_and_overlap(void **state)
{
	struct rte_mbuf *w;
	uint64_t n;

	(void)state;
	/* an exact copy: itself dropped */
	assert_null(reasm4_input(ra, frag4(1, 0, 16, true), 1, drop));
	assert_null(reasm4_input(ra, frag4(1, 0, 16, true), 1, drop));
	assert_int_equal(drop[CDROP_REASM_OVERLAP], 1);
	w = reasm4_input(ra, frag4(1, 16, 5, false), 1, drop);
	assert_non_null(w);
	assert_int_equal(w->nb_segs, 1); /* it fits one mbuf: made one */
	check_payload(w, RTE_ETHER_HDR_LEN + 20, 21);
	rte_pktmbuf_free(w);
	/* [0, 24) and [16, 40): both go, whichever came first */
	assert_null(reasm4_input(ra, frag4(2, 16, 24, false), 1, drop));
	assert_null(reasm4_input(ra, frag4(2, 0, 24, true), 1, drop));
	assert_int_equal(drop[CDROP_REASM_OVERLAP], 3);
	/* the same start, another end */
	assert_null(reasm4_input(ra, frag4(3, 0, 16, true), 1, drop));
	assert_null(reasm4_input(ra, frag4(3, 0, 24, true), 1, drop));
	assert_int_equal(drop[CDROP_REASM_OVERLAP], 5);
	/* the same range with other data (RFC 5722 4: an overlap, not a
	 * copy): the held piece goes with it, the whole datagram */
	assert_null(reasm4_input(ra, frag4(4, 16, 8, true), 1, drop));
	w = frag4(4, 16, 8, true);
	rte_pktmbuf_mtod_offset(w, uint8_t *, RTE_ETHER_HDR_LEN + 20)[7] ^= 1;
	assert_null(reasm4_input(ra, w, 1, drop));
	assert_int_equal(drop[CDROP_REASM_OVERLAP], 7);
	assert_int_equal(reasm_pending(ra), 0);
	/* the same range as the first piece, data equal but for its last
	 * byte (the held first keeps its headers in front) */
	assert_null(reasm4_input(ra, frag4(5, 0, 16, true), 1, drop));
	w = frag4(5, 0, 16, true);
	rte_pktmbuf_mtod_offset(w, uint8_t *, RTE_ETHER_HDR_LEN + 20)[15] ^= 0x80;
	assert_null(reasm4_input(ra, w, 1, drop));
	assert_int_equal(drop[CDROP_REASM_OVERLAP], 9);
	/* the same range and data, another More Fragments flag: an overlap
	 * too, whichever came first */
	assert_null(reasm4_input(ra, frag4(6, 8, 8, false), 1, drop));
	assert_null(reasm4_input(ra, frag4(6, 8, 8, true), 1, drop));
	assert_null(reasm4_input(ra, frag4(7, 8, 8, true), 1, drop));
	assert_null(reasm4_input(ra, frag4(7, 8, 8, false), 1, drop));
	assert_int_equal(drop[CDROP_REASM_OVERLAP], 13);
	/* an exact copy of the last piece: itself dropped, and the datagram
	 * completes */
	assert_null(reasm4_input(ra, frag4(8, 8, 8, false), 1, drop));
	assert_null(reasm4_input(ra, frag4(8, 8, 8, false), 1, drop));
	assert_int_equal(drop[CDROP_REASM_OVERLAP], 14);
	w = reasm4_input(ra, frag4(8, 0, 8, true), 1, drop);
	assert_non_null(w);
	check_payload(w, RTE_ETHER_HDR_LEN + 20, 16);
	rte_pktmbuf_free(w);
	assert_int_equal(reasm_pending(ra), 0);
	assert_int_equal(reasm_mbufs(ra), 0);
	/* RFC 5722 3: the fragments of a datagram dropped for an overlap
	 * that come later are dropped too, until its time runs out (id 2
	 * above): its missing pieces put nothing together */
	n = drop[CDROP_REASM_OVERLAP];
	assert_null(reasm4_input(ra, frag4(2, 0, 16, true), 2, drop));
	assert_null(reasm4_input(ra, frag4(2, 16, 24, false), 2, drop));
	assert_int_equal(drop[CDROP_REASM_OVERLAP], n + 2);
	assert_int_equal(reasm_pending(ra), 0);
	assert_int_equal(reasm_mbufs(ra), 0);
	/* its time out, nothing for a Time Exceeded; then the id is new */
	assert_null(reasm_expire(ra, 1 + REASM4_TIMEOUT_MS, drop));
	assert_int_equal(drop[CDROP_REASM_TIMEOUT], 0);
	assert_null(reasm4_input(ra, frag4(2, 16, 24, false), 1 + REASM4_TIMEOUT_MS, drop));
	w = reasm4_input(ra, frag4(2, 0, 16, true), 1 + REASM4_TIMEOUT_MS, drop);
	assert_non_null(w);
	check_payload(w, RTE_ETHER_HDR_LEN + 20, 40);
	rte_pktmbuf_free(w);
	assert_int_equal(drop[CDROP_REASM_OVERLAP], n + 2);
}

static void test_malformed(void **state)
{
	(void)state;
	/* not a multiple of 8 before the last; past 65,535 bytes */
	assert_null(reasm4_input(ra, frag4(1, 0, 12, true), 1, drop));
	assert_null(reasm4_input(ra, frag4(1, 65528, 16, false), 1, drop));
	assert_int_equal(drop[CDROP_REASM_MALFORMED], 2);
	assert_int_equal(reasm_pending(ra), 0);
	/* two last pieces that disagree: the datagram goes */
	assert_null(reasm4_input(ra, frag4(2, 0, 8, true), 1, drop));
	assert_null(reasm4_input(ra, frag4(2, 16, 8, false), 1, drop));
	assert_null(reasm4_input(ra, frag4(2, 32, 8, false), 1, drop));
	assert_int_equal(drop[CDROP_REASM_MALFORMED], 5);
	/* data past the length the last piece gave */
	assert_null(reasm4_input(ra, frag4(4, 8, 8, false), 1, drop));
	assert_null(reasm4_input(ra, frag4(4, 16, 8, true), 1, drop));
	assert_int_equal(drop[CDROP_REASM_MALFORMED], 7);
	assert_int_equal(reasm_pending(ra), 0);
	assert_int_equal(reasm_mbufs(ra), 0);
}

static void test_timeout(void **state)
{
	struct rte_mbuf *m;
	struct rte_ipv4_hdr *ip;

	(void)state;
	assert_null(reasm4_input(ra, frag4(1, 0, 8, true), 1000, drop));
	assert_null(reasm4_input(ra, frag4(1, 16, 8, false), 1500, drop));
	/* without its first piece: nothing to say a Time Exceeded about */
	assert_null(reasm4_input(ra, frag4(2, 8, 8, false), 1000, drop));
	assert_null(reasm_expire(ra, 1000 + REASM4_TIMEOUT_MS - 1, drop));
	assert_int_equal(reasm_pending(ra), 2);
	m = reasm_expire(ra, 1000 + REASM4_TIMEOUT_MS, drop);
	assert_non_null(m);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	/* the first fragment, as it came */
	assert_int_equal(rte_be_to_cpu_16(ip->packet_id), 1);
	assert_int_equal(rte_be_to_cpu_16(ip->fragment_offset), RTE_IPV4_HDR_MF_FLAG);
	assert_int_equal(rte_pktmbuf_pkt_len(m), RTE_ETHER_HDR_LEN + 28);
	rte_pktmbuf_free(m);
	assert_null(reasm_expire(ra, 1000 + REASM4_TIMEOUT_MS, drop));
	assert_int_equal(drop[CDROP_REASM_TIMEOUT], 3);
	assert_int_equal(reasm_pending(ra), 0);
	assert_int_equal(reasm_mbufs(ra), 0);
	/* 'set ip reassembly-timeout 2': datagrams begun from then on, both
	 * families; an IPv6 first fragment comes back for its 3/1 */
	assert_null(reasm4_input(ra, frag4(3, 0, 8, true), 5000, drop));
	reasm_timeout_set(ra, 2);
	assert_null(reasm6_input(ra, frag6(3, 0, 8, true), 8, 40, 5000, drop));
	assert_null(reasm4_input(ra, frag4(4, 0, 8, true), 5000, drop));
	assert_null(reasm_expire(ra, 6999, drop));
	m = reasm_expire(ra, 7000, drop);
	assert_non_null(m);
	assert_int_equal(((const struct rte_ether_hdr *)rte_pktmbuf_mtod(m, void *))->ether_type,
			 RTE_BE16(RTE_ETHER_TYPE_IPV6));
	rte_pktmbuf_free(m);
	m = reasm_expire(ra, 7000, drop);
	assert_non_null(m);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	assert_int_equal(rte_be_to_cpu_16(ip->packet_id), 4);
	rte_pktmbuf_free(m);
	assert_int_equal(reasm_pending(ra), 1); /* id 3, begun under 30 s */
	reasm_timeout_set(ra, 0);
	m = reasm_expire(ra, 5000 + REASM4_TIMEOUT_MS, drop);
	assert_non_null(m);
	rte_pktmbuf_free(m);
	assert_int_equal(reasm_pending(ra), 0);
	assert_int_equal(drop[CDROP_REASM_TIMEOUT], 6);
}

static void test_limits(void **state)
{
	unsigned int i, d;

	(void)state;
	/* one datagram more than the table holds, each of its own source:
	 * the oldest goes */
	for (i = 0; i < REASM_DATAGRAMS + 1; i++) {
		src4 = 0xc0000210 + i;
		assert_null(reasm4_input(ra, frag4((uint16_t)i, 0, 8, true), i, drop));
	}
	assert_int_equal(reasm_pending(ra), REASM_DATAGRAMS);
	assert_int_equal(drop[CDROP_REASM_OVER_LIMIT], 1);
	src4 = 0xc0000202;
	rte_pktmbuf_free(reasm_expire(ra, UINT64_MAX, drop));
	while (reasm_pending(ra) > 0)
		rte_pktmbuf_free(reasm_expire(ra, UINT64_MAX, drop));
	memset(drop, 0, sizeof(drop));
	/* one source holds REASM_PER_SOURCE places at most: its next takes
	 * the place of its own oldest, and another source's datagram, older
	 * than all of them, is put together */
	src4 = 0xc0000203;
	assert_null(reasm4_input(ra, frag4(7, 0, 8, true), 1, drop));
	src4 = 0xc0000202;
	for (i = 0; i < REASM_DATAGRAMS + 8; i++) {
		assert_null(reasm4_input(ra, frag4((uint16_t)(300 + i), 0, 8, true), 2 + i, drop));
		assert_true(reasm_pending(ra) <= REASM_PER_SOURCE + 1);
	}
	assert_int_equal(drop[CDROP_REASM_OVER_LIMIT], REASM_DATAGRAMS + 8 - REASM_PER_SOURCE);
	src4 = 0xc0000203;
	{
		struct rte_mbuf *w = reasm4_input(ra, frag4(7, 8, 8, false), 100, drop);

		assert_non_null(w);
		check_payload(w, RTE_ETHER_HDR_LEN + 20, 16);
		rte_pktmbuf_free(w);
	}
	src4 = 0xc0000202;
	while (reasm_pending(ra) > 0)
		rte_pktmbuf_free(reasm_expire(ra, UINT64_MAX, drop));
	memset(drop, 0, sizeof(drop));
	/* more pieces than a datagram may have: it goes */
	for (i = 0; i < REASM_FRAGS; i++)
		assert_null(reasm4_input(ra, frag4(100, i * 8, 8, true), 1, drop));
	assert_int_equal(reasm_mbufs(ra), REASM_FRAGS);
	assert_null(reasm4_input(ra, frag4(100, REASM_FRAGS * 8, 8, true), 1, drop));
	assert_int_equal(drop[CDROP_REASM_OVER_LIMIT], REASM_FRAGS + 1);
	assert_int_equal(reasm_pending(ra), 0);
	/* more mbufs than held in all: the oldest datagrams make room */
	for (d = 0; d < 5; d++)
		for (i = 0; i < 60; i++) {
			assert_null(reasm4_input(ra, frag4((uint16_t)(200 + d), i * 8, 8, true),
						 10 + d, drop));
			assert_true(reasm_mbufs(ra) <= REASM_MBUFS);
		}
	assert_int_equal(reasm_mbufs(ra), 4 * 60);
	assert_int_equal(reasm_pending(ra), 4);
	assert_int_equal(drop[CDROP_REASM_OVER_LIMIT], REASM_FRAGS + 1 + 60);
}

static void test_ipv6(void **state)
{
	struct rte_ipv6_hdr *ip;
	struct rte_mbuf *w;
	const uint8_t *h;

	(void)state;
	assert_null(reasm6_input(ra, frag6(9, 1232, 100, false), 8, 40, 1, drop));
	/* IPv4's datagram of the same id is another */
	assert_null(reasm4_input(ra, frag4(9, 0, 8, true), 1, drop));
	w = reasm6_input(ra, frag6(9, 0, 1232, true), 8, 40, 2, drop);
	assert_non_null(w);
	ip = rte_pktmbuf_mtod_offset(w, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	h = (const uint8_t *)(ip + 1);
	/* the Fragment header gone: the hop-by-hop header names ICMPv6 */
	assert_int_equal(ip->proto, IPPROTO_HOPOPTS);
	assert_int_equal(h[0], IPPROTO_ICMPV6);
	assert_int_equal(h[2], 1);
	assert_int_equal(ip->src_addr[15], 2);
	assert_int_equal(ip->dst_addr[15], 1);
	assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 8 + 1332);
	assert_int_equal(((const struct rte_ether_hdr *)rte_pktmbuf_mtod(w, void *))->ether_type,
			 RTE_BE16(RTE_ETHER_TYPE_IPV6));
	check_payload(w, RTE_ETHER_HDR_LEN + 48, 1332);
	rte_pktmbuf_free(w);
	/* 60 s for IPv6, not IPv4's 30 */
	assert_null(reasm6_input(ra, frag6(10, 8, 8, false), 8, 40, 100, drop));
	rte_pktmbuf_free(reasm_expire(ra, 100 + REASM4_TIMEOUT_MS, drop));
	assert_int_equal(reasm_pending(ra), 1);
	assert_null(reasm_expire(ra, 100 + REASM6_TIMEOUT_MS, drop));
	assert_int_equal(reasm_pending(ra), 0);
	assert_int_equal(drop[CDROP_REASM_TIMEOUT], 2);
	/* past 65,535 bytes of payload, and a piece before the last not a
	 * multiple of 8 */
	assert_null(reasm6_input(ra, frag6(11, 65528, 8, false), 8, 40, 1, drop));
	assert_null(reasm6_input(ra, frag6(11, 0, 12, true), 8, 40, 1, drop));
	assert_int_equal(drop[CDROP_REASM_MALFORMED], 2);
	assert_int_equal(reasm_mbufs(ra), 0);
	/* a copy of the first piece whose headers before the Fragment header
	 * differ: dropped, and the whole packet is the first one's */
	assert_null(reasm6_input(ra, frag6(12, 0, 16, true), 8, 40, 1, drop));
	assert_null(reasm6_input(ra, frag6_of(12, 0, 16, true, true), 0, 6, 1, drop));
	assert_int_equal(drop[CDROP_REASM_OVERLAP], 1);
	w = reasm6_input(ra, frag6(12, 16, 8, false), 8, 40, 1, drop);
	assert_non_null(w);
	ip = rte_pktmbuf_mtod_offset(w, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	h = (const uint8_t *)(ip + 1);
	assert_int_equal(ip->proto, IPPROTO_HOPOPTS);
	assert_int_equal(h[0], IPPROTO_ICMPV6);
	assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 8 + 24);
	check_payload(w, RTE_ETHER_HDR_LEN + 48, 24);
	rte_pktmbuf_free(w);
	/* the same without it: the Next Header of the IPv6 header names ICMPv6 */
	assert_null(reasm6_input(ra, frag6_of(13, 8, 8, false, true), 0, 6, 1, drop));
	w = reasm6_input(ra, frag6_of(13, 0, 8, true, true), 0, 6, 1, drop);
	assert_non_null(w);
	ip = rte_pktmbuf_mtod_offset(w, struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	assert_int_equal(ip->proto, IPPROTO_ICMPV6);
	assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 16);
	check_payload(w, RTE_ETHER_HDR_LEN + 40, 16);
	rte_pktmbuf_free(w);
	assert_int_equal(reasm_pending(ra), 0);
}

/* A bare first fragment (@len bytes of data) whose Fragment header names
 * @nh, its data starting with @b0 and @b1 (a header's next header and
 * length). */
static struct rte_mbuf *first6(uint32_t len, uint8_t nh, uint8_t b0, uint8_t b1)
{
	struct rte_mbuf *m = frag6_of(30, 0, len, true, true);
	uint8_t *h = rte_pktmbuf_mtod_offset(m, uint8_t *, RTE_ETHER_HDR_LEN + 40);

	h[0] = nh;
	if (len >= 2) {
		h[8] = b0;
		h[9] = b1;
	}
	return m;
}

static void expect_pp_at(int line, struct rte_mbuf *m, uint32_t fh, bool bad, uint8_t code,
			 uint32_t ptr)
{
	uint8_t c = 0xff;
	uint32_t p = 0xffff;

	if (reasm6_param_problem(m, fh, &c, &p) != bad)
		fail_msg("line %d: want %s", line, bad ? "a Parameter Problem" : "none");
	if (bad) {
		assert_int_equal(c, code);
		assert_int_equal(p, ptr);
	}
	rte_pktmbuf_free(m);
}
#define expect_pp(...) expect_pp_at(__LINE__, __VA_ARGS__)

/* RFC 8200 4.5's fragments that earn a Parameter Problem (RFC 7112 for a
 * header chain cut short) */
static void test_ipv6_param_problem(void **state)
{
	(void)state;
	/* before the last, not a multiple of 8: at the Payload Length */
	expect_pp(frag6(20, 0, 12, true), 8, true, 0, 4);
	expect_pp(frag6(20, 8, 12, false), 8, false, 0, 0); /* the last may be */
	/* ending past 65,535 bytes of payload: at the Fragment Offset (the
	 * Fragment header 8 bytes past the IPv6 header, its offset 2 in) */
	expect_pp(frag6(20, 65520, 8, false), 8, true, 0, 50);
	expect_pp(frag6_of(20, 65528, 8, false, true), 0, true, 0, 42);
	expect_pp(frag6(20, 65520, 7, false), 8, false, 0, 0); /* ends at 65,535 */
	/* a first fragment with the upper-layer header whole (ICMPv6: 4
	 * bytes), or cut short: code 3, pointer 0 */
	expect_pp(frag6(20, 0, 8, true), 8, false, 0, 0);
	expect_pp(first6(0, IPPROTO_ICMPV6, 0, 0), 0, true, 3, 0);
	/* destination options (8 bytes), then UDP's 8 */
	expect_pp(first6(16, IPPROTO_DSTOPTS, IPPROTO_UDP, 0), 0, false, 0, 0);
	expect_pp(first6(8, IPPROTO_DSTOPTS, IPPROTO_UDP, 0), 0, true, 3, 0);
	/* options of 16 bytes that the fragment cuts */
	expect_pp(first6(8, IPPROTO_DSTOPTS, IPPROTO_NONE, 1), 0, true, 3, 0);
	expect_pp(first6(16, IPPROTO_DSTOPTS, IPPROTO_NONE, 1), 0, false, 0, 0);
	/* TCP's 20 bytes; AH's length in 4-byte units plus 2 (16 bytes) */
	expect_pp(first6(16, IPPROTO_TCP, 0, 0), 0, true, 3, 0);
	expect_pp(first6(24, IPPROTO_TCP, 0, 0), 0, false, 0, 0);
	expect_pp(first6(16, IPPROTO_AH, IPPROTO_UDP, 2), 0, true, 3, 0);
	expect_pp(first6(24, IPPROTO_AH, IPPROTO_UDP, 2), 0, false, 0, 0);
	/* a later fragment holds no headers of its own */
	expect_pp(frag6_of(20, 8, 8, true, true), 0, false, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_any_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_and_overlap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv6_param_problem, setup, teardown),
	};

	test_eal_init("reasm");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
