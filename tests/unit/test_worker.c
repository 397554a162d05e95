/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/worker.c on a net_ring port (its TX ring is its RX ring, so what the
 * port took can be read back): what the control thread queued for worker 0
 * leaves in order with its bytes, what the TX queue refuses is freed and
 * counted ctrl_tx_full, and ctrl_tx counts only what the queue took, so that
 * forwarded = tx - ctrl_tx stays the packets forwarded. The control
 * thread's link poll follows the port's link (set down and up here), and
 * what it queued for a port whose link is down is dropped, ctrl_tx_port_down.
 * None of those is a worker's drop (never received, they are in no rx).
 * What the worker's own TX buffer, or its TX burst of a whole burst to one
 * port, has refused counts tx_full, or port_down once the port is known
 * down; worker_output() keeps the order of what it sends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "eal_helper.h"
#include "router.h"

struct router *fr_router; /* main.c's, for the worker loop (not run here) */

static struct router rt;
static struct worker *w;
static uint16_t port;

/* A 60-byte frame whose first byte is @mark, queued for @to. */
static struct rte_mbuf *frame(uint8_t mark, uint16_t to)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool());
	uint8_t *p;

	assert_non_null(m);
	m->data_len = 60;
	m->pkt_len = 60;
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memset(p, 0, 60);
	p[0] = mark;
	m->port = to;
	return m;
}

/* Everything the port sent so far, freed; the marks in @marks (up to @max). */
static unsigned int read_back(uint8_t *marks, unsigned int max)
{
	struct rte_mbuf *m[32];
	unsigned int n = 0, got, i;

	while ((got = rte_eth_rx_burst(port, 0, m, 32)) > 0) {
		for (i = 0; i < got; i++) {
			if (n < max)
				marks[n] = *rte_pktmbuf_mtod(m[i], uint8_t *);
			n++;
			rte_pktmbuf_free(m[i]);
		}
	}
	return n;
}

static void queue_ctrl(unsigned int n, uint8_t first, uint16_t to)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		assert_int_equal(rte_ring_enqueue(rt.ctrl_tx, frame((uint8_t)(first + i), to)), 0);
}

/* The worker loop: the drain, then every port's TX buffer flushed. */
static void drain(void)
{
	worker_ctrl_tx_drain(&rt, w);
	rte_eth_tx_buffer_flush(port, 0, w->txb[port]);
}

struct shown {
	const char *name;
	uint64_t val;
	bool found;
};

static void shown_kv(void *arg, const char *name, uint64_t val)
{
	struct shown *sh = arg;

	if (strcmp(name, sh->name) == 0) {
		assert_false(sh->found); /* the names are unique */
		sh->val = val;
		sh->found = true;
	}
}

/* The counter @name as 'show stats' and telemetry give it. */
static uint64_t shown(const char *name)
{
	struct shown sh = {name, 0, false};
	const struct stats_visitor v = {shown_kv, NULL, &sh};
	struct dp_stats s;

	router_stats_sum(&rt, &s);
	router_stats_visit(&rt, &s, &v);
	assert_true(sh.found);
	return sh.val;
}

/* What the worker counted since its counters were zeroed: the control
 * thread's packets sent, and those the TX queue refused; neither is a
 * worker's drop. */
static void expect_counts(uint64_t ctrl_tx, uint64_t ctrl_tx_full)
{
	struct dp_stats s;

	router_stats_sum(&rt, &s);
	assert_int_equal(s.ctrl_tx, ctrl_tx);
	assert_int_equal(dp_stats_tx(&s), ctrl_tx); /* none forwarded */
	assert_int_equal(dp_stats_forwarded(&s), 0);
	assert_int_equal(shown("ctrl_tx_full"), ctrl_tx_full);
	assert_int_equal(shown("tx_full"), 0);
	assert_int_equal(dp_stats_dropped(&s), 0); /* rx 0 = 0 forwarded + 0 dropped */
}

static void test_sent_in_order(void **state)
{
	uint8_t marks[8];
	unsigned int in_use = rte_mempool_in_use_count(test_pool());

	(void)state;
	memset(&w->st, 0, sizeof(w->st));
	queue_ctrl(5, 0x10, port);
	drain();
	expect_counts(5, 0);
	assert_int_equal(read_back(marks, 8), 5);
	assert_memory_equal(marks, ((uint8_t[]){0x10, 0x11, 0x12, 0x13, 0x14}), 5);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
}

/* Fill the port's TX queue; how many it took. */
static unsigned int fill_tx(void)
{
	unsigned int filled = 0;
	struct rte_mbuf *m;

	for (;;) {
		m = frame(0xee, port);
		if (rte_eth_tx_burst(port, 0, &m, 1) == 0)
			break;
		filled++;
	}
	rte_pktmbuf_free(m);
	assert_true(filled > 2 && filled < 2048);
	return filled;
}

static void test_refused(void **state)
{
	uint8_t marks[2048];
	unsigned int in_use = rte_mempool_in_use_count(test_pool()), filled, n;

	(void)state;
	memset(&w->st, 0, sizeof(w->st));
	/* fill the TX queue, then make room for two */
	filled = fill_tx();
	{
		struct rte_mbuf *two[2];

		assert_int_equal(rte_eth_rx_burst(port, 0, two, 2), 2);
		rte_pktmbuf_free_bulk(two, 2);
	}
	queue_ctrl(5, 0x20, port);
	drain();
	/* two taken, three refused: freed and counted, not sent */
	expect_counts(2, 3);
	n = read_back(marks, sizeof(marks));
	assert_int_equal(n, filled);
	assert_int_equal(marks[n - 2], 0x20);
	assert_int_equal(marks[n - 1], 0x21);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
}

/* An ARP frame, its first byte @mark, queued for the port. */
static void queue_arp(uint8_t mark)
{
	struct rte_mbuf *m = frame(mark, port);

	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	assert_int_equal(rte_ring_enqueue(rt.ctrl_tx, m), 0);
}

/*
 * A full TX queue refuses the control thread's ARP and ND frames: kept and
 * offered again first at the next drains (a port saturated by forwarded
 * traffic must not lose its neighbours), FR_CTRL_PEND of them at most, for
 * FR_CTRL_PEND_MS, then counted ctrl_tx_full as any other frame is at once.
 */
static void test_refused_neigh_retried(void **state)
{
	uint8_t marks[2048];
	unsigned int in_use = rte_mempool_in_use_count(test_pool()), filled, n, i;
	struct rte_mbuf *one;

	(void)state;
	memset(&w->st, 0, sizeof(w->st));
	filled = fill_tx();
	queue_ctrl(1, 0x40, port); /* not ARP: refused, counted */
	queue_arp(0x41);
	drain();
	expect_counts(0, 1);
	assert_int_equal(w->nb_ctrl_pend, 1);
	drain(); /* still full: kept */
	expect_counts(0, 1);
	/* a descriptor freed: the ARP frame takes it */
	assert_int_equal(rte_eth_rx_burst(port, 0, &one, 1), 1);
	rte_pktmbuf_free(one);
	drain();
	expect_counts(1, 1);
	assert_int_equal(w->nb_ctrl_pend, 0);
	n = read_back(marks, sizeof(marks));
	assert_int_equal(n, filled);
	assert_int_equal(marks[n - 1], 0x41);
	/* more than it keeps: the first FR_CTRL_PEND kept, the rest counted */
	filled = fill_tx();
	for (i = 0; i < FR_CTRL_PEND + 8; i++)
		queue_arp((uint8_t)i);
	drain();
	drain();
	assert_int_equal(w->nb_ctrl_pend, FR_CTRL_PEND);
	expect_counts(1, 1 + 8);
	/* their time up: counted, freed */
	for (i = 0; i < w->nb_ctrl_pend; i++)
		w->ctrl_pend_until[i] = 0;
	drain();
	assert_int_equal(w->nb_ctrl_pend, 0);
	expect_counts(1, 1 + 8 + FR_CTRL_PEND);
	assert_int_equal(read_back(marks, sizeof(marks)), filled);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
}

static void test_no_such_port(void **state)
{
	uint8_t marks[4];
	unsigned int in_use = rte_mempool_in_use_count(test_pool());

	(void)state;
	memset(&w->st, 0, sizeof(w->st));
	/* a port without a TX buffer (not present), between two good ones */
	queue_ctrl(1, 0x30, port);
	queue_ctrl(1, 0x31, FR_MAX_PORTS - 1);
	queue_ctrl(1, 0x32, port);
	drain();
	/* no such port: not the TX queue's doing */
	expect_counts(2, 0);
	assert_int_equal(shown("ctrl_tx_no_port"), 1);
	assert_int_equal(read_back(marks, 4), 2);
	assert_int_equal(marks[0], 0x30);
	assert_int_equal(marks[1], 0x32);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
}

static void test_link_down(void **state)
{
	uint8_t marks[4];
	unsigned int in_use = rte_mempool_in_use_count(test_pool());

	(void)state;
	memset(&w->st, 0, sizeof(w->st));
	port_link_poll(&rt);
	assert_int_equal(rt.dp_ports[port].down, 0);
	assert_int_equal(rte_eth_dev_set_link_down(port), 0);
	port_link_poll(&rt);
	assert_int_equal(rt.dp_ports[port].down, 1);
	assert_int_equal(rt.ports[port].link_changes, 1);
	queue_ctrl(2, 0x40, port);
	drain();
	expect_counts(0, 0);
	assert_int_equal(shown("ctrl_tx_port_down"), 2);
	assert_int_equal(shown("port_down"), 0);
	assert_int_equal(read_back(marks, 4), 0);
	assert_int_equal(rte_eth_dev_set_link_up(port), 0);
	port_link_poll(&rt);
	port_link_poll(&rt); /* no change, not counted again */
	assert_int_equal(rt.dp_ports[port].down, 0);
	assert_int_equal(rt.ports[port].link_changes, 2);
	queue_ctrl(1, 0x42, port);
	drain();
	expect_counts(1, 0);
	assert_int_equal(read_back(marks, 4), 1);
	assert_int_equal(marks[0], 0x42);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
}

/* @n frames forwarded by worker_output() to a full TX queue: none taken.
 * @direct: the whole burst goes to the port (one TX burst from the array);
 * else a dropped packet's verdict comes first, and they go through the
 * port's TX buffer. */
static void forward(unsigned int n, uint8_t mark, bool direct)
{
	struct rte_mbuf *pkts[DP_BURST];
	uint16_t out[DP_BURST], k = 0;
	unsigned int i;

	if (!direct) {
		pkts[k] = NULL; /* dropped: freed by the data path */
		out[k++] = DP_OUT_DROP;
	}
	for (i = 0; i < n; i++) {
		pkts[k] = frame(mark, port);
		out[k++] = port;
	}
	worker_output(w, port, pkts, out, k);
	w->st.fwd += rte_eth_tx_buffer_flush(port, 0, w->txb[port]);
	assert_int_equal(w->st.fwd, 0);
}

/* Forwarded packets the worker's TX buffer flushes and the queue refuses:
 * tx_full while the port is up, port_down once its link is known down (a
 * driver may refuse for that before the next burst would have dropped
 * them); the control thread's counters stay as they were. */
static void test_tx_buffer_refused(void **state)
{
	uint8_t marks[2048];
	unsigned int in_use = rte_mempool_in_use_count(test_pool()), filled;

	(void)state;
	memset(&w->st, 0, sizeof(w->st));
	filled = fill_tx();
	forward(2, 0x50, true);
	forward(1, 0x50, false);
	assert_int_equal(shown("tx_full"), 3);
	assert_int_equal(shown("port_down"), 0);
	/* the link goes down, the poll sees it; the queue still refuses */
	assert_int_equal(rte_eth_dev_set_link_down(port), 0);
	port_link_poll(&rt);
	assert_int_equal(rt.dp_ports[port].down, 1);
	forward(1, 0x51, true);
	forward(1, 0x51, false);
	assert_int_equal(shown("tx_full"), 3);
	assert_int_equal(shown("port_down"), 2);
	assert_int_equal(shown("rx_port_down"), 0);
	assert_int_equal(shown("ctrl_tx_full"), 0);
	assert_int_equal(shown("ctrl_tx_port_down"), 0);
	assert_int_equal(rte_eth_dev_set_link_up(port), 0);
	port_link_poll(&rt);
	assert_int_equal(rt.dp_ports[port].down, 0);
	assert_int_equal(read_back(marks, sizeof(marks)), filled);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
}

/*
 * worker_output(): a burst that goes all to one port leaves at once, in one
 * TX burst; a mixed one goes through the port's TX buffer, what is for the
 * control thread onto its ring with the arrival port; a burst all to a
 * port whose buffer still holds packets waits behind them. In order, each
 * counted once.
 */
static void test_output(void **state)
{
	const uint8_t want[] = {0x60, 0x62, 0x63, 0x64, 0x65, 0x66};
	unsigned int in_use = rte_mempool_in_use_count(test_pool()), i;
	const uint16_t in_port = 3;
	struct rte_mbuf *pkts[4], *m = NULL;
	uint16_t out[4];
	uint8_t marks[16];

	(void)state;
	memset(&w->st, 0, sizeof(w->st));
	/* to the port, to the control thread, dropped, to the port */
	pkts[0] = frame(0x60, port);
	pkts[1] = frame(0x61, port);
	pkts[2] = NULL;
	pkts[3] = frame(0x62, port);
	out[0] = out[3] = port;
	out[1] = DP_OUT_CTRL;
	out[2] = DP_OUT_DROP;
	worker_output(w, in_port, pkts, out, 4);
	assert_int_equal(w->txb[port]->length, 2); /* buffered, not sent yet */
	assert_int_equal(w->st.to_control, 1);
	assert_int_equal(rte_ring_dequeue(w->to_ctrl, (void **)&m), 0);
	assert_ptr_equal(m, pkts[1]);
	assert_int_equal(m->port, in_port);
	rte_pktmbuf_free(m);
	/* all to the port, whose buffer holds two: behind them */
	pkts[0] = frame(0x63, port);
	pkts[1] = frame(0x64, port);
	out[0] = out[1] = port;
	worker_output(w, in_port, pkts, out, 2);
	assert_int_equal(w->txb[port]->length, 4);
	assert_int_equal(w->st.fwd, 0);
	w->st.fwd += rte_eth_tx_buffer_flush(port, 0, w->txb[port]);
	/* all to the port, nothing buffered: sent at once, no flush */
	pkts[0] = frame(0x65, port);
	pkts[1] = frame(0x66, port);
	worker_output(w, in_port, pkts, out, 2);
	assert_int_equal(w->txb[port]->length, 0);
	assert_int_equal(w->st.fwd, 6);
	assert_int_equal(read_back(marks, sizeof(marks)), 6);
	for (i = 0; i < 6; i++)
		assert_int_equal(marks[i], want[i]);
	assert_int_equal(shown("tx_full"), 0);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
}

static int setup(void **state)
{
	struct rte_eth_conf conf;

	(void)state;
	assert_int_equal(rte_eth_dev_get_port_by_name("net_ring0", &port), 0);
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure(port, 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup(port, 0, 64, 0, NULL, test_pool()), 0);
	assert_int_equal(rte_eth_tx_queue_setup(port, 0, 64, 0, NULL), 0);
	assert_int_equal(rte_eth_dev_start(port), 0);
	rt.nb_ports = (uint16_t)(port + 1);
	rt.ports[port].present = 1;
	rt.ports[port].started = 1;
	rt.ctrl_tx = rte_ring_create("t_ctrl_tx", 64, 0, RING_F_SC_DEQ);
	assert_non_null(rt.ctrl_tx);
	rt.opts.rtcache_size = 64;
	w = worker_create(&rt, 0, 0);
	assert_non_null(w);
	rt.workers[0] = w;
	rt.nb_workers = 1;
	return 0;
}

/* A frame for the control thread as the data path hands it over: @reason,
 * with @ethertype, and for IPv6 ICMPv6 of @icmp6_type. */
static struct rte_mbuf *for_ctrl(enum dp_ctrl_reason reason, uint16_t ethertype, uint8_t icmp6_type)
{
	struct rte_mbuf *m = frame(0, port);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eth + 1);

	m->data_len = m->pkt_len = sizeof(*eth) + sizeof(*ip6) + 8;
	eth->ether_type = rte_cpu_to_be_16(ethertype);
	ip6->proto = IPPROTO_ICMPV6;
	ip6->hop_limits = 255; /* as ND has it: from the link */
	*(uint8_t *)(ip6 + 1) = icmp6_type;
	dp_ctrl_reason_set(m, reason);
	return m;
}

/* One such frame handed to the control thread's ring by worker_to_control(). */
static void to_ctrl1(enum dp_ctrl_reason reason, uint16_t ethertype, uint8_t icmp6_type)
{
	struct rte_mbuf *m = for_ctrl(reason, ethertype, icmp6_type);

	worker_to_control(w, &m, 1, false);
}

/*
 * The ring to the control thread keeps its last quarter for ARP and ND: a
 * flood for the router (pings, packets for hosts that never answer) cannot
 * crowd out what keeps the neighbours alive. What is refused is counted:
 * ctrl_ring_reserved, icmp_ring_full for errors, ctrl_ring_full once even
 * the reserve is gone.
 */
static void test_ctrl_reserve(void **state)
{
	const unsigned int cap = rte_ring_get_capacity(w->to_ctrl), quarter = cap / 4;
	unsigned int in_use = rte_mempool_in_use_count(test_pool()), i;
	struct rte_mbuf *m[5];

	(void)state;
	memset(&w->st, 0, sizeof(w->st));
	/* three quarters fill with local packets (a ping flood) */
	for (i = 0; i < cap - quarter; i++)
		to_ctrl1(CTRL_LOCAL, RTE_ETHER_TYPE_IPV4, 0);
	assert_int_equal(w->st.to_control, cap - quarter);
	assert_int_equal(w->st.drop[DROP_CTRL_RESERVED], 0);
	/* then: a local packet and an echo request over IPv6 are refused,
	 * ARP, a neighbour solicitation and a packet to resolve (the first
	 * half of the reserve) taken, and an ICMP error (bounded by its
	 * tokens: a flood for the router must not silence path MTU
	 * discovery) */
	m[0] = for_ctrl(CTRL_LOCAL, RTE_ETHER_TYPE_IPV4, 0);
	m[1] = for_ctrl(CTRL_ARP, RTE_ETHER_TYPE_ARP, 0);
	m[2] = for_ctrl(CTRL_LOCAL, RTE_ETHER_TYPE_IPV6, 128);
	m[3] = for_ctrl(CTRL_LOCAL, RTE_ETHER_TYPE_IPV6, 135);
	m[4] = for_ctrl(CTRL_RESOLVE, RTE_ETHER_TYPE_IPV4, 0);
	worker_to_control(w, m, 5, false);
	assert_int_equal(w->st.to_control, cap - quarter + 3);
	assert_int_equal(w->st.drop[DROP_CTRL_RESERVED], 2);
	m[0] = for_ctrl(CTRL_ICMP_ERROR, RTE_ETHER_TYPE_IPV4, 0);
	worker_to_control(w, m, 1, true);
	assert_int_equal(w->st.icmp_queued, 1);
	assert_int_equal(w->st.icmp_ring_full, 0);
	/* ARP fills the reserve: past its first half no packet to resolve
	 * and no error (a scan must leave ARP and ND room); beyond it, even
	 * ARP is refused as full */
	while (rte_ring_free_count(w->to_ctrl) > quarter / 2)
		to_ctrl1(CTRL_ARP, RTE_ETHER_TYPE_ARP, 0);
	to_ctrl1(CTRL_RESOLVE, RTE_ETHER_TYPE_IPV4, 0);
	assert_int_equal(w->st.drop[DROP_CTRL_RESERVED], 3);
	m[0] = for_ctrl(CTRL_ICMP_ERROR, RTE_ETHER_TYPE_IPV4, 0);
	worker_to_control(w, m, 1, true);
	assert_int_equal(w->st.icmp_queued, 1);
	assert_int_equal(w->st.icmp_ring_full, 1);
	while (rte_ring_free_count(w->to_ctrl) > 0)
		to_ctrl1(CTRL_ARP, RTE_ETHER_TYPE_ARP, 0);
	assert_int_equal(w->st.to_control + w->st.icmp_queued, cap);
	to_ctrl1(CTRL_ARP, RTE_ETHER_TYPE_ARP, 0);
	assert_int_equal(w->st.drop[DROP_CTRL_RING_FULL], 1);
	/* in the order they came: the ARP after the flood */
	for (i = 0; i < cap; i++) {
		struct rte_mbuf *x = NULL;

		assert_int_equal(rte_ring_dequeue(w->to_ctrl, (void **)&x), 0);
		if (i == cap - quarter)
			assert_int_equal(dp_ctrl_reason(x), CTRL_ARP);
		rte_pktmbuf_free(x);
	}
	/* an empty ring takes a burst whole */
	for (i = 0; i < 4; i++)
		m[i] = for_ctrl(CTRL_LOCAL, RTE_ETHER_TYPE_IPV4, 0);
	worker_to_control(w, m, 4, false);
	assert_int_equal(w->st.to_control + w->st.icmp_queued, cap + 4);
	while (rte_ring_dequeue(w->to_ctrl, (void **)&m[0]) == 0)
		rte_pktmbuf_free(m[0]);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
}

/* The control thread's ring to worker 0 keeps its last quarter for ARP and
 * ND too: control_send() refuses the rest there (ctrl_tx_ring_reserved). */
/*
 * What only looks like ND gets no more of the reserve than any packet: an
 * NS or NA from off the link (hop limit below 255, which the control
 * thread drops anyway) none of it, a packet to forward typed 135 or 136
 * that waits for its neighbour only the first half, as any packet to
 * resolve (a scan of a connected /64 with one byte changed).
 */
static void test_ctrl_reserve_nd_lookalikes(void **state)
{
	const unsigned int cap = rte_ring_get_capacity(w->to_ctrl), quarter = cap / 4;
	unsigned int in_use = rte_mempool_in_use_count(test_pool()), i;
	struct rte_mbuf *m[1];

	(void)state;
	memset(&w->st, 0, sizeof(w->st));
	for (i = 0; i < cap - quarter; i++)
		to_ctrl1(CTRL_LOCAL, RTE_ETHER_TYPE_IPV4, 0);
	/* an NS from off the link: refused */
	m[0] = for_ctrl(CTRL_LOCAL, RTE_ETHER_TYPE_IPV6, ND_TYPE_NS);
	rte_pktmbuf_mtod_offset(m[0], struct rte_ipv6_hdr *, sizeof(struct rte_ether_hdr))
		->hop_limits = 64;
	worker_to_control(w, m, 1, false);
	assert_int_equal(w->st.drop[DROP_CTRL_RESERVED], 1);
	/* packets to resolve typed NA take the first half of the reserve
	 * and no more */
	for (i = 0; i < quarter; i++)
		to_ctrl1(CTRL_RESOLVE, RTE_ETHER_TYPE_IPV6, ND_TYPE_NA);
	assert_int_equal(rte_ring_free_count(w->to_ctrl), quarter / 2);
	assert_int_equal(w->st.drop[DROP_CTRL_RESERVED], 1 + quarter - (quarter - quarter / 2));
	/* the router's own ND still gets in */
	to_ctrl1(CTRL_LOCAL, RTE_ETHER_TYPE_IPV6, ND_TYPE_NA);
	assert_int_equal(w->st.to_control, cap - quarter + (quarter - quarter / 2) + 1);
	assert_int_equal(w->st.drop[DROP_CTRL_RING_FULL], 0);
	while (rte_ring_dequeue(w->to_ctrl, (void **)&m[0]) == 0)
		rte_pktmbuf_free(m[0]);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
}

static void test_ctrl_tx_reserve(void **state)
{
	const unsigned int cap = rte_ring_get_capacity(rt.ctrl_tx), quarter = cap / 4;
	unsigned int in_use = rte_mempool_in_use_count(test_pool()), i;
	struct rte_mbuf *m;

	(void)state;
	memset(&rt.cst, 0, sizeof(rt.cst));
	for (i = 0; i < cap - quarter; i++)
		assert_int_equal(
			control_send(&rt, for_ctrl(CTRL_ORIGINATED, RTE_ETHER_TYPE_IPV4, 0), port),
			0);
	/* an echo reply is refused, an ARP reply and an NA taken */
	assert_int_equal(control_send(&rt, for_ctrl(CTRL_ORIGINATED, RTE_ETHER_TYPE_IPV4, 0), port),
			 -ENOBUFS);
	assert_int_equal(rt.cst.drop[CDROP_TX_RING_RESERVED], 1);
	assert_int_equal(control_send(&rt, for_ctrl(CTRL_ORIGINATED, RTE_ETHER_TYPE_ARP, 0), port),
			 0);
	assert_int_equal(
		control_send(&rt, for_ctrl(CTRL_ORIGINATED, RTE_ETHER_TYPE_IPV6, 136), port), 0);
	assert_int_equal(rt.cst.tx, cap - quarter + 2);
	while (rte_ring_dequeue(rt.ctrl_tx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
}

/* A train of fragments the control thread cannot queue whole is one packet
 * refused: dropped and counted once, under its reason (the port down, the
 * ring full, or down to the quarter kept for ARP and ND), not once a
 * fragment; none of it is queued, every mbuf freed. */
static void test_train_counted_once(void **state)
{
	const unsigned int cap = rte_ring_get_capacity(rt.ctrl_tx);
	const unsigned int reserve = fr_ring_reserve(rt.ctrl_tx);
	unsigned int in_use = rte_mempool_in_use_count(test_pool()), i, k;
	static const struct {
		unsigned int room; /* left in the ring before the train */
		bool down;
		enum ctrl_drop why;
	} cases[] = {
		{64, true, CDROP_PORT_DOWN},
		{2, false, CDROP_TX_RING_FULL},
		{0, false, CDROP_TX_RING_RESERVED}, /* room: 3 + reserve - 1 */
	};
	struct rte_mbuf *m, *train[3];

	(void)state;
	for (k = 0; k < RTE_DIM(cases); k++) {
		unsigned int room = k == 2 ? 3 + reserve - 1 : RTE_MIN(cases[k].room, cap);

		memset(&rt.cst, 0, sizeof(rt.cst));
		for (i = 0; i < cap - room; i++)
			assert_int_equal(rte_ring_enqueue(rt.ctrl_tx, frame(0, port)), 0);
		rt.dp_ports[port].down = cases[k].down;
		for (i = 0; i < 3; i++)
			train[i] = for_ctrl(CTRL_ORIGINATED, RTE_ETHER_TYPE_IPV4, 0);
		assert_int_equal(control_send_train(&rt, train, 3, port), 0);
		rt.dp_ports[port].down = 0;
		assert_int_equal(rt.cst.drop[cases[k].why], 1);
		assert_int_equal(rt.cst.drop[CDROP_PORT_DOWN] + rt.cst.drop[CDROP_TX_RING_FULL] +
					 rt.cst.drop[CDROP_TX_RING_RESERVED],
				 1);
		assert_int_equal(rt.cst.tx, 0);
		assert_int_equal(rt.cst.fragmented, 0);
		assert_int_equal(rte_ring_count(rt.ctrl_tx), cap - room);
		while (rte_ring_dequeue(rt.ctrl_tx, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
	}
	/* with room, the train goes whole */
	memset(&rt.cst, 0, sizeof(rt.cst));
	for (i = 0; i < 3; i++)
		train[i] = for_ctrl(CTRL_ORIGINATED, RTE_ETHER_TYPE_IPV4, 0);
	assert_int_equal(control_send_train(&rt, train, 3, port), 3);
	assert_int_equal(rt.cst.fragments, 3);
	assert_int_equal(rt.cst.fragmented, 1);
	while (rte_ring_dequeue(rt.ctrl_tx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_in_use_count(test_pool()), in_use);
}

/* An ARP or ND answer built in the request's own mbuf: a request that came
 * scattered over several segments gives all but the first back to the pool
 * (rte_pktmbuf_reset() alone unlinks them and frees none: a padded jumbo ARP
 * request a port chains would drain the pool one answer at a time). */
static void test_reuse_frees_segments(void **state)
{
	struct rte_mempool *mp = test_pool();
	unsigned int before = rte_mempool_avail_count(mp), i;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	(void)state;
	assert_non_null(m);
	assert_non_null(rte_pktmbuf_append(m, 1000));
	for (i = 0; i < 2; i++) {
		struct rte_mbuf *seg = rte_pktmbuf_alloc(mp);

		assert_non_null(seg);
		assert_non_null(rte_pktmbuf_append(seg, 1000));
		assert_int_equal(rte_pktmbuf_chain(m, seg), 0);
	}
	assert_int_equal(m->nb_segs, 3);
	assert_int_equal(rte_mempool_avail_count(mp), before - 3);
	control_reuse(m);
	assert_int_equal(rte_mempool_avail_count(mp), before - 1);
	assert_int_equal(m->nb_segs, 1);
	assert_null(m->next);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 0);
	assert_non_null(rte_pktmbuf_append(m, 42));
	rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_avail_count(mp), before);
	/* one segment: nothing else to give back */
	m = rte_pktmbuf_alloc(mp);
	assert_non_null(m);
	control_reuse(m);
	assert_int_equal(rte_mempool_avail_count(mp), before - 1);
	rte_pktmbuf_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sent_in_order),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_refused_neigh_retried),
		cmocka_unit_test(test_no_such_port),
		cmocka_unit_test(test_link_down),
		cmocka_unit_test(test_ctrl_reserve),
		cmocka_unit_test(test_ctrl_tx_reserve),
		cmocka_unit_test(test_train_counted_once),
		cmocka_unit_test(test_ctrl_reserve_nd_lookalikes),
		cmocka_unit_test(test_tx_buffer_refused),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_reuse_frees_segments),
	};

	test_eal_init_vdev("worker", "net_ring0");
	return cmocka_run_group_tests(tests, setup, NULL);
}
