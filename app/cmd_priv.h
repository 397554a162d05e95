/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by cmd.c (parse, dispatch), cmd_txn.c (changes), cmd_show.c. */
#ifndef FR_CMD_PRIV_H
#define FR_CMD_PRIV_H

#include <stdio.h>

#include "cmd.h"
#include "router.h"

/* fill err, evaluate to -EINVAL (ERR) or to a given negative errno (ERRC) */
#define ERR(...)	(snprintf(err, errlen, __VA_ARGS__), -EINVAL)
#define ERRC(code, ...) (snprintf(err, errlen, __VA_ARGS__), (code))

/* A port or router setting, as set or as it was. */
struct setting {
	enum cmd_id id;
	uint16_t port;
	uint32_t value, value2;
};

/* Setting @id (of port @port, 0 for the router's) as it is now. */
void txn_setting_get(const struct router *r, enum cmd_id id, uint16_t port, struct setting *s);
/* Delete the route for @p, journaled in @t. */
int txn_route_del(struct txn *t, const struct fr_prefix *p, char *err, size_t errlen);
/* Address @a of a port address of length @len, and the addresses of its
 * subnet that no gateway or neighbour may be once it is the router's
 * (IPv4 /30 and shorter: network, broadcast; IPv6 to /126: the
 * Subnet-Router anycast): how many of the 3 written to @edge. */
unsigned int addr_edges(const struct fr_addr *a, uint8_t len, struct fr_addr edge[3]);
/* "gateway GW is not on a connected network ...": -ENETUNREACH, @err
 * filled (a route line's refusal, also configure replace's). */
int err_gw_unconnected(const struct fr_addr *gw, char *err, size_t errlen);
/* Gateway @gw on a port's network, but route @via (not a connected one)
 * covers it: -ENETUNREACH, said in @err. */
int err_gw_covered(const struct fr_addr *gw, const struct fib_route *via, char *err, size_t errlen);
/* Link-local gateway @gw given without its port: -EDESTADDRREQ, said. */
int err_gw_link_local(const struct fr_addr *gw, char *err, size_t errlen);

/* A gateway the router may route by: none of its addresses, nor a
 * subnet's network, broadcast or anycast address. */
int gw_check(const struct router *r, const struct fr_addr *gw, char *err, size_t errlen);
/* IPv6 may leave by @port: its MTU (as a start with the file being
 * replaced has it at this line) at least 1280, or -EINVAL with @err. */
int mtu6_check(const struct txn *t, uint16_t port, char *err, size_t errlen);
/* The ports IPv6 route line @c leaves by (its port, or its members'
 * given ones) pass mtu6_check(): 0, or its refusal. */
int route_mtu6_check(const struct txn *t, const struct cmd *c, char *err, size_t errlen);
/* 'port N mtu @mtu' keeps IPv6 working: below 1280 only on a port with
 * no IPv6 address and that no IPv6 route leaves by. 0 or -EINVAL. */
int mtu_set_check(const struct txn *t, uint16_t port, uint32_t mtu, char *err, size_t errlen);

int check_port(const struct router *r, uint32_t port, char *err, size_t errlen);
/* 'rtcache size N' once running: only the size it has (show config loads
 * back); 0 or -EBUSY with the reason. */
int check_rtcache_size(const struct router *r, const struct cmd *c, char *err, size_t errlen);

/* cmd_txn.c: configuration changes, journaled in @t */
int exec_addr_add(struct txn *t, const struct cmd *c, char *err, size_t errlen);
int exec_addr_del(struct txn *t, const struct cmd *c, char *err, size_t errlen);
/* Routes by a gateway on @port in @gone, a subnet the port has just lost,
 * that none of its subnets holds now: they stay on the port (their port
 * was found when they were added), for 'port N address del' to warn of. */
unsigned int addr_gone_gateways(const struct router *r, uint16_t port,
				const struct fr_prefix *gone);
int exec_route(struct txn *t, const struct cmd *c, char *err, size_t errlen);
int exec_neigh(struct txn *t, const struct cmd *c, char *err, size_t errlen);
int exec_set_neigh(struct txn *t, const struct cmd *c, char *err, size_t errlen);
int exec_setting(struct txn *t, const struct cmd *c, char *err, size_t errlen);

/* cmd.c: "set neigh ..." with every parameter; apply the named ones to @p */
void cmd_neigh_params_line(struct cmd_out *o, const struct neigh_params *p);
void cmd_neigh_params_apply(const struct cmd *c, struct neigh_params *p);

/* cmd_show.c */
int cmd_show(struct router *r, const struct cmd *c, struct cmd_out *o, char *err, size_t errlen);

#endif /* FR_CMD_PRIV_H */
