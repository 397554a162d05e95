/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "eal_helper.h"
#include "fr_eal.h"

static struct rte_mempool *pool;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

void test_skipped(const char *test, const char *why)
{
	const char *list = getenv("FASTROUTE_SKIPS");
	FILE *f;

	fprintf(stderr, "SKIP %s: %s\n", test, why);
	if (list == NULL || (f = fopen(list, "a")) == NULL)
		return;
	fprintf(f, "unit test %s: %s\n", test, why);
	fclose(f);
}

void test_eal_init(const char *name)
{
	test_eal_init_vdev(name, NULL);
}

void test_eal_init_vdev(const char *name, const char *vdev)
{
	char prefix[64], vd[128];
	char *argv[] = {
		(char *)(uintptr_t) "unit",
		(char *)(uintptr_t) "--no-huge",
		(char *)(uintptr_t) "-m",
		(char *)(uintptr_t) "600",
		(char *)(uintptr_t) "--no-pci",
		(char *)(uintptr_t) "-l",
		(char *)(uintptr_t) "0",
		(char *)(uintptr_t) "--log-level=lib.eal:error",
		(char *)(uintptr_t) "--no-telemetry",
		prefix,
		vd,
		NULL,
	};

	snprintf(prefix, sizeof(prefix), "--file-prefix=fr-ut-%s-%d", name, (int)getpid());
	snprintf(vd, sizeof(vd), "--vdev=%s", vdev != NULL ? vdev : "");
	if (rte_eal_init(vdev != NULL ? 11 : 10, argv) < 0) {
		fprintf(stderr, "test: EAL init failed: %s\n", rte_strerror(rte_errno));
		exit(1);
	}
	fr_eal_runtime_dir_remove_at_exit();
	pool = rte_pktmbuf_pool_create("test_pool", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL) {
		fprintf(stderr, "test: mbuf pool: %s\n", rte_strerror(rte_errno));
		exit(1);
	}
}

struct rte_mempool *test_pool(void)
{
	return pool;
}

void test_srand(uint64_t seed)
{
	rng = seed ? seed : 1;
}

uint64_t test_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
