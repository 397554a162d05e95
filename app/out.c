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

/* The length of the well-formed UTF-8 sequence (RFC 3629 4) of 2 to 4
 * bytes at @s, or 0: no overlong form, no surrogate, nothing past U+10FFFF. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* A JSON string (RFC 8259 7): quotes, backslashes and control bytes
 * escaped; a byte that is not part of well-formed UTF-8 (a file or device
 * name may hold any) as U+FFFD, so that the answer stays valid JSON. */
static void json_string(struct cmd_out *o, const char *s)
{
	out_printf(o, "\"");
	while (*s) {
		/* the run of characters that need no escape, in one piece */
		const unsigned char *u = (const unsigned char *)s;
		size_t run = 0, n;
		unsigned char c;

		while ((c = u[run]) != '\0' && c != '"' && c != '\\' && c >= 0x20) {
			if (c < 0x80)
				run++;
			else if ((n = utf8_len(u + run)) > 0)
				run += n;
			else
				break;
		}
		if (run > 0)
			out_printf(o, "%.*s", (int)run, s);
		s += run;
		c = (unsigned char)*s;
		if (c == '\0')
			break;
		if (c == '"' || c == '\\')
			out_printf(o, "\\%c", c);
		else if (c < 0x20)
			out_printf(o, "\\u%04x", c);
		else
			out_printf(o, "\\ufffd");
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
