/* SPDX-License-Identifier: BSD-3-Clause */
/* A router without ports or workers, for the fuzz targets. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "cmd.h"
#include "fr_eal.h"
#include "nd.h"
#include "reasm.h"
#include "fuzz_common.h"

struct router *fr_router;
static struct router rt;

static const char *const setup_lines[] = {
	"port 0 address 192.0.2.1/24",
	"port 1 address 198.51.100.1/24",
	"port 1 mtu 1280", /* the least IPv6 allows: IPv4 fragments and PTB both */
	"neigh add 192.0.2.2 lladdr 02:00:00:00:01:02 port 0",
	"neigh add 198.51.100.2 lladdr 02:00:00:00:02:02 port 1",
	"route add 10.0.0.0/8 via 198.51.100.2",
	"route add 172.16.0.0/12 via 198.51.100.9",
	"route add 203.0.113.0/24 blackhole",
	"route add 198.18.0.0/24 unreachable",
	"route add 198.19.0.0/24 prohibit",
	"route add 0.0.0.0/0 via 192.0.2.2",
	"port 0 address 2001:db8:1::1/64",
	"port 1 address 2001:db8:2::1/64",
	"neigh add 2001:db8:2::2 lladdr 02:00:00:00:02:02 port 1",
	"route add 2001:db8:5::/48 via 2001:db8:2::2",
	"route add 2001:db8:6::/48 via fe80::2 port 0",
	"route add 2001:db8:f0::/48 unreachable",
	"route add 2001:db8:f1::/48 prohibit",
};

struct router *fuzz_router(void)
{
	char prefix[64];
	char *argv[] = {
		(char *)(uintptr_t) "fuzz",
		(char *)(uintptr_t) "--no-huge",
		(char *)(uintptr_t) "-m",
		(char *)(uintptr_t) "512",
		(char *)(uintptr_t) "--no-pci",
		(char *)(uintptr_t) "-l",
		(char *)(uintptr_t) "0",
		(char *)(uintptr_t) "--log-level=*:crit",
		(char *)(uintptr_t) "--no-telemetry",
		prefix,
		NULL,
	};
	struct neigh_conf nc = {0};
	struct fib_conf fc = {0};
	struct fib_route bc = {0};
	struct cmd_out o = {0};
	unsigned int i;

	if (fr_router != NULL)
		return fr_router;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fr-fuzz-%d", (int)getpid());
	if (rte_eal_init(10, argv) < 0) {
		fprintf(stderr, "fuzz: EAL: %s\n", rte_strerror(rte_errno));
		abort();
	}
	fr_eal_runtime_dir_remove_at_exit();
	nc.capacity = 1024;
	rt.neigh = neigh_create("fz", &nc);
	fc.max_routes4 = 8192;
	fc.tbl8s4 = 256;
	fc.max_routes6 = 1024;
	fc.tbl8s6 = 256;
	fc.neigh = rt.neigh;
	rt.fib = fib_create("fz", &fc);
	rt.pools[0] = rte_pktmbuf_pool_create("fz_pool", 16383, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	rt.ctrl_tx = rte_ring_create("fz_tx", 4096, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	rt.reasm = reasm_create(); /* fragments to the router are put together */
	if (rt.neigh == NULL || rt.fib == NULL || rt.pools[0] == NULL || rt.ctrl_tx == NULL ||
	    rt.reasm == NULL)
		abort();
	rt.nb_ports = 2;
	for (i = 0; i < 2; i++) {
		rt.ports[i].id = (uint16_t)i;
		rt.ports[i].present = true;
		rt.dp_ports[i].mtu = 1500;
		rt.dp_ports[i].mac = (struct rte_ether_addr){{0x02, 0, 0, 0, (uint8_t)(i + 1), 1}};
		nd_eui64_linklocal(&rt.dp_ports[i].mac, rt.dp_ports[i].ll6);
	}
	bc.prefix.addr = fr_addr4(UINT32_MAX);
	bc.prefix.len = 32;
	bc.type = FIB_NH_BROADCAST;
	bc.port = FIB_PORT_NONE;
	bc.origin = FIB_ORIGIN_SYSTEM;
	fib_route_add(rt.fib, &bc);
	fr_router = &rt;
	control_init(&rt);
	rt.dpconf.martians = 1;
	router_icmp_rate_set(&rt, 1000000, 100000);
	for (i = 0; i < RTE_DIM(setup_lines); i++) {
		out_reset(&o);
		if (cmd_run_line(&rt, setup_lines[i], &o) != 0) {
			fprintf(stderr, "fuzz: setup '%s': %s", setup_lines[i], o.buf);
			abort();
		}
	}
	out_free(&o);
	return &rt;
}

void fuzz_drain(struct router *r)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(r->ctrl_tx, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
}
