/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Per-lcore route cache: the complete forwarding decision for a (destination,
 * arrival port[, source]) key, validated by generations on every hit.
 *
 * History is the requirement: Linux's route cache doubled output speed on
 * hit-heavy traffic and collapsed under random-destination floods ("dst
 * cache overflow"), so it was removed; FreeBSD's flowtable cached route and
 * link-layer entry per CPU and validated them with generation numbers. This
 * cache is fixed-size and allocated at start (nothing is allocated or
 * collected on the data path: a full bucket gives a new entry the way of
 * one made before the last route change, else its older one, evicted),
 * set-associative (two 64-byte entries per 128-byte bucket), keyed by a hash
 * with a random per-start secret so that senders cannot aim at one bucket,
 * and in auto mode it measures what it costs: the bursts' cycles a packet
 * with the cache probed and with it bypassed, in alternating samples, and
 * keeps the cheaper for a while (rtcache_measure()).
 *
 * A hit is used only if the FIB generation and the neighbour entry's
 * generation it was built from still hold (the caller checks them with
 * rtcache_entry fields); otherwise it is a stale miss.
 *
 * One cache per worker: no sharing, no atomics. Datapath-safe functions
 * are inline; the others are control thread or worker setup.
 */
#ifndef RTCACHE_H
#define RTCACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_prefetch.h>

/** Modes (set for the whole router). */
enum rtcache_mode {
	RTCACHE_OFF = 0, /**< never probed */
	RTCACHE_ON,	 /**< always probed */
	RTCACHE_AUTO,	 /**< probed while it measures cheaper than bypassed */
	RTCACHE_MODE_MAX
};

extern const char *const rtcache_mode_names[RTCACHE_MODE_MAX];

#define RTCACHE_WAYS	   2
#define RTCACHE_PORT_EMPTY 0xffff

/** One cached decision: 64 bytes, one cache line. */
struct rtcache_entry {
	/* key */
	uint32_t dst;	  /**< destination, host order */
	uint32_t src;	  /**< source when the arrival port has rpf on, else 0 */
	uint16_t in_port; /**< arrival port; RTCACHE_PORT_EMPTY: free slot */
	/* value */
	uint16_t out_port;  /**< egress port */
	uint8_t rpf;	    /**< rpf mode the decision was made under */
	uint8_t family;	    /**< 4 or 6 (the key's family) */
	uint16_t age;	    /**< fill order within the bucket, for eviction */
	uint32_t nh;	    /**< next-hop index */
	uint32_t neigh;	    /**< neighbour index */
	uint32_t neigh_gen; /**< the neighbour entry's generation at fill */
	uint64_t fib_gen;   /**< the FIB generation at fill */
	uint8_t eth[14];    /**< prebuilt Ethernet header: dst MAC, src MAC, type */
	uint8_t pad[10];
} __rte_aligned(64);

_Static_assert(sizeof(struct rtcache_entry) == 64, "an entry is one cache line");

/** An IPv6 decision: the same, with 16-byte addresses, in one cache line
 * (no next-hop index: a hit needs none; only the destination MAC is kept,
 * the source MAC is read from the port). */
struct rtcache_entry6 {
	uint8_t dst[16];   /**< destination */
	uint8_t src[16];   /**< source when the arrival port has rpf on, else :: */
	uint16_t in_port;  /**< arrival port; RTCACHE_PORT_EMPTY: free slot */
	uint16_t out_port; /**< egress port */
	uint8_t rpf;	   /**< rpf mode the decision was made under */
	uint8_t pad;
	uint16_t age;	    /**< fill order within the bucket */
	uint32_t neigh;	    /**< neighbour index */
	uint32_t neigh_gen; /**< the neighbour entry's generation at fill */
	uint64_t fib_gen;   /**< the FIB generation at fill */
	uint8_t dmac[6];    /**< the neighbour's MAC (the source MAC is the port's) */
	uint8_t pad2[2];
} __rte_aligned(64);

_Static_assert(sizeof(struct rtcache_entry6) == 64, "an IPv6 entry is one cache line");

/** Counters, per lcore. */
struct rtcache_stats {
	uint64_t lookups;   /**< probes */
	uint64_t hits;	    /**< probes answered with a valid entry */
	uint64_t misses;    /**< no entry for the key */
	uint64_t stale;	    /**< an entry whose generations no longer hold */
	uint64_t inserts;   /**< entries written */
	uint64_t evictions; /**< inserts that pushed out an entry of the FIB's generation */
	uint64_t bypassed;  /**< packets not probed: mode off, auto stepping aside, or a bypassed
			       sample */
};

/** Auto mode's parameters (rtcache_auto_default() gives the values in brackets). */
struct rtcache_auto {
	uint32_t sample; /**< packets per timed sample of a measurement (1024) */
	uint32_t hold;	 /**< packets between measurements (1<<20) */
	uint32_t window; /**< probes per hit-rate window, while probing (4096) */
	/** a window whose hit rate falls more than this many points below the last
	 * measurement's starts the next one at once (20) */
	uint32_t trigger_pts;
};

/** Timed samples of each side per measurement (probed, bypassed). */
#define RTCACHE_AUTO_PAIRS 4
/** The cache warms until a sample's cold misses (free ways, stale entries)
 * are under 1/16 of its probes, for at most as many samples as it takes to
 * fill the cache (entries / au.sample), within these bounds (the upper one
 * limits what a flood that never fills the cache, of packets dropped,
 * probes: 64 samples of 1,024 are 6% of the 2^20-packet hold). */
#define RTCACHE_AUTO_WARMING_MIN 16
#define RTCACHE_AUTO_WARMING_MAX 64
/** Measurements that choose to bypass one after another double the hold up
 * to this many times (8 x 2^20 packets by default). A measurement probes
 * about 70,000 packets at the cost of misses while the cache warms (to
 * RTCACHE_AUTO_WARMING_MAX, then its samples): always under a flood of
 * dropped packets, which never fills the cache, and for the first two or
 * three under one of new destinations (64 samples of random keys into a
 * 65,536-entry cache leave a way free in about 40% of its buckets): about
 * 7% of a 2^20 hold, under 1% of eight. A measurement that chooses to probe
 * brings the hold back to au.hold. */
#define RTCACHE_AUTO_HOLD_SHIFT_MAX 3

struct rtcache {
	struct rtcache_entry *b;   /* nb_buckets x RTCACHE_WAYS */
	struct rtcache_entry6 *b6; /* the same for IPv6 */
	uint32_t mask;		   /* nb_buckets - 1 */
	uint32_t shift;		   /* 64 - log2(nb_buckets) */
	uint64_t k[4];		   /* hash secret */
	uint8_t mode;		   /* enum rtcache_mode */
	uint8_t bypassing;	   /* auto: stepping aside (or a bypassed sample) */
	uint8_t warm;		   /* the last burst probed mostly hit (see datapath.c) */
	uint8_t measuring;	   /* auto: a measurement is under way */
	/* probes, hits and cold misses (warming, not a verdict) of the
	 * hit-rate window; during a measurement, of its current part */
	uint32_t win_probes, win_hits;
	uint32_t win_cold;
	uint32_t last_win_pct; /* hit rate of the last full window, percent */
	uint8_t win_closed;    /* a window closed since the mode was set */
	uint64_t hold_left;    /* auto: packets until the next measurement */
	/* auto: the hold is au.hold << hold_shift: one more after each
	 * measurement that chose to bypass, up to RTCACHE_AUTO_HOLD_SHIFT_MAX;
	 * 0 once one chooses to probe */
	uint8_t hold_shift;
	/* the measurement under way: sample number (0: warming, not judged),
	 * warming samples so far, the sample's packets and cycles so far, the
	 * samples' cycles a packet (x16) */
	uint32_t m_step, m_warming, m_pkts;
	uint64_t m_cyc;
	uint32_t m_probe[RTCACHE_AUTO_PAIRS], m_bypass[RTCACHE_AUTO_PAIRS];
	uint32_t m_np, m_nb;
	/* the last measurement's outcome: the medians of its samples, cycles
	 * a packet x16, the hit rate of its probed samples (cold misses
	 * excused as in a window), how many so far */
	uint32_t probe_cpp16, bypass_cpp16, verdict_pct;
	uint64_t measurements;
	struct rtcache_auto au;
	struct rtcache_stats st;
} __rte_cache_aligned;

/**
 * Create a cache of @p entries (rounded up to a power of two, at least 64)
 * on @p socket. @p seed 0: a random secret. Worker setup (allocates).
 * @return the cache, or NULL.
 */
struct rtcache *rtcache_create(uint32_t entries, int socket, uint64_t seed);

void rtcache_free(struct rtcache *c);

/** Forget every entry. Control thread or owner. */
void rtcache_flush(struct rtcache *c);

/** Bytes the cache occupies (constant). */
uint64_t rtcache_memory(const struct rtcache *c);

/*
 * The hash of one arrival port's keys, taken out of the cache once per
 * burst: the secret multiplier and the port's offset stay in registers
 * across the burst instead of being read (and the offset multiplied) per
 * packet.
 */
struct rtcache_hasher {
	uint64_t k0;	/* key mask */
	uint64_t mul;	/* odd multiplier */
	uint64_t port;	/* the port's offset */
	uint32_t shift; /* 64 - log2(buckets) */
};

static inline struct rtcache_hasher rtcache_hasher(const struct rtcache *c, uint16_t in_port)
{
	struct rtcache_hasher h = {.k0 = c->k[0],
				   .mul = c->k[1] | 1,
				   .port = (uint64_t)in_port * c->k[2],
				   .shift = c->shift};

	return h;
}

/*
 * multiply-shift (Dietzfelbinger et al.) on the 64-bit key with a secret odd
 * multiplier: two given keys share a bucket with probability at most
 * 2/buckets over the secret, unknown to senders; the port shifts its keys by
 * a secret offset. One multiply: the bucket's address is ready early enough
 * to prefetch it. The top bits of the product are the bucket.
 */
static inline uint32_t rtcache_hash(const struct rtcache_hasher *hk, uint32_t dst, uint32_t src)
{
	uint64_t key = ((uint64_t)dst << 32 | src) ^ hk->k0;

	return (uint32_t)((key * hk->mul + hk->port) >> hk->shift);
}

/** Bucket index of a key (exposed for the collision test). */
static inline uint32_t rtcache_bucket(const struct rtcache *c, uint32_t dst, uint32_t src,
				      uint16_t in_port)
{
	struct rtcache_hasher hk = rtcache_hasher(c, in_port);

	return rtcache_hash(&hk, dst, src);
}

/** Would this burst probe the cache? (No counting: rtcache_use() counts.) Datapath-safe. */
static inline bool rtcache_probing(const struct rtcache *c)
{
	return c->mode == RTCACHE_ON || (c->mode == RTCACHE_AUTO && !c->bypassing);
}

/**
 * Should this burst probe the cache? Counts the bypassed packets otherwise.
 * Datapath-safe.
 */
static inline bool rtcache_use(struct rtcache *c, unsigned int n)
{
	if (rtcache_probing(c))
		return true;
	c->st.bypassed += n;
	return false;
}

/** Start a measurement (auto mode). Datapath-safe (rtcache.c). */
void rtcache_measure_start(struct rtcache *c);

/** A timed burst of @p n packets that took @p cycles, during a measurement.
 * Datapath-safe (rtcache.c: called once a burst, only while measuring). */
void rtcache_measure(struct rtcache *c, unsigned int n, uint64_t cycles);

/** Does this burst time itself for auto mode's measurement? Datapath-safe. */
static inline bool rtcache_timing(const struct rtcache *c)
{
	return c->mode == RTCACHE_AUTO && c->measuring;
}

/**
 * End of a burst of @p n packets in auto mode: its @p cycles go to the
 * measurement under way when the burst was @p timed (rtcache_timing() at its
 * start; a measurement that began inside the burst skips it); otherwise the
 * hold counts down to the next measurement. Datapath-safe.
 */
static inline void rtcache_auto_end(struct rtcache *c, unsigned int n, bool timed, uint64_t cycles)
{
	if (c->mode != RTCACHE_AUTO)
		return;
	if (c->measuring) {
		if (timed)
			rtcache_measure(c, n, cycles);
	} else if (c->hold_left > n) {
		c->hold_left -= n;
	} else {
		rtcache_measure_start(c);
	}
}

/*
 * A miss into a bucket with a free way is the cache warming, not the
 * traffic missing it: auto mode excuses such misses, and stale entries,
 * from a window's hit rate (rtcache_account).
 */
static inline void rtcache_cold_miss(struct rtcache *c, uint16_t first_way, uint16_t last_way)
{
	c->win_cold += first_way == RTCACHE_PORT_EMPTY || last_way == RTCACHE_PORT_EMPTY;
}

/** @p probes lookups, @p hits of them valid: a burst counts once, at its end. */
static inline void rtcache_count(struct rtcache *c, uint32_t probes, uint32_t hits)
{
	c->st.lookups += probes;
	c->win_probes += probes;
	c->st.hits += hits;
	c->win_hits += hits;
}

/** The entry for a key in its bucket @p bucket (rtcache_prefetch()), or
 * NULL (a miss, counted). The caller counts the probe (rtcache_count()).
 * Datapath-safe. */
static inline struct rtcache_entry *rtcache_find_at(struct rtcache *c, uint32_t bucket,
						    uint32_t dst, uint32_t src, uint16_t in_port)
{
	struct rtcache_entry *e = &c->b[(size_t)bucket * RTCACHE_WAYS];
	unsigned int w;

	for (w = 0; w < RTCACHE_WAYS; w++)
		if (e[w].dst == dst && e[w].in_port == in_port && e[w].src == src)
			return &e[w];
	c->st.misses++;
	rtcache_cold_miss(c, e[0].in_port, e[RTCACHE_WAYS - 1].in_port);
	return NULL;
}

/** Find the entry for a key, or NULL. Counts the lookup. Datapath-safe. */
static inline struct rtcache_entry *rtcache_find(struct rtcache *c, uint32_t dst, uint32_t src,
						 uint16_t in_port)
{
	rtcache_count(c, 1, 0);
	return rtcache_find_at(c, rtcache_bucket(c, dst, src, in_port), dst, src, in_port);
}

/** Start loading a key's bucket, a while before rtcache_find_at() reads it;
 * returns the bucket. Datapath-safe. */
static inline uint32_t rtcache_prefetch(const struct rtcache *c, const struct rtcache_hasher *hk,
					uint32_t dst, uint32_t src)
{
	uint32_t bucket = rtcache_hash(hk, dst, src);
	const struct rtcache_entry *e = &c->b[(size_t)bucket * RTCACHE_WAYS];

	rte_prefetch0(e);     /* way 0 */
	rte_prefetch0(e + 1); /* way 1, the bucket's second line */
	return bucket;
}

/** The entry found was valid and used. Datapath-safe. */
static inline void rtcache_hit(struct rtcache *c)
{
	rtcache_count(c, 0, 1);
}

/** The entry found no longer holds: forget it. Datapath-safe. */
static inline void rtcache_stale(struct rtcache *c, struct rtcache_entry *e)
{
	c->st.stale++;
	c->win_cold++;
	e->in_port = RTCACHE_PORT_EMPTY;
	e->dst = 0;
}

/*
 * A bucket's two ways know their order from each other, not from a clock
 * shared by every fill: the newer's age is the older's + 1 (mod 2^16),
 * however many fills other buckets saw between (a shared 16-bit clock
 * wrapped between two fills of one bucket, and then evicted the newer).
 * Which way is the older; a tie (both never filled) says way 1.
 */
static inline unsigned int rtcache_older_way(uint16_t age0, uint16_t age1)
{
	return (uint16_t)(age0 + 1) == age1 ? 0 : 1;
}

/*
 * The way a fill takes when neither is free nor holds its key: one made
 * under an older FIB generation than @p fib_gen (out of date: taken first,
 * not an eviction), else the older (counted evicted). An entry whose
 * neighbour changed since is not known here, and counts as valid.
 */
static inline unsigned int rtcache_victim(struct rtcache *c, uint16_t age0, uint16_t age1,
					  uint64_t gen0, uint64_t gen1, uint64_t fib_gen)
{
	unsigned int w = rtcache_older_way(age0, age1);

	if ((w == 0 ? gen0 : gen1) != fib_gen)
		return w;
	if ((w == 0 ? gen1 : gen0) != fib_gen)
		return w ^ 1;
	c->st.evictions++;
	return w;
}

/**
 * A slot for a key in its @p bucket (rtcache_bucket, rtcache_prefetch): its
 * entry, a free way, a way out of date for @p fib_gen (the generation the
 * caller decided under), or the older way (evicted). The caller fills the
 * value fields. Datapath-safe (no allocation).
 */
static inline struct rtcache_entry *rtcache_slot_at(struct rtcache *c, uint32_t bucket,
						    uint32_t dst, uint32_t src, uint16_t in_port,
						    uint64_t fib_gen)
{
	struct rtcache_entry *e = &c->b[(size_t)bucket * RTCACHE_WAYS];
	unsigned int w;

	_Static_assert(RTCACHE_WAYS == 2, "rtcache_older_way() orders two ways");
	for (w = 0; w < RTCACHE_WAYS; w++)
		if (e[w].in_port == RTCACHE_PORT_EMPTY ||
		    (e[w].dst == dst && e[w].src == src && e[w].in_port == in_port))
			goto fill;
	w = rtcache_victim(c, e[0].age, e[1].age, e[0].fib_gen, e[1].fib_gen, fib_gen);
fill:
	c->st.inserts++;
	e[w].dst = dst;
	e[w].src = src;
	e[w].in_port = in_port;
	e[w].age = (uint16_t)(e[w ^ 1].age + 1); /* the newer */
	return &e[w];
}

/** rtcache_slot_at() in the key's bucket. */
static inline struct rtcache_entry *rtcache_slot(struct rtcache *c, uint32_t dst, uint32_t src,
						 uint16_t in_port, uint64_t fib_gen)
{
	return rtcache_slot_at(c, rtcache_bucket(c, dst, src, in_port), dst, src, in_port, fib_gen);
}

/** Bucket index of an IPv6 key: the halves folded, then as for IPv4. */
static inline uint32_t rtcache6_bucket(const struct rtcache *c, const uint8_t *dst,
				       const uint8_t *src, uint16_t in_port)
{
	uint64_t d[2], s[2], h;

	memcpy(d, dst, 16);
	memcpy(s, src, 16);
	h = ((d[0] ^ c->k[0]) * (c->k[1] | 1)) ^ ((d[1] ^ c->k[2]) * (c->k[3] | 1));
	h += ((s[0] ^ c->k[1]) * (c->k[0] | 1)) ^ ((s[1] ^ c->k[3]) * (c->k[2] | 1));
	h += (uint64_t)in_port * c->k[1];
	return (uint32_t)(h >> c->shift) & c->mask;
}

static inline bool rtcache6_key_eq(const struct rtcache_entry6 *e, const uint8_t *dst,
				   const uint8_t *src, uint16_t in_port)
{
	return e->in_port == in_port && memcmp(e->dst, dst, 16) == 0 &&
	       memcmp(e->src, src, 16) == 0;
}

/** Find the IPv6 entry for a key, or NULL. Counts the lookup. Datapath-safe. */
static inline struct rtcache_entry6 *rtcache6_find(struct rtcache *c, const uint8_t *dst,
						   const uint8_t *src, uint16_t in_port)
{
	struct rtcache_entry6 *e =
		&c->b6[(size_t)rtcache6_bucket(c, dst, src, in_port) * RTCACHE_WAYS];
	unsigned int w;

	rtcache_count(c, 1, 0);
	for (w = 0; w < RTCACHE_WAYS; w++)
		if (rtcache6_key_eq(&e[w], dst, src, in_port))
			return &e[w];
	c->st.misses++;
	rtcache_cold_miss(c, e[0].in_port, e[RTCACHE_WAYS - 1].in_port);
	return NULL;
}

/** The IPv6 entry found no longer holds: forget it. Datapath-safe. */
static inline void rtcache6_stale(struct rtcache *c, struct rtcache_entry6 *e)
{
	c->st.stale++;
	c->win_cold++;
	e->in_port = RTCACHE_PORT_EMPTY;
}

/** A slot for an IPv6 key (its entry, a free way, one out of date for
 * @p fib_gen, or the older: rtcache_slot_at()). Datapath-safe. */
static inline struct rtcache_entry6 *rtcache6_slot(struct rtcache *c, const uint8_t *dst,
						   const uint8_t *src, uint16_t in_port,
						   uint64_t fib_gen)
{
	struct rtcache_entry6 *e =
		&c->b6[(size_t)rtcache6_bucket(c, dst, src, in_port) * RTCACHE_WAYS];
	unsigned int w;

	for (w = 0; w < RTCACHE_WAYS; w++)
		if (e[w].in_port == RTCACHE_PORT_EMPTY || rtcache6_key_eq(&e[w], dst, src, in_port))
			goto fill;
	w = rtcache_victim(c, e[0].age, e[1].age, e[0].fib_gen, e[1].fib_gen, fib_gen);
fill:
	c->st.inserts++;
	memcpy(e[w].dst, dst, 16);
	memcpy(e[w].src, src, 16);
	e[w].in_port = in_port;
	e[w].age = (uint16_t)(e[w ^ 1].age + 1); /* the newer */
	return &e[w];
}

/** Forget the counts of the hit-rate window (or of a measurement's part). */
static inline void rtcache_win_clear(struct rtcache *c)
{
	c->win_probes = c->win_hits = c->win_cold = 0;
}

/**
 * The hit rate of what the window counted, percent, and the counts
 * forgotten. Cold misses are left out, up to half the probes; nothing
 * counted is 100. A window's rate and a measurement's alike. Datapath-safe.
 */
static inline uint32_t rtcache_win_take(struct rtcache *c)
{
	uint32_t judged = c->win_probes - RTE_MIN(c->win_cold, c->win_probes / 2);
	uint32_t pct = judged ? (uint32_t)RTE_MIN((uint64_t)c->win_hits * 100 / judged, 100) : 100;

	rtcache_win_clear(c);
	return pct;
}

/**
 * After a burst's probes (auto or on): close the hit-rate window when it is
 * full. A window whose rate fell more than au.trigger_pts below the last
 * measurement's (a flood of new destinations, say) starts the next
 * measurement now instead of after the hold: the traffic has changed. Cold
 * misses (a free way, a stale entry: the cache warming after a start, a
 * flush or a route change) are no sign of that and are left out, up to half
 * the window: a flood into an empty cache, or of packets that are dropped
 * and never fill it, still shows within a window. Datapath-safe.
 */
static inline void rtcache_account(struct rtcache *c)
{
	/* a measurement keeps the counts itself (rtcache_measure()); mode on
	 * closes windows too, for 'show rtcache stats', and measures nothing */
	if (c->mode == RTCACHE_OFF || c->measuring || c->win_probes < c->au.window)
		return;
	c->last_win_pct = rtcache_win_take(c);
	c->win_closed = 1;
	if (c->mode == RTCACHE_AUTO && c->last_win_pct + c->au.trigger_pts < c->verdict_pct)
		rtcache_measure_start(c);
}

/** Set the mode; auto starts a measurement. The owner (a worker, between or
 * inside its bursts: a measurement started inside one skips it). */
void rtcache_mode_set(struct rtcache *c, enum rtcache_mode m);

/** Set the auto-mode parameters. */
void rtcache_auto_set(struct rtcache *c, const struct rtcache_auto *au);

/** The default auto-mode parameters. */
void rtcache_auto_default(struct rtcache_auto *au);

#endif /* RTCACHE_H */
