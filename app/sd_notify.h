/* SPDX-License-Identifier: BSD-3-Clause */
/* The systemd service notification protocol (sd_notify(3)), without
 * libsystemd: a Type=notify unit learns when the router is ready. */
#ifndef FR_SD_NOTIFY_H
#define FR_SD_NOTIFY_H

#include <stdint.h>

/* Send @state ("READY=1\nSTATUS=...") to the socket $NOTIFY_SOCKET names,
 * if it is set: 1 sent, 0 no socket to send to, a negative errno (the
 * router runs on: only its service manager would have been told). Control
 * thread, never the data path. */
int fr_sd_notify(const char *state);

/* The service manager's watchdog interval in ms ($WATCHDOG_USEC, for this
 * process when $WATCHDOG_PID names one), 0 when it keeps none: the router
 * then sends WATCHDOG=1 every half of it. */
uint64_t fr_sd_watchdog_ms(void);

#endif /* FR_SD_NOTIFY_H */
