/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fastroute-pingpong: where do the two vCPUs sit right now?
 *
 * Two threads, pinned to two CPUs (default 0 and 1), bounce one cache line
 * N times; the median round trip says whether the vCPUs share a last-level
 * cache. On the 2-vCPU VMs the project runs on, the vCPUs move between host
 * cores: a round trip reads either ~80-140 ns ("near", shared L3) or
 * ~380-440 ns ("far"), flipping every 0.5-5 minutes, and two-process
 * throughput over memif is ~2.5x higher when near. The throughput harness
 * runs this before and after each measurement and discards runs whose
 * placement changed in between (scripts/bench/fastbench.py's header).
 *
 *   fastroute-pingpong [-n ROUND_TRIPS] [-c CPU_A,CPU_B] [-t THRESHOLD_NS] [--json]
 *
 * Prints the median round trip in ns, its 10th/90th percentiles over batches
 * of 100 round trips, and "near" (median below the threshold, default
 * 250 ns) or "far". Exit status 2 when a thread cannot be pinned or the
 * partner does not answer within 2 s (the CPU is busy with something else).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH	   100
#define WARMUP	   1000
#define TIMEOUT_NS 2000000000LL

struct line {
	volatile uint64_t ball;
	char pad[64 - sizeof(uint64_t)];
} __attribute__((aligned(64)));

static struct line shared;
static volatile int failed;
static unsigned long rounds;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* wait until the ball reads @want; false after TIMEOUT_NS or when the other side gave up */
static bool wait_for(uint64_t want)
{
	unsigned int spins = 0;
	int64_t deadline = 0;

	while (__atomic_load_n(&shared.ball, __ATOMIC_ACQUIRE) != want) {
		cpu_relax();
		if (++spins % 4096 == 0) {
			int64_t t = now_ns();

			if (deadline == 0)
				deadline = t + TIMEOUT_NS;
			else if (t > deadline || failed)
				return false;
		}
	}
	return true;
}

struct partner_arg {
	int cpu;
	int rc;
};

static void *partner(void *p)
{
	struct partner_arg *a = p;
	unsigned long i;

	a->rc = pin(a->cpu);
	if (a->rc != 0) {
		failed = 1;
		return NULL;
	}
	for (i = 1; i <= rounds; i++) {
		if (!wait_for(2 * i - 1)) {
			failed = 1;
			return NULL;
		}
		__atomic_store_n(&shared.ball, 2 * i, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: fastroute-pingpong [-n ROUND_TRIPS] [-c CPU_A,CPU_B] [-t THRESHOLD_NS] "
		   "[--json]\n"
		   "Median cache-line round trip between two CPUs, and 'near' (below the\n"
		   "threshold, default 250 ns) or 'far'.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long n = 20000, i, nb, b;
	int cpu_a = 0, cpu_b = 1, c, rc;
	double threshold = 250, *samples, median, p10, p90;
	bool json = false;
	struct partner_arg pa;
	pthread_t th;
	int64_t t0;

	while ((c = getopt_long(argc, argv, "n:c:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = strtoul(optarg, NULL, 0);
			if (n < BATCH || n > 100000000UL) {
				fprintf(stderr, "fastroute-pingpong: -n: %d..100000000\n", BATCH);
				return 1;
			}
			break;
		case 'c':
			if (sscanf(optarg, "%d,%d", &cpu_a, &cpu_b) != 2 || cpu_a < 0 ||
			    cpu_b < 0 || cpu_a == cpu_b) {
				fprintf(stderr,
					"fastroute-pingpong: -c: two different CPUs, 'A,B'\n");
				return 1;
			}
			break;
		case 't':
			threshold = strtod(optarg, NULL);
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	nb = n / BATCH;
	rounds = WARMUP + nb * BATCH;
	samples = calloc(nb, sizeof(*samples));
	if (samples == NULL)
		return 1;
	rc = pin(cpu_a);
	if (rc != 0) {
		fprintf(stderr, "fastroute-pingpong: cannot pin to CPU %d: %s\n", cpu_a,
			strerror(rc));
		return 2;
	}
	pa.cpu = cpu_b;
	pa.rc = 0;
	rc = pthread_create(&th, NULL, partner, &pa);
	if (rc != 0) {
		fprintf(stderr, "fastroute-pingpong: pthread_create: %s\n", strerror(rc));
		return 2;
	}
	for (i = 1; i <= WARMUP && !failed; i++) {
		__atomic_store_n(&shared.ball, 2 * i - 1, __ATOMIC_RELEASE);
		if (!wait_for(2 * i))
			failed = 1;
	}
	for (b = 0; b < nb && !failed; b++) {
		t0 = now_ns();
		for (c = 0; c < BATCH; c++, i++) {
			__atomic_store_n(&shared.ball, 2 * i - 1, __ATOMIC_RELEASE);
			if (!wait_for(2 * i)) {
				failed = 1;
				break;
			}
		}
		samples[b] = (double)(now_ns() - t0) / BATCH;
	}
	pthread_join(th, NULL);
	if (pa.rc != 0) {
		fprintf(stderr, "fastroute-pingpong: cannot pin to CPU %d: %s\n", cpu_b,
			strerror(pa.rc));
		return 2;
	}
	if (failed) {
		fprintf(stderr,
			"fastroute-pingpong: no answer from CPU %d within %lld ms (is something "
			"else busy on it?)\n",
			cpu_b, TIMEOUT_NS / 1000000);
		return 2;
	}
	qsort(samples, nb, sizeof(*samples), cmp_double);
	median = samples[nb / 2];
	p10 = samples[nb / 10];
	p90 = samples[nb * 9 / 10];
	if (json)
		printf("{\"cpus\":[%d,%d],\"median_ns\":%.1f,\"p10_ns\":%.1f,\"p90_ns\":%.1f,"
		       "\"round_trips\":%lu,\"threshold_ns\":%.0f,\"placement\":\"%s\"}\n",
		       cpu_a, cpu_b, median, p10, p90, nb * BATCH, threshold,
		       median < threshold ? "near" : "far");
	else
		printf("cpus %d,%d: median round trip %.1f ns (p10 %.1f, p90 %.1f; %lu round "
		       "trips): %s\n",
		       cpu_a, cpu_b, median, p10, p90, nb * BATCH,
		       median < threshold ? "near" : "far");
	free(samples);
	return 0;
}
