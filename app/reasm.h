/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly of the IPv4 and IPv6 datagrams sent to the router itself in
 * fragments (RFC 791 3.2, RFC 1122 3.3.2; RFC 8200 4.5), on the control
 * thread: an echo request larger than its sender's MTU is answered, as an
 * end host answers it. Forwarded fragments are never put together.
 *
 * Bounded: REASM_DATAGRAMS datagrams at once (a new one takes the place of
 * the oldest), REASM_PER_SOURCE of them of one source address (its new one
 * takes the place of its own oldest), REASM_FRAGS fragments a datagram, REASM_MBUFS mbuf segments
 * held in all (the mbuf pool is sized for them), a datagram's fragments
 * kept REASM4_TIMEOUT_MS / REASM6_TIMEOUT_MS from its first arrival (or
 * what 'set ip reassembly-timeout' says: reasm_timeout_set()). A
 * fragment that overlaps another drops its whole datagram (RFC 5722, as
 * RFC 8200 4.5 asks; IPv4 alike), but for an exact duplicate, dropped
 * alone; the datagram's fragments that come after, until its time runs
 * out, are dropped too (reasm_overlap), and it earns no Time Exceeded. Every fragment freed here
 * counts once in the caller's drop array (stats.h ctrl_drop): reasm_malformed, reasm_overlap,
 * reasm_timeout or reasm_over_limit; those put together count in none. A NULL table (a router built
 * without one) holds nothing: reasm_over_limit.
 */
#ifndef FR_REASM_H
#define FR_REASM_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#define REASM_DATAGRAMS	  32
#define REASM_PER_SOURCE  8 /* datagrams of one source address at once */
#define REASM_FRAGS	  64
#define REASM_MBUFS	  256
#define REASM4_TIMEOUT_MS 30000 /* Linux's ipfrag_time; RFC 791 suggests 15 s at least */
#define REASM6_TIMEOUT_MS 60000 /* RFC 8200 4.5 */

struct reasm;

/** A reassembly table (control thread setup: allocates). NULL: no memory. */
struct reasm *reasm_create(void);

/** Free the table, its fragments counted reasm_timeout in @drop. */
void reasm_free(struct reasm *ra, uint64_t *drop);

/**
 * An IPv4 fragment @m for the router (Ethernet header first, the IPv4 header
 * in the first segment, the frame the packet's length, as the workers hand
 * it over), at @now (ms). Returns the whole datagram once its last piece
 * came: its first fragment's frame with the other fragments' data chained
 * after it, the header's length, offset and flags made those of a whole
 * datagram; else NULL, @m held or freed and counted in @drop.
 */
struct rte_mbuf *reasm4_input(struct reasm *ra, struct rte_mbuf *m, uint64_t now, uint64_t *drop);

/**
 * The same for an IPv6 fragment whose Fragment header is @fh bytes past the
 * IPv6 header (the headers before it, the unfragmentable part, in the first
 * segment), the Next Header field that names it @nh_at bytes into the IPv6
 * header. The whole packet has no Fragment header: the field at @nh_at of
 * the first fragment names what it named.
 */
struct rte_mbuf *reasm6_input(struct reasm *ra, struct rte_mbuf *m, uint32_t fh, uint32_t nh_at,
			      uint64_t now, uint64_t *drop);

/**
 * The checks of IPv6 fragment @m (@fh as for reasm6_input()) after which
 * RFC 8200 4.5 has the fragment dropped with an ICMPv6 Parameter Problem
 * back: true, *@code and *@ptr set, for data before the last not a
 * multiple of 8 bytes (code 0, at the Payload Length field), data that
 * would end past 65,535 bytes of payload (code 0, at the Fragment Offset
 * field), or a first fragment without the whole header chain through the
 * upper-layer header (code 3, pointer 0; RFC 7112). False when none
 * applies; reasm6_input() makes the other checks.
 */
bool reasm6_param_problem(const struct rte_mbuf *m, uint32_t fh, uint8_t *code, uint32_t *ptr);

/**
 * The datagrams whose time ran out at @now: their fragments freed, counted
 * reasm_timeout. Returns, one call at a time, the first fragment (offset 0)
 * of one that had it, counted too, for the caller's Time Exceeded (code 1,
 * RFC 792, RFC 8200 4.5) or to free; NULL when none is left.
 */
struct rte_mbuf *reasm_expire(struct reasm *ra, uint64_t now, uint64_t *drop);

/** The time fragments wait for the rest, both families, @sec seconds (0:
 * REASM4_TIMEOUT_MS and REASM6_TIMEOUT_MS); for datagrams begun from now.
 * A NULL table: nothing. */
void reasm_timeout_set(struct reasm *ra, uint32_t sec);

/** Datagrams being put together. */
unsigned int reasm_pending(const struct reasm *ra);

/** Mbuf segments held. */
unsigned int reasm_mbufs(const struct reasm *ra);

#endif /* FR_REASM_H */
