/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CLI on a UNIX stream socket, served by the control thread without
 * blocking: each request is one line; each answer is a header line
 * "OK <bytes>" or "ERR <bytes>" followed by that many bytes of text.
 */
#ifndef FR_CLI_SOCK_H
#define FR_CLI_SOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct router;

/*
 * Who a socket client is, as the kernel said when it connected
 * (SO_PEERCRED, SO_PEERGROUPS): while its line runs, router.cli_peer points
 * here, so that a load reads for a client that is not root only a file it
 * could read itself.
 */
struct cli_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid; /* primary group */
	/* supplementary groups; false: a kernel before 4.13 does not tell
	 * them, only the primary group counts */
	bool groups_known;
	unsigned int ngroups;
	gid_t *groups;
};

/* Request lines are refused from this many bytes on (newline excluded):
 * the longest accepted is one byte shorter. */
#define CLI_MAX_LINE 4095

/*
 * Whether a router serves the socket at @path: -EADDRINUSE when something
 * accepts connections there (or would: its backlog is full), else
 * connect()'s negative errno (-ECONNREFUSED: a stale socket, -ENOENT: no
 * socket). Any thread; it connects and closes at once.
 */
int cli_sock_probe(const char *path);

/*
 * Create the socket at @path (mode 0660, group @gid or, when negative, the
 * process's; a stale socket file is replaced, a live one is an error).
 * Control thread. @return 0, a negative errno, or -CLI_SOCK_EGROUP.
 */
int cli_sock_open(const char *path, int64_t gid);

/* cli_sock_open()'s -CLI_SOCK_EGROUP: the socket could not be given @gid
 * (EPERM from chown(): neither root with CAP_CHOWN nor in the group) */
#define CLI_SOCK_EGROUP 10000

/*
 * Serve clients: accept, read, run, write. Waits at most @timeout_ms for
 * something to do (with no socket open, sleeps that long). Control thread.
 * @return number of events handled.
 */
int cli_sock_poll(struct router *r, int timeout_ms);

/* Close every client and remove the socket file. */
void cli_sock_close(void);

#endif /* FR_CLI_SOCK_H */
