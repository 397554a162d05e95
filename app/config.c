/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Config files: CLI commands, one per line, '#' comments; a line with a
 * NUL or another control byte is refused, as on the socket. Every line is
 * parsed and checked before the first one runs (a syntax error, or a line
 * that has no place in a file, touches nothing); a pipe or FIFO is copied
 * to a temporary file first, to be read twice. Then
 * all run in one transaction, so a line the tables refuse rolls back the
 * lines before it. Commands are parsed again in the second pass rather than
 * kept, so a million-route file needs no memory for them.
 *
 * What is read: the daemon reads as root, a file named by anyone who may
 * use the CLI socket, on the control thread. So only regular files on disk
 * (no file of /proc, /sys, tracefs...: some wait for ever to be read), a
 * pipe, FIFO or character device at start only (-f), and for a socket
 * client that is not root only a file it could read itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "cli_sock.h"
#include "cmd.h"
#include "cmd_replace.h"
#include "fr_kset.h"
#include "router.h"

#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC 0x62656570 /* the kernel's configfs.h, not its UAPI */
#endif
#ifndef FUSECTL_SUPER_MAGIC
#define FUSECTL_SUPER_MAGIC 0x65735543
#endif

#define PROGRESS_MIN_ROUTES 100000

/* A neighbour a file's 'neigh add' line sets (the first pass), by address
 * and port: a second line for it would replace it unseen. */
struct nline {
	struct nkey {
		struct fr_addr addr; /* (its padding zeroed: compared whole) */
		uint16_t port;
	} k;
	unsigned int line; /* its 'neigh add' line; 0: 'neigh del' since */
};

struct load {
	struct router *r;
	struct txn *t; /* NULL in the parse-only pass */
	const char *path;
	char *err;
	size_t errlen;
	unsigned int cmds, routes, done;
	struct cfg_replace *rp; /* configure replace: what the file adds and sets */
	bool progress;
	bool tty;   /* stderr a terminal: the progress line redrawn in place */
	bool drawn; /* a progress line is on the terminal */
	uint64_t t0, last, hz;
	uint64_t served;       /* TSC of the last control_service() */
	struct fr_kset neighs; /* struct nline; cap 0 until the first */
	struct fr_kset sets;   /* struct sline; cap 0 until the first */
	struct cmd_out warn;   /* the lines' warnings, "FILE:LINE: warning: ..." */
};

/* A setting a file's line sets (the first pass), by cmd_settings()'s key. */
struct sline {
	uint32_t key;
	unsigned int line;
};

void (*config_between_passes)(const char *path);

/* 'neigh add' or 'neigh del' line @c, the file's @lineno: a second 'neigh
 * add' for a neighbour (with no 'neigh del' of it between) refused with
 * the line of the first, not kept silently over it. 0, -EEXIST or
 * -ENOMEM with @err. */
static int neigh_line(struct fr_kset *nl, const struct cmd *c, unsigned int lineno, char *err,
		      size_t errlen)
{
	char buf[FR_ADDR_STRLEN];
	struct nline *e;
	struct nkey k;
	bool added;

	memset(&k, 0, sizeof(k));
	k.addr.family = c->addr.family;
	if (c->addr.family == AF_INET)
		k.addr.v4 = c->addr.v4;
	else
		memcpy(k.addr.v6, c->addr.v6, 16);
	k.port = (uint16_t)c->port;
	if (c->id == CMD_NEIGH_DEL) {
		e = fr_kset_get(nl, &k); /* NULL too before the first add */
		if (e != NULL)
			e->line = 0;
		return 0;
	}
	if ((nl->cap == 0 && fr_kset_init(nl, sizeof(*e), sizeof(k), 64) != 0) ||
	    (e = fr_kset_put(nl, &k, &added)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (e->line != 0) {
		snprintf(err, errlen,
			 "neighbour %s on port %u is set at line %u already: only one 'neigh add' "
			 "per neighbour ('neigh del' it first to set another)",
			 fr_addr_fmt(&c->addr, buf, sizeof(buf)), c->port, e->line);
		return -EEXIST;
	}
	e->line = lineno;
	return 0;
}

/*
 * Setting line @c (port N mtu, ra, hold-time, set ip martians, set neigh
 * PARAM...), the file's @lineno: a second line for a setting replaces the
 * first whole, the options it leaves out too (a second 'port N ra on'
 * drops the first's interval and DNS servers), which a reader of the file
 * may not expect: warned of, with the first's line (a file may mean it: an
 * MTU lowered then raised). 'port N down' then 'up' is a sequence, not a
 * setting given twice: no warning. 0, or -ENOMEM with @err.
 */
static int setting_line(struct load *l, const struct cmd *c, unsigned int lineno, char *err,
			size_t errlen)
{
	char names[CMD_SETTINGS_MAX][48];
	uint32_t key[CMD_SETTINGS_MAX];
	unsigned int i, n;

	if (c->id == CMD_PORT_ADMIN)
		return 0;
	n = cmd_settings(c, key, names[0], sizeof(names[0]));
	for (i = 0; i < n; i++) {
		struct sline *e;
		bool added;

		if ((l->sets.cap == 0 &&
		     fr_kset_init(&l->sets, sizeof(*e), sizeof(e->key), 16) != 0) ||
		    (e = fr_kset_put(&l->sets, &key[i], &added)) == NULL) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		/* a set neigh parameter is one value (the others a line
		 * leaves out keep theirs); any other setting is replaced
		 * whole */
		if (!added)
			out_printf(&l->warn, "%s:%u: warning: %s is set at line %u already: %s\n",
				   l->path, lineno, names[i], e->line,
				   c->id == CMD_SET_NEIGH
					   ? "this line's value replaces it"
					   : "this line replaces it whole (the options it leaves "
					     "out back to their defaults)");
		e->line = lineno;
	}
	return 0;
}

/*
 * A running router's load of many lines: ARP, ND, held packets and the
 * neighbours' timers do not wait for its end; served every 20 ms of it, in
 * both passes. Not once the load has changed port addresses: those would
 * be answered for before they are committed, and maybe rolled back; the
 * service manager's watchdog is told the router is alive all the same.
 */
static void serve(struct load *l)
{
	uint64_t now = rte_get_tsc_cycles();

	if (now - l->served < l->hz / 50)
		return;
	l->served = now;
	if (!txn_addr_changed(l->t))
		control_service(l->r);
	else if (l->r->running)
		control_watchdog(l->r, control_now_ms());
}

static bool is_route(const struct cmd *c)
{
	return c->id == CMD_ROUTE_ADD || c->id == CMD_ROUTE_REPLACE;
}

/* On a terminal, one line redrawn every half second; elsewhere (the
 * journal under systemd, a log file) a line of its own every 10 s: a
 * carriage return there would join the lines, and journald shows an entry
 * with one as "[blob data]", the start's summary or refusal with it. */
static void progress_line(struct load *l)
{
	uint64_t now = rte_get_tsc_cycles();
	double s;

	if (now - l->last < (l->tty ? l->hz / 2 : l->hz * 10))
		return;
	l->last = now;
	s = (double)(now - l->t0) / (double)l->hz;
	fprintf(stderr, "%sfastroute: %s: %u/%u commands, %.0f/s%s", l->tty ? "\r" : "", l->path,
		l->done, l->cmds, s > 0 ? (double)l->done / s : 0.0, l->tty ? "" : "\n");
	l->drawn = l->tty;
}

/* A UTF-8 byte order mark: an editor's first bytes, none of the file's
 * text (pass() skips it, replace_whole() too) */
#define UTF8_BOM "\xef\xbb\xbf"
#define BOM_LEN	 3

/* A line no command needs, comment and all: a file without newlines (a
 * binary, an image) is refused at its first line, not read whole first */
#define CONF_LINE_MAX (64 * 1024)

/* getline() that stops at CONF_LINE_MAX bytes: the line's length (its NUL
 * bytes kept, for cmd_line_check()), -1 at the file's end, -E2BIG for a
 * longer line, -ENOMEM, -EIO when the read failed (errno says why): in the
 * middle of a line too, whose start is no line of the file to run. */
static ssize_t line_read(FILE *f, char **line, size_t *cap)
{
	size_t len = 0;
	int ch;

	for (;;) {
		if (len + 2 > *cap) {
			size_t nc = *cap ? *cap * 2 : 256;
			char *nl;

			if (nc > CONF_LINE_MAX + 2)
				nc = CONF_LINE_MAX + 2;
			if (len + 2 > nc)
				return -E2BIG;
			nl = realloc(*line, nc);
			if (nl == NULL)
				return -ENOMEM;
			*line = nl;
			*cap = nc;
		}
		ch = getc_unlocked(f);
		if (ch == EOF) {
			if (ferror(f))
				return -EIO;
			break;
		}
		(*line)[len++] = (char)ch;
		if (ch == '\n')
			break;
	}
	if (len == 0)
		return -1;
	(*line)[len] = '\0';
	return (ssize_t)len;
}

/* What line @lineno's command said (@o: its warnings), each of its lines
 * kept with the file and line, @o emptied. */
static void warn_lines(struct load *l, unsigned int lineno, struct cmd_out *o)
{
	const char *s = o->buf;

	while (*s != '\0') {
		size_t n = strcspn(s, "\n");

		out_printf(&l->warn, "%s:%u: %.*s\n", l->path, lineno, (int)n, s);
		s += n + (s[n] == '\n');
	}
	out_reset(o);
}

/* One pass over the file: parse each line, and run it when applying. */
static int pass(FILE *f, struct load *l, char **line, size_t *cap)
{
	char msg[CMD_ERR_LEN];
	unsigned int lineno = 0;
	struct cmd_out o = {0};
	struct cmd c;
	ssize_t len;
	bool cut;
	int rc;

	if (fseek(f, 0, SEEK_SET) != 0) {
		snprintf(l->err, l->errlen, "%s: %s", l->path, strerror(errno));
		return -EIO;
	}
	while ((len = line_read(f, line, cap)) >= 0 || len < -1) {
		lineno++;
		if (len < 0) {
			const char *why = len == -E2BIG ? "a line of more than 65536 bytes (not a "
							  "configuration file?)"
					  : len == -EIO ? strerror(errno)
							: "out of memory";

			snprintf(l->err, l->errlen, "%s:%u: %s%s", l->path, lineno,
				 len == -EIO ? "read error: " : "", why);
			out_free(&o);
			return (int)len;
		}
		serve(l);
		/* a UTF-8 byte order mark that an editor put at the start of
		 * the file is none of its text */
		if (lineno == 1 && len >= BOM_LEN && memcmp(*line, UTF8_BOM, BOM_LEN) == 0) {
			len -= BOM_LEN;
			memmove(*line, *line + BOM_LEN, (size_t)len + 1);
		}
		/* as on the socket, its "\n" aside: a NUL would cut the line
		 * short, and run another command than the one written */
		cut = len == 0 || (*line)[len - 1] != '\n';
		if (!cut)
			len--;
		/* a last line without its newline: the file may have been
		 * cut short there (a copy or a generator that failed midway,
		 * a pipe's writer killed): 'mtu 150' of 'mtu 1500', or a
		 * comment whose lines after it were lost. Refused whatever it
		 * holds, in both passes, as configure replace and the socket
		 * refuse it (a byte order mark alone is an empty file). What
		 * is wrong inside the line is said first: a file of lone
		 * carriage returns is one such line */
		rc = cmd_line_check(*line, (size_t)len, msg, sizeof(msg));
		if (cut && len > 0 && (rc == 0 || rc == -ENODATA)) {
			rc = -EINVAL;
			snprintf(msg, sizeof(msg),
				 "the last line has no newline (a file cut short?): end the file "
				 "with a newline");
		}
		if (rc == 0)
			rc = cmd_parse(*line, &c, msg, sizeof(msg));
		if (rc == -ENODATA)
			continue;
		if (rc == 0 && l->t == NULL) {
			/* what no table needs to see: refused before any line runs */
			rc = cmd_file_check(l->r, &c, msg, sizeof(msg));
			if (rc == 0 && (c.id == CMD_NEIGH_ADD || c.id == CMD_NEIGH_DEL))
				rc = neigh_line(&l->neighs, &c, lineno, msg, sizeof(msg));
			if (rc == 0)
				rc = setting_line(l, &c, lineno, msg, sizeof(msg));
			if (rc == 0 && l->rp != NULL && replace_note(l->rp, &c) != 0) {
				rc = -ENOMEM;
				snprintf(msg, sizeof(msg), "out of memory");
			}
			if (rc == 0) {
				l->cmds++;
				l->routes += is_route(&c);
				continue;
			}
		}
		if (rc == 0) {
			rc = l->rp != NULL
				     ? replace_exec(l->rp, l->t, &c, &o, msg, sizeof(msg))
				     : cmd_exec(l->r, l->t, &c, CMD_SRC_FILE, &o, msg, sizeof(msg));
			l->done++;
			if (l->progress && (l->done & 0x3fff) == 0)
				progress_line(l);
			if (rc == 0 && o.len > 0)
				warn_lines(l, lineno, &o);
		}
		if (rc != 0) {
			snprintf(l->err, l->errlen, "%s:%u: %s", l->path, lineno, msg);
			out_free(&o);
			return rc;
		}
	}
	out_free(&o);
	return 0;
}

/* Wait in polls of 200 ms until @fd has bytes to read or its end: 1, or 0
 * when the router is told to stop meanwhile (a blocking open or read
 * restarts after the signal: SIGTERM would not stop a router whose writer
 * never comes, or stalls), or -errno. */
static int readable(struct router *r, int fd)
{
	struct pollfd pf = {.fd = fd, .events = POLLIN};
	int n;

	while (!r->quit) {
		n = poll(&pf, 1, 200);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

uint64_t config_spool_max = CONFIG_SPOOL_MAX;

/* Replace the unseekable stream *@f (closed) by an unlinked temporary copy
 * of all it holds. Read in polls of 200 ms, as config_open() waits for a
 * FIFO's writer: a writer that stalls (a generator that hangs, a terminal
 * left open) does not keep SIGTERM from stopping a router that is starting
 * (a blocking read restarts after the signal). */
static int spool(struct router *r, FILE **f, const char *path, char *err, size_t errlen)
{
	FILE *tmp = tmpfile();
	int fd = fileno(*f), rc = 0;
	uint64_t total = 0;
	char buf[65536];
	ssize_t n;

	if (tmp == NULL) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot copy it to read it twice: %s", path,
			 strerror(errno));
		fclose(*f);
		return rc;
	}
	/* nothing was read through *f yet: its buffer is empty, the
	 * descriptor is read directly */
	while (rc == 0) {
		n = readable(r, fd);
		if (n <= 0) {
			rc = n < 0 ? (int)n : -EINTR;
			snprintf(err, errlen, "%s: %s", path,
				 n < 0 ? strerror((int)-n) : "stopped while reading it");
			break;
		}
		n = read(fd, buf, sizeof(buf));
		if (n == 0)
			break; /* its end */
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			rc = -EIO;
			snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
			break;
		}
		total += (uint64_t)n;
		if (total > config_spool_max) {
			rc = -EFBIG;
			snprintf(err, errlen,
				 "%s: more than %" PRIu64
				 " bytes from a pipe: refused, nothing applied",
				 path, config_spool_max);
			break;
		}
		if (fwrite(buf, 1, (size_t)n, tmp) != (size_t)n) {
			rc = -errno;
			snprintf(err, errlen, "%s: cannot copy it to read it twice: %s", path,
				 strerror(errno));
		}
	}
	fclose(*f);
	if (rc != 0) {
		fclose(tmp);
		return rc;
	}
	*f = tmp;
	return 0;
}

/* Filesystems whose files are the kernel's, not data on disk: a read may
 * wait for ever (trace_pipe, /proc/kmsg), take what another reader was
 * owed, or set something off. */
static const struct {
	uint32_t magic;
	const char *name;
} pseudo_fs[] = {
	{PROC_SUPER_MAGIC, "proc"},
	{SYSFS_MAGIC, "sysfs"},
	{DEBUGFS_MAGIC, "debugfs"},
	{TRACEFS_MAGIC, "tracefs"},
	{SECURITYFS_MAGIC, "securityfs"},
	{SELINUX_MAGIC, "selinuxfs"},
	{SMACK_MAGIC, "smackfs"},
	{CGROUP_SUPER_MAGIC, "cgroup"},
	{CGROUP2_SUPER_MAGIC, "cgroup2"},
	{RDTGROUP_SUPER_MAGIC, "resctrl"},
	{BPF_FS_MAGIC, "bpf"},
	{PSTOREFS_MAGIC, "pstore"},
	{EFIVARFS_MAGIC, "efivarfs"},
	{BINFMTFS_MAGIC, "binfmt_misc"},
	{CONFIGFS_MAGIC, "configfs"},
	{FUSECTL_SUPER_MAGIC, "fusectl"},
	{NSFS_MAGIC, "nsfs"},
	{USBDEVICE_SUPER_MAGIC, "usbdevfs"},
};

/* The pseudo filesystem @fd is on (NULL: none), in @fs; -errno when it
 * cannot be told. */
static int pseudo_fs_of(int fd, const char **fs)
{
	struct statfs sfs;
	unsigned int i;

	*fs = NULL;
	if (fstatfs(fd, &sfs) != 0)
		return -errno;
	for (i = 0; i < RTE_DIM(pseudo_fs); i++)
		if ((uint32_t)sfs.f_type == pseudo_fs[i].magic)
			*fs = pseudo_fs[i].name;
	return 0;
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a pipe or FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a file";
}

/* The name of id @id in @db (/etc/passwd or /etc/group: the name is the
 * first field and the id the third in both), else the number. The local
 * files only: a directory service could keep the control thread waiting. */
static const char *id_name(const char *db, unsigned int id, char *buf, size_t len)
{
	FILE *f = fopen(db, "re");
	char *line = NULL, *colon, *num, *end;
	size_t cap = 0;

	snprintf(buf, len, "%u", id);
	if (f == NULL)
		return buf;
	while (getline(&line, &cap, f) > 0) {
		colon = strchr(line, ':');
		num = colon != NULL ? strchr(colon + 1, ':') : NULL;
		if (num == NULL || num[1] < '0' || num[1] > '9')
			continue;
		if (strtoul(num + 1, &end, 10) == id && *end == ':') {
			*colon = '\0';
			snprintf(buf, len, "%s", line);
			break;
		}
	}
	free(line);
	fclose(f);
	return buf;
}

/* "mode 0640 root:shadow" */
static void say_mode(const struct stat *st, char *buf, size_t len)
{
	char u[64], g[64];

	snprintf(buf, len, "mode %04o %s:%s", (unsigned int)(st->st_mode & 07777),
		 id_name("/etc/passwd", st->st_uid, u, sizeof(u)),
		 id_name("/etc/group", st->st_gid, g, sizeof(g)));
}

static bool peer_in_group(const struct cli_peer *p, gid_t gid)
{
	unsigned int i;

	if (gid == p->gid)
		return true;
	for (i = 0; i < p->ngroups; i++)
		if (p->groups[i] == gid)
			return true;
	return false;
}

/* May @p @what (S_IROTH read, S_IXOTH search) @st, by its mode bits as
 * the kernel weighs them: the owner's bits for its owner, the group's for
 * a member of its group, everyone's for the others. ACLs are not read. */
static bool peer_may(const struct cli_peer *p, const struct stat *st, mode_t what)
{
	if (st->st_uid == p->uid)
		return st->st_mode & (what << 6);
	if (peer_in_group(p, st->st_gid))
		return st->st_mode & (what << 3);
	return st->st_mode & what;
}

/*
 * The directories on the way to @name, in order ("." first for a relative
 * one, then "/" or "a", "/a" or "a/b", ... up to its last '/'), as client
 * @p meets them: 0 when it may search each; -EACCES when it may not search
 * one (said in @err, of @path); -ENOENT when one cannot be looked at or is
 * no directory (left in @dir, errno saying why).
 */
static int peer_dirs(const struct cli_peer *p, const char *name, const char *path, char *dir,
		     size_t dirlen, char *err, size_t errlen)
{
	char mode[160];
	struct stat ds;
	const char *s;

	for (s = name; s != NULL; s = strchr(s + 1, '/')) {
		size_t dl = s != name ? (size_t)(s - name) : name[0] == '/';

		if (dl == 0)
			snprintf(dir, dirlen, ".");
		else
			snprintf(dir, dirlen, "%.*s", (int)dl, name);
		if (stat(dir, &ds) != 0)
			return -ENOENT;
		if (!S_ISDIR(ds.st_mode)) {
			errno = ENOTDIR;
			return -ENOENT;
		}
		if (!peer_may(p, &ds, S_IXOTH)) {
			say_mode(&ds, mode, sizeof(mode));
			snprintf(err, errlen, "%s: user %u may not reach it (directory %s %s)",
				 path, (unsigned int)p->uid, dir, mode);
			return -EACCES;
		}
	}
	return 0;
}

/* A socket client that is not root loads only a file it could read
 * itself: each directory on the way to it searchable, the file readable.
 * @fd, @st: the file. */
static int peer_check(const struct cli_peer *p, int fd, const struct stat *st, const char *path,
		      char *err, size_t errlen)
{
	char proc[32], real[PATH_MAX], dir[PATH_MAX], mode[160];
	ssize_t n;
	int rc;

	/* where it is: its directories, not those of the name asked for
	 * (links), nor of a name renamed since */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, real, sizeof(real) - 1);
	if (n <= 0 || real[0] != '/' || st->st_nlink == 0) {
		snprintf(err, errlen,
			 "%s: cannot tell the directories that lead to it, to check user %u may "
			 "reach them",
			 path, (unsigned int)p->uid);
		return -EACCES;
	}
	real[n] = '\0';
	rc = peer_dirs(p, real, path, dir, sizeof(dir), err, errlen);
	if (rc == -ENOENT)
		snprintf(err, errlen, "%s: cannot check user %u may reach it (%s: %s)", path,
			 (unsigned int)p->uid, dir, strerror(errno));
	if (rc != 0)
		return -EACCES;
	if (!peer_may(p, st, S_IROTH)) {
		say_mode(st, mode, sizeof(mode));
		snprintf(err, errlen,
			 "%s: user %u may not read it (%s; a client loads only what the mode bits "
			 "let it read: as the owner, in the group%s, or as anyone)",
			 path, (unsigned int)p->uid, mode,
			 p->groups_known ? ""
					 : " (its primary group: this kernel does not tell "
					   "the others)");
		return -EACCES;
	}
	return 0;
}

/*
 * Before anything is said of @path to a client that is not root: its name
 * followed as the kernel follows it, symbolic links included, as far as
 * it exists; each directory looked into on the way must let the client
 * search it, else whether the file is there, or what it is, is not its to
 * learn (a missing file in /root, or behind a link into it, said as the
 * kernel would say it to that user). 0: the open may speak for itself (a
 * name missing past directories the client may search is its to know);
 * -EACCES, said in @err. The real path is checked again once opened
 * (peer_check()).
 */
static int peer_reach_name(const struct cli_peer *p, const char *path, char *err, size_t errlen)
{
	char done[PATH_MAX], todo[PATH_MAX], cand[PATH_MAX], link[PATH_MAX], mode[160];
	unsigned int links = 0;
	struct stat ds, ls;
	char *rest = todo, *c;
	ssize_t n;

	if (snprintf(todo, sizeof(todo), "%s", path) >= (int)sizeof(todo))
		return 0; /* the open says ENAMETOOLONG */
	snprintf(done, sizeof(done), "%s", path[0] == '/' ? "/" : ".");
	for (;;) {
		while (*rest == '/')
			rest++;
		if (*rest == '\0')
			return 0;
		c = rest;
		rest = strchr(c, '/');
		if (rest != NULL)
			*rest++ = '\0';
		else
			rest = c + strlen(c);
		if (strcmp(c, ".") == 0)
			continue;
		/* a name (".." too) is looked up in @done: searched */
		if (stat(done, &ds) != 0 || !S_ISDIR(ds.st_mode))
			return 0; /* the open says so, of a directory it may reach */
		if (!peer_may(p, &ds, S_IXOTH)) {
			say_mode(&ds, mode, sizeof(mode));
			snprintf(err, errlen, "%s: user %u may not reach it (directory %s %s)",
				 path, (unsigned int)p->uid, done, mode);
			return -EACCES;
		}
		if (snprintf(cand, sizeof(cand), "%s%s%s", done, strcmp(done, "/") ? "/" : "", c) >=
		    (int)sizeof(cand))
			return 0;
		if (lstat(cand, &ls) != 0)
			return 0; /* missing: the open says so */
		if (!S_ISLNK(ls.st_mode)) {
			memcpy(done, cand, sizeof(done)); /* ".." kept as a name: stat() walks it */
			continue;
		}
		/* a link: its target, then what followed it, from where it lies */
		n = readlink(cand, link, sizeof(link) - 1);
		if (++links > 40 || n <= 0)
			return 0; /* ELOOP, or the open says what it is */
		link[n] = '\0';
		if (snprintf(cand, sizeof(cand), "%s/%s", link, rest) >= (int)sizeof(cand))
			return 0;
		memcpy(todo, cand, sizeof(todo));
		rest = todo;
		if (link[0] == '/')
			snprintf(done, sizeof(done), "/");
	}
}

/*
 * Open @path for @r's load: on a running router, or for a socket client,
 * only a regular file on disk; at start (-f) also a pipe, FIFO or
 * character device. Nothing is opened to read before the file is judged:
 * a device's open may act, a FIFO's wait. @return the stream, or NULL and
 * *@rc set, @err filled.
 */
static FILE *config_open(struct router *r, const char *path, int *rc, char *err, size_t errlen)
{
	const struct cli_peer *peer = r->cli_peer;
	/* the control thread reads it: a FIFO without its writer, or a slow
	 * pipe, would stop the router's control work meanwhile */
	bool strict = r->running || peer != NULL;
	struct stat st, st2;
	const char *fs;
	char proc[32];
	int pfd, fd = -1, flags;
	FILE *f = NULL;

	*rc = 0;
	if (peer != NULL && peer->uid != 0) {
		*rc = peer_reach_name(peer, path, err, errlen);
		if (*rc != 0)
			return NULL;
	}
	/* O_PATH: the name resolved, once, and the file looked at; not
	 * opened yet */
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0 || fstat(pfd, &st) != 0) {
		*rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	*rc = pseudo_fs_of(pfd, &fs);
	if (*rc != 0) {
		snprintf(err, errlen, "%s: cannot tell its filesystem: %s", path, strerror(-*rc));
		goto out;
	}
	if (fs != NULL) {
		*rc = -EINVAL;
		snprintf(err, errlen, "%s: not a regular file on disk (%s)", path, fs);
		goto out;
	}
	if (strict && S_ISFIFO(st.st_mode)) {
		*rc = -EINVAL;
		snprintf(err, errlen,
			 "%s: not a regular file (load reads files: a pipe would stall the router "
			 "until its writer ends; write it to a file, or give it with -f at start)",
			 path);
		goto out;
	}
	if (!S_ISREG(st.st_mode) && (strict || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))) {
		*rc = -EINVAL;
		snprintf(err, errlen, "%s: not a regular file (%s)", path, file_kind(st.st_mode));
		goto out;
	}
	if (peer != NULL && peer->uid != 0) {
		*rc = peer_check(peer, pfd, &st, path, err, errlen);
		if (*rc != 0)
			goto out;
	}
	/* the file judged, opened to read through its O_PATH descriptor (not
	 * the name again, which may name another by now); no open waits (a
	 * FIFO's at start waits for its writer below) */
	flags = O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, flags);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, flags); /* no /proc: by name, the same file checked below */
	if (fd < 0 || fstat(fd, &st2) != 0) {
		*rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		*rc = -EAGAIN;
		snprintf(err, errlen, "%s: replaced while it was opened", path);
		goto out;
	}
	if (S_ISFIFO(st.st_mode)) {
		/* at start (-f): wait for its writer's first bytes (or its end) */
		int n = readable(r, fd);

		if (n <= 0) {
			*rc = n < 0 ? n : -EINTR;
			snprintf(err, errlen, "%s: %s", path,
				 n < 0 ? strerror(-n) : "stopped while waiting for its writer");
			goto out;
		}
	}
	/* reads wait for the disk as ever: O_NONBLOCK was for the open */
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0 && (flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	f = fdopen(fd, "r");
	if (f == NULL) {
		*rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	if (pfd >= 0)
		close(pfd);
	return f;
}

static void serve_cb(void *arg)
{
	serve(arg);
}

/*
 * Replace the regular file *@f (closed) by its bytes, read once into *@buf
 * (the caller frees it once *@f is closed): the second pass runs what the
 * first checked, whatever is written to the file meanwhile (an editor that
 * writes over it, a generator's '>' racing a load). At most
 * config_spool_max bytes, as a pipe's copy.
 */
static int slurp(FILE **f, char **buf, const char *path, char *err, size_t errlen)
{
	size_t cap = 65536, len = 0, n;
	char *b = malloc(cap), *nb;
	FILE *m;

	while (b != NULL && (n = fread(b + len, 1, cap - len, *f)) > 0) {
		len += n;
		if (len > config_spool_max) {
			snprintf(err, errlen,
				 "%s: more than %" PRIu64 " bytes: refused, nothing applied", path,
				 config_spool_max);
			free(b);
			fclose(*f);
			return -EFBIG;
		}
		if (len == cap) {
			nb = cap <= SIZE_MAX / 2 ? realloc(b, cap * 2) : NULL;
			if (nb == NULL) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	if (b == NULL) {
		snprintf(err, errlen, "%s: out of memory (to read it whole)", path);
		fclose(*f);
		return -ENOMEM;
	}
	if (ferror(*f)) {
		/* said of the line it failed in, as a line's read error */
		int e = errno;
		unsigned int lineno = 1;
		size_t i;

		for (i = 0; i < len; i++)
			lineno += b[i] == '\n';
		snprintf(err, errlen, "%s:%u: read error: %s", path, lineno, strerror(e));
		free(b);
		fclose(*f);
		return -EIO;
	}
	fclose(*f);
	m = fmemopen(b, len, "r");
	if (m == NULL) {
		int rc = -errno;

		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(b);
		return rc;
	}
	*f = m;
	*buf = b;
	return 0;
}

/*
 * configure replace removes what its file leaves out: a file cut short (a
 * copy or a generator that failed midway, read before it was done) would
 * remove what its lost end holds, an empty one everything. Refused: an
 * empty file, and one whose last line has no newline. A file meaning to
 * remove everything holds a comment line. 0, or -errno with @err.
 */
static int replace_whole(FILE *f, const char *path, char *err, size_t errlen)
{
	int c, last = EOF;
	long size;

	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    (size > 0 && (fseek(f, -1, SEEK_END) != 0 || (last = fgetc(f)) == EOF))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	/* its first byte that is no blank, EOF for none: blank lines alone
	 * are as empty (an 'echo "$(gen)"' whose generator failed), after a
	 * UTF-8 byte order mark as the load skips it (what an editor, or
	 * PowerShell's Out-File, writes first even when nothing follows) */
	rewind(f);
	if (size >= BOM_LEN) {
		char bom[BOM_LEN];

		if (fread(bom, 1, sizeof(bom), f) != sizeof(bom) ||
		    memcmp(bom, UTF8_BOM, BOM_LEN) != 0)
			rewind(f);
	}
	while ((c = fgetc(f)) == ' ' || c == '\t' || c == '\r' || c == '\n')
		;
	if (c == EOF && ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	if (c == EOF) {
		snprintf(err, errlen,
			 "%s: %s: it would remove every address, route, neighbour and setting (a "
			 "file meaning that holds a comment line)",
			 path, size == 0 ? "empty" : "blank lines only");
		return -EINVAL;
	}
	if (last != '\n') {
		snprintf(err, errlen,
			 "%s: its last line has no newline: a file cut short? It would remove what "
			 "the rest of it holds (end the file with a newline)",
			 path);
		return -EINVAL;
	}
	return 0;
}

/* config_load(), or with @replace config_replace() */
static int load_file(struct router *r, const char *path, bool progress, bool replace,
		     struct config_result *res, char *err, size_t errlen)
{
	uint64_t start = rte_get_tsc_cycles();
	struct load l = {.r = r,
			 .path = path,
			 .err = err,
			 .errlen = errlen,
			 .hz = rte_get_tsc_hz(),
			 .served = start};
	char *line = NULL, *bytes = NULL;
	size_t cap = 0;
	double s;
	FILE *f;
	int rc;

	f = config_open(r, path, &rc, err, errlen);
	if (f == NULL)
		return rc;
	/* read twice, from what cannot change between the reads: a pipe or
	 * FIFO (-f <(gen-routes ...)) from a copy, a file from memory */
	rc = fseek(f, 0, SEEK_SET) != 0 ? spool(r, &f, path, err, errlen)
					: slurp(&f, &bytes, path, err, errlen);
	if (rc != 0)
		return rc;
	if (replace) {
		rc = replace_whole(f, path, err, errlen);
		if (rc != 0)
			goto out;
		l.rp = replace_new(r);
		if (l.rp == NULL) {
			rc = -ENOMEM;
			snprintf(err, errlen, "%s: out of memory", path);
			goto out;
		}
	}
	rc = pass(f, &l, &line, &cap); /* syntax of every line first */
	if (rc != 0)
		goto out;
	if (config_between_passes != NULL)
		config_between_passes(path);
	l.progress = progress && l.routes >= PROGRESS_MIN_ROUTES;
	l.tty = isatty(STDERR_FILENO) == 1;
	l.t0 = l.last = rte_get_tsc_cycles();
	l.t = txn_begin(r);
	if (l.t == NULL) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	if (l.rp != NULL) {
		char msg[CMD_ERR_LEN];

		txn_replace(l.t, l.rp);
		rc = replace_prune(l.rp, l.t, serve_cb, &l, msg, sizeof(msg));
		if (rc == 0)
			rc = replace_settings(l.rp, l.t, msg, sizeof(msg));
		if (rc != 0)
			snprintf(err, errlen, "%s: %s", path, msg);
	}
	if (rc == 0)
		rc = pass(f, &l, &line, &cap);
	if (l.drawn)
		fprintf(stderr, "\r%60s\r", "");
	if (rc != 0) {
		txn_rollback_said(l.t, err, errlen);
		goto out;
	}
	if (l.rp != NULL)
		replace_order(l.rp);
	txn_commit(l.t);
	/* the whole load, both passes: what an operator waits for */
	s = (double)(rte_get_tsc_cycles() - start) / (double)l.hz;
	if (res != NULL) {
		res->cmds = l.cmds;
		res->routes = l.routes;
		res->seconds = s;
		res->unchanged = res->removed = res->reset = 0;
		if (res->warn != NULL && l.warn.len > 0)
			out_printf(res->warn, "%s", l.warn.buf);
		if (l.rp != NULL)
			replace_counts(l.rp, res);
	}
	if (progress) {
		fprintf(stderr, "fastroute: %s: applied %u command%s (%u route%s) in %.2f s", path,
			l.cmds, l.cmds == 1 ? "" : "s", l.routes, l.routes == 1 ? "" : "s", s);
		if (l.routes >= 1000 && s > 0)
			fprintf(stderr, ", %.0f routes/s", (double)l.routes / s);
		fprintf(stderr, "\n");
	}
out:
	replace_free(l.rp);
	fr_kset_free(&l.neighs);
	fr_kset_free(&l.sets);
	out_free(&l.warn);
	free(line);
	fclose(f);
	free(bytes);
	return rc;
}

int config_load(struct router *r, const char *path, bool progress, struct config_result *res,
		char *err, size_t errlen)
{
	return load_file(r, path, progress, false, res, err, errlen);
}

int config_replace(struct router *r, const char *path, struct config_result *res, char *err,
		   size_t errlen)
{
	return load_file(r, path, false, true, res, err, errlen);
}
