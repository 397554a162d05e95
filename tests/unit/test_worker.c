/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/worker.c on a net_ring port (its TX ring is its RX ring, so what the
 * port took can be read back): what the control thread queued for worker 0
 * leaves in order with its bytes, what the TX queue refuses is freed and
 * counted tx_full, and ctrl_tx counts only what the queue took, so that
 * forwarded = tx - ctrl_tx stays the packets forwarded. The control
 * thread's link poll follows the port's link (set down and up here), and
 * what is queued for a port whose link is down is dropped, port_down.
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

/* What the worker counted since its counters were zeroed. */
static void expect_counts(uint64_t ctrl_tx, uint64_t tx_full)
{
	assert_int_equal(w->st.ctrl_tx, ctrl_tx);
	assert_int_equal(w->st.tx, ctrl_tx); /* forwarded = tx - ctrl_tx = 0 */
	assert_int_equal(w->st.drop[DROP_TX_FULL], tx_full);
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

static void test_refused(void **state)
{
	uint8_t marks[2048];
	struct rte_mbuf *m;
	unsigned int in_use = rte_mempool_in_use_count(test_pool()), filled = 0, n;

	(void)state;
	memset(&w->st, 0, sizeof(w->st));
	/* fill the TX queue, then make room for two */
	for (;;) {
		m = frame(0xee, port);
		if (rte_eth_tx_burst(port, 0, &m, 1) == 0) {
			rte_pktmbuf_free(m);
			break;
		}
		filled++;
	}
	assert_true(filled > 2 && filled < 2048);
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
	expect_counts(2, 1);
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
	assert_int_equal(w->st.ctrl_tx, 0);
	assert_int_equal(w->st.drop[DROP_PORT_DOWN], 2);
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
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sent_in_order),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_no_such_port),
		cmocka_unit_test(test_link_down),
	};

	test_eal_init_vdev("worker", "net_ring0");
	return cmocka_run_group_tests(tests, setup, NULL);
}
