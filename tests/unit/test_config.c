/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config language: the shipped examples load; each bad case is rejected
 * with "file:line: reason" naming the right line, and a rejected file
 * changes nothing (routes, neighbours and port addresses as before); lines
 * with no place in a file are refused before any line runs; a file read
 * from a pipe loads as from disk; a read error names the line it cut.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd.h"
#include "control6.h"
#include "eal_helper.h"
#include "fr_kset.h"
#include "router.h"

struct router *fr_router;

static int setup(void **state)
{
	static int k;
	struct router *r = calloc(1, sizeof(*r));
	struct fib_conf fc = {0};
	struct neigh_conf nc = {0};
	char name[16];
	uint16_t i;

	snprintf(name, sizeof(name), "c%d", k++);
	nc.capacity = 256;
	r->neigh = neigh_create(name, &nc);
	fc.max_routes4 = 4096;
	fc.tbl8s4 = 64;
	fc.neigh = r->neigh;
	r->fib = fib_create(name, &fc);
	assert_non_null(r->fib);
	r->nb_ports = 2;
	for (i = 0; i < 2; i++) {
		r->ports[i].id = i;
		r->ports[i].present = true;
		r->dp_ports[i].mtu = 1500; /* as port_probe() reads a device's */
		/* its MAC, 02:00:00:00:00:10 + port, and the link-local
		 * address made of it: fe80::ff:fe00:10 + port */
		r->dp_ports[i].mac.addr_bytes[0] = 0x02;
		r->dp_ports[i].mac.addr_bytes[5] = (uint8_t)(0x10 + i);
		r->dp_ports[i].ll6[0] = 0xfe;
		r->dp_ports[i].ll6[1] = 0x80;
		r->dp_ports[i].ll6[11] = 0xff;
		r->dp_ports[i].ll6[12] = 0xfe;
		r->dp_ports[i].ll6[15] = (uint8_t)(0x10 + i);
		snprintf(r->ports[i].name, sizeof(r->ports[i].name), "fake%u", i);
	}
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct router *r = *state;

	fib_free(r->fib);
	neigh_free(r->neigh);
	free(r);
	return 0;
}

/* fdopen() as the router calls it (-Wl,--wrap=fdopen): with fail_after
 * set, a stream of the descriptor whose reads fail with EIO once that many
 * bytes were read, as a disk's read error in the middle of a file. */
static long fail_after = -1;

struct failing {
	int fd;
	long left;
};

static ssize_t failing_read(void *cookie, char *buf, size_t size)
{
	struct failing *c = cookie;
	ssize_t n;

	if (c->left == 0) {
		errno = EIO;
		return -1;
	}
	n = read(c->fd, buf, size < (size_t)c->left ? size : (size_t)c->left);
	if (n > 0)
		c->left -= n;
	return n;
}

static int failing_seek(void *cookie, off64_t *off, int whence)
{
	off_t o = lseek(((struct failing *)cookie)->fd, *off, whence);

	if (o < 0)
		return -1;
	*off = o;
	return 0;
}

static int failing_close(void *cookie)
{
	struct failing *c = cookie;

	close(c->fd);
	free(c);
	return 0;
}

FILE *__real_fdopen(int fd, const char *mode);
FILE *__wrap_fdopen(int fd, const char *mode);

FILE *__wrap_fdopen(int fd, const char *mode)
{
	cookie_io_functions_t fns = {
		.read = failing_read, .seek = failing_seek, .close = failing_close};
	struct failing *c;

	if (fail_after < 0)
		return __real_fdopen(fd, mode);
	c = malloc(sizeof(*c));
	assert_non_null(c);
	c->fd = fd;
	c->left = fail_after;
	return fopencookie(c, mode, fns);
}

/* @len bytes of @text, NULs included */
static char *write_tmp_n(const char *text, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/fr-ut-config-%d.conf", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

static char *write_tmp(const char *text)
{
	return write_tmp_n(text, strlen(text));
}

/* @text applied as a file; the test fails with the router's error if not */
static void load_ok(struct router *r, const char *text)
{
	char err[512] = "";

	if (config_load(r, write_tmp(text), false, NULL, err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

static const char *src_path(const char *rel)
{
	static char path[512];
	const char *src = getenv("FASTROUTE_SRC");

	snprintf(path, sizeof(path), "%s/%s", src ? src : "..", rel);
	return path;
}

static void test_examples(void **state)
{
	struct router *r = *state;
	char err[512] = "";
	struct fib_route rt;
	struct fr_addr a;
	struct neigh_info ni;

	if (config_load(r, src_path("config/demo.conf"), false, NULL, err, sizeof(err)) != 0)
		fail_msg("demo.conf: %s", err);
	/* 2 addresses x (local, connected, broadcast, network) + 2 static routes */
	assert_int_equal(fib_route_count(r->fib, AF_INET), 10);
	/* 2 IPv6 addresses x (local /128, connected /64, Subnet-Router
	 * anycast /128) */
	assert_int_equal(fib_route_count(r->fib, AF_INET6), 6);
	assert_int_equal(r->ports[0].nb_addrs, 2);
	fr_addr_parse("2001:db8:2::5", &a);
	assert_int_equal(fib_route_lookup(r->fib, &a, &rt), 0);
	assert_int_equal(rt.type, FIB_NH_CONNECTED);
	assert_int_equal(rt.port, 1);
	fr_addr_parse("2001:db8:1::1", &a);
	assert_int_equal(fib_route_lookup(r->fib, &a, &rt), 0);
	assert_int_equal(rt.type, FIB_NH_LOCAL);
	assert_int_equal(rt.prefix.len, 128);
	fr_addr_parse("10.9.8.7", &a);
	assert_int_equal(fib_route_lookup(r->fib, &a, &rt), 0);
	assert_int_equal(rt.type, FIB_NH_GATEWAY);
	assert_int_equal(rt.port, 1);
	/* the demo resolves its neighbours with ARP: no static entry */
	fr_addr_parse("198.51.100.2", &a);
	assert_int_equal(neigh_get(r->neigh, &a, 1, &ni), 0); /* the gateway's placeholder */
	assert_int_equal(ni.state, NEIGH_S_NONE);
}

static void test_example_conf(void **state)
{
	struct router *r = *state;
	char err[512] = "";

	struct fib_route rt;
	struct fr_addr a;

	if (config_load(r, src_path("config/example.conf"), false, NULL, err, sizeof(err)) != 0)
		fail_msg("example.conf: %s", err);
	/* two /24s of 4 routes (local, connected, broadcast, network), the /31's
	 * local and connected, 8 routes */
	assert_int_equal(fib_route_count(r->fib, AF_INET), 18);
	/* the multipath route: both uplinks, each by its own port */
	fr_addr_parse("100.64.1.2", &a);
	assert_int_equal(fib_route_lookup(r->fib, &a, &rt), 0);
	assert_int_equal(rt.type, FIB_NH_MULTIPATH);
	{
		struct fib_mp_member m[FIB_MP_MAX];

		assert_int_equal(fib_mp_members(r->fib, rt.nh_idx, m), 2);
		assert_int_equal(m[0].port, 0);
		assert_int_equal(m[1].port, 1);
	}
	/* two addresses of 3 (local /128, connected, Subnet-Router anycast
	 * /128), 3 routes */
	assert_int_equal(fib_route_count(r->fib, AF_INET6), 9);
	/* the link-local gateway keeps the port it was given */
	fr_addr_parse("2001:db8:1ab::1", &a);
	assert_int_equal(fib_route_lookup(r->fib, &a, &rt), 0);
	assert_int_equal(rt.type, FIB_NH_GATEWAY);
	assert_int_equal(rt.port, 1);
	assert_int_equal(rt.prefix.len, 40);
}

struct snapshot {
	uint32_t routes, neigh, addrs0, addrs1, nh;
};

static void snap(struct router *r, struct snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->routes = fib_route_count(r->fib, AF_INET) + fib_route_count(r->fib, AF_INET6);
	s->neigh = neigh_count(r->neigh);
	s->addrs0 = r->ports[0].nb_addrs;
	s->addrs1 = r->ports[1].nb_addrs;
	s->nh = fib_nh_count(r->fib);
}

static void test_bad_cases(void **state)
{
	struct router *r = *state;
	static const struct {
		const char *text;
		unsigned int line;
		const char *msg;
	} bad[] = {
		{"port 0 address 192.0.2.1/24\nfoo bar\n", 2, "unknown command 'foo'"},
		{"port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 192.0.2.300\n", 2,
		 "bad address '192.0.2.300'"},
		{"\n# comment\nroute add 10.0.0.0/33 blackhole\n", 3, "out of range"},
		{"route add 10.1.0.0/8 blackhole\n", 1, "not a canonical prefix"},
		{"route add 10.1.0.0/8 blackhole\n", 1, "did you mean 10.0.0.0/8"},
		{"port 0 address 192.0.2.1/24\n"
		 "neigh add 192.0.2.2 lladdr 02:00:00:00:00:01 port 7\n",
		 2, "port 7 does not exist"},
		{"port 0 address 192.0.2.1/24\nneigh add 192.0.2.2 lladdr 02:00:00:00:00:01\n", 2,
		 "missing 'port N'"},
		{"neigh add 192.0.2.2 lladdr 02:00:00:00:00:01 lladdr 02:00:00:00:00:02 port 0\n",
		 1, "lladdr given twice"},
		{"set neigh hold 4 extra\n", 1, "unknown neighbour parameter 'extra'"},
		/* a bare 0.0.0.0 or :: is no default route */
		{"port 0 address 192.0.2.1/24\nroute add 0.0.0.0 via 192.0.2.2\n", 2,
		 "a bare '0.0.0.0' is the host route 0.0.0.0/32, which nothing is forwarded to: "
		 "write 0.0.0.0/0 for the default route"},
		{"route add :: blackhole\n", 1, "write ::/0 for the default route, or ::/128 if"},
		{"set neigh hold 4 retrans-time\n", 1, "missing the value of retrans-time"},
		/* a second address in a subnet of the port's: the addresses
		 * named, not the route they would share */
		{"port 1 address 198.51.100.1/24\nport 1 address add 198.51.100.129/25\n", 2,
		 "198.51.100.129/25 overlaps 198.51.100.1/24 on port 1"},
		/* a static route in the way is named as such, not the port's
		 * other address, which shares no route with this one */
		{"port 0 address 10.0.0.1/8\nroute add 10.1.0.0/16 via 10.0.0.2\n"
		 "port 0 address add 10.1.0.1/16\n",
		 3, "address 10.1.0.1/16 needs route 10.1.0.0/16, which exists already"},
		{"port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 198.51.100.2\n", 2,
		 "not on a connected network"},
		/* on a port's network, but a longer route takes it elsewhere:
		 * that route named */
		{"port 0 address 192.0.2.1/24\nport 1 address 198.51.100.1/24\n"
		 "route add 198.51.100.0/25 via 192.0.2.77\nroute add 10.0.0.0/8 via "
		 "198.51.100.10\n",
		 4,
		 "gateway 198.51.100.10 is not on a connected network: route 198.51.100.0/25 "
		 "via 192.0.2.77 covers it"},
		/* the same by a route waiting for its port (port 1 down):
		 * named so, not the gateway called off every network */
		{"port 0 address 10.0.0.1/24\nport 1 address 192.0.2.1/24\n"
		 "route add 10.0.0.128/25 via 192.0.2.254\nport 1 down\n"
		 "route add 198.51.100.0/24 via 10.0.0.200\n",
		 5,
		 "gateway 10.0.0.200 is not on a connected network: route 10.0.0.128/25 via "
		 "192.0.2.254 (waiting for its port) covers it"},
		/* a multipath add of a prefix held: exists, not its gateways
		 * (resolved without the prefix's own route) called off the
		 * subnets */
		{"port 0 address 10.0.0.1/24\nroute add 10.0.0.0/24 via 10.0.0.5 via 10.0.0.6\n", 2,
		 "route 10.0.0.0/24 exists, installed by a port address"},
		{"port 0 address 10.0.0.1/24\nroute add 10.1.0.0/16 via 10.0.0.5\n"
		 "route add 10.1.0.0/16 via 10.1.0.5 via 10.0.0.6\n",
		 3, "route 10.1.0.0/16 exists (use 'route replace' to change it)"},
		/* an add of an installed prefix while a port is down: exists,
		 * as with every port up */
		{"port 0 address 10.0.0.1/24\nport 1 address 192.0.2.1/24\n"
		 "route add 0.0.0.0/0 via 10.0.0.254\nport 1 down\n"
		 "route add 10.0.0.0/24 via 10.0.0.5\n",
		 5, "route 10.0.0.0/24 exists"},
		/* on no port's network: the default route that covers it is
		 * not the reason */
		{"port 0 address 192.0.2.1/24\nroute add 0.0.0.0/0 via 192.0.2.254\n"
		 "route add 10.0.0.0/8 via 100.64.0.9\n",
		 3,
		 "gateway 100.64.0.9 is not on a connected network (add a port address covering it "
		 "first"},
		{"route add 10.0.0.0/8 blackhole\nroute add 10.0.0.0/8 prohibit\n", 2, "exists"},
		{"route add 10.0.0.0/8\n", 1, "missing 'via GW'"},
		{"port 9 address 192.0.2.1/24\n", 1, "port 9 does not exist"},
		{"port 0 address 192.0.2.1/24\nshow route\n", 2, "not a configuration command"},
		{"route del 10.0.0.0/8\n", 1, "no route 10.0.0.0/8"},
		{"route add 10.0.0.0/8 blackhole extra\n", 1, "unexpected 'extra'"},
		/* iproute2's spellings: what is meant said */
		{"route add 10.0.0.0/8 via 192.0.2.1 dev 1\n", 1,
		 "unexpected 'dev': a gateway's port is 'via GW port N'"},
		{"route add 10.0.0.0/8 via 192.0.2.1 weight 2 port 1 via 192.0.2.2\n", 1,
		 "unexpected 'port': it comes before the weight"},
		{"route add 10.0.0.0/8 via 192.0.2.1 port 1 port 1\n", 1,
		 "'port' given twice for gateway 192.0.2.1"},
		{"route add 10.0.0.0/8 via 192.0.2.1 port 0 weight 2 port 1 via 192.0.2.2\n", 1,
		 "'port' given twice for gateway 192.0.2.1"},
		{"route del 10.0.0.0/8 via 192.0.2.1\n", 1,
		 "unexpected 'via': route del takes PREFIX alone"},
		{"port 0 address 192.0.2.0/24\n", 1, "network address"},
		{"port 0 address 192.0.2.1/24\nport 1 address 198.51.100.1/33\n", 2,
		 "prefix length out of range in '198.51.100.1/33' (0-32)"},
		{"port 0 address 2001:db8::1/129\n", 1,
		 "prefix length out of range in '2001:db8::1/129' (0-128)"},
		{"port 0 address 192.0.2.1\n", 1, "bad interface address '192.0.2.1'"},
		/* a length past unsigned long: out of range, not malformed */
		{"route add 10.1.1.2/99999999999999999999 blackhole\n", 1,
		 "prefix length out of range in '10.1.1.2/99999999999999999999' (0-32)"},
		/* a leading zero: said why */
		{"route add 010.1.1.1/32 blackhole\n", 1,
		 "bad prefix '010.1.1.1/32' (expected ADDR/LEN) (an IPv4 octet with a leading "
		 "zero, octal to some tools, is refused)"},
		{"route add 10.0.0.0/08 blackhole\n", 1,
		 "bad prefix '10.0.0.0/08' (expected ADDR/LEN) (a prefix length with a leading "
		 "zero, octal to some tools, is refused)"},
		{"port 0 address 192.0.2.1/024\n", 1,
		 "bad interface address '192.0.2.1/024' (expected ADDR/LEN) (a prefix length"},
		{"route add 0.0.0.0/0 blackhole\nroute add 0.0.0.0/00 blackhole\n", 2,
		 "bad prefix '0.0.0.0/00'"},
		/* an address takes no length: no hint about one */
		{"port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 192.0.2.9/08\n", 2,
		 "bad address '192.0.2.9/08'$"},
		{"port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 192.0.2.07\n", 2,
		 "bad address '192.0.2.07' (an IPv4 octet with a leading zero"},
		{"port 0 hold-time up 5 down\n", 1, "missing MS after 'down'"},
		{"port 0 hold-time up\n", 1, "missing MS after 'up'"},
		{"port 0 hold-time\n", 1, "usage: port N hold-time [up MS] [down MS], one or both"},
		{"port 0 ra on dns 192.0.2.53\n", 1,
		 "'192.0.2.53': Router Advertisements name IPv6 DNS servers only"},
		{"port 0 ra on dns 2001:db8::53,ff02::1\n", 1,
		 "DNS server ff02::1 is not a unicast host address (ff00::/8 is multicast)"},
		{"port 0 ra on dns ::\n", 1, "DNS server :: is not a unicast host address"},
		{"port 0 ra on dns ::1\n", 1, "DNS server ::1 is not a unicast host address"},
		{"port 0 ra on dns ::ffff:192.0.2.53\n", 1, "(::ffff:0:0/96 is IPv4-mapped)"},
		{"port 0 ra on dns a::1,a::2,a::3,a::4\n", 1, "at most 3 DNS servers"},
		{"port 0 ra on dns a::1,A::1\n", 1, "'A::1' listed twice"},
		{"port 0 ra on dns a::1,\n", 1, "missing address after the last ','"},
		{"port 0 ra on dns a::1,,a::2\n", 1, "bad address '' in the dns list"},
		{"port 0 ra on dns a::x\n", 1, "bad address 'a::x' in the dns list"},
		{"port 0 ra on dns\n", 1, "missing ADDR[,ADDR[,ADDR]] after 'dns'"},
		{"port 0 ra on other interval 30 other\n", 1, "'other' given twice"},
		{"port 0 ra on preference\n", 1,
		 "preference: expected high, medium or low, got ''"},
		{"port 0 ra on preference top\n", 1,
		 "preference: expected high, medium or low, got 'top'"},
		{"port 0 ra on preference low preference high\n", 1, "'preference' given twice"},
		{"port 0 ra on managed dns a::1 dns a::2\n", 1, "'dns' given twice"},
		{"port 0 ra on often\n", 1, "unknown 'often' after 'ra on'"},
		{"port 0 ra on no-slaac managed no-slaac\n", 1, "'no-slaac' given twice"},
		{"port 0 ra on min-delay 29\n", 1, "29"},
		{"port 0 ra on min-delay 3001\n", 1, "3001"},
		{"port 0 ra on min-delay\n", 1, "missing MS after 'min-delay'"},
		{"port 0 ra on managed interval\n", 1, "missing SEC after 'interval'"},
		{"port 0 ra on min-delay 50 min-delay 60\n", 1, "'min-delay' given twice"},
		{"set ip reassembly-timeout 0\n", 1,
		 "reassembly-timeout: '0' is not a number in 1-120"},
		{"set ip reassembly-timeout 121\n", 1,
		 "reassembly-timeout: '121' is not a number in 1-120"},
		/* a number's error names its setting */
		{"port 0 ra on min-delay 29\n", 1, "min-delay: '29' is not a number in 30-3000"},
		{"port 0 ra on interval 3\n", 1, "interval: '3' is not a number in 4-1800"},
		{"port 0 mtu 67\n", 1, "mtu: '67' is not a number in 68-"},
		{"set icmp rate x burst 1\n", 1, "rate: 'x' is not a number in 0-1000000"},
		{"set icmp rate 10 burst 0\n", 1, "burst: '0' is not a number in 1-100000"},
		{"rtcache size 63\n", 1, "rtcache size: '63' is not a number in 64-16777216"},
		{"set ip reassembly-timeout\n", 1, "missing SEC (1-120) or 'default'"},
		{"port\n", 1, "expected N after 'port'"},
		{"port 0 address 192.0.2.255/24\n", 1, "broadcast address"},
		/* the gateway's subnet gone with its address: a route via it is
		 * refused, whatever an earlier route via it found then */
		{"port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 192.0.2.9\n"
		 "port 0 address del 192.0.2.1/24\nroute add 11.0.0.0/8 via 192.0.2.9\n",
		 4, "not on a connected network"},
		{"port 0 address 192.0.2.1/24\nport 1 address 192.0.2.1/24\n", 2,
		 "already on port 0"},
		{"port 0 address 192.0.2.1/24\nroute del 192.0.2.0/24\n", 2, "installed by"},
		{"port 0 address 192.0.2.1/24\nroute add 192.0.2.0/24 blackhole\n", 2,
		 "exists, installed by a port address"},
		{"port 0 address 10.9.0.1/24\nport 1 address 10.9.0.129/25\n", 2,
		 "10.9.0.129/25 overlaps 10.9.0.1/24 on port 0"},
		{"port 0 address 10.9.0.1/24\nport 1 address 10.9.0.5/30\n", 2,
		 "10.9.0.5/30 overlaps 10.9.0.1/24 on port 0"},
		{"port 1 address 10.9.0.5/30\nport 0 address 10.9.0.1/16\n", 2, "overlaps"},
		{"port 0 address 2001:db8:1::1/64\nport 1 address 2001:db8::1/32\n", 2,
		 "overlaps 2001:db8:1::1/64 on port 0"},
		{"port 0 address 2001:db8:1::1/0\n", 1, "cannot be /0"},
		{"port 0 address 192.0.2.1/24\nport 0 address 192.0.2.2/24\n", 2,
		 "192.0.2.2/24 overlaps 192.0.2.1/24 on port 0 (they would share route "
		 "192.0.2.0/24)"},
		/* no host has these: refused where they are written */
		{"port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 0.0.0.0 port 0\n", 2,
		 "gateway 0.0.0.0 is not a unicast host address (0.0.0.0/8 means this network)"},
		{"route add 10.0.0.0/8 via 224.0.0.9 port 0\n", 1, "224.0.0.0/4 is multicast"},
		{"route add 10.0.0.0/8 via 127.0.0.1 port 0\n", 1, "127.0.0.0/8 is loopback"},
		{"route add 10.0.0.0/8 via 255.255.255.255 port 0\n", 1, "the limited broadcast"},
		{"route add 2001:db8:5::/48 via ff02::2 port 0\n", 1, "ff00::/8 is multicast"},
		{"route add 2001:db8:5::/48 via :: port 0\n", 1, "unspecified"},
		{"route add 2001:db8:5::/48 via ::1 port 0\n", 1, "::1 is loopback"},
		{"route add 2001:db8:5::/48 via ::ffff:192.0.2.2 port 0\n", 1, "IPv4-mapped"},
		{"port 0 address ::ffff:192.0.2.1/96\n", 1, "IPv4-mapped"},
		{"port 0 address ::192.0.2.1/96\n", 1, "IPv4-compatible"},
		{"port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 192.0.2.0\n", 2,
		 "gateway 192.0.2.0 is the network address of port 0's subnet"},
		{"port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 192.0.2.255\n", 2,
		 "gateway 192.0.2.255 is the broadcast address of port 0's subnet"},
		{"neigh add 255.255.255.255 lladdr 02:00:00:00:00:01 port 0\n", 1,
		 "not a unicast host address (the limited broadcast)"},
		{"neigh add ff02::1 lladdr 02:00:00:00:00:01 port 0\n", 1, "multicast"},
		/* and the other way round: an address may not make a gateway or
		 * a static neighbour no host's (show config lists addresses
		 * first: its file would not start a router) */
		{"neigh add 10.9.9.255 lladdr 02:00:00:00:00:01 port 1\n"
		 "port 1 address 10.9.9.1/24\n",
		 2, "10.9.9.255 is a static neighbour on port 1"},
		{"neigh add 10.9.9.1 lladdr 02:00:00:00:00:01 port 1\nport 1 address 10.9.9.1/24\n",
		 2, "10.9.9.1 is a static neighbour on port 1"},
		{"route add 10.0.0.0/8 via 10.9.9.0 port 1\nport 1 address 10.9.9.1/24\n", 2,
		 "10.9.9.0 is the gateway of routes"},
		{"port 0 address 192.0.2.1/24\nneigh add 192.0.2.1 lladdr 02:00:00:00:00:01 port "
		 "0\n",
		 2, "192.0.2.1 is an address of this router (port 0)"},
		{"port 0 address 192.0.2.1/24\nneigh add 192.0.2.255 lladdr 02:00:00:00:00:01 port "
		 "0\n",
		 2, "broadcast address of port 0's subnet"},
		/* a route's gateway cannot become the router's own address, nor a
		 * broadcast address */
		{"port 0 address 198.51.100.1/24\nroute add 10.0.0.0/8 via 198.51.100.2\n"
		 "port 0 address add 198.51.100.2/25\n",
		 3, "198.51.100.2 is the gateway of routes"},
		{"port 0 address 198.51.100.1/24\nroute add 10.0.0.0/8 via 198.51.100.127\n"
		 "port 0 address add 198.51.100.2/25\n",
		 3, "198.51.100.127 is the gateway of routes"},
		{"neigh add 192.0.2.2 lladdr 01:00:5e:00:00:01 port 0\n", 1, "not a unicast"},
		{"port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 192.0.2.1\n", 2,
		 "address of this router"},
		{"port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 dev 3\n", 2,
		 "port 3 does not exist"},
		/* the router's own link-local addresses, as its others */
		{"route add 2001:db8:5::/48 via fe80::ff:fe00:10 port 0\n", 1,
		 "gateway fe80::ff:fe00:10 is an address of this router (port 0's link-local)"},
		{"neigh add fe80::ff:fe00:11 lladdr 02:00:00:00:00:01 port 1\n", 1,
		 "fe80::ff:fe00:11 is an address of this router (port 1), not a neighbour's"},
		/* IPv6: the same rules, and its own */
		{"port 0 address 2001:db8:1::1/64\nroute add 2001:db8:5::/48 via fe80::1\n", 2,
		 "link-local: give the port"},
		{"port 0 address 2001:db8:1::1/64\nroute add 2001:db8:5::/48 via 2001:db8:9::1\n",
		 2, "not on a connected network"},
		{"port 0 address 2001:db8:1::1/64\nport 0 address fe80::1/64\n", 2,
		 "not a global unicast"},
		{"port 0 address ff02::1/64\n", 1, "not a unicast host address (ff00::/8"},
		{"route add 2001:db8:5::1/48 blackhole\n", 1, "not a canonical prefix"},
		{"route add 2001:db8::/129 blackhole\n", 1, "out of range"},
		/* IPv6 links carry 1280 bytes at least (RFC 8200 5) */
		{"port 0 address 2001:db8:1::1/64\nport 0 mtu 1000\n", 2,
		 "has IPv6 addresses: its MTU must be at least 1280"},
		{"port 0 mtu 1000\nport 0 address 2001:db8:1::1/64\n", 2,
		 "port 0 has MTU 1000: IPv6 needs at least 1280"},
		/* nor do router advertisements, which would stop unsaid */
		{"port 0 ra on\nport 0 mtu 1000\n", 2,
		 "port 0 sends router advertisements: its MTU must be at least 1280"},
		{"port 0 mtu 1000\nport 0 ra on\n", 2,
		 "port 0 has MTU 1000: IPv6 needs at least 1280"},
		{"port 0 address 2001:db8:1::1/64\nroute add 2001:db8:5::/48 via 192.0.2.1 port "
		 "0\n",
		 2, "not of the prefix's address family"},
		{"port 0 address 2001:db8:1::1/64\nroute del 2001:db8:1::/64\n", 2, "installed by"},
		/* a number is digits: no sign (strtoul() takes one, and wraps
		 * a negative one round) */
		{"set neigh hold +4\n", 1, "hold: '+4' is not a number"},
		{"set neigh reachable-time 100 hold 2 reachable-time 200\n", 1,
		 "reachable-time given twice"},
		{"set neigh failed-time -0\n", 1, "failed-time: '-0' is not a number"},
		{"set neigh lock-time 60001\n", 1, "lock-time: '60001' is not a number in 0-60000"},
		{"set neigh reachable-time -18446744073709521616\n", 1,
		 "reachable-time: '-18446744073709521616' is not a number"},
		/* nor a leading zero, which some tools read as octal (iproute2's
		 * mtu 010 is 8), as in addresses and prefix lengths */
		{"port 0 mtu 01500\n", 1, "mtu: '01500' has a leading zero (octal to some tools)"},
		{"port 00 mtu 1500\n", 1, "bad port number '00': a leading zero"},
		{"set neigh hold 08\n", 1, "hold: '08' has a leading zero"},
		{"port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 192.0.2.2 weight 010 via "
		 "192.0.2.3\n",
		 2, "weight: '010' has a leading zero"},
	};
	struct snapshot before, after;
	unsigned int i;

	/* some state that must survive every rejected file */
	assert_int_equal(
		config_load(r,
			    write_tmp("port 1 address 203.0.113.1/24\n"
				      "route add 10.99.0.0/16 via 203.0.113.9\n"
				      "neigh add 203.0.113.5 lladdr 02:00:00:00:00:05 port 1\n"),
			    false, NULL, (char[256]){0}, 256),
		0);
	for (i = 0; i < RTE_DIM(bad); i++) {
		char err[512] = "", want[96];
		const char *path = write_tmp(bad[i].text);
		size_t ml, el;
		int rc;

		snap(r, &before);
		rc = config_load(r, path, false, NULL, err, sizeof(err));
		snap(r, &after);
		if (rc == 0)
			fail_msg("case %u accepted: %s", i, bad[i].text);
		snprintf(want, sizeof(want), "%s:%u: ", path, bad[i].line);
		/* a message ending in '$' must end the error */
		ml = strlen(bad[i].msg);
		el = strlen(err);
		if (strncmp(err, want, strlen(want)) != 0 ||
		    (ml > 0 && bad[i].msg[ml - 1] == '$'
			     ? el < ml - 1 || strncmp(err + el - (ml - 1), bad[i].msg, ml - 1) != 0
			     : strstr(err, bad[i].msg) == NULL))
			fail_msg("case %u: got \"%s\", want \"%s...%s\"", i, err, want, bad[i].msg);
		if (memcmp(&before, &after, sizeof(before)) != 0)
			fail_msg("case %u: state changed (routes %u->%u, neigh %u->%u, addrs "
				 "%u->%u)",
				 i, before.routes, after.routes, before.neigh, after.neigh,
				 before.addrs0, after.addrs0);
	}
	unlink(write_tmp(""));
}

/* A long file whose last line is bad applies nothing at all. */
static void test_atomic(void **state)
{
	struct router *r = *state;
	char *text = malloc(1 << 20), err[512];
	size_t len = 0;
	unsigned int i;
	uint64_t gen = fib_generation(r->fib);

	len += (size_t)sprintf(text + len, "port 0 address 192.0.2.1/24\n");
	for (i = 0; i < 2000; i++)
		len += (size_t)sprintf(text + len, "route add 10.%u.%u.0/24 via 192.0.2.%u\n",
				       i / 256, i % 256, 2 + i % 200);
	len += (size_t)sprintf(text + len, "route add 11.0.0.0/8 via 203.0.113.1\n");
	assert_int_not_equal(config_load(r, write_tmp(text), false, NULL, err, sizeof(err)), 0);
	assert_non_null(strstr(err, ":2002: "));
	assert_int_equal(fib_route_count(r->fib, AF_INET), 0);
	assert_int_equal(neigh_count(r->neigh), 0);
	assert_int_equal(fib_nh_count(r->fib), 0);
	assert_int_equal(r->ports[0].nb_addrs, 0);
	/* the routes were in the tables until the rollback took them out
	 * again: every change moved the generation, so no decision the
	 * route cache made by them meanwhile holds (the rollback's are
	 * changes too: at least one each way for each route) */
	assert_true(fib_generation(r->fib) - gen >= 2 * 2000);
	unlink(write_tmp(""));
	free(text);
}

/*
 * A read that fails within the file: refused whole, with the line it
 * failed in and the system's reason; the part of that line read before
 * it is not run as a line of its own (cut short, it may be a command of
 * the file's, or an error the file does not have).
 */
static void test_read_error(void **state)
{
	struct router *r = *state;
	static const char text[] = "route add 10.8.0.0/16 blackhole\n"
				   "route add 10.9.0.0/16 blackhole\n"
				   "route add 10.10.0.0/16 blackhole\n";
	/* where line 2's newline is, and its prefix length's "/1" */
	const long at[] = {(long)sizeof("route add 10.8.0.0/16 blackhole\n") - 1 +
				   (long)strlen("route add 10.9.0.0/16 blackhole"),
			   (long)sizeof("route add 10.8.0.0/16 blackhole\n") - 1 +
				   (long)strlen("route add 10.9.0.0/1")};
	char err[512], want[600];
	const char *path = write_tmp(text);
	unsigned int i;
	int rc;

	for (i = 0; i < RTE_DIM(at); i++) {
		err[0] = '\0';
		fail_after = at[i];
		rc = config_load(r, path, false, NULL, err, sizeof(err));
		fail_after = -1;
		assert_int_equal(rc, -EIO);
		snprintf(want, sizeof(want), "%s:2: read error: %s", path, strerror(EIO));
		assert_string_equal(err, want);
		assert_int_equal(fib_route_count(r->fib, AF_INET), 0);
	}
	/* the same file, read whole */
	load_ok(r, text);
	assert_int_equal(fib_route_count(r->fib, AF_INET), 3);
	unlink(path);
}

/*
 * Lines that can never run from a file (not configuration commands, the
 * route cache size once started, a port that does not exist) are refused
 * while the file is checked: the routes before them never reach the FIB
 * (its generation does not move, as it would for a change and its undo).
 */
static void test_checked_first(void **state)
{
	struct router *r = *state;
	static const struct {
		const char *last;
		const char *msg;
	} bad[] = {
		{"show config", "not a configuration command"},
		{"quit", "not a configuration command"},
		{"load /etc/hostname", "not a configuration command"},
		{"clear stats", "not a configuration command"},
		{"rtcache size 4096", "fixed at startup"},
		{"port 5 mtu 1400", "port 5 does not exist"},
		{"route add 10.9.0.0/16 via 192.0.2.2 port 7", "port 7 does not exist"},
		{"route add 10.9.0.0/16 via 192.0.2.2 via 192.0.2.3 port 7",
		 "port 7 does not exist"},
		{"route add 10.9.0.0/16 dev 6", "port 6 does not exist"},
		{"neigh add 192.0.2.9 lladdr 02:00:00:00:00:09 port 8", "port 8 does not exist"},
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		char text[256], err[512] = "";
		uint64_t gen = fib_generation(r->fib);

		snprintf(text, sizeof(text),
			 "port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 192.0.2.2\n%s\n",
			 bad[i].last);
		r->running = true; /* a runtime 'load' */
		assert_int_not_equal(config_load(r, write_tmp(text), false, NULL, err, sizeof(err)),
				     0);
		r->running = false;
		if (strstr(err, ":3: ") == NULL || strstr(err, bad[i].msg) == NULL)
			fail_msg("'%s': got \"%s\", want line 3 and \"%s\"", bad[i].last, err,
				 bad[i].msg);
		if (fib_generation(r->fib) != gen)
			fail_msg("'%s': the lines before it ran (FIB generation %lu -> %lu)",
				 bad[i].last, (unsigned long)gen,
				 (unsigned long)fib_generation(r->fib));
		assert_int_equal(fib_route_count(r->fib, AF_INET), 0);
	}
	unlink(write_tmp(""));
}

/* A file rewritten in place between the two passes (an editor that writes
 * over it, a generator's '>' racing a load): the second pass runs what the
 * first checked, the file as the load read it at its start, not lines the
 * first pass never saw. */
static void rewrite_between(const char *path)
{
	FILE *f = fopen(path, "w"); /* the same inode, truncated */

	assert_non_null(f);
	fputs("port 0 address 192.0.2.1/24\nroute add 10.0.0.0/8 via 192.0.2.2\n"
	      "route add 10.1.0.0/16 via 192.0.2.3 port 9\n",
	      f);
	fclose(f);
}

static void test_changed_between_passes(void **state)
{
	struct router *r = *state;
	struct fib_route rt;
	struct fr_prefix p;
	char err[512] = "";
	int rc;

	config_between_passes = rewrite_between;
	rc = config_load(r,
			 write_tmp("port 0 address 192.0.2.1/24\n"
				   "route add 10.0.0.0/8 via 192.0.2.2\n"),
			 false, NULL, err, sizeof(err));
	config_between_passes = NULL;
	if (rc != 0)
		fail_msg("the load failed: %s", err);
	assert_int_equal(r->ports[0].nb_addrs, 1);
	assert_int_equal(fr_prefix_parse("10.0.0.0/8", &p, true), 0);
	assert_int_equal(fib_route_get(r->fib, &p, &rt), 0);
	assert_int_equal(fr_prefix_parse("10.1.0.0/16", &p, true), 0);
	assert_int_not_equal(fib_route_get(r->fib, &p, &rt), 0);
	unlink(write_tmp(""));
}

struct feeder {
	int fd;
	const char *text;
};

static void *feed(void *arg)
{
	struct feeder *fd = arg;
	size_t len = strlen(fd->text), off = 0;

	while (off < len) {
		ssize_t n = write(fd->fd, fd->text + off, len - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd->fd);
	return NULL;
}

/* port 0's address and 3000 routes by it, about 120 kB, into @text;
 * returns its length */
static size_t pipe_text(char *text)
{
	size_t len = (size_t)sprintf(text, "port 0 address 192.0.2.1/24\n");
	unsigned int i;

	for (i = 0; i < 3000; i++)
		len += (size_t)sprintf(text + len, "route add 10.%u.%u.0/24 via 192.0.2.%u\n",
				       i / 256, i % 256, 2 + i % 200);
	return len;
}

/* A pipe @p that a thread @th fills with @fd->text; @path names its read end. */
static void pipe_start(int p[2], struct feeder *fd, pthread_t *th, char *path, size_t pathlen)
{
	assert_int_equal(pipe(p), 0);
	fd->fd = p[1];
	assert_int_equal(pthread_create(th, NULL, feed, fd), 0);
	snprintf(path, pathlen, "/dev/fd/%d", p[0]);
}

/* A file read from a pipe (-f <(scripts/gen-routes N), a FIFO) cannot be
 * read twice as it is: it is checked and applied whole, as from disk,
 * including a bad line's rejection. More than a pipe's buffer holds. */
static void test_pipe(void **state)
{
	struct router *r = *state;
	char *text = malloc(1 << 20), path[64], err[512] = "";
	size_t len = 0;
	struct feeder fd;
	pthread_t th;
	unsigned int i, round;
	int p[2];

	len = pipe_text(text);
	fd.text = text;
	for (round = 0; round < 2; round++) {
		if (round == 1) /* the same with a bad last line: nothing applied */
			sprintf(text + len, "route add 11.0.0.0/8 via 203.0.113.1\n");
		pipe_start(p, &fd, &th, path, sizeof(path));
		err[0] = '\0';
		if (round == 0 && config_load(r, path, false, NULL, err, sizeof(err)) != 0)
			fail_msg("from a pipe: %s", err);
		if (round == 1) {
			assert_int_not_equal(config_load(r, path, false, NULL, err, sizeof(err)),
					     0);
			assert_non_null(strstr(err, ":3002: "));
		}
		pthread_join(th, NULL);
		close(p[0]);
		if (round == 0) {
			assert_int_equal(fib_route_count(r->fib, AF_INET),
					 3000 + 4); /* + connected, local, broadcast, network */
			assert_int_equal(r->ports[0].nb_addrs, 1);
			/* back to empty for the second round */
			assert_int_equal(config_load(r,
						     write_tmp("port 0 address del 192.0.2.1/24\n"),
						     false, NULL, err, sizeof(err)),
					 0);
			for (i = 0; i < 3000; i++) {
				struct fr_prefix px = {.addr = fr_addr4(0x0a000000 | i << 8),
						       .len = 24};

				fib_route_del(r->fib, &px, NULL);
			}
		}
		assert_int_equal(r->ports[0].nb_addrs, 0);
	}
	assert_int_equal(fib_route_count(r->fib, AF_INET), 0);
	unlink(write_tmp(""));
	free(text);
}

/* A pipe that gives more than config_spool_max bytes (a writer that never
 * ends) is refused with its path and nothing applied, not copied until the
 * disk fills; the writer then sees the pipe closed. */
static void test_pipe_bounded(void **state)
{
	struct router *r = *state;
	char *text = malloc(1 << 20), path[64], err[512] = "";
	struct feeder fd;
	pthread_t th;
	int p[2];

	pipe_text(text);
	fd.text = text;
	signal(SIGPIPE, SIG_IGN); /* the feeder's write fails, it is not killed */
	config_spool_max = 64 * 1024;
	pipe_start(p, &fd, &th, path, sizeof(path));
	assert_int_equal(config_load(r, path, false, NULL, err, sizeof(err)), -EFBIG);
	config_spool_max = CONFIG_SPOOL_MAX;
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "more than 65536 bytes from a pipe"));
	/* with the last read end closed, the feeder's write fails */
	close(p[0]);
	pthread_join(th, NULL);
	assert_int_equal(fib_route_count(r->fib, AF_INET), 0);
	assert_int_equal(r->ports[0].nb_addrs, 0);
	/* under the bound, the same file loads */
	text[64 * 1024 - 100] = '\0';
	*strrchr(text, '\n') = '\0';
	strcat(text, "\n");
	pipe_start(p, &fd, &th, path, sizeof(path));
	config_spool_max = 64 * 1024;
	if (config_load(r, path, false, NULL, err, sizeof(err)) != 0)
		fail_msg("under the bound: %s", err);
	config_spool_max = CONFIG_SPOOL_MAX;
	pthread_join(th, NULL);
	close(p[0]);
	assert_int_equal(r->ports[0].nb_addrs, 1);
	assert_true(fib_route_count(r->fib, AF_INET) > 1000);
	free(text);
}

/*
 * The source of the router's own IPv6 packets by the port they leave by,
 * from addresses the configuration gave: on the destination's prefix; else
 * a global one of the port; else its link-local one (NS: RFC 4861 7.2.2),
 * but an error from a port numbered by its link-local address only takes a
 * global one of another port (a link-local source would not reach a
 * distant host); link-local to a link-local destination.
 */
static void test_src6(void **state)
{
	struct router *r = *state;
	static const uint8_t ll1[16] = {0xfe, 0x80, [15] = 0x11};
	struct fr_addr want, dst;
	uint8_t src[16];

	memcpy(r->dp_ports[1].ll6, ll1, 16);
	fr_addr_parse("2001:db8:9::5", &dst);
	error_src6(r, 1, dst.v6, src); /* no global address anywhere yet */
	assert_memory_equal(src, ll1, 16);
	load_ok(r, "port 0 address 2001:db8:1::1/64\n"
		   "port 0 address add 2001:db8:2::1/64\n");
	error_src6(r, 1, dst.v6, src);
	fr_addr_parse("2001:db8:1::1", &want);
	assert_memory_equal(src, want.v6, 16);
	/* an NS to that destination leaves from the port's own address */
	port_src6(r, 1, dst.v6, src);
	assert_memory_equal(src, ll1, 16);
	fr_addr_parse("2001:db8:2::7", &dst);
	port_src6(r, 0, dst.v6, src);
	fr_addr_parse("2001:db8:2::1", &want);
	assert_memory_equal(src, want.v6, 16);
	fr_addr_parse("fe80::7", &dst);
	error_src6(r, 1, dst.v6, src);
	assert_memory_equal(src, ll1, 16);
	unlink(write_tmp(""));
}

/* Port 0's advertisement settings are @max_s, @flags and the DNS servers
 * @dns (NULL-terminated); while on, 'min-delay' @min_delay_ms */
static void ra_is2(const struct router *r, uint16_t max_s, uint16_t min_delay_ms, uint8_t flags,
		   const char *const *dns)
{
	const struct fr_port *p = &r->ports[0];
	unsigned int n;
	struct fr_addr a;

	assert_int_equal(p->ra_max_s, max_s);
	if (max_s != 0)
		assert_int_equal(p->ra_min_delay_ms, min_delay_ms);
	assert_int_equal(p->ra_flags, flags);
	for (n = 0; dns[n] != NULL; n++) {
		assert_int_equal(fr_addr_parse(dns[n], &a), 0);
		assert_memory_equal(p->ra_dns[n], a.v6, 16);
	}
	assert_int_equal(p->ra_ndns, n);
}

static void ra_is(const struct router *r, uint16_t max_s, uint8_t flags, const char *const *dns)
{
	ra_is2(r, max_s, RA_MIN_DELAY_DEFAULT_MS, flags, dns);
}

/* The keyed set the file passes keep their bookkeeping in (neighbour lines,
 * what a replace's file names): entries found by their key through its
 * growth, their values kept, a new one zero past its key. */
static void test_kset(void **state)
{
	struct ent {
		uint32_t key[2];
		uint32_t val;
	} * e;
	struct fr_kset s;
	uint32_t k[2], i;
	bool added;

	(void)state;
	assert_int_equal(fr_kset_init(&s, sizeof(struct ent), sizeof(k), 4), 0);
	for (i = 0; i < 5000; i++) {
		k[0] = i * 2654435761u;
		k[1] = i & 7;
		e = fr_kset_put(&s, k, &added);
		assert_non_null(e);
		assert_true(added);
		assert_int_equal(e->val, 0);
		assert_memory_equal(e->key, k, sizeof(k));
		e->val = i + 1;
	}
	assert_int_equal(s.n, 5000);
	assert_true(s.n * 4 <= s.cap * 3);
	for (i = 0; i < 5000; i++) {
		k[0] = i * 2654435761u;
		k[1] = i & 7;
		e = fr_kset_get(&s, k);
		assert_non_null(e);
		assert_int_equal(e->val, i + 1);
		/* a second put finds it */
		assert_ptr_equal(fr_kset_put(&s, k, &added), e);
		assert_false(added);
		/* the same first word, another second: another key */
		k[1] = 8;
		assert_null(fr_kset_get(&s, k));
	}
	assert_int_equal(s.n, 5000);
	fr_kset_free(&s);
	assert_null(s.e);
	/* a freed set finds and takes nothing (its mask would be all ones) */
	assert_null(fr_kset_get(&s, k));
	assert_null(fr_kset_put(&s, k, &added));
	/* capacities the probe's mask cannot take */
	assert_int_equal(fr_kset_init(&s, sizeof(struct ent), sizeof(k), 0), -EINVAL);
	assert_int_equal(fr_kset_init(&s, sizeof(struct ent), sizeof(k), 12), -EINVAL);
	assert_int_equal(fr_kset_init(&s, sizeof(k), sizeof(struct ent), 16), -EINVAL);
}

/* 'port N ra on' with its M and O flags, preference and DNS servers: the
 * line is the whole setting (one without dns clears them), a file that
 * fails puts back flags and servers alike, 'off' clears them. */
static void test_ra_options(void **state)
{
	static const char *const two[] = {"2001:db8::53", "fe80::35", NULL};
	static const char *const one[] = {"2001:db8::99", NULL}, *const none[] = {NULL};
	struct router *r = *state;
	char err[256] = "";

	load_ok(r, "port 0 ra on interval 30 managed dns 2001:db8::53,fe80::35\n");
	ra_is(r, 30, RA_MANAGED, two);
	assert_int_not_equal(config_load(r,
					 write_tmp("port 0 ra on other dns 2001:db8::99\n"
						   "route add 10.0.0.0/8 via 203.0.113.1\n"),
					 false, NULL, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, ":2: "));
	ra_is(r, 30, RA_MANAGED, two);
	load_ok(r, "port 0 ra on other managed no-slaac dns 2001:db8::99\n");
	ra_is(r, 600, RA_MANAGED | RA_OTHER | RA_NO_SLAAC, one);
	load_ok(r, "port 0 ra on interval 4 preference high\n");
	ra_is(r, 4, RA_PRF_HIGH, none);
	load_ok(r, "port 0 ra on preference low managed\n");
	ra_is(r, 600, RA_PRF_LOW | RA_MANAGED, none);
	load_ok(r, "port 0 ra on interval 4 preference medium\n");
	ra_is(r, 4, 0, none);
	load_ok(r, "port 0 ra on dns 2001:db8::99\n");
	assert_int_not_equal(config_load(r,
					 write_tmp("port 0 ra off\n"
						   "route add 10.0.0.0/8 via 203.0.113.1\n"),
					 false, NULL, err, sizeof(err)),
			     0);
	ra_is(r, 600, 0, one);
	load_ok(r, "port 0 ra off\n");
	ra_is(r, 0, 0, none);
	/* min-delay: its own, a failing file puts it back, a line without
	 * it is the default again */
	load_ok(r, "port 0 ra on interval 4 min-delay 30\n");
	ra_is2(r, 4, 30, 0, none);
	assert_int_not_equal(config_load(r,
					 write_tmp("port 0 ra on min-delay 3000\n"
						   "route add 10.0.0.0/8 via 203.0.113.1\n"),
					 false, NULL, err, sizeof(err)),
			     0);
	ra_is2(r, 4, 30, 0, none);
	load_ok(r, "port 0 ra on interval 4 min-delay 2500 managed\n");
	ra_is2(r, 4, 2500, RA_MANAGED, none);
	load_ok(r, "port 0 ra on interval 4\n");
	ra_is(r, 4, 0, none);
	load_ok(r, "port 0 ra off\n");
	unlink(write_tmp(""));
}

/* set ip reassembly-timeout: taken, put back by a failing file, 'default'
 * is 0 (30 s IPv4, 60 s IPv6), and show config writes what loads back. */
static void test_reasm_timeout(void **state)
{
	struct router *r = *state;
	char err[256] = "";

	assert_int_equal(r->reasm_timeout_s, 0);
	load_ok(r, "set ip reassembly-timeout 7\n");
	assert_int_equal(r->reasm_timeout_s, 7);
	assert_int_not_equal(config_load(r,
					 write_tmp("set ip reassembly-timeout 9\n"
						   "route add 10.0.0.0/8 via 203.0.113.1\n"),
					 false, NULL, err, sizeof(err)),
			     0);
	assert_int_equal(r->reasm_timeout_s, 7);
	load_ok(r, "set ip reassembly-timeout default\n");
	assert_int_equal(r->reasm_timeout_s, 0);
	unlink(write_tmp(""));
}

/* A rolled-back address delete puts the address back in its place: the
 * first address of a port is its ARP probes' and ICMP errors' source. */
static void test_addr_order_rollback(void **state)
{
	struct router *r = *state;
	char err[256] = "";
	struct fr_addr a, b;

	load_ok(r, "port 0 address 192.0.2.1/24\n"
		   "port 0 address add 198.51.100.1/24\n");
	assert_int_not_equal(config_load(r,
					 write_tmp("port 0 address del 192.0.2.1/24\n"
						   "route add 10.0.0.0/8 via 203.0.113.1\n"),
					 false, NULL, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, ":2: "));
	fr_addr_parse("192.0.2.1", &a);
	fr_addr_parse("198.51.100.1", &b);
	assert_int_equal(r->ports[0].nb_addrs, 2);
	assert_true(fr_addr_eq(&r->ports[0].addrs[0].addr, &a));
	assert_true(fr_addr_eq(&r->ports[0].addrs[1].addr, &b));
	/* and its routes are back (4 each) */
	assert_int_equal(fib_route_count(r->fib, AF_INET), 8);
	unlink(write_tmp(""));
}

/*
 * A NUL or another control byte (but a tab or a carriage return) in a file
 * line, as in a socket's: the load fails at that line, saying which byte
 * and where, and applies nothing. Before, a NUL cut the line short and the
 * rest of it was never read: the route went by port 0, rpf loose was set
 * without its ignore-default.
 */
static void test_control_bytes(void **state)
{
	struct router *r = *state;
#define TXT(s) s, sizeof(s) - 1
	static const struct {
		const char *text;
		size_t len;
		unsigned int line, byte, value;
	} bad[] = {
		{TXT("port 0 address 192.0.2.1/24\nport 1 address 198.51.100.1/24\n"
		     "route add 10.0.0.0/8 via 192.0.2.254\0 port 1\n"),
		 3, 37, 0x00},
		{TXT("port 0 rpf loose\0 ignore-default\n"), 1, 17, 0x00},
		{TXT("route add 10.0.0.0/8 blackhole\0\n"), 1, 31, 0x00},
		{TXT("\0route add 10.0.0.0/8 blackhole\n"), 1, 1, 0x00},
		{TXT("route add 10.0.0.0/8 blackhole\n\x1b[Aroute add 11.0.0.0/8 blackhole\n"), 2,
		 1, 0x1b},
		{TXT("route add 10.0.0.0/8\vblackhole\n"), 1, 21, 0x0b},
		{TXT("port 0 mtu 1400\x7f\n"), 1, 16, 0x7f},
		/* a comment is the line's too, as on the socket */
		{TXT("port 0 mtu 1400 # \x01\n"), 1, 19, 0x01},
		/* a line end is "\n" or "\r\n", not a lone "\r" inside */
		{TXT("route add 10.0.0.0/8 blackhole\x0c\r\n"), 1, 31, 0x0c},
		/* the last of many lines */
		{TXT("route add 10.0.0.0/8 blackhole\nroute add 11.0.0.0/8 blackhole\n"
		     "route add 12.0.0.0/8 blackhole\n\0\n"),
		 4, 1, 0x00},
	};
#undef TXT
	struct snapshot before, after;
	unsigned int i, failed = 0;
	char err[512];

	/* every case said (the first failure does not hide the others) */
	for (i = 0; i < RTE_DIM(bad); i++) {
		char want[160];
		const char *path = write_tmp_n(bad[i].text, bad[i].len);
		uint64_t gen = fib_generation(r->fib);
		uint8_t rpf = r->dp_ports[0].rpf;
		uint16_t mtu = r->dp_ports[0].mtu;

		snap(r, &before);
		err[0] = '\0';
		if (config_load(r, path, false, NULL, err, sizeof(err)) == 0) {
			print_error("case %u accepted\n", i);
			failed++;
			continue;
		}
		snap(r, &after);
		snprintf(want, sizeof(want), "%s:%u: control byte 0x%02x at byte %u of the line",
			 path, bad[i].line, bad[i].value, bad[i].byte);
		if (strcmp(err, want) != 0) {
			print_error("case %u: got \"%s\", want \"%s\"\n", i, err, want);
			failed++;
		} else if (memcmp(&before, &after, sizeof(before)) != 0 ||
			   fib_generation(r->fib) != gen || r->dp_ports[0].rpf != rpf ||
			   r->dp_ports[0].mtu != mtu) {
			print_error("case %u: state changed\n", i);
			failed++;
		}
	}
	if (failed > 0)
		fail_msg("%u of %u cases", failed, (unsigned int)RTE_DIM(bad));
	/* tabs and carriage returns are no control bytes here */
	if (config_load(r,
			write_tmp("route add 10.0.0.0/8\tblackhole\r\n"
				  "port 0 mtu 1400\t# a tab\there\r\n"),
			false, NULL, err, sizeof(err)) != 0)
		fail_msg("tabs and CRLF: %s", err);
	assert_int_equal(fib_route_count(r->fib, AF_INET), 1);
	assert_int_equal(r->dp_ports[0].mtu, 1400);
	unlink(write_tmp(""));
}

/*
 * A file of old Mac line endings (a lone "\r" between lines) reads as one
 * line: it fails there, saying so, and applies nothing. Before, it said
 * "unexpected 'route'", or, its first line a comment, applied nothing and
 * succeeded. "\r\n" and "\r\r\n" ends still load.
 */
static void test_lone_carriage_return(void **state)
{
	struct router *r = *state;
	static const char *const bad[] = {
		"port 0 mtu 1400\rroute add 10.0.0.0/8 blackhole\r",
		"# routes\rroute add 10.0.0.0/8 blackhole\r",
	};
	const char *path;
	char err[512], want[256];
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		path = write_tmp(bad[i]);
		snprintf(want, sizeof(want),
			 "%s:1: carriage return at byte %zu inside the line (lines end with \\n or "
			 "\\r\\n, not \\r alone)",
			 path, strcspn(bad[i], "\r") + 1);
		assert_int_not_equal(config_load(r, path, false, NULL, err, sizeof(err)), 0);
		assert_string_equal(err, want);
		assert_int_equal(fib_route_count(r->fib, AF_INET), 0);
		assert_int_not_equal(r->dp_ports[0].mtu, 1400);
	}
	path = write_tmp("port 0 mtu 1400\r\r\nroute add 10.0.0.0/8 blackhole\r\n");
	if (config_load(r, path, false, NULL, err, sizeof(err)) != 0)
		fail_msg("\\r\\r\\n: %s", err);
	assert_int_equal(fib_route_count(r->fib, AF_INET), 1);
	unlink(path);
}

/* A file of @text refused at its line @line, its error starting "@msg",
 * and no line of it applied (the IPv4 routes as they were). */
static void load_refused(struct router *r, const char *text, unsigned int line, const char *msg)
{
	uint32_t routes = fib_route_count(r->fib, AF_INET);
	const char *path = write_tmp(text);
	char err[512], want[512];

	assert_int_not_equal(config_load(r, path, false, NULL, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s:%u: %s", path, line, msg);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("got \"%s\", want \"%s...\"", err, want);
	assert_int_equal(fib_route_count(r->fib, AF_INET), routes);
}

/*
 * Text from an editor: a UTF-8 byte order mark that starts the file is
 * none of its text, and any other byte that is not ASCII, outside a
 * comment, is said as such where it is (an error that quotes it shows
 * nothing amiss: "unknown command 'route'"); a comment holds any text.
 */
static void test_editor_bytes(void **state)
{
	struct router *r = *state;
	char err[512];

	if (config_load(r,
			write_tmp("\xef\xbb\xbfroute add 10.0.0.0/8 blackhole\n"
				  "route add 11.0.0.0/8 blackhole # caf\xc3\xa9, \xe2\x82\xac\n"),
			false, NULL, err, sizeof(err)) != 0)
		fail_msg("a byte order mark, UTF-8 in a comment: %s", err);
	assert_int_equal(fib_route_count(r->fib, AF_INET), 2);
	/* a no-break space between two words; a mark not at the start */
	load_refused(r,
		     "route add 12.0.0.0/8 blackhole\nroute\xc2\xa0"
		     "add 13.0.0.0/8 blackhole\n",
		     2, "byte 0xc2 at byte 6 of the line is not ASCII");
	load_refused(r,
		     "route add 12.0.0.0/8 blackhole\n\xef\xbb\xbfroute add 13.0.0.0/8 blackhole\n",
		     2, "byte 0xef at byte 1 of the line is not ASCII");
	/* neither applied a line */
	assert_int_equal(fib_route_count(r->fib, AF_INET), 2);
	unlink(write_tmp(""));
}

/*
 * A file whose last line has no newline may have been cut short there ('mtu
 * 150' of 'mtu 1500', or a comment whose following lines were lost): the
 * load is refused naming that line, as configure replace refuses it, and
 * no line runs. A byte order mark alone is an empty file.
 */
static void test_cut_last_line(void **state)
{
	struct router *r = *state;
	char err[512];

	load_refused(r, "route add 10.0.0.0/8 blackhole\nroute add 11.0.0.0/8 blackhole", 2,
		     "the last line has no newline (a file cut short?)");
	/* a line end of "\r" alone is no newline either */
	load_refused(r, "route add 10.0.0.0/8 blackhole\r", 1, "the last line has no newline");
	load_refused(r, "route add 10.0.0.0/8 blackhole\n# uplin", 2,
		     "the last line has no newline");
	assert_int_equal(fib_route_count(r->fib, AF_INET), 0);
	if (config_load(r, write_tmp("\xef\xbb\xbf"), false, NULL, err, sizeof(err)) != 0)
		fail_msg("a byte order mark alone: %s", err);
	unlink(write_tmp(""));
}

/*
 * A command is at most 1023 bytes, as on the socket: not counting the
 * file line's end ("\n" or "\r\n") nor a comment. Before, a 1023-byte
 * command was refused as 1024 bytes with its newline, and a comment line
 * longer than 1023 bytes refused the whole file.
 */
static void test_line_length(void **state)
{
	struct router *r = *state;
	char cmd1023[1100], cmd1024[1100], *text = malloc(16384), err[512] = "";
	struct cmd_out o = {0};
	unsigned int failed = 0;

	/* "route add 10.0.0.0/8", spaces, " blackhole": 1023 bytes */
	snprintf(cmd1023, sizeof(cmd1023), "route add 10.0.0.0/8%*s", 1023 - 20, "blackhole");
	assert_int_equal(strlen(cmd1023), 1023);
	snprintf(cmd1024, sizeof(cmd1024), "route add 10.0.0.0/8%*s", 1024 - 20, "blackhole");
	/* files, each said (the first failure does not hide the others): 1023
	 * bytes with "\n", with "\r\n"; long comments, alone or after a
	 * command */
	snprintf(text, 16384, "%s\n", cmd1023);
	if (config_load(r, write_tmp(text), false, NULL, err, sizeof(err)) != 0) {
		print_error("1023 bytes and \\n: %s\n", err);
		failed++;
	}
	snprintf(text, 16384, "%s\r\n", cmd1023);
	memcpy(text + 10, "11", 2); /* 11.0.0.0/8 */
	if (config_load(r, write_tmp(text), false, NULL, err, sizeof(err)) != 0) {
		print_error("1023 bytes and \\r\\n: %s\n", err);
		failed++;
	}
	snprintf(text, 16384, "#%05000d\nroute add 12.0.0.0/8 blackhole\n", 0);
	if (config_load(r, write_tmp(text), false, NULL, err, sizeof(err)) != 0) {
		print_error("a comment line of 5001 bytes: %s\n", err);
		failed++;
	}
	snprintf(text, 16384, "route add 13.0.0.0/8 blackhole #%03000d\n", 0);
	if (config_load(r, write_tmp(text), false, NULL, err, sizeof(err)) != 0) {
		print_error("a command and a comment of 3000 bytes: %s\n", err);
		failed++;
	}
	if (failed > 0)
		fail_msg("%u of 4 files refused", failed);
	assert_int_equal(fib_route_count(r->fib, AF_INET), 4);
	/* one more byte: refused, and nothing of the file applied */
	snprintf(text, 16384, "route add 14.0.0.0/8 blackhole\n%s\n", cmd1024);
	assert_int_not_equal(config_load(r, write_tmp(text), false, NULL, err, sizeof(err)), 0);
	if (strstr(err, ":2: ") == NULL || strstr(err, "(1024 bytes, at most 1023") == NULL)
		fail_msg("1024 bytes: got \"%s\"", err);
	assert_int_equal(fib_route_count(r->fib, AF_INET), 4);
	/* the same on the CLI, where a line comes without its "\n" ("\r"
	 * may stay: a terminal's line end) */
	assert_int_equal(cmd_run_line(r, "route del 10.0.0.0/8", &o), 0);
	if (cmd_run_line(r, cmd1023, &o) != 0)
		fail_msg("CLI, 1023 bytes: %s", o.buf);
	assert_int_equal(cmd_run_line(r, "route del 10.0.0.0/8", &o), 0);
	strcat(cmd1023, "\r");
	if (cmd_run_line(r, cmd1023, &o) != 0)
		fail_msg("CLI, 1023 bytes and \\r: %s", o.buf);
	out_reset(&o);
	assert_int_not_equal(cmd_run_line(r, cmd1024, &o), 0);
	assert_non_null(strstr(o.buf, "(1024 bytes, at most 1023"));
	out_free(&o);
	unlink(write_tmp(""));
	free(text);
	/* a comment of 65,536 bytes and its newline is a line; one more byte,
	 * or a file of no newline at all (a binary), is refused at that
	 * line, not read whole first */
	text = malloc(70002);
	memset(text, 'x', 70000);
	text[0] = '#';
	strcpy(text + 65536, "\nroute add 15.0.0.0/8 blackhole\n");
	if (config_load(r, write_tmp(text), false, NULL, err, sizeof(err)) != 0)
		fail_msg("a comment line of 65536 bytes: %s", err);
	assert_int_equal(fib_route_count(r->fib, AF_INET), 5);
	memset(text, 'x', 70000);
	text[0] = '#';
	strcpy(text + 65537, "\nroute add 16.0.0.0/8 blackhole\n");
	assert_int_not_equal(config_load(r, write_tmp(text), false, NULL, err, sizeof(err)), 0);
	if (strstr(err, ":1: a line of more than 65536 bytes") == NULL)
		fail_msg("a comment of 65537 bytes: got \"%s\"", err);
	memset(text, 'x', 70000);
	text[70000] = '\0';
	assert_int_not_equal(config_load(r, write_tmp(text), false, NULL, err, sizeof(err)), 0);
	if (strstr(err, ":1: a line of more than 65536 bytes") == NULL)
		fail_msg("70000 bytes, no newline: got \"%s\"", err);
	assert_int_equal(fib_route_count(r->fib, AF_INET), 5);
	unlink(write_tmp(""));
	free(text);
}

/*
 * An MTU is refused as it is parsed past what a port carries (PORT_MTU_MAX,
 * the help's range): before, 70000 was "not a number in 68-65535" and
 * 3000 passed the parse, to be refused when applied (or not at all on a
 * port without a device), while the help says 68-2030.
 */
static void test_mtu_range(void **state)
{
	static const char *const bad[] = {"3000",  "2031",  "9000",
					  "65535", "70000", "99999999999999999999999"};
	struct cmd_out o = {0};
	char err[CMD_ERR_LEN], want[64];
	struct cmd c;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		char line[64];

		snprintf(line, sizeof(line), "port 1 mtu %s", bad[i]);
		err[0] = '\0';
		if (cmd_parse(line, &c, err, sizeof(err)) == 0)
			fail_msg("'%s' parsed", line);
		snprintf(want, sizeof(want), "port 1 carries at most %u bytes",
			 (unsigned int)PORT_MTU_MAX);
		if (strstr(err, want) == NULL || strstr(err, "68-65535") != NULL)
			fail_msg("'%s': got \"%s\", want \"%s\"", line, err, want);
	}
	snprintf(want, sizeof(want), "68-%u", (unsigned int)PORT_MTU_MAX);
	for (i = 0; i < 3; i++) {
		static const char *const low[] = {"67", "0", "x"};
		char line[64];

		snprintf(line, sizeof(line), "port 1 mtu %s", low[i]);
		if (cmd_parse(line, &c, err, sizeof(err)) == 0)
			fail_msg("'%s' parsed", line);
		if (strstr(err, want) == NULL)
			fail_msg("'%s': got \"%s\", want \"%s\"", line, err, want);
	}
	snprintf(want, sizeof(want), "port 1 mtu %u", (unsigned int)PORT_MTU_MAX);
	assert_int_equal(cmd_parse(want, &c, err, sizeof(err)), 0);
	assert_int_equal(c.value, PORT_MTU_MAX);
	assert_int_equal(cmd_parse("port 1 mtu 68", &c, err, sizeof(err)), 0);
	/* the help gives the same range */
	cmd_help(&o, "port");
	snprintf(want, sizeof(want), "(68-%u:", (unsigned int)PORT_MTU_MAX);
	assert_non_null(strstr(o.buf, want));
	out_free(&o);
}

/* A JSON answer's strings: quotes, backslashes and control bytes escaped,
 * well-formed UTF-8 kept, any other byte (a file name may hold any) one
 * U+FFFD each: the answer stays valid JSON. */
static void test_json_string(void **state)
{
	static const struct {
		const char *in, *want;
	} c[] = {
		{"a\"b\\c\x01\x1f", "a\\\"b\\\\c\\u0001\\u001f"},
		{"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\x7f",
		 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\x7f"},
		{"\xff.conf", "\\ufffd.conf"},
		{"\xc0\xaf", "\\ufffd\\ufffd"},			      /* overlong '/' */
		{"\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd"},	      /* overlong in 3 */
		{"\xf0\x80\x80\xaf", "\\ufffd\\ufffd\\ufffd\\ufffd"}, /* overlong in 4 */
		{"\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd"},	      /* a surrogate */
		{"\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd"}, /* past U+10FFFF */
		{"x\xe2\x82", "x\\ufffd\\ufffd"},		      /* cut short at the end */
		{"\xe2\x82\"", "\\ufffd\\ufffd\\\""},
	};
	struct cmd_out o = {0};
	char want[128];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(c); i++) {
		out_reset(&o);
		jw_str(&o, "k", c[i].in);
		snprintf(want, sizeof(want), "\"k\":\"%s\"", c[i].want);
		assert_string_equal(o.buf, want);
	}
	out_free(&o);
}

/* CLI @line runs, and its answer in @o holds @want. */
static void run_says(struct router *r, struct cmd_out *o, const char *line, const char *want)
{
	out_reset(o);
	assert_int_equal(cmd_run_line(r, line, o), 0);
	if (strstr(o->buf, want) == NULL)
		fail_msg("%s: '%s'", line, o->buf);
}

/* CLI lines: each command is its own transaction; errors are reported. */
static void test_cli_lines(void **state)
{
	struct router *r = *state;
	struct cmd_out o = {0};

	assert_int_equal(cmd_run_line(r, "port 1 address add 198.51.100.1/24", &o), 0);
	assert_int_equal(cmd_run_line(r, "route add 10.0.0.0/8 via 198.51.100.2", &o), 0);
	assert_int_equal(cmd_run_line(r, "   # just a comment", &o), 0);
	out_reset(&o);
	assert_int_not_equal(cmd_run_line(r, "route add 10.0.0.0/8 blackhole", &o), 0);
	assert_non_null(strstr(o.buf, "error: route 10.0.0.0/8 exists"));
	run_says(r, &o, "show route lookup 10.1.1.1", "10.0.0.0/8");
	assert_non_null(strstr(o.buf, "198.51.100.2"));
	/* a protocol neither named nor a number: the names said */
	out_reset(&o);
	assert_int_not_equal(
		cmd_run_line(r, "show route lookup 10.1.1.1 from 10.2.2.2 proto xyz", &o), 0);
	assert_non_null(strstr(
		o.buf, "proto: 'xyz' is none of tcp, udp, sctp, udplite nor a number in 0-255"));
	out_reset(&o);
	assert_int_not_equal(
		cmd_run_line(r, "show route lookup 10.1.1.1 from 10.2.2.2 proto udp sport 65536",
			     &o),
		0);
	assert_non_null(strstr(o.buf, "sport: '65536' is not a number in 0-65535"));
	/* the l4 multipath hash takes both ports: one alone is refused, and
	 * a protocol without them is said not hashed (not taken as ports 0) */
	out_reset(&o);
	assert_int_not_equal(
		cmd_run_line(r, "show route lookup 10.1.1.1 from 10.2.2.2 proto udp dport 53", &o),
		0);
	assert_non_null(strstr(o.buf, "dport needs sport too: the multipath hash takes both"));
	/* a word given twice: refused, not the last taken (another flow) */
	out_reset(&o);
	assert_int_not_equal(
		cmd_run_line(r, "show route lookup 10.1.1.1 from 10.2.2.2 from 10.3.3.3", &o), 0);
	assert_non_null(strstr(o.buf, "'from' given twice"));
	out_reset(&o);
	assert_int_not_equal(cmd_run_line(r,
					  "show route lookup 10.1.1.1 from 10.2.2.2 proto udp "
					  "sport 1 dport 2 sport 9",
					  &o),
			     0);
	assert_non_null(strstr(o.buf, "'sport' given twice"));
	{
		/* a static neighbour with one of the router's own MACs would
		 * send its traffic back into the router: refused, as ARP
		 * refuses such a sender; nothing added */
		char mac[RTE_ETHER_ADDR_FMT_SIZE], line[128];
		struct fr_addr a = fr_addr4(0xc6336414); /* 198.51.100.20 */
		struct neigh_info ni;

		rte_ether_format_addr(mac, sizeof(mac), &r->dp_ports[1].mac);
		snprintf(line, sizeof(line), "neigh add 198.51.100.20 lladdr %s port 0", mac);
		out_reset(&o);
		assert_int_not_equal(cmd_run_line(r, line, &o), 0);
		assert_non_null(strstr(o.buf, "is the MAC of this router's port 1, not a "
					      "neighbour's: traffic to 198.51.100.20 would come "
					      "back into the router"));
		assert_int_equal(neigh_get(r->neigh, &a, 0, &ni), -ENOENT);
	}
	/* the gateway's placeholder (show neigh: NONE) has no entry to
	 * delete, and the refusal says what the listed line is */
	out_reset(&o);
	assert_int_not_equal(cmd_run_line(r, "neigh del 198.51.100.2 port 1", &o), 0);
	assert_non_null(strstr(o.buf, "the NONE entry show neigh lists is a route's gateway"));
	assert_int_equal(
		cmd_run_line(r, "route add 10.9.0.0/16 via 198.51.100.2 via 198.51.100.3", &o), 0);
	assert_int_equal(cmd_run_line(r, "set ip multipath-hash l4", &o), 0);
	run_says(r, &o, "show route lookup 10.9.1.1 from 10.2.2.2 proto tcp",
		 "(its ports not hashed");
	assert_null(strstr(o.buf, "its protocol and ports"));
	run_says(r, &o, "show route lookup 10.9.1.1 from 10.2.2.2 proto tcp sport 1 dport 2",
		 "the flow from 10.2.2.2, its protocol and ports, goes by 198.51.100.");
	assert_null(strstr(o.buf, "not hashed"));
	o.json = true;
	run_says(r, &o, "show route lookup 10.9.1.1 from 10.2.2.2 proto tcp",
		 "\"ports_hashed\":false");
	o.json = false;
	assert_int_equal(cmd_run_line(r, "set ip multipath-hash l3", &o), 0);
	assert_int_equal(cmd_run_line(r, "route del 10.9.0.0/16", &o), 0);
	run_says(r, &o, "show route", "198.51.100.0/24      connected");
	run_says(r, &o, "help route", "route del PREFIX");
	assert_null(strstr(o.buf, "neigh add"));
	out_reset(&o);
	assert_int_equal(cmd_run_line(r, "port 1 address del 198.51.100.1/24", &o), 0);
	assert_int_equal(r->ports[1].nb_addrs, 0);
	out_reset(&o);
	assert_int_equal(cmd_run_line(r, "quit", &o), 0);
	assert_true(o.quit);
	out_free(&o);
}

/* 'port N address del' of a subnet that held gateways: the routes via them
 * stay on the port, and the command says how many */
static void test_addr_del_warns(void **state)
{
	struct router *r = *state;
	struct cmd_out o = {0};
	const char *lines[] = {"port 0 address add 192.0.2.1/24",
			       "port 0 address add 192.0.3.1/24",
			       "port 0 address add 2001:db8:5::1/64",
			       "port 1 address add 198.51.100.1/24",
			       "route add 10.0.0.0/8 via 192.0.2.9",
			       "route add 11.0.0.0/8 via 192.0.2.9 via 192.0.3.9",
			       "route add 12.0.0.0/8 via 192.0.3.9",
			       "route add 2001:db8:50::/48 via 2001:db8:5::9",
			       "route add 2001:db8:51::/48 via fe80::9 port 0"};
	unsigned int i;

	for (i = 0; i < RTE_DIM(lines); i++) {
		out_reset(&o);
		if (cmd_run_line(r, lines[i], &o) != 0)
			fail_msg("%s: %s", lines[i], o.buf);
	}
	run_says(r, &o, "port 0 address del 192.0.3.1/24",
		 "warning: 2 routes via gateways in 192.0.3.0/24 stay on port 0");
	run_says(r, &o, "port 0 address del 2001:db8:5::1/64",
		 "warning: 1 route via gateways in 2001:db8:5::/64 stays on port 0");
	/* in JSON too: a change answers nothing there, unless it warns */
	assert_int_equal(cmd_run_line(r, "port 0 address add 192.0.3.1/24", &o), 0);
	o.json = true;
	run_says(r, &o, "port 0 address del 192.0.3.1/24",
		 "{\"warnings\":[\"warning: 2 routes via gateways in 192.0.3.0/24 stay on port 0,");
	out_reset(&o);
	assert_int_equal(cmd_run_line(r, "port 1 address add 203.0.113.1/24", &o), 0);
	assert_int_equal(o.len, 0);
	assert_int_equal(cmd_run_line(r, "port 1 address del 203.0.113.1/24", &o), 0);
	assert_int_equal(o.len, 0);
	o.json = false;
	out_reset(&o);
	assert_int_equal(cmd_run_line(r, "port 1 address del 198.51.100.1/24", &o), 0);
	assert_null(strstr(o.buf, "warning"));
	/* the routes stay, on the port */
	run_says(r, &o, "show route lookup 12.1.1.1", "192.0.3.9");
	out_free(&o);
}

/*
 * A file's line warns as the CLI's does (an address deleted under routes
 * via its subnet's gateways): the load's answer gives it with the file and
 * line, its JSON too, and config_load() hands it to its caller (the
 * daemon prints it on stderr at start).
 */
static void test_file_warnings(void **state)
{
	struct router *r = *state;
	struct cmd_out o = {0}, warn = {0};
	struct config_result res = {.warn = &warn};
	char line[96], err[CMD_ERR_LEN], want[512];
	/* (one path for every file write_tmp() writes) */
	const char *f = write_tmp("port 0 address 192.0.2.1/24\n"
				  "route add 10.0.0.0/8 via 192.0.2.254\n"
				  "# the address goes, the route stays\n"
				  "port 0 address del 192.0.2.1/24\n");

	snprintf(want, sizeof(want),
		 "%s:4: warning: 1 route via gateways in 192.0.2.0/24 stays on port 0, their "
		 "gateways off its subnets now",
		 f);
	snprintf(line, sizeof(line), "load %s", f);
	run_says(r, &o, line, want);
	/* after the warning, the answer as ever */
	assert_non_null(strstr(o.buf, "loaded "));
	assert_int_equal(cmd_run_line(r, "route del 10.0.0.0/8", &o), 0);
	o.json = true;
	run_says(r, &o, line, "\"warnings\":[\"");
	assert_non_null(strstr(o.buf, "192.0.2.0/24 stays on port 0"));
	o.json = false;
	assert_int_equal(cmd_run_line(r, "route del 10.0.0.0/8", &o), 0);
	assert_int_equal(config_load(r, f, false, &res, err, sizeof(err)), 0);
	assert_non_null(warn.buf);
	assert_non_null(strstr(warn.buf, want));
	/* a setting given again: its second line replaces the first whole
	 * (the hold-time's up half back to 0), which may not be what its
	 * reader expects: warned of with both lines; a port taken down
	 * then up again is a sequence, no setting given twice */
	out_reset(&warn);
	assert_int_equal(config_load(r,
				     write_tmp("port 0 hold-time up 2000\nset neigh hold 2 "
					       "retrans-time 200\nport 1 down\nport 1 up\n"
					       "port 0 hold-time down 500\n# x\nset neigh "
					       "ucast-probes 2 hold 8\n"),
				     false, &res, err, sizeof(err)),
			 0);
	snprintf(want, sizeof(want),
		 "%s:5: warning: port 0 hold-time is set at line 1 already: this line replaces it "
		 "whole (the options it leaves out back to their defaults)\n%s:7: warning: set "
		 "neigh hold is set at line 2 already: this line's value replaces it\n",
		 f, f);
	if (warn.buf == NULL || strstr(warn.buf, want) == NULL ||
	    strstr(warn.buf, "port 1") != NULL)
		fail_msg("warnings: '%s'", warn.buf);
	run_says(r, &o, "show config", "port 0 hold-time up 0 down 500\n");
	/* a set neigh parameter is one value: line 7 left retrans-time as
	 * line 2 set it */
	run_says(r, &o, "show config", "retrans-time 200");
	/* loads that warn of nothing say nothing more */
	out_reset(&warn);
	assert_int_equal(
		config_load(r, write_tmp("route del 10.0.0.0/8\n"), false, &res, err, sizeof(err)),
		0);
	assert_int_equal(warn.len, 0);
	out_reset(&o);
	write_tmp("route add 10.0.0.0/8 blackhole\n");
	assert_int_equal(cmd_run_line(r, line, &o), 0); /* the file at f now */
	assert_null(strstr(o.buf, "warning"));
	out_free(&warn);
	out_free(&o);
}

/*
 * Multipath sets a transaction replaced stay until it ends, for its undo:
 * a load that changes most of 4,096 sets at once runs out of room for the
 * new ones, says so (not that 4,096 are in use by routes), and is undone
 * whole.
 */
static void test_mp_sets_kept(void **state)
{
	struct router *r = *state;
	struct cmd_out o = {0};
	char line[128], path[64];
	unsigned int i, j, k;
	FILE *f;

	assert_int_equal(cmd_run_line(r, "port 0 address add 10.0.0.1/16", &o), 0);
	snprintf(path, sizeof(path), "/tmp/fr-ut-mpsets-%d.conf", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	/* 2,100 routes, each its own pair of 70 gateways */
	for (i = 0, k = 0; i < 70 && k < 2100; i++)
		for (j = i + 1; j < 70 && k < 2100; j++, k++) {
			snprintf(line, sizeof(line),
				 "route add 100.%u.%u.0/24 via 10.0.1.%u via 10.0.1.%u", k >> 8,
				 k & 255, i + 1, j + 1);
			out_reset(&o);
			if (cmd_run_line(r, line, &o) != 0)
				fail_msg("%s: %s", line, o.buf);
			fprintf(f,
				"route replace 100.%u.%u.0/24 via 10.0.1.%u weight 2 via "
				"10.0.1.%u\n",
				k >> 8, k & 255, i + 1, j + 1);
		}
	assert_int_equal(fclose(f), 0);
	assert_int_equal(fib_mp_count(r->fib), 2100);
	snprintf(line, sizeof(line), "load %s", path);
	out_reset(&o);
	assert_int_not_equal(cmd_run_line(r, line, &o), 0);
	if (strstr(o.buf, "4096 distinct sets of multipath gateways are in use, the most there "
			  "can be, 1996 of them no longer by routes but kept until this command "
			  "or file ends, for its undo (change fewer sets at a time)") == NULL)
		fail_msg("%s", o.buf);
	/* undone whole: the old sets, and only them */
	assert_int_equal(fib_mp_count(r->fib), 2100);
	run_says(r, &o, "show route 100.8.51.0/24", "multipath");
	assert_null(strstr(o.buf, "weight"));
	unlink(path);
	out_free(&o);
}

/*
 * A route its port could not put back on coming up (the tbl8 groups taken
 * meanwhile): 'port N up' says so, show route summary counts it, and a
 * load that deletes it and then fails puts it back, still withdrawn (it
 * was lost: the undo's replace found no more room than the port had);
 * show config gives it commented out.
 */
static void test_stranded(void **state)
{
	struct router *r = *state;
	struct cmd_out o = {0};
	char line[96];
	unsigned int i;

	assert_int_equal(cmd_run_line(r, "port 0 address add 192.0.2.1/24", &o), 0);
	assert_int_equal(cmd_run_line(r, "port 1 address add 198.51.100.1/24", &o), 0);
	assert_int_equal(cmd_run_line(r, "route add 10.1.2.0/25 via 192.0.2.9", &o), 0);
	assert_int_equal(cmd_run_line(r, "port 0 down", &o), 0);
	/* /25s by port 1 until no tbl8 group is left (64 in all) */
	for (i = 0; i < 64; i++) {
		snprintf(line, sizeof(line), "route add 11.0.%u.0/25 via 198.51.100.7", i);
		out_reset(&o);
		if (cmd_run_line(r, line, &o) != 0)
			break;
	}
	assert_true(i > 0 && i < 64);
	assert_non_null(strstr(o.buf, "11.0."));
	run_says(r, &o, "port 0 up", "warning: 1 routes could not be put back (table full)");
	run_says(r, &o, "show route summary", "table full   1 IPv4, 0 IPv6");
	/* JSON: withdrawn, the port is up: not counted as port down */
	o.json = true;
	run_says(r, &o, "show route summary",
		 "\"routes_withdrawn\":1,\"routes6_withdrawn\":0,\"routes_port_down\":0,"
		 "\"routes6_port_down\":0,\"routes_table_full\":1,");
	o.json = false;
	out_reset(&o);
	snprintf(line, sizeof(line), "load %s",
		 write_tmp("route del 10.1.2.0/25\nroute add 12.0.0.0/8 via 203.0.113.1\n"));
	assert_int_not_equal(cmd_run_line(r, line, &o), 0);
	assert_null(strstr(o.buf, "could not be undone"));
	/* after the failed load */
	run_says(r, &o, "show route 10.1.2.0/25", "(withdrawn: table full, retried)");
	run_says(r, &o, "show route summary", "table full   1 IPv4, 0 IPv6");
	/* show config says it, commented out: the file it writes would
	 * otherwise not load into a router of this size (the /25 first
	 * takes the group the last of the others needs) */
	run_says(r, &o, "show config",
		 "# withdrawn (table full): left out so that this file loads; add it once "
		 "there is room\n# route add 10.1.2.0/25 via 192.0.2.9 port 0\n");
	assert_null(strstr(o.buf, "\nroute add 10.1.2.0/25"));
	assert_non_null(strstr(o.buf, "\nroute add 11.0.0.0/25 via 198.51.100.7 port 1\n"));
	/* a load that brings the port up says it as 'port 0 up' does, and
	 * in JSON among its warnings; 'port 0 up' in JSON answers with it
	 * (the route added again while the port is down, to be stranded
	 * anew) */
	snprintf(line, sizeof(line), "load %s", write_tmp("port 0 up\n"));
	for (i = 0; i < 3; i++) {
		assert_int_equal(cmd_run_line(r, "route del 10.1.2.0/25", &o), 0);
		assert_int_equal(cmd_run_line(r, "port 0 down", &o), 0);
		assert_int_equal(cmd_run_line(r, "route add 10.1.2.0/25 via 192.0.2.9", &o), 0);
		o.json = i > 0;
		if (i == 0) {
			run_says(r, &o, line,
				 "warning: 1 routes could not be put back (table full)");
			assert_non_null(strstr(o.buf, "loaded "));
		} else if (i == 1) {
			run_says(r, &o, line,
				 "\"warnings\":[\"warning: 1 routes could not be put back");
		} else {
			run_says(r, &o, "port 0 up",
				 "{\"warnings\":[\"warning: 1 routes could not be put back");
		}
		o.json = false;
	}
	out_free(&o);
}

/* RFC 1812 4.2.3.1: a port's IPv4 subnet (/30 and shorter) installs its
 * network address as a broadcast route, as its broadcast address, so that
 * a packet to it is never resolved as a host's (no ARP for it, nothing
 * learnt from whoever answers, no ICMP error about it); a /31 has neither
 * (RFC 3021); the routes go with the address. */
static void test_subnet_edges(void **state)
{
	struct router *r = *state;
	struct fr_prefix net = {.len = 32}, bc = {.len = 32}, p31 = {.len = 32};
	struct cmd_out o = {0};
	struct fib_route rt;

	fr_addr_parse("192.0.2.0", &net.addr);
	fr_addr_parse("192.0.2.255", &bc.addr);
	fr_addr_parse("198.51.100.0", &p31.addr);
	assert_int_equal(cmd_run_line(r, "port 0 address add 192.0.2.1/24", &o), 0);
	assert_int_equal(cmd_run_line(r, "port 1 address add 198.51.100.1/31", &o), 0);
	assert_int_equal(fib_route_get(r->fib, &net, &rt), 0);
	assert_int_equal(rt.type, FIB_NH_BROADCAST);
	assert_int_equal(rt.port, 0);
	assert_int_equal(rt.origin, FIB_ORIGIN_PORT);
	assert_int_equal(fib_route_get(r->fib, &bc, &rt), 0);
	assert_int_equal(rt.type, FIB_NH_BROADCAST);
	/* 198.51.100.0 is a host of the /31 */
	assert_int_not_equal(fib_route_get(r->fib, &p31, &rt), 0);
	run_says(r, &o, "show route lookup 192.0.2.0", "broadcast");
	/* a route there belongs to the address: not a user's to delete */
	out_reset(&o);
	assert_int_not_equal(cmd_run_line(r, "route del 192.0.2.0/32", &o), 0);
	/* 4 for the /24, 2 for the /31 (local, connected) */
	assert_int_equal(fib_route_count(r->fib, AF_INET), 6);
	assert_int_equal(cmd_run_line(r, "port 0 address del 192.0.2.1/24", &o), 0);
	assert_int_not_equal(fib_route_get(r->fib, &net, &rt), 0);
	assert_int_equal(fib_route_count(r->fib, AF_INET), 2);
	out_free(&o);
}

/* The run of @line fails, its error holding @want. */
static void fails_saying(struct router *r, struct cmd_out *o, const char *line, const char *want)
{
	out_reset(o);
	assert_int_not_equal(cmd_run_line(r, line, o), 0);
	if (strstr(o->buf, want) == NULL)
		fail_msg("%s: '%s'", line, o->buf);
}

/* An IPv6 prefix of /126 or shorter brings its Subnet-Router anycast
 * address (RFC 4291 2.6.1) as a local route, shared by two addresses of the
 * port in the same prefix and kept while either is there; none for a
 * /127 (RFC 6164); no address, gateway or neighbour may be it. */
/* The workers' list holds @n Subnet-Router anycast addresses, @a (text)
 * among them or (!@has) not, and @own own IPv6 addresses. */
static void expect_anycasts(const struct router *r, uint32_t n, const char *a, bool has,
			    uint32_t own)
{
	struct fr_addr x;

	assert_int_equal(fr_addr_parse(a, &x), 0);
	assert_non_null(r->dpconf.local);
	assert_int_equal(r->dpconf.local->n_any6, n);
	assert_int_equal(dp_local_anycast6(r->dpconf.local, x.v6), has);
	assert_int_equal(r->dpconf.local->n6, own);
}

static void test_anycast6(void **state)
{
	struct router *r = *state;
	struct fr_prefix any = {.len = 128};
	struct cmd_out o = {0};
	struct fib_route rt;
	char err[512] = "";
	uint32_t n0 = fib_route_count(r->fib, AF_INET6);

	fr_addr_parse("2001:db8:1::", &any.addr);
	assert_int_equal(cmd_run_line(r, "port 0 address add 2001:db8:1::1/64", &o), 0);
	assert_int_equal(fib_route_get(r->fib, &any, &rt), 0);
	assert_int_equal(rt.type, FIB_NH_LOCAL);
	assert_int_equal(rt.port, 0);
	assert_int_equal(rt.origin, FIB_ORIGIN_PORT);
	assert_int_equal(fib_route_count(r->fib, AF_INET6), n0 + 3);
	/* the workers know it (no ICMPv6 error about a packet from it), and
	 * the address is no anycast one */
	expect_anycasts(r, 1, "2001:db8:1::", true, 1);
	expect_anycasts(r, 1, "2001:db8:1::1", false, 1);
	/* a /112 inside it: its own local and connected routes, the
	 * anycast route shared (and the workers' entry) */
	assert_int_equal(cmd_run_line(r, "port 0 address add 2001:db8:1::9/112", &o), 0);
	assert_int_equal(fib_route_count(r->fib, AF_INET6), n0 + 5);
	expect_anycasts(r, 1, "2001:db8:1::", true, 2);
	assert_int_equal(cmd_run_line(r, "port 0 address del 2001:db8:1::1/64", &o), 0);
	assert_int_equal(fib_route_get(r->fib, &any, &rt), 0);
	assert_int_equal(fib_route_count(r->fib, AF_INET6), n0 + 3);
	expect_anycasts(r, 1, "2001:db8:1::", true, 1);
	/* a failed load's rollback takes back only what it added: the /64
	 * again, and a bad line after it */
	assert_int_not_equal(config_load(r,
					 write_tmp("port 0 address add 2001:db8:1::1/64\n"
						   "route add 10.0.0.0/33 blackhole\n"),
					 false, NULL, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, ":2:"));
	assert_int_equal(fib_route_get(r->fib, &any, &rt), 0);
	assert_int_equal(fib_route_count(r->fib, AF_INET6), n0 + 3);
	assert_int_equal(cmd_run_line(r, "port 0 address del 2001:db8:1::9/112", &o), 0);
	assert_int_not_equal(fib_route_get(r->fib, &any, &rt), 0);
	assert_int_equal(fib_route_count(r->fib, AF_INET6), n0);
	expect_anycasts(r, 0, "2001:db8:1::", false, 0);
	/* none for a /127 (its two addresses are both hosts') */
	assert_int_equal(cmd_run_line(r, "port 1 address add 2001:db8:2::1/127", &o), 0);
	fr_addr_parse("2001:db8:2::", &any.addr);
	assert_int_not_equal(fib_route_get(r->fib, &any, &rt), 0);
	assert_int_equal(fib_route_count(r->fib, AF_INET6), n0 + 2);
	expect_anycasts(r, 0, "2001:db8:2::", false, 1);
	/* a prefix of each port: both */
	assert_int_equal(cmd_run_line(r, "port 1 address add 2001:db8:3::1/64", &o), 0);
	assert_int_equal(cmd_run_line(r, "port 0 address add 2001:db8:4::1/64", &o), 0);
	expect_anycasts(r, 2, "2001:db8:3::", true, 3);
	expect_anycasts(r, 2, "2001:db8:4::", true, 3);
	assert_int_equal(cmd_run_line(r, "port 1 address del 2001:db8:3::1/64", &o), 0);
	assert_int_equal(cmd_run_line(r, "port 0 address del 2001:db8:4::1/64", &o), 0);
	expect_anycasts(r, 0, "2001:db8:3::", false, 1);
	/* never an address, a gateway or a neighbour */
	fails_saying(r, &o, "port 0 address add 2001:db8:1::/64", "Subnet-Router anycast");
	assert_int_equal(cmd_run_line(r, "port 0 address add 2001:db8:1::1/64", &o), 0);
	fails_saying(r, &o, "route add 2001:db8:9::/48 via 2001:db8:1::",
		     "Subnet-Router anycast address of port 0");
	fails_saying(r, &o, "neigh add 2001:db8:1:: lladdr 02:00:00:00:00:01 port 0",
		     "Subnet-Router anycast address of port 0");
	run_says(r, &o, "show route lookup 2001:db8:1::", "local");
	out_free(&o);
}

/* 'port N down' forgets the port's learnt neighbours at once, so that no
 * timer probes them through the down port (refused, counted unanswered)
 * while a load goes on, and none is FAILED when the port is back, a
 * rollback's return included; static ones stay. */
static void test_port_down_neigh(void **state)
{
	struct router *r = *state;
	const struct rte_ether_addr mac = {{0x02, 0, 0, 0, 0, 0x22}};
	const struct fr_addr a = fr_addr4(0xc6336402), b = fr_addr4(0xc6336403),
			     st = fr_addr4(0xc6336404);
	int held = 0, held2 = 0;
	struct neigh_stats s0, s1;
	struct neigh_params p;
	struct neigh_info ni;
	char err[512] = "";
	uint64_t now;

	load_ok(r, "port 1 address 198.51.100.1/24\n"
		   "neigh add 198.51.100.4 lladdr 02:00:00:00:00:44 port 1\n");
	/* b resolving (a packet held), a resolved */
	assert_int_equal(neigh_resolve(r->neigh, &a, 1, &held, 1000, NULL), 0);
	assert_int_equal(neigh_learn(r->neigh, &a, 1, &mac, NEIGH_LEARN_REPLY, 1001), 1);
	assert_int_equal(neigh_resolve(r->neigh, &b, 1, &held2, 1002, NULL), 0);
	neigh_stats_get(r->neigh, &s0);

	/* taken down by a load that fails further on: forgotten as the line
	 * applies, and the rollback's port back up finds none FAILED */
	assert_int_not_equal(config_load(r,
					 write_tmp("port 1 down\n"
						   "port 1 address 198.51.100.4/24\n"),
					 false, NULL, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, ":2:"));
	assert_int_equal(r->dp_ports[1].down, 0);
	neigh_stats_get(r->neigh, &s1);
	assert_int_equal(s1.flushed - s0.flushed, 2);
	assert_true(neigh_get(r->neigh, &a, 1, &ni) != 0 || ni.state == NEIGH_S_NONE);
	assert_true(neigh_get(r->neigh, &b, 1, &ni) != 0 || ni.state == NEIGH_S_NONE);
	assert_int_equal(neigh_get(r->neigh, &st, 1, &ni), 0);
	assert_int_equal(ni.state, NEIGH_S_STATIC);
	/* b resolving again: held */
	assert_int_equal(neigh_resolve(r->neigh, &b, 1, &held2, 1003, NULL), 0);

	/* down for a while: the timers find nothing of port 1 to probe, so
	 * b is not FAILED (as three refused probes would make it) when the
	 * port is back, and is asked afresh */
	load_ok(r, "port 1 down\n");
	assert_int_equal(r->dp_ports[1].down, 1);
	neigh_params_get(r->neigh, &p);
	neigh_stats_get(r->neigh, &s0);
	for (now = 1003; now <= 1003 + (p.mcast_probes + 1) * p.retrans_ms; now += p.retrans_ms / 4)
		neigh_tick(r->neigh, now);
	neigh_stats_get(r->neigh, &s1);
	assert_int_equal(s1.probes_bcast + s1.probes_ucast, s0.probes_bcast + s0.probes_ucast);
	assert_int_equal(s1.failed, s0.failed);
	assert_true(neigh_get(r->neigh, &b, 1, &ni) != 0 || ni.state == NEIGH_S_NONE);
	assert_int_equal(neigh_get(r->neigh, &st, 1, &ni), 0);
	assert_int_equal(ni.state, NEIGH_S_STATIC);
	load_ok(r, "port 1 up\n");
	assert_int_equal(neigh_resolve(r->neigh, &b, 1, &held2, now, NULL), 0);
	assert_int_equal(neigh_get(r->neigh, &b, 1, &ni), 0);
	assert_int_equal(ni.state, NEIGH_S_INCOMPLETE);
}

/* The workers' list of the router's addresses (dpconf.local) feeds checks
 * a route cache hit skips: its publication, at a transaction's end after
 * the change's routes moved the generation, must move it again. */
static void test_local_list_generation(void **state)
{
	struct router *r = *state;
	uint64_t g;

	load_ok(r, "port 1 address 169.254.1.1/16\n");
	assert_non_null(r->dpconf.local);
	assert_int_equal(r->dpconf.local->n_own, 1);
	g = fib_generation(r->fib);
	router_local_update(r);
	assert_true(fib_generation(r->fib) > g);
	/* and through a transaction: the address leaves the list */
	load_ok(r, "port 1 address del 169.254.1.1/16\n");
	assert_int_equal(r->dpconf.local->n_own, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kset),
		cmocka_unit_test_setup_teardown(test_examples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_example_conf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_cases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checked_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_between_passes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subnet_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_anycast6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_src6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_addr_order_rollback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reasm_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_addr_del_warns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_editor_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_last_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_length, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mtu_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stranded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mp_sets_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_warnings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ra_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lone_carriage_return, setup, teardown),
		cmocka_unit_test_setup_teardown(test_port_down_neigh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_list_generation, setup, teardown),
		cmocka_unit_test(test_json_string),
	};

	test_eal_init("config");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
