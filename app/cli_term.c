/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interactive terminal on librte_cmdline's rdline: line editing and history
 * come from DPDK, completion and '?' help from our command table. Every
 * entered line goes, as text, to the same parser that config files and the
 * socket use, so the terminal cannot drift from the other front ends.
 * (cmdline's own token instances cannot express "show route [PREFIX]" next
 * to "show route lookup ADDR" without ambiguity, so we complete ourselves.)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <cmdline_rdline.h>
#include <rte_common.h>

#include "cli_term.h"

#define MAX_WORDS 8

struct term_cmd {
	char *copy; /* storage for words */
	const char *word[MAX_WORDS];
	unsigned int nwords;
	char *usage;
	bool args;
};

struct cli_term {
	char prompt[32];
	cli_term_run_fn run;
	void *arg;
	struct rdline *rdl;
	struct term_cmd *cmds;
	unsigned int n, cap;
	struct termios saved;
	bool raw, ended;
	/* completion choices being listed */
	const char *choice[64];
	const char *choice_help[64];
	unsigned int nchoice;
};

struct cli_term *cli_term_new(const char *prompt, cli_term_run_fn run, void *arg)
{
	struct cli_term *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	snprintf(t->prompt, sizeof(t->prompt), "%s", prompt);
	t->run = run;
	t->arg = arg;
	return t;
}

int cli_term_add(struct cli_term *t, const char *words, const char *usage, bool args)
{
	struct term_cmd *c;
	char *w, *save;

	if (t->n == t->cap) {
		unsigned int cap = t->cap ? t->cap * 2 : 32;
		struct term_cmd *nc = realloc(t->cmds, cap * sizeof(*nc));

		if (nc == NULL)
			return -ENOMEM;
		t->cmds = nc;
		t->cap = cap;
	}
	c = &t->cmds[t->n];
	memset(c, 0, sizeof(*c));
	c->copy = strdup(words);
	c->usage = strdup(usage);
	if (c->copy == NULL || c->usage == NULL) {
		free(c->copy);
		free(c->usage);
		return -ENOMEM;
	}
	for (w = strtok_r(c->copy, " ", &save); w && c->nwords < MAX_WORDS;
	     w = strtok_r(NULL, " ", &save))
		c->word[c->nwords++] = w;
	c->args = args;
	t->n++;
	return 0;
}

/* Collect the words that may come next after the complete words of @buf. */
static void candidates(struct cli_term *t, const char *buf, const char **partial)
{
	char copy[512], *tok[MAX_WORDS + 1], *save, *w;
	unsigned int ntok = 0, i, k;
	const char *last = strrchr(buf, ' ');

	*partial = last ? last + 1 : buf;
	snprintf(copy, sizeof(copy), "%.*s", (int)(*partial - buf), buf);
	for (w = strtok_r(copy, " ", &save); w && ntok <= MAX_WORDS; w = strtok_r(NULL, " ", &save))
		tok[ntok++] = w;
	t->nchoice = 0;
	for (i = 0; i < t->n; i++) {
		const struct term_cmd *c = &t->cmds[i];
		const char *next, *help = NULL;

		if (ntok > c->nwords)
			continue;
		for (k = 0; k < ntok; k++)
			if (strcmp(c->word[k], "*") != 0 && strcmp(c->word[k], tok[k]) != 0)
				break;
		if (k < ntok)
			continue;
		if (ntok == c->nwords) {
			if (!c->args || **partial)
				continue;
			next = "<args>"; /* the command is complete: show what follows */
			help = c->usage;
		} else {
			next = strcmp(c->word[ntok], "*") == 0 ? "N" : c->word[ntok];
			if (strncmp(next, *partial, strlen(*partial)) != 0)
				continue;
		}
		for (k = 0; k < t->nchoice; k++)
			if (strcmp(t->choice[k], next) == 0)
				break;
		if (k == t->nchoice && t->nchoice < RTE_DIM(t->choice)) {
			t->choice_help[t->nchoice] = help;
			t->choice[t->nchoice++] = next;
		}
	}
}

/* rdline's contract: return RDLINE_RES_COMPLETE with text to insert, or list
 * choices one per call (return 1) while *state iterates, 0 when done. */
static int term_complete(struct rdline *rdl, const char *buf, char *dst, unsigned int size,
			 int *state)
{
	struct cli_term *t = rdline_get_opaque(rdl);
	const char *partial;
	unsigned int i;
	size_t common;

	if (*state <= 0) {
		candidates(t, buf, &partial);
		if (t->nchoice == 0)
			return 0;
		/* TAB: extend the word as far as the candidates agree */
		if (*state == 0 && strcmp(t->choice[0], "<args>") != 0 &&
		    strcmp(t->choice[0], "N") != 0) {
			common = strlen(t->choice[0]);
			for (i = 1; i < t->nchoice; i++) {
				size_t k = 0;

				while (k < common && t->choice[i][k] == t->choice[0][k])
					k++;
				common = k;
			}
			if (common > strlen(partial)) {
				snprintf(dst, size, "%.*s%s", (int)(common - strlen(partial)),
					 t->choice[0] + strlen(partial),
					 t->nchoice == 1 ? " " : "");
				return RDLINE_RES_COMPLETE;
			}
		}
		*state = 1;
	}
	i = (unsigned int)*state - 1;
	if (i >= t->nchoice)
		return 0;
	if (t->choice_help[i] != NULL)
		snprintf(dst, size, "%s", t->choice_help[i]);
	else
		snprintf(dst, size, "%s", t->choice[i]);
	(*state)++;
	return 1;
}

/* rdline's echo, prompt and completions, a byte at a time: never waiting
 * for the terminal (stopped with Ctrl-S, the control thread would stop
 * with it: ARP, ND, held packets, links, the socket's clients); what it
 * cannot take now is not echoed (the keys still count). */
static int term_write(struct rdline *rdl, char c)
{
	struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};

	(void)rdl;
	if (poll(&p, 1, 0) != 1 || !(p.revents & POLLOUT))
		return -1;
	return write(STDOUT_FILENO, &c, 1) == 1 ? 0 : -1;
}

/* rdline's line buffer (RDLINE_BUF_SIZE in DPDK, not in its public
 * header): the keys typed past it are dropped without a word, and the line
 * would run cut short (a route's last words lost: another route) */
#define TERM_LINE_MAX 512

static void term_say(const char *s)
{
	while (*s != '\0' && term_write(NULL, *s) == 0)
		s++;
}

/* (its 512: TERM_LINE_MAX) */
static const char too_long[] =
	"error: a line of 512 bytes fills this terminal, which drops what is typed past it: "
	"not run (a command of up to 1023 bytes: as fastroute-cli's arguments, on its stdin, "
	"or from a file with load)\n";

static void term_validate(struct rdline *rdl, const char *buf, unsigned int size)
{
	struct cli_term *t = rdline_get_opaque(rdl);
	char line[1024];

	/* the whole line (@size counts what is left of the cursor only) */
	(void)size;
	if (strcspn(buf, "\r\n") >= TERM_LINE_MAX) {
		term_say(too_long);
		return;
	}
	snprintf(line, sizeof(line), "%s", buf);
	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] != '\0')
		rdline_add_history(rdl, line);
	if (t->run(line, t->arg))
		t->ended = true;
}

int cli_term_start(struct cli_term *t)
{
	struct termios raw;

	t->rdl = rdline_new(term_write, term_validate, term_complete, t);
	if (t->rdl == NULL)
		return -ENOMEM;
	if (tcgetattr(STDIN_FILENO, &t->saved) == 0) {
		raw = t->saved;
		/* byte at a time, no echo; keep ISIG so Ctrl-C still stops things */
		raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0)
			t->raw = true;
	}
	rdline_newline(t->rdl, t->prompt);
	return 0;
}

const struct termios *cli_term_saved(const struct cli_term *t)
{
	return t->raw ? &t->saved : NULL;
}

/* Feed one byte; false when the session ends. */
static bool feed(struct cli_term *t, char c)
{
	int rc = rdline_char_in(t->rdl, c);

	if (rc == RDLINE_RES_VALIDATED && !t->ended)
		rdline_newline(t->rdl, t->prompt);
	if (rc == RDLINE_RES_EOF || rc == RDLINE_RES_EXITED)
		t->ended = true;
	return !t->ended;
}

bool cli_term_poll(struct cli_term *t)
{
	struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
	char buf[64];
	ssize_t n, i;

	if (t->rdl == NULL || t->ended)
		return false;
	/* not the terminal's foreground process group (a wrapper that did
	 * not exec the router was stopped with Ctrl-Z, the shell took the
	 * terminal back): the keystrokes are the shell's, and a read would
	 * fail (SIGTTIN is ignored: it would stop every worker) */
	if (tcgetpgrp(STDIN_FILENO) != getpgrp())
		return true;
	while (!t->ended && poll(&p, 1, 0) == 1) {
		n = read(STDIN_FILENO, buf, sizeof(buf));
		if (n <= 0) {
			t->ended = true;
			break;
		}
		for (i = 0; i < n && feed(t, buf[i]); i++)
			;
	}
	return !t->ended;
}

void cli_term_interact(struct cli_term *t)
{
	char c;

	while (t->rdl != NULL && !t->ended) {
		if (read(STDIN_FILENO, &c, 1) != 1)
			break;
		feed(t, c);
	}
	t->ended = true;
}

void cli_term_free(struct cli_term *t)
{
	unsigned int i;

	if (t == NULL)
		return;
	if (t->raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &t->saved);
	if (t->rdl != NULL) {
		/* as every write here, never waiting: a terminal stopped with
		 * Ctrl-S before its Ctrl-D would hold the control thread */
		term_say("\n");
		rdline_free(t->rdl);
	}
	for (i = 0; i < t->n; i++) {
		free(t->cmds[i].copy);
		free(t->cmds[i].usage);
	}
	free(t->cmds);
	free(t);
}
