/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters: one enum per family of counter, one string table each, so that
 * "show stats", telemetry and the tests share the names.
 * Workers write only their own struct dp_stats; the control thread sums.
 */
#ifndef FR_STATS_H
#define FR_STATS_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_config.h>

/* Why a worker dropped a packet. */
enum dp_drop {
	DROP_ETH_TOO_SHORT = 0, /* frame shorter than an Ethernet header */
	DROP_L2_OTHER_HOST,	/* unicast frame for another MAC */
	DROP_L2_GROUP_SOURCE,	/* a group (broadcast, multicast) source MAC: no station's */
	DROP_ETHERTYPE,		/* neither IPv4, IPv6 nor ARP */
	DROP_IP4_TOO_SHORT,	/* frame too short for an IPv4 header (RFC 1812 5.2.2 (1)) */
	DROP_IP4_CHECKSUM,	/* header checksum wrong (5.2.2 (2)) */
	DROP_IP4_VERSION,	/* version is not 4 (5.2.2 (3)) */
	DROP_IP4_IHL,		/* IHL < 5 or header longer than the frame (5.2.2 (4)) */
	DROP_IP4_LENGTH,	/* total length < header or > frame (5.2.2 (5)) */
	DROP_MARTIAN_SRC, /* source 0/8, 127/8, 224/4, 240/4, broadcast or ours (RFC 1812 5.3.7) */
	DROP_MARTIAN_DST, /* destination 0/8, 127/8 or 240/4 (not 255.255.255.255) */
	DROP_RPF_STRICT,  /* strict rpf: the route back to the source leaves by another port */
	DROP_RPF_LOOSE,	  /* loose rpf: the source has no route that forwards */
	DROP_L2_BCAST_FORWARD, /* IP unicast in an L2 broadcast/multicast frame: never forwarded */
	DROP_TTL_EXCEEDED,     /* TTL <= 1 on a packet to forward */
	DROP_NO_ROUTE,	       /* no route matched */
	DROP_BLACKHOLE,	       /* blackhole route */
	DROP_UNREACHABLE,      /* unreachable route */
	DROP_PROHIBIT,	       /* prohibit route */
	DROP_FRAG_NEEDED,      /* larger than the egress MTU with DF set (RFC 1191) */
	DROP_IP4_MCAST,	       /* multicast destination (224/4): not routed, not joined */
	DROP_IP4_LINK_LOCAL,   /* 169.254/16 source or destination, not ours: never forwarded */
	DROP_IP4_SOURCE_ROUTE, /* loose or strict source route option (RFC 7126 3.13.2.4) */
	DROP_IP4_BAD_OPTIONS,  /* an option's length runs past the header or is below 2 */
	DROP_IP6_TOO_SHORT,    /* frame too short for an IPv6 header */
	DROP_IP6_VERSION,      /* version is not 6 */
	DROP_IP6_LENGTH,       /* payload length beyond the frame */
	DROP_IP6_BAD_SRC,      /* source ::, ::1, multicast (RFC 4291 2.5.2, 2.5.3, 2.7), ours */
	DROP_IP6_BAD_DST,      /* destination ::, ::1 or interface-local multicast */
	DROP_IP6_LINKLOCAL,    /* link-local source or destination that would leave the link */
	DROP_IP6_MCAST,	       /* multicast destination, not routed: a group the router does not
				* listen to, or one it does (ND's) with neither ICMPv6 nor
				* hop-by-hop options first */
	DROP_IP6_HOP_LIMIT,    /* hop limit <= 1 on a packet to forward */
	DROP_IP6_TOO_BIG,      /* larger than the egress MTU: routers never fragment IPv6 */
	DROP_CTRL_RING_FULL,   /* the ring to the control thread was full */
	DROP_CTRL_RESERVED,    /* its last quarter was left for ARP and ND */
	DROP_TX_FULL,	       /* the port's TX queue refused the packet */
	/* the egress port is out of service: link down, held down, or 'port N down' */
	DROP_PORT_DOWN,
	/* received on a port out of service: link down, held down, or 'port N down' */
	DROP_RX_PORT_DOWN,
	DROP_MAX
};

extern const char *const dp_drop_names[DROP_MAX];

/* Per-worker counters; one cache-aligned block per worker. */
struct dp_stats {
	uint64_t rx;		   /* packets received */
	uint64_t fwd;		   /* forwarded: accepted by a TX queue (tx = fwd + ctrl_tx) */
	uint64_t to_control;	   /* handed to the control thread */
	uint64_t ctrl_tx;	   /* sent on behalf of the control thread */
	uint64_t busy_cycles;	   /* TSC cycles in loop iterations that received packets */
	uint64_t busy_polls;	   /* such iterations */
	uint64_t idle_polls;	   /* iterations that received nothing */
	uint64_t icmp_queued;	   /* dropped packets handed over for an ICMP error */
	uint64_t icmp_ratelimited; /* errors not sent: over the rate limit */
	uint64_t icmp_not_sent;	   /* errors not sent: never about ICMP errors, fragments... */
	uint64_t icmp_ring_full;   /* errors not sent: the ring to the control thread was full */
	uint64_t redirects_ratelimited;		/* ICMP Redirects not sent: over the rate limit */
	uint64_t rpf_drop[RTE_MAX_ETHPORTS][2]; /* per input port: strict, loose */
	uint64_t drop[DROP_MAX];
	/* what worker 0 could not send of the control thread's packets (never
	 * in rx, so not drops: ctrl_sent = ctrl_tx + these, once drained) */
	uint64_t ctrl_tx_full;	    /* the TX queue refused it */
	uint64_t ctrl_tx_port_down; /* for a port out of service */
	uint64_t ctrl_tx_no_port;   /* for a port without a TX queue (none such) */
} __rte_cache_aligned;

/* Why the control thread dropped a packet (slow path). */
enum ctrl_drop {
	CDROP_ARP_MALFORMED = 0, /* not Ethernet/IPv4 ARP, too short, or a request to answer
				  * from a group or zero sender hardware address */
	CDROP_ARP_NOT_FOR_US,	 /* ARP request for an address we do not own */
	CDROP_ARP_OFF_LINK,	 /* reply or announcement from outside the port's subnets */
	CDROP_ARP_IGNORED,	 /* changed nothing: unsolicited reply, static entry, lock time */
	CDROP_ARP_CONFLICT,	 /* another host's sender address is one of ours (RFC 5227) */
	/* a sender address no host has: a subnet's network or broadcast
	 * address; martians on: broadcast, multicast, loopback, 0/8, 240/4 */
	CDROP_ARP_BAD_SENDER,
	CDROP_LOCAL_BROADCAST, /* for a broadcast address, or an echo request to ours in an L2
				* broadcast frame: not answered */
	/* fragments for the router (reasm.h), freed: one that can be no
	 * datagram's piece (no data, not a multiple of 8 bytes before the
	 * last, past 65,535 bytes, a length another piece contradicts) */
	CDROP_REASM_MALFORMED,
	CDROP_REASM_OVERLAP,	/* overlapping another: its whole datagram (a copy: itself) */
	CDROP_REASM_TIMEOUT,	/* its datagram not whole in time (set ip reassembly-timeout) */
	CDROP_REASM_OVER_LIMIT, /* room made for newer ones, or past 64 fragments a datagram */
	CDROP_LOCAL_ICMP,	/* ICMP for the router other than echo requests: consumed */
	CDROP_LOCAL_UNREACH,	/* UDP/TCP/other protocol for the router (3/3, a TCP reset or
				 * 3/2 unless the rules or the rate forbid it) */
	/* UDP/TCP for the router, damaged: a bad checksum (a UDP one of 0 over
	 * IPv6), a UDP length past the packet, a TCP header cut short; no answer */
	CDROP_LOCAL_BAD_L4,
	CDROP_NO_ROUTE_BACK, /* a packet of the router's own with no route to send it */
	/* fragmentation failed: more than 64 pieces, data past offset 65,535,
	 * a frame cut short (no mbufs: ctrl_no_mbuf) */
	CDROP_FRAG_FAILED,
	CDROP_TOO_BIG, /* held, handed-over or own packet too big for its port, DF set or IPv6 */
	CDROP_ROUTE_CHANGED,	    /* unresolved packet whose route no longer forwards */
	CDROP_NEIGH_HOLD_FULL,	    /* this neighbour already holds its packets */
	CDROP_NEIGH_HOLD_TOTAL,	    /* all neighbours together hold the maximum */
	CDROP_NEIGH_INCOMPLETE_CAP, /* too many neighbours being resolved */
	CDROP_NEIGH_TABLE_FULL,	    /* no room for a new neighbour */
	CDROP_NEIGH_FAILED,	    /* its neighbour did not answer (held, or while FAILED) */
	CDROP_NEIGH_FLUSHED,	    /* held for an entry that went away (neigh del) */
	CDROP_NO_MBUF,		    /* could not allocate a packet to send */
	CDROP_TX_RING_FULL,	    /* the ring to the transmitting worker was full */
	CDROP_TX_RING_RESERVED,	    /* down to its last quarter, kept for ARP and ND */
	CDROP_PORT_DOWN,     /* for, or from, a port out of service (port_down: the workers') */
	CDROP_ND_MALFORMED,  /* NS/NA failing RFC 4861 7.1 (length, code, options...), or an
			      * NS to answer from a group or zero link-layer address */
	CDROP_ND_HOP_LIMIT,  /* NS/NA with hop limit != 255: may come from off-link */
	CDROP_ND_CHECKSUM,   /* NS/NA with a wrong ICMPv6 checksum */
	CDROP_ND_NOT_FOR_US, /* NS for an address we do not own */
	CDROP_ND_DAD,	     /* duplicate address detection for another address: no entry */
	CDROP_ND_IGNORED,    /* NA that changed nothing (unknown entry, static, no override) */
	CDROP_ND_CONFLICT,   /* NS from, or NA for, one of our addresses by another host */
	CDROP_LOCAL6_ICMP,   /* ICMPv6 for the router other than echo/NS/NA: consumed */
	CDROP_LOCAL6_MCAST,  /* to a group the router joined, but not ND: consumed */
	/* for the router, extension headers malformed, or an option asking a
	 * silent discard, or no upper layer (next header 59): consumed */
	CDROP_LOCAL6_EXT,
	CDROP_LOCAL6_DAD_FAILED, /* for an address of ours another host holds (DAD failed) */
	/* an MLD query not answered: malformed (hop limit, source, checksum,
	 * length), about a group the router is not in, or within 100 ms of
	 * the port's last answer */
	CDROP_MLD_QUERY_IGNORED,
	CDROP_MAX
};

extern const char *const ctrl_drop_names[CDROP_MAX];

struct ctrl_stats {
	uint64_t rx;			/* packets received from workers */
	uint64_t arp_requests;		/* ARP requests received */
	uint64_t arp_replies;		/* ARP replies received */
	uint64_t arp_gratuitous;	/* of those, gratuitous */
	uint64_t arp_answered;		/* ARP replies sent for our addresses */
	uint64_t arp_learnt;		/* ARP packets (not answered) that updated the table */
	uint64_t arp_off_link_answered; /* requests from off the port's subnets: answered */
	uint64_t arp_probes;		/* ARP requests sent to resolve neighbours */
	uint64_t resolved_fwd;		/* held packets forwarded once resolved */
	uint64_t held_rerouted;		/* held packets whose route changed meanwhile */
	uint64_t fragmented;		/* packets fragmented */
	uint64_t fragments;		/* fragments sent */
	uint64_t reassembled;		/* datagrams for the router put together */
	/* forwarded packets and echo replies whose Record Route or Timestamp
	 * the router wrote */
	uint64_t options_filled;
	/* ICMP messages counted once handed to their port: one lost on the
	 * way (no route back, its neighbour never answered) counts only as
	 * that drop */
	uint64_t icmp_echo_replies;
	uint64_t icmp_time_exceeded; /* 11/0 */
	uint64_t icmp_unreach_net;   /* 3/0 */
	uint64_t icmp_unreach_host;  /* 3/1 */
	uint64_t icmp_unreach_proto; /* 3/2 */
	uint64_t icmp_unreach_port;  /* 3/3 */
	uint64_t icmp_frag_needed;   /* 3/4 */
	uint64_t icmp_prohibited;    /* 3/13 */
	uint64_t icmp_param_problem; /* 12/0 */
	uint64_t icmp_redirects;     /* 5/1 */
	uint64_t tcp_resets;	     /* resets for TCP segments to the router (IPv4 and IPv6) */
	/* handed over for a Redirect that is not due: its sender and next
	 * hop share no subnet of the port (or its route changed meanwhile) */
	uint64_t redirects_not_due;
	/* not sent: that sender had one lately (each waits twice as long as
	 * the last; none after 9 until it is silent 20 s) */
	uint64_t redirects_damped;
	uint64_t nd_ns_rx;	       /* neighbour solicitations received */
	uint64_t nd_na_rx;	       /* neighbour advertisements received */
	uint64_t nd_answered;	       /* advertisements sent for our addresses */
	uint64_t nd_dad_defended;      /* DAD probes for our addresses, answered to all-nodes */
	uint64_t nd_dad_probes;	       /* DAD probes sent for our own tentative addresses */
	uint64_t nd_dad_failed;	       /* of our addresses, found held by another host */
	uint64_t nd_dad_reprobes;      /* DAD probes sent again: the port failed to transmit */
	uint64_t addr_announced;       /* gratuitous ARPs and unsolicited NAs for our addresses */
	uint64_t addr_defended;	       /* of those, against another host's claim */
	uint64_t nd_learnt;	       /* NS/NA (not answered) that updated the table */
	uint64_t nd_off_link_answered; /* NS from off the port's prefixes: answered */
	uint64_t nd_probes;	       /* solicitations sent to resolve neighbours */
	/* solicitations not sent: the port's only source another host's */
	uint64_t nd_probes_no_source;
	uint64_t icmp6_redirects;     /* 137/0 */
	uint64_t icmp6_echo_replies;  /* ICMPv6 messages: as the ICMP ones */
	uint64_t icmp6_time_exceeded; /* 3/0 */
	uint64_t icmp6_no_route;      /* 1/0 */
	uint64_t icmp6_prohibited;    /* 1/1 */
	uint64_t icmp6_beyond_scope;  /* 1/2 */
	uint64_t icmp6_addr_unreach;  /* 1/3 */
	uint64_t icmp6_port_unreach;  /* 1/4 */
	uint64_t icmp6_too_big;	      /* 2/0 */
	uint64_t icmp6_param_problem; /* 4/x */
	uint64_t mld_reports;	      /* MLD reports sent (joined groups, answers, groups left) */
	uint64_t ra_sent;	      /* Router Advertisements sent (port N ra on) */
	uint64_t rs_received;	      /* Router Solicitations answered (by the next RA) */
	uint64_t mld_queries;	      /* MLD queries answered (an answer made due) */
	uint64_t icmp_not_sent;	      /* errors the control thread owed that RFC 1812/4443 forbid */
	uint64_t icmp_over_rate;      /* errors the control thread owed over the rate */
	uint64_t tx;		      /* packets queued for transmission */
	uint64_t drop[CDROP_MAX];
};

/* Add @s's counters to @sum. */
void dp_stats_add(struct dp_stats *sum, const struct dp_stats *s);
/* Sum the workers' counters into @sum; zero all counters (each worker its
 * own, waited for up to a second; returns how many workers had not done so
 * yet: theirs are zeroed at their next loop). Control thread. */
struct router;
void router_stats_sum(const struct router *r, struct dp_stats *sum);
unsigned int router_stats_clear(struct router *r);

/* All of @s's drops, whatever the reason ('dropped' in show stats). */
uint64_t dp_stats_dropped(const struct dp_stats *s);
/* What the workers forwarded, counted apart from what they sent for the
 * control thread (so that neither, nor their sum, is ever read going back
 * while a worker counts). */
uint64_t dp_stats_forwarded(const struct dp_stats *s);
/* All the workers' TX queues accepted: forwarded + ctrl_tx. */
uint64_t dp_stats_tx(const struct dp_stats *s);

/* Visit the counters 'show stats' lists after its head (drops, ICMP,
 * rpf per port, control, control drops); @section may be NULL. */
struct stats_visitor {
	void (*kv)(void *arg, const char *name, uint64_t val);
	void (*section)(void *arg, const char *name, bool open);
	void *arg;
};
void router_stats_visit(const struct router *r, const struct dp_stats *s,
			const struct stats_visitor *v);
/* The neighbour table's size and counters ('show neigh stats' before its
 * parameters), section by section. */
void router_neigh_visit(const struct router *r, const struct stats_visitor *v);

#endif /* FR_STATS_H */
