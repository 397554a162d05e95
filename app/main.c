/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fastroute: DPDK userspace IPv4/IPv6 router.
 *   fastroute [EAL options] -- [-f CONFIG] [options]
 * The main lcore is the control thread (config, CLI, ARP/ND, slow path); every
 * other lcore is a forwarding worker.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pdump.h>
#include <rte_rcu_qsbr.h>
#include <rte_version.h>

#include "cli_sock.h"
#include "fr_eal.h"
#include "cli_term.h"
#include "cmd.h"
#include "control6.h"
#include "reasm.h"
#include "router.h"
#include "sd_notify.h"
#include "std_fds.h"
#include "telemetry.h"

struct router *fr_router;
static struct router the_router;

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [EAL options] -- [options]\n"
		"\n"
		"DPDK userspace IPv4/IPv6 router. The main lcore runs the control thread\n"
		"(config, CLI, ARP and ND, slow path); every other lcore (but EAL's service\n"
		"lcores, -s/-S) is a forwarding worker, polling one RX queue and owning one TX\n"
		"queue on every port EAL probed (--vdev or PCI NICs bound to vfio-pci). So\n"
		"-l 0-2 gives two workers and needs two queue pairs per port (net_af_packet:\n"
		"exactly qpairs=2).\n"
		"\n"
		"Options (each at most once):\n"
		"  -f, --config FILE      apply FILE at startup: configuration commands (port,\n"
		"                         route, neigh, set, rtcache), one per line, '#'\n"
		"                         comments. Any bad line: 'FILE:LINE: reason' on stderr,\n"
		"                         nothing applied, exit status 1.\n"
		"  -s, --socket PATH      CLI socket (default %s;\n"
		"                         'none' disables it; its directory is made, not the\n"
		"                         directory's parents). Use fastroute-cli -s PATH.\n"
		"      --socket-group G   the socket's group, a name or a number (default: the\n"
		"                         router's): its members may run every command (not\n"
		"                         with -s none)\n"
		"      --fib-backend B    'fib' (rte_fib DIR-24-8, default: fast inserts) or "
		"'lpm'\n"
		"                         (librte_lpm: slow inserts at Internet scale)\n"
		"      --max-routes N     IPv4 route capacity, 16 to 2^26 (default 1048576;\n"
		"                         about 400 bytes of DPDK memory a route: the default\n"
		"                         FIB takes about 540 MiB, 'show route summary' says\n"
		"                         how much)\n"
		"      --tbl8 N           tbl8 groups for routes longer than /24, 64 to 2^24\n"
		"                         (default 32767)\n"
		"      --max-routes6 N    IPv6 route capacity, 16 to 2^24 (default 65536)\n"
		"      --tbl8-6 N         IPv6 trie tbl8 groups the routes may take, 64 to 2^24\n"
		"                         (default 16384; a /48 may take three, a /64 five)\n"
		"      --max-nexthops N   distinct next hops, 16 to 2^24-1 (default 32767)\n"
		"                         Up to 32767 tbl8 groups (--tbl8-6: 32766, the trie\n"
		"                         keeping a spare on top) and 32767 next hops the\n"
		"                         FIB's entries take 2 bytes: tbl24 32 MiB, a tbl8\n"
		"                         group 512 B; above either, 4 bytes and twice that\n"
		"      --neigh-size N     neighbour table capacity, 16 to 2^24 (default 65536)\n"
		"      --mbufs N          mbufs per NUMA socket, 1024 to 2^26 (default: sized\n"
		"                         from ports, queues, workers and the configuration's\n"
		"                         'set neigh hold-total')\n"
		"      --rx-desc N        RX descriptors per queue, 32 to 32768 (default 1024;\n"
		"                         both within a device's limits, rounded up to what\n"
		"                         its queues need)\n"
		"      --tx-desc N        TX descriptors per queue, 32 to 32768 (default 1024);\n"
		"                         a worker's poll takes a quarter of it (of the least\n"
		"                         a device gave), a multiple of 32 from 32 to 128\n"
		"      --link-wait SEC    at start, wait up to SEC seconds (at most 60) for links\n"
		"                         that are still down (a NIC negotiating) before reading\n"
		"                         them (default 9; 0: read them at once)\n"
		"  -h, --help             this text\n"
		"\n"
		"SIGINT or SIGTERM stops the router (so do SIGHUP and SIGQUIT unless they\n"
		"came ignored, as under nohup): workers stop, ports stop, exit status 0;\n"
		"during the start (EAL's, the configuration load), once that is done, before\n"
		"any port starts; during --link-wait, before any worker runs: the ports that\n"
		"started stop again.\n"
		"SIGPIPE, SIGTSTP (Ctrl-Z), SIGTTIN, SIGTTOU, SIGUSR1 and SIGUSR2 are ignored.\n"
		"Under a service manager that set NOTIFY_SOCKET (systemd, Type=notify) it\n"
		"says READY=1 once it forwards and answers on its CLI socket, and STOPPING=1.\n"
		"Commands: run 'fastroute-cli help' against a running router, or see README.md.\n",
		prog, FR_DEFAULT_SOCKET);
}

static int parse_u32(const char *opt, const char *s, uint32_t min, uint32_t max, uint32_t *v)
{
	char *end;
	unsigned long long x;

	/* decimal digits only: no sign, no spaces, no octal or hex */
	errno = 0;
	x = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)*s) || *end != '\0' || errno != 0 || x < min || x > max) {
		fprintf(stderr, "fastroute: --%s: '%s' is not a number in %u-%u\n", opt, s, min,
			max);
		return -1;
	}
	*v = (uint32_t)x;
	return 0;
}

enum {
	OPT_BACKEND = 256,
	OPT_MAX_ROUTES,
	OPT_TBL8,
	OPT_MAX_NH,
	OPT_MAX_ROUTES6,
	OPT_TBL8_6,
	OPT_NEIGH_SIZE,
	OPT_MBUFS,
	OPT_RX_DESC,
	OPT_TX_DESC,
	OPT_LINK_WAIT,
	OPT_SOCK_GROUP,
	OPT_END,
};

static int parse_args(int argc, char **argv, struct router_opts *o)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'f'},
		{"socket", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{"fib-backend", required_argument, NULL, OPT_BACKEND},
		{"max-routes", required_argument, NULL, OPT_MAX_ROUTES},
		{"tbl8", required_argument, NULL, OPT_TBL8},
		{"max-nexthops", required_argument, NULL, OPT_MAX_NH},
		{"max-routes6", required_argument, NULL, OPT_MAX_ROUTES6},
		{"tbl8-6", required_argument, NULL, OPT_TBL8_6},
		{"neigh-size", required_argument, NULL, OPT_NEIGH_SIZE},
		{"mbufs", required_argument, NULL, OPT_MBUFS},
		{"rx-desc", required_argument, NULL, OPT_RX_DESC},
		{"tx-desc", required_argument, NULL, OPT_TX_DESC},
		{"link-wait", required_argument, NULL, OPT_LINK_WAIT},
		{"socket-group", required_argument, NULL, OPT_SOCK_GROUP},
		{NULL, 0, NULL, 0},
	};
	bool seen[OPT_END] = {false};
	uint32_t v;
	int c, li;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:s:h", longopts, &li)) != -1) {
		/* the last of two would be taken, silently */
		const bool once = c == 'f' || c == 's' || (c >= OPT_BACKEND && c < OPT_END);

		if (once && seen[c]) {
			if (c == 'f')
				fprintf(stderr, "fastroute: -f given twice: one config file (it "
						"may be a pipe: -f <(cat a.conf b.conf))\n");
			else if (c == 's')
				fprintf(stderr, "fastroute: -s given twice\n");
			else
				fprintf(stderr, "fastroute: --%s given twice\n", longopts[li].name);
			return -1;
		}
		if (once)
			seen[c] = true;
		if ((c == 'f' || c == 's') && optarg[0] == '\0') {
			fprintf(stderr, "fastroute: -%c needs a %s, not an empty name\n", c,
				c == 'f' ? "configuration file" : "socket path (or none)");
			return -1;
		}
		/* '-f -s PATH' would read the file '-s' and find PATH
		 * unexpected: the option taken for a name is named */
		if ((c == 'f' || c == 's') &&
		    (strcmp(optarg, "-f") == 0 || strcmp(optarg, "-s") == 0 ||
		     strcmp(optarg, "-h") == 0 || strncmp(optarg, "--", 2) == 0)) {
			fprintf(stderr,
				"fastroute: -%c needs a %s, and '%s' is an option (a file whose "
				"name starts with '-': ./%s)\n",
				c, c == 'f' ? "configuration file" : "socket path (or none)",
				optarg, optarg);
			return -1;
		}
		switch (c) {
		case 'f':
			o->config = optarg;
			break;
		case 's':
			o->sock_path = strcmp(optarg, "none") == 0 ? NULL : optarg;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		case OPT_SOCK_GROUP: {
			const struct group *g = getgrnam(optarg);
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);

			if (g != NULL) {
				o->sock_gid = g->gr_gid;
			} else if (optarg[0] >= '0' && optarg[0] <= '9' && *end == '\0' &&
				   n < UINT32_MAX) {
				o->sock_gid = (int64_t)n;
			} else {
				fprintf(stderr, "fastroute: --socket-group: no group '%s'\n",
					optarg);
				return -1;
			}
			break;
		}
		case OPT_BACKEND:
			if (strcmp(optarg, "fib") == 0) {
				o->backend = FIB_BACKEND_FIB;
			} else if (strcmp(optarg, "lpm") == 0) {
				o->backend = FIB_BACKEND_LPM;
			} else {
				fprintf(stderr,
					"fastroute: --fib-backend: 'fib' or 'lpm', not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case OPT_MAX_ROUTES:
			if (parse_u32("max-routes", optarg, 16, 1u << 26, &o->max_routes))
				return -1;
			break;
		case OPT_TBL8:
			if (parse_u32("tbl8", optarg, 64, 1u << 24, &o->tbl8s))
				return -1;
			break;
		case OPT_MAX_NH:
			if (parse_u32("max-nexthops", optarg, 16, (1u << 24) - 1, &o->max_nexthops))
				return -1;
			break;
		case OPT_MAX_ROUTES6:
			if (parse_u32("max-routes6", optarg, 16, 1u << 24, &o->max_routes6))
				return -1;
			break;
		case OPT_TBL8_6:
			if (parse_u32("tbl8-6", optarg, 64, 1u << 24, &o->tbl8s6))
				return -1;
			break;
		case OPT_NEIGH_SIZE:
			if (parse_u32("neigh-size", optarg, 16, 1u << 24, &o->neigh_size))
				return -1;
			break;
		case OPT_MBUFS:
			if (parse_u32("mbufs", optarg, 1024, 1u << 26, &o->nb_mbufs))
				return -1;
			break;
		case OPT_RX_DESC:
			if (parse_u32("rx-desc", optarg, 32, 32768, &v))
				return -1;
			o->rx_desc = (uint16_t)v;
			break;
		case OPT_TX_DESC:
			if (parse_u32("tx-desc", optarg, 32, 32768, &v))
				return -1;
			o->tx_desc = (uint16_t)v;
			break;
		case OPT_LINK_WAIT:
			if (parse_u32("link-wait", optarg, 0, 60, &o->link_wait))
				return -1;
			break;
		default:
			fprintf(stderr, "Try '%s -- --help'.\n", argv[0]);
			return -1;
		}
	}
	if (seen[OPT_SOCK_GROUP] && seen['s'] && o->sock_path == NULL) {
		fprintf(stderr, "fastroute: --socket-group with -s none: there is no socket to "
				"give a group\n");
		return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "fastroute: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static void on_signal(int sig)
{
	RTE_SET_USED(sig);
	the_router.quit = true;
}

/* @sig stops the router, unless it came ignored: 'nohup fastroute' must
 * outlive the session (SIGHUP) */
static void stop_on(int sig)
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return;
	signal(sig, on_signal);
}

/* Tables, before ports: the config is applied to them before anything runs. */
/* The NUMA node of the tables the workers read for every packet (the
 * FIB, the neighbours, the RCU variable they report to): the workers',
 * not the main lcore's, which may sit on another; workers on several
 * nodes, the first worker's. */
static int tables_socket(void)
{
	unsigned int lc = rte_get_next_lcore(-1, 1, 0);

	return (int)rte_lcore_to_socket_id(lc < RTE_MAX_LCORE ? lc : rte_get_main_lcore());
}

static int tables_create(struct router *r)
{
	const int socket = tables_socket();
	struct neigh_conf nc = {0};
	struct fib_conf fc = {0};
	struct fib_route bcast = {0};
	size_t sz;
	int rc;

	sz = rte_rcu_qsbr_get_memsize(r->nb_workers);
	r->qsv = rte_zmalloc_socket("qsbr", sz, RTE_CACHE_LINE_SIZE, socket);
	if (r->qsv == NULL || rte_rcu_qsbr_init(r->qsv, r->nb_workers) != 0) {
		fprintf(stderr, "fastroute: cannot allocate the RCU variable\n");
		return -ENOMEM;
	}
	nc.capacity = r->opts.neigh_size;
	nc.socket_id = socket;
	nc.qsv = r->qsv;
	nc.nb_readers = r->nb_workers;
	r->neigh = neigh_create("main", &nc);
	if (r->neigh == NULL) {
		fprintf(stderr, "fastroute: cannot create the neighbour table (%u entries): %s\n",
			r->opts.neigh_size ? r->opts.neigh_size : 65536, strerror(errno));
		return -errno;
	}
	r->reasm = reasm_create();
	if (r->reasm == NULL) {
		fprintf(stderr, "fastroute: cannot allocate the reassembly table\n");
		return -ENOMEM;
	}
	fc.backend = r->opts.backend;
	fc.max_routes4 = r->opts.max_routes;
	fc.tbl8s4 = r->opts.tbl8s;
	fc.max_routes6 = r->opts.max_routes6;
	fc.tbl8s6 = r->opts.tbl8s6;
	/* and index 0, the lookup's "no route" */
	fc.max_nexthops = r->opts.max_nexthops ? r->opts.max_nexthops + 1 : 0;
	fc.socket_id = socket;
	fc.neigh = r->neigh;
	fc.qsv = r->qsv;
	r->fib = fib_create("main", &fc);
	if (r->fib == NULL) {
		int e = errno;
		uint64_t need = fib_memory_need(&fc);
		struct rte_malloc_socket_stats ms;
		/* rte_fib's and rte_lpm's failures leave errors of their
		 * insides (ENOENT, EINVAL) where memory ran out: said as such
		 * when the heap has less free than the tables need */
		bool short_of = rte_malloc_get_socket_stats(socket, &ms) == 0 &&
				(uint64_t)ms.heap_freesz_bytes < need;

		fprintf(stderr,
			"fastroute: cannot create the FIB: %s (it needs about %" PRIu64
			" MiB: give EAL more memory with -m, or lower --max-routes, --tbl8, "
			"--max-routes6, --tbl8-6 or --max-nexthops)\n",
			short_of ? "out of DPDK memory" : strerror(e), need >> 20);
		return -e;
	}
	/* RFC 1812 5.3.5.1: the limited broadcast is never forwarded */
	bcast.prefix.addr = fr_addr4(UINT32_MAX);
	bcast.prefix.len = 32;
	bcast.type = FIB_NH_BROADCAST;
	bcast.port = FIB_PORT_NONE;
	bcast.origin = FIB_ORIGIN_SYSTEM;
	rc = fib_route_add(r->fib, &bcast);
	if (rc != 0)
		fprintf(stderr, "fastroute: cannot add the route of 255.255.255.255: %s\n",
			strerror(-rc));
	return rc;
}

/*
 * Write an answer to the router's own terminal without stalling the control
 * thread: a terminal that is slow (a remote session) or stopped (Ctrl-S)
 * takes it a little at a time, and meanwhile the router keeps answering
 * ARP/ND, sending held packets and polling links. The terminal is
 * non-blocking only while the answer is written (the shell shares it): a
 * message printed meanwhile (a link change) may be lost if it finds the
 * terminal full. A stop signal abandons the rest.
 */
static void term_print(struct router *r, const char *buf, size_t len)
{
	struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};
	int fl = fcntl(STDOUT_FILENO, F_GETFL);
	bool nb = fl >= 0 && !(fl & O_NONBLOCK) &&
		  fcntl(STDOUT_FILENO, F_SETFL, fl | O_NONBLOCK) == 0;
	ssize_t n;

	fflush(stdout);
	while (len > 0 && !r->quit) {
		n = write(STDOUT_FILENO, buf, len < 65536 ? len : 65536);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
		/* full: the router's other work (the command is done: links
		 * and reclaims too; the socket's clients wait) while it drains */
		control_poll(r);
		if (poll(&p, 1, 10) > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)))
			break;
	}
	if (nb)
		fcntl(STDOUT_FILENO, F_SETFL, fl);
}

/* A line typed on the router's own terminal: run it, print the answer. */
static bool term_run(const char *line, void *arg)
{
	static const char oom[] = "error: out of memory for the answer (the command itself ran)\n";
	struct router *r = arg;
	struct cmd_out o = {0};

	cmd_run_line(r, line, &o);
	if (o.oom)
		term_print(r, oom, sizeof(oom) - 1);
	else if (o.len)
		term_print(r, o.buf, o.len);
	if (o.quit)
		r->quit = true; /* quit on the router's own terminal stops it, as in testpmd */
	out_free(&o);
	return r->quit;
}

static void term_add(const char *words, const char *usage, bool args, void *arg)
{
	cli_term_add(arg, words, usage, args);
}

/* The interactive terminal, when stdin is one; NULL otherwise. */
static struct cli_term *term_open(struct router *r)
{
	struct cli_term *t;

	/* a terminal this process is in the foreground of: started with '&',
	 * setting the terminal up would stop it (SIGTTOU) */
	if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp())
		return NULL;
	t = cli_term_new("fastroute> ", term_run, r);
	if (t == NULL)
		return NULL;
	cmd_keywords(term_add, t);
	if (cli_term_start(t) != 0) {
		cli_term_free(t);
		return NULL;
	}
	return t;
}

/* Free what is still queued between the threads once the workers have
 * stopped; returns how many packets that was. */
static uint64_t free_queued(struct rte_ring *ring)
{
	struct rte_mbuf *pkts[DP_BURST];
	uint64_t total = 0;
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(ring, (void **)pkts, DP_BURST, NULL)) > 0) {
		rte_pktmbuf_free_bulk(pkts, n);
		total += n;
	}
	return total;
}

/* neigh_ops.release at stop: the ports are stopped, nothing is sent; the
 * packet is freed and counted */
static void held_free(void *arg, const struct neigh_info *ni, void *pkt,
		      const struct rte_ether_addr *mac)
{
	uint64_t *n = arg;

	RTE_SET_USED(ni);
	RTE_SET_USED(mac);
	rte_pktmbuf_free(pkt);
	(*n)++;
}

static void print_summary(struct router *r)
{
	struct dp_stats s;
	uint64_t left = 0;
	unsigned int i;

	for (i = 0; i < r->nb_workers; i++) {
		struct worker *w = r->workers[i];

		left += free_queued(w->to_ctrl);
		/* ARP and ND frames its full TX queue refused, still offered */
		rte_pktmbuf_free_bulk(w->ctrl_pend, w->nb_ctrl_pend);
		left += w->nb_ctrl_pend;
		w->nb_ctrl_pend = 0;
	}
	left += free_queued(r->ctrl_tx);
	/* and the packets held for a neighbour still resolving (the table
	 * itself stays until the EAL stops) */
	if (r->neigh != NULL) {
		struct neigh_ops ops = {.release = held_free, .arg = &left};

		neigh_ops_set(r->neigh, &ops);
		neigh_hold_flush(r->neigh);
	}
	router_stats_sum(r, &s);
	printf("fastroute: stopped: rx %" PRIu64 " forwarded %" PRIu64 " to_control %" PRIu64
	       " dropped %" PRIu64 " left_queued %" PRIu64 "\n",
	       s.rx, dp_stats_forwarded(&s), s.to_control, dp_stats_dropped(&s), left);
}

/* Where EAL's own options end: the index of the first "--", or @argc. */
static int eal_args_end(int argc, char **argv)
{
	int i = 1;

	while (i < argc && strcmp(argv[i], "--") != 0)
		i++;
	return i;
}

/*
 * "-- --help" (or -h) among the application's options: answered before the
 * EAL starts, so it works without hugepages, root or ports.
 */
static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = eal_args_end(argc, argv) + 1; i < argc; i++) {
		const char *p;

		if (strcmp(argv[i], "--") == 0)
			break; /* getopt stops there too */
		/* --help, or what getopt_long takes for it (--h, --he, --hel:
		 * no other option starts with h) */
		if (strncmp(argv[i], "--h", 3) == 0 &&
		    strncmp(argv[i], "--help", strlen(argv[i])) == 0)
			return true;
		if (argv[i][0] != '-')
			continue;
		if (argv[i][1] == '-') {
			/* every other long option takes a value: "--config FILE",
			 * FILE no option, even "-h"; "--config=FILE" is one word */
			if (strchr(argv[i], '=') == NULL)
				i++;
			continue;
		}
		/* short options, maybe several in one word (-hf x): an h before
		 * the f or s that takes the rest, or the next word, as its value */
		for (p = argv[i] + 1; *p != '\0' && *p != 'f' && *p != 's'; p++)
			if (*p == 'h')
				return true;
		if (*p != '\0' && p[1] == '\0')
			i++; /* "-f FILE": FILE is no option, even "-h" */
	}
	return false;
}

/* cli_sock_open()'s or cli_sock_probe()'s error @rc about @path, said */
static void sock_refused(const char *path, int rc)
{
	fprintf(stderr, "fastroute: CLI socket %s: %s\n", path,
		rc == -EADDRINUSE   ? "another router is serving it"
		: rc == -ENOTSOCK   ? "a file that is not a socket is there (left "
				      "alone; the configuration file is -f)"
		: rc == -ENOENT	    ? "no such directory (the router makes the "
				      "socket's own directory, not its parents)"
		: rc == -EPROTOTYPE ? "a socket of another kind is there, someone "
				      "else's (left alone)"
				    : strerror(-rc));
}

/*
 * The application's options, after the first "--" (where EAL's end),
 * parsed before EAL starts, and the CLI socket asked whether a router
 * serves it: a mistyped option, or a second router started on a running
 * one's socket, stops before EAL probes a device (an af_packet or tap
 * port opened beside the running router's, a pcap file written) or takes
 * memory. main() parses what EAL leaves again after it: a word among
 * EAL's options that is none of theirs (a forgotten --vdev) lands there.
 * -1: refused, said.
 */
static int parse_early(int argc, char **argv, struct router_opts *o)
{
	const int i = eal_args_end(argc, argv);
	char **copy;
	int rc;

	if (i < argc) {
		/* a copy: getopt_long() reorders what it parses, and EAL
		 * reads argv */
		copy = calloc((size_t)(argc - i + 1), sizeof(*copy));
		if (copy == NULL) {
			fprintf(stderr, "fastroute: out of memory\n");
			return -1;
		}
		memcpy(copy + 1, argv + i + 1, (size_t)(argc - i - 1) * sizeof(*copy));
		copy[0] = (char *)(uintptr_t) "fastroute";
		rc = parse_args(argc - i, copy, o);
		free(copy); /* the options point into argv, not into the copy */
		optind = 1; /* EAL's getopt_long() starts afresh */
		if (rc != 0)
			return -1;
	}
	/* only a live router's socket is refused here (the default one too,
	 * without "--"); what else cli_sock_open() may find (a stale socket,
	 * a missing directory) it says after EAL */
	if (o->sock_path != NULL && cli_sock_probe(o->sock_path) == -EADDRINUSE) {
		sock_refused(o->sock_path, -EADDRINUSE);
		return -1;
	}
	return 0;
}

/* --proc-type other than primary among EAL's options (before any "--")? */
static bool proc_type_given(int argc, char **argv)
{
	const int end = eal_args_end(argc, argv);
	const char *v;
	int i;

	for (i = 1; i < end; i++) {
		if (strncmp(argv[i], "--proc-type", 11) != 0)
			continue;
		v = argv[i][11] == '=' ? argv[i] + 12 : i + 1 < argc ? argv[i + 1] : "";
		if (strcmp(v, "primary") != 0)
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	struct router *r = &the_router;
	struct cli_term *term = NULL;
	struct stat st;
	char err[512];
	unsigned int lcore, w = 0;
	uint16_t pid;
	int rc, ret = 1;

	/* before EAL opens a file: stdout and stderr are never one of them */
	if (!std_fds_open(false))
		return 1;
	if (wants_help(argc, argv)) {
		usage(stdout, "fastroute");
		return 0;
	}
	/* from here on a signal stops the router cleanly, whatever it is
	 * doing (EAL's start and a long configuration load finish first; EAL's
	 * threads, made in it, take these handlers too); a closed stdout
	 * (fastroute | tee, tee gone) is not one */
	/* SIGINT always: a shell starts a background job with it ignored,
	 * and the demo and tests stop their router with it */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	stop_on(SIGHUP);
	stop_on(SIGQUIT);
	signal(SIGPIPE, SIG_IGN);
	/* Ctrl-Z on its terminal would stop every worker: forwarding never
	 * pauses for a keystroke; nor does a stray SIGUSR1 or SIGUSR2 (a
	 * log rotation's, meant for another daemon) end it */
	signal(SIGTSTP, SIG_IGN);
	/* nor does a message written from the background of a terminal set
	 * 'stty tostop' (a link change would stop the process group) */
	signal(SIGTTOU, SIG_IGN);
	/* nor a read of the terminal from the background (cli_term_poll()
	 * reads only in the foreground) */
	signal(SIGTTIN, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	r->opts.sock_gid = -1;
	r->opts.sock_path = FR_DEFAULT_SOCKET;
	r->opts.rx_desc = 1024;
	r->opts.tx_desc = 1024;
	r->opts.link_wait = 9;
	if (parse_early(argc, argv, &r->opts) != 0)
		return 1;
	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fr_eal_runtime_dir_remove_failed();
		/* some of EAL's failures leave rte_errno 0 ("Success") */
		if (proc_type_given(argc, argv))
			/* a secondary's failure ("Cannot get hugepage
			 * information" against a --no-huge primary, say): no
			 * hugepage is wanted, another prefix is */
			fprintf(stderr,
				"fastroute: EAL initialisation failed (its messages above say "
				"why): fastroute runs only as a primary DPDK process; leave "
				"--proc-type out and give it a --file-prefix of its own\n");
		else if (rte_errno == EACCES)
			/* EAL's errno for "Cannot get hugepage information" */
			fprintf(stderr,
				"fastroute: EAL initialisation failed: %s (no usable "
				"hugepages: reserve some, e.g. 'echo 1024 > "
				"/proc/sys/vm/nr_hugepages', or run with --no-huge -m MB)\n",
				rte_strerror(rte_errno));
		else if (rte_errno != 0)
			fprintf(stderr, "fastroute: EAL initialisation failed: %s\n",
				rte_strerror(rte_errno));
		else
			fprintf(stderr,
				"fastroute: EAL initialisation failed (its messages above say "
				"why; \"Cannot init config\": another DPDK process holds this "
				"--file-prefix)\n");
		return 1;
	}
	fr_eal_runtime_dir_remove_at_exit();
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		/* a router owns its ports and tables: it cannot share them as
		 * a secondary process (--proc-type), nor take another's */
		fprintf(stderr, "fastroute: runs only as a primary DPDK process: another process "
				"holds this --file-prefix\n");
		rte_eal_cleanup();
		return 1;
	}
	argc -= rc;
	argv += rc;
	argv[0] = (char *)(uintptr_t) "fastroute";
	if (r->quit) {
		/* during EAL's start: nothing of ours made yet */
		fprintf(stderr, "fastroute: stopped by a signal before starting\n");
		ret = 0;
		goto out;
	}

	fr_router = r;
	/* again, on what EAL left: the same options (the same values), and
	 * any word EAL's getopt moved there */
	if (parse_args(argc, argv, &r->opts) != 0)
		goto out;

	/* the lcores EAL runs as workers: not the main one, nor service
	 * lcores (-s/-S), which rte_lcore_count() still counts but which
	 * run EAL's services, never a worker's loop: each worker polls a
	 * queue of every port, and a queue nobody polls would lose its share
	 * of the traffic */
	r->nb_workers = 0;
	RTE_LCORE_FOREACH_WORKER (lcore)
		r->nb_workers++;
	if (r->nb_workers == 0) {
		fprintf(stderr, "fastroute: needs at least two lcores (for example -l 0-1): the "
				"main lcore is the control thread, every other one a worker "
				"(not a service lcore of -s or -S)\n");
		goto out;
	}
	/* before the ports are configured and started: a second router on
	 * the same socket (and so, likely, the same ports) stops here */
	if (r->opts.sock_path != NULL) {
		rc = cli_sock_open(r->opts.sock_path, r->opts.sock_gid);
		if (rc == -ENOTSOCK && stat(r->opts.sock_path, &st) == 0 && S_ISDIR(st.st_mode)) {
			fprintf(stderr,
				"fastroute: CLI socket %s: a directory (-s names the socket "
				"itself, inside one)\n",
				r->opts.sock_path);
			goto out;
		}
		/* chown() to a group the router may not give: the option's
		 * fault, not the path's (another step's EPERM, a stale socket
		 * of another user's in a sticky directory, is said as it is) */
		if (rc == -CLI_SOCK_EGROUP) {
			fprintf(stderr,
				"fastroute: --socket-group: cannot give the CLI socket %s group "
				"%" PRId64 ": %s (the router must run as root, with CAP_CHOWN, or "
				"as a member of that group)\n",
				r->opts.sock_path, r->opts.sock_gid, strerror(EPERM));
			goto out;
		}
		if (rc != 0) {
			sock_refused(r->opts.sock_path, rc);
			goto out;
		}
	}
	if (tables_create(r) != 0)
		goto out;
	control_init(r);
	/* RFC 1812 defaults: martians dropped, directed broadcasts not
	 * forwarded, ICMP errors limited per lcore */
	r->dpconf.martians = 1;
	r->dpconf.directed_bcast = 0;
	r->dpconf.rtcache_mode = RTCACHE_AUTO;
	r->opts.rtcache_size = 65536;
	router_icmp_rate_set(r, FR_ICMP_RATE, FR_ICMP_BURST);
	if (port_probe(r) != 0)
		goto out;
	if (r->nb_ports == 0) {
		fprintf(stderr, "fastroute: no ports: give EAL --vdev devices or bind NICs to "
				"vfio-pci\n");
		goto out;
	}
	/* what 'configure replace' puts back where its file sets nothing */
	config_boot_save(r);
	/* a bad file says where and fails even when a signal came meanwhile
	 * (the load runs to its end or its first error); only a load the
	 * signal cut short (a FIFO's writer awaited) is a plain stop */
	if (r->opts.config != NULL) {
		struct cmd_out warn = {0};
		struct config_result res = {.warn = &warn};
		int lrc = config_load(r, r->opts.config, true, &res, err, sizeof(err));

		if (lrc == 0 && warn.len > 0)
			fprintf(stderr, "%s", warn.buf);
		out_free(&warn);
		if (lrc != 0 && !(lrc == -EINTR && r->quit)) {
			fprintf(stderr, "%s\n", err);
			goto out;
		}
	}
	if (r->quit) {
		fprintf(stderr, "fastroute: stopped by a signal before starting\n");
		ret = 0;
		goto out;
	}

	RTE_LCORE_FOREACH_WORKER (lcore) {
		r->workers[w] = worker_create(r, lcore, w);
		if (r->workers[w] == NULL) {
			fprintf(stderr, "fastroute: cannot create worker %u (lcore %u)\n", w,
				lcore);
			goto out;
		}
		w++;
	}
	r->ctrl_tx = rte_ring_create("fr_ctrl_tx", FR_CTRL_RING_SIZE, (int)rte_socket_id(),
				     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r->ctrl_tx == NULL) {
		fprintf(stderr, "fastroute: cannot create the control TX ring\n");
		goto out;
	}
	if (port_setup(r) != 0)
		goto out;
	/* a signal while the ports started (--link-wait waits up to 60 s):
	 * no worker runs, nothing is announced */
	if (r->quit) {
		fprintf(stderr, "fastroute: stopped by a signal before starting\n");
		ret = 0;
		goto out;
	}
	/* dpdk-dumpcap / dpdk-pdump attach as secondary processes (needs
	 * hugepages: a --no-huge primary cannot share its memory) */
	if (rte_pdump_init() != 0)
		fprintf(stderr, "fastroute: packet capture unavailable: %s\n",
			rte_strerror(rte_errno));
	if (telemetry_register(r) != 0)
		fprintf(stderr, "fastroute: telemetry endpoints not registered\n");
	w = 0;
	RTE_LCORE_FOREACH_WORKER (lcore) {
		rc = rte_eal_remote_launch(worker_main, r->workers[w], lcore);
		if (rc != 0) {
			/* its queues would go unpolled: the router stops (the
			 * workers launched see quit and return) */
			fprintf(stderr, "fastroute: cannot start worker %u on lcore %u: %s\n", w,
				lcore, strerror(-rc));
			goto out;
		}
		w++;
	}
	r->running = true;
	r->start_tsc = rte_get_tsc_cycles();
	/* the links found up at start were read before the router ran (no
	 * announcement then): say our addresses on each now, as a link
	 * coming up does (a router swapped or restarted: neighbours may hold
	 * another MAC for them) */
	for (pid = 0; pid < r->nb_ports; pid++)
		router_announce(r, pid, NULL);
	printf("fastroute: %u ports, %u workers, %u routes (%u IPv6); ready (CLI socket %s)\n",
	       r->nb_ports, r->nb_workers,
	       fib_route_count(r->fib, AF_INET) + fib_route_count(r->fib, AF_INET6),
	       fib_route_count(r->fib, AF_INET6),
	       r->opts.sock_path ? r->opts.sock_path : "disabled");
	fflush(stdout);
	{
		char ready[160];

		snprintf(ready, sizeof(ready), "READY=1\nSTATUS=%u ports, %u workers, %u routes",
			 r->nb_ports, r->nb_workers,
			 fib_route_count(r->fib, AF_INET) + fib_route_count(r->fib, AF_INET6));
		rc = fr_sd_notify(ready);
		if (rc < 0)
			fprintf(stderr,
				"fastroute: cannot tell the service manager (NOTIFY_SOCKET) "
				"it is ready: %s\n",
				strerror(-rc));
		/* its watchdog, if it keeps one, runs from READY=1 on */
		r->watchdog_ms = rc > 0 ? fr_sd_watchdog_ms() : 0;
	}
	term = term_open(r);

	while (!r->quit) {
		unsigned int work = control_poll(r);

		/* sleep up to 1 ms when there is nothing to do: latency of the
		 * slow path, never of forwarding */
		cli_sock_poll(r, work ? 0 : 1);
		if (term != NULL && !cli_term_poll(term)) {
			/* end of input on the terminal: keep routing, as a daemon */
			cli_term_free(term);
			term = NULL;
		}
	}
	ret = 0;
out:
	if (r->running)
		fr_sd_notify("STOPPING=1");
	r->quit = true;
	cli_term_free(term);
	rte_eal_mp_wait_lcore();
	/* hosts stop using the router now, not when the lifetime its last
	 * Router Advertisement gave ends (up to 30 minutes) */
	if (r->running && router_ra_final(r) > 0)
		/* on the wire before its port stops: a NIC's queue may still
		 * hold it when rte_eth_dev_stop() comes, and drop it */
		rte_delay_ms(10);
	cli_sock_close();
	rte_pdump_uninit();
	telemetry_stop();
	reasm_free(r->reasm, r->cst.drop); /* its mbufs back to their pool */
	r->reasm = NULL;
	port_stop_all(r);
	if (r->running)
		print_summary(r);
	rte_eal_cleanup();
	return ret;
}
