/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's link as the router acts on it ('port N hold-time'), against a
 * scripted device: port.c is built in, with the ethdev link calls replaced
 * by a fake whose carrier the test sets, so that the moments a real NIC's
 * carrier takes to follow a command can be played in any order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ethdev.h>

/* the device: its carrier, and what the router asked of it */
static bool carrier_down;
static unsigned int set_down_calls, set_up_calls;

static int fake_link_get(uint16_t pid, struct rte_eth_link *link)
{
	(void)pid;
	memset(link, 0, sizeof(*link));
	link->link_status = carrier_down ? RTE_ETH_LINK_DOWN : RTE_ETH_LINK_UP;
	return 0;
}

/* the carrier follows later, when the test says */
static int fake_set_link_down(uint16_t pid)
{
	(void)pid;
	set_down_calls++;
	return 0;
}

static int fake_set_link_up(uint16_t pid)
{
	(void)pid;
	set_up_calls++;
	return 0;
}

#define rte_eth_link_get_nowait	  fake_link_get
#define rte_eth_dev_set_link_down fake_set_link_down
#define rte_eth_dev_set_link_up	  fake_set_link_up
#include "port.c"
#undef rte_eth_link_get_nowait
#undef rte_eth_dev_set_link_down
#undef rte_eth_dev_set_link_up

#include "eal_helper.h"

struct router *fr_router;

static int setup(void **state)
{
	static int k;
	struct router *r = calloc(1, sizeof(*r));
	struct neigh_conf nc = {0};
	char name[16];

	snprintf(name, sizeof(name), "l%d", k++);
	nc.capacity = 64;
	r->neigh = neigh_create(name, &nc);
	assert_non_null(r->neigh);
	r->nb_ports = 1;
	r->ports[0].id = 0;
	r->ports[0].present = true;
	r->ports[0].started = true;
	r->dp_ports[0].mtu = 1500;
	r->ports[0].hold_down_ms = 60000;
	r->ports[0].hold_up_ms = 60000;
	snprintf(r->ports[0].name, sizeof(r->ports[0].name), "fake0");
	carrier_down = false;
	set_down_calls = set_up_calls = 0;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct router *r = *state;

	neigh_free(r->neigh);
	free(r);
	return 0;
}

/* 'port 0 down' in the configuration file, with a hold-time down: the
 * port is set down as it starts, and its carrier drops a moment after the
 * start-up reading. That drop is the operator's: acted on at once, not
 * held for a minute. */
static void test_config_down_carrier_late(void **state)
{
	struct router *r = *state;
	struct fr_port *p = &r->ports[0];

	p->admin_down = true;
	port_link_admin(r, 0); /* as port_configure() does once started */
	assert_int_equal(set_down_calls, 1);
	link_read(r, 0, false); /* links_wait(): the carrier still up */
	assert_false(p->link_down);
	carrier_down = true;
	port_link_poll(r);
	assert_true(p->link_down);
	assert_int_equal(p->link_changes, 1);
	assert_int_equal(p->link_flaps_ignored, 0);
}

/* Its carrier already down at the start-up reading: down, nothing held. */
static void test_config_down_carrier_first(void **state)
{
	struct router *r = *state;
	struct fr_port *p = &r->ports[0];

	p->admin_down = true;
	port_link_admin(r, 0);
	carrier_down = true;
	link_read(r, 0, false);
	assert_true(p->link_down);
	port_link_poll(r);
	assert_true(p->link_down);
	assert_int_equal(p->link_changes, 0);
}

/* A carrier the operator did not touch still waits out its hold time. */
static void test_carrier_loss_held(void **state)
{
	struct router *r = *state;
	struct fr_port *p = &r->ports[0];

	link_read(r, 0, false);
	assert_false(p->link_down);
	carrier_down = true;
	port_link_poll(r);
	assert_false(p->link_down);
	carrier_down = false;
	port_link_poll(r);
	assert_false(p->link_down);
	assert_int_equal(p->link_flaps_ignored, 1);
	assert_int_equal(p->link_changes, 0);
	assert_int_equal(set_down_calls + set_up_calls, 0);
}

/* Descriptor counts rounded to the device's queue thresholds: ixgbe's
 * (tx_rs_thresh 32, tx_free_thresh 32, rx_free_thresh 32) refuse a TX ring
 * of 1000 or 32; a device without thresholds keeps what it was given. */
static void test_desc_fit(void **state)
{
	struct rte_eth_dev_info info;
	static const struct {
		uint16_t rx, tx, max, want_rx, want_tx;
	} cases[] = {
		{1000, 1000, 4096, 1024, 1024}, {32, 32, 4096, 32, 64},
		{48, 100, 4096, 64, 128},	{1024, 1024, 4096, 1024, 1024},
		{4096, 4096, 4096, 4096, 4096}, {4090, 4090, 4090, 4064, 4064},
	};
	unsigned int i;
	uint16_t rx, tx;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		memset(&info, 0, sizeof(info));
		info.default_txconf.tx_rs_thresh = 32;
		info.default_txconf.tx_free_thresh = 32;
		info.default_rxconf.rx_free_thresh = 32;
		info.rx_desc_lim.nb_max = info.tx_desc_lim.nb_max = cases[i].max;
		rx = cases[i].rx;
		tx = cases[i].tx;
		port_desc_fit(&info, &rx, &tx);
		assert_int_equal(rx, cases[i].want_rx);
		assert_int_equal(tx, cases[i].want_tx);
	}
	memset(&info, 0, sizeof(info));
	info.rx_desc_lim.nb_max = info.tx_desc_lim.nb_max = UINT16_MAX;
	rx = tx = 1000;
	port_desc_fit(&info, &rx, &tx);
	assert_int_equal(rx, 1000);
	assert_int_equal(tx, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_config_down_carrier_late, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_down_carrier_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_carrier_loss_held, setup, teardown),
		cmocka_unit_test(test_desc_fit),
	};

	test_eal_init("link");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
