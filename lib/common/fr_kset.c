/* SPDX-License-Identifier: BSD-3-Clause */
#include "fr_kset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_jhash.h>

int fr_kset_init(struct fr_kset *s, uint32_t esize, uint32_t ksize, uint32_t cap)
{
	memset(s, 0, sizeof(*s));
	/* a power of two, that doubling keeps one: the probe's mask */
	if (cap == 0 || (cap & (cap - 1)) != 0 || cap > FR_KSET_MAX_CAP || ksize > esize)
		return -EINVAL;
	s->e = calloc(cap, esize);
	s->used = calloc(cap, 1);
	if (s->e == NULL || s->used == NULL) {
		fr_kset_free(s);
		return -ENOMEM;
	}
	s->cap = cap;
	s->esize = esize;
	s->ksize = ksize;
	return 0;
}

void fr_kset_free(struct fr_kset *s)
{
	free(s->e);
	free(s->used);
	s->e = s->used = NULL;
	s->cap = s->n = 0;
}

/* The slot of @key, or the empty one where it would go. */
static uint32_t slot(const struct fr_kset *s, const void *key)
{
	uint32_t mask = s->cap - 1, i = rte_jhash(key, s->ksize, 0x9e3779b9) & mask;

	while (s->used[i] && memcmp(s->e + (size_t)i * s->esize, key, s->ksize) != 0)
		i = (i + 1) & mask;
	return i;
}

void *fr_kset_get(const struct fr_kset *s, const void *key)
{
	uint32_t i;

	if (s->cap == 0) /* freed */
		return NULL;
	i = slot(s, key);

	return s->used[i] ? s->e + (size_t)i * s->esize : NULL;
}

static int grow(struct fr_kset *s)
{
	struct fr_kset g;
	uint32_t i;

	if (fr_kset_init(&g, s->esize, s->ksize, s->cap * 2) != 0)
		return -ENOMEM;
	for (i = 0; i < s->cap; i++)
		if (s->used[i]) {
			uint32_t j = slot(&g, s->e + (size_t)i * s->esize);

			memcpy(g.e + (size_t)j * g.esize, s->e + (size_t)i * s->esize, s->esize);
			g.used[j] = 1;
		}
	g.n = s->n;
	fr_kset_free(s);
	*s = g;
	return 0;
}

void *fr_kset_put(struct fr_kset *s, const void *key, bool *added)
{
	uint32_t i;
	uint8_t *e;

	*added = false;
	if (s->cap == 0) /* freed */
		return NULL;
	i = slot(s, key);
	if (s->used[i])
		return s->e + (size_t)i * s->esize;
	if ((uint64_t)(s->n + 1) * 4 > (uint64_t)s->cap * 3) {
		if (grow(s) != 0)
			return NULL;
		i = slot(s, key);
	}
	e = s->e + (size_t)i * s->esize;
	memset(e, 0, s->esize);
	memcpy(e, key, s->ksize);
	s->used[i] = 1;
	s->n++;
	*added = true;
	return e;
}
