/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A set of fixed-size entries keyed by their first bytes: open addressing,
 * at most three quarters full, doubled as it fills. The key is compared
 * whole, so its padding must be zeroed (memset the key before filling it).
 * For the control thread's bookkeeping while it reads a file (what lines
 * set, by what they name); malloc'd, never on the data path.
 */
#ifndef FR_KSET_H
#define FR_KSET_H

#include <stdbool.h>
#include <stdint.h>

struct fr_kset {
	uint8_t *e;    /* cap entries of esize bytes */
	uint8_t *used; /* cap flags */
	uint32_t cap, n, esize, ksize;
};

/* the most slots a set grows to: a put past 3/4 of it fails */
#define FR_KSET_MAX_CAP (1u << 30)

/**
 * An empty set of entries of @esize bytes, keyed by their first @ksize.
 * @param cap the first capacity, a power of two up to FR_KSET_MAX_CAP.
 * @return 0, -EINVAL (a bad size or capacity), or -ENOMEM.
 */
int fr_kset_init(struct fr_kset *s, uint32_t esize, uint32_t ksize, uint32_t cap);

void fr_kset_free(struct fr_kset *s);

/** The entry keyed @key, or NULL (none; a freed set). */
void *fr_kset_get(const struct fr_kset *s, const void *key);

/**
 * The entry keyed @key, a new one if there is none (*@added true: the key
 * copied in, the rest zero). NULL: out of memory or a freed set, the set
 * unchanged.
 * An entry moves when a later put grows the set.
 */
void *fr_kset_put(struct fr_kset *s, const void *key, bool *added);

#endif
