/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command language: one parser and one executor for config files, the
 * CLI socket and the interactive CLI. A command is parsed completely before
 * anything runs; changes go through a transaction that can be rolled back,
 * so a file (or one command) is applied whole or not at all.
 * Control thread only.
 */
#ifndef FR_CMD_H
#define FR_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include <rte_ether.h>

#include "fib.h"
#include "fr_addr.h"
#include "neigh.h"
#include "out.h"

struct router;

/* Where a command comes from: some commands only make sense in one place. */
enum cmd_src {
	CMD_SRC_FILE = 1, /* config file, "load" */
	CMD_SRC_CLI = 2,  /* socket or terminal */
};

/* words in a command: the longest is a multipath route as show config
 * writes it, 'route add P' and FIB_MP_MAX of 'via GW port N weight W' */
#define CMD_MAX_TOKENS 64
_Static_assert(CMD_MAX_TOKENS >= 3 + 6 * FIB_MP_MAX, "a multipath route fits in a command");
#define CMD_ERR_LEN 512

enum cmd_id {
	/* configuration: allowed in files, journaled */
	CMD_PORT_ADDR_ADD = 0,
	CMD_PORT_ADDR_DEL,
	CMD_ROUTE_ADD,
	CMD_ROUTE_REPLACE,
	CMD_ROUTE_DEL,
	CMD_NEIGH_ADD,
	CMD_NEIGH_DEL,
	CMD_SET_NEIGH,
	CMD_PORT_MTU,
	CMD_PORT_RPF,
	CMD_PORT_REDIRECTS,
	CMD_PORT_ADMIN,
	CMD_PORT_HOLD,
	CMD_PORT_RA,
	CMD_SET_IP_MARTIANS,
	CMD_SET_IP_DBCAST,
	CMD_SET_IP_MPHASH,
	CMD_SET_ICMP_RATE,
	CMD_SET_IP_REASM,
	CMD_RTCACHE_MODE,
	CMD_RTCACHE_SIZE,
	CMD_CONFIG_LAST = CMD_RTCACHE_SIZE,
	/* operations: CLI only */
	CMD_SHOW_ROUTE,
	CMD_SHOW_ROUTE_LOOKUP,
	CMD_SHOW_ROUTE_SUMMARY,
	CMD_SHOW_NEIGH,
	CMD_SHOW_NEIGH_STATS,
	CMD_SHOW_STATS,
	CMD_CLEAR_STATS,
	CMD_SHOW_PORT_INFO,
	CMD_SHOW_PORT_STATS,
	CMD_SHOW_RTCACHE,
	CMD_SHOW_CONFIG,
	CMD_SHOW_MEMORY,
	CMD_SHOW_VERSION,
	CMD_LOAD,
	CMD_CONFIGURE_REPLACE,
	CMD_HELP,
	CMD_QUIT,
	CMD_ID_MAX
};

/* 'port N ra on': struct cmd's value (a setting's too) is RA_ON with the
 * advertisement's M and O flags as they sit in its byte 5 (RFC 4861 4.2:
 * 'managed', addresses by DHCPv6; 'other', the rest of the configuration
 * by DHCPv6) and RA_NO_SLAAC ('no-slaac': prefixes without the autonomous
 * flag; a bit that byte leaves reserved, never sent), the default router
 * preference as it sits there too (RFC 4191 2.2: 'preference high' 01,
 * 'low' 11, medium 00), value2 its interval; its 'dns' servers (RFC 8106
 * RDNSS) in dns[] */
#define RA_ON	    0x01
#define RA_NO_SLAAC 0x02
#define RA_MANAGED  0x80
#define RA_OTHER    0x40
#define RA_PRF_HIGH 0x08
#define RA_PRF_LOW  0x18
#define RA_PRF_MASK 0x18
#define RA_FLAGS    (RA_MANAGED | RA_OTHER | RA_NO_SLAAC | RA_PRF_MASK)
#define RA_DNS_MAX  3
/* 'min-delay' (MinDelayBetweenRAs): RFC 4861 10's MIN_DELAY_BETWEEN_RAS by
 * default, RFC 6275 7.5's least */
#define RA_MIN_DELAY_DEFAULT_MS 3000
#define RA_MIN_DELAY_LEAST_MS	30

/* A parsed command. */
struct cmd {
	enum cmd_id id;
	unsigned int line;	/* line in its file, 0 for the CLI */
	uint32_t port;		/* port number where the command has one */
	bool all;		/* "all" instead of a port; "lcores" for show stats */
	bool has_arg;		/* optional argument present */
	uint32_t value, value2; /* mtu; rpf mode, ignore-default; on/off; rate, burst */
	struct fib_route route;
	/* route add/replace with more than one 'via': route.type is
	 * FIB_NH_MULTIPATH, its gateways here */
	struct fib_mp_member mp[FIB_MP_MAX];
	uint8_t nmp;
	struct fr_prefix prefix;
	struct fr_addr addr;
	struct rte_ether_addr mac;
	struct neigh_params nparams; /* set neigh: values of the parameters it names */
	uint32_t nparams_set;	     /* set neigh: which parameters it names (bits) */
	uint8_t ndns;		     /* port N ra on ... dns: how many in dns[] */
	uint8_t dns[RA_DNS_MAX][16];
	char arg[256]; /* load FILE, help TOPIC */
};

/* Longest command (bytes): its line's end ("\n", "\r\n", "\r") and a
 * comment do not count. */
#define CMD_MAX_LEN 1023

/*
 * Parse one line (comments and blank lines give -ENODATA). The line may
 * keep its end ("\n", "\r\n").
 * @return 0, -ENODATA (nothing to run), or -EINVAL with @err filled.
 */
int cmd_parse(const char *line, struct cmd *c, char *err, size_t errlen);

/*
 * Whether the @len bytes of @line (its "\n" not among them) are a line a
 * command may come in, from a file or a socket: no NUL (it would cut the
 * line short, and run another command than the one written), no other
 * control byte (below 0x20 but a tab or a carriage return, 0x7f), and
 * before a comment, no byte that is not ASCII.
 * @return 0, or -EINVAL with @err saying which byte and where.
 */
int cmd_line_check(const char *line, size_t len, char *err, size_t errlen);

/* Undo journal of one transaction. */
struct txn;

struct txn *txn_begin(struct router *r);
/* configure replace: @t's checks see the router as a start with @rp's file
 * has it at the line (an MTU that line has not set yet, only the routes
 * and addresses that lines before it made). */
struct cfg_replace;
void txn_replace(struct txn *t, const struct cfg_replace *rp);
/* Keep every change; frees @t. */
void txn_commit(struct txn *t);
/* Undo every change in reverse order; frees @t. Returns how many could
 * not be undone (each said on stderr; a table full even after the grace
 * period, which indexes given back a moment ago now wait out). */
unsigned int txn_rollback(struct txn *t);
/* txn_rollback(), and if a change could not be undone, say so after the
 * error in @err. */
void txn_rollback_said(struct txn *t, char *err, size_t errlen);
/* The transaction changed port addresses: until it ends, the control
 * thread's answers (ARP, ND) would speak for addresses it may undo. */
bool txn_addr_changed(const struct txn *t);

/*
 * What a configuration file line must pass before any line of the file
 * runs: a configuration command, one the router's state allows (the route
 * cache size only before start), on a port that exists.
 * @return 0, or a negative errno with @err filled.
 */
int cmd_file_check(const struct router *r, const struct cmd *c, char *err, size_t errlen);

/*
 * The settings line @c sets (a port's or the router's: port N mtu, set ip
 * martians...; set neigh one per parameter it names): how many (0: @c is
 * no setting), each with a key in @key[] (unique to the setting and port)
 * and, when @name is not NULL, its name as written ("port 0 mtu",
 * "set neigh hold") in name[i], of @namelen bytes each.
 */
#define CMD_SETTINGS_MAX 32
unsigned int cmd_settings(const struct cmd *c, uint32_t key[CMD_SETTINGS_MAX], char *name,
			  size_t namelen);

/*
 * Run a parsed command. Changes are journaled in @t.
 * @return 0, or a negative errno with @err filled.
 */
int cmd_exec(struct router *r, struct txn *t, const struct cmd *c, enum cmd_src src,
	     struct cmd_out *o, char *err, size_t errlen);

/*
 * Parse and run one CLI line as its own transaction.
 * @return 0 (also for blank lines), or negative errno with the error in @o.
 */
int cmd_run_line(struct router *r, const char *line, struct cmd_out *o);

/* What config_load() or config_replace() did. */
struct config_result {
	unsigned int cmds, routes;
	double seconds; /* both passes: parse, then apply */
	/* config_replace(): commands that found their change made already,
	 * routes, static neighbours and port addresses removed (the file
	 * does not add them), settings put back to their start values (the
	 * file does not set them) */
	unsigned int unchanged, removed, reset;
	/* set by the caller: where the lines' warnings go ("FILE:LINE:
	 * warning: ...", once the load succeeded), or NULL */
	struct cmd_out *warn;
};

/*
 * Load a config file: parse every line, then apply all of them in one
 * transaction. On error nothing is applied and @err holds "file:line: msg".
 * @param progress print progress and a summary to stderr
 * @param res when not NULL, receives counts and time
 * @return 0 or a negative errno.
 */
int config_load(struct router *r, const char *path, bool progress, struct config_result *res,
		char *err, size_t errlen);

/*
 * Make the running configuration the one the file @path describes, as if
 * the router had been started with it, in one transaction: the static
 * routes, static neighbours and port addresses it does not add are
 * removed first, then its lines are applied, a line whose change is made
 * already (the same route, address, neighbour or setting) left alone, and
 * then every setting it does not set goes back to its start value. On
 * error nothing is changed and @err holds "file:line: msg" (or "file:
 * msg"). Arguments as config_load()'s.
 */
int config_replace(struct router *r, const char *path, struct config_result *res, char *err,
		   size_t errlen);

/* Record the settings as they are before the configuration file, for
 * config_replace(); once the ports are probed. */
void config_boot_save(struct router *r);

/* Tests: called between config_load()'s two passes over @path (NULL: none). */
extern void (*config_between_passes)(const char *path);

/* The most config_load() copies from a pipe or FIFO before it refuses the
 * file: 1 GiB, some forty times a million routes' file (a writer that never
 * ends must not fill the temporary directory). Tests lower it. */
#define CONFIG_SPOOL_MAX (1ull << 30)
extern uint64_t config_spool_max;

/* The help text (all commands, or those starting with @topic); how many
 * commands it gave (0: none starts so, nothing printed). */
unsigned int cmd_help(struct cmd_out *o, const char *topic);

/* Command keywords, for completion: calls @cb with each command's fixed
 * words ("show route lookup"), its usage and whether arguments follow. */
void cmd_keywords(void (*cb)(const char *words, const char *usage, bool args, void *arg),
		  void *arg);

#endif /* FR_CMD_H */
