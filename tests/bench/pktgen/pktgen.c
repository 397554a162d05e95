/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fastroute-pktgen: a one-core UDP/IPv4 traffic generator for the throughput
 * harness (scripts/bench/throughput.sh) and the zero-loss search
 * (scripts/bench/rfc2544.sh).
 *
 * Why our own generator and not testpmd --forward-mode=flowgen: flowgen walks
 * its destinations sequentially (base address + flow index), so consecutive
 * packets hit neighbouring entries of the device under test's lookup tables,
 * which stay cache-hot. It cannot produce the 1,000,000-random-destination
 * profile (the cache-miss / DoS case), nor destinations taken from the
 * router's actual table. This generator sends to destinations drawn from the
 * same route list the DUT loads (scripts/gen-routes N --format plain):
 *
 *   1flow     one destination, base+1 of the first route in the file (base
 *             for a /32): one flow in one direction, whatever the table's
 *             size (a one-route table has only one direction, so every
 *             table gets the same traffic)
 *   256nets   256 distinct routes (both directions), one address in each
 *             (base+1, base for a /32), round-robin
 *   1kflows   1,000 destinations, each a random address inside a random
 *             route (a working set a route cache can hold)
 *   random1m  1,000,000 destinations, each a random address inside a
 *             uniformly chosen route (deterministic from --seed)
 *   random6   the same over IPv6, from --routes6 (scripts/gen-routes N --ipv6
 *             --format plain): UDP/IPv6 frames of at least 62 bytes (66 with
 *             the FCS; a 64-byte frame cannot hold them)
 *
 * Ports come in pairs: ports 2i and 2i+1 face DUT ports 0 and 1 of pair i
 * (in practice net_memif servers; real NICs work as well). A destination the
 * DUT routes out of its port p (longest match over the whole list) is sent
 * on generator port 1-p of the pair, so it comes back on port p. If every
 * route points one way, only one port transmits.
 *
 * --size is the Ethernet frame size including the 4-byte FCS, as RFC 2544
 * counts it (64..1518); the frame the generator writes is size-4 bytes
 * (60..1514), as DPDK tools do (the NIC or the memif peer adds no FCS).
 *
 * Single-shot: wait for the pair's links, send --warmup seconds (not
 * counted), then --duration seconds during which tx and rx are counted per
 * port, print the rates (one JSON object with --json) and exit.
 * With --control, commands are read from stdin, one per line, and each
 * answer is one JSON line on stdout (the harness keeps one generator alive
 * while DUTs connect to different pairs):
 *   run [pair=I] [profile=P] [size=S] [warmup=W] [duration=D] [rate=R]
 *       [mode=window|trial] [routed=0|1]
 *   links
 *   quit
 * mode=window counts packets that cross the window's boundaries (steady
 * state, in-flight packets cancel out); mode=trial is RFC 2544's exact
 * count: traffic pauses and the ports drain after the warmup, counters
 * start from zero, and after the trial rx is counted until the ports are
 * quiet, so loss = tx - rx is exact; it counts only its own frames back
 * (UDP 1024 -> 1024), not the DUT's ARP, ND or ICMP nor a link's LLDP;
 * with routed=1 (the DUT is a router) only those whose TTL or hop limit it
 * took down, not a copy of ours that a switch or a loop sent back; and only
 * those that came back on the port they were meant for, the one opposite
 * the port that sent them (their source address says which sent them: the
 * two must differ). Ours back on the port that sent them are counted apart
 * (rx_wrong_port), not as received: a DUT that sends a frame back where it
 * came from has not forwarded it.
 * --rate MPPS paces the total offered load with a token bucket on the TSC
 * (0: as fast as the core goes).
 *
 * Per packet the generator writes only the destination address and the IPv4
 * header checksum (incrementally, from the template's sum): every
 * transmitting port has its own mbuf pool whose mbufs hold the whole frame of
 * the current run (template, zero payload, lengths), written once when the
 * frame changes, and mbufs are taken from it raw (a freed mbuf keeps its
 * data and lengths). The destinations are a table walked sequentially,
 * built once per profile: no RNG, division or allocation in the loop. What
 * is left per packet is mostly the PMD's: on memif, the copy into the ring
 * and, for the packets coming back, the copy out of it.
 *
 * When a port refuses packets (its ring is full: the DUT is slower than the
 * generator) they are freed and counted as tx_fail, and that port is left
 * alone for --backoff-us (2 us): retrying at once keeps the memif ring's
 * index cache lines bouncing between the two cores, which slowed the DUT by
 * up to 3x on the 2-vCPU VM (testpmd flowgen, which retries at once, drove
 * testpmd io at 0.2 Mpps there).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_fib.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <arpa/inet.h>

#include <rte_fib6.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "fr_eal.h"

#define MAX_PORTS    16
#define MAX_BURST    256
#define RX_BURST     128
#define NB_DESC	     1024
#define MBUF_CACHE   512
#define TX_CACHE     256
#define RANDOM_DESTS 1000000u
#define NETS_DESTS   256u
#define HDR_LEN \
	(sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr))
#define HDR6_LEN \
	(sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_udp_hdr))
#define QUIET_MS 20 /* drain: this long without a packet means the ports are quiet */
/* ... before a trial: every warmup frame is identical to a trial's, so one
 * a stalled DUT still held when the counters start would offset a trial's
 * loss; a DUT that holds frames this long is not forwarding at all */
#define PRE_QUIET_MS 500
#define DRAIN_MAX_MS 2000 /* drain at most this long (RFC 2544 waits 2 s) */
#define PROG	     "fastroute-pktgen"

enum profile { PROF_1FLOW = 0, PROF_256NETS, PROF_RANDOM1M, PROF_1K, PROF_RANDOM6, PROF_MAX };
static const char *const profile_names[PROF_MAX] = {"1flow", "256nets", "random1m", "1kflows",
						    "random6"};

enum run_mode { MODE_WINDOW = 0, MODE_TRIAL };

#define GEN_TTL 64 /* the TTL and hop limit of what we send */

struct route {
	uint32_t net; /* host order */
	uint8_t len;
	uint8_t port; /* DUT port the route leaves by: 0 or 1 */
};

struct route6 {
	uint8_t net[16];
	uint8_t len;
	uint8_t port;
};

/* destinations of one profile, split by the generator port they are sent on */
struct dests {
	bool built;
	uint32_t *addr[2];	 /* network order */
	uint8_t (*addr6[2])[16]; /* random6 */
	uint32_t n[2];
	uint32_t nets; /* distinct routes behind them */
};

struct run_params {
	unsigned int pair;
	enum profile profile;
	unsigned int size; /* frame size with FCS */
	double warmup, duration;
	double rate; /* Mpps, 0: unlimited */
	enum run_mode mode;
	bool routed; /* trial: count back only frames a router forwarded */
};

struct opts {
	const char *routes;
	const char *routes6;
	struct run_params run;
	uint64_t seed;
	struct rte_ether_addr dut_mac[2];
	uint32_t src_ip[2]; /* host order */
	double link_timeout;
	unsigned int burst;
	double backoff_us;
	unsigned int bucket;
	bool json;
	bool control;
};

static struct opts opt;
static struct route *routes;
static uint32_t nb_routes;
static struct rte_fib *fib; /* the route list, to find each destination's egress */
static struct route6 *routes6;
static uint32_t nb_routes6;
static struct rte_fib6 *fib6;
static struct dests dests[PROF_MAX];
static struct rte_mempool *pool; /* receive */
/* transmit, one per port: every mbuf holds the frame txframe[] describes */
static struct rte_mempool *txpool[MAX_PORTS];
static struct txframe {
	uint8_t hdr[HDR6_LEN];
	uint16_t hdr_len, frame_len; /* 0: not written yet */
} txframe[MAX_PORTS];
static uint16_t nb_ports;
static struct rte_ether_addr port_mac[MAX_PORTS];
static volatile bool quit;

static void on_signal(int sig)
{
	RTE_SET_USED(sig);
	quit = true;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [EAL options] -- --routes FILE [options]\n"
		"\n"
		"One-core UDP/IPv4 generator. Ports 2i, 2i+1 face DUT ports 0, 1 of pair i.\n"
		"\n"
		"  --routes FILE        'A.B.C.D/LEN PORT' lines (scripts/gen-routes N --format "
		"plain)\n"
		"  --routes6 FILE       'ADDR/LEN PORT' IPv6 lines, for profile random6\n"
		"                       (scripts/gen-routes N --ipv6 --format plain)\n"
		"  --profile P          1flow | 256nets | 1kflows | random1m | random6 (default\n"
		"                       1flow)\n"
		"  --size BYTES         frame size including FCS, 64..1518 (default 64); the "
		"frame\n"
		"                       written is BYTES-4 long\n"
		"  --warmup SEC         traffic before counting starts (default 1)\n"
		"  --duration SEC       counted window (default 5)\n"
		"  --rate MPPS          total offered rate, token bucket on the TSC (default 0:\n"
		"                       as fast as possible)\n"
		"  --bucket N           token bucket depth per port, packets (default 256): how\n"
		"                       much a short stall of the generator is made up for\n"
		"  --mode window|trial  window: steady-state counts (default); trial: exact "
		"counts\n"
		"                       (pause, drain, count from zero, drain after), for loss:\n"
		"                       only our frames back on the port opposite the one\n"
		"                       that sent them count (the others: rx_wrong_port)\n"
		"  --pair I             port pair to use (default 0)\n"
		"  --seed N             random1m destinations (default 1)\n"
		"  --dut-mac0 MAC       destination MAC of frames to DUT port 0 (default\n"
		"  --dut-mac1 MAC       02:00:00:00:00:10, ...:11)\n"
		"  --src-ip0 A.B.C.D    source of the frames to DUT port 0 (default 192.0.2.2)\n"
		"  --src-ip1 A.B.C.D    source of those to DUT port 1 (default 198.51.100.2);\n"
		"                       the two must differ (a trial tells the sender by it)\n"
		"  --burst N            TX burst (default 32, max %d)\n"
		"  --backoff-us US      after the port refused packets (ring full), wait this "
		"long\n"
		"                       before trying it again (default 2)\n"
		"  --link-timeout SEC   wait at most this long for the pair's links (default 10)\n"
		"  --json               one JSON object on stdout\n"
		"  --control            read commands from stdin: 'run [pair=I] [profile=P]\n"
		"                       [size=S] [warmup=W] [duration=D] [rate=R] [mode=M]',\n"
		"                       'links', 'quit'; answers are JSON lines\n"
		"  -h, --help           this text\n",
		MAX_BURST);
}

/* --- small helpers ------------------------------------------------------------------------ */

static uint64_t rng_state;

/* splitmix64: deterministic, fast, good enough for picking destinations */
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int parse_double(const char *name, const char *s, double min, double max, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || !(x >= min && x <= max)) {
		fprintf(stderr, PROG ": %s: '%s' is not a number in %g..%g\n", name, s, min, max);
		return -1;
	}
	*v = x;
	return 0;
}

static int parse_uint(const char *name, const char *s, unsigned long long min,
		      unsigned long long max, unsigned long long *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 || x < min || x > max) {
		fprintf(stderr, PROG ": %s: '%s' is not a number in %llu..%llu\n", name, s, min,
			max);
		return -1;
	}
	*v = x;
	return 0;
}

static int parse_profile(const char *s, enum profile *p)
{
	int i;

	for (i = 0; i < PROF_MAX; i++) {
		if (strcmp(s, profile_names[i]) == 0) {
			*p = (enum profile)i;
			return 0;
		}
	}
	fprintf(stderr, PROG ": profile '%s': use 1flow, 256nets, 1kflows, random1m or random6\n",
		s);
	return -1;
}

static int parse_mode(const char *s, enum run_mode *m)
{
	if (strcmp(s, "window") == 0) {
		*m = MODE_WINDOW;
	} else if (strcmp(s, "trial") == 0) {
		*m = MODE_TRIAL;
	} else {
		fprintf(stderr, PROG ": mode '%s': use window or trial\n", s);
		return -1;
	}
	return 0;
}

static int parse_ip(const char *name, const char *s, uint32_t *ip)
{
	unsigned int a, b, c, d;
	char tail;

	if (sscanf(s, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) != 4 || a > 255 || b > 255 ||
	    c > 255 || d > 255) {
		fprintf(stderr, PROG ": %s: '%s' is not an IPv4 address\n", name, s);
		return -1;
	}
	*ip = a << 24 | b << 16 | c << 8 | d;
	return 0;
}

/* --- the route list and the destinations ------------------------------------------------- */

/* host bits of a /len (a shift by 32 is undefined in C: /32 and /0 by hand) */
static uint32_t host_mask(uint8_t len)
{
	if (len == 0)
		return UINT32_MAX;
	return len >= 32 ? 0 : UINT32_MAX >> len;
}

static int routes_load(const char *path)
{
	char line[256];
	uint32_t cap = 1024, lineno = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		fprintf(stderr, PROG ": --routes %s: %s\n", path, strerror(errno));
		return -1;
	}
	routes = malloc(cap * sizeof(*routes));
	if (routes == NULL)
		goto nomem;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned int a, b, c, d, len, port;
		char *p = line;

		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		if (sscanf(p, "%u.%u.%u.%u/%u %u", &a, &b, &c, &d, &len, &port) != 6 || a > 255 ||
		    b > 255 || c > 255 || d > 255 || len > 32 || port > 1) {
			fprintf(stderr,
				PROG ": %s:%u: expected 'A.B.C.D/LEN PORT' with PORT 0 or 1 "
				     "(scripts/gen-routes N --format plain)\n",
				path, lineno);
			fclose(f);
			return -1;
		}
		if (nb_routes == cap) {
			struct route *nr;

			cap *= 2;
			nr = realloc(routes, cap * sizeof(*routes));
			if (nr == NULL)
				goto nomem;
			routes = nr;
		}
		routes[nb_routes].len = (uint8_t)len;
		routes[nb_routes].net = (a << 24 | b << 16 | c << 8 | d) & ~host_mask((uint8_t)len);
		routes[nb_routes].port = (uint8_t)port;
		nb_routes++;
	}
	fclose(f);
	if (nb_routes == 0) {
		fprintf(stderr, PROG ": %s: no routes\n", path);
		return -1;
	}
	return 0;
nomem:
	fclose(f);
	fprintf(stderr, PROG ": out of memory reading %s\n", path);
	return -1;
}

/* Longest match over the list, in rte_fib: next hop = DUT port + 1 (0: no route). */
static int fib_build(void)
{
	struct rte_fib_conf conf = {0};
	uint32_t i, long_routes = 0;
	int rc;

	/* one tbl8 group at most per route longer than /24 */
	for (i = 0; i < nb_routes; i++)
		long_routes += routes[i].len > 24;
	conf.type = RTE_FIB_DIR24_8;
	conf.default_nh = 0;
	conf.max_routes = (int)nb_routes + 16;
	conf.dir24_8.nh_sz = RTE_FIB_DIR24_8_4B;
	conf.dir24_8.num_tbl8 = long_routes + 64;
	fib = rte_fib_create("pktgen_fib", (int)rte_socket_id(), &conf);
	if (fib == NULL) {
		fprintf(stderr,
			PROG ": cannot create the lookup table for %u routes: %s (give EAL more "
			     "memory: -m)\n",
			nb_routes, rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < nb_routes; i++) {
		rc = rte_fib_add(fib, routes[i].net, routes[i].len, routes[i].port + 1u);
		if (rc != 0) {
			fprintf(stderr, PROG ": route %u: rte_fib_add: %s\n", i, rte_strerror(-rc));
			return -1;
		}
	}
	return 0;
}

static uint32_t host_in(const struct route *r, uint64_t rnd)
{
	return r->net | ((uint32_t)rnd & host_mask(r->len));
}

/* the usual pick: base+1, or base for a /32 */
static uint32_t host_first(const struct route *r)
{
	return r->len >= 32 ? r->net : r->net + 1;
}

/*
 * Split @n addresses (host order) by the generator port that sends them:
 * the one opposite the DUT port the longest match leaves by. Addresses with
 * no route (impossible: each lies inside a listed route) are dropped.
 */
static int dests_split(struct dests *d, const uint32_t *addr, uint32_t n)
{
	uint64_t *nh = malloc((size_t)n * sizeof(*nh));
	uint32_t i, k[2] = {0, 0}, cnt[2] = {0, 0};
	int s;

	if (nh == NULL)
		return -ENOMEM;
	/* rte_fib_lookup_bulk takes a non-const array */
	for (i = 0; i < n; i += 65536) {
		uint32_t m = RTE_MIN(65536u, n - i);

		rte_fib_lookup_bulk(fib, (uint32_t *)(uintptr_t)(addr + i), nh + i, (int)m);
	}
	for (i = 0; i < n; i++)
		if (nh[i] == 1 || nh[i] == 2)
			cnt[1 - (nh[i] - 1)]++; /* DUT port p: sent on generator port 1-p */
	for (s = 0; s < 2; s++) {
		d->n[s] = cnt[s];
		d->addr[s] = cnt[s] ? rte_malloc("dests", cnt[s] * sizeof(uint32_t), 64) : NULL;
		if (cnt[s] && d->addr[s] == NULL) {
			free(nh);
			return -ENOMEM;
		}
	}
	for (i = 0; i < n; i++) {
		if (nh[i] != 1 && nh[i] != 2)
			continue;
		s = 1 - (int)(nh[i] - 1);
		d->addr[s][k[s]++] = rte_cpu_to_be_32(addr[i]);
	}
	free(nh);
	return 0;
}

/* IPv6 routes: 'ADDR/LEN PORT' lines */
static int routes6_load(const char *path)
{
	char line[256], a[64];
	uint32_t cap = 1024, lineno = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		fprintf(stderr, PROG ": --routes6 %s: %s\n", path, strerror(errno));
		return -1;
	}
	routes6 = malloc(cap * sizeof(*routes6));
	if (routes6 == NULL) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned int len, port;
		char *slash;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%63s %u", a, &port) != 2 || (slash = strchr(a, '/')) == NULL ||
		    (*slash = '\0', inet_pton(AF_INET6, a, routes6[nb_routes6].net) != 1) ||
		    sscanf(slash + 1, "%u", &len) != 1 || len > 128 || port > 1) {
			fprintf(stderr,
				PROG
				": %s:%u: expected 'ADDR/LEN PORT' (scripts/gen-routes N --ipv6 "
				"--format plain)\n",
				path, lineno);
			fclose(f);
			return -1;
		}
		routes6[nb_routes6].len = (uint8_t)len;
		routes6[nb_routes6].port = (uint8_t)port;
		if (++nb_routes6 == cap) {
			struct route6 *nr;

			cap *= 2;
			nr = realloc(routes6, cap * sizeof(*routes6));
			if (nr == NULL) {
				fclose(f);
				return -1;
			}
			routes6 = nr;
		}
	}
	fclose(f);
	if (nb_routes6 == 0) {
		fprintf(stderr, PROG ": %s: no routes\n", path);
		return -1;
	}
	return 0;
}

static int fib6_build(void)
{
	struct rte_fib6_conf conf = {0};
	uint32_t i;
	int rc;

	conf.type = RTE_FIB6_TRIE;
	conf.default_nh = 0;
	conf.max_routes = (int)nb_routes6 + 16;
	conf.trie.nh_sz = RTE_FIB6_TRIE_4B;
	conf.trie.num_tbl8 = nb_routes6 * 5 + 64; /* a /64 of its own takes five groups */
	fib6 = rte_fib6_create("pktgen_fib6", (int)rte_socket_id(), &conf);
	if (fib6 == NULL) {
		fprintf(stderr, PROG ": cannot create the IPv6 lookup table: %s (more -m)\n",
			rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < nb_routes6; i++) {
		rc = rte_fib6_add(fib6, routes6[i].net, routes6[i].len, routes6[i].port + 1u);
		if (rc != 0) {
			fprintf(stderr, PROG ": IPv6 route %u: %s\n", i, rte_strerror(-rc));
			return -1;
		}
	}
	return 0;
}

/* random6: RANDOM_DESTS random addresses inside random IPv6 routes, split
 * by the generator port opposite the DUT port of the longest match */
static int dests6_build(struct dests *d)
{
	uint8_t(*a)[16] = malloc((size_t)RANDOM_DESTS * 16);
	uint64_t *nh = malloc((size_t)RANDOM_DESTS * sizeof(*nh));
	uint32_t i, k[2] = {0, 0}, cnt[2] = {0, 0};
	unsigned int b;
	int side;

	if (fib6 == NULL) {
		free(a);
		free(nh);
		return -ENOENT; /* no --routes6 */
	}
	if (a == NULL || nh == NULL) {
		free(a);
		free(nh);
		return -ENOMEM;
	}
	rng_state = opt.seed;
	for (i = 0; i < RANDOM_DESTS; i++) {
		const struct route6 *r = &routes6[(rng_next() >> 32) % nb_routes6];
		uint64_t x = rng_next(), y = rng_next();

		memcpy(a[i], r->net, 16);
		for (b = r->len / 8; b < 16; b++)
			a[i][b] = (uint8_t)((b < 8 ? x : y) >> (8 * (b % 8)));
		if (r->len % 8)
			a[i][r->len / 8] =
				(uint8_t)((r->net[r->len / 8] & (0xff << (8 - r->len % 8))) |
					  (a[i][r->len / 8] & (0xff >> (r->len % 8))));
	}
	rte_fib6_lookup_bulk(fib6, a, nh, RANDOM_DESTS);
	for (i = 0; i < RANDOM_DESTS; i++)
		if (nh[i] == 1 || nh[i] == 2)
			cnt[1 - (nh[i] - 1)]++;
	for (side = 0; side < 2; side++) {
		d->n[side] = cnt[side];
		d->addr6[side] = cnt[side] ? rte_malloc("dests6", cnt[side] * 16, 64) : NULL;
	}
	for (i = 0; i < RANDOM_DESTS; i++) {
		if (nh[i] != 1 && nh[i] != 2)
			continue;
		side = 1 - (int)(nh[i] - 1);
		if (d->addr6[side] != NULL)
			memcpy(d->addr6[side][k[side]++], a[i], 16);
	}
	d->nets = RTE_MIN(nb_routes6, RANDOM_DESTS);
	free(a);
	free(nh);
	return 0;
}

static int dests_build(enum profile p)
{
	struct dests *d = &dests[p];
	uint32_t *addr = NULL, n = 0, i;
	int rc;

	if (d->built)
		return 0;
	if (p == PROF_RANDOM6) {
		rc = dests6_build(d);
		d->built = rc == 0;
		return rc;
	}
	switch (p) {
	case PROF_1FLOW:
		/* the first route of the file, one direction: the same flow for
		 * every table (gen-routes' tables begin alike), which a one-route
		 * table could not give in both directions */
		addr = malloc(sizeof(*addr));
		if (addr == NULL)
			return -ENOMEM;
		addr[n++] = host_first(&routes[0]);
		d->nets = 1;
		break;
	case PROF_256NETS: {
		/* 256 distinct routes, as evenly split between the directions as the
		 * list allows, in file order (gen-routes' order is random); with
		 * fewer routes, 256 distinct addresses spread over all of them */
		uint32_t want[2], have[2] = {0, 0}, taken[2] = {0, 0};

		for (i = 0; i < nb_routes; i++)
			have[routes[i].port]++;
		want[0] = RTE_MIN(have[0], NETS_DESTS / 2);
		want[1] = RTE_MIN(have[1], NETS_DESTS - want[0]);
		want[0] = RTE_MIN(have[0], NETS_DESTS - want[1]);
		addr = malloc(NETS_DESTS * sizeof(*addr));
		if (addr == NULL)
			return -ENOMEM;
		if (nb_routes >= NETS_DESTS) {
			for (i = 0; i < nb_routes && n < NETS_DESTS; i++) {
				uint8_t port = routes[i].port;

				if (taken[port] < want[port]) {
					taken[port]++;
					addr[n++] = host_first(&routes[i]);
				}
			}
			d->nets = n;
		} else {
			for (i = 0; i < NETS_DESTS; i++) {
				const struct route *r = &routes[i % nb_routes];
				uint32_t k = i / nb_routes;

				addr[n++] =
					r->net | ((host_first(r) - r->net + k) & host_mask(r->len));
			}
			d->nets = nb_routes;
		}
		break;
	}
	case PROF_RANDOM1M:
	case PROF_1K:
	default: {
		/* 1kflows: a thousand random destinations, a working set a route
		 * cache holds; random1m: a million, one it cannot */
		uint32_t count = p == PROF_1K ? 1000 : RANDOM_DESTS;

		addr = malloc(count * sizeof(*addr));
		if (addr == NULL)
			return -ENOMEM;
		rng_state = opt.seed;
		for (i = 0; i < count; i++) {
			uint64_t r = rng_next();
			const struct route *rt = &routes[(r >> 32) % nb_routes];

			addr[n++] = host_in(rt, rng_next());
		}
		d->nets = RTE_MIN(nb_routes, count);
		break;
	}
	}
	rc = dests_split(d, addr, n);
	free(addr);
	if (rc != 0)
		return rc;
	d->built = true;
	return 0;
}

/* --- ports ---------------------------------------------------------------------------------- */

static int ports_init(void)
{
	uint16_t pid;
	unsigned int n;

	nb_ports = rte_eth_dev_count_avail();
	if (nb_ports < 2 || nb_ports % 2 != 0 || nb_ports > MAX_PORTS) {
		fprintf(stderr,
			PROG ": %u ports: need an even number from 2 to %d (pairs facing the DUT's "
			     "ports 0 and 1), e.g. two --vdev net_memif...,role=server\n",
			nb_ports, MAX_PORTS);
		return -1;
	}
	n = nb_ports * (NB_DESC + MAX_BURST + RX_BURST) + 2 * MBUF_CACHE + 1024;
	n = rte_align32pow2(n) - 1;
	pool = rte_pktmbuf_pool_create("pktgen_pool", n, MBUF_CACHE, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, PROG ": cannot create %u mbufs: %s (give EAL more memory: -m)\n", n,
			rte_strerror(rte_errno));
		return -1;
	}
	/* what a NIC's TX ring holds, a burst and the cache (memif copies
	 * and frees at once) */
	n = rte_align32pow2(2 * NB_DESC + MAX_BURST + TX_CACHE) - 1;
	for (pid = 0; pid < nb_ports; pid++) {
		char name[RTE_MEMPOOL_NAMESIZE];

		snprintf(name, sizeof(name), "pktgen_tx%u", pid);
		txpool[pid] = rte_pktmbuf_pool_create(
			name, n, TX_CACHE, 0, RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
		if (txpool[pid] == NULL) {
			fprintf(stderr,
				PROG ": cannot create %u mbufs for port %u: %s (give EAL more "
				     "memory: -m)\n",
				n, pid, rte_strerror(rte_errno));
			return -1;
		}
	}
	RTE_ETH_FOREACH_DEV (pid) {
		struct rte_eth_conf conf = {0};
		struct rte_eth_dev_info info;
		struct rte_eth_txconf txc;
		uint16_t nrx = NB_DESC, ntx = NB_DESC;
		int rc;

		rc = rte_eth_dev_info_get(pid, &info);
		if (rc != 0)
			goto fail;
		if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
			conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
		rc = rte_eth_dev_configure(pid, 1, 1, &conf);
		if (rc != 0)
			goto fail;
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nrx, &ntx);
		if (rc != 0)
			goto fail;
		rc = rte_eth_rx_queue_setup(pid, 0, nrx,
					    rte_eth_dev_socket_id(pid) < 0
						    ? rte_socket_id()
						    : (unsigned int)rte_eth_dev_socket_id(pid),
					    NULL, pool);
		if (rc != 0)
			goto fail;
		txc = info.default_txconf;
		txc.offloads = conf.txmode.offloads;
		rc = rte_eth_tx_queue_setup(pid, 0, ntx, rte_socket_id(), &txc);
		if (rc != 0)
			goto fail;
		rc = rte_eth_dev_start(pid);
		if (rc != 0)
			goto fail;
		rte_eth_promiscuous_enable(pid); /* best effort: memif has no such thing */
		rte_eth_macaddr_get(pid, &port_mac[pid]);
		continue;
	fail:
		fprintf(stderr, PROG ": port %u: setup failed: %s\n", pid, rte_strerror(-rc));
		return -1;
	}
	return 0;
}

static bool link_up(uint16_t pid)
{
	struct rte_eth_link link;

	if (rte_eth_link_get_nowait(pid, &link) != 0)
		return false;
	return link.link_status == RTE_ETH_LINK_UP;
}

static int wait_links(unsigned int pair, char *err, size_t errlen)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t deadline = rte_rdtsc() + (uint64_t)(opt.link_timeout * (double)hz);
	uint16_t p0 = (uint16_t)(2 * pair), p1 = (uint16_t)(2 * pair + 1);

	while (!quit) {
		bool up0 = link_up(p0), up1 = link_up(p1);

		if (up0 && up1)
			return 0;
		if (rte_rdtsc() > deadline) {
			snprintf(err, errlen,
				 "links of pair %u not up after %g s (port %u %s, port %u %s): is "
				 "the DUT connected?",
				 pair, opt.link_timeout, p0, up0 ? "up" : "down", p1,
				 up1 ? "up" : "down");
			return -1;
		}
		rte_delay_us_sleep(10000);
	}
	snprintf(err, errlen, "interrupted");
	return -1;
}

/* --- the loop --------------------------------------------------------------------------------- */

struct hdr_tpl {
	uint8_t bytes[HDR6_LEN];
	uint32_t csum_base; /* one's complement sum of the IPv4 header, dst and checksum 0 */
};

struct counters {
	uint64_t tx[2], tx_fail[2], rx[2];
	uint64_t rx_wrong[2]; /* trial mode: ours, back on the port that sent them */
};

static void tpl_build(struct hdr_tpl *t, unsigned int pair, unsigned int side, uint16_t frame_len)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)t->bytes;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint16_t w[sizeof(struct rte_ipv4_hdr) / 2];
	uint32_t sum = 0;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	rte_ether_addr_copy(&opt.dut_mac[side], &eth->dst_addr);
	rte_ether_addr_copy(&port_mac[2 * pair + side], &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(frame_len - sizeof(*eth)));
	ip->time_to_live = GEN_TTL;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(opt.src_ip[side]);
	udp->src_port = rte_cpu_to_be_16(1024);
	udp->dst_port = rte_cpu_to_be_16(1024);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(frame_len - sizeof(*eth) - sizeof(*ip)));
	udp->dgram_cksum = 0; /* none: allowed for UDP over IPv4 */
	memcpy(w, ip, sizeof(w));
	for (i = 0; i < RTE_DIM(w); i++)
		sum += w[i];
	t->csum_base = sum;
}

/* the IPv6 source of the frames sent on each side of a pair */
static const uint8_t src6[2][16] = {{0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2},
				    {0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 2}};

/* UDP/IPv6, hop limit 64, from the side's source; the UDP checksum stays 0
 * (invalid for IPv6, and irrelevant to a router: none of the DUTs reads it) */
static void tpl6_build(struct hdr_tpl *t, unsigned int pair, unsigned int side, uint16_t frame_len)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)t->bytes;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	memset(t, 0, sizeof(*t));
	rte_ether_addr_copy(&opt.dut_mac[side], &eth->dst_addr);
	rte_ether_addr_copy(&port_mac[2 * pair + side], &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(frame_len - sizeof(*eth) - sizeof(*ip)));
	ip->proto = IPPROTO_UDP;
	ip->hop_limits = GEN_TTL;
	memcpy(ip->src_addr, src6[side], 16);
	udp->src_port = rte_cpu_to_be_16(1024);
	udp->dst_port = rte_cpu_to_be_16(1024);
	udp->dgram_len = ip->payload_len;
}

static inline uint16_t csum_with_dst(uint32_t base, uint32_t dst_be)
{
	uint32_t sum = base + (dst_be & 0xffff) + (dst_be >> 16);

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

struct txside {
	uint16_t port;
	struct rte_mempool *pool; /* txpool[port]: the frames are in its mbufs */
	const uint32_t *addr;
	uint8_t (*addr6)[16]; /* random6: IPv6 destinations instead */
	uint32_t n, idx;
	struct hdr_tpl tpl;
	double tokens, tokens_per_tsc;
	uint64_t next_tsc; /* after a refusal: do not try again before this */
};

static void frame_write(struct rte_mempool *mp, void *opaque, void *obj, unsigned int idx)
{
	const struct txframe *f = opaque;
	struct rte_mbuf *m = obj;
	uint8_t *d;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	rte_pktmbuf_reset(m);
	d = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(d, f->hdr, f->hdr_len);
	memset(d + f->hdr_len, 0, f->frame_len - f->hdr_len);
	m->data_len = f->frame_len;
	m->pkt_len = f->frame_len;
}

/*
 * Make every mbuf of @port's pool hold @hdr followed by zeros, @frame_len
 * bytes: a freed mbuf keeps its data and lengths (the PMDs only read them),
 * so the loop takes them raw and writes the destination alone. Rewritten
 * only when the frame changes (between runs: memif has copied and freed
 * every mbuf by then; a NIC may still hold some, which it has read).
 */
static void txpool_frame(uint16_t port, const uint8_t *hdr, uint16_t hdr_len, uint16_t frame_len)
{
	struct txframe *f = &txframe[port];

	if (f->frame_len == frame_len && f->hdr_len == hdr_len && memcmp(f->hdr, hdr, hdr_len) == 0)
		return;
	memcpy(f->hdr, hdr, hdr_len);
	f->hdr_len = hdr_len;
	f->frame_len = frame_len;
	rte_mempool_obj_iter(txpool[port], frame_write, f);
}

/* offsets in the frame of what each packet changes */
#define OFF_DST4  (sizeof(struct rte_ether_hdr) + offsetof(struct rte_ipv4_hdr, dst_addr))
#define OFF_CSUM4 (sizeof(struct rte_ether_hdr) + offsetof(struct rte_ipv4_hdr, hdr_checksum))
#define OFF_DST6  (sizeof(struct rte_ether_hdr) + offsetof(struct rte_ipv6_hdr, dst_addr))

/* one TX burst on @t: at most @want packets; returns packets accepted */
static inline uint16_t tx_one(struct txside *t, uint16_t want, uint64_t *fail)
{
	struct rte_mbuf *m[MAX_BURST];
	uint16_t i, sent;
	uint32_t idx = t->idx;

	/* raw: the frames are there already (txpool_frame) */
	if (unlikely(rte_mempool_get_bulk(t->pool, (void **)m, want) != 0))
		return 0;
	if (unlikely(t->addr6 != NULL)) {
		for (i = 0; i < want; i++) {
			memcpy(rte_pktmbuf_mtod_offset(m[i], uint8_t *, OFF_DST6), t->addr6[idx],
			       16);
			if (++idx == t->n)
				idx = 0;
		}
	} else {
		const uint32_t base = t->tpl.csum_base;

		for (i = 0; i < want; i++) {
			uint8_t *d = rte_pktmbuf_mtod(m[i], uint8_t *);
			uint32_t dst = t->addr[idx];

			if (++idx == t->n)
				idx = 0;
			*(unaligned_uint32_t *)(d + OFF_DST4) = dst;
			*(unaligned_uint16_t *)(d + OFF_CSUM4) = csum_with_dst(base, dst);
		}
	}
	t->idx = idx;
	sent = rte_eth_tx_burst(t->port, 0, m, want);
	if (unlikely(sent < want)) {
		/* untouched by the PMD: back as they are */
		rte_mempool_put_bulk(t->pool, (void **)(m + sent), want - sent);
		*fail += want - sent;
	}
	return sent;
}

/* Trial mode counts only our own frames back (below); window mode counts
 * every frame, in its hot loop. */
static bool rx_own_only;
/* ... and, a router the DUT, only those it forwarded: their TTL (hop
 * limit) below the 64 we send, not a copy of ours a switch sent back */
static bool rx_routed;

enum { NOT_OURS, OURS, OURS_WRONG_PORT };

/*
 * One of the frames we send, forwarded back: UDP from port 1024 to port
 * 1024 over IPv4 (no options) or IPv6, from one of our two sources. Not the
 * DUT's own (ARP, ND, ICMP errors) nor a link's (LLDP, STP): a trial on real
 * NICs would count those against its losses. OURS when it came back on
 * @side, the side opposite the one that sent it (its source: the sender's
 * side's); OURS_WRONG_PORT when it came back on the side that sent it.
 */
static inline int frame_ours(const struct rte_mbuf *x, unsigned int side)
{
	const uint8_t *b = rte_pktmbuf_mtod(x, const uint8_t *);
	static const uint8_t ports[4] = {0x04, 0x00, 0x04, 0x00}; /* 1024, 1024 */
	uint16_t et;

	memcpy(&et, b + 12, 2);
	if (et == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		uint32_t src;

		if (x->data_len < 14 + 20 + 8 || b[14] != 0x45 || b[23] != IPPROTO_UDP ||
		    memcmp(b + 34, ports, 4) != 0 || (rx_routed && b[22] >= GEN_TTL))
			return NOT_OURS;
		memcpy(&src, b + 26, 4);
		src = rte_be_to_cpu_32(src);
		if (src == opt.src_ip[side ^ 1])
			return OURS;
		return src == opt.src_ip[side] ? OURS_WRONG_PORT : NOT_OURS;
	}
	if (et == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		if (x->data_len < 14 + 40 + 8 || b[20] != IPPROTO_UDP ||
		    memcmp(b + 54, ports, 4) != 0 || (rx_routed && b[21] >= GEN_TTL))
			return NOT_OURS;
		if (memcmp(b + 22, src6[side ^ 1], 16) == 0)
			return OURS;
		return memcmp(b + 22, src6[side], 16) == 0 ? OURS_WRONG_PORT : NOT_OURS;
	}
	return NOT_OURS;
}

/* Receive one burst on @port; returns what counts as received there (in
 * trial mode, ours back on the right port: frame_ours()), and adds ours
 * back on the wrong one to *@wrong. */
static inline uint16_t rx_one(uint16_t port, uint64_t *wrong)
{
	struct rte_mbuf *m[RX_BURST];
	uint16_t n = rte_eth_rx_burst(port, 0, m, RX_BURST), i, ours = n;

	if (unlikely(rx_own_only)) {
		for (ours = 0, i = 0; i < n; i++) {
			int k = frame_ours(m[i], port & 1u);

			ours += k == OURS;
			*wrong += k == OURS_WRONG_PORT;
		}
	}

	/* what the PMDs give here (one direct segment of the pool, referenced
	 * once) goes back to the pool as it is, without rte_pktmbuf_free's
	 * general case */
	for (i = 0; i < n; i++) {
		const struct rte_mbuf *x = m[i];

		if (unlikely(x->nb_segs != 1 || !RTE_MBUF_DIRECT(x) ||
			     rte_mbuf_refcnt_read(x) != 1 || x->pool != pool))
			break;
	}
	if (likely(i == n)) {
		if (n)
			rte_mempool_put_bulk(pool, (void **)m, n);
	} else {
		rte_pktmbuf_free_bulk(m, n);
	}
	return ours;
}

/* Receive on both ports of @pair until nothing arrived for @quiet_ms (at
 * most DRAIN_MAX_MS); counted into @c when not NULL. */
static uint64_t drain(unsigned int pair, struct counters *c, uint64_t quiet_ms)
{
	uint64_t junk = 0;
	uint64_t hz = rte_get_tsc_hz(), now = rte_rdtsc();
	uint64_t quiet = now + hz * quiet_ms / 1000, deadline = now + hz * DRAIN_MAX_MS / 1000;
	uint64_t total = 0;
	unsigned int s;

	while (now < quiet && now < deadline) {
		for (s = 0; s < 2; s++) {
			uint64_t *wrong = c != NULL ? &c->rx_wrong[s] : &junk;
			uint64_t w0 = *wrong;
			uint16_t n = rx_one((uint16_t)(2 * pair + s), wrong);

			if (n || *wrong != w0) {
				total += n;
				if (c != NULL)
					c->rx[s] += n;
				quiet = now + hz * quiet_ms / 1000;
			}
		}
		now = rte_rdtsc();
	}
	return total;
}

struct result {
	struct counters c;
	double seconds;
	uint32_t dests, nets;
	bool tx_side[2];
	double gen_idle; /* share of loop iterations that sent nothing (ring full, pacing) */
};

/*
 * Send on the pair's transmitting ports and receive on both. Phase 0: warmup,
 * phase 1: counted window, then stop and drain. In trial mode the ports are
 * drained (uncounted) between warmup and the trial, and rx is counted during
 * the final drain as well.
 */
static void run_traffic(const struct run_params *rp, struct result *res)
{
	uint64_t hz = rte_get_tsc_hz();
	uint16_t frame_len = (uint16_t)(rp->size - RTE_ETHER_CRC_LEN);
	struct dests *d = &dests[rp->profile];
	bool v6 = rp->profile == PROF_RANDOM6;
	struct txside tx[2];
	unsigned int ntx = 0, s;
	struct counters cnt;
	uint64_t now, t_start, t_end, last, loops = 0, idle = 0, junk = 0;
	uint64_t backoff_tsc = (uint64_t)(opt.backoff_us * 1e-6 * (double)hz);
	int phase;

	memset(&cnt, 0, sizeof(cnt));
	rx_own_only = rp->mode == MODE_TRIAL;
	rx_routed = rp->routed;
	memset(res, 0, sizeof(*res));
	for (s = 0; s < 2; s++) {
		if (d->n[s] == 0)
			continue;
		tx[ntx].port = (uint16_t)(2 * rp->pair + s);
		tx[ntx].pool = txpool[tx[ntx].port];
		tx[ntx].addr = d->addr[s];
		tx[ntx].addr6 = v6 ? d->addr6[s] : NULL;
		tx[ntx].n = d->n[s];
		tx[ntx].idx = 0;
		if (v6) {
			frame_len = (uint16_t)RTE_MAX(frame_len, HDR6_LEN);
			tpl6_build(&tx[ntx].tpl, rp->pair, s, frame_len);
		} else {
			tpl_build(&tx[ntx].tpl, rp->pair, s, frame_len);
		}
		txpool_frame(tx[ntx].port, tx[ntx].tpl.bytes, v6 ? HDR6_LEN : HDR_LEN, frame_len);
		res->tx_side[s] = true;
		ntx++;
	}
	for (s = 0; s < ntx; s++) {
		tx[s].tokens = 0;
		tx[s].next_tsc = 0;
		tx[s].tokens_per_tsc = rp->rate * 1e6 / (double)ntx / (double)hz;
	}
	res->dests = d->n[0] + d->n[1];
	res->nets = d->nets;

	now = rte_rdtsc();
	last = now;
	t_start = now + (uint64_t)(rp->warmup * (double)hz);
	phase = rp->warmup > 0 ? 0 : 1;
	if (phase == 1)
		t_start = now;
	t_end = t_start + (uint64_t)(rp->duration * (double)hz);
	while (!quit) {
		unsigned int sent_any = 0;

		for (s = 0; s < ntx; s++) {
			struct txside *t = &tx[s];
			unsigned int side = t->port & 1;
			uint16_t want = (uint16_t)opt.burst, n;
			uint64_t *fail = phase == 1 ? &cnt.tx_fail[side] : &junk;

			if (now < t->next_tsc)
				continue;
			if (rp->rate > 0) {
				t->tokens += (double)(now - last) * t->tokens_per_tsc;
				if (t->tokens > opt.bucket)
					t->tokens = opt.bucket;
				if (t->tokens < 1.0)
					continue;
				want = (uint16_t)RTE_MIN((double)opt.burst, t->tokens);
				t->tokens -= want;
			}
			n = tx_one(t, want, fail);
			if (phase == 1)
				cnt.tx[side] += n;
			sent_any += n;
			/* the ring is (nearly) full: let the DUT drain it instead of
			 * hammering the ring's index cache lines it is polling */
			if (n < want)
				t->next_tsc = now + backoff_tsc;
		}
		for (s = 0; s < 2; s++) {
			uint16_t n = rx_one((uint16_t)(2 * rp->pair + s),
					    phase == 1 ? &cnt.rx_wrong[s] : &junk);

			if (phase == 1)
				cnt.rx[s] += n;
		}
		loops++;
		if (sent_any == 0)
			idle++;
		last = now;
		now = rte_rdtsc();
		if (phase == 0 && now >= t_start) {
			if (rp->mode == MODE_TRIAL) {
				drain(rp->pair, NULL, PRE_QUIET_MS);
				now = rte_rdtsc();
				last = now;
				t_end = now + (uint64_t)(rp->duration * (double)hz);
				t_start = now;
			}
			memset(&cnt, 0, sizeof(cnt));
			loops = idle = 0;
			phase = 1;
		} else if (phase == 1 && now >= t_end) {
			break;
		}
	}
	res->seconds = (double)(now - t_start) / (double)hz;
	res->gen_idle = loops ? (double)idle / (double)loops : 0;
	/* let the DUT go idle; in trial mode what comes back still counts */
	drain(rp->pair, rp->mode == MODE_TRIAL ? &cnt : NULL, QUIET_MS);
	res->c = cnt;
}

/* --- output ----------------------------------------------------------------------------------- */

/* the frame written, without FCS (IPv6 frames are at least HDR6_LEN) */
static unsigned int frame_len_of(const struct run_params *rp)
{
	unsigned int len = rp->size - RTE_ETHER_CRC_LEN;

	return rp->profile == PROF_RANDOM6 ? RTE_MAX(len, (unsigned int)HDR6_LEN) : len;
}

static void print_result(const struct run_params *rp, const struct result *r, bool json)
{
	uint64_t tx = r->c.tx[0] + r->c.tx[1], rx = r->c.rx[0] + r->c.rx[1];
	uint64_t fail = r->c.tx_fail[0] + r->c.tx_fail[1];
	uint64_t wrong = r->c.rx_wrong[0] + r->c.rx_wrong[1];
	double sec = r->seconds > 0 ? r->seconds : 1e-9;

	if (json) {
		printf("{\"profile\":\"%s\",\"size\":%u,\"frame_len\":%u,\"mode\":\"%s\","
		       "\"pair\":%u,\"rate_mpps\":%.6g,\"seconds\":%.6f,"
		       "\"tx_mpps\":%.6f,\"rx_mpps\":%.6f,\"offered_mpps\":%.6f,"
		       "\"tx_pkts\":%" PRIu64 ",\"rx_pkts\":%" PRIu64 ",\"tx_fail\":%" PRIu64
		       ",\"loss_pkts\":%" PRId64 ",\"tx_per_port\":[%" PRIu64 ",%" PRIu64
		       "],\"rx_per_port\":[%" PRIu64 ",%" PRIu64 "],\"tx_fail_per_port\":[%" PRIu64
		       ",%" PRIu64 "],\"dests\":%u,\"nets\":%u,\"routes\":%u,\"burst\":%u,"
		       "\"gen_idle\":%.4f,\"tsc_hz\":%" PRIu64,
		       profile_names[rp->profile], rp->size, frame_len_of(rp),
		       rp->mode == MODE_TRIAL ? "trial" : "window", rp->pair, rp->rate, r->seconds,
		       (double)tx / sec / 1e6, (double)rx / sec / 1e6,
		       (double)(tx + fail) / sec / 1e6, tx, rx, fail, (int64_t)(tx - rx),
		       r->c.tx[0], r->c.tx[1], r->c.rx[0], r->c.rx[1], r->c.tx_fail[0],
		       r->c.tx_fail[1], r->dests, r->nets,
		       rp->profile == PROF_RANDOM6 ? nb_routes6 : nb_routes, opt.burst, r->gen_idle,
		       rte_get_tsc_hz());
		/* trial mode only: window mode counts every frame back */
		if (rp->mode == MODE_TRIAL)
			printf(",\"rx_wrong_port\":%" PRIu64 ",\"rx_wrong_port_per_port\":[%" PRIu64
			       ",%" PRIu64 "]",
			       wrong, r->c.rx_wrong[0], r->c.rx_wrong[1]);
		printf("}\n");
	} else {
		printf("profile %s, %u-byte frames (%u without FCS), %u destinations over %u "
		       "routes, %s %.3f s%s\n",
		       profile_names[rp->profile], rp->size, frame_len_of(rp), r->dests, r->nets,
		       rp->mode == MODE_TRIAL ? "trial" : "window", r->seconds,
		       rp->rate > 0 ? "" : ", unpaced");
		if (rp->rate > 0)
			printf("  offered rate  %.3f Mpps requested\n", rp->rate);
		printf("  tx   %.3f Mpps  (%" PRIu64 " packets; port %u %" PRIu64
		       ", port %u %" PRIu64 ")\n",
		       (double)tx / sec / 1e6, tx, 2 * rp->pair, r->c.tx[0], 2 * rp->pair + 1,
		       r->c.tx[1]);
		printf("  rx   %.3f Mpps  (%" PRIu64 " packets; port %u %" PRIu64
		       ", port %u %" PRIu64 ")\n",
		       (double)rx / sec / 1e6, rx, 2 * rp->pair, r->c.rx[0], 2 * rp->pair + 1,
		       r->c.rx[1]);
		printf("  tx refused by the port (ring full, freed): %" PRIu64 "\n", fail);
		if (rp->mode == MODE_TRIAL) {
			printf("  back on the port that sent them (not rx): %" PRIu64
			       " (port %u %" PRIu64 ", port %u %" PRIu64 ")\n",
			       wrong, 2 * rp->pair, r->c.rx_wrong[0], 2 * rp->pair + 1,
			       r->c.rx_wrong[1]);
			printf("  loss %" PRId64 " packets (tx - rx)\n", (int64_t)(tx - rx));
		}
	}
	fflush(stdout);
}

static void json_error(const char *msg)
{
	const char *p;

	printf("{\"error\":\"");
	for (p = msg; *p; p++)
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if ((unsigned char)*p >= 0x20)
			putchar(*p);
	printf("\"}\n");
	fflush(stdout);
}

static int do_run(const struct run_params *rp, bool json)
{
	struct result res;
	char err[256];
	int rc;

	if (rp->pair >= nb_ports / 2u) {
		snprintf(err, sizeof(err), "pair %u: there are %u pairs", rp->pair, nb_ports / 2u);
		goto fail;
	}
	rc = dests_build(rp->profile);
	if (rc != 0) {
		snprintf(err, sizeof(err), "profile %s: %s", profile_names[rp->profile],
			 rc == -ENOENT ? "needs --routes6 FILE" : strerror(-rc));
		goto fail;
	}
	if (wait_links(rp->pair, err, sizeof(err)) != 0)
		goto fail;
	run_traffic(rp, &res);
	if (quit && !json) {
		fprintf(stderr, PROG ": interrupted\n");
		return -1;
	}
	print_result(rp, &res, json);
	return 0;
fail:
	if (json && opt.control)
		json_error(err);
	else
		fprintf(stderr, PROG ": %s\n", err);
	return -1;
}

/* --- control mode ----------------------------------------------------------------------------- */

static int parse_run_cmd(char *args, struct run_params *rp)
{
	char *save = NULL, *tok;

	*rp = opt.run;
	for (tok = strtok_r(args, " \t\r\n", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		char *val = strchr(tok, '=');
		unsigned long long u;

		if (val == NULL)
			return -1;
		*val++ = '\0';
		if (strcmp(tok, "pair") == 0) {
			if (parse_uint("pair", val, 0, MAX_PORTS / 2 - 1, &u))
				return -1;
			rp->pair = (unsigned int)u;
		} else if (strcmp(tok, "profile") == 0) {
			if (parse_profile(val, &rp->profile))
				return -1;
		} else if (strcmp(tok, "size") == 0) {
			if (parse_uint("size", val, 64, 1518, &u))
				return -1;
			rp->size = (unsigned int)u;
		} else if (strcmp(tok, "warmup") == 0) {
			if (parse_double("warmup", val, 0, 3600, &rp->warmup))
				return -1;
		} else if (strcmp(tok, "duration") == 0) {
			if (parse_double("duration", val, 0.001, 3600, &rp->duration))
				return -1;
		} else if (strcmp(tok, "rate") == 0) {
			if (parse_double("rate", val, 0, 1e4, &rp->rate))
				return -1;
		} else if (strcmp(tok, "mode") == 0) {
			if (parse_mode(val, &rp->mode))
				return -1;
		} else if (strcmp(tok, "routed") == 0) {
			if (parse_uint("routed", val, 0, 1, &u))
				return -1;
			rp->routed = u != 0;
		} else {
			fprintf(stderr, PROG ": run: unknown key '%s'\n", tok);
			return -1;
		}
	}
	return 0;
}

static void control_loop(void)
{
	char line[512];
	size_t len = 0;

	printf("{\"ready\":true,\"ports\":%u,\"pairs\":%u,\"routes\":%u}\n", nb_ports,
	       nb_ports / 2u, nb_routes);
	fflush(stdout);
	while (!quit) {
		struct pollfd pfd = {.fd = 0, .events = POLLIN};
		char *nl;
		ssize_t r;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		r = read(0, line + len, sizeof(line) - 1 - len);
		if (r <= 0)
			break; /* EOF: the harness went away */
		len += (size_t)r;
		line[len] = '\0';
		while ((nl = strchr(line, '\n')) != NULL) {
			size_t used = (size_t)(nl - line) + 1;
			struct run_params rp;

			*nl = '\0';
			if (strncmp(line, "run", 3) == 0 && (line[3] == ' ' || line[3] == '\0')) {
				if (parse_run_cmd(line + 3, &rp) != 0)
					json_error("bad run command");
				else
					do_run(&rp, true);
			} else if (strcmp(line, "links") == 0) {
				uint16_t p;

				printf("{\"links\":[");
				for (p = 0; p < nb_ports; p++)
					printf("%s%d", p ? "," : "", link_up(p) ? 1 : 0);
				printf("]}\n");
				fflush(stdout);
			} else if (strcmp(line, "quit") == 0) {
				return;
			} else if (line[0] != '\0') {
				json_error("unknown command (run, links, quit)");
			}
			memmove(line, line + used, len - used + 1);
			len -= used;
		}
		if (len == sizeof(line) - 1)
			len = 0; /* an overlong line: drop it */
	}
}

/* --- main ------------------------------------------------------------------------------------- */

static int parse_args(int argc, char **argv)
{
	enum {
		O_ROUTES = 256,
		O_ROUTES6,
		O_PROFILE,
		O_SIZE,
		O_WARMUP,
		O_DURATION,
		O_SEED,
		O_MAC0,
		O_MAC1,
		O_SRC0,
		O_SRC1,
		O_LINK_TIMEOUT,
		O_JSON,
		O_RATE,
		O_MODE,
		O_PAIR,
		O_BURST,
		O_CONTROL,
		O_BACKOFF,
		O_BUCKET,
	};
	static const struct option longopts[] = {
		{"routes", required_argument, NULL, O_ROUTES},
		{"routes6", required_argument, NULL, O_ROUTES6},
		{"profile", required_argument, NULL, O_PROFILE},
		{"size", required_argument, NULL, O_SIZE},
		{"warmup", required_argument, NULL, O_WARMUP},
		{"duration", required_argument, NULL, O_DURATION},
		{"seed", required_argument, NULL, O_SEED},
		{"dut-mac0", required_argument, NULL, O_MAC0},
		{"dut-mac1", required_argument, NULL, O_MAC1},
		{"src-ip0", required_argument, NULL, O_SRC0},
		{"src-ip1", required_argument, NULL, O_SRC1},
		{"link-timeout", required_argument, NULL, O_LINK_TIMEOUT},
		{"json", no_argument, NULL, O_JSON},
		{"rate", required_argument, NULL, O_RATE},
		{"mode", required_argument, NULL, O_MODE},
		{"pair", required_argument, NULL, O_PAIR},
		{"burst", required_argument, NULL, O_BURST},
		{"control", no_argument, NULL, O_CONTROL},
		{"backoff-us", required_argument, NULL, O_BACKOFF},
		{"bucket", required_argument, NULL, O_BUCKET},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long long u;
	int c;

	opt.run.profile = PROF_1FLOW;
	opt.run.size = 64;
	opt.run.warmup = 1;
	opt.run.duration = 5;
	opt.run.mode = MODE_WINDOW;
	opt.seed = 1;
	opt.link_timeout = 10;
	opt.burst = 32;
	opt.backoff_us = 2;
	opt.bucket = 256;
	rte_ether_unformat_addr("02:00:00:00:00:10", &opt.dut_mac[0]);
	rte_ether_unformat_addr("02:00:00:00:00:11", &opt.dut_mac[1]);
	opt.src_ip[0] = RTE_IPV4(192, 0, 2, 2);
	opt.src_ip[1] = RTE_IPV4(198, 51, 100, 2);

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_ROUTES:
			opt.routes = optarg;
			break;
		case O_ROUTES6:
			opt.routes6 = optarg;
			break;
		case O_PROFILE:
			if (parse_profile(optarg, &opt.run.profile))
				return -1;
			break;
		case O_SIZE:
			if (parse_uint("--size", optarg, 64, 1518, &u))
				return -1;
			opt.run.size = (unsigned int)u;
			break;
		case O_WARMUP:
			if (parse_double("--warmup", optarg, 0, 3600, &opt.run.warmup))
				return -1;
			break;
		case O_DURATION:
			if (parse_double("--duration", optarg, 0.001, 3600, &opt.run.duration))
				return -1;
			break;
		case O_SEED:
			if (parse_uint("--seed", optarg, 0, UINT64_MAX, &u))
				return -1;
			opt.seed = u;
			break;
		case O_MAC0:
		case O_MAC1:
			if (rte_ether_unformat_addr(optarg, &opt.dut_mac[c == O_MAC1]) != 0) {
				fprintf(stderr, PROG ": '%s' is not a MAC address\n", optarg);
				return -1;
			}
			break;
		case O_SRC0:
		case O_SRC1:
			if (parse_ip(c == O_SRC0 ? "--src-ip0" : "--src-ip1", optarg,
				     &opt.src_ip[c == O_SRC1]))
				return -1;
			break;
		case O_LINK_TIMEOUT:
			if (parse_double("--link-timeout", optarg, 0, 3600, &opt.link_timeout))
				return -1;
			break;
		case O_JSON:
			opt.json = true;
			break;
		case O_RATE:
			if (parse_double("--rate", optarg, 0, 1e4, &opt.run.rate))
				return -1;
			break;
		case O_MODE:
			if (parse_mode(optarg, &opt.run.mode))
				return -1;
			break;
		case O_PAIR:
			if (parse_uint("--pair", optarg, 0, MAX_PORTS / 2 - 1, &u))
				return -1;
			opt.run.pair = (unsigned int)u;
			break;
		case O_BURST:
			if (parse_uint("--burst", optarg, 1, MAX_BURST, &u))
				return -1;
			opt.burst = (unsigned int)u;
			break;
		case O_CONTROL:
			opt.control = true;
			break;
		case O_BUCKET:
			if (parse_uint("--bucket", optarg, 1, 65536, &u))
				return -1;
			opt.bucket = (unsigned int)u;
			break;
		case O_BACKOFF:
			if (parse_double("--backoff-us", optarg, 0, 1e6, &opt.backoff_us))
				return -1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (opt.routes == NULL) {
		fprintf(stderr, PROG ": --routes FILE is required (scripts/gen-routes N --format "
				     "plain > FILE)\n");
		return -1;
	}
	if (opt.src_ip[0] == opt.src_ip[1]) {
		fprintf(stderr, PROG ": --src-ip0 and --src-ip1 must differ: a frame's source "
				     "tells which port sent it\n");
		return -1;
	}
	return 0;
}

/* the incremental checksum must agree with DPDK's */
static int self_test(void)
{
	struct hdr_tpl t;
	uint8_t buf[HDR_LEN];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + sizeof(struct rte_ether_hdr));
	uint32_t dst = rte_cpu_to_be_32(RTE_IPV4(203, 0, 113, 77));

	tpl_build(&t, 0, 0, 60);
	memcpy(buf, t.bytes, HDR_LEN);
	ip->dst_addr = dst;
	ip->hdr_checksum = 0;
	if (csum_with_dst(t.csum_base, dst) != rte_ipv4_cksum(ip)) {
		fprintf(stderr, PROG ": internal error: IPv4 checksum self-test failed\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t t0;
	int rc, ret = 1;
	uint16_t pid;

	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, PROG ": EAL initialisation failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	fr_eal_runtime_dir_remove_at_exit();
	argc -= rc;
	argv += rc;
	if (parse_args(argc, argv) != 0)
		goto out;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	t0 = rte_rdtsc();
	if (routes_load(opt.routes) != 0 || fib_build() != 0)
		goto out;
	if (opt.routes6 != NULL && (routes6_load(opt.routes6) != 0 || fib6_build() != 0))
		goto out;
	if (ports_init() != 0 || self_test() != 0)
		goto out;
	if (!opt.control || !opt.json)
		fprintf(stderr, PROG ": %u routes loaded in %.2f s; %u ports started (%u pairs)\n",
			nb_routes, (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz(), nb_ports,
			nb_ports / 2u);
	if (opt.control) {
		control_loop();
		ret = 0;
	} else {
		fprintf(stderr, PROG ": waiting for the links of pair %u\n", opt.run.pair);
		ret = do_run(&opt.run, opt.json) == 0 ? 0 : 1;
	}
out:
	RTE_ETH_FOREACH_DEV (pid) {
		rte_eth_dev_stop(pid);
		rte_eth_dev_close(pid);
	}
	rte_fib_free(fib);
	if (fib6 != NULL)
		rte_fib6_free(fib6);
	rte_eal_cleanup();
	return ret;
}
