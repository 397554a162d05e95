/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config files: CLI commands, one per line, '#' comments. Every line is
 * parsed before the first one runs; then all run in one transaction, so a
 * file with any bad line leaves the router exactly as it was.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "cmd.h"
#include "router.h"

int config_load(struct router *r, const char *path, bool progress, char *err, size_t errlen)
{
	char msg[CMD_ERR_LEN];
	struct cmd *cmds = NULL, *nc;
	size_t n = 0, cap = 0, i, linelen = 0;
	unsigned int lineno = 0, nroutes = 0;
	struct cmd_out o = {0};
	char *line = NULL;
	struct txn *t;
	ssize_t len;
	FILE *f;
	int rc = 0;
	uint64_t t0, hz = rte_get_tsc_hz(), last;

	f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while ((len = getline(&line, &linelen, f)) >= 0) {
		lineno++;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			nc = realloc(cmds, cap * sizeof(*cmds));
			if (nc == NULL) {
				rc = -ENOMEM;
				snprintf(err, errlen, "%s:%u: out of memory", path, lineno);
				goto out;
			}
			cmds = nc;
		}
		rc = cmd_parse(line, &cmds[n], msg, sizeof(msg));
		if (rc == -ENODATA) {
			rc = 0;
			continue;
		}
		if (rc != 0) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, msg);
			goto out;
		}
		cmds[n].line = lineno;
		if (cmds[n].id == CMD_ROUTE_ADD || cmds[n].id == CMD_ROUTE_REPLACE)
			nroutes++;
		n++;
	}
	if (ferror(f)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: read error", path);
		goto out;
	}

	t = txn_begin(r);
	if (t == NULL) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	t0 = last = rte_get_tsc_cycles();
	for (i = 0; i < n; i++) {
		rc = cmd_exec(r, t, &cmds[i], CMD_SRC_FILE, &o, msg, sizeof(msg));
		if (rc != 0) {
			snprintf(err, errlen, "%s:%u: %s", path, cmds[i].line, msg);
			if (progress && nroutes >= 100000)
				fprintf(stderr, "\n");
			txn_rollback(t);
			goto out;
		}
		if (progress && nroutes >= 100000 && (i & 0x3fff) == 0) {
			uint64_t now = rte_get_tsc_cycles();

			if (now - last > hz / 2) {
				double s = (double)(now - t0) / (double)hz;

				fprintf(stderr, "\rfastroute: %s: %zu/%zu lines, %.0f lines/s",
					path, i, n, s > 0 ? (double)i / s : 0.0);
				last = now;
			}
		}
	}
	txn_commit(t);
	if (progress) {
		double s = (double)(rte_get_tsc_cycles() - t0) / (double)hz;

		fprintf(stderr, "%sfastroute: %s: applied %zu commands (%u routes) in %.2f s%s\n",
			nroutes >= 100000 ? "\r" : "", path, n, nroutes, s,
			nroutes >= 100000 ? "                    " : "");
		if (nroutes >= 1000 && s > 0)
			fprintf(stderr, "fastroute: %.0f routes/s\n", (double)nroutes / s);
	}
out:
	out_free(&o);
	free(line);
	free(cmds);
	fclose(f);
	return rc;
}
