/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/neigh: static entries, references, generations, capacity, and the
 * lock-free read contract under a concurrent writer.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eal_helper.h"
#include "neigh.h"

static int counter;

static int setup(void **state)
{
	struct neigh_conf nc = {0};
	char name[16];

	snprintf(name, sizeof(name), "n%d", counter++);
	nc.capacity = 16;
	*state = neigh_create(name, &nc);
	assert_non_null(*state);
	return 0;
}

static int teardown(void **state)
{
	neigh_free(*state);
	return 0;
}

static struct fr_addr a4(const char *s)
{
	struct fr_addr a;

	assert_int_equal(fr_addr_parse(s, &a), 0);
	return a;
}

static const struct rte_ether_addr mac1 = {{0x02, 0, 0, 0, 0, 1}};
static const struct rte_ether_addr mac2 = {{0x02, 0, 0, 0, 0, 2}};

static void test_static(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("192.0.2.2");
	struct neigh_view v;
	struct neigh_info ni;
	uint32_t idx, g;

	assert_int_equal(neigh_find(t, &a, 0), NEIGH_IDX_NONE);
	assert_int_equal(neigh_static_set(t, &a, 0, &mac1), 0);
	idx = neigh_find(t, &a, 0);
	assert_int_not_equal(idx, NEIGH_IDX_NONE);
	/* same address on another port is another neighbour */
	assert_int_equal(neigh_find(t, &a, 1), NEIGH_IDX_NONE);

	neigh_read(neigh_hot_table(t), idx, &v);
	assert_int_equal(v.state, NEIGH_S_STATIC);
	assert_true(rte_is_same_ether_addr(&v.mac, &mac1));
	assert_int_equal(v.port, 0);
	assert_int_equal(v.gen % 2, 0);
	g = v.gen;

	/* a MAC change is a new generation, same index */
	assert_int_equal(neigh_static_set(t, &a, 0, &mac2), 0);
	assert_int_equal(neigh_find(t, &a, 0), idx);
	neigh_read(neigh_hot_table(t), idx, &v);
	assert_true(rte_is_same_ether_addr(&v.mac, &mac2));
	assert_int_equal(v.gen, g + 2);
	assert_int_equal(neigh_gen(neigh_hot_table(t), idx), g + 2);

	assert_int_equal(neigh_get(t, &a, 0, &ni), 0);
	assert_int_equal(ni.configured, 1);
	assert_int_equal(neigh_count(t), 1);

	/* multicast / zero MACs are refused */
	{
		struct rte_ether_addr bad = {{0x01, 0, 0x5e, 0, 0, 1}};

		assert_int_equal(neigh_static_set(t, &a, 0, &bad), -EINVAL);
	}
	assert_int_equal(neigh_del(t, &a, 0), 0);
	assert_int_equal(neigh_find(t, &a, 0), NEIGH_IDX_NONE);
	assert_int_equal(neigh_del(t, &a, 0), -ENOENT);
	assert_int_equal(neigh_count(t), 0);
}

static void test_refs(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("198.51.100.2");
	struct neigh_view v;
	uint32_t idx, idx2;

	idx = neigh_ref(t, &a, 1); /* a next hop needs it before it is resolved */
	assert_int_not_equal(idx, NEIGH_IDX_NONE);
	neigh_read(neigh_hot_table(t), idx, &v);
	assert_int_equal(v.state, NEIGH_S_NONE);
	assert_false(neigh_state_usable(v.state));
	idx2 = neigh_ref(t, &a, 1);
	assert_int_equal(idx, idx2);

	/* configuring it keeps the index the next hop holds */
	assert_int_equal(neigh_static_set(t, &a, 1, &mac1), 0);
	assert_int_equal(neigh_find(t, &a, 1), idx);
	neigh_read(neigh_hot_table(t), idx, &v);
	assert_true(neigh_state_usable(v.state));

	/* deleting a referenced entry leaves it unresolved, not gone */
	assert_int_equal(neigh_del(t, &a, 1), 0);
	assert_int_equal(neigh_find(t, &a, 1), idx);
	neigh_read(neigh_hot_table(t), idx, &v);
	assert_int_equal(v.state, NEIGH_S_NONE);

	neigh_unref(t, idx);
	assert_int_equal(neigh_find(t, &a, 1), idx);
	neigh_unref(t, idx);
	assert_int_equal(neigh_find(t, &a, 1), NEIGH_IDX_NONE);
	assert_int_equal(neigh_count(t), 0);
}

static void test_capacity(void **state)
{
	struct neigh_table *t = *state;
	uint32_t i;

	for (i = 0; i < neigh_capacity(t); i++) {
		struct fr_addr a = fr_addr4(0x0a000001 + i);

		assert_int_equal(neigh_static_set(t, &a, 0, &mac1), 0);
	}
	{
		struct fr_addr a = fr_addr4(0x0b000001);

		assert_int_equal(neigh_static_set(t, &a, 0, &mac1), -ENOSPC);
		assert_int_equal(neigh_ref(t, &a, 0), NEIGH_IDX_NONE);
	}
	/* room again after a delete (no RCU variable: reused at once) */
	{
		struct fr_addr a = fr_addr4(0x0a000001), b = fr_addr4(0x0b000001);

		assert_int_equal(neigh_del(t, &a, 0), 0);
		assert_int_equal(neigh_static_set(t, &b, 0, &mac2), 0);
	}
}

/* One writer flips an entry between two MACs; readers must only ever see one
 * of the two, each with the generation parity it was written with. */
struct flip {
	struct neigh_table *t;
	uint32_t idx;
	volatile int stop;
	uint64_t reads, bad;
};

static void *reader(void *arg)
{
	struct flip *f = arg;
	const struct neigh_hot *hot = neigh_hot_table(f->t);
	struct neigh_view v;
	uint64_t n = 0, bad = 0;

	while (!f->stop) {
		neigh_read(hot, f->idx, &v);
		/* writes of mac1 give generations 4k+2, of mac2 4k (see writer) */
		if (rte_is_same_ether_addr(&v.mac, &mac1)) {
			if (v.gen % 4 != 2)
				bad++;
		} else if (rte_is_same_ether_addr(&v.mac, &mac2)) {
			if (v.gen % 4 != 0)
				bad++;
		} else {
			bad++;
		}
		n++;
	}
	f->reads = n;
	f->bad = bad;
	return NULL;
}

static void test_concurrent_flip(void **state)
{
	struct neigh_table *t = *state;
	struct fr_addr a = a4("192.0.2.50");
	struct flip f = {.t = t};
	pthread_t th;
	uint32_t i, g;

	assert_int_equal(neigh_static_set(t, &a, 0, &mac2), 0);
	f.idx = neigh_find(t, &a, 0);
	g = neigh_gen(neigh_hot_table(t), f.idx);
	/* align so that mac2 sits on generations divisible by 4 */
	if (g % 4 != 0)
		assert_int_equal(neigh_static_set(t, &a, 0, &mac2), 0);
	assert_int_equal(neigh_gen(neigh_hot_table(t), f.idx) % 4, 0);
	assert_int_equal(pthread_create(&th, NULL, reader, &f), 0);
	for (i = 0; i < 2000000; i++)
		neigh_static_set(t, &a, 0, (i & 1) ? &mac2 : &mac1);
	f.stop = 1;
	pthread_join(th, NULL);
	print_message("flips %u, reads %" PRIu64 ", bad %" PRIu64 "\n", i, f.reads, f.bad);
	assert_true(f.reads > 0);
	assert_int_equal(f.bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_static, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_capacity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_flip, setup, teardown),
	};

	test_eal_init("neigh");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
