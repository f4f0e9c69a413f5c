// doors.c: one plan through the C API as a C program makes it, for
// python/tests/test_doors_equal.py (run by .ci/doors), which compares it
// with the CLI's and Python's. Usage:
//   doors [--dim NAME=VALUE]... INPUT METHOD WORK OUTPUT...
// loads INPUT (optalloc_problem_load), solves with METHOD on one thread,
// seed 1, no time limit and the work budget WORK (0 = off), prints
// "peak N" and writes the plan to each OUTPUT (optalloc_result_write).
// An error is one line on stderr and exit 2.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liboptalloc.h"

static int fail(uintptr_t h, const char *what) {
	char *m = optalloc_error(h);
	fprintf(stderr, "%s: %s\n", what, m ? m : "(no message)");
	optalloc_string_free(m);
	return 2;
}

int main(int argc, char **argv) {
	const char *dims[16];
	size_t ndims = 0;
	while (argc > 2 && strcmp(argv[1], "--dim") == 0 && ndims < 16) {
		dims[ndims++] = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 5) {
		fprintf(stderr, "usage: doors [--dim NAME=VALUE]... INPUT METHOD WORK OUTPUT...\n");
		return 2;
	}
	uintptr_t p = 0, s = 0, r = 0;
	if (optalloc_problem_new(&p) != OPTALLOC_OK || optalloc_solver_new(&s) != OPTALLOC_OK) {
		fprintf(stderr, "cannot make handles\n");
		return 1;
	}
	if (optalloc_problem_load(p, argv[1], ndims ? dims : NULL, ndims) != OPTALLOC_OK) {
		return fail(p, "load");
	}
	if (optalloc_solver_set_method(s, argv[2]) != OPTALLOC_OK || optalloc_solver_set_threads(s, 1) != OPTALLOC_OK ||
	    optalloc_solver_set_seed(s, 1) != OPTALLOC_OK || optalloc_solver_set_time_limit_ms(s, 0) != OPTALLOC_OK ||
	    optalloc_solver_set_work(s, strtoll(argv[3], NULL, 10)) != OPTALLOC_OK) {
		return fail(s, "solver");
	}
	if (optalloc_solver_solve(s, p, &r) != OPTALLOC_OK) {
		return fail(s, "solve");
	}
	int64_t peak = 0;
	if (optalloc_result_peak(r, &peak) != OPTALLOC_OK) {
		return fail(r, "peak");
	}
	printf("peak %lld\n", (long long)peak);
	for (int i = 4; i < argc; i++) {
		if (optalloc_result_write(r, argv[i]) != OPTALLOC_OK) {
			return fail(r, argv[i]);
		}
	}
	optalloc_result_free(r);
	optalloc_solver_free(s);
	optalloc_problem_free(p);
	return 0;
}
