/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interactive terminal on DPDK's cmdline library (as testpmd): prompt, line
 * editing, history, tab completion of command words, '?' for help. The
 * command words come from the caller (the router's command table, or what a
 * router told fastroute-cli); each entered line goes to @run as text.
 */
#ifndef FR_CLI_TERM_H
#define FR_CLI_TERM_H

#include <stdbool.h>
#include <termios.h>

struct cli_term;

/* @run gets each line; it returns true to end the session. */
typedef bool (*cli_term_run_fn)(const char *line, void *arg);

struct cli_term *cli_term_new(const char *prompt, cli_term_run_fn run, void *arg);

/*
 * Add a command: @words are its fixed words ('*' stands for any one word,
 * such as a port number); @args: whether arguments follow; @usage is shown
 * by '?'. @return 0 or -ENOMEM.
 */
int cli_term_add(struct cli_term *t, const char *words, const char *usage, bool args);

/* Start reading the terminal on stdin (raw mode). @return 0 or -errno. */
int cli_term_start(struct cli_term *t);
/* The terminal's settings before cli_term_start() put it in raw mode, or
 * NULL when it did not (not a terminal): for a signal handler to put them
 * back. */
const struct termios *cli_term_saved(const struct cli_term *t);

/* Handle pending keystrokes without blocking. @return false once the session ended. */
bool cli_term_poll(struct cli_term *t);

/* Block until the session ends. */
void cli_term_interact(struct cli_term *t);

/* Restore the terminal and free everything. */
void cli_term_free(struct cli_term *t);

#endif /* FR_CLI_TERM_H */
