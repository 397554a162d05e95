/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port setup: every port EAL probed gets one RX and one TX queue per worker
 * (RSS spreads flows when there is more than one), mbufs from a pool on the
 * port's NUMA socket.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include "nd.h"
#include "control6.h"
#include "reasm.h"
#include "router.h"

#define MBUF_CACHE 256

/* A port of the device EAL probed for @da? By the devargs the device was
 * probed with: their name is as the user wrote it ("03:00.0", upper-case
 * hex), the device's as EAL names it ("0000:03:00.0"); by name too. */
static bool device_has_port(const struct rte_devargs *da)
{
	struct rte_eth_dev_info info;
	uint16_t pid;

	RTE_ETH_FOREACH_DEV (pid)
		if (rte_eth_dev_info_get(pid, &info) == 0 && info.device != NULL &&
		    (rte_dev_devargs(info.device) == da ||
		     strcmp(rte_dev_name(info.device), da->name) == 0))
			return true;
	return false;
}

/*
 * Every network device EAL was given (--vdev net_..., -a/--allow) became a
 * port. EAL goes on past a device whose probe failed (a pcap file missing,
 * an interface misspelt, a NIC not bound to vfio-pci): the ports after it
 * would be numbered one lower, and the configuration's 'port N' lines
 * would give their addresses and routes to other devices than meant.
 */
static int port_devargs_check(void)
{
	const struct rte_devargs *da;
	int missing = 0;

	for (da = rte_devargs_next(NULL, NULL); da != NULL; da = rte_devargs_next(NULL, da)) {
		const char *bus = da->bus != NULL ? rte_bus_name(da->bus) : "?";
		bool pci = strcmp(bus, "pci") == 0;

		if (da->policy != RTE_DEV_ALLOWED)
			continue;
		/* a virtual device of another class (crypto_..., event_...) is
		 * no port of ours */
		if (!pci && (strcmp(bus, "vdev") != 0 || (strncmp(da->name, "net_", 4) != 0 &&
							  strncmp(da->name, "eth_", 4) != 0)))
			continue;
		if (device_has_port(da))
			continue;
		fprintf(stderr,
			"fastroute: device %s was given to EAL but is no port: its probe failed "
			"(EAL's messages above say why%s); the ports after it would be numbered "
			"one lower, and the configuration's port numbers would name other "
			"devices\n",
			da->name, pci ? "; a NIC must be bound to vfio-pci (dpdk-devbind.py)" : "");
		missing++;
	}
	return missing > 0 ? -ENODEV : 0;
}

/* The kernel interface (its iface= argument) of @pid when it is a
 * net_af_packet device, into @kif; else "". */
/* The value of device argument @key of port @pid, whose driver is @driver,
 * in @out (empty: another driver, or not given) */
static void dev_kvarg(uint16_t pid, const char *driver, const char *key, char *out, size_t len)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	struct rte_kvargs *kv;
	const char *v;

	out[0] = '\0';
	if (rte_eth_dev_info_get(pid, &info) != 0 || info.driver_name == NULL ||
	    strcmp(info.driver_name, driver) != 0 || info.device == NULL)
		return;
	da = rte_dev_devargs(info.device);
	/* parsed as the driver parses its own arguments */
	kv = da != NULL && da->args != NULL ? rte_kvargs_parse(da->args, NULL) : NULL;
	v = kv != NULL ? rte_kvargs_get(kv, key) : NULL;
	if (v != NULL && v[0] != '\0' && strlen(v) < len)
		snprintf(out, len, "%s", v);
	rte_kvargs_free(kv);
}

static void af_packet_iface(uint16_t pid, char *kif, size_t len)
{
	dev_kvarg(pid, "net_af_packet", "iface", kif, len);
}

int port_link_get(const struct router *r, uint16_t pid, struct rte_eth_link *link)
{
	static int fd = -1;
	const struct fr_port *p = &r->ports[pid];
	struct ifreq ifr;
	int rc = rte_eth_link_get_nowait(pid, link);

	if (rc != 0 || p->kif[0] == '\0')
		return rc;
	/* DPDK 22.11's af_packet says up from its start on: the interface's
	 * IFF_RUNNING is its carrier (a veth whose peer went down, a cable
	 * out), read on the control thread. A failed read leaves the
	 * driver's word */
	if (fd < 0)
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->kif);
	if (fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0)
		link->link_status =
			(ifr.ifr_flags & IFF_RUNNING) ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN;
	return 0;
}

int port_probe(struct router *r)
{
	uint16_t pid;
	int rc = port_devargs_check();

	if (rc != 0)
		return rc;
	r->nb_ports = 0;
	RTE_ETH_FOREACH_DEV (pid) {
		struct fr_port *p;
		uint32_t mtu_max;
		int sock;

		if (pid >= FR_MAX_PORTS)
			break;
		p = &r->ports[pid];
		p->id = pid;
		p->present = true;
		rte_eth_dev_get_name_by_port(pid, p->name);
		af_packet_iface(pid, p->kif, sizeof(p->kif));
		/* a device on no NUMA node (a vdev, a NIC whose firmware
		 * says none): the main lcore's, or node 0 when that lcore
		 * spans nodes too (the pools are indexed by it) */
		sock = rte_eth_dev_socket_id(pid);
		if (sock < 0)
			sock = (int)rte_socket_id();
		p->socket = sock >= 0 && sock < RTE_MAX_NUMA_NODES ? sock : 0;
		if (rte_eth_macaddr_get(pid, &r->dp_ports[pid].mac) != 0) {
			fprintf(stderr, "fastroute: port %u (%s): cannot read its MAC address\n",
				pid, p->name);
			return -EIO;
		}
		/* every IPv6 port has a link-local address (RFC 4291 2.1) */
		nd_eui64_linklocal(&r->dp_ports[pid].mac, r->dp_ports[pid].ll6);
		/* the link's MTU as the device reports it; 'port N mtu' changes it */
		if (rte_eth_dev_get_mtu(pid, &r->dp_ports[pid].mtu) != 0 ||
		    r->dp_ports[pid].mtu < 68)
			r->dp_ports[pid].mtu = RTE_ETHER_MTU;
		/* within what the device and a buffer take (a virtio device may
		 * report 9000): what the port is set up with, unless told more */
		mtu_max = port_mtu_max(pid);
		if (mtu_max >= 68 && r->dp_ports[pid].mtu > mtu_max)
			r->dp_ports[pid].mtu = (uint16_t)mtu_max;
		p->dev_mtu = p->dev_mtu_probed = r->dp_ports[pid].mtu;
		if (pid + 1 > r->nb_ports)
			r->nb_ports = pid + 1;
	}
	return 0;
}

/* @n rounded up to a multiple of @mult and to at least @least, within @max
 * (rounded down to a multiple there) */
static uint16_t desc_round(uint16_t n, uint16_t mult, uint32_t least, uint16_t max)
{
	uint32_t v = RTE_MAX((uint32_t)n, least);

	v = (v + mult - 1) / mult * mult;
	if (v > max)
		v = (uint32_t)max / mult * mult;
	return (uint16_t)v;
}

void port_desc_fit(const struct rte_eth_dev_info *info, uint16_t *rxd, uint16_t *txd)
{
	const uint16_t rs = info->default_txconf.tx_rs_thresh,
		       fr = info->default_txconf.tx_free_thresh,
		       rf = info->default_rxconf.rx_free_thresh;

	if (rs > 1)
		*txd = desc_round(*txd, rs, (uint32_t)rs + fr, info->tx_desc_lim.nb_max);
	if (rf > 1)
		*rxd = desc_round(*rxd, rf, rf, info->rx_desc_lim.nb_max);
}

/* Descriptors a queue of port @pid gets: asked, as its device adjusts them. */
static void port_desc(const struct router *r, uint16_t pid, uint16_t *rxd, uint16_t *txd)
{
	struct rte_eth_dev_info info;

	*rxd = r->opts.rx_desc;
	*txd = r->opts.tx_desc;
	if (rte_eth_dev_adjust_nb_rx_tx_desc(pid, rxd, txd) != 0) {
		*rxd = r->opts.rx_desc;
		*txd = r->opts.tx_desc;
	} else if (rte_eth_dev_info_get(pid, &info) == 0) {
		port_desc_fit(&info, rxd, txd);
	}
}

/*
 * mbufs of @socket's pool that the ports, rings and caches may hold at once,
 * the packets held for neighbours aside: its own ports' RX rings, every
 * port's TX rings and TX buffers (a packet from this pool may leave by any
 * port), the rings between the threads, each lcore's cache up to the
 * mempool's flush threshold (1.5 times its size) and a poll's packets,
 * and the control thread's own work (answers, errors, fragments).
 */
static uint32_t pool_need(const struct router *r, int socket, uint32_t *rx_floor)
{
	/* each lcore's cache, up to the mempool's flush threshold, and a burst
	 * (at start), a poll's packets (running) */
	const uint32_t caches = rte_lcore_count() * (MBUF_CACHE * 3 / 2 + DP_BURST);
	uint32_t n = 0, rx = 0;
	bool any = false;
	uint16_t pid, rxd, txd;

	for (pid = 0; pid < r->nb_ports; pid++) {
		if (!r->ports[pid].present)
			continue;
		port_desc(r, pid, &rxd, &txd);
		if (r->ports[pid].socket == socket) {
			rx += r->nb_workers * rxd;
			any = true;
		}
		n += r->nb_workers * (txd + DP_BURST);
	}
	/* what a start takes at once: drivers (tap, virtio, PCI NICs) fill
	 * their RX rings as the queues are set up; the caches, as they fill */
	*rx_floor = rx + caches;
	if (!any)
		return 0;
	n += rx;
	n += r->nb_workers * FR_CTRL_RING_SIZE + FR_CTRL_RING_SIZE; /* rings */
	n += caches + rte_lcore_count() * (FR_RX_BURST - DP_BURST);
	n += 1024;	  /* the control thread's own, in flight */
	n += REASM_MBUFS; /* fragments held for reassembly */
	return n;
}

static int pools_create(struct router *r)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct neigh_params np;
	uint16_t pid;

	neigh_params_get(r->neigh, &np);
	r->hold_room = UINT32_MAX;
	for (pid = 0; pid < r->nb_ports; pid++) {
		int s = r->ports[pid].socket;
		uint32_t need, n, floor;

		if (!r->ports[pid].present || r->pools[s] != NULL)
			continue;
		need = pool_need(r, s, &floor);
		if (r->opts.nb_mbufs != 0) {
			n = r->opts.nb_mbufs;
			if (n < floor) {
				/* a driver would fail its RX queue's setup, with
				 * an error that names neither option */
				fprintf(stderr,
					"fastroute: --mbufs %u: socket %d's RX rings (--rx-desc, "
					"one queue a worker a port) and the lcores' caches take "
					"%u at start: give --mbufs %u at least (%u for them, the "
					"TX rings and hold-total all full), or a smaller "
					"--rx-desc\n",
					n, s, floor, floor, need + np.hold_total);
				return -EINVAL;
			}
			if (n < need + np.hold_total) {
				printf("fastroute: --mbufs %u: socket %d's ports, rings and caches "
				       "may hold %u, and packets waiting for neighbours "
				       "hold-total %u: receiving stops (rx_nombuf in 'show port "
				       "stats') if they all fill\n",
				       n, s, need, np.hold_total);
				fflush(stdout); /* before any error of the start */
			}
		} else {
			/* the largest count of the pool's best size (2^k - 1) */
			n = rte_align32pow2(need + np.hold_total + 1) - 1;
		}
		/* the held packets this pool has room for, set at start
		 * ('set neigh hold-total' is refused above it) */
		r->hold_room = RTE_MIN(r->hold_room, n > need ? n - need : 0);
		r->pools_ready = true;
		snprintf(name, sizeof(name), "fr_mbuf_s%d", s);
		r->pools[s] = rte_pktmbuf_pool_create(name, n, MBUF_CACHE, 0,
						      RTE_MBUF_DEFAULT_BUF_SIZE, s);
		if (r->pools[s] == NULL) {
			fprintf(stderr,
				"fastroute: cannot create %u mbufs on socket %d: %s "
				"(give EAL more memory with -m, or fewer with --mbufs, or "
				"lower 'set neigh hold-total')\n",
				n, s, rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	return 0;
}

static void link_read(struct router *r, uint16_t pid, bool change);

uint32_t port_mtu_max(uint16_t pid)
{
	struct rte_eth_dev_info info;
	uint32_t overhead, max;

	if (rte_eth_dev_info_get(pid, &info) != 0)
		return 0;
	/* as rte_ethdev works out a device's frame overhead */
	if (info.max_mtu != UINT16_MAX && info.max_rx_pktlen > info.max_mtu)
		overhead = info.max_rx_pktlen - info.max_mtu;
	else
		overhead = RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	max = info.max_rx_pktlen > overhead ? info.max_rx_pktlen - overhead : 0;
	max = RTE_MIN(max, (uint32_t)info.max_mtu);
	return RTE_MIN(max, (uint32_t)PORT_MTU_MAX);
}

/* The MTU port_configure() gives port @p's device: what it reported
 * (port_probe() bounded it), raised to the configuration's. */
static uint32_t dev_mtu_want(const struct router *r, const struct fr_port *p)
{
	return RTE_MAX((uint32_t)p->dev_mtu, (uint32_t)r->dp_ports[p->id].mtu);
}

/* The device info of port @p: 0, or -errno (said on stderr). */
static int port_info(const struct fr_port *p, struct rte_eth_dev_info *info)
{
	int rc = rte_eth_dev_info_get(p->id, info);

	if (rc != 0)
		fprintf(stderr, "fastroute: port %u (%s): cannot read the device's info: %s\n",
			p->id, p->name, rte_strerror(-rc));
	return rc;
}

/*
 * What port_configure() needs of port @p that the device may not offer:
 * queues for every worker, and the configuration's MTU. Every port is
 * checked before any is configured (port_setup()), so that a bad one is
 * found with nothing started and each bad one is named. 0, or -errno
 * (said on stderr).
 */
static int port_check(const struct router *r, const struct fr_port *p)
{
	struct rte_eth_dev_info info;
	uint16_t nq = (uint16_t)r->nb_workers;
	uint32_t mtu_max, want;
	int rc;

	rc = port_info(p, &info);
	if (rc != 0)
		return rc;
	if (info.max_rx_queues < nq || info.max_tx_queues < nq) {
		/* virtual devices whose queue count is an argument of theirs */
		static const struct {
			const char *driver, *arg; /* NULL: net_pcap's files */
		} qargs[] = {{"net_af_packet", "qpairs"},
			     {"net_af_xdp", "queue_count"},
			     {"net_vhost", "queues"},
			     {"net_pcap", NULL}};
		const uint16_t most = RTE_MIN(info.max_rx_queues, info.max_tx_queues);
		char how[128];
		unsigned int k;

		/* the remedy: such a device's argument, or fewer workers (a
		 * NIC's queues are its own: an e1000 has one) */
		snprintf(how, sizeof(how),
			 ": it takes at most %u worker(s) (give -l the main lcore and %u more)",
			 most, most);
		for (k = 0; k < RTE_DIM(qargs) && info.driver_name != NULL; k++) {
			if (strcmp(info.driver_name, qargs[k].driver) != 0)
				continue;
			if (qargs[k].arg != NULL)
				snprintf(how, sizeof(how),
					 " (give its --vdev %s=%u, or run %u worker(s))",
					 qargs[k].arg, nq, most);
			else
				snprintf(
					how, sizeof(how),
					" (give its --vdev %u rx_pcap= and tx_pcap= (or rx_iface=) "
					"pairs, or run %u worker(s))",
					nq, most);
		}
		fprintf(stderr,
			"fastroute: port %u (%s) offers %u RX / %u TX queues but %u workers need "
			"%u each%s\n",
			p->id, p->name, info.max_rx_queues, info.max_tx_queues, nq, nq, how);
		return -EINVAL;
	}
	if (nq > 1 && info.driver_name != NULL && strcmp(info.driver_name, "net_memif") == 0) {
		char role[16];

		/* DPDK 22.11's memif server sets up only the rings its client
		 * opens: a queue beyond them reads and writes the client's
		 * first ring, beside the worker that owns it */
		dev_kvarg(p->id, "net_memif", "role", role, sizeof(role));
		/* as the driver reads it: client by default */
		if (strstr(role, "server") != NULL || strstr(role, "master") != NULL)
			fprintf(stderr,
				"fastroute: port %u (%s): a memif server polled by %u workers: its "
				"client must open %u queue pairs (testpmd: --rxq=%u --txq=%u); "
				"with "
				"fewer, the queues it did not open share its first ring (DPDK "
				"22.11), "
				"and packets are lost or sent twice (or give this side "
				"role=client)\n",
				p->id, p->name, nq, nq, nq, nq);
	}
	/* af_packet's queues are sockets of one fanout group from the
	 * device's probe on: a queue no worker polls still takes its share
	 * of the packets, and they are never read */
	if (info.driver_name != NULL && strcmp(info.driver_name, "net_af_packet") == 0 &&
	    info.max_rx_queues != nq) {
		fprintf(stderr,
			"fastroute: port %u (%s) has %u queues (qpairs) but %u worker(s) poll %u: "
			"the others' share of the packets would never be read (give qpairs=%u to "
			"the --vdev)\n",
			p->id, p->name, info.max_rx_queues, nq, nq, nq);
		return -EINVAL;
	}
	mtu_max = port_mtu_max(p->id);
	want = dev_mtu_want(r, p);
	if (mtu_max != 0 && want > mtu_max) {
		fprintf(stderr,
			"fastroute: port %u (%s): the device cannot take MTU %u (at most %u)\n",
			p->id, p->name, want, mtu_max);
		return -EINVAL;
	}
	return 0;
}

/* Port @p configured and started, as port_check() found it fit. */
static int port_configure(struct router *r, struct fr_port *p)
{
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	uint16_t nq = (uint16_t)r->nb_workers, q;
	uint16_t nb_rxd = r->opts.rx_desc, nb_txd = r->opts.tx_desc;
	uint32_t want;
	int rc;

	rc = port_info(p, &info);
	if (rc != 0)
		return rc;
	if (nq > 1 && ((RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
		       info.flow_type_rss_offloads) != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
			info.flow_type_rss_offloads;
	} else if (nq > 1) {
		/* said, not refused: af_packet spreads by its fanout hash,
		 * memif by its peer's queues; a NIC without RSS would leave
		 * workers idle while one forwards everything */
		fprintf(stderr,
			"fastroute: port %u (%s) offers no RSS on IP headers: which of its %u RX "
			"queues (one a worker) a packet reaches is the device's or its peer's "
			"choice\n",
			p->id, p->name, nq);
	}
	/* let NICs that can check IPv4 header checksums do it (ip4_validate
	 * trusts RTE_MBUF_F_RX_IP_CKSUM_GOOD/BAD, computes it otherwise) */
	conf.rxmode.offloads = info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	/* The device's MTU, said explicitly (left 0, configure sets 1500
	 * whatever the device reported): what it reported (port_probe()
	 * bounded it), raised to the configuration's (cmd_txn.c
	 * port_mtu_fit() checked that against the same bound, port_check()
	 * against the device's). Never lowered to it: the router's own limit
	 * is for sending. */
	want = dev_mtu_want(r, p);
	conf.rxmode.mtu = want;
	rc = rte_eth_dev_configure(p->id, nq, nq, &conf);
	if (rc != 0) {
		fprintf(stderr, "fastroute: port %u (%s): configure failed: %s\n", p->id, p->name,
			rte_strerror(-rc));
		return rc;
	}
	/* what the device carries now */
	if (rte_eth_dev_get_mtu(p->id, &p->dev_mtu) != 0)
		p->dev_mtu = (uint16_t)want;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->id, &nb_rxd, &nb_txd);
	if (rc != 0) {
		fprintf(stderr, "fastroute: port %u (%s): descriptor counts: %s\n", p->id, p->name,
			rte_strerror(-rc));
		return rc;
	}
	port_desc_fit(&info, &nb_rxd, &nb_txd);
	if (nb_rxd != r->opts.rx_desc || nb_txd != r->opts.tx_desc)
		printf("fastroute: port %u (%s): %u RX and %u TX descriptors a queue (the "
		       "device's limits and thresholds; asked %u and %u)\n",
		       p->id, p->name, nb_rxd, nb_txd, r->opts.rx_desc, r->opts.tx_desc);
	if (r->tx_desc_least == 0 || nb_txd < r->tx_desc_least)
		r->tx_desc_least = nb_txd;
	for (q = 0; q < nq; q++) {
		struct rte_eth_rxconf rxc = info.default_rxconf;

		rxc.offloads = conf.rxmode.offloads;
		rc = rte_eth_rx_queue_setup(p->id, q, nb_rxd, (unsigned int)p->socket, &rxc,
					    r->pools[p->socket]);
		if (rc != 0) {
			fprintf(stderr, "fastroute: port %u (%s): RX queue %u: %s\n", p->id,
				p->name, q, rte_strerror(-rc));
			return rc;
		}
		rc = rte_eth_tx_queue_setup(p->id, q, nb_txd, (unsigned int)p->socket, NULL);
		if (rc != 0) {
			fprintf(stderr, "fastroute: port %u (%s): TX queue %u: %s\n", p->id,
				p->name, q, rte_strerror(-rc));
			return rc;
		}
	}
	p->nb_rxq = nq;
	p->nb_txq = nq;
	/* IPv6 neighbour discovery and multicast need group frames; the data
	 * path filters by destination MAC itself */
	rc = rte_eth_allmulticast_enable(p->id);
	if (rc != 0 && rte_eth_promiscuous_get(p->id) != 1) {
		/* -ENOTSUP: no all-multicast switch. Promiscuous where there
		 * is one (net_af_xdp: the NIC's own filter holds only the
		 * groups the kernel joined, not the router's solicited-node
		 * ones); none either: a device with no filter to open
		 * (net_memif, net_ring, net_null; net_af_packet is
		 * promiscuous), which passes group frames already. Refused (a
		 * VF not trusted, say): promiscuous instead, or say what
		 * will not work */
		if (rc == -ENOTSUP) {
			if (rte_eth_promiscuous_enable(p->id) == 0) {
				p->promisc_set = true;
				printf("fastroute: port %u (%s): no all-multicast switch: "
				       "promiscuous instead\n",
				       p->id, p->name);
				fflush(stdout);
			}
		} else {
			int rc2 = rte_eth_promiscuous_enable(p->id);

			p->promisc_set = rc2 == 0;
			if (rc2 == 0)
				printf("fastroute: port %u (%s): all-multicast refused (%s): "
				       "promiscuous instead\n",
				       p->id, p->name, rte_strerror(-rc));
			else
				printf("fastroute: port %u (%s): all-multicast refused (%s), "
				       "promiscuous too (%s): IPv6 neighbour solicitations to the "
				       "port will not arrive\n",
				       p->id, p->name, rte_strerror(-rc), rte_strerror(-rc2));
			fflush(stdout);
		}
	}
	rc = rte_eth_dev_start(p->id);
	if (rc != 0) {
		fprintf(stderr, "fastroute: port %u (%s): start failed: %s\n", p->id, p->name,
			rte_strerror(-rc));
		/* not started, so port_stop_all() passes it by: the
		 * promiscuous mode the router set is undone here (a kernel
		 * interface under af_packet or af_xdp stays so otherwise;
		 * all-multicast is left as the driver has it) */
		if (p->promisc_set && rte_eth_promiscuous_disable(p->id) == 0)
			p->promisc_set = false;
		return rc;
	}
	p->started = true;
	/* taken down by the configuration file: the link too */
	if (p->admin_down)
		port_link_admin(r, p->id);
	return 0;
}

/* A started port whose link reads down, one the operator has not taken down. */
static bool link_pending(const struct router *r, uint16_t pid)
{
	const struct fr_port *p = &r->ports[pid];
	struct rte_eth_link link;

	return p->started && !p->admin_down && port_link_get(r, pid, &link) == 0 &&
	       link.link_status == RTE_ETH_LINK_DOWN;
}

/*
 * A NIC negotiates for a second or more after it starts. Read at once, its
 * link would be down, and every route through it withdrawn only to be put
 * back a moment later (a million of them: seconds of the control thread's
 * time, twice). Wait up to --link-wait seconds, polling every 100 ms, for
 * the links that read down, as DPDK's l3fwd and testpmd do; a link still
 * down then is down (no cable) and polled from then on.
 */
static void links_wait(struct router *r)
{
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t end = rte_get_timer_cycles() + (uint64_t)r->opts.link_wait * hz;
	bool said = false;
	uint16_t pid;

	for (;;) {
		bool pending = false;

		for (pid = 0; pid < r->nb_ports; pid++)
			pending |= link_pending(r, pid);
		if (!pending || r->quit || rte_get_timer_cycles() >= end)
			break;
		if (!said) {
			printf("fastroute: waiting up to %u s for the link of port",
			       r->opts.link_wait);
			for (pid = 0; pid < r->nb_ports; pid++)
				if (link_pending(r, pid))
					printf(" %u", pid);
			printf(" (--link-wait)\n");
			fflush(stdout);
			said = true;
		}
		rte_delay_ms(100);
	}
	/* a stop asked meanwhile: no port's routes withdrawn only to exit */
	if (r->quit)
		return;
	for (pid = 0; pid < r->nb_ports; pid++)
		link_read(r, pid, false);
}

int port_setup(struct router *r)
{
	unsigned int bad = 0;
	uint16_t pid;
	int rc;

	for (pid = 0; pid < r->nb_ports; pid++)
		if (r->ports[pid].present && port_check(r, &r->ports[pid]) != 0)
			bad++;
	if (bad > 0) {
		fprintf(stderr, "fastroute: %u port(s) refused (above): none started\n", bad);
		return -EINVAL;
	}
	rc = pools_create(r);
	if (rc != 0)
		return rc;
	for (pid = 0; pid < r->nb_ports; pid++) {
		if (!r->ports[pid].present)
			continue;
		rc = port_configure(r, &r->ports[pid]);
		if (rc != 0)
			return rc;
	}
	links_wait(r);
	return 0;
}

/*
 * Read port @pid's link into what workers act on. @change: a poll, which
 * counts and says a transition; else the state at start (after
 * links_wait()), said only when the link is down, not counted.
 */
static void link_read(struct router *r, uint16_t pid, bool change)
{
	struct fr_port *p = &r->ports[pid];
	struct rte_eth_link link;
	uint8_t down;

	/* a device that cannot tell its link is taken as up */
	if (!p->started || port_link_get(r, pid, &link) != 0)
		return;
	down = link.link_status == RTE_ETH_LINK_DOWN;
	if (!change || down != p->link_read_down) {
		/* a flap shorter than its hold: back where it was */
		if (change && down == p->link_down)
			p->link_flaps_ignored++;
		p->link_read_down = down;
		p->link_read_ms = control_now_ms();
	}
	if (change) {
		if (down == p->link_down) {
			/* where the operator set it already: nothing left
			 * to let through */
			if (down == p->link_bypass_down)
				p->link_hold_bypass_ms = 0;
			return;
		}
		/* 'port N hold-time': acted on once the reading has lasted,
		 * but for the change the operator made ('port N up' set the
		 * link up: back at once, as the command says) */
		if ((control_now_ms() >= p->link_hold_bypass_ms || down != p->link_bypass_down) &&
		    control_now_ms() - p->link_read_ms < (down ? p->hold_down_ms : p->hold_up_ms))
			return;
	}
	/* spent once the link went the operator's way; not by the start-up
	 * reading of a carrier that has yet to follow 'port N down' */
	if (change || down == p->link_bypass_down)
		p->link_hold_bypass_ms = 0;
	p->link_down = down;
	port_down_sync(r, pid);
	/* back, its IPv6 addresses are probed again (RFC 4862 5.4) */
	if (down)
		dad_reset(r, pid);
	/* up, or up at start: our addresses said on the link, for neighbours
	 * that cached another MAC for them meanwhile (a NIC or a router
	 * swapped, a failover) */
	if (!down)
		router_announce(r, pid, NULL);
	if (change)
		p->link_changes++;
	if (change || down) {
		char by[48] = "";

		if (down && p->link_held_down)
			snprintf(by, sizeof(by), " (set down by 'port %u down')", pid);
		router_say("fastroute: port %u (%s) link %s%s%s\n", pid, p->name,
			   down ? "down" : "up", change ? "" : " at start", by);
	}
}

int port_down_sync(struct router *r, uint16_t pid)
{
	const struct fr_port *p = &r->ports[pid];
	const bool down = p->link_down || p->admin_down;
	const bool was = r->dp_ports[pid].down != 0;
	uint32_t failed;
	int rc = 0;

	/* workers read it per packet; any order with other fields is fine */
	DP_STORE(r->dp_ports[pid].down, (uint8_t)down);
	/* the static routes through it wait for it (lib/fib): meanwhile their
	 * traffic takes the covering route, if any */
	if (r->fib != NULL && (rc = fib_port_set_down(r->fib, pid, down, &failed)) != 0) {
		fprintf(stderr, "fastroute: port %u %s: %u routes %s: %s\n", pid,
			down ? "down" : "up", failed,
			down ? "could not be withdrawn"
			     : "could not be put back (retried once routes leave the table)",
			strerror(-rc));
		fflush(stderr);
	}
	/* out of service (a lost carrier, 'port N down'): what was learnt on
	 * the link may be elsewhere when it is back (a cable moved, a device
	 * swapped). Forgotten at once, so that no timer probes them through
	 * the down port meanwhile (refused, counted unanswered: FAILED once
	 * it is back), and nothing is resolved there until then
	 * (control_resolve()). Static entries stay. After the routes: a held
	 * packet goes where they send it now (held_release()) */
	if (down && !was && r->neigh != NULL)
		neigh_port_flush(r->neigh, pid);
	return rc;
}

void port_link_admin(struct router *r, uint16_t pid)
{
	struct fr_port *p = &r->ports[pid];
	int rc = 0;

	if (!p->started)
		return;
	if (p->admin_down == p->link_held_down) {
		/* where it should be: no error left to show (a driver that
		 * cannot set it down never gets here while the port is down) */
		p->link_set_err = 0;
		return;
	}
	rc = p->admin_down ? rte_eth_dev_set_link_down(pid) : rte_eth_dev_set_link_up(pid);
	if (rc == 0) {
		p->link_held_down = p->admin_down;
		/* the link follows the command: its change that way (within
		 * 10 s, a NIC negotiating) is not held */
		p->link_hold_bypass_ms = control_now_ms() + 10000;
		p->link_bypass_down = p->admin_down;
	}
	p->link_set_err = rc;
	if (rc != 0 && rc != -ENOTSUP) {
		router_say("fastroute: port %u (%s): link %s failed: %s\n", pid, p->name,
			   p->admin_down ? "down" : "up", rte_strerror(-rc));
	}
}

void port_link_poll(struct router *r)
{
	uint32_t back, left;
	uint16_t pid;

	for (pid = 0; pid < r->nb_ports; pid++)
		link_read(r, pid, true);
	/* routes a port coming up could not put back (the tables filled
	 * while they waited): tried again, said when some go back */
	if (r->fib == NULL || fib_route_stranded(r->fib) == 0)
		return;
	fib_down_retry(r->fib, &back, &left);
	if (back > 0) {
		router_say("fastroute: %u withdrawn routes put back, %u still out (table full)\n",
			   back, left);
	}
}

/* @n events over @ms milliseconds, a second */
static uint64_t per_second(uint64_t n, uint64_t ms)
{
	return (uint64_t)((double)n * 1000.0 / (double)ms + 0.5);
}

void port_rates_poll(struct router *r, uint64_t now_ms)
{
	uint16_t pid;

	for (pid = 0; pid < r->nb_ports; pid++) {
		struct fr_port *p = &r->ports[pid];
		const struct rte_eth_stats *o = &p->rate_prev;
		struct rte_eth_stats es;
		uint64_t ms = now_ms - p->rate_prev_ms;

		if (!p->started || rte_eth_stats_get(pid, &es) != 0) {
			p->rate_prev_ms = 0;
			p->rate_known = false;
			continue;
		}
		/* a counter below its last reading was reset meanwhile (by
		 * a secondary process, the driver): no rate this time; nor
		 * over a window much longer than the second it is shown as
		 * (a long command or load held the control thread): an
		 * average of many seconds would read as the last one's */
		p->rate_known = p->rate_prev_ms != 0 && ms > 0 && ms <= 2 * PORT_RATE_MS &&
				es.ipackets >= o->ipackets && es.opackets >= o->opackets &&
				es.ibytes >= o->ibytes && es.obytes >= o->obytes;
		if (p->rate_known) {
			p->rx_pps = per_second(es.ipackets - o->ipackets, ms);
			p->tx_pps = per_second(es.opackets - o->opackets, ms);
			p->rx_bps = per_second((es.ibytes - o->ibytes) * 8, ms);
			p->tx_bps = per_second((es.obytes - o->obytes) * 8, ms);
		}
		p->rate_prev = es;
		p->rate_prev_ms = now_ms;
	}
}

/*
 * The device's counters now, as the record 'show port stats' subtracts
 * (struct fr_port): the xstats, then the basic counters right after. Only
 * the control thread writes the record; reading the counters adds no
 * writer. Returns 0, or -1 when they could not all be read: what could
 * not keeps no record (shown as the device counts them).
 */
static int port_stats_base_take(struct fr_port *p)
{
	struct rte_eth_xstat *xs = NULL;
	uint64_t *base = NULL;
	int nx = 0, got = -1, i, tries, rc = 0;

	/* a count that changes between the two calls: once more */
	for (tries = 0; tries < 2 && got != nx; tries++) {
		nx = rte_eth_xstats_get(p->id, NULL, 0);
		if (nx <= 0)
			break;
		free(xs);
		free(base);
		xs = calloc((size_t)nx, sizeof(*xs));
		base = calloc((size_t)nx, sizeof(*base));
		if (xs == NULL || base == NULL)
			break;
		got = rte_eth_xstats_get(p->id, xs, (unsigned int)nx);
	}
	free(p->xstats_base);
	p->xstats_base = NULL;
	p->nb_xstats_base = 0;
	if (nx > 0 && got == nx && xs != NULL && base != NULL) {
		for (i = 0; i < nx; i++)
			if (xs[i].id < (uint64_t)nx) /* DPDK: xs[i].id == i */
				base[xs[i].id] = xs[i].value;
		p->xstats_base = base;
		p->nb_xstats_base = (unsigned int)nx;
		base = NULL;
	} else if (nx != 0) {
		rc = -1;
	}
	free(xs);
	free(base);
	if (rte_eth_stats_get(p->id, &p->stats_base) != 0) {
		memset(&p->stats_base, 0, sizeof(p->stats_base));
		rc = -1;
	}
	return rc;
}

unsigned int port_stats_clear(struct router *r)
{
	unsigned int unread = 0;
	uint16_t pid;

	for (pid = 0; pid < r->nb_ports; pid++) {
		struct fr_port *p = &r->ports[pid];

		p->link_changes = 0;
		p->link_flaps_ignored = 0;
		if (!p->started)
			continue;
		unread += port_stats_base_take(p) != 0;
	}
	return unread;
}

void port_stop_all(struct router *r)
{
	uint16_t pid;

	for (pid = 0; pid < r->nb_ports; pid++) {
		if (!r->ports[pid].started)
			continue;
		/* a link 'port N down' set down goes up again: on some
		 * drivers (a NIC's kernel netdev) it would outlive the router */
		if (r->ports[pid].link_held_down && rte_eth_dev_set_link_up(pid) == 0)
			r->ports[pid].link_held_down = false;
		/* so would the promiscuous mode the router turned on */
		if (r->ports[pid].promisc_set && rte_eth_promiscuous_disable(pid) == 0)
			r->ports[pid].promisc_set = false;
		rte_eth_dev_stop(pid);
		rte_eth_dev_close(pid);
		r->ports[pid].started = false;
		free(r->ports[pid].xstats_base);
		r->ports[pid].xstats_base = NULL;
		r->ports[pid].nb_xstats_base = 0;
	}
}
