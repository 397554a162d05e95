/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fastroute-cli: send commands to a running router over its CLI socket.
 *   fastroute-cli [-s PATH] [-j] [-t SEC] COMMAND...   one command; exit 0, or 1 if the
 *                                              router answered with an error
 *   fastroute-cli [-s PATH] [-j] [-t SEC]              read commands from stdin
 * Exit status 2: the router could not be reached, the connection was lost,
 * nothing came for --timeout seconds, or the answer could not be written.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli_term.h"
#include "std_fds.h"

#define DEFAULT_SOCKET "/run/fastroute/fastroute.sock"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fastroute-cli [-s PATH] [-j] [-t SEC] [COMMAND...]\n"
		"Send COMMAND to the fastroute router listening on PATH (default\n" DEFAULT_SOCKET
		") and print its answer; with no COMMAND, read\n"
		"commands from standard input, one per line, each run on its own: one\n"
		"refused does not stop the next (a file all or nothing: 'load FILE'), and\n"
		"a change on a last line without its newline (cut short?) is not run.\n"
		"Options go before COMMAND: the words after its first are the command's own.\n"
		"  -s, --socket PATH   the router's CLI socket\n"
		"  -j, --json          ask show commands, load and configure replace for JSON\n"
		"                      (another change answers only its warnings, if any)\n"
		"  -t, --timeout SEC   give up (exit 2) when the router accepts no connection\n"
		"                      or says nothing for SEC seconds, 0 to 86400 (default\n"
		"                      0: wait for ever); a command sent may still run after\n"
		"  -h, --help          this text\n"
		"Exit status: 0 ok, 1 the router reported an error, 2 no router, the\n"
		"connection refused (too many clients: nothing ran), closed as idle (the\n"
		"command not run) or lost, nothing said\n"
		"for --timeout seconds, standard output closed, or a bad option.\n");
}

/* the router went silent for --timeout seconds: said once, exit 2 (0:
 * wait for ever; the router answers a command only once it is done, and
 * serves none while it starts) */
static unsigned int timeout_s;
static int timed_out, out_closed, refused;
/* an answer's length past any router's: 64 GiB (a table's 'show route' in
 * JSON takes about 100 bytes a route: 6.7 GB at --max-routes' 2^26) */
#define ANSWER_LIMIT ((size_t)0xffffffffu << 4)
#define ANSWER_MAX   ((size_t)-1 / 2 < ANSWER_LIMIT ? (size_t)-1 / 2 : ANSWER_LIMIT)

static int read_full(int fd, char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = read(fd, buf, len);

		/* stopped and continued (^Z, fg): a read under SO_RCVTIMEO
		 * (--timeout) fails so, though no handler ran (signal(7)) */
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			timed_out = 1;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Write all @len bytes of @buf: 0, or -1 with errno. */
static int write_full(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Send one line of @n bytes (a NUL in it is sent too: the router refuses
 * such a line and says why, where "%s" would send a shorter command); the
 * answer's body goes to *body (caller frees) or is printed. 0 ok, 1 error
 * answer, 2 connection lost. */
/* @cut: @line ended standard input without its newline; it goes as it
 * came, and the writing side is shut, so the router knows it may have
 * been cut short (it answers a show, and runs no change from it) */
static int transact_ex(int fd, const char *line, size_t n, int json, int cut, char **body_out)
{
	char hdr[64];
	size_t hl = 0, len, blank = 0;
	char *body;
	int ok;

	timed_out = 0; /* said of this command only */
	while (blank < n && (line[blank] == ' ' || line[blank] == '\t' || line[blank] == '\r'))
		blank++;
	/* a failed write is not the end: a router that refused the
	 * connection (too many clients) said why before it hung up; one
	 * that took nothing for --timeout seconds is */
	/* -j: 'json' before a command, not before a blank line (alone, it
	 * names none: an error, where the blank line is an empty OK) */
	if ((json && blank < n && write_full(fd, "json ", 5) != 0) ||
	    write_full(fd, line, n) != 0 ||
	    (cut ? shutdown(fd, SHUT_WR) : write_full(fd, "\n", 1)) != 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			timed_out = 1;
			return 2;
		}
	}
	while (hl < sizeof(hdr) - 1) {
		if (read_full(fd, hdr + hl, 1) != 0)
			return 2;
		if (hdr[hl++] == '\n')
			break;
	}
	hdr[hl] = '\0';
	if (strncmp(hdr, "OK ", 3) == 0)
		ok = 1;
	else if (strncmp(hdr, "ERR ", 4) == 0)
		ok = 0;
	else
		return 2;
	{
		/* digits alone, and no more than a router sends
		 * (ANSWER_MAX): a length that is not one is no router's
		 * answer */
		const char *num = hdr + (ok ? 3 : 4);
		char *end;

		if (*num < '0' || *num > '9')
			return 2;
		errno = 0;
		len = strtoul(num, &end, 10);
		if (errno != 0 || *end != '\n' || len > ANSWER_MAX)
			return 2;
	}
	body = malloc(len + 1);
	if (body == NULL || read_full(fd, body, len) != 0) {
		free(body);
		return 2;
	}
	body[len] = '\0';
	if (!ok && strncmp(body, "refused: ", 9) == 0) {
		/* not a command's error: the router took no command */
		fprintf(stderr, "fastroute-cli: the router refused the connection: %s", body + 9);
		free(body);
		refused = 1;
		return 2;
	}
	if (!ok && strncmp(body, "closed: ", 8) == 0) {
		/* nor this: the router closed an idle connection (every
		 * client slot taken), before the command was read */
		fprintf(stderr, "fastroute-cli: the router closed the connection: %s", body + 8);
		free(body);
		refused = 1;
		return 2;
	}
	if (body_out != NULL) {
		*body_out = body;
		return ok ? 0 : 1;
	}
	errno = 0;
	fwrite(body, 1, len, ok ? stdout : stderr);
	free(body);
	/* the reader gone (fastroute-cli < script | head): no more commands */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		out_closed = errno != 0 ? errno : EPIPE; /* why, kept for the message */
		return 2;
	}
	return ok ? 0 : 1;
}

static int transact(int fd, const char *line, int json)
{
	return transact_ex(fd, line, strlen(line), json, 0, NULL);
}

/* The line ends the session at the router (quit or exit, as its parser
 * reads them: blanks, a trailing comment or CR aside). */
static bool ends_session(const char *line)
{
	size_t n;

	line += strspn(line, " \t");
	n = strcspn(line, " \t\r#");
	if ((n != 4 || strncmp(line, "quit", 4) != 0) && (n != 4 || strncmp(line, "exit", 4) != 0))
		return false;
	line += n;
	line += strspn(line, " \t\r");
	return *line == '\0' || *line == '#';
}

struct term_ctx {
	int fd, json, rc;
};

static bool term_run(const char *line, void *arg)
{
	struct term_ctx *t = arg;
	int c = transact(t->fd, line, t->json);

	if (c == 2) {
		t->rc = 2;
		return true;
	}
	if (c == 1)
		t->rc = 1;
	return ends_session(line);
}

/* Interactive, on a terminal: completion from the router's own command list. */
/* the terminal's own settings while the session holds it raw: a signal
 * that ends fastroute-cli (Ctrl-C, a hang-up) gives them back first */
static struct termios term_saved;
static volatile sig_atomic_t term_raw;

static void term_signal(int sig)
{
	if (term_raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &term_saved);
		(void)!write(STDOUT_FILENO, "\n", 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static int interactive(int fd, int json)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	const struct termios *saved;
	sigset_t block, old;
	unsigned int i;
	struct term_ctx ctx = {.fd = fd, .json = json};
	struct cli_term *t = cli_term_new("fastroute> ", term_run, &ctx);
	char *kw = NULL, *line, *save;

	if (t == NULL ||
	    transact_ex(fd, "help --keywords", strlen("help --keywords"), 0, 0, &kw) != 0) {
		fprintf(stderr, "fastroute-cli: the router did not list its commands\n");
		free(kw);
		cli_term_free(t);
		return 2;
	}
	for (line = strtok_r(kw, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *usage = strchr(line, '\t'), *args;

		if (usage == NULL)
			continue;
		*usage++ = '\0';
		args = strchr(usage, '\t');
		if (args != NULL)
			*args++ = '\0';
		cli_term_add(t, line, usage, args != NULL && *args == '1');
	}
	free(kw);
	/* held back from the terminal going raw (and its prompt shown) until
	 * the handler knows what to give back: a Ctrl-C typed at once comes
	 * then */
	sigemptyset(&block);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaddset(&block, sigs[i]);
		signal(sigs[i], term_signal);
	}
	sigprocmask(SIG_BLOCK, &block, &old);
	if (cli_term_start(t) != 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		cli_term_free(t);
		return 2;
	}
	saved = cli_term_saved(t);
	if (saved != NULL) {
		term_saved = *saved;
		term_raw = 1;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	cli_term_interact(t);
	term_raw = 0;
	cli_term_free(t);
	return ctx.rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"socket", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *path = NULL;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int c, fd, json = 0, rc = 0, t_seen = 0;

	/* stdout closed: the answer cannot be written out (exit 2 below),
	 * and the socket must not take its number */
	if (!std_fds_open(true))
		return 2;
	while ((c = getopt_long(argc, argv, "+s:jt:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			/* the last of two would be taken, silently, as the
			 * router refuses for its own options */
			if (path != NULL) {
				fprintf(stderr, "fastroute-cli: -s given twice\n");
				return 2;
			}
			if (*optarg == '\0') {
				fprintf(stderr, "fastroute-cli: -s needs a socket path, not an "
						"empty name\n");
				return 2;
			}
			path = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 't': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (t_seen++) {
				fprintf(stderr, "fastroute-cli: -t given twice\n");
				return 2;
			}

			if (*optarg < '0' || *optarg > '9' || *end != '\0' || v > 86400) {
				fprintf(stderr, "fastroute-cli: --timeout: seconds, 0-86400\n");
				return 2;
			}
			timeout_s = (unsigned int)v;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (path == NULL)
		path = DEFAULT_SOCKET;
	for (c = optind; c < argc; c++) {
		/* the router runs each line it gets: a second one would run
		 * unreported */
		if (strpbrk(argv[c], "\r\n") != NULL) {
			fprintf(stderr, "fastroute-cli: a command is one line: an argument holds a "
					"line break (give several on standard input)\n");
			return 2;
		}
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "fastroute-cli: socket path too long\n");
		return 2;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	/* a router gone between two commands: a failed write (exit 2), not
	 * a death by SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd >= 0 && timeout_s > 0) {
		/* the timeout covers the connection too: a router too busy to
		 * accept (its backlog full) keeps connect() waiting */
		struct timeval tv = {.tv_sec = timeout_s};

		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		if (fd >= 0 && timeout_s > 0 && (errno == EAGAIN || errno == EINPROGRESS))
			fprintf(stderr,
				"fastroute-cli: the router at %s accepted no connection for %u "
				"s (busy)\n",
				path, timeout_s);
		else
			fprintf(stderr, "fastroute-cli: cannot reach the router at %s: %s\n", path,
				strerror(errno));
		return 2;
	}
	if (optind < argc) {
		size_t len = 0;
		char *line;
		int i;

		for (i = optind; i < argc; i++)
			len += strlen(argv[i]) + 1;
		line = calloc(1, len + 1);
		if (line == NULL)
			return 2;
		for (i = optind; i < argc; i++) {
			strcat(line, argv[i]);
			if (i + 1 < argc)
				strcat(line, " ");
		}
		rc = transact(fd, line, json);
		free(line);
	} else if (isatty(STDIN_FILENO)) {
		rc = interactive(fd, json);
	} else {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		for (;;) {
			int cut = 0;

			n = getline(&line, &cap, stdin);
			if (n < 0)
				break;
			if (n > 0 && line[n - 1] == '\n')
				line[--n] = '\0';
			else
				cut = 1; /* the last, without its newline */
			c = transact_ex(fd, line, (size_t)n, json, cut, NULL);
			if (c == 2) {
				rc = 2;
				break;
			}
			if (c == 1)
				rc = 1;
			/* a line holding a NUL was refused: it ended nothing */
			if (strlen(line) == (size_t)n && ends_session(line))
				break;
		}
		free(line);
	}
	if (rc == 2 && out_closed)
		fprintf(stderr, "fastroute-cli: cannot write the answer (%s)%s\n",
			strerror(out_closed), optind < argc ? "" : ": no more commands sent");
	else if (rc == 2 && timed_out)
		fprintf(stderr,
			"fastroute-cli: the router at %s said nothing for %u s (starting, "
			"or busy; the command may still run)\n",
			path, timeout_s);
	else if (rc == 2 && !refused)
		fprintf(stderr, "fastroute-cli: connection to the router lost\n");
	close(fd);
	return rc;
}
