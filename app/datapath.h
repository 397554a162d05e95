/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-burst forwarding pipeline, independent of ports so that the
 * worker loop, the lookup benchmark and the fuzzers run the same code.
 *
 * Uses: the FIB, next-hop table and neighbour table (read-only), the ports'
 * MAC addresses. Sets: per packet, where it goes (an egress port, the
 * control thread, or dropped and counted); forwarded packets are rewritten.
 */
#ifndef FR_DATAPATH_H
#define FR_DATAPATH_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "fib.h"
#include "neigh.h"
#include "stats.h"

#define DP_BURST 32

/* dp_input_burst() verdicts besides an egress port number */
#define DP_OUT_DROP 0xffff /* dropped, freed and counted by the pipeline */
#define DP_OUT_CTRL 0xfffe /* for the control thread; reason in the mbuf (dp_ctrl_reason) */

/* Why a packet goes to the control thread. */
enum dp_ctrl_reason {
	CTRL_ARP = 1, /* ARP frame */
	CTRL_LOCAL,   /* addressed to the router (local or broadcast route) */
	CTRL_RESOLVE, /* to forward, but the next hop has no usable neighbour */
};

/* What workers know about a port (read-only while workers run). */
struct dp_port {
	struct rte_ether_addr mac;
	uint8_t enabled; /* probed and configured */
};

/* Read-only tables plus the calling worker's counters. */
struct dp_ctx {
	struct fib *fib;
	const struct fib_nh *nh;
	const struct neigh_table *neigh;
	const struct neigh_hot *neigh_hot;
	const struct dp_port *ports;
	uint16_t nb_ports;
	struct dp_stats *st;
	uint64_t *neigh_used; /* this worker's "used" marks (NULL: none kept) */
	uint64_t fib_gen;     /* FIB generation this burst was decided under */
};

/* Reason a packet was handed to the control thread. */
static inline enum dp_ctrl_reason dp_ctrl_reason(const struct rte_mbuf *m)
{
	return (enum dp_ctrl_reason)m->hash.usr;
}

static inline void dp_ctrl_reason_set(struct rte_mbuf *m, enum dp_ctrl_reason r)
{
	m->hash.usr = r;
}

/*
 * Classify, validate, look up (one bulk FIB lookup for the burst) and rewrite
 * @n <= DP_BURST packets received on @in_port. out[i] receives pkts[i]'s
 * verdict: an egress port, DP_OUT_CTRL or DP_OUT_DROP (already freed).
 * Datapath-safe.
 */
void dp_input_burst(struct dp_ctx *c, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
		    uint16_t *out);

#endif /* FR_DATAPATH_H */
