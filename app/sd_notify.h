/* SPDX-License-Identifier: BSD-3-Clause */
/* The systemd service notification protocol (sd_notify(3)), without
 * libsystemd: a Type=notify unit learns when the router is ready. */
#ifndef FR_SD_NOTIFY_H
#define FR_SD_NOTIFY_H

/* Send @state ("READY=1\nSTATUS=...") to the socket $NOTIFY_SOCKET names,
 * if it is set: 1 sent, 0 no socket to send to, a negative errno (the
 * router runs on: only its service manager would have been told). Control
 * thread, never the data path. */
int fr_sd_notify(const char *state);

#endif /* FR_SD_NOTIFY_H */
