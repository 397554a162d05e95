/* SPDX-License-Identifier: BSD-3-Clause */
/* Command output: text buffer and JSON writer. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

void out_printf(struct cmd_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = o->cap - o->len, cap;
		char *nb;

		va_start(ap, fmt);
		n = vsnprintf(o->buf ? o->buf + o->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			o->len += (size_t)n;
			return;
		}
		cap = o->cap ? o->cap * 2 : 4096;
		while (cap - o->len <= (size_t)n)
			cap *= 2;
		nb = realloc(o->buf, cap);
		if (nb == NULL) {
			o->oom = true; /* the command ran; its answer is lost */
			return;
		}
		o->buf = nb;
		o->cap = cap;
	}
}

void out_reset(struct cmd_out *o)
{
	o->len = 0;
	if (o->buf)
		o->buf[0] = '\0';
	o->quit = false;
	o->oom = false;
	o->depth = 0;
	memset(o->need_comma, 0, sizeof(o->need_comma));
}

void out_free(struct cmd_out *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

static void json_string(struct cmd_out *o, const char *s)
{
	out_printf(o, "\"");
	while (*s) {
		/* the run of characters that need no escape, in one piece */
		size_t run = 0;
		unsigned char c;

		while ((c = (unsigned char)s[run]) != '\0' && c != '"' && c != '\\' && c >= 0x20)
			run++;
		if (run > 0)
			out_printf(o, "%.*s", (int)run, s);
		s += run;
		c = (unsigned char)*s;
		if (c == '\0')
			break;
		if (c == '"' || c == '\\')
			out_printf(o, "\\%c", c);
		else
			out_printf(o, "\\u%04x", c);
		s++;
	}
	out_printf(o, "\"");
}

/* comma if needed, then "key": */
static void member(struct cmd_out *o, const char *key)
{
	if (o->depth > 0 && o->need_comma[o->depth])
		out_printf(o, ",");
	if (o->depth > 0)
		o->need_comma[o->depth] = true;
	if (key != NULL) {
		json_string(o, key);
		out_printf(o, ":");
	}
}

static void open_(struct cmd_out *o, const char *key, char c)
{
	member(o, key);
	out_printf(o, "%c", c);
	if (o->depth < OUT_JSON_DEPTH - 1)
		o->depth++;
	o->need_comma[o->depth] = false;
}

static void close_(struct cmd_out *o, char c)
{
	out_printf(o, "%c", c);
	if (o->depth > 0)
		o->depth--;
	if (o->depth == 0)
		out_printf(o, "\n");
}

void jw_obj_open(struct cmd_out *o, const char *key)
{
	open_(o, key, '{');
}

void jw_obj_close(struct cmd_out *o)
{
	close_(o, '}');
}

void jw_arr_open(struct cmd_out *o, const char *key)
{
	open_(o, key, '[');
}

void jw_arr_close(struct cmd_out *o)
{
	close_(o, ']');
}

void jw_str(struct cmd_out *o, const char *key, const char *val)
{
	member(o, key);
	json_string(o, val);
}

void jw_u64(struct cmd_out *o, const char *key, uint64_t val)
{
	member(o, key);
	out_printf(o, "%" PRIu64, val);
}

void jw_dbl(struct cmd_out *o, const char *key, double val)
{
	member(o, key);
	out_printf(o, "%.3f", val);
}

void jw_bool(struct cmd_out *o, const char *key, bool val)
{
	member(o, key);
	out_printf(o, "%s", val ? "true" : "false");
}

void jw_null(struct cmd_out *o, const char *key)
{
	member(o, key);
	out_printf(o, "null");
}
