/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Standard descriptors a parent left closed, for the daemon and the client.
 */
#ifndef FR_STD_FDS_H
#define FR_STD_FDS_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

/*
 * Open descriptors 0, 1 and 2 where a parent left them closed, before any
 * other file is opened: the next file or socket would take the number
 * (the CLI socket, a hugepage file), and what is written to stdout or
 * stderr would go into it (a client's answer sent back to the router as
 * commands). Each is opened on /dev/null; stdout read-only when
 * @out_fails, so that writing the answer fails as it would on a closed
 * one. False when one could not be.
 */
static inline bool std_fds_open(bool out_fails)
{
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* the lowest free number: this one, those below being open */
		if (open("/dev/null", fd == 0 || (fd == 1 && out_fails) ? O_RDONLY : O_WRONLY) !=
		    fd)
			return false;
	}
	return true;
}

#endif /* FR_STD_FDS_H */
