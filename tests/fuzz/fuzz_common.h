/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the fuzz targets: EAL once, a small router to run against. */
#ifndef FR_FUZZ_COMMON_H
#define FR_FUZZ_COMMON_H

#include "router.h"

/* EAL (no hugepages, no PCI), tables, two fake ports with addresses and
 * routes of every type, mbuf pool, the control thread's TX ring. */
struct router *fuzz_router(void);

/* Free what the control thread queued for transmission. */
void fuzz_drain(struct router *r);

#endif
