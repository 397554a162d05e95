/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL for unit tests: no hugepages, no PCI, one lcore, a private prefix. */
#ifndef FR_TEST_EAL_HELPER_H
#define FR_TEST_EAL_HELPER_H

#include <stdint.h>

struct rte_mempool;

/* Initialise EAL once for test @name; aborts the test program on failure. */
void test_eal_init(const char *name);

/* The same, with one virtual device (EAL's --vdev=@vdev). */
void test_eal_init_vdev(const char *name, const char *vdev);

/* A pktmbuf pool for building test packets. */
struct rte_mempool *test_pool(void);

/* A test that cannot run here says so: on stderr, and in the list
 * scripts/run-tests.sh prints at the end ($FASTROUTE_SKIPS), so that a run
 * missing it never reads as whole (cmocka's skip() alone exits 0). The
 * caller then calls skip(). */
void test_skipped(const char *test, const char *why);

/* Deterministic xorshift PRNG, so failures reproduce. */
uint64_t test_rand(void);
void test_srand(uint64_t seed);

#endif
