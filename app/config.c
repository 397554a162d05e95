/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config files: CLI commands, one per line, '#' comments. Every line is
 * parsed and checked before the first one runs (a syntax error, or a line
 * that has no place in a file, touches nothing); a pipe or FIFO is copied
 * to a temporary file first, to be read twice. Then
 * all run in one transaction, so a line the tables refuse rolls back the
 * lines before it. Commands are parsed again in the second pass rather than
 * kept, so a million-route file needs no memory for them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_cycles.h>

#include "cmd.h"
#include "router.h"

#define PROGRESS_MIN_ROUTES 100000

struct load {
	struct router *r;
	struct txn *t; /* NULL in the parse-only pass */
	const char *path;
	char *err;
	size_t errlen;
	unsigned int cmds, routes, done;
	bool progress;
	uint64_t t0, last, hz;
};

static bool is_route(const struct cmd *c)
{
	return c->id == CMD_ROUTE_ADD || c->id == CMD_ROUTE_REPLACE;
}

static void progress_line(struct load *l)
{
	uint64_t now = rte_get_tsc_cycles();
	double s;

	if (now - l->last < l->hz / 2)
		return;
	l->last = now;
	s = (double)(now - l->t0) / (double)l->hz;
	fprintf(stderr, "\rfastroute: %s: %u/%u commands, %.0f/s", l->path, l->done, l->cmds,
		s > 0 ? (double)l->done / s : 0.0);
}

/* One pass over the file: parse each line, and run it when applying. */
static int pass(FILE *f, struct load *l, char **line, size_t *cap)
{
	char msg[CMD_ERR_LEN];
	unsigned int lineno = 0;
	struct cmd_out o = {0};
	struct cmd c;
	int rc;

	if (fseek(f, 0, SEEK_SET) != 0) {
		snprintf(l->err, l->errlen, "%s: %s", l->path, strerror(errno));
		return -EIO;
	}
	while (getline(line, cap, f) >= 0) {
		lineno++;
		rc = cmd_parse(*line, &c, msg, sizeof(msg));
		if (rc == -ENODATA)
			continue;
		if (rc == 0 && l->t == NULL) {
			/* what no table needs to see: refused before any line runs */
			rc = cmd_file_check(l->r, &c, msg, sizeof(msg));
			if (rc == 0) {
				l->cmds++;
				l->routes += is_route(&c);
				continue;
			}
		}
		if (rc == 0) {
			rc = cmd_exec(l->r, l->t, &c, CMD_SRC_FILE, &o, msg, sizeof(msg));
			l->done++;
			if (l->progress && (l->done & 0x3fff) == 0)
				progress_line(l);
			/* a running router's load of many lines: ARP, ND and
			 * held packets do not wait for its end, unless it
			 * changed port addresses (answered for before they
			 * are committed, and maybe rolled back) */
			if ((l->done & 0x3fff) == 0 && !txn_addr_changed(l->t))
				control_service(l->r);
		}
		if (rc != 0) {
			snprintf(l->err, l->errlen, "%s:%u: %s", l->path, lineno, msg);
			out_free(&o);
			return rc;
		}
	}
	out_free(&o);
	if (ferror(f)) {
		snprintf(l->err, l->errlen, "%s: read error", l->path);
		return -EIO;
	}
	return 0;
}

/* Replace the unseekable stream *@f (closed) by an unlinked temporary copy
 * of all it holds. */
static int spool(FILE **f, const char *path, char *err, size_t errlen)
{
	FILE *tmp = tmpfile();
	char buf[65536];
	size_t n;
	int rc = 0;

	if (tmp == NULL) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot copy it to read it twice: %s", path,
			 strerror(errno));
		fclose(*f);
		return rc;
	}
	while ((n = fread(buf, 1, sizeof(buf), *f)) > 0) {
		if (fwrite(buf, 1, n, tmp) != n) {
			rc = -errno;
			snprintf(err, errlen, "%s: cannot copy it to read it twice: %s", path,
				 strerror(errno));
			break;
		}
	}
	if (rc == 0 && ferror(*f)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: read error", path);
	}
	fclose(*f);
	if (rc != 0) {
		fclose(tmp);
		return rc;
	}
	*f = tmp;
	return 0;
}

int config_load(struct router *r, const char *path, bool progress, struct config_result *res,
		char *err, size_t errlen)
{
	struct load l = {.r = r, .path = path, .err = err, .errlen = errlen};
	uint64_t start = rte_get_tsc_cycles();
	char *line = NULL;
	size_t cap = 0;
	double s;
	FILE *f;
	int rc;

	if (r->running) {
		struct stat st;

		/* the control thread reads it: a FIFO without its writer, or a
		 * slow pipe, would stop the router's control work meanwhile */
		if (stat(path, &st) != 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return rc;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, errlen,
				 "%s: not a regular file (load reads files: a pipe would stall "
				 "the router until its writer ends; write it to a file, or give "
				 "it with -f at start)",
				 path);
			return -EINVAL;
		}
	}
	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	if (fseek(f, 0, SEEK_SET) != 0) {
		/* a pipe or FIFO (-f <(gen-routes ...)): read twice from a copy */
		rc = spool(&f, path, err, errlen);
		if (rc != 0)
			return rc;
	}
	rc = pass(f, &l, &line, &cap); /* syntax of every line first */
	if (rc != 0)
		goto out;
	l.progress = progress && l.routes >= PROGRESS_MIN_ROUTES;
	l.hz = rte_get_tsc_hz();
	l.t0 = l.last = rte_get_tsc_cycles();
	l.t = txn_begin(r);
	if (l.t == NULL) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	rc = pass(f, &l, &line, &cap);
	if (l.progress)
		fprintf(stderr, "\r%60s\r", "");
	if (rc != 0) {
		txn_rollback_said(l.t, err, errlen);
		goto out;
	}
	txn_commit(l.t);
	/* the whole load, both passes: what an operator waits for */
	s = (double)(rte_get_tsc_cycles() - start) / (double)l.hz;
	if (res != NULL) {
		res->cmds = l.cmds;
		res->routes = l.routes;
		res->seconds = s;
	}
	if (progress) {
		fprintf(stderr, "fastroute: %s: applied %u commands (%u routes) in %.2f s", path,
			l.cmds, l.routes, s);
		if (l.routes >= 1000 && s > 0)
			fprintf(stderr, ", %.0f routes/s", (double)l.routes / s);
		fprintf(stderr, "\n");
	}
out:
	free(line);
	fclose(f);
	return rc;
}
