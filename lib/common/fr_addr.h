/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Addresses and prefixes shared by lib/fib, lib/neigh and the app.
 *
 * IPv4 addresses are kept in host byte order (what rte_fib/rte_lpm take);
 * IPv6 addresses as 16 bytes in network order (what rte_fib6 takes).
 * All functions are datapath-safe unless marked otherwise (no allocation,
 * no syscalls, no logging).
 */
#ifndef FR_ADDR_H
#define FR_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

/** Longest text form of an address plus "/128" and the terminating NUL. */
#define FR_ADDR_STRLEN 52

/** An IPv4 or IPv6 address. */
struct fr_addr {
	uint8_t family; /**< AF_INET or AF_INET6 */
	union {
		uint32_t v4;	/**< IPv4, host byte order */
		uint8_t v6[16]; /**< IPv6, network byte order */
	};
};

/** A prefix: an address with no bits set beyond @p len. */
struct fr_prefix {
	struct fr_addr addr;
	uint8_t len;
};

/** Make an IPv4 address from a host-order value. */
static inline struct fr_addr fr_addr4(uint32_t host_order)
{
	struct fr_addr a;

	memset(&a, 0, sizeof(a));
	a.family = AF_INET;
	a.v4 = host_order;
	return a;
}

/** Maximum prefix length of @p family (32 or 128). */
static inline unsigned int fr_family_bits(uint8_t family)
{
	return family == AF_INET6 ? 128 : 32;
}

/** True when @p a and @p b are the same address of the same family. */
static inline bool fr_addr_eq(const struct fr_addr *a, const struct fr_addr *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return a->v4 == b->v4;
	return memcmp(a->v6, b->v6, 16) == 0;
}

/** True when @p a and @p b are the same prefix (address and length). */
static inline bool fr_prefix_eq(const struct fr_prefix *a, const struct fr_prefix *b)
{
	return a->len == b->len && fr_addr_eq(&a->addr, &b->addr);
}

/**
 * Parse an IPv4 or IPv6 address.
 * @return 0, or -EINVAL when @p s is not an address.
 */
int fr_addr_parse(const char *s, struct fr_addr *a);

/**
 * Parse "ADDR/LEN".
 * @param canonical when true, host bits set beyond LEN are an error (a route
 *   key); when false they are kept (an interface address such as 192.0.2.1/24).
 * @return 0; -EINVAL bad syntax or address; -ERANGE LEN beyond the family's
 *   width; -EDOM host bits set (only when @p canonical).
 */
int fr_prefix_parse(const char *s, struct fr_prefix *p, bool canonical);

/** Clear the bits of @p a beyond @p len. */
void fr_addr_mask(struct fr_addr *a, unsigned int len);

/** True when @p a lies inside prefix @p p (same family). */
bool fr_prefix_contains(const struct fr_prefix *p, const struct fr_addr *a);

/**
 * Why @p a cannot be a unicast host address (a port address, a gateway, a
 * neighbour), or NULL when it can. IPv4: 0.0.0.0/8, 127.0.0.0/8, 224.0.0.0/4
 * and 240.0.0.0/4 with 255.255.255.255 (RFC 1122 3.2.1.3, RFC 1112). IPv6:
 * ::, ::1, ff00::/8, IPv4-mapped ::ffff:0:0/96 and IPv4-compatible ::/96
 * (RFC 4291 2.5.2-2.5.5, 2.7); link-local is a host address.
 */
const char *fr_addr_not_host(const struct fr_addr *a);

/** Format @p a into @p buf (at least FR_ADDR_STRLEN bytes); returns @p buf. */
char *fr_addr_fmt(const struct fr_addr *a, char *buf, size_t len);

/** Format @p p as "ADDR/LEN" into @p buf; returns @p buf. */
char *fr_prefix_fmt(const struct fr_prefix *p, char *buf, size_t len);

/**
 * rte_hash hash function for our fixed-size keys: CRC32-C over the key read
 * with memcpy, so keys stored at any alignment in rte_hash's key slots are
 * read without misaligned loads. Datapath-safe.
 */
uint32_t fr_hash_crc(const void *key, uint32_t len, uint32_t init);

/** Longest key fr_hash_keyed() takes whole (longer: its first bytes). */
#define FR_HASH_KEYED_MAX 32

/**
 * Set fr_hash_keyed()'s secret, once (later calls keep it), from rte_rand()
 * and the TSC. Before any table that uses it is read by another thread.
 */
void fr_hash_keyed_init(void);

/**
 * rte_hash hash function for keys whose content others choose (a neighbour
 * table's addresses): multilinear hashing with a secret 64-bit multiplier a
 * 32-bit word (Lemire and Kaser, strongly universal), the sum's high 32
 * bits. CRC32 is linear: anyone can compute addresses that all share one
 * value and one rte_hash chain, which every worker lookup then walks; not
 * knowing the secret, nobody can. Keys up to FR_HASH_KEYED_MAX bytes.
 * Datapath-safe.
 */
uint32_t fr_hash_keyed(const void *key, uint32_t len, uint32_t init);

#endif /* FR_ADDR_H */
