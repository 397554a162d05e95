/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the command language. Each input is split into lines; every
 * line goes through the parser, and through the executor on a running
 * (port-less) router, as the CLI socket would run it. Invariants: no crash,
 * no sanitizer report, an error answer always says "error: ...", a failed
 * command leaves as many routes and neighbours as before. (It may bump the
 * FIB generation: a rollback must invalidate what workers saw meanwhile.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct router *r = fuzz_router();
	char *text, *line, *save = NULL;
	struct cmd_out o = {0};
	char err[CMD_ERR_LEN];
	struct cmd c;

	if (size > 8192)
		return 0;
	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint32_t routes = fib_route_count(r->fib, AF_INET);
		uint32_t neighs = neigh_count(r->neigh);
		int rc = cmd_parse(line, &c, err, sizeof(err));

		if (rc != 0 && rc != -ENODATA && err[0] == '\0')
			abort(); /* every parse error says what is wrong */
		/* the fuzzer must not read or write files */
		if (rc == 0 && (c.id == CMD_LOAD || c.id == CMD_QUIT))
			continue;
		out_reset(&o);
		o.json = (size & 1) != 0;
		rc = cmd_run_line(r, line, &o);
		if (rc != 0) {
			if (o.len < 7 || strncmp(o.buf, "error: ", 7) != 0)
				abort();
			if (fib_route_count(r->fib, AF_INET) != routes ||
			    neigh_count(r->neigh) != neighs)
				abort();
		}
	}
	out_free(&o);
	free(text);
	/* keep the tables from filling up over millions of inputs */
	if (fib_route_count(r->fib, AF_INET) > 4096) {
		struct cmd_out x = {0};

		cmd_run_line(r, "route del 0.0.0.0/0", &x);
		out_free(&x);
	}
	fuzz_drain(r);
	return 0;
}
