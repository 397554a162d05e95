/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CLI socket with every client slot taken: a client idle long enough
 * gives its slot to a new one and is told why, unless its command waits
 * unread in its socket; with none idle, the new one is refused and told
 * why; and an idle client that hangs up in the same
 * poll as a new client connects is served once, whichever of the two
 * events epoll lists first (it was freed by the eviction and then served).
 *
 * The socket code is built into this test with a short idle time, so its
 * file-scope state (client count, where a poll starts in the batch) can be
 * set up and read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define IDLE_EVICT_MS 300
#include "cli_sock.c"

struct router *fr_router;

/* 64 descriptors: 16 client slots (cli_sock_open()) */
#define SLOTS 16

static struct rlimit saved;
static char path[64];

static int setup(void **state)
{
	struct rlimit rl;

	(void)state;
	if (getrlimit(RLIMIT_NOFILE, &saved) != 0)
		return -1;
	rl = saved;
	rl.rlim_cur = 64;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	snprintf(path, sizeof(path), "/tmp/fr-unit-cli.%d.sock", (int)getpid());
	if (cli_sock_open(path, -1) != 0)
		return -1;
	return max_clients == SLOTS ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	cli_sock_close();
	setrlimit(RLIMIT_NOFILE, &saved);
	return 0;
}

static int dial(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* Poll until the router holds @want clients (at most a second). */
static void serve_until(unsigned int want)
{
	int i;

	for (i = 0; i < 100 && nclients != want; i++)
		cli_sock_poll(NULL, 10);
	assert_int_equal(nclients, want);
}

/* What the router said to @fd within @ms: "" if nothing. */
static const char *heard(int fd, int ms)
{
	static char buf[256];
	struct timeval tv = {.tv_sec = 0, .tv_usec = ms * 1000};
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Every slot taken: fds[0] idle longer than IDLE_EVICT_MS, the others
 * connected just now. */
static void fill(int *fds)
{
	int i;

	fds[0] = dial();
	serve_until(1);
	usleep((IDLE_EVICT_MS + 150) * 1000);
	for (i = 1; i < SLOTS; i++)
		fds[i] = dial();
	serve_until(SLOTS);
}

static void hang_up(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	serve_until(0);
}

static void idle_client_gives_its_slot(void **state)
{
	int fds[SLOTS], nfd;

	(void)state;
	fill(fds);
	nfd = dial();
	cli_sock_poll(NULL, 100);
	assert_int_equal(nclients, SLOTS);
	assert_string_equal(heard(fds[0], 500),
			    "ERR 49\nclosed: idle, and every CLI client slot is taken\n");
	/* the new client holds the slot: it is not refused, and the others
	 * were left alone */
	assert_string_equal(heard(nfd, 100), "");
	assert_string_equal(heard(fds[1], 10), "");
	close(fds[0]);
	fds[0] = nfd;
	hang_up(fds, SLOTS);
}

/* The client idle longest sent a command the router has not read yet (a
 * long command held the control thread meanwhile): it keeps its slot, and
 * is answered; the new client is refused. The line is one no command
 * takes (a control byte: answered without a router). evict_idle() is
 * asked directly, with the line unread: the poll after it reads the line
 * before it accepts the new client (a fresh line is no idle client
 * either way), so only that call fails without the check. */
static void unread_command_keeps_its_slot(void **state)
{
	int fds[SLOTS], nfd;

	(void)state;
	fill(fds);
	assert_int_equal(send(fds[0], "\x01\n", 2, 0), 2);
	assert_false(evict_idle());
	assert_int_equal(nclients, SLOTS);
	nfd = dial();
	cli_sock_poll(NULL, 100);
	cli_sock_poll(NULL, 100);
	assert_string_equal(heard(nfd, 500), "ERR 34\nrefused: too many CLI clients now\n");
	assert_non_null(strstr(heard(fds[0], 500), "not run"));
	assert_int_equal(nclients, SLOTS);
	close(nfd);
	hang_up(fds, SLOTS);
}

static void busy_house_refuses(void **state)
{
	int fds[SLOTS], nfd, i;

	(void)state;
	for (i = 0; i < SLOTS; i++)
		fds[i] = dial();
	serve_until(SLOTS);
	nfd = dial();
	cli_sock_poll(NULL, 100);
	assert_string_equal(heard(nfd, 500), "ERR 34\nrefused: too many CLI clients now\n");
	assert_int_equal(nclients, SLOTS);
	close(nfd);
	hang_up(fds, SLOTS);
}

/* The idle client hangs up as a new one connects: one poll holds both
 * events, served in either order (turn says which comes first). */
static void hang_up_while_evicted(void **state)
{
	unsigned int first;

	(void)state;
	for (first = 0; first < 2; first++) {
		int fds[SLOTS], nfd;

		fill(fds);
		close(fds[0]);
		fds[0] = -1;
		nfd = dial();
		turn = first;
		assert_int_equal(cli_sock_poll(NULL, 100), 2);
		/* the one that left is gone once, the new one took its
		 * place, the others are there */
		assert_int_equal(nclients, SLOTS);
		assert_string_equal(heard(nfd, 100), "");
		fds[0] = nfd;
		hang_up(fds, SLOTS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(idle_client_gives_its_slot),
		cmocka_unit_test(busy_house_refuses),
		cmocka_unit_test(hang_up_while_evicted),
		cmocka_unit_test(unread_command_keeps_its_slot),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
