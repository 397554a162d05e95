/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The router's state: ports, tables, workers. One instance per process,
 * owned by the control thread; workers read what datapath.h gives them.
 */
#ifndef FR_ROUTER_H
#define FR_ROUTER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ring.h>

#include "cmd.h"
#include "datapath.h"
#include "fib.h"
#include "fr_addr.h"
#include "neigh.h"
#include "stats.h"

#define FR_MAX_PORTS RTE_MAX_ETHPORTS
/* configuration command ids up to the last setting (cmd.h's enum cmd_id) */
#define FR_BOOT_SETTINGS  21
#define FR_PORT_MAX_ADDRS 16
#define FR_CTRL_RING_SIZE 1024
#define FR_DEFAULT_SOCKET "/run/fastroute/fastroute.sock"
#define FR_ICMP_RATE	  1000 /* ICMP errors per second per lcore, by default */
#define FR_ICMP_BURST	  50
/* Packets a worker takes from a port in one poll, decided in bursts of
 * DP_BURST and, when all go to one port whose TX buffer is empty, sent in
 * one TX call: what a poll costs apart from its packets (a NIC's
 * doorbell, memif's ring index written by the other core, the loop's own
 * checks) is paid once for up to this many. An idle link is not waited
 * for: a poll takes what has arrived. At most a quarter of a TX ring
 * (--tx-desc, or less where a device gave less), never less than a
 * burst: worker_poll_size(). */
#define FR_RX_BURST (4 * DP_BURST)

struct cli_peer;

/*
 * Duplicate address detection of a port's IPv6 address (RFC 4862 5.4), run
 * optimistically (RFC 4429): the address serves while it is tentative, its
 * advertisements without the override flag and none unsolicited; another
 * host's claim meanwhile fails it, and a failed address is not the
 * router's (not answered for, not a source, packets to it dropped) until
 * it is added again or its link comes back up.
 */
enum addr_dad {
	ADDR_DAD_WAIT = 0,  /* run when its link is next announced on (added, link up) */
	ADDR_DAD_TENTATIVE, /* probed, until dad_wait.until_ms */
	ADDR_DAD_OK,
	ADDR_DAD_FAILED,
};

#define ADDR_DAD_MS 1000 /* RetransTimer x DupAddrDetectTransmits (RFC 4861 10) */
/* probes sent again when the port failed to transmit during the wait:
 * the first probe's wait looks every ADDR_DAD_CHECK_MS, the others' at
 * their end */
#define ADDR_DAD_REPROBES 3
#define ADDR_DAD_CHECK_MS 100

/* The wait of a tentative address's probe (ADDR_DAD_TENTATIVE). A probe
 * the port may not have sent is sent again, and the wait starts over: a
 * driver that counts a transmit error may still hold the frame, to send
 * it late. DPDK 22.11's af_packet leaves the frames of a TX ring kick the
 * kernel refused in the ring until a later kick, and the kernel refuses
 * the first kick after the link went down and up (the socket's pending
 * ENETDOWN): a probe in it would leave with the next frame, perhaps the
 * announcement after the wait, and its answer come too late. */
struct dad_wait {
	uint64_t until_ms;  /* the wait's end */
	uint64_t check_ms;  /* the next look at the port's transmit failures */
	uint64_t tx_failed; /* dad_tx_failed() when the last probe went */
	uint8_t reprobes;   /* of ADDR_DAD_REPROBES */
	bool lost;	    /* the last probe was not even queued (no mbuf, ring full) */
};

/* An address configured on a port (the host address and its prefix length). */
struct port_addr {
	struct fr_addr addr;
	uint8_t len;
	uint8_t dad; /* enum addr_dad, IPv6 only */
	struct dad_wait dad_wait;
	uint64_t defended_ms; /* when it was last announced against another host's claim */
};

/* The prefix of the port address @pa (port addresses keep their host bits). */
static inline void port_addr_prefix(const struct port_addr *pa, struct fr_prefix *pf)
{
	pf->addr = pa->addr;
	pf->len = pa->len;
	fr_addr_mask(&pf->addr, pf->len);
}

/* The Subnet-Router anycast address of port address @pa (RFC 4291 2.6.1:
 * its prefix, host bits zero) in @pf; false for an IPv4 address and for a
 * /127 or /128, which have none (RFC 6164: both addresses are hosts'). */
static inline bool port_addr_anycast6(const struct port_addr *pa, struct fr_prefix *pf)
{
	if (pa->addr.family != AF_INET6 || pa->len >= 127)
		return false;
	port_addr_prefix(pa, pf);
	return true;
}

/* The MLD groups a port may listen to: all-routers, its link-local
 * address's solicited-node group, and for each address its own and its
 * prefix's (Subnet-Router anycast) */
#define MLD_GROUPS_MAX (2 * FR_PORT_MAX_ADDRS + 2)
/* the sources of source-specific MLD queries kept for a group's answer */
#define MLD_SRC_MAX 8

/* A prefix a Router Advertisement names, with its option's L and A flags */
struct ra_pfx {
	uint8_t addr[16];
	uint8_t len, la;
};

/* The content of a Router Advertisement that can change: the MTU, the
 * flags (RA_MANAGED, RA_OTHER, the preference), the prefixes, the DNS
 * servers. Compared whole (memcmp): built zeroed. */
struct ra_said {
	uint16_t mtu;
	uint8_t flags, npfx, ndns;
	struct ra_pfx pfx[FR_PORT_MAX_ADDRS];
	uint8_t dns[RA_DNS_MAX][16];
};

struct fr_port {
	uint16_t id;
	bool present; /* probed by EAL (or created by a test) */
	bool started;
	uint64_t link_changes; /* link up/down transitions seen by port_link_poll() */
	bool link_down;	       /* the link, as last polled and held ('port N hold-time') */
	/* hold-time: a link reading that differs from link_down is acted on
	 * once it has lasted hold_up_ms (coming up) or hold_down_ms (going
	 * down); link_read_down is the last reading, since link_read_ms */
	uint32_t hold_up_ms, hold_down_ms;
	bool link_read_down;
	uint64_t link_read_ms;
	/* until then, the link's change to link_bypass_down is the operator's
	 * ('port N down/up' set it): not held */
	uint64_t link_hold_bypass_ms;
	bool link_bypass_down;
	uint64_t link_flaps_ignored; /* readings that changed back within their hold */
	/* the device's counters at the last 'clear stats', which 'show port
	 * stats' subtracts: a reset of its own (rte_eth_stats_reset) would
	 * give a software device's per-queue counters, which the workers
	 * write, a second writer, and could be lost to a worker's update */
	struct rte_eth_stats stats_base;
	uint64_t *xstats_base; /* by xstat id; nb_xstats_base of them */
	unsigned int nb_xstats_base;
	/* 'show port stats' rates: the device's counters as port_rates_poll()
	 * last read them (at rate_prev_ms, 0: not read), and the rates over
	 * the interval before (rate_known: two readings in a row, neither
	 * counter reset between them) */
	struct rte_eth_stats rate_prev;
	uint64_t rate_prev_ms;
	uint64_t rx_pps, tx_pps, rx_bps, tx_bps;
	bool rate_known;
	bool admin_down; /* 'port N down' */
	/* 'port N down' also sets the link down where the driver can
	 * (rte_eth_dev_set_link_down): held, or the error that kept it up */
	bool link_held_down;
	/* the router made the device promiscuous (no all-multicast to open):
	 * undone at stop, as a kernel netdev (net_af_xdp) would keep it */
	bool promisc_set;
	int link_set_err;	 /* 0, or a negative errno */
	uint64_t ll_defended_ms; /* port_addr's defended_ms, of its link-local address */
	/* when its addresses are announced again (RFC 5227 2.3: two
	 * announcements, 2 s apart), 0 when none is due */
	uint64_t announce_again_ms;
	/* DAD of its link-local address, as port_addr's */
	uint8_t ll_dad;
	/* out of service since: its addresses that DAD failed are tried again
	 * when it is back (dad_reset(), dad_retry_failed()), not before */
	bool dad_retry;
	/* the router has used its link-local address here (ll_in_use()) */
	bool ll_used;
	/* its one MLD report so far went from :: (ll_in_use()): the second
	 * goes once DAD keeps the link-local address (dad_kept()) */
	bool ll_mld_again;
	struct dad_wait ll_dad_wait;
	/* answers to MLD queries that are due (RFC 3810 6.2, mld_query_input(),
	 * mld_answer_due()): one to a general query at mld_general_ms (0:
	 * none), one about group mld_asked[i] at mld_asked_ms[i], with the
	 * nb_mld_asked_src[i] sources that source-specific queries asked about
	 * it (none: the whole group, as past MLD_SRC_MAX); the last answer
	 * went at mld_answered_ms */
	uint64_t mld_general_ms;
	uint8_t mld_asked[MLD_GROUPS_MAX][16];
	uint64_t mld_asked_ms[MLD_GROUPS_MAX];
	uint8_t mld_asked_src[MLD_GROUPS_MAX][MLD_SRC_MAX][16];
	uint8_t nb_mld_asked_src[MLD_GROUPS_MAX];
	uint8_t nb_mld_asked;
	uint64_t mld_answered_ms;
	/* until then, MLDv1 reports: an MLDv1 querier is on the link
	 * (mld_query_input(); 0, in the past: none heard) */
	uint64_t mld_v1_until_ms;
	/* groups it left (mld_leave()), reported again at mld_left_ms (RFC
	 * 3810 6.1: a state change goes twice), 0 when none is due */
	uint8_t mld_left[MLD_GROUPS_MAX][16];
	uint8_t nb_mld_left;
	uint64_t mld_left_ms;
	/* its groups' report sent again then (mld_report_again()), 0: none */
	uint64_t mld_again_ms;
	/* the device's MTU (frames it takes and sends): what it reported,
	 * raised by 'port N mtu' above it (rte_eth_dev_set_mtu) */
	uint16_t dev_mtu;
	uint16_t dev_mtu_probed; /* what it reported when probed (bounded) */
	char name[RTE_ETH_NAME_MAX_LEN];
	/* net_af_packet: its kernel interface (iface=), whose carrier is the
	 * link (the driver reports its link up whatever the interface does);
	 * "" for any other device */
	char kif[16];
	int socket;
	uint16_t nb_rxq, nb_txq;
	struct port_addr addrs[FR_PORT_MAX_ADDRS];
	unsigned int nb_addrs;
	/* Router Advertisements (RFC 4861 6.2): 'port N ra on interval S', 0
	 * while off; when the next is due, the last sent, how many of the
	 * first ones (sent faster) so far; the least time between two
	 * ('min-delay', MIN_DELAY_BETWEEN_RAS: 3000 unless set)
	 */
	uint16_t ra_max_s, ra_min_delay_ms;
	uint64_t ra_next_ms, ra_last_ms;
	uint8_t ra_initial;
	/* their M and O flags (RA_MANAGED, RA_OTHER), RA_NO_SLAAC, the
	 * preference (RA_PRF_*) and the DNS servers they name (RFC 8106);
	 * 'ra off' clears them */
	uint8_t ra_flags, ra_ndns;
	uint8_t ra_dns[RA_DNS_MAX][16];
	/* what the last advertisement said, checked against the port every
	 * second (ra_check_ms) so that a change (an address, the MTU) goes
	 * out soon (RFC 4861 6.2.4); what it said and the port no longer
	 * has, withdrawn in the next ra_gone_left ones: prefixes deprecated
	 * (lifetimes 0), DNS servers with lifetime 0 (RFC 8106 5.1); the
	 * prefixes it said that are left out while the router's address in
	 * them failed DAD (held: withdrawn once that address goes) */
	struct ra_said ra_said, ra_gone, ra_held;
	uint8_t ra_gone_left;
	bool ra_withdrawn; /* the last one sent had router lifetime 0 */
	uint64_t ra_check_ms;
};

/* ARP and ND frames of the control thread's worker 0 keeps to offer a
 * full TX queue again, and for how long (ms) */
#define FR_CTRL_PEND	32
#define FR_CTRL_PEND_MS 100

struct worker {
	unsigned int lcore;
	unsigned int idx;	  /* queue index on every port, QSBR thread id */
	struct rte_ring *to_ctrl; /* worker -> control, single producer/consumer */
	struct rte_eth_dev_tx_buffer *txb[FR_MAX_PORTS];
	struct rtcache *rtc; /* this worker's route cache */
	/* the last clear of its counters (router.stats_clear) it made */
	uint64_t clear_done;
	struct dp_stats st;
	/* the control thread's frames a TX queue refused, per port: st's
	 * ctrl_tx_full per port, never cleared (what a DAD probe's wait
	 * compares: dad_tx_failed()) */
	uint64_t ctrl_refused[FR_MAX_PORTS];
	/* worker 0: the control thread's ARP and ND frames a TX queue refused,
	 * offered again first at each drain until their time is up (a
	 * saturated port frees descriptors now and then, and its neighbours
	 * must still be probed and answered), then counted ctrl_tx_full */
	struct rte_mbuf *ctrl_pend[FR_CTRL_PEND];
	uint64_t ctrl_pend_until[FR_CTRL_PEND]; /* TSC */
	unsigned int nb_ctrl_pend;
};

struct router_opts {
	const char *config;
	const char *sock_path;
	int64_t sock_gid; /* --socket-group; -1: the router's own group */
	enum fib_backend backend;
	uint32_t max_routes;
	uint32_t tbl8s;
	uint32_t max_routes6;
	uint32_t tbl8s6;
	uint32_t max_nexthops;
	uint32_t neigh_size;
	uint32_t nb_mbufs;
	uint16_t rx_desc, tx_desc;
	uint32_t rtcache_size; /* entries per worker */
	uint32_t link_wait;    /* seconds to wait at start for links still down */
};

struct router {
	struct router_opts opts;
	struct fib *fib;
	struct neigh_table *neigh;
	struct reasm *reasm;	  /* datagrams for the router, put together (reasm.h) */
	uint32_t reasm_timeout_s; /* set ip reassembly-timeout; 0: the default (30 s, 60 s) */
	struct rte_rcu_qsbr *qsv;
	uint16_t nb_ports;
	uint16_t tx_desc_least; /* the smallest TX ring a port's device gave */
	struct fr_port ports[FR_MAX_PORTS];
	struct dp_port dp_ports[FR_MAX_PORTS]; /* what workers read */
	struct dp_conf dpconf;		       /* router-wide settings workers read */
	uint32_t icmp_rate, icmp_burst;	       /* ICMP errors per second and burst */
	/* the settings as they were before the configuration file (defaults
	 * and command-line options), by command id (a setting's value and
	 * value2) and port (0 for the router's): what 'configure replace'
	 * puts back where its file sets none (cmd_replace.c) */
	uint32_t boot_set[FR_BOOT_SETTINGS][FR_MAX_PORTS][2];
	struct neigh_params boot_np;
	bool boot_saved;
	/* the control thread's own buckets; 3/4 and Packet Too Big (path MTU
	 * discovery) apart, as the workers', so that a flood of other errors
	 * cannot starve them */
	struct dp_tokens icmp_tokens, icmp_pmtu_tokens;
	/* Redirects sent lately, by the sender's address (its slot a hash of
	 * it; a collision starts the other sender afresh): each one waits
	 * twice as long as the last, and after REDIRECT_DAMP_MAX the sender
	 * gets none until it has been silent REDIRECT_SILENCE_MS
	 * (icmp_redirect()) */
	struct redirect_peer {
		uint32_t addr;
		uint32_t sent;
		uint64_t last_ms;
	} redirect_peers[1024];
	unsigned int nb_workers;
	struct worker *workers[RTE_MAX_LCORE];
	struct rte_mempool *pools[RTE_MAX_NUMA_NODES]; /* mbufs, per NUMA socket */
	struct rte_ring *ctrl_tx; /* control -> worker 0, packets to transmit (m->port = egress) */
	struct ctrl_stats cst;
	uint64_t next_tick_ms; /* neighbour timers */
	uint64_t next_link_ms; /* port link poll */
	/* the service manager's watchdog (sd_notify WATCHDOG=1 every half of
	 * watchdog_ms; 0: none), kept from the control loop and from long
	 * commands alike (control_service()) */
	uint64_t watchdog_ms, next_watchdog_ms;
	uint64_t next_rate_ms; /* port_rates_poll() */
	/* packets the mbuf pools were sized to hold for neighbours (set as
	 * they are created; 0 before) */
	uint32_t hold_room;
	bool pools_ready;	   /* hold_room is known */
	uint64_t conflict_said_ms; /* the last address conflict printed */
	volatile bool quit;
	/* clear stats: bumped by the control thread; each worker zeroes its
	 * own counters when it sees it move (no two writers on a counter) */
	uint64_t stats_clear;
	bool running; /* ports started, workers launched */
	uint64_t start_tsc;
	/* the CLI socket client whose line runs now (cli_sock.c sets it for
	 * the line): a load reads as that client may; NULL for the router's
	 * own terminal and -f at start */
	const struct cli_peer *cli_peer;
	/* control_service() runs: a command (a walk of the routes, a load)
	 * holds the tables, so what packets would change in them waits for
	 * control_poll() (dad_routes_due) */
	bool in_command;
	bool dad_routes_due; /* a failed address's local route still to take out */
	/* the workers' list of the router's own addresses (dpconf.local) is
	 * older than its addresses: its rebuild found no memory, and is
	 * tried again with each poll of the links (control_poll()) */
	bool local_stale;
};

/* Rebuild the list of the router's addresses workers check sources
 * against, after address changes. Control thread. */
void router_local_update(struct router *r);

/* ICMP error rate for workers and the control thread. */
void router_icmp_rate_set(struct router *r, uint32_t pps, uint32_t burst);

/* Is @port a port the router can use? */
static inline bool router_port_ok(const struct router *r, uint32_t port)
{
	return port < r->nb_ports && r->ports[port].present;
}

/* port.c */
int port_probe(struct router *r);
int port_setup(struct router *r);
/* The largest MTU port @pid's device takes (DPDK's rule: max_mtu, and the
 * MTU plus the device's overhead within max_rx_pktlen), capped by what one
 * buffer holds (PORT_MTU_MAX); 0 when the device cannot be asked. */
uint32_t port_mtu_max(uint16_t pid);
/* Descriptor counts @rxd and @txd (already within the device's limits)
 * rounded up to what its default queue thresholds need: ixgbe and i40e
 * take TX rings only in multiples of tx_rs_thresh (32) of at least
 * tx_rs_thresh + tx_free_thresh, and allocate RX buffers in bulk only in
 * multiples of rx_free_thresh; within the device's maximum. */
void port_desc_fit(const struct rte_eth_dev_info *info, uint16_t *rxd, uint16_t *txd);
/* Frames a port receives whole: one mbuf of the pools' data room (no
 * scatter), less the Ethernet header and CRC. */
#define PORT_MTU_MAX (RTE_MBUF_DEFAULT_DATAROOM - RTE_ETHER_HDR_LEN - RTE_ETHER_CRC_LEN)
/* Control thread, every LINK_POLL_MS: each started port's link state into
 * dp_ports[].down (workers drop what would leave by a down port,
 * port_down), counted in link_changes and said on stdout when it changes. */
void port_link_poll(struct router *r);
/* Control thread, every PORT_RATE_MS: each started port's packets and bits
 * a second, received and sent, over the interval since the last reading
 * (the device's counters: 'show port stats'). */
#define PORT_RATE_MS 1000
void port_rates_poll(struct router *r, uint64_t now_ms);
/* dp_ports[@pid].down from the link and the operator's state. */
int port_down_sync(struct router *r, uint16_t pid);
/* The physical link after the operator's state of a started port: set down
 * while the port is taken down (the peer sees the link go), up again after;
 * a driver that cannot (-ENOTSUP: af_packet, memif, ...) leaves it up and
 * the error is kept for show port info. Control thread. */
void port_link_admin(struct router *r, uint16_t pid);
void port_stop_all(struct router *r);
/* 'clear stats' for the ports: link changes and flaps ignored zeroed, the
 * devices' statistics and extended statistics recorded (struct fr_port);
 * returns how many ports' could not all be read. Control thread. */
unsigned int port_stats_clear(struct router *r);

/* worker.c */
int worker_main(void *arg);
/* Worker 0: send what the control thread queued on r->ctrl_tx. */
void worker_ctrl_tx_drain(struct router *r, struct worker *w);
/* Send @n <= FR_RX_BURST packets received on @in_port as dp_input_burst()
 * decided in @out: to a port (TX buffer, or at once when the whole burst
 * goes to one port with nothing buffered), to the control thread, or
 * nowhere (dropped, already freed). What a TX queue refuses is freed and
 * counted tx_full, or port_down once the port is known down. */
void worker_output(struct worker *w, uint16_t in_port, struct rte_mbuf **pkts, const uint16_t *out,
		   uint16_t n);
/* Hand @n packets to the control thread (@errors: dropped ones due an ICMP
 * error), keeping the ring's last quarter for ARP and ND; what the ring
 * does not take is freed and counted. */
void worker_to_control(struct worker *w, struct rte_mbuf **pkts, unsigned int n, bool errors);
/* stats.c: zero @w's counters (its route cache's too) and acknowledge the
 * clear generation: by the worker itself, whose counters have no other
 * writer, or by the control thread while no worker runs. */
void worker_stats_clear(struct router *r, struct worker *w);
struct worker *worker_create(struct router *r, unsigned int lcore, unsigned int idx);

/* The rings between the workers and the control thread keep their last
 * quarter for ARP and neighbour discovery (frame_neigh()): floods of other
 * packets (pings, packets for hosts that never answer, their errors) must
 * not crowd out what keeps every neighbour, and so all forwarding, alive.
 * The workers' ring lets packets to resolve into the first half of it. */
static inline unsigned int fr_ring_reserve(const struct rte_ring *ring)
{
	return rte_ring_get_capacity(ring) / 4;
}

/* An ARP frame, or an ICMPv6 neighbour solicitation or advertisement
 * without extension headers (not router discovery nor redirects: the
 * router acts on neither) and with hop limit 255, as RFC 4861 7.1 wants
 * it: only a sender on the link can reach the reserve, as with ARP. */
static inline bool frame_neigh(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)(eth + 1);
	uint8_t type;

	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP))
		return true;
	if (eth->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6) ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip6) + 1 ||
	    ip6->proto != IPPROTO_ICMPV6 || ip6->hop_limits != 255)
		return false;
	type = *(const uint8_t *)(ip6 + 1);
	return type == ND_TYPE_NS || type == ND_TYPE_NA;
}

/* Cut the @cut bytes that follow the first @keep of @m (IPv4 options,
 * IPv6 extension headers behind the Ethernet and IP headers): the headers
 * move up to what follows, which stays where it is, in every segment.
 * Both ranges lie in the first segment. Returns the frame's new start. */
static inline char *frame_cut(struct rte_mbuf *m, uint32_t keep, uint32_t cut)
{
	char *h = rte_pktmbuf_mtod(m, char *);

	memmove(h + cut, h, keep);
	rte_pktmbuf_adj(m, (uint16_t)cut);
	return h + cut;
}

/* control.c */
/* Empty @m for an answer built in place: rte_pktmbuf_reset() alone would
 * drop a chained packet's other segments (it unlinks them, frees none),
 * leaving them out of their pool for good. */
static inline void control_reuse(struct rte_mbuf *m)
{
	struct rte_mbuf *seg = m->next, *nx;

	/* a segment at a time: the tail is no packet of its own (its
	 * nb_segs and pkt_len say nothing of the rest) */
	for (; seg != NULL; seg = nx) {
		nx = seg->next;
		rte_pktmbuf_free_seg(seg);
	}
	m->next = NULL;
	rte_pktmbuf_reset(m);
}
/* An mbuf for the control thread to send on @port (from its NUMA socket's
 * pool), or NULL */
struct rte_mbuf *control_alloc(struct router *r, uint16_t port);
/* Such an mbuf (*@mp) of @len bytes, their start returned; NULL (counted
 * ctrl_no_mbuf) when there is none. */
char *control_frame(struct router *r, uint16_t port, uint16_t len, struct rte_mbuf **mp);
/* Announce @port's addresses (only @only when not NULL): a gratuitous ARP
 * (RFC 5227 announcement) for each IPv4 one, an unsolicited NA (RFC 4861
 * 7.2.6) for each IPv6 one and the link-local; nothing while the port is
 * out of service. All of the port's go out again 2 s later (RFC 5227 2.3's
 * ANNOUNCE_NUM and ANNOUNCE_INTERVAL), from router_announce_due(). */
void router_announce(struct router *r, uint16_t port, const struct fr_addr *only);
/* The announcements due again at @now (router_announce()), and the MLD
 * reports of groups left (router_addrs_gone()). */
void router_announce_due(struct router *r, uint64_t now);
/* @port lost its @n IPv6 addresses @gone (a change kept): the groups left
 * are reported (MLD), while the port is in service. */
void router_addrs_gone(struct router *r, uint16_t port, const struct port_addr *gone,
		       unsigned int n);
/* Another host on @port claims our address @ours: when it is @port's,
 * announce it once, then not again on that port for 10 s (RFC 5227 2.4
 * (b)). */
void router_defend(struct router *r, uint16_t port, const struct fr_addr *ours);
void control_init(struct router *r);
void control_input(struct router *r, struct rte_mbuf **pkts, unsigned int n);
unsigned int control_poll(struct router *r);
int control_send(struct router *r, struct rte_mbuf *m, uint16_t port);
/* @port is out of service ('port N down', or its link): what is sent to
 * it is refused. */
bool port_is_down(const struct router *r, uint16_t port);
/* A packet that cannot reach its next hop (@why: the neighbour did not
 * answer, its port is down): counted, and answered with host (address)
 * unreachable (3/1, ICMPv6 1/3) when it was @forwarded and the rules and
 * rate of an error allow. Consumes @m. */
void host_unreachable(struct router *r, struct rte_mbuf *m, bool forwarded, enum ctrl_drop why);
/* @m dropped for @why (counted), with the error @type/@code (@aux: an MTU,
 * a pointer) of its family, ICMP or ICMPv6, where one is due
 * (icmp_ctrl_error_due(): the rules and the rate). Consumes @m. */
void ctrl_drop_error(struct router *r, struct rte_mbuf *m, enum ctrl_drop why, uint8_t type,
		     uint8_t code, uint32_t aux);
/* A packet to forward (@m, as it arrived: an unresolved one, looked up
 * again) whose route no longer forwards it: as a worker treats one that
 * arrives now. Its route's type @type (-1: no route) local: for the
 * router; else counted route_changed, with the destination unreachable
 * the route calls for (none for a blackhole or a broadcast). Consumes @m. */
void route_changed(struct router *r, struct rte_mbuf *m, int type);
/* A forwarded packet @m handed over to the control thread for @port: true
 * (@m consumed, counted port_down) when that port is no longer in service,
 * host unreachable said when it went out of service after the worker's
 * check (forward_hop_back()). */
bool forward_port_gone(struct router *r, struct rte_mbuf *m, uint32_t port);
void forward_hop_back(struct rte_mbuf *m);
/* Queue the @n fragments of one packet for @port, all or none (n < 0: the
 * fragmentation failed, counted); how many were queued. */
int control_send_train(struct router *r, struct rte_mbuf **frags, int n, uint16_t port);
uint64_t control_now_ms(void);
/* Inside a long command (show route of a million routes, a big load):
 * answer ARP/ND, send held packets, run the neighbour timers now, so the
 * command does not stall them for seconds. Never changes a route (the
 * link poll waits for the main loop). Control thread, running router. */
void control_service(struct router *r);
/* The service manager's watchdog told the control thread is alive, when
 * due (also from a load that serves nothing else: control_service()). */
void control_watchdog(struct router *r, uint64_t now);
/* Route, resolve and send an IPv4 packet the router built (Ethernet header
 * room in front; an ICMP message has dp_ctrl_set(CTRL_ORIGINATED, type, code,
 * CTRL_ORIG_ICMP) and is counted when sent). Consumes @m. */
void control_output(struct router *r, struct rte_mbuf *m);
uint32_t port_any_addr4(const struct fr_port *p);
/* A message on stdout that never blocks the control thread (lost when
 * stdout cannot take it now). */
void router_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An IPv4 address of the router's for a port that has none (or 0). */
uint32_t router_any_addr4(const struct router *r);
/* An IPv4 address of the router's outside 169.254/16 (one that may leave
 * its link, RFC 3927 2.6.2): @port's first, else the first of the
 * lowest-numbered port that has one; 0 if none. */
uint32_t router_routable_addr4(const struct router *r, uint16_t port);
/*
 * The router's address for what leaves by @port towards next hop @nb (host
 * order): the port's address on @nb's subnet, else any of the port's, else
 * (an unnumbered port) another of the router's (RFC 1812 4.3.2.4). A
 * 169.254/16 one only if it is the port's own and @on_link (the packet
 * stays on that link: RFC 3927 2.6.2, 2.7), else a routable one. 0: the
 * router has none.
 */
uint32_t router_addr4_toward(const struct router *r, uint16_t port, uint32_t nb, bool on_link);
const uint8_t *port_any_addr6(const struct fr_port *p);
/* The port speaks IPv6: it has an IPv6 address, or the router has used
 * its link-local one there (ll_in_use()). Such a port's link-local
 * address is probed (DAD) and its groups reported (MLD). */
bool port_speaks6(const struct fr_port *p);
/* The router uses @port's link-local address (a packet from it, an answer
 * for it). On a port that did not speak IPv6 (no IPv6 address of its own,
 * numbered by its link-local one alone: 'via fe80::1 port N' routes), its
 * groups are reported and the address probed now, before the packet (RFC
 * 4862 5.4: DAD before an address is used; optimistic, as the others), and
 * again each time the port comes back in service. */
void ll_in_use(struct router *r, uint16_t port);
/* Port @pid's link, as rte_eth_link_get_nowait() reads it; for an
 * af_packet port, its status is its kernel interface's carrier. */
int port_link_get(const struct router *r, uint16_t pid, struct rte_eth_link *link);
/* The port's address whose subnet holds @addr (host order; the longest
 * such subnet), or 0 */
uint32_t port_addr4_for(const struct fr_port *p, uint32_t addr);
/* The address of @p on @a's subnet (host order; the longest of the port's
 * that holds it) when that subnet also holds @b, else 0. */
uint32_t port_addr4_shared(const struct fr_port *p, uint32_t a, uint32_t b);
/* @a is the network (1) or broadcast (2) address of one of @p's IPv4
 * subnets of /30 or shorter (no host has it), or neither (0). */
int port_subnet_edge4(const struct fr_port *p, uint32_t a);
bool port_owns4(const struct fr_port *p, uint32_t addr);
/* @addr (host order) is an address of any port. */
bool router_owns4(const struct router *r, uint32_t addr);
/* router_owns4() for a callback: @r is the router */
bool router_owns4_cb(const void *r, uint32_t addr);
/* The port whose MAC @mac is, or -1: none of the router's. */
int router_mac_port(const struct router *r, const struct rte_ether_addr *mac);
/* @mac is one of the ports' (our own frame, looped back by a switch). */
static inline bool router_mac(const struct router *r, const struct rte_ether_addr *mac)
{
	return router_mac_port(r, mac) >= 0;
}

/* What the workers add to the multipath flow hash of @m (Ethernet, then
 * IPv4 or IPv6), as fib_route_lookup_flow()'s @l4: its ports with 'set ip
 * multipath-hash l4' (ip4_flow_ports(), ip6_flow_ports()), else 0. */
uint32_t router_flow_l4(const struct router *r, const struct rte_mbuf *m);
/* Another host (@mac, on @port) claims our address @ours (RFC 5227, RFC
 * 4862 5.4): printed at most every 10 s. */
void router_say_conflict(struct router *r, uint16_t port, const struct rte_ether_addr *mac,
			 const struct fr_addr *ours, const char *proto);

extern struct router *fr_router; /* the instance workers use */

#endif /* FR_ROUTER_H */
