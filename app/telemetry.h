/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef FR_TELEMETRY_H
#define FR_TELEMETRY_H

struct router;

/* Register the /fastroute/... telemetry endpoints. Control thread, once. */
int telemetry_register(struct router *r);

#endif
