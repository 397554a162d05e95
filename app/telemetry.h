/* SPDX-License-Identifier: BSD-3-Clause */
/* The router's DPDK telemetry endpoints (/fastroute/...): its counters and
 * tables for dpdk-telemetry.py and other telemetry clients. */
#ifndef FR_TELEMETRY_H
#define FR_TELEMETRY_H

struct router;

/* Register the /fastroute/... telemetry endpoints. Control thread, once. */
int telemetry_register(struct router *r);

/* The endpoints answer -EBUSY from now on; returns once no call is inside
 * one (before the EAL frees what they read). Control thread, at stop. */
void telemetry_stop(void);

#endif
