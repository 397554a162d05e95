/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fastroute-kbench: the userspace twin of the kernel's route kbench.
 * One process, one core, no PMD. For each table size and destination set:
 *
 *   bare      rte_lpm_lookup_bulk() over the destinations, in bursts of 32:
 *             the reference, the cheapest a longest-prefix match gets
 *   decision  fastroute's input route decision as the data path makes it:
 *             each burst's tbl24 lines prefetched, then each destination's
 *             entry read, those that name a second-level group read after
 *             the others, their line prefetched (where rte_fib's layout is
 *             not known, fib4_lookup_bulk()), plus reading each packet's
 *             next hop (type, port, neighbour)
 *   pipeline  dp_input_burst() on pre-built mbuf bursts of 32: validation,
 *             decision, neighbour read, TTL/checksum and Ethernet rewrite,
 *             minus the cost of restoring the packets between passes
 *             (measured alone and subtracted)
 *   cache_on, cache_auto    the pipeline with rpf strict and the route cache
 *             (65,536 entries) on or in auto mode; their ratio is to
 *             rpf_strict, the same work without the cache (for auto, a
 *             second rpf_strict run right before it); after them a line
 *             of what auto mode's own measurements found (its cycles a
 *             packet probed and bypassed, and how often it bypassed)
 *   rpf_loose, rpf_strict   the pipeline with reverse-path filtering on the
 *             arrival port, sources as random as the destinations (inside
 *             routes back through that port); their ratio is to the
 *             pipeline with rpf off, the extra cost of rpf
 *
 *   decision6, pipeline6, rpf_strict6   with --routes6 FILE: the same on an
 *             IPv6 table (scripts/gen-routes N --ipv6 --format plain: /48
 *             and /64 prefixes; rte_fib6 trie); their ratio is to the IPv4
 *             row of the same metric and destination count measured in the
 *             same run on the last IPv4 table
 *
 *   translation   first, what this machine's address translation most
 *             likely costs (xlat_probe()): the same cached lines read with
 *             the same work between, packed into 1 MiB or spread over 32 or
 *             256 MiB
 *
 * Each timed run follows an untimed pass of its own over the destinations,
 * so it starts with the caches as warm as a long run keeps them.
 *
 * Reported in TSC cycles per packet (rte_rdtsc, what DPDK tools print): the
 * median of --reps repetitions and the spread (min-max).
 *
 *   fastroute-kbench [EAL] -- --routes FILE[,FILE...] [--dests 1,1000,1000000]
 *                    [--routes6 FILE] [--reps 5] [--min-pkts N] [--json] [--wait]
 * FILE: "A.B.C.D/LEN PORT" lines (scripts/gen-routes N --format plain).
 *
 * Every IPv4 table (fastroute's FIB and the reference rte_lpm) is built
 * before the first measurement. With --wait, kbench then says so on stderr
 * and waits for a line on stdin before it measures (EOF: it exits 1): make
 * bench builds kbench's tables while the throughput harness's l3fwd loads
 * the same million routes on the other CPU (rte_lpm takes about three
 * minutes for each), and lets kbench measure once the CPUs are quiet.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "datapath.h"
#include "fib.h"
#include "fr_eal.h"
#include "neigh.h"

#define BURST	    DP_BURST
#define MBUF_BURSTS 64 /* 2048 packets in flight: hot in L2, like DDIO'd RX */

struct route {
	uint32_t addr;
	uint8_t len;
	uint8_t port;
};

static const struct rte_ether_addr port_mac[2] = {{{0x02, 0xfd, 0, 0, 0, 0}},
						  {{0x02, 0xfd, 0, 0, 0, 1}}};
static const struct rte_ether_addr gw_mac[2] = {{{0x02, 0xfe, 0, 0, 0, 0}},
						{{0x02, 0xfe, 0, 0, 0, 1}}};
static const uint32_t gw_ip[2] = {0xc0000202, 0xc6336402}; /* 192.0.2.2, 198.51.100.2 */

static uint64_t rng = 88172645463325252ull;

/* Marsaglia's xorshift64 step on the generator @p s */
static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t xrand(void)
{
	return xorshift(&rng);
}

/*
 * Source addresses for the rpf rows: inside random routes that leave by
 * port 0, where the packets arrive, so that strict rpf passes every one and
 * each source lookup costs what a random destination's does.
 */
static void make_sources(struct fib *f, const struct route *rt, uint32_t nr, uint32_t *s,
			 uint32_t n, uint32_t len)
{
	const struct fib_nh *nh = fib_nh_table(f);
	uint32_t i, tries;

	for (i = 0; i < n; i++) {
		s[i] = gw_ip[0]; /* nothing found: the connected gateway */
		for (tries = 0; tries < 64; tries++) {
			const struct route *r = &rt[xrand() % nr];
			uint32_t a =
				r->addr |
				(r->len == 32 ? 0 : (uint32_t)xrand() & (UINT32_MAX >> r->len));
			uint64_t h;

			/* the longest match decides (a more specific route may
			 * point the other way) */
			fib4_lookup_bulk(f, &a, &h, 1);
			if (nh[h].port == 0) {
				s[i] = a;
				break;
			}
		}
	}
	for (; i < len; i++)
		s[i] = s[i % n];
}

static int load_routes(const char *path, struct route **out, uint32_t *n)
{
	FILE *f = fopen(path, "r");
	char line[128];
	uint32_t cap = 1024, k = 0;
	struct route *r = malloc(cap * sizeof(*r));

	if (f == NULL || r == NULL) {
		fprintf(stderr, "kbench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned int a, b, c, d, len, port;

		if (sscanf(line, "%u.%u.%u.%u/%u %u", &a, &b, &c, &d, &len, &port) != 6)
			continue;
		if (k == cap) {
			cap *= 2;
			r = realloc(r, cap * sizeof(*r));
			if (r == NULL)
				return -1;
		}
		r[k].addr = a << 24 | b << 16 | c << 8 | d;
		r[k].len = (uint8_t)len;
		r[k].port = (uint8_t)(port & 1);
		k++;
	}
	fclose(f);
	*out = r;
	*n = k;
	return 0;
}

/*
 * The address stream: n distinct destinations, each inside a random route
 * (the first route when n == 1), repeated to fill len entries, so every
 * lookup call gets a full burst of 32 whatever n is.
 */
static void make_dests(const struct route *rt, uint32_t nr, uint32_t *d, uint32_t n, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		const struct route *r = &rt[n == 1 ? 0 : xrand() % nr];
		uint32_t host = r->len == 32 ? 0 : (uint32_t)xrand() & (UINT32_MAX >> r->len);

		d[i] = r->addr | host;
	}
	for (; i < len; i++)
		d[i] = d[i % n];
}

struct tables {
	struct fib *fib;
	struct neigh_table *neigh;
	struct rte_lpm *lpm;
	double fib_load_s, lpm_load_s;
};

static int tables_build(struct tables *t, const struct route *rt, uint32_t nr, unsigned int id)
{
	struct fib_conf fc = {0};
	struct neigh_conf nc = {0};
	struct rte_lpm_config lc = {0};
	struct fib_route r;
	char name[32];
	uint64_t t0;
	uint32_t i, max = nr + 16 < 1024 ? 1024 : nr + 16;
	int p;

	snprintf(name, sizeof(name), "kb%u", id);
	nc.capacity = 64;
	t->neigh = neigh_create(name, &nc);
	fc.max_routes4 = max; /* tbl8 groups and next hops: the router's defaults */
	fc.neigh = t->neigh;
	t->fib = fib_create(name, &fc);
	lc.max_rules = max;
	lc.number_tbl8s = 1 << 16;
	t->lpm = rte_lpm_create(name, 0, &lc);
	if (t->neigh == NULL || t->fib == NULL || t->lpm == NULL) {
		fprintf(stderr, "kbench: cannot create tables for %u routes (more -m?)\n", nr);
		return -1;
	}
	/* connected subnets and static neighbours, as the throughput DUT has */
	for (p = 0; p < 2; p++) {
		struct fr_addr gw = fr_addr4(gw_ip[p]);

		memset(&r, 0, sizeof(r));
		r.prefix.addr = fr_addr4(gw_ip[p] & 0xffffff00);
		r.prefix.len = 24;
		r.type = FIB_NH_CONNECTED;
		r.port = (uint16_t)p;
		if (fib_route_add(t->fib, &r) != 0 ||
		    neigh_static_set(t->neigh, &gw, (uint16_t)p, &gw_mac[p]) != 0)
			return -1;
	}
	t0 = rte_rdtsc();
	for (i = 0; i < nr; i++) {
		memset(&r, 0, sizeof(r));
		r.prefix.addr = fr_addr4(rt[i].addr);
		r.prefix.len = rt[i].len;
		r.type = FIB_NH_GATEWAY;
		r.port = FIB_PORT_NONE;
		r.gw = fr_addr4(gw_ip[rt[i].port]);
		if (fib_route_add(t->fib, &r) != 0) {
			fprintf(stderr, "kbench: fastroute FIB refused route %u\n", i);
			return -1;
		}
	}
	t->fib_load_s = (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz();
	t0 = rte_rdtsc();
	for (i = 0; i < nr; i++) {
		/* rte_lpm keeps no /0; the tables hold none */
		if (rte_lpm_add(t->lpm, rt[i].addr, rt[i].len, rt[i].port + 1u) != 0) {
			fprintf(stderr, "kbench: rte_lpm refused route %u\n", i);
			return -1;
		}
	}
	t->lpm_load_s = (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz();
	return 0;
}

static void tables_free(struct tables *t)
{
	fib_free(t->fib);
	neigh_free(t->neigh);
	rte_lpm_free(t->lpm);
}

static volatile uint64_t sink;

/* cycles per packet of one pass over n destinations, repeated to >= min packets */
static double run_bare(struct tables *t, uint32_t *d, uint32_t n, uint64_t min)
{
	uint32_t hop[BURST];
	uint64_t t0, pkts = 0, acc = 0;
	uint32_t i, j;

	t0 = rte_rdtsc();
	while (pkts < min) {
		for (i = 0; i < n; i += BURST) {
			uint32_t k = RTE_MIN((uint32_t)BURST, n - i);

			rte_lpm_lookup_bulk(t->lpm, d + i, hop, k);
			for (j = 0; j < k; j++)
				acc += hop[j];
		}
		pkts += n;
	}
	sink += acc;
	return (double)(rte_rdtsc() - t0) / (double)pkts;
}

static double run_decision(struct tables *t, uint32_t *d, uint32_t n, uint64_t min)
{
	const struct fib_nh *nh = fib_nh_table(t->fib);
	const struct fib4_tbl24 t24 = fib4_tbl24(t->fib);
	uint64_t hop[BURST];
	uint64_t t0, pkts = 0, acc = 0;
	uint32_t i, j;

	t0 = rte_rdtsc();
	while (pkts < min) {
		for (i = 0; i < n; i += BURST) {
			uint32_t k = RTE_MIN((uint32_t)BURST, n - i);

			if (t24.tbl8 != NULL) {
				/* as dp_input_burst() decides: every line of the
				 * burst prefetched (before its checks), then each
				 * destination's tbl24 entry read; one that names
				 * a second-level group has that line prefetched
				 * and is looked up again after the others */
				uint8_t lj[BURST];
				unsigned int nl = 0, x;

				for (j = 0; j < k; j++)
					rte_prefetch0(fib4_first_at(t24, d[i + j]));
				for (j = 0; j < k; j++) {
					uint32_t e = fib4_first(t24, d[i + j]);

					if (e & 1) {
						rte_prefetch0(fib4_second_at(t24, e, d[i + j]));
						lj[nl++] = (uint8_t)j;
						continue;
					}
					hop[j] = e >> 1;
				}
				for (x = 0; x < nl; x++)
					hop[lj[x]] = fib4_lookup_one(t24, d[i + lj[x]]);
			} else {
				fib4_lookup_bulk(t->fib, d + i, hop, k);
			}
			for (j = 0; j < k; j++)
				acc += nh[hop[j]].type + nh[hop[j]].port + nh[hop[j]].neigh;
		}
		pkts += n;
	}
	sink += acc;
	return (double)(rte_rdtsc() - t0) / (double)pkts;
}

/* Restore a packet for the next pass: addresses, TTL, checksum, MACs. */
static inline void reset_pkt(struct rte_mbuf *m, uint32_t src, uint32_t dst, uint16_t in)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);

	eth->dst_addr = port_mac[in];
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->time_to_live = 64;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* A zeroed @len-byte frame from the gateway on port 0 with @type; returns the
 * L3 header. The pipeline must never free it: it holds a second reference. */
static void *frame_init(struct rte_mbuf *m, uint16_t len, uint16_t type)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, len);

	memset(eth, 0, len);
	eth->src_addr = gw_mac[0];
	eth->ether_type = rte_cpu_to_be_16(type);
	rte_mbuf_refcnt_set(m, 2);
	return eth + 1;
}

static struct rte_mbuf *pkts[MBUF_BURSTS][BURST];

static int pkts_build(struct rte_mempool *mp)
{
	unsigned int b, i;

	for (b = 0; b < MBUF_BURSTS; b++) {
		if (rte_pktmbuf_alloc_bulk(mp, pkts[b], BURST) != 0)
			return -1;
		for (i = 0; i < BURST; i++) {
			struct rte_ipv4_hdr *ip = frame_init(pkts[b][i], 60, RTE_ETHER_TYPE_IPV4);

			ip->version_ihl = 0x45;
			ip->total_length = RTE_BE16(46);
			ip->next_proto_id = IPPROTO_UDP;
			ip->src_addr = RTE_BE32(0xc0000202);
		}
	}
	return 0;
}

/* pipeline (with_dp) or restore alone (!with_dp), cycles per packet; sources
 * come from @srcs (routed back through port 0, so strict rpf passes them) */
static double run_pipeline(struct tables *t, uint32_t *d, const uint32_t *srcs, uint32_t n,
			   uint64_t min, int with_dp, uint8_t rpf, struct rtcache *rtc,
			   enum rtcache_mode mode)
{
	struct dp_port ports[2] = {{.mac = port_mac[0], .mtu = 1500, .rpf = rpf},
				   {.mac = port_mac[1], .mtu = 1500}};
	/* the daemon's defaults: martian checks on; no ICMP is due here */
	struct dp_conf conf = {.martians = 1, .rtcache_mode = (uint8_t)mode};
	struct dp_stats st;
	struct dp_ctx c = {
		.fib = t->fib,
		.nh = fib_nh_table(t->fib),
		.neigh = t->neigh,
		.neigh_hot = neigh_hot_table(t->neigh),
		.tbl24 = fib4_tbl24(t->fib),
		.ports = ports,
		.conf = &conf,
		.rtc = rtc,
		.nb_ports = 2,
		.st = &st,
	};
	uint16_t out[BURST];
	uint64_t t0, pkts_done = 0, fwd = 0;
	uint32_t pos = 0, b = 0, i;

	memset(&st, 0, sizeof(st));
	if (rtc != NULL)
		memset(&rtc->st, 0, sizeof(rtc->st)); /* fresh counters */
	t0 = rte_rdtsc();
	while (pkts_done < min) {
		struct rte_mbuf **burst = pkts[b];

		for (i = 0; i < BURST; i++) {
			reset_pkt(burst[i], srcs[pos], d[pos], 0);
			if (++pos == n)
				pos = 0;
		}
		if (with_dp) {
			dp_input_burst(&c, 0, burst, BURST, out);
			for (i = 0; i < BURST; i++)
				fwd += out[i] < 2;
		}
		pkts_done += BURST;
		if (++b == MBUF_BURSTS)
			b = 0;
	}
	sink += fwd;
	if (with_dp && fwd != pkts_done) {
		fprintf(stderr, "kbench: pipeline forwarded %" PRIu64 " of %" PRIu64 "\n", fwd,
			pkts_done);
		exit(1);
	}
	return (double)(rte_rdtsc() - t0) / (double)pkts_done;
}

/*
 * One untimed pass over the destinations, then the timed run. The route
 * cache is emptied and its mode set before the pass, not between the pass
 * and the run: the run finds the cache (and auto mode's state) as a long
 * run at this traffic keeps them, and the FIB lines the pass warmed are not
 * evicted again by the 8 MiB of the flush.
 */
static double pipeline(struct tables *t, uint32_t *d, const uint32_t *srcs, uint32_t n,
		       uint64_t min, uint8_t rpf, struct rtcache *rtc, enum rtcache_mode mode)
{
	if (rtc != NULL) {
		rtcache_flush(rtc);
		rtcache_mode_set(rtc, mode);
	}
	run_pipeline(t, d, srcs, n, n, 1, rpf, rtc, mode);
	return run_pipeline(t, d, srcs, n, min, 1, rpf, rtc, mode);
}

/* ---- IPv6 ------------------------------------------------------------------- */

struct route6 {
	uint8_t a[16];
	uint8_t len;
	uint8_t port;
};

static const uint8_t gw6[2][16] = {{0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, [15] = 2},
				   {0x20, 0x01, 0x0d, 0xb8, 0xff, 0xfe, [15] = 2}};

/* "ADDR/LEN PORT" IPv6 lines */
static int load_routes6(const char *path, struct route6 **out, uint32_t *n)
{
	FILE *f = fopen(path, "r");
	char line[128], a[64];
	uint32_t cap = 1024, k = 0;
	struct route6 *r = malloc(cap * sizeof(*r));

	if (f == NULL || r == NULL) {
		fprintf(stderr, "kbench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned int len, port;
		char *slash;

		if (sscanf(line, "%63s %u", a, &port) != 2 || (slash = strchr(a, '/')) == NULL)
			continue;
		*slash = '\0';
		if (sscanf(slash + 1, "%u", &len) != 1 || len > 128 ||
		    inet_pton(AF_INET6, a, r[k].a) != 1)
			continue;
		r[k].len = (uint8_t)len;
		r[k].port = (uint8_t)(port & 1);
		if (++k == cap) {
			cap *= 2;
			r = realloc(r, cap * sizeof(*r));
			if (r == NULL)
				return -1;
		}
	}
	fclose(f);
	*out = r;
	*n = k;
	return 0;
}

struct tables6 {
	struct fib *fib;
	struct neigh_table *neigh;
	uint32_t nr;
	double load_s;
};

static int tables6_build(struct tables6 *t, struct route6 *rt, uint32_t nr)
{
	struct fib_conf fc = {0};
	struct neigh_conf nc = {0};
	struct fib_route r;
	uint64_t t0;
	uint32_t i, k = 0;
	int p;

	nc.capacity = 64;
	t->neigh = neigh_create("kb6", &nc);
	fc.max_routes4 = 1024;
	fc.tbl8s4 = 64;
	fc.max_routes6 = nr + 16;
	/* a random /48 takes three groups of its own, a /64 five */
	fc.tbl8s6 = nr * 4 + 1024;
	fc.neigh = t->neigh;
	t->fib = fib_create("kb6", &fc);
	if (t->neigh == NULL || t->fib == NULL) {
		fprintf(stderr, "kbench: cannot create IPv6 tables for %u routes (more -m?)\n", nr);
		return -1;
	}
	for (p = 0; p < 2; p++) {
		struct fr_addr gw = {.family = AF_INET6};

		memcpy(gw.v6, gw6[p], 16);
		memset(&r, 0, sizeof(r));
		r.prefix.addr = gw;
		fr_addr_mask(&r.prefix.addr, 64);
		r.prefix.len = 64;
		r.type = FIB_NH_CONNECTED;
		r.port = (uint16_t)p;
		if (fib_route_add(t->fib, &r) != 0 ||
		    neigh_static_set(t->neigh, &gw, (uint16_t)p, &gw_mac[p]) != 0)
			return -1;
	}
	t0 = rte_rdtsc();
	for (i = 0; i < nr; i++) {
		memset(&r, 0, sizeof(r));
		r.prefix.addr.family = AF_INET6;
		memcpy(r.prefix.addr.v6, rt[i].a, 16);
		r.prefix.len = rt[i].len;
		r.type = FIB_NH_GATEWAY;
		r.port = FIB_PORT_NONE;
		r.gw.family = AF_INET6;
		memcpy(r.gw.v6, gw6[rt[i].port], 16);
		p = fib_route_add(t->fib, &r);
		if (p == -EEXIST)
			continue; /* a random duplicate */
		if (p != 0) {
			fprintf(stderr, "kbench: fastroute FIB refused IPv6 route %u: %s\n", i,
				strerror(-p));
			return -1;
		}
		rt[k++] = rt[i];
	}
	t->load_s = (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz();
	t->nr = k;
	return 0;
}

static void make_dests6(const struct route6 *rt, uint32_t nr, uint8_t (*d)[16], uint32_t n,
			uint32_t len)
{
	uint32_t i;
	unsigned int b;

	for (i = 0; i < n; i++) {
		const struct route6 *r = &rt[n == 1 ? 0 : xrand() % nr];

		memcpy(d[i], r->a, 16);
		for (b = r->len / 8; b < 16; b++)
			d[i][b] = (uint8_t)xrand();
	}
	for (; i < len; i++)
		memcpy(d[i], d[i % n], 16);
}

/* sources for rpf: inside routes back through port 0 */
static void make_sources6(struct fib *f, const struct route6 *rt, uint32_t nr, uint8_t (*s)[16],
			  uint32_t n, uint32_t len)
{
	const struct fib_nh *nh = fib_nh_table(f);
	uint32_t i, tries;
	unsigned int b;

	for (i = 0; i < n; i++) {
		memcpy(s[i], gw6[0], 16);
		for (tries = 0; tries < 64; tries++) {
			const struct route6 *r = &rt[xrand() % nr];
			uint8_t a[1][16];
			uint64_t h;

			memcpy(a[0], r->a, 16);
			for (b = r->len / 8; b < 16; b++)
				a[0][b] = (uint8_t)xrand();
			fib6_lookup_bulk(f, a, &h, 1);
			if (nh[h].port == 0) {
				memcpy(s[i], a[0], 16);
				break;
			}
		}
	}
	for (; i < len; i++)
		memcpy(s[i], s[i % n], 16);
}

static double run_decision6(struct tables6 *t, uint8_t (*d)[16], uint32_t n, uint64_t min)
{
	const struct fib_nh *nh = fib_nh_table(t->fib);
	uint64_t hop[BURST];
	uint64_t t0, np = 0, acc = 0;
	uint32_t i, j;

	t0 = rte_rdtsc();
	while (np < min) {
		for (i = 0; i < n; i += BURST) {
			uint32_t k = RTE_MIN((uint32_t)BURST, n - i);

			fib6_lookup_bulk(t->fib, d + i, hop, k);
			for (j = 0; j < k; j++)
				acc += nh[hop[j]].type + nh[hop[j]].port + nh[hop[j]].neigh;
		}
		np += n;
	}
	sink += acc;
	return (double)(rte_rdtsc() - t0) / (double)np;
}

static struct rte_mbuf *pkts6[MBUF_BURSTS][BURST];

static int pkts6_build(struct rte_mempool *mp)
{
	unsigned int b, i;

	for (b = 0; b < MBUF_BURSTS; b++) {
		if (rte_pktmbuf_alloc_bulk(mp, pkts6[b], BURST) != 0)
			return -1;
		for (i = 0; i < BURST; i++) {
			struct rte_ipv6_hdr *ip = frame_init(pkts6[b][i], 62, RTE_ETHER_TYPE_IPV6);

			ip->vtc_flow = RTE_BE32(6u << 28);
			ip->payload_len = RTE_BE16(8);
			ip->proto = IPPROTO_UDP;
		}
	}
	return 0;
}

static double run_pipeline6(struct tables6 *t, uint8_t (*d)[16], uint8_t (*srcs)[16], uint32_t n,
			    uint64_t min, int with_dp, uint8_t rpf)
{
	struct dp_port ports[2] = {{.mac = port_mac[0], .mtu = 1500, .rpf = rpf},
				   {.mac = port_mac[1], .mtu = 1500}};
	struct dp_conf conf = {.martians = 1};
	struct dp_stats st;
	struct dp_ctx c = {
		.fib = t->fib,
		.nh = fib_nh_table(t->fib),
		.neigh = t->neigh,
		.neigh_hot = neigh_hot_table(t->neigh),
		.tbl24 = fib4_tbl24(t->fib),
		.ports = ports,
		.conf = &conf,
		.nb_ports = 2,
		.st = &st,
	};
	uint16_t out[BURST];
	uint64_t t0, pkts_done = 0, fwd = 0;
	uint32_t pos = 0, b = 0, i;

	memset(&st, 0, sizeof(st));
	t0 = rte_rdtsc();
	while (pkts_done < min) {
		struct rte_mbuf **burst = pkts6[b];

		for (i = 0; i < BURST; i++) {
			struct rte_ether_hdr *eth =
				rte_pktmbuf_mtod(burst[i], struct rte_ether_hdr *);
			struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);

			eth->dst_addr = port_mac[0];
			memcpy(ip->src_addr, srcs[pos], 16);
			memcpy(ip->dst_addr, d[pos], 16);
			ip->hop_limits = 64;
			if (++pos == n)
				pos = 0;
		}
		if (with_dp) {
			dp_input_burst(&c, 0, burst, BURST, out);
			for (i = 0; i < BURST; i++)
				fwd += out[i] < 2;
		}
		pkts_done += BURST;
		if (++b == MBUF_BURSTS)
			b = 0;
	}
	sink += fwd;
	if (with_dp && fwd != pkts_done) {
		fprintf(stderr, "kbench: IPv6 pipeline forwarded %" PRIu64 " of %" PRIu64 "\n", fwd,
			pkts_done);
		exit(1);
	}
	return (double)(rte_rdtsc() - t0) / (double)pkts_done;
}

/* The restore loop is a fixed cost, so its cheapest of three runs is the
 * estimate: one preemption during a single run would inflate it and push
 * the difference below zero on a busy machine. */
static double restore_cost(struct tables *t, uint32_t *d, const uint32_t *srcs, uint32_t n,
			   uint64_t min)
{
	double best = 0;
	int i;

	for (i = 0; i < 3; i++) {
		double v = run_pipeline(t, d, srcs, n, min, 0, DP_RPF_OFF, NULL, RTCACHE_OFF);

		if (i == 0 || v < best)
			best = v;
	}
	return best;
}

static double restore_cost6(struct tables6 *t, uint8_t (*d)[16], uint8_t (*srcs)[16], uint32_t n,
			    uint64_t min)
{
	double best = 0;
	int i;

	for (i = 0; i < 3; i++) {
		double v = run_pipeline6(t, d, srcs, n, min, 0, DP_RPF_OFF);

		if (i == 0 || v < best)
			best = v;
	}
	return best;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stat3 {
	double med, min, max;
};

static struct stat3 summarize(double *v, unsigned int n)
{
	struct stat3 s;

	qsort(v, n, sizeof(*v), cmp_double);
	s.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s.min = v[0];
	s.max = v[n - 1];
	return s;
}

/* The ratio of one metric to its reference, repetition by repetition. */
struct ratios {
	double r[128]; /* v[k] / ref[k], in repetition order; --reps is at most 101 */
	unsigned int n;
	struct stat3 s; /* their median, min and max */
};

/* v[k] / ref[k] for each repetition (before summarize() sorts v). */
static void ratios_of(struct ratios *x, const double *v, const double *ref, unsigned int n)
{
	double sorted[RTE_DIM(x->r)];
	unsigned int k;

	x->n = RTE_MIN(n, (unsigned int)RTE_DIM(x->r));
	for (k = 0; k < x->n; k++)
		sorted[k] = x->r[k] = ref[k] > 0 ? v[k] / ref[k] : 0;
	x->s = summarize(sorted, x->n);
}

static double ratio_med(const double *v, const double *ref, unsigned int n)
{
	struct ratios x;

	ratios_of(&x, v, ref, n);
	return x.s.med;
}

/* One metric's cycles a packet and, but for the reference itself (@x
 * NULL), its ratio to the reference: the median of the repetitions'
 * ratios, their min and max, and each (so a reader can judge how many of
 * them a target holds for, not the median alone). */
static void report(int json, uint32_t routes, uint32_t dests, const char *metric, struct stat3 s,
		   const struct ratios *x)
{
	unsigned int k;

	if (json) {
		printf("{\"bench\":\"kbench\",\"routes\":%u,\"dests\":%u,\"metric\":\"%s\","
		       "\"cycles\":%.2f,\"min\":%.2f,\"max\":%.2f,\"ratio_to_bare\":%.6f",
		       routes, dests, metric, s.med, s.min, s.max, x ? x->s.med : 1.0);
		if (x != NULL) {
			printf(",\"ratio_min\":%.6f,\"ratio_max\":%.6f,\"ratios\":[", x->s.min,
			       x->s.max);
			for (k = 0; k < x->n; k++)
				printf("%s%.6f", k ? "," : "", x->r[k]);
			printf("]");
		}
		printf("}\n");
	} else if (x != NULL) {
		printf("%9u %9u  %-12s %8.1f  [%6.1f - %6.1f]  %5.2fx [%.2f - %.2f]\n", routes,
		       dests, metric, s.med, s.min, s.max, x->s.med, x->s.min, x->s.max);
	} else {
		printf("%9u %9u  %-12s %8.1f  [%6.1f - %6.1f]  %5.2fx\n", routes, dests, metric,
		       s.med, s.min, s.max, 1.0);
	}
}

/* What auto mode's own measurements found in the cache_auto runs: the
 * median cycles a packet it measured for each side, and in how many of the
 * repetitions (@p reps: those in which a measurement finished) its last
 * measurement chose to bypass the cache. */
static void report_auto(int json, uint32_t routes, uint32_t dests, struct stat3 p, struct stat3 b,
			unsigned int bypassed, unsigned int reps)
{
	if (json)
		printf("{\"bench\":\"kbench_auto\",\"routes\":%u,\"dests\":%u,"
		       "\"probe_cycles\":%.2f,\"bypass_cycles\":%.2f,\"bypassed\":%u,"
		       "\"reps\":%u}\n",
		       routes, dests, p.med, b.med, bypassed, reps);
	else
		printf("%9u %9u  auto measured: probed %.1f, bypassed %.1f cycles a packet; "
		       "bypassing in %u of %u\n",
		       routes, dests, p.med, b.med, bypassed, reps);
}

static void report6(int json, uint32_t routes, uint32_t dests, const char *metric, struct stat3 s,
		    double ratio)
{
	if (json)
		printf("{\"bench\":\"kbench\",\"family\":6,\"routes\":%u,\"dests\":%u,"
		       "\"metric\":\"%s\",\"cycles\":%.2f,\"min\":%.2f,\"max\":%.2f,"
		       "\"ratio_to_ipv4\":%.6f}\n",
		       routes, dests, metric, s.med, s.min, s.max, ratio);
	else
		printf("%9u %9u  %-11s %6.1f  [%6.1f - %6.1f]  %5.2fx IPv4\n", routes, dests,
		       metric, s.med, s.min, s.max, ratio);
}

static void usage(void)
{
	fprintf(stderr, "usage: fastroute-kbench [EAL] -- --routes FILE[,FILE...] "
			"[--dests 1,1000,1000000] [--routes6 FILE] [--reps 5] [--min-pkts N] "
			"[--json] [--wait]\n");
}

#define MAX_DESTS  16
#define MAX_TABLES 8

/* IPv4 medians of the last table, per destination count, for the IPv6 ratios */
static struct {
	uint32_t dests;
	double decision, pipeline, strict;
} v4ref[MAX_DESTS];
static unsigned int nv4ref;

/* ---- address translation ---------------------------------------------------- */

/*
 * What this machine's address translation most likely costs, to read the
 * rows with a million destinations by: the same XLAT_LINES cache lines
 * (1 MiB, which L2 and L3 hold), read in bursts of 32, each burst's lines
 * prefetched one burst ahead and XLAT_WORK rounds of load-and-store work
 * on L1-resident data done an item between, with the lines packed into
 * 1 MiB or spread over 32 MiB (fastroute's tbl24) or 256 MiB. The data
 * read is the same in each, and so is the number of lines in each L2 set
 * (where the pages are contiguous: hugepages); what a spread changes is
 * the pages the lines lie in, and what the hardware prefetchers find next
 * to them. So what it adds over the packed run is most likely translation
 * (TLB misses, page walks) that the prefetch did not hide; no performance
 * counter is read to confirm it (docs/design.md, "What a random line
 * costs on this VM").
 */
#define XLAT_LINES 16384u
#define XLAT_WORK  8u
#define XLAT_SPANS 3
#define XLAT_SETS  1024u /* L2 sets the layout fills evenly (1 MiB, 16 ways) */

#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << 26) /* MAP_HUGE_SHIFT 26: linux/mman.h */
#endif

static const unsigned int xlat_span_mib[XLAT_SPANS] = {1, 32, 256};

static double xlat_run(const char *mem, const uint32_t *off, uint64_t items)
{
	static uint32_t scratch[1024]; /* the work's own data */
	uint64_t acc = 1, sum = 0, done = 0, t0;
	unsigned int b, i, w;

	t0 = rte_rdtsc();
	while (done < items) {
		for (b = 0; b < XLAT_LINES; b += 32) {
			const uint32_t *next = off + (b + 32) % XLAT_LINES;

			for (i = 0; i < 32; i++)
				rte_prefetch0(mem + next[i]);
			for (i = 0; i < 32; i++)
				for (w = 0; w < XLAT_WORK; w++) {
					acc += scratch[(acc + w * 7) & 1023];
					scratch[(w * 13 + i) & 1023] += (uint32_t)acc;
				}
			for (i = 0; i < 32; i++)
				sum += (unsigned char)mem[off[b + i]];
		}
		done += XLAT_LINES;
	}
	sink += sum + acc;
	return (double)(rte_rdtsc() - t0) / (double)done;
}

/* The probe's rows (before the tables' rows); a failure costs only them. */
static void xlat_probe(int json, unsigned int reps)
{
	const size_t size = (size_t)xlat_span_mib[XLAT_SPANS - 1] << 20;
	/* its own generator: the destinations drawn later stay those of any run */
	uint64_t r = 0x9e3779b97f4a7c15ull;
	uint32_t *off[XLAT_SPANS] = {NULL};
	double *v[XLAT_SPANS] = {NULL}, ratio[XLAT_SPANS], extra[XLAT_SPANS];
	double d[128]; /* --reps is at most 101 */
	const char *pages = "2 MiB hugepages";
	unsigned int s, k, i;
	char *mem = MAP_FAILED;

	/* the kind of pages kbench's own tables are in */
	if (rte_eal_has_hugepages()) {
		mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
		if (mem == MAP_FAILED)
			fprintf(stderr,
				"kbench: translation probe: no %zu MiB of 2 MiB hugepages (%s): "
				"it uses 4 KiB pages\n",
				size >> 20, strerror(errno));
	}
	if (mem == MAP_FAILED) {
		pages = "4 KiB pages";
		mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		/* not transparent hugepages either: what the label says */
		if (mem != MAP_FAILED)
			(void)madvise(mem, size, MADV_NOHUGEPAGE);
	}
	if (mem == MAP_FAILED) {
		fprintf(stderr, "kbench: translation probe skipped: no memory (%s)\n",
			strerror(errno));
		return;
	}
	memset(mem, 1, size);
	for (s = 0; s < XLAT_SPANS; s++) {
		/* one line in each of XLAT_LINES equal slices of the span, at
		 * the place in its slice that gives each L2 set as many lines
		 * as the packed run has, visited in a shuffled order */
		uint32_t slice = (uint32_t)(((size_t)xlat_span_mib[s] << 20) / 64 / XLAT_LINES);
		uint32_t per = slice < XLAT_SETS ? XLAT_SETS / slice : 1;

		off[s] = malloc(sizeof(*off[s]) * XLAT_LINES);
		v[s] = calloc(reps, sizeof(double));
		if (off[s] == NULL || v[s] == NULL) {
			fprintf(stderr, "kbench: translation probe skipped: no memory\n");
			goto out;
		}
		for (i = 0; i < XLAT_LINES; i++)
			off[s][i] = (uint32_t)((i * slice + (i / per) % slice) * 64);
		for (i = XLAT_LINES - 1; i > 0; i--) {
			uint32_t j = (uint32_t)(xorshift(&r) % (i + 1)), t;

			t = off[s][i];
			off[s][i] = off[s][j];
			off[s][j] = t;
		}
	}
	/* the spans interleaved rep by rep; an untimed pass before each run */
	for (k = 0; k < reps; k++)
		for (s = 0; s < XLAT_SPANS; s++) {
			xlat_run(mem, off[s], XLAT_LINES);
			v[s][k] = xlat_run(mem, off[s], 64 * XLAT_LINES);
		}
	/* against the packed run of the same repetition, before summarize()
	 * sorts: the ratio, and the cycles an item the spread adds */
	for (s = 0; s < XLAT_SPANS; s++) {
		ratio[s] = ratio_med(v[s], v[0], reps);
		for (k = 0; k < reps && k < RTE_DIM(d); k++)
			d[k] = v[s][k] - v[0][k];
		extra[s] = summarize(d, RTE_MIN(reps, (unsigned int)RTE_DIM(d))).med;
	}
	for (s = 0; s < XLAT_SPANS; s++) {
		struct stat3 st = summarize(v[s], reps);

		if (json)
			printf("{\"bench\":\"kbench_xlat\",\"span_mib\":%u,\"lines\":%u,"
			       "\"pages\":\"%s\",\"cycles\":%.2f,\"min\":%.2f,\"max\":%.2f,"
			       "\"ratio_to_packed\":%.3f,\"extra_cycles\":%.2f}\n",
			       xlat_span_mib[s], XLAT_LINES, pages, st.med, st.min, st.max,
			       ratio[s], extra[s]);
		else
			printf("# translation: %u lines over %3u MiB (%s): %6.1f cycles an item "
			       "[%.1f - %.1f], %.2fx packed, %+.1f cycles\n",
			       XLAT_LINES, xlat_span_mib[s], pages, st.med, st.min, st.max,
			       ratio[s], extra[s]);
	}
	fflush(stdout);
out:
	for (s = 0; s < XLAT_SPANS; s++) {
		free(off[s]);
		free(v[s]);
	}
	if (munmap(mem, size) != 0)
		fprintf(stderr, "kbench: translation probe: munmap: %s\n", strerror(errno));
}

static int bench6(const char *path, const char *dests_s, unsigned int reps, uint64_t min_pkts,
		  int json)
{
	struct route6 *rt = NULL;
	struct tables6 t;
	uint32_t n6 = 0;
	char *dsave, *dcopy = strdup(dests_s), *dtok;
	unsigned int di = 0;

	memset(&t, 0, sizeof(t));
	if (load_routes6(path, &rt, &n6) != 0 || n6 == 0) {
		fprintf(stderr, "kbench: no IPv6 routes in %s\n", path);
		return -1;
	}
	if (tables6_build(&t, rt, n6) != 0)
		return -1;
	if (json)
		printf("{\"bench\":\"kbench_load\",\"family\":6,\"routes\":%u,\"fib_s\":%.3f}\n",
		       t.nr, t.load_s);
	else
		printf("# %u IPv6 routes (/48 and /64) loaded: %.2f s\n", t.nr, t.load_s);
	for (dtok = strtok_r(dcopy, ",", &dsave); dtok != NULL;
	     dtok = strtok_r(NULL, ",", &dsave), di++) {
		uint32_t nd = (uint32_t)strtoul(dtok, NULL, 0);
		uint32_t len = RTE_ALIGN_CEIL(RTE_MAX(nd, 4096u), BURST);
		uint8_t(*d)[16] = malloc(16 * (size_t)len);
		uint8_t(*sr)[16] = malloc(16 * (size_t)len);
		uint8_t(*fixed)[16] = malloc(16 * (size_t)len);
		double *vd = calloc(reps, sizeof(double)), *vp = calloc(reps, sizeof(double));
		double *vs = calloc(reps, sizeof(double));
		uint64_t mp_pkts = RTE_MAX(min_pkts, (uint64_t)len);
		struct stat3 sd, sp, ss;
		unsigned int k, j;
		double rd = 0, rp = 0, rs = 0;

		if (nd == 0 || d == NULL || sr == NULL || fixed == NULL)
			return -1;
		make_dests6(rt, t.nr, d, nd, len);
		make_sources6(t.fib, rt, t.nr, sr, nd, len);
		for (k = 0; k < len; k++)
			memcpy(fixed[k], gw6[0], 16);
		for (k = 0; k < reps; k++) {
			double restore;

			/* each timed run follows an untimed pass of its own (see
			 * the IPv4 loop) */
			run_decision6(&t, d, len, len);
			vd[k] = run_decision6(&t, d, len, mp_pkts);
			restore = restore_cost6(&t, d, fixed, len, mp_pkts);
			run_pipeline6(&t, d, fixed, len, len, 1, DP_RPF_OFF);
			vp[k] = run_pipeline6(&t, d, fixed, len, mp_pkts, 1, DP_RPF_OFF) - restore;
			restore = restore_cost6(&t, d, sr, len, mp_pkts);
			run_pipeline6(&t, d, sr, len, len, 1, DP_RPF_STRICT);
			vs[k] = run_pipeline6(&t, d, sr, len, mp_pkts, 1, DP_RPF_STRICT) - restore;
		}
		sd = summarize(vd, reps);
		sp = summarize(vp, reps);
		ss = summarize(vs, reps);
		for (j = 0; j < nv4ref; j++)
			if (v4ref[j].dests == nd) {
				rd = sd.med / v4ref[j].decision;
				rp = sp.med / v4ref[j].pipeline;
				rs = ss.med / v4ref[j].strict;
			}
		report6(json, t.nr, nd, "decision6", sd, rd);
		report6(json, t.nr, nd, "pipeline6", sp, rp);
		report6(json, t.nr, nd, "rpf_strict6", ss, rs);
		free(d);
		free(sr);
		free(fixed);
		free(vd);
		free(vp);
		free(vs);
	}
	free(dcopy);
	fib_free(t.fib);
	neigh_free(t.neigh);
	free(rt);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {{"routes", required_argument, NULL, 'r'},
					   {"dests", required_argument, NULL, 'd'},
					   {"reps", required_argument, NULL, 'n'},
					   {"routes6", required_argument, NULL, '6'},
					   {"min-pkts", required_argument, NULL, 'm'},
					   {"json", no_argument, NULL, 'j'},
					   {"wait", no_argument, NULL, 'w'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	char *files = NULL, *dests_s = strdup("1,1000,1000000"), *tok, *save;
	unsigned int reps = 5, id = 0;
	const char *routes6 = NULL;
	uint64_t min_pkts = 4u << 20;
	int json = 0, wait = 0, c, rc;
	struct rte_mempool *mp;
	struct rtcache *cache;
	struct {
		struct route *rt;
		uint32_t nr;
		struct tables t;
	} tab[MAX_TABLES];
	unsigned int nt = 0, ti;

	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "kbench: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	fr_eal_runtime_dir_remove_at_exit();
	argc -= rc;
	argv += rc;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			files = strdup(optarg);
			break;
		case 'd':
			dests_s = strdup(optarg);
			break;
		case 'n':
			reps = (unsigned int)atoi(optarg);
			break;
		case '6':
			routes6 = optarg;
			break;
		case 'm':
			min_pkts = strtoull(optarg, NULL, 0);
			break;
		case 'j':
			json = 1;
			break;
		case 'w':
			wait = 1;
			break;
		default:
			usage();
			return c == 'h' ? 0 : 2;
		}
	}
	if (files == NULL || reps == 0 || reps > 101) {
		usage();
		return 2;
	}
	cache = rtcache_create(65536, 0, 0);
	mp = rte_pktmbuf_pool_create("kb_pool", MBUF_BURSTS * BURST * 3, 0, 0, 256, 0);
	if (mp == NULL || pkts_build(mp) != 0 || pkts6_build(mp) != 0) {
		fprintf(stderr, "kbench: cannot build packets\n");
		return 1;
	}
	if (!json)
		printf("%9s %9s  %-12s %8s  %-17s  %s\n", "routes", "dests", "metric", "cyc/pkt",
		       "spread", "vs reference [spread]");
	for (tok = strtok_r(files, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (nt == MAX_TABLES) {
			fprintf(stderr, "kbench: at most %u route files\n", MAX_TABLES);
			return 2;
		}
		if (load_routes(tok, &tab[nt].rt, &tab[nt].nr) != 0 || tab[nt].nr == 0) {
			fprintf(stderr, "kbench: no routes in %s\n", tok);
			return 1;
		}
		memset(&tab[nt].t, 0, sizeof(tab[nt].t));
		if (tables_build(&tab[nt].t, tab[nt].rt, tab[nt].nr, id++) != 0)
			return 1;
		if (json)
			printf("{\"bench\":\"kbench_load\",\"routes\":%u,\"fib_s\":%.3f,"
			       "\"lpm_s\":%.3f}\n",
			       tab[nt].nr, tab[nt].t.fib_load_s, tab[nt].t.lpm_load_s);
		else
			printf("# %u routes loaded: fastroute FIB %.2f s, rte_lpm %.2f s\n",
			       tab[nt].nr, tab[nt].t.fib_load_s, tab[nt].t.lpm_load_s);
		nt++;
	}
	fflush(stdout);
	if (wait) {
		char line[64];

		fprintf(stderr, "kbench: tables built; waiting for a line on stdin to measure\n");
		if (fgets(line, sizeof(line), stdin) == NULL) {
			fprintf(stderr, "kbench: stdin closed before the go line: not measuring\n");
			return 1;
		}
	}
	xlat_probe(json, reps);
	for (ti = 0; ti < nt; ti++) {
		struct route *rt = tab[ti].rt;
		struct tables t = tab[ti].t;
		uint32_t nr = tab[ti].nr;
		char *dsave, *dcopy = strdup(dests_s), *dtok;

		nv4ref = 0; /* the IPv6 rows compare with the last table */
		for (dtok = strtok_r(dcopy, ",", &dsave); dtok != NULL;
		     dtok = strtok_r(NULL, ",", &dsave)) {
			uint32_t nd = (uint32_t)strtoul(dtok, NULL, 0);
			/* stream length: a multiple of the burst, at least 4096 */
			uint32_t len = RTE_ALIGN_CEIL(RTE_MAX(nd, 4096u), BURST);
			uint32_t *d = malloc(sizeof(*d) * len);
			uint32_t *sr = malloc(sizeof(*sr) * len);
			uint32_t *fixed = malloc(sizeof(*fixed) * len);
			double *vl = calloc(reps, sizeof(double)),
			       *vs = calloc(reps, sizeof(double));
			double *vb = calloc(reps, sizeof(double)),
			       *vd = calloc(reps, sizeof(double));
			double *vp = calloc(reps, sizeof(double));
			double *vc = calloc(reps, sizeof(double)),
			       *va = calloc(reps, sizeof(double));
			double *vs2 = calloc(reps, sizeof(double));
			/* auto mode's own last measurement in each repetition */
			double *ap = calloc(reps, sizeof(double)),
			       *ab = calloc(reps, sizeof(double));
			unsigned int a_bypass = 0, a_n = 0;
			uint64_t mp_pkts = RTE_MAX(min_pkts, (uint64_t)len);
			struct stat3 sb, sd, sp, sl, ss, sc, sa;
			struct ratios rd, rp, rl, rs, ron, rs2, rau;
			unsigned int k;

			if (nd == 0 || d == NULL)
				return 1;
			make_dests(rt, nr, d, nd, len);
			make_sources(t.fib, rt, nr, sr, nd, len);
			for (k = 0; k < len; k++)
				fixed[k] = gw_ip[0];
			/* interleave the variants rep by rep, so drift hits all alike */
			for (k = 0; k < reps; k++) {
				uint64_t a0;
				double restore;

				/* Each timed run follows an untimed pass of its own
				 * over the destinations: what it reads is as warm
				 * in the caches as in a long run, whatever ran
				 * before it (a run right after cache_on, which
				 * sweeps the 4 MiB route cache, otherwise spends
				 * its first pass refetching the FIB from memory) */
				run_bare(&t, d, len, len);
				vb[k] = run_bare(&t, d, len, mp_pkts);
				run_decision(&t, d, len, len);
				vd[k] = run_decision(&t, d, len, mp_pkts);
				restore = restore_cost(&t, d, fixed, len, mp_pkts);
				vp[k] = pipeline(&t, d, fixed, len, mp_pkts, DP_RPF_OFF, NULL,
						 RTCACHE_OFF) -
					restore;
				/* rpf: sources as many and as random as the destinations */
				restore = restore_cost(&t, d, sr, len, mp_pkts);
				vl[k] = pipeline(&t, d, sr, len, mp_pkts, DP_RPF_LOOSE, NULL,
						 RTCACHE_OFF) -
					restore;
				vs[k] = pipeline(&t, d, sr, len, mp_pkts, DP_RPF_STRICT, NULL,
						 RTCACHE_OFF) -
					restore;
				/* the route cache, with rpf strict (its key then holds
				 * the source): off is the row above for cache on, and
				 * measured again right before auto, so each ratio
				 * pairs runs next to each other (auto's target, 3%,
				 * is finer than the drift across three runs here) */
				vc[k] = pipeline(&t, d, sr, len, mp_pkts, DP_RPF_STRICT, cache,
						 RTCACHE_ON) -
					restore;
				vs2[k] = pipeline(&t, d, sr, len, mp_pkts, DP_RPF_STRICT, NULL,
						  RTCACHE_OFF) -
					 restore;
				a0 = cache->measurements;
				va[k] = pipeline(&t, d, sr, len, mp_pkts, DP_RPF_STRICT, cache,
						 RTCACHE_AUTO) -
					restore;
				/* only a measurement this run finished (the figures
				 * outlive a mode change) */
				if (cache->measurements > a0) {
					ap[a_n] = cache->probe_cpp16 / 16.0;
					ab[a_n++] = cache->bypass_cpp16 / 16.0;
					a_bypass += cache->probe_cpp16 > cache->bypass_cpp16;
				}
			}
			/* ratios pair by pair within a repetition, then their
			 * median: drift between repetitions hits both sides */
			ratios_of(&rd, vd, vb, reps);
			ratios_of(&rp, vp, vb, reps);
			ratios_of(&rl, vl, vp, reps);
			ratios_of(&rs, vs, vp, reps);
			ratios_of(&ron, vc, vs, reps);
			ratios_of(&rs2, vs2, vs, reps);
			ratios_of(&rau, va, vs2, reps);
			sb = summarize(vb, reps);
			sd = summarize(vd, reps);
			sp = summarize(vp, reps);
			report(json, nr, nd, "bare_lpm", sb, NULL);
			report(json, nr, nd, "decision", sd, &rd);
			report(json, nr, nd, "pipeline", sp, &rp);
			sl = summarize(vl, reps);
			ss = summarize(vs, reps);
			/* rpf rows: the ratio is to the pipeline with rpf off */
			report(json, nr, nd, "rpf_loose", sl, &rl);
			report(json, nr, nd, "rpf_strict", ss, &rs);
			sc = summarize(vc, reps);
			sa = summarize(va, reps);
			/* cache rows: cache_on's ratio is to rpf_strict (cache
			 * off); rpf_strict again, run right before auto, is
			 * shown to rpf_strict (how far two runs of the same
			 * code drift apart), and auto's ratio is to it */
			report(json, nr, nd, "cache_on", sc, &ron);
			report(json, nr, nd, "rpf_strict_2", summarize(vs2, reps), &rs2);
			report(json, nr, nd, "cache_auto", sa, &rau);
			if (a_n > 0)
				report_auto(json, nr, nd, summarize(ap, a_n), summarize(ab, a_n),
					    a_bypass, a_n);
			else
				fprintf(stderr,
					"kbench: auto mode finished no measurement with %u "
					"destinations\n",
					nd);
			if (nv4ref < MAX_DESTS) {
				v4ref[nv4ref].dests = nd;
				v4ref[nv4ref].decision = sd.med;
				v4ref[nv4ref].pipeline = sp.med;
				v4ref[nv4ref++].strict = ss.med;
			}
			free(d);
			free(sr);
			free(fixed);
			free(vl);
			free(vs);
			free(vs2);
			free(ap);
			free(ab);
			free(vc);
			free(va);
			free(vb);
			free(vd);
			free(vp);
		}
		free(dcopy);
		tables_free(&t);
		free(rt);
	}
	if (routes6 != NULL && bench6(routes6, dests_s, reps, min_pkts, json) != 0) {
		fprintf(stderr, "kbench: IPv6 rows failed\n");
		return 1;
	}
	fflush(stdout);
	rte_eal_cleanup();
	return 0;
}
