/* SPDX-License-Identifier: BSD-3-Clause */
/* Record Route and Internet Timestamp, for forwarded packets (ip4_opts.h). */
#include "ip4_opts.h"

#include <string.h>
#include <time.h>

#include <rte_byteorder.h>

#include "ip4.h"

#define MS_PER_DAY (24u * 3600u * 1000u)

static void put32(uint8_t *p, uint32_t v)
{
	v = rte_cpu_to_be_32(v);
	memcpy(p, &v, sizeof(v));
}

/* A Record Route of length @l at @o with room (ip4_rr_bad() passed it) */
static unsigned int fill_rr(uint8_t *o, uint32_t l, uint32_t addr)
{
	if (o[2] > l || addr == 0)
		return 0;
	put32(o + o[2] - 1, addr);
	o[2] = (uint8_t)(o[2] + 4);
	return IP4_FILLED_RR;
}

static unsigned int fill_ts(uint8_t *o, uint32_t l, uint32_t addr, uint32_t ms,
			    bool (*own)(const void *arg, uint32_t a), const void *arg)
{
	uint8_t flag = o[3] & 0x0f;
	uint8_t *slot = o + o[2] - 1;
	uint32_t given;

	if (o[2] > l) {
		/* full: counted, never past 15 (ip4_ts_bad() refused that) */
		o[3] = (uint8_t)(o[3] + 0x10);
		return IP4_FILLED_TS_OVERFLOW;
	}
	switch (flag) {
	case 0:
		put32(slot, ms);
		o[2] = (uint8_t)(o[2] + 4);
		return IP4_FILLED_TS;
	case 1:
		if (addr == 0)
			return 0;
		put32(slot, addr);
		put32(slot + 4, ms);
		o[2] = (uint8_t)(o[2] + 8);
		return IP4_FILLED_TS;
	default: /* 3: only where the next address given is ours (RFC 1812 4.2.2.1: any of them) */
		memcpy(&given, slot, sizeof(given));
		if (own == NULL || !own(arg, rte_be_to_cpu_32(given)))
			return 0;
		put32(slot + 4, ms);
		o[2] = (uint8_t)(o[2] + 8);
		return IP4_FILLED_TS;
	}
}

unsigned int ip4_options_fill(struct rte_ipv4_hdr *ip, uint32_t addr, uint32_t ms,
			      bool (*own)(const void *arg, uint32_t a), const void *arg)
{
	uint32_t ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * 4;
	uint32_t len = ihl - (uint32_t)sizeof(*ip), i = 0;
	uint8_t *o = (uint8_t *)(ip + 1);
	unsigned int done = 0;

	while (i < len && o[i] != 0) {
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (o[i] == IP4_OPT_RR)
			done |= fill_rr(o + i, o[i + 1], addr);
		else if (o[i] == IP4_OPT_TS)
			done |= fill_ts(o + i, o[i + 1], addr, ms, own, arg);
		i += o[i + 1];
	}
	if (done != 0) {
		ip->hdr_checksum = 0;
		ip->hdr_checksum = (uint16_t)~rte_raw_cksum(ip, ihl);
	}
	return done;
}

uint32_t ip4_ts_now(void)
{
	struct timespec ts;

	/* no clock: any value, its high bit set to say so (RFC 791) */
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return 0x80000000u;
	return (uint32_t)((uint64_t)ts.tv_sec % (MS_PER_DAY / 1000u) * 1000u +
			  (uint64_t)ts.tv_nsec / 1000000u);
}
