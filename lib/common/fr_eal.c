/* SPDX-License-Identifier: BSD-3-Clause */
/* The removal of EAL's runtime directory at exit (fr_eal.h). */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>

#include "fr_eal.h"

static char runtime_dir[PATH_MAX];

/* The hugepage files of --file-prefix @prefix in every hugetlbfs mount
 * ("PREFIXmap_N"): DPDK 22.11 leaves them behind at exit (for secondaries
 * of a primary that is gone), and each holds its 2 MiB page until someone
 * deletes it or a primary of the same prefix starts again. A secondary's
 * own mappings outlive the names. */
static void hugepage_files_remove(const char *prefix)
{
	char line[PATH_MAX + 128], mnt[PATH_MAX], type[64], path[PATH_MAX * 2];
	size_t plen = strlen(prefix);
	FILE *f = fopen("/proc/mounts", "r");

	if (f == NULL || plen == 0)
		goto out;
	while (fgets(line, sizeof(line), f) != NULL) {
		struct dirent *e;
		DIR *d;

		if (sscanf(line, "%*s %4095s %63s", mnt, type) != 2 ||
		    strcmp(type, "hugetlbfs") != 0 || (d = opendir(mnt)) == NULL)
			continue;
		while ((e = readdir(d)) != NULL) {
			if (strncmp(e->d_name, prefix, plen) != 0 ||
			    strncmp(e->d_name + plen, "map_", 4) != 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", mnt, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
out:
	if (f != NULL)
		fclose(f);
}

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
	/* the prefix is the directory's last name (/var/run/dpdk/PREFIX) */
	{
		const char *slash = strrchr(runtime_dir, '/');

		hugepage_files_remove(slash != NULL ? slash + 1 : runtime_dir);
	}
}

/*
 * Does this process hold the write lock EAL's primary takes on @dir/config?
 * Read from /proc/locks: opening the file to ask (F_GETLK) and closing it
 * would drop the process's own POSIX lock with the descriptor. Matched by
 * inode and this pid, not by device: on btrfs /proc/locks gives the
 * filesystem's device, stat() a subvolume's.
 */
static bool config_lock_ours(const char *dir)
{
	char path[PATH_MAX + 16], line[256], kind[16], mode[16];
	unsigned long ino;
	bool ours = false;
	struct stat st;
	FILE *f;
	int pid;

	if ((size_t)snprintf(path, sizeof(path), "%s/config", dir) >= sizeof(path) ||
	    stat(path, &st) != 0 || (f = fopen("/proc/locks", "r")) == NULL)
		return false;
	while (!ours && fgets(line, sizeof(line), f) != NULL) {
		/* "1: POSIX  ADVISORY  WRITE 3014 fe:00:10953116 0 EOF"; a
		 * waiter's line holds "->" */
		if (strstr(line, "->") != NULL ||
		    sscanf(line, "%*d: %15s %*s %15s %d %*x:%*x:%lu", kind, mode, &pid, &ino) != 4)
			continue;
		ours = strcmp(kind, "POSIX") == 0 && strcmp(mode, "WRITE") == 0 &&
		       pid == (int)getpid() && ino == (unsigned long)st.st_ino;
	}
	fclose(f);
	return ours;
}

/* EAL's runtime directory, kept in runtime_dir, when this process holds
 * its config lock. A primary without shared config (--in-memory,
 * --no-shconf) holds none and owns nothing there: the directory, its
 * sockets and the prefix's hugepage files may be another process's
 * (OVS-DPDK's, on the default prefix). */
static bool runtime_dir_ours(void)
{
	const char *d = rte_eal_get_runtime_dir();

	return d != NULL && d[0] != '\0' &&
	       (size_t)snprintf(runtime_dir, sizeof(runtime_dir), "%s", d) < sizeof(runtime_dir) &&
	       config_lock_ours(runtime_dir);
}

void fr_eal_runtime_dir_remove_failed(void)
{
	if (runtime_dir_ours())
		runtime_dir_remove();
}

void fr_eal_runtime_dir_remove_at_exit(void)
{
	/* the directory is the primary process's (its lock, its sockets):
	 * a secondary leaves it to its owner */
	if (rte_eal_process_type() == RTE_PROC_PRIMARY && runtime_dir_ours())
		atexit(runtime_dir_remove);
}
