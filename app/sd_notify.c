/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sd_notify(3)'s datagram, written here: the protocol is one datagram of
 * "KEY=VALUE" lines to the AF_UNIX socket in $NOTIFY_SOCKET (a path, or
 * '@' for Linux's abstract namespace), and libsystemd would be one more
 * dependency for it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sd_notify.h"

int fr_sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	size_t len;
	ssize_t n;
	int fd, err;

	if (path == NULL || path[0] == '\0')
		return 0;
	len = strlen(path);
	/* a path of its own, or an abstract name; not AF_VSOCK's
	 * "vsock:CID:PORT" (a service manager outside a VM) */
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path))
		return -EAFNOSUPPORT;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (const struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
	err = n < 0 ? -errno : 1;
	close(fd);
	return err;
}

uint64_t fr_sd_watchdog_ms(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	if (usec == NULL || *usec < '0' || *usec > '9')
		return 0;
	errno = 0;
	v = strtoull(usec, &end, 10);
	if (errno != 0 || *end != '\0' || v == 0)
		return 0;
	/* another process's (sd_watchdog_enabled(3)'s rule) */
	if (pid != NULL && *pid != '\0') {
		unsigned long long want = strtoull(pid, &end, 10);

		if (*end != '\0' || want != (unsigned long long)getpid())
			return 0;
	}
	return v < 1000 ? 1 : v / 1000;
}
