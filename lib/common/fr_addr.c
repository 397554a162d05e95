/* SPDX-License-Identifier: BSD-3-Clause */
/* Address and prefix parsing and formatting (control thread, tests). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_random.h>

#include "fr_addr.h"

int fr_addr_parse(const char *s, struct fr_addr *a)
{
	struct in_addr in4;

	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, &in4) == 1) {
		a->family = AF_INET;
		a->v4 = ntohl(in4.s_addr);
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->v6) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

void fr_addr_mask(struct fr_addr *a, unsigned int len)
{
	unsigned int i;

	if (a->family == AF_INET) {
		a->v4 = len == 0 ? 0 : a->v4 & (UINT32_MAX << (32 - len));
		return;
	}
	for (i = 0; i < 16; i++) {
		if (len >= 8) {
			len -= 8;
			continue;
		}
		a->v6[i] &= (uint8_t)(0xff00 >> len);
		len = 0;
	}
}

const char *fr_addr_not_host(const struct fr_addr *a)
{
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};
	static const uint8_t zero[12];

	if (a->family == AF_INET) {
		if ((a->v4 >> 24) == 0)
			return "0.0.0.0/8 means this network";
		if ((a->v4 >> 24) == 127)
			return "127.0.0.0/8 is loopback";
		if ((a->v4 >> 28) == 0xe)
			return "224.0.0.0/4 is multicast";
		if ((a->v4 >> 28) == 0xf)
			return a->v4 == UINT32_MAX ? "the limited broadcast"
						   : "240.0.0.0/4 is reserved";
		return NULL;
	}
	if (a->v6[0] == 0xff)
		return "ff00::/8 is multicast";
	if (memcmp(a->v6, mapped, 12) == 0)
		return "::ffff:0:0/96 is IPv4-mapped";
	if (memcmp(a->v6, zero, 12) == 0) {
		if (a->v6[12] == 0 && a->v6[13] == 0 && a->v6[14] == 0 && a->v6[15] <= 1)
			return a->v6[15] ? "::1 is loopback" : ":: is the unspecified address";
		return "::/96 is IPv4-compatible (deprecated)";
	}
	return NULL;
}

bool fr_prefix_contains(const struct fr_prefix *p, const struct fr_addr *a)
{
	struct fr_addr m = *a;

	if (a->family != p->addr.family)
		return false;
	fr_addr_mask(&m, p->len);
	return fr_addr_eq(&m, &p->addr);
}

int fr_prefix_parse(const char *s, struct fr_prefix *p, bool canonical)
{
	char buf[FR_ADDR_STRLEN];
	const char *slash = strchr(s, '/');
	struct fr_addr masked;
	unsigned long len;
	char *end;

	if (slash == NULL || (size_t)(slash - s) >= sizeof(buf) || slash == s)
		return -EINVAL;
	memcpy(buf, s, slash - s);
	buf[slash - s] = '\0';
	if (fr_addr_parse(buf, &p->addr) < 0)
		return -EINVAL;
	/* digits only, and no leading zero: "/08" is octal to some tools
	 * (iproute2 reads /010 as 8), so it is refused, as a dotted quad's */
	if (slash[1] < '0' || slash[1] > '9' || (slash[1] == '0' && slash[2] != '\0'))
		return -EINVAL;
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	/* past unsigned long too: out of range as well, not malformed */
	if (errno == ERANGE || len > fr_family_bits(p->addr.family))
		return -ERANGE;
	p->len = (uint8_t)len;
	masked = p->addr;
	fr_addr_mask(&masked, p->len);
	if (canonical && !fr_addr_eq(&masked, &p->addr))
		return -EDOM;
	return 0;
}

char *fr_addr_fmt(const struct fr_addr *a, char *buf, size_t len)
{
	struct in_addr in4;

	if (a->family == AF_INET) {
		in4.s_addr = htonl(a->v4);
		if (inet_ntop(AF_INET, &in4, buf, len) == NULL)
			snprintf(buf, len, "?");
	} else if (a->family == AF_INET6) {
		if (inet_ntop(AF_INET6, a->v6, buf, len) == NULL)
			snprintf(buf, len, "?");
	} else {
		snprintf(buf, len, "-");
	}
	return buf;
}

char *fr_prefix_fmt(const struct fr_prefix *p, char *buf, size_t len)
{
	char a[FR_ADDR_STRLEN];

	snprintf(buf, len, "%s/%u", fr_addr_fmt(&p->addr, a, sizeof(a)), p->len);
	return buf;
}

uint32_t fr_hash_crc(const void *key, uint32_t len, uint32_t init)
{
	const uint8_t *p = key;
	uint64_t v8;
	uint32_t v4;

	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&v8, p, 8);
		init = rte_hash_crc_8byte(v8, init);
	}
	if (len >= 4) {
		memcpy(&v4, p, 4);
		init = rte_hash_crc_4byte(v4, init);
		len -= 4;
		p += 4;
	}
	for (; len > 0; len--, p++)
		init = rte_hash_crc_1byte(*p, init);
	return init;
}

/* fr_hash_keyed()'s secret: one multiplier a word, and the sum's start */
static uint64_t hash_key[FR_HASH_KEYED_MAX / 4 + 1];
static bool hash_key_set;

void fr_hash_keyed_init(void)
{
	uint64_t seed;
	unsigned int i;

	if (hash_key_set)
		return;
	seed = rte_rand() ^ rte_rdtsc();
	for (i = 0; i < RTE_DIM(hash_key); i++) {
		/* splitmix64 */
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		hash_key[i] = z ^ (z >> 31);
	}
	hash_key_set = true;
}

uint32_t fr_hash_keyed(const void *key, uint32_t len, uint32_t init)
{
	const uint8_t *p = key;
	uint64_t h = hash_key[0] + init;
	unsigned int i;
	uint32_t w;

	if (len > FR_HASH_KEYED_MAX)
		len = FR_HASH_KEYED_MAX;
	for (i = 1; len >= 4; len -= 4, p += 4, i++) {
		memcpy(&w, p, 4);
		h += hash_key[i] * w;
	}
	if (len > 0) {
		w = 0;
		memcpy(&w, p, len);
		h += hash_key[i] * w;
	}
	return (uint32_t)(h >> 32);
}
