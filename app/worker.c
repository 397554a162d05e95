/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Worker lcore: polls its RX queue on every port, runs the pipeline, hands
 * packets to TX buffers (one TX queue per worker per port) or to the control
 * thread, and reports an RCU quiescent state once per loop.
 * No locks, no syscalls, no logging, no allocation in the loop.
 */
#include <stdalign.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "router.h"

/* What a TX buffer's error callback needs, kept after the buffer's packet
 * slots in the same allocation (rte_free of the buffer frees it too). */
struct txb_ctx {
	struct dp_stats *st;
	const uint8_t *down; /* the port's dp_port.down */
};

#define TXB_SIZE RTE_ALIGN_CEIL(RTE_ETH_TX_BUFFER_SIZE(DP_BURST), alignof(struct txb_ctx))

/* TX refused packets: free them and count them tx_full, or port_down when
 * the port is out of service by now (the driver refused them for that, or
 * they would have been dropped for it a moment later; fwd counts what the
 * queue took, from what the buffer's flushes return: it only grows). */
static void tx_error_cb(struct rte_mbuf **unsent, uint16_t count, void *userdata)
{
	const struct txb_ctx *x = userdata;

	rte_pktmbuf_free_bulk(unsent, count);
	if (unlikely(__atomic_load_n(x->down, __ATOMIC_RELAXED)))
		x->st->drop[DROP_PORT_DOWN] += count;
	else
		x->st->drop[DROP_TX_FULL] += count;
}

struct worker *worker_create(struct router *r, unsigned int lcore, unsigned int idx)
{
	char name[RTE_RING_NAMESIZE];
	int socket = (int)rte_lcore_to_socket_id(lcore);
	const char *what = "state";
	struct txb_ctx *x;
	struct worker *w;
	uint16_t pid;

	w = rte_zmalloc_socket("worker", sizeof(*w), RTE_CACHE_LINE_SIZE, socket);
	if (w == NULL)
		goto fail;
	w->lcore = lcore;
	w->idx = idx;
	snprintf(name, sizeof(name), "fr_toctl_%u", idx);
	what = "ring to the control thread";
	w->to_ctrl =
		rte_ring_create(name, FR_CTRL_RING_SIZE, socket, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (w->to_ctrl == NULL)
		goto fail;
	/* fixed size, allocated now: nothing is allocated for it later */
	what = "route cache";
	w->rtc = rtcache_create(r->opts.rtcache_size ? r->opts.rtcache_size : 65536, socket, 0);
	if (w->rtc == NULL)
		goto fail;
	what = "TX buffers";
	for (pid = 0; pid < r->nb_ports; pid++) {
		if (!r->ports[pid].present)
			continue;
		w->txb[pid] = rte_zmalloc_socket("txb", TXB_SIZE + sizeof(*x), 0, socket);
		if (w->txb[pid] == NULL)
			goto fail;
		x = RTE_PTR_ADD(w->txb[pid], TXB_SIZE);
		x->st = &w->st;
		x->down = &r->dp_ports[pid].down;
		rte_eth_tx_buffer_init(w->txb[pid], DP_BURST);
		rte_eth_tx_buffer_set_err_callback(w->txb[pid], tx_error_cb, x);
	}
	return w;
fail:
	/* the route cache's size is the file's to change ('rtcache size') */
	if (w != NULL && w->to_ctrl != NULL && w->rtc == NULL)
		fprintf(stderr,
			"fastroute: worker %u on socket %d: cannot allocate its route cache of "
			"%u entries (give EAL more memory with -m, or the configuration a "
			"smaller 'rtcache size')\n",
			idx, socket, r->opts.rtcache_size ? r->opts.rtcache_size : 65536);
	else
		fprintf(stderr,
			"fastroute: worker %u on socket %d: cannot allocate its %s (give EAL more "
			"memory with -m)\n",
			idx, socket, what);
	if (w == NULL)
		return NULL;
	for (pid = 0; pid < FR_MAX_PORTS; pid++)
		rte_free(w->txb[pid]);
	rte_ring_free(w->to_ctrl);
	rtcache_free(w->rtc);
	rte_free(w);
	return NULL;
}

/* Packets for the control thread (ARP, local, to resolve or fragment) or,
 * with @errors, dropped packets (already counted) that deserve an ICMP
 * error. Those the ring takes count to_control or icmp_queued; the others
 * are counted here, once the outcome is known (a counter never goes back):
 * ctrl_ring_full, ctrl_ring_reserved (neither ARP nor ND, with the ring
 * down to its reserve, or to half of it for a packet to resolve) or, for
 * errors (which take the first half of the reserve too), icmp_ring_full
 * (either). */
void worker_to_control(struct worker *w, struct rte_mbuf **pkts, unsigned int n, bool errors)
{
	unsigned int room = rte_ring_free_count(w->to_ctrl), sent = 0, i;
	const unsigned int reserve = fr_ring_reserve(w->to_ctrl);
	/* what the ring takes, what it refuses full, what its reserve */
	uint64_t *taken = errors ? &w->st.icmp_queued : &w->st.to_control;
	uint64_t *full = errors ? &w->st.icmp_ring_full : &w->st.drop[DROP_CTRL_RING_FULL];
	uint64_t *reserved = errors ? &w->st.icmp_ring_full : &w->st.drop[DROP_CTRL_RESERVED];

	if (likely(room >= n + reserve)) {
		sent = rte_ring_enqueue_burst(w->to_ctrl, (void **)pkts, n, NULL);
		if (unlikely(sent < n)) { /* none: the ring had room */
			*full += n - sent;
			rte_pktmbuf_free_bulk(pkts + sent, n - sent);
		}
	} else {
		/* filling: one at a time, the reserve for ARP and ND */
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];

			/* the reserve: ARP and ND; its first half also
			 * packets to resolve (a ping flood must not stop new
			 * neighbours, gateways among them, being resolved),
			 * an ND message among them (to forward: not ND for
			 * the router), and ICMP errors, bounded by their
			 * token buckets already (a flood the control thread
			 * cannot keep up with must not silence path MTU
			 * discovery and traceroute) */
			const bool half = errors || dp_ctrl_reason(m) == CTRL_RESOLVE;

			if (room <= reserve && (half || !frame_neigh(m)) &&
			    (room <= reserve / 2 || !half)) {
				(*reserved)++;
			} else if (rte_ring_sp_enqueue(w->to_ctrl, m) == 0) {
				sent++;
				room--;
				continue;
			} else {
				(*full)++;
			}
			rte_pktmbuf_free(m);
		}
	}
	*taken += sent;
}

/*
 * Worker 0 transmits what the control thread built (ARP replies, ICMP
 * errors, released held packets), straight to the TX queue rather than
 * through the TX buffer: what the queue refuses is then known to be the
 * control thread's, so ctrl_tx counts only what the queue took (and fwd,
 * the forwarded packets, none of it: tx = fwd + ctrl_tx is summed when
 * shown, so no read finds either going back). What it does not send is
 * counted apart from the worker's drops (never received, it is in no rx):
 * ctrl_tx_full, ctrl_tx_port_down, ctrl_tx_no_port. Runs of packets for
 * one port go in one call. An ARP or ND frame the queue refused is kept
 * (up to FR_CTRL_PEND of them) and offered again first at the next drains,
 * for FR_CTRL_PEND_MS, before it counts as ctrl_tx_full: a port saturated
 * by forwarded traffic must not lose its neighbours for want of a probe
 * or an answer.
 */
void worker_ctrl_tx_drain(struct router *r, struct worker *w)
{
	struct rte_mbuf *pkts[FR_CTRL_PEND + DP_BURST];
	uint64_t until[FR_CTRL_PEND + DP_BURST], now;
	unsigned int n = w->nb_ctrl_pend, i, j, k;

	memcpy(pkts, w->ctrl_pend, n * sizeof(*pkts));
	memcpy(until, w->ctrl_pend_until, n * sizeof(*until));
	w->nb_ctrl_pend = 0;
	k = rte_ring_dequeue_burst(r->ctrl_tx, (void **)(pkts + n), DP_BURST, NULL);
	if (n + k == 0)
		return;
	now = rte_get_tsc_cycles();
	for (i = n; i < n + k; i++)
		until[i] = now + rte_get_tsc_hz() / 1000 * FR_CTRL_PEND_MS;
	n += k;
	for (i = 0; i < n; i = j) {
		uint16_t port = pkts[i]->port, sent = 0;
		uint64_t *lost = &w->st.ctrl_tx_full;

		for (j = i + 1; j < n && pkts[j]->port == port; j++)
			;
		if (unlikely(port >= FR_MAX_PORTS || w->txb[port] == NULL))
			lost = &w->st.ctrl_tx_no_port;
		else if (unlikely(__atomic_load_n(&r->dp_ports[port].down, __ATOMIC_RELAXED)))
			lost = &w->st.ctrl_tx_port_down;
		else
			sent = rte_eth_tx_burst(port, (uint16_t)w->idx, pkts + i,
						(uint16_t)(j - i));
		w->st.ctrl_tx += sent;
		for (k = i + sent; k < j; k++) {
			struct rte_mbuf *m = pkts[k];

			if (lost == &w->st.ctrl_tx_full && now < until[k] &&
			    w->nb_ctrl_pend < FR_CTRL_PEND && frame_neigh(m)) {
				w->ctrl_pend[w->nb_ctrl_pend] = m;
				w->ctrl_pend_until[w->nb_ctrl_pend++] = until[k];
				continue;
			}
			(*lost)++;
			if (lost == &w->st.ctrl_tx_full)
				w->ctrl_refused[port]++;
			rte_pktmbuf_free(m);
		}
	}
}

/* True when all @n verdicts in @out are the port @o. */
static inline bool all_to(const uint16_t *out, uint16_t n, uint16_t o)
{
	uint16_t diff = 0, i;

	for (i = 0; i < n; i++)
		diff |= (uint16_t)(out[i] ^ o);
	return diff == 0;
}

void worker_output(struct worker *w, uint16_t in_port, struct rte_mbuf **pkts, const uint16_t *out,
		   uint16_t n)
{
	struct rte_mbuf *ctrl[FR_RX_BURST], *err[FR_RX_BURST];
	const uint16_t q = (uint16_t)w->idx;
	uint16_t i, nctrl = 0, nerr = 0, o = out[0];

	/* the whole burst to one port whose buffer is empty (the common
	 * case under load): one TX burst from the array, nothing copied
	 * into the buffer first; the order holds, as nothing waits before */
	if (likely(o < FR_MAX_PORTS) && w->txb[o]->length == 0 && all_to(out, n, o)) {
		uint16_t sent = rte_eth_tx_burst(o, q, pkts, n);

		w->st.fwd += sent;
		if (unlikely(sent < n))
			tx_error_cb(pkts + sent, (uint16_t)(n - sent),
				    RTE_PTR_ADD(w->txb[o], TXB_SIZE));
		return;
	}
	for (i = 0; i < n; i++) {
		o = out[i];
		if (likely(o < FR_MAX_PORTS)) {
			w->st.fwd += rte_eth_tx_buffer(o, q, w->txb[o], pkts[i]);
		} else if (o == DP_OUT_CTRL) {
			pkts[i]->port = in_port;
			ctrl[nctrl++] = pkts[i];
		} else if (o == DP_OUT_CTRL_ERR) {
			pkts[i]->port = in_port;
			err[nerr++] = pkts[i];
		}
	}
	if (nctrl)
		worker_to_control(w, ctrl, nctrl, false);
	if (nerr)
		worker_to_control(w, err, nerr, true);
}

/* What a poll takes: FR_RX_BURST, or less with TX rings too small for four
 * polls of it (a poll's packets may all go to one queue at once): the
 * smallest ring a device gave, which may be under --tx-desc. */
static uint16_t worker_poll_size(const struct router *r)
{
	uint16_t txd = r->tx_desc_least != 0 ? r->tx_desc_least : r->opts.tx_desc;
	uint16_t quarter = (uint16_t)(txd / 4 / DP_BURST * DP_BURST);

	return RTE_MAX((uint16_t)DP_BURST, RTE_MIN(quarter, (uint16_t)FR_RX_BURST));
}

int worker_main(void *arg)
{
	struct worker *w = arg;
	struct router *r = fr_router;
	struct rte_mbuf *pkts[FR_RX_BURST];
	uint16_t out[FR_RX_BURST];
	uint16_t ports[FR_MAX_PORTS];
	uint16_t nb_ports = 0, pid, q = (uint16_t)w->idx;
	const uint16_t poll = worker_poll_size(r);
	unsigned int p;
	struct dp_ctx c;

	for (pid = 0; pid < r->nb_ports; pid++)
		if (r->ports[pid].started)
			ports[nb_ports++] = pid;
	c.fib = r->fib;
	c.nh = fib_nh_table(r->fib);
	c.mp = fib_mp_table(r->fib);
	c.mp_seed = fib_mp_seed(r->fib);
	c.neigh = r->neigh;
	c.neigh_hot = neigh_hot_table(r->neigh);
	c.ports = r->dp_ports;
	c.nb_ports = r->nb_ports;
	c.st = &w->st;
	c.conf = &r->dpconf;
	c.rtc = w->rtc;
	c.icmp = c.icmp_pmtu = c.icmp_redirect = (struct dp_tokens){0}; /* full */
	c.neigh_used = neigh_used_map(r->neigh, w->idx);
	c.tbl24 = fib4_tbl24(r->fib);

	rte_rcu_qsbr_thread_register(r->qsv, w->idx);
	rte_rcu_qsbr_thread_online(r->qsv, w->idx);

	while (!__atomic_load_n(&r->quit, __ATOMIC_RELAXED)) {
		uint64_t t0 = rte_rdtsc();
		unsigned int total = 0;

		/* first: the descriptors a saturated port freed since the last
		 * flush go to the control thread's frames (ARP and ND among
		 * them) before forwarded traffic takes them all */
		if (w->idx == 0)
			worker_ctrl_tx_drain(r, w);
		for (p = 0; p < nb_ports; p++) {
			uint16_t n;

			pid = ports[p];
			n = rte_eth_rx_burst(pid, q, pkts, poll);
			if (n == 0)
				continue;
			total += n;
			if (unlikely(__atomic_load_n(&c.ports[pid].down, __ATOMIC_RELAXED))) {
				/* out of service: what arrives is dropped too */
				w->st.rx += n;
				w->st.drop[DROP_RX_PORT_DOWN] += n;
				rte_pktmbuf_free_bulk(pkts, n);
				continue;
			}
			dp_input_burst(&c, pid, pkts, n, out);
			worker_output(w, pid, pkts, out, n);
		}
		for (p = 0; p < nb_ports; p++)
			if (w->txb[ports[p]]->length)
				w->st.fwd += rte_eth_tx_buffer_flush(ports[p], q, w->txb[ports[p]]);
		if (total) {
			w->st.busy_cycles += rte_rdtsc() - t0;
			w->st.busy_polls++;
		} else {
			w->st.idle_polls++;
		}
		/* nothing from the tables is held across this point */
		rte_rcu_qsbr_quiescent(r->qsv, w->idx);
		if (unlikely(__atomic_load_n(&r->stats_clear, __ATOMIC_ACQUIRE) != w->clear_done))
			worker_stats_clear(r, w);
	}
	/* counted as in the loop: the stop's summary adds up */
	for (p = 0; p < nb_ports; p++)
		w->st.fwd += rte_eth_tx_buffer_flush(ports[p], q, w->txb[ports[p]]);
	rte_rcu_qsbr_thread_offline(r->qsv, w->idx);
	rte_rcu_qsbr_thread_unregister(r->qsv, w->idx);
	return 0;
}
