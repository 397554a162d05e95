/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 options a router writes into the packets it forwards (RFC 791 3.1,
 * RFC 1812 4.2.2.1): Record Route and Internet Timestamp. For the control
 * thread: it knows the router's addresses and the time of day; the data
 * path hands such packets over (ip4_options_to_fill()).
 */
#ifndef FR_IP4_OPTS_H
#define FR_IP4_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ip.h>

/* What ip4_options_fill() wrote, as bits of its result */
#define IP4_FILLED_RR	       1u /* an address recorded */
#define IP4_FILLED_TS	       2u /* a timestamp (flag 1: with the address before it) */
#define IP4_FILLED_TS_OVERFLOW 4u /* the Timestamp was full: its overflow count raised */

/*
 * Fill in the options of forwarded header @ip, which ip4_options_check()
 * passed: a Record Route with room gets @addr (host order: the router's
 * address on the port the packet leaves by, RFC 791), its pointer moved on;
 * a Timestamp gets @ms (milliseconds since midnight UT, RFC 791; with the
 * high bit set when the time is not known so), with @addr before it under
 * flag 1, or at the slot whose address is one of the router's (@own) under
 * flag 3, or, full, its overflow count raised by one. An @addr of 0 (the
 * router has no IPv4 address) records nothing where an address is asked
 * for. The header checksum is made right again when anything changed.
 * @return the IP4_FILLED_* bits of what was written.
 */
unsigned int ip4_options_fill(struct rte_ipv4_hdr *ip, uint32_t addr, uint32_t ms,
			      bool (*own)(const void *arg, uint32_t a), const void *arg);

/* The time for a Timestamp: milliseconds since midnight UT (RFC 791), read
 * from the realtime clock (a system call: control thread only). */
uint32_t ip4_ts_now(void);

#endif /* FR_IP4_OPTS_H */
