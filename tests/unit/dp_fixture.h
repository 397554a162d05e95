/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data path's context over two ports, for the pipeline's unit tests
 * (test_ip4, test_ip6): a FIB and a neighbour table of their own, port 0
 * and port 1 with their MACs and MTU 1500, the martian checks on. Each
 * test file adds its routes and neighbours.
 */
#ifndef FR_TEST_DP_FIXTURE_H
#define FR_TEST_DP_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "datapath.h"
#include "fib.h"
#include "neigh.h"
#include "rtcache.h"

static const struct rte_ether_addr port_mac[2] = {{{0x02, 0, 0, 0, 0x01, 0x01}},
						  {{0x02, 0, 0, 0, 0x02, 0x01}}};
static const struct rte_ether_addr h1_mac = {{0x02, 0, 0, 0, 0x01, 0x02}};
static const struct rte_ether_addr h2_mac = {{0x02, 0, 0, 0, 0x02, 0x02}};

struct pctx {
	struct dp_conf conf;
	struct fib *fib;
	struct neigh_table *n;
	struct dp_port ports[2];
	struct dp_stats st;
	struct dp_ctx c;
};

/* A context whose FIB has the sizes of @fc (its neighbour table set here). */
static inline struct pctx *pctx_create(const struct fib_conf *fc)
{
	static unsigned int count; /* each context's tables named apart */
	struct pctx *p = calloc(1, sizeof(*p));
	struct neigh_conf nc = {0};
	struct fib_conf f = *fc;
	char name[16];

	assert_non_null(p);
	snprintf(name, sizeof(name), "p%u", count++);
	nc.capacity = 64;
	p->n = neigh_create(name, &nc);
	assert_non_null(p->n);
	f.neigh = p->n;
	p->fib = fib_create(name, &f);
	assert_non_null(p->fib);
	p->ports[0].mac = port_mac[0];
	p->ports[1].mac = port_mac[1];
	p->ports[0].mtu = p->ports[1].mtu = 1500;
	p->c.fib = p->fib;
	p->c.nh = fib_nh_table(p->fib);
	p->c.mp = fib_mp_table(p->fib);
	p->c.mp_seed = fib_mp_seed(p->fib);
	p->c.neigh = p->n;
	p->c.neigh_hot = neigh_hot_table(p->n);
	p->c.tbl24 = fib4_tbl24(p->fib);
	p->conf.martians = 1;
	p->c.conf = &p->conf;
	p->c.ports = p->ports;
	p->c.nb_ports = 2;
	p->c.st = &p->st;
	return p;
}

/* Frees @p, its route cache if a test left one set. */
static inline void pctx_free(struct pctx *p)
{
	if (p->c.rtc != NULL)
		rtcache_free(p->c.rtc);
	fib_free(p->fib);
	neigh_free(p->n);
	free(p);
}

#endif /* FR_TEST_DP_FIXTURE_H */
