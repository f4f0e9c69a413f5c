// example.c: plan three buffers with liboptalloc, then a file by path.
//
// Build and run from the repository root (as .ci/doors does):
//   go build -buildmode=c-shared -o build/liboptalloc.so ./capi
//   gcc -Wall -Wextra -Werror -Ibuild capi/example/example.c -Lbuild -loptalloc -Wl,-rpath,'$ORIGIN' -o build/example
//   build/example examples/resnet18.graph.json
#include <stdio.h>
#include <stdlib.h>

#include "liboptalloc.h"

// check prints the message a failed call left on handle h and exits.
static void check(int rc, uintptr_t h, const char *what) {
	if (rc == OPTALLOC_OK) return;
	char *msg = optalloc_error(h);
	fprintf(stderr, "%s: %s (code %d)\n", what, msg, rc);
	optalloc_string_free(msg);
	exit(rc);
}

static const char *status_name(int s) {
	static const char *names[] = {"optimal", "feasible", "infeasible", "unknown"};
	return s >= 0 && s < 4 ? names[s] : "?";
}

// plan solves problem p and prints its summary; it returns the peak.
static int64_t plan(uintptr_t p, int64_t *offsets, size_t n) {
	uintptr_t s = 0, r = 0;
	check(optalloc_solver_new(&s), 0, "solver_new");
	check(optalloc_solver_set_time_limit_ms(s, 5000), s, "set_time_limit_ms");
	check(optalloc_solver_solve(s, p, &r), s, "solve");
	int status = 0;
	int64_t peak = 0, lb = 0;
	char *method = NULL;
	check(optalloc_result_status(r, &status), r, "status");
	check(optalloc_result_peak(r, &peak), r, "peak");
	check(optalloc_result_lower_bound(r, &lb), r, "lower_bound");
	check(optalloc_result_method(r, &method), r, "method");
	printf("peak=%lld lower_bound=%lld status=%s method=%s\n", (long long)peak, (long long)lb,
	       status_name(status), method);
	optalloc_string_free(method);
	if (offsets != NULL) check(optalloc_result_offsets(r, n, offsets, NULL), r, "offsets");
	optalloc_result_free(r);
	optalloc_solver_free(s);
	return peak;
}

int main(int argc, char **argv) {
	printf("liboptalloc %s (abi %d)\n", optalloc_version(), optalloc_abi());

	// Three buffers: a and c are live together with b only in part.
	const char *ids[] = {"a", "b", "c"};
	int64_t lower[] = {0, 1, 2}, upper[] = {2, 3, 4}, size[] = {4, 8, 4};
	int64_t offsets[3];
	uintptr_t p = 0;
	check(optalloc_problem_new(&p), 0, "problem_new");
	check(optalloc_problem_add_buffers(p, 3, ids, lower, upper, size, NULL), p, "add_buffers");
	plan(p, offsets, 3);
	for (int i = 0; i < 3; i++) printf("  %s at %lld\n", ids[i], (long long)offsets[i]);

	size_t violations = 0;
	check(optalloc_verify(p, 3, offsets, NULL, &violations, NULL), p, "verify");
	printf("verify: %zu violations\n", violations);

	// A bad input is code 2 with the CLI's one-line message.
	int64_t bad_upper[] = {0};
	uintptr_t q = 0;
	check(optalloc_problem_new(&q), 0, "problem_new");
	check(optalloc_problem_add_buffers(q, 1, NULL, lower, bad_upper, size, NULL), q, "add_buffers");
	int64_t offset = 0;
	int rc = optalloc_verify(q, 1, &offset, NULL, &violations, NULL);
	char *msg = optalloc_error(q);
	printf("bad input: code %d: %s\n", rc, msg);
	optalloc_string_free(msg);
	optalloc_problem_free(q);
	optalloc_problem_free(p);

	// A file, read as `optalloc plan` reads it.
	if (argc > 1) {
		uintptr_t f = 0;
		check(optalloc_problem_new(&f), 0, "problem_new");
		check(optalloc_problem_load(f, argv[1], NULL, 0), f, "load");
		size_t n = 0;
		check(optalloc_problem_buffer_count(f, &n), f, "buffer_count");
		printf("%s: %zu buffers\n", argv[1], n);
		plan(f, NULL, 0);
		optalloc_problem_free(f);
	}
	return rc == OPTALLOC_BAD_INPUT && violations == 0 ? 0 : 1;
}
