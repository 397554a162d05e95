/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CLI socket server: epoll, non-blocking sockets, one request line at a
 * time per client, bounded input, answers buffered until the client reads
 * them. A slow or idle client never blocks the control thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli_sock.h"
#include "cmd.h"
#include "router.h"

#define MAX_CLIENTS 1024
/* a client that leaves half a line, or does not read its answer, this long
 * gives its slot back (one that sends nothing is an idle session: kept) */
#define STALL_MS 30000
/* with every client slot taken, one idle this long (nothing half sent or
 * unread) gives its slot to a new client */
#ifndef IDLE_EVICT_MS /* a test's build shortens it */
#define IDLE_EVICT_MS 60000
#endif
/* Answers kept for clients that have not read them yet, all together: a
 * million routes' 'show route' is about 66 MB (96 MB in JSON), and clients
 * that ask and never read would otherwise take the router's memory */
#define PENDING_MAX ((size_t)256 << 20)
/* an answer this large or smaller is always kept (every command but the
 * big shows answers in a few bytes: a change is never refused its answer),
 * and so is any answer while no other waits (a table of millions); small
 * enough that those beyond PENDING_MAX stay bounded: 64 MiB for 1024
 * clients */
#define PENDING_SMALL ((size_t)64 << 10)
/* how long the clients' commands, all of them together, may hold the
 * control loop in one poll, as a load checks in every 20 ms
 * (control_service()) */
#define CLI_READ_SHARE_MS 20
/* connections taken (or refused) at most in one poll (accept_all()) */
#define ACCEPT_BATCH 64

struct client {
	int fd;
	struct cli_peer peer; /* who it is, as it connected */
	char in[CLI_MAX_LINE + 1];
	size_t inlen;
	/* the answer being written: its header, then its body (taken over
	 * from the command's output, not copied: a big one is not held
	 * twice), outlen bytes in all, outoff of them sent */
	char hdr[32];
	size_t hlen;
	char *out;
	size_t outlen, outoff;
	int closing;	  /* close once the output is written */
	int eof;	  /* sent all it will: close once its lines have run */
	int cut;	  /* its last line came without a newline (one was added) */
	uint64_t last_ms; /* the last bytes read or written, or line run */
	struct client *prev, *next;
};

static int lfd = -1, efd = -1;
/* a descriptor held back: with none left (EMFILE), it is given up for a
 * moment to take a client off the backlog and tell it, else the listening
 * socket stays readable and the loop never sleeps */
static int spare_fd = -1;
static unsigned int max_clients = MAX_CLIENTS;
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
/* the socket file this router made at sock_path: removed at the end only
 * while the path still names it (another router may have taken the path
 * since, once the file was deleted) */
static dev_t sock_dev;
static ino_t sock_ino;
/* some client holds lines a poll left for the next (client_run()) */
static bool backlog;
/* where the next backlog pass starts: the first client the last one had no
 * share left for (compared with the list's members only, never followed:
 * it may have gone since), so every client's lines get their turn however
 * busy the clients before it */
static const struct client *backlog_from;
static unsigned int nclients;
static size_t pending;	       /* bytes of the clients' answers not yet sent */
static struct client *clients; /* every open client, for cli_sock_close() */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int cli_sock_probe(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, rc;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	/* A socket file that accepts connections belongs to a running router.
	 * Non-blocking: a router whose backlog is full (its control thread
	 * stopped) would keep a blocking connect() waiting, signals and all;
	 * EAGAIN says it is there */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 || errno == EAGAIN ||
			     errno == EINPROGRESS
		     ? -EADDRINUSE
		     : -errno;
	close(fd);
	return rc;
}

int cli_sock_open(const char *path, int64_t gid)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct epoll_event ev = {.events = EPOLLIN};
	char dir[sizeof(sock_path)];
	bool chown_failed = false;
	struct stat st;
	char *slash;
	int rc;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(sock_path, sizeof(sock_path), "%s", path);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	/* its own directory made (/run/fastroute, /run being a tmpfs), not
	 * the parents: a mistyped path is refused, not made a tree */
	if (slash != NULL && slash != dir) {
		/* 0755 whatever the umask (a shell's 077): --socket-group's
		 * members must be able to reach the socket in it */
		mode_t old = umask(022);
		int made;

		*slash = '\0';
		made = mkdir(dir, 0755);
		umask(old);
		if (made != 0 && errno != EEXIST)
			return -errno;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);

	/* Only a socket is ever replaced: '-s router.conf' (for -f) must not
	 * delete the configuration */
	if (lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	/* stale only when nothing listens there (or it went meanwhile): a
	 * socket of another kind (a datagram one such as /dev/log:
	 * EPROTOTYPE), or one we may not reach, is someone's, left alone */
	rc = cli_sock_probe(path);
	if (rc != -ECONNREFUSED && rc != -ENOENT)
		return rc;
	if (unlink(path) != 0 && errno != ENOENT)
		return -errno;

	/* bound and listening under a temporary name, then linked to @path
	 * (which fails if another router took it meanwhile): the path never
	 * names a socket that refuses connections, which a client, or a
	 * second router judging the file stale, could otherwise meet between
	 * bind and listen */
	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.%d", path, (int)getpid()) >=
	    sizeof(sa.sun_path))
		memcpy(sa.sun_path, path, strlen(path) + 1); /* no room: bind in place */
	unlink(sa.sun_path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -errno;
	/* created 0660 from the start: no window in which others can connect */
	mode_t old = umask(0117);
	rc = bind(lfd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc != 0 || listen(lfd, 128) != 0)
		goto fail_tmp;
	/* --socket-group: its members may connect (mode 0660), before the
	 * socket has its name */
	if (gid >= 0 && chown(sa.sun_path, (uid_t)-1, (gid_t)gid) != 0) {
		chown_failed = true;
		goto fail_tmp;
	}
	if (strcmp(sa.sun_path, path) != 0) {
		if (link(sa.sun_path, path) != 0)
			goto fail_tmp;
		unlink(sa.sun_path);
	}
	if (lstat(path, &st) == 0) {
		sock_dev = st.st_dev;
		sock_ino = st.st_ino;
	}
	efd = epoll_create1(EPOLL_CLOEXEC);
	if (efd < 0)
		goto fail;
	ev.data.ptr = NULL; /* NULL: the listening socket */
	if (epoll_ctl(efd, EPOLL_CTL_ADD, lfd, &ev) != 0)
		goto fail;
	spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	{
		/* clients within the descriptors the process may open, DPDK's
		 * own (devices, sockets, hugepage files) left room */
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			max_clients = rl.rlim_cur > 256 + 16
					      ? (unsigned int)RTE_MIN((rlim_t)MAX_CLIENTS,
								      rl.rlim_cur - 256)
					      : 16;
	}
	return 0;
fail_tmp:
	rc = errno == EEXIST ? -EADDRINUSE : -errno;
	if (strcmp(sa.sun_path, path) != 0)
		unlink(sa.sun_path);
	close(lfd);
	lfd = -1; /* @path is not ours: cli_sock_close() must not unlink it */
	/* chown()'s own code: the option's fault, not the path's */
	return chown_failed && rc == -EPERM ? -CLI_SOCK_EGROUP : rc;
fail:
	rc = -errno;
	cli_sock_close();
	return rc;
}

static void client_close(struct client *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	epoll_ctl(efd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	pending -= c->outlen - c->outoff;
	free(c->out);
	free(c->peer.groups);
	free(c);
	nclients--;
}

/* Write what is pending; arm EPOLLOUT if the socket is full. 0 or -1 (closed). */
static int client_flush(struct client *c)
{
	struct epoll_event ev = {.data.ptr = c};
	const uint64_t t0 = now_ms();

	while (c->outoff < c->outlen) {
		struct iovec iov[2];
		struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 1};
		ssize_t n;

		if (c->outoff < c->hlen) {
			iov[0] = (struct iovec){c->hdr + c->outoff, c->hlen - c->outoff};
			iov[1] = (struct iovec){c->out, c->outlen - c->hlen};
			mh.msg_iovlen = 2;
		} else {
			iov[0] = (struct iovec){c->out + (c->outoff - c->hlen),
						c->outlen - c->outoff};
		}
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				ev.events = EPOLLOUT;
				epoll_ctl(efd, EPOLL_CTL_MOD, c->fd, &ev);
				return 0;
			}
			client_close(c);
			return -1;
		}
		c->outoff += (size_t)n;
		pending -= (size_t)n;
		c->last_ms = now_ms();
		/* a reader as fast as the writes of a big answer: the rest
		 * at the next poll (EPOLLOUT), the packets served between */
		if (c->outoff < c->outlen && c->last_ms - t0 >= CLI_READ_SHARE_MS) {
			ev.events = EPOLLOUT;
			epoll_ctl(efd, EPOLL_CTL_MOD, c->fd, &ev);
			return 0;
		}
	}
	free(c->out);
	c->out = NULL;
	c->outlen = c->outoff = 0;
	if (c->closing) {
		client_close(c);
		return -1;
	}
	ev.events = EPOLLIN;
	epoll_ctl(efd, EPOLL_CTL_MOD, c->fd, &ev);
	return 0;
}

/* Answer @c with @body (@len bytes); @take: where the caller holds @body
 * as its own allocation, taken over (set NULL) instead of copied. */
static void client_answer(struct client *c, int ok, const char *body, size_t len, char **take)
{
	char refused[200];
	int h;

	if (len > PENDING_SMALL && pending > 0 && pending + len > PENDING_MAX) {
		/* the command ran (a show: nothing changed); its answer is
		 * not kept while others wait to be read */
		ok = 0;
		len = (size_t)snprintf(refused, sizeof(refused),
				       "error: the answer (%zu KiB) is not kept: %zu MiB of "
				       "answers wait for their clients to read them (at most "
				       "%zu MiB); try again\n",
				       len >> 10, pending >> 20, PENDING_MAX >> 20);
		body = refused;
	}
	h = snprintf(c->hdr, sizeof(c->hdr), "%s %zu\n", ok ? "OK" : "ERR", len);
	if (take != NULL && *take == body) {
		c->out = *take;
		*take = NULL;
	} else {
		c->out = malloc(len > 0 ? len : 1);
		if (c->out == NULL) {
			c->closing = 1;
			return;
		}
		memcpy(c->out, body, len);
	}
	c->hlen = (size_t)h;
	c->outlen = (size_t)h + len;
	c->outoff = 0;
	pending += c->outlen;
}

/* Does @c hold a whole line not run yet? */
static bool client_has_line(const struct client *c)
{
	return memchr(c->in, '\n', c->inlen) != NULL;
}

/* Run complete lines from the input buffer while no answer is pending, until
 * the poll's share of the control loop (begun at @start) is spent: one line
 * at least (the lines left wait in the buffer for the next poll, which
 * serves them: cli_sock_poll()). A client that sent all it will is closed
 * once its lines have run and their answers gone. Returns -1 when the
 * client was closed (and freed). */
static int client_run(struct router *r, struct client *c, uint64_t start)
{
	struct cmd_out o = {0};
	char *nl;
	int rc;

	while (c->out == NULL && (nl = memchr(c->in, '\n', c->inlen)) != NULL) {
		char *line = c->in;
		size_t used = (size_t)(nl - c->in) + 1;
		char why[CMD_ERR_LEN];

		*nl = '\0';
		/* a NUL would cut the line short (and run another command than
		 * the one sent), other control bytes are no command's: not run */
		if (cmd_line_check(line, used - 1, why, sizeof(why)) != 0) {
			char ans[sizeof(why) + 32];

			snprintf(ans, sizeof(ans), "error: %s; not run\n", why);
			client_answer(c, 0, ans, strlen(ans), NULL);
			goto next;
		}
		o.json = false;
		line += strspn(line, " \t"); /* as the parser skips them */
		if (strncmp(line, "json", 4) == 0 &&
		    (line[4] == ' ' || line[4] == '\t' || line[4] == '\r' || line[4] == '\0')) {
			/* 'json' alone (or before a blank) names no command: an
			 * error, not the empty line's silent OK */
			if (line[4 + strspn(line + 4, " \t\r")] == '\0') {
				static const char msg[] =
					"error: json needs a command (json COMMAND)\n";

				client_answer(c, 0, msg, sizeof(msg) - 1, NULL);
				goto next;
			}
			o.json = true;
			line += 5;
		}
		out_reset(&o);
		/* the line the stream ended in without its newline: maybe cut
		 * short (a dropped ssh session, a killed generator), a prefix
		 * that parses as another command ('port 0 mtu 150' of 1500) */
		o.cut = c->cut && used == c->inlen;
		r->cli_peer = &c->peer; /* a load reads as this client may */
		rc = cmd_run_line(r, line, &o);
		r->cli_peer = NULL;
		if (o.oom) {
			static const char msg[] = "error: out of memory for the answer (the "
						  "command itself ran)\n";

			client_answer(c, 0, msg, sizeof(msg) - 1, NULL);
		} else {
			client_answer(c, rc == 0, o.buf ? o.buf : "", o.len, &o.buf);
			if (o.buf == NULL) /* taken: the next command's grows anew */
				o.len = o.cap = 0;
		}
		if (o.quit)
			c->closing = 1;
	next:
		memmove(c->in, c->in + used, c->inlen - used);
		c->inlen -= used;
		c->last_ms = now_ms();
		if (client_flush(c) != 0) {
			out_free(&o);
			return -1;
		}
		if (now_ms() - start >= CLI_READ_SHARE_MS) {
			backlog = true;
			break;
		}
	}
	out_free(&o);
	if (c->eof && c->out == NULL && !client_has_line(c)) {
		client_close(c);
		return -1;
	}
	return 0;
}

/* Read and run what @c sent, until the poll's share of the control loop,
 * begun at @start, is spent. */
static void client_read(struct router *r, struct client *c, uint64_t start)
{
	for (;;) {
		ssize_t n;

		if (c->inlen == sizeof(c->in) - 1 && memchr(c->in, '\n', c->inlen) == NULL) {
			static const char msg[] =
				"error: request line of 4095 bytes or more; connection closed\n";

			/* not a command we can parse: answer once and hang up */
			c->closing = 1;
			c->inlen = 0;
			client_answer(c, 0, msg, sizeof(msg) - 1, NULL);
			shutdown(c->fd, SHUT_RD);
			client_flush(c);
			return;
		}
		if (c->out != NULL)
			return; /* answer pending: read more once it is written */
		if (client_has_line(c)) {
			/* lines left from a poll whose share ran out: they
			 * run before more is read */
			if (client_run(r, c, start) != 0 || c->closing || client_has_line(c))
				return;
			continue;
		}
		n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - 1 - c->inlen, 0);
		if (n == 0 && (c->inlen > 0 || c->eof)) {
			/* the last line came without its newline (printf 'show
			 * stats' | socat ...): answered all the same, then
			 * the connection ends (client_run()) */
			if (c->inlen > 0) {
				c->in[c->inlen++] = '\n';
				c->cut = 1;
			}
			c->eof = 1;
			client_run(r, c, start);
			return;
		}
		if (n == 0 ||
		    (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			client_close(c);
			return;
		}
		if (n < 0)
			return;
		c->inlen += (size_t)n;
		c->last_ms = now_ms();
		if (client_run(r, c, start) != 0 || c->closing || client_has_line(c))
			return;
		/* a client that streams commands (socat < file) would keep the
		 * socket readable for as long as its file lasts: once the
		 * poll's share is spent, back to the control loop (ARP, ND,
		 * timers, links, a signal; the other clients next poll); what
		 * it sent next waits in the socket, which stays readable (the
		 * lines already read have all run) */
		if (now_ms() - start >= CLI_READ_SHARE_MS)
			return;
	}
}

/* Send @fd one error answer, "@word: @why", without waiting (what does not
 * fit in its socket now is not said). */
static void tell_error(int fd, const char *word, const char *why)
{
	char msg[128];
	int n = snprintf(msg, sizeof(msg), "ERR %zu\n%s: %s\n", strlen(word) + strlen(why) + 3,
			 word, why);

	if (n > 0 && send(fd, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* nothing more to tell it */
	}
}

/* Tell a client we cannot serve why, in one error answer whose body starts
 * "refused: " (fastroute-cli tells it from a command's error: nothing ran),
 * and hang up. */
static void refuse(int fd, const char *why)
{
	tell_error(fd, "refused", why);
	close(fd);
}

/* Who is at the other end of @fd, as it connected: 0 or a negative errno. */
static int peer_get(int fd, struct cli_peer *p)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	gid_t few[32];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
		return -errno;
	p->pid = uc.pid;
	p->uid = uc.uid;
	p->gid = uc.gid;
	/* its supplementary groups too (Linux 4.13): a file of a group it is
	 * in is one it may read */
	len = sizeof(few);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, few, &len) == 0) {
		if (len > 0) {
			p->groups = malloc(len);
			if (p->groups == NULL)
				return -ENOMEM;
			memcpy(p->groups, few, len);
		}
	} else if (errno == ERANGE) {
		/* more than 32: len says how many bytes they take */
		p->groups = malloc(len);
		if (p->groups == NULL)
			return -ENOMEM;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, p->groups, &len) != 0) {
			int rc = -errno;

			free(p->groups);
			p->groups = NULL;
			return rc;
		}
	} else {
		return 0; /* not told: its primary group only */
	}
	p->ngroups = len / sizeof(gid_t);
	p->groups_known = true;
	return 0;
}

/* @fd holds bytes the router has not read yet */
static bool unread(int fd)
{
	int n = 0;

	return ioctl(fd, FIONREAD, &n) == 0 && n > 0;
}

/* Every slot (or descriptor) taken: the client idle longest, when idle
 * IDLE_EVICT_MS or more, is told why and closed (forgotten sessions and
 * leaked connections would otherwise lock everyone out, root too, until a
 * restart). A client whose command waits in its socket, unread while a
 * long command ran, is not idle. True: one was. */
static bool evict_idle(void)
{
	struct client *c, *old = NULL;
	uint64_t now = now_ms();

	for (c = clients; c != NULL; c = c->next)
		if (c->out == NULL && c->inlen == 0 && !c->eof && !c->closing &&
		    now - c->last_ms >= IDLE_EVICT_MS &&
		    (old == NULL || c->last_ms < old->last_ms) && !unread(c->fd))
			old = c;
	if (old == NULL)
		return false;
	tell_error(old->fd, "closed", "idle, and every CLI client slot is taken");
	client_close(old);
	return true;
}

static void accept_all(void)
{
	unsigned int n;

	/* given back for a moment and taken by another thread meanwhile:
	 * tried again */
	if (spare_fd < 0 && lfd >= 0)
		spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* at most ACCEPT_BATCH a poll: clients that connect as fast as they
	 * are taken (or refused) must not keep the control thread from its
	 * packets and timers; the rest wait in the backlog, and epoll
	 * reports the socket again at the next poll */
	for (n = 0; n < ACCEPT_BATCH; n++) {
		struct epoll_event ev = {.events = EPOLLIN};
		struct client *c;
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && evict_idle())
			continue; /* a descriptor given back: accepted now */
		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && spare_fd >= 0) {
			close(spare_fd);
			fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
			spare_fd = -1;
			if (fd >= 0)
				refuse(fd, "no file descriptors left now");
			spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			/* the kernel says EMFILE before it looks at the backlog:
			 * with nobody waiting, this round is over */
			if (fd < 0)
				return;
			continue;
		}
		if (fd < 0)
			return;
		if (nclients >= max_clients)
			evict_idle();
		if (nclients >= max_clients || (c = calloc(1, sizeof(*c))) == NULL) {
			refuse(fd, "too many CLI clients now");
			continue;
		}
		if (peer_get(fd, &c->peer) != 0) {
			refuse(fd, "cannot tell who is connecting (SO_PEERCRED)");
			free(c);
			continue;
		}
		c->fd = fd;
		c->last_ms = now_ms();
		ev.data.ptr = c;
		if (epoll_ctl(efd, EPOLL_CTL_ADD, fd, &ev) != 0) {
			close(fd);
			free(c->peer.groups);
			free(c);
			continue;
		}
		nclients++;
		c->next = clients;
		if (clients)
			clients->prev = c;
		clients = c;
	}
}

/* Clients stalled half way (a partial line, an answer not read) go; after
 * the poll's events, so what arrived meanwhile counted first. @start: when
 * this poll began. */
static void clients_sweep(uint64_t start)
{
	static uint64_t next, last_end;
	uint64_t now = now_ms();
	struct client *c, *nx;

	/* a long command (in this poll, or between polls: the router's own
	 * terminal) kept the router from serving anyone: the others get a
	 * second of polls to show they are alive */
	if (now - start > 1000 || (last_end != 0 && start - last_end > 1000))
		next = now + 1000;
	last_end = now;
	if (now < next)
		return;
	next = now + 1000;
	for (c = clients; c != NULL; c = nx) {
		nx = c->next;
		if ((c->out != NULL || c->inlen > 0) && now - c->last_ms >= STALL_MS)
			client_close(c);
	}
}

/* where the next poll starts in what epoll reports, which comes in the same
 * order while the same clients stay ready */
static unsigned int turn;

int cli_sock_poll(struct router *r, int timeout_ms)
{
	struct epoll_event evs[32];
	uint64_t start = now_ms();
	bool connecting = false;
	int n, k;

	if (efd < 0) {
		/* no socket (-s none): the wait still paces the control loop,
		 * which would otherwise spin a CPU */
		if (timeout_ms > 0) {
			struct timespec ts = {.tv_sec = timeout_ms / 1000,
					      .tv_nsec = (long)(timeout_ms % 1000) * 1000000L};

			nanosleep(&ts, NULL);
		}
		return 0;
	}
	n = epoll_wait(efd, evs, RTE_DIM(evs), backlog ? 0 : timeout_ms);
	for (k = 0; k < n; k++) {
		int i = (int)((k + turn) % (unsigned int)n);
		struct client *c = evs[i].data.ptr;

		/* one share of the control loop for all clients: spent, the
		 * rest wait for the next poll (epoll reports them again),
		 * which starts one further on */
		if (now_ms() - start >= CLI_READ_SHARE_MS)
			break;
		if (c == NULL) {
			/* accepted once the batch is served: a full house
			 * evicts an idle client (evict_idle()), and one whose
			 * event is later in evs[] would be served freed */
			connecting = true;
			continue;
		}
		if (evs[i].events & EPOLLOUT) {
			if (client_flush(c) != 0)
				continue;
			client_run(r, c, start);
			continue;
		}
		if ((evs[i].events & (EPOLLHUP | EPOLLERR)) && c->out != NULL) {
			/* hung up (or failed) with an answer it can no longer
			 * read: no EPOLLOUT will come, and the hang-up would be
			 * reported at every wait */
			client_close(c);
			continue;
		}
		if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			client_read(r, c, start);
	}
	turn++;
	if (connecting)
		accept_all();
	/* lines a poll left over when its share ran out: no event comes for
	 * them (their bytes were read), so they are served here, while the
	 * share lasts, and the next poll does not wait */
	if (backlog) {
		struct client *c, *nx;
		const unsigned int nc = nclients;
		unsigned int i;

		backlog = false;
		c = clients;
		while (c != NULL && c != backlog_from)
			c = c->next;
		if (c == NULL) /* gone: from the head */
			c = clients;
		backlog_from = NULL;
		/* the list once round, from there (a client that closes
		 * shortens it: one may then be looked at twice, harmlessly;
		 * client_run() closes none but its own) */
		for (i = 0; i < nc && c != NULL; i++, c = nx) {
			nx = c->next != NULL ? c->next : clients;
			if (c->out != NULL || !client_has_line(c))
				continue;
			if (now_ms() - start < CLI_READ_SHARE_MS) {
				client_run(r, c, start);
				continue;
			}
			if (backlog_from == NULL)
				backlog_from = c;
			backlog = true;
		}
	}
	clients_sweep(start);
	return n > 0 ? n : 0;
}

void cli_sock_close(void)
{
	while (clients != NULL)
		client_close(clients);
	if (efd >= 0)
		close(efd);
	if (lfd >= 0) {
		struct stat st;

		close(lfd);
		if (lstat(sock_path, &st) == 0 && st.st_dev == sock_dev && st.st_ino == sock_ino)
			unlink(sock_path);
	}
	if (spare_fd >= 0)
		close(spare_fd);
	efd = lfd = spare_fd = -1;
}
