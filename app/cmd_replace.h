/* SPDX-License-Identifier: BSD-3-Clause */
/* configure replace: what config.c's load calls around its two passes. */
#ifndef FR_CMD_REPLACE_H
#define FR_CMD_REPLACE_H

#include "cmd.h"

/* What a replacing file adds and sets (read in its first pass). */
struct cfg_replace;

/* NULL: out of memory. */
struct cfg_replace *replace_new(struct router *r);
void replace_free(struct cfg_replace *rp);

/* First pass: line @c (checked) adds or sets what it names. -ENOMEM. */
int replace_note(struct cfg_replace *rp, const struct cmd *c);

/* Before the second pass, in @t: the static routes, static neighbours and
 * port addresses the file does not add, removed; @serve(@arg) is called
 * now and then on a long walk. 0, or a negative errno with @err filled. */
int replace_prune(struct cfg_replace *rp, struct txn *t, void (*serve)(void *), void *arg,
		  char *err, size_t errlen);

/* Second pass: line @c applied in @t as cmd_exec() would, unless what it
 * adds or sets is there already (then nothing changes); a route added
 * where the router has another static route for its prefix replaces it. */
int replace_exec(struct cfg_replace *rp, struct txn *t, const struct cmd *c, struct cmd_out *o,
		 char *err, size_t errlen);

/* After the prune, before the second pass (whose lines may need them: an
 * IPv6 address the MTU of 1280 or more), in @t: the settings the file does
 * not set put back to their start values. 0, or a negative errno with
 * @err filled. */
int replace_settings(struct cfg_replace *rp, struct txn *t, char *err, size_t errlen);

/* What the checks of a line in the second pass see (txn_replace()): the
 * MTU a start with the file gives port @port at this line (its start value
 * until the file's line for it), and whether a route or address the router
 * has would be there already (its line, or its address's, has run). */
struct port_addr;
uint16_t replace_mtu(const struct cfg_replace *rp, uint16_t port);
/* Whether port @port runs router advertisements as a start with the file
 * would at this line (as replace_mtu()). */
bool replace_ra_on(const struct cfg_replace *rp, uint16_t port);
bool replace_route_made(const struct cfg_replace *rp, const struct fib_route *rt);
bool replace_addr_made(const struct cfg_replace *rp, uint16_t port, const struct port_addr *pa);

/* After the second pass, right before the commit (it cannot be undone):
 * each port's addresses in the file's order. */
void replace_order(struct cfg_replace *rp);

/* The counts of struct config_result that a replace fills. */
void replace_counts(const struct cfg_replace *rp, struct config_result *res);

#endif /* FR_CMD_REPLACE_H */
