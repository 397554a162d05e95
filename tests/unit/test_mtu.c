/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's MTU against its device's, through transactions: a device is
 * raised when the router's MTU goes above it, lowered only once a change
 * is kept, and a rolled-back change never asks a device to go back up (it
 * may refuse while started, which would leave the router sending frames
 * larger than the device takes).
 *
 * The device is port 0, a net_null vdev, started as far as the router
 * knows; rte_eth_dev_set_mtu() is wrapped (-Wl,--wrap) so that it can
 * refuse to raise, as some real NICs do while started.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_ethdev.h>

#include "cmd.h"
#include "eal_helper.h"
#include "out.h"
#include "router.h"

struct router *fr_router;

/* the simulated device: its MTU, the calls made, whether it refuses raises */
static uint16_t dev_now;
static unsigned int set_calls;
static bool refuse_raise;

int __wrap_rte_eth_dev_set_mtu(uint16_t port_id, uint16_t mtu);

int __wrap_rte_eth_dev_set_mtu(uint16_t port_id, uint16_t mtu)
{
	(void)port_id;
	set_calls++;
	if (refuse_raise && mtu > dev_now)
		return -EBUSY;
	dev_now = mtu;
	return 0;
}

static int setup(void **state)
{
	static int k;
	struct router *r = calloc(1, sizeof(*r));
	struct fib_conf fc = {0};
	struct neigh_conf nc = {0};
	char name[16];

	snprintf(name, sizeof(name), "m%d", k++);
	nc.capacity = 64;
	r->neigh = neigh_create(name, &nc);
	fc.max_routes4 = 1024;
	fc.tbl8s4 = 16;
	fc.neigh = r->neigh;
	r->fib = fib_create(name, &fc);
	assert_non_null(r->fib);
	assert_true(rte_eth_dev_is_valid_port(0));
	r->nb_ports = 1;
	r->ports[0].id = 0;
	r->ports[0].present = true;
	r->ports[0].started = true;
	r->dp_ports[0].mtu = 1500;
	r->ports[0].dev_mtu = r->ports[0].dev_mtu_probed = 1500;
	snprintf(r->ports[0].name, sizeof(r->ports[0].name), "null0");
	dev_now = 1500;
	set_calls = 0;
	refuse_raise = false;
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

static const char *write_tmp(const char *text)
{
	static char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/fr-ut-mtu-%d.conf", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int load(struct router *r, const char *text, char *err, size_t errlen)
{
	int rc = config_load(r, write_tmp(text), false, NULL, err, errlen);

	unlink(write_tmp(""));
	return rc;
}

/* the router's MTU, what it believes the device carries, and the device */
static void mtus(const struct router *r, uint16_t router, uint16_t dev)
{
	if (r->dp_ports[0].mtu != router || r->ports[0].dev_mtu != dev || dev_now != dev)
		fail_msg("want router %u, device %u; have router %u, device %u (believed %u)",
			 router, dev, r->dp_ports[0].mtu, dev_now, r->ports[0].dev_mtu);
}

/* A failed load that had lowered the MTU leaves the device alone, even one
 * that refuses to be raised: router and device as they were. */
static void test_rollback_never_raises(void **state)
{
	struct router *r = *state;
	char err[512] = "";

	assert_int_equal(load(r, "port 0 mtu 2000\n", err, sizeof(err)), 0);
	mtus(r, 2000, 2000);
	refuse_raise = true;
	set_calls = 0;
	assert_int_not_equal(load(r, "port 0 mtu 1400\nroute del 10.9.9.0/24\n", err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, ":2:"));
	mtus(r, 2000, 2000);
	assert_int_equal(set_calls, 0);
	/* kept, it goes down: to what the device reported, not below */
	assert_int_equal(load(r, "port 0 mtu 1400\n", err, sizeof(err)), 0);
	mtus(r, 1400, 1500);
	assert_int_equal(set_calls, 1);
}

/* A failed load that raised the device takes it back down; one that
 * lowered and raised it again in the same file leaves it where it was. */
static void test_rollback_lowers(void **state)
{
	struct router *r = *state;
	char err[512] = "";

	assert_int_not_equal(load(r, "port 0 mtu 1800\nroute del 10.9.9.0/24\n", err, sizeof(err)),
			     0);
	mtus(r, 1500, 1500);
	assert_int_equal(set_calls, 2); /* up, then back down */
	assert_int_equal(load(r, "port 0 mtu 2000\n", err, sizeof(err)), 0);
	set_calls = 0;
	assert_int_equal(load(r, "port 0 mtu 1400\nport 0 mtu 1800\n", err, sizeof(err)), 0);
	mtus(r, 1800, 1800);
	assert_int_equal(set_calls, 1);
	/* and raised past the device within a file that fails: back down
	 * to where it was before the file, nothing lowered on the way */
	set_calls = 0;
	assert_int_not_equal(load(r, "port 0 mtu 1400\nport 0 mtu 2000\nroute del 10.9.9.0/24\n",
				  err, sizeof(err)),
			     0);
	mtus(r, 1800, 1800);
	assert_int_equal(set_calls, 2);
}

/* On the CLI, each command is its own transaction: lowered at once. */
static void test_cli_lowers(void **state)
{
	struct router *r = *state;
	struct cmd_out o = {0};

	assert_int_equal(cmd_run_line(r, "port 0 mtu 1900", &o), 0);
	mtus(r, 1900, 1900);
	assert_int_equal(cmd_run_line(r, "port 0 mtu 1600", &o), 0);
	mtus(r, 1600, 1600);
	assert_int_equal(cmd_run_line(r, "port 0 mtu 1280", &o), 0);
	mtus(r, 1280, 1500);
	/* a device that refuses to go up: the command fails, nothing changes */
	refuse_raise = true;
	out_reset(&o);
	assert_int_not_equal(cmd_run_line(r, "port 0 mtu 1700", &o), 0);
	if (strstr(o.buf, "cannot take MTU 1700") == NULL ||
	    strstr(o.buf, "while started: put it in the file --config applies at start, before the "
			  "port starts") == NULL)
		fail_msg("%s", o.buf);
	mtus(r, 1280, 1500);
	out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rollback_never_raises, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollback_lowers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_lowers, setup, teardown),
	};

	test_eal_init_vdev("mtu", "net_null0");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
