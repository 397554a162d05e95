/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output of CLI commands: growable text, and a small JSON writer that keeps
 * commas and nesting right, so every show command can answer either way
 * (fastroute-cli -j). Control thread.
 */
#ifndef FR_OUT_H
#define FR_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OUT_JSON_DEPTH 8

struct cmd_out {
	char *buf;
	size_t len, cap;
	bool json; /* show commands print JSON */
	bool quit; /* the command asked to end the session */
	bool oom;  /* the answer could not grow: it is cut short, never sent as is */
	bool cut;  /* the line ended the stream without its newline: a change is not run */
	int depth; /* JSON nesting */
	bool need_comma[OUT_JSON_DEPTH];
};

void out_printf(struct cmd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void out_reset(struct cmd_out *o);
void out_free(struct cmd_out *o);

/* JSON: @key is NULL for array elements and the top-level value. */
void jw_obj_open(struct cmd_out *o, const char *key);
void jw_obj_close(struct cmd_out *o);
void jw_arr_open(struct cmd_out *o, const char *key);
void jw_arr_close(struct cmd_out *o);
void jw_str(struct cmd_out *o, const char *key, const char *val);
void jw_u64(struct cmd_out *o, const char *key, uint64_t val);
void jw_dbl(struct cmd_out *o, const char *key, double val);
void jw_bool(struct cmd_out *o, const char *key, bool val);
void jw_null(struct cmd_out *o, const char *key);

#endif /* FR_OUT_H */
