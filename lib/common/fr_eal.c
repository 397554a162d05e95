/* SPDX-License-Identifier: BSD-3-Clause */
/* The removal of EAL's runtime directory at exit (fr_eal.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

#include "fr_eal.h"

static char runtime_dir[PATH_MAX];

static void runtime_dir_remove(void)
{
	char path[PATH_MAX + 256];
	struct dirent *e;
	DIR *d = opendir(runtime_dir);

	if (d == NULL)
		return;
	/* flat: DPDK puts only files and its socket there */
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", runtime_dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(runtime_dir);
}

void fr_eal_runtime_dir_remove_at_exit(void)
{
	const char *d = rte_eal_get_runtime_dir();

	/* the directory is the primary process's (its lock, its sockets):
	 * a secondary leaves it to its owner */
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return;
	if (d == NULL || d[0] == '\0' ||
	    (size_t)snprintf(runtime_dir, sizeof(runtime_dir), "%s", d) >= sizeof(runtime_dir))
		return;
	atexit(runtime_dir_remove);
}
