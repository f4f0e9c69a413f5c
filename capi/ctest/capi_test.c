// capi_test.c: tests of liboptalloc through its C header, run by .ci/doors
// against a library built with GOEXPERIMENT=cgocheck2 (cgo's complete
// pointer checking). Usage: capi_test REPO_ROOT. It ends with the line
// "N passed, N failed" and exits 1 when a check failed.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "liboptalloc.h"

static int passed, failed;
static char root[4096];

#define CHECK(cond, ...)                                             \
	do {                                                         \
		if (cond) {                                          \
			passed++;                                    \
		} else {                                             \
			failed++;                                    \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                \
			fprintf(stderr, "\n");                       \
		}                                                    \
	} while (0)

static char *path(const char *rel) {
	static __thread char buf[8192];
	snprintf(buf, sizeof buf, "%s/%s", root, rel);
	return buf;
}

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

// message returns the message on h in a static buffer.
static const char *message(uintptr_t h) {
	static __thread char buf[1024];
	char *m = optalloc_error(h);
	snprintf(buf, sizeof buf, "%s", m);
	optalloc_string_free(m);
	return buf;
}

static void test_handles(void) {
	CHECK(optalloc_problem_free(0) == OPTALLOC_OK, "freeing 0 is a no-op");
	CHECK(optalloc_solver_free(0) == OPTALLOC_OK, "freeing 0 is a no-op");
	CHECK(optalloc_result_free(0) == OPTALLOC_OK, "freeing 0 is a no-op");
	uintptr_t p = 0, s = 0;
	CHECK(optalloc_problem_new(&p) == OPTALLOC_OK && p != 0, "problem_new");
	CHECK(optalloc_solver_new(&s) == OPTALLOC_OK && s != 0, "solver_new");
	int64_t peak;
	CHECK(optalloc_result_peak(p, &peak) == OPTALLOC_BAD_INPUT, "a problem is not a result");
	CHECK(strstr(message(p), "not a result") != NULL, "message: %s", message(p));
	CHECK(optalloc_problem_free(p) == OPTALLOC_OK, "free");
	CHECK(optalloc_problem_free(p) == OPTALLOC_BAD_INPUT, "a second free is an error");
	CHECK(strstr(message(0), "not a live handle") != NULL, "message: %s", message(0));
	CHECK(optalloc_problem_new(NULL) == OPTALLOC_BAD_INPUT, "NULL out");
	CHECK(optalloc_solver_set_method(s, "no-such-method") == OPTALLOC_OK, "the method is checked when solving");
	uintptr_t q = 0, r = 0;
	optalloc_problem_new(&q);
	CHECK(optalloc_solver_solve(s, q, &r) == OPTALLOC_BAD_INPUT && r == 0, "unknown method is bad input");
	CHECK(strstr(message(s), "unknown method \"no-such-method\"") != NULL, "message: %s", message(s));
	CHECK(optalloc_solver_set_threads(s, -1) == OPTALLOC_BAD_INPUT, "negative threads");
	CHECK(optalloc_solver_set_work(s, -1) == OPTALLOC_BAD_INPUT, "negative work");
	CHECK(strstr(message(s), "work must not be negative") != NULL, "message: %s", message(s));
	optalloc_problem_free(q);
	optalloc_solver_free(s);
}

static void test_load_errors(void) {
	uintptr_t p = 0;
	optalloc_problem_new(&p);
	CHECK(optalloc_problem_load(p, "/nonexistent/x.csv", NULL, 0) == OPTALLOC_BAD_INPUT, "missing file");
	CHECK(strcmp(message(p), "/nonexistent/x.csv: cannot open: no such file or directory") == 0, "message: %s", message(p));
	const char *dims[] = {"batch"};
	CHECK(optalloc_problem_load(p, path("examples/resnet18.graph.json"), dims, 1) == OPTALLOC_BAD_INPUT, "bad --dim");
	CHECK(strstr(message(p), "want NAME=VALUE") != NULL, "message: %s", message(p));
	const char csv[] = "id,lower,upper,size\n0,0,2,8\n1,1,1,8\n";
	CHECK(optalloc_problem_load_bytes(p, csv, strlen(csv), "mem.csv", NULL, 0) == OPTALLOC_BAD_INPUT, "an empty lifetime is bad input");
	CHECK(strncmp(message(p), "mem.csv:3: buffer \"1\"", 21) == 0, "file:line message: %s", message(p));
	optalloc_problem_free(p);
}

static void test_file_round_trip(void) {
	uintptr_t p = 0, s = 0, r = 0;
	optalloc_problem_new(&p);
	CHECK(optalloc_problem_load(p, path("../shared/benchmarks/minimalloc/input.12.csv"), NULL, 0) == OPTALLOC_OK, "load: %s", message(p));
	size_t n = 0;
	optalloc_problem_buffer_count(p, &n);
	CHECK(n == 5, "5 buffers, got %zu", n);
	int64_t lower[5], upper[5], size[5], off[5];
	int32_t pools[5];
	CHECK(optalloc_problem_columns(p, n, lower, upper, size, NULL, NULL, NULL) == OPTALLOC_OK, "columns");
	char *ids = NULL;
	size_t len = 0;
	CHECK(optalloc_problem_ids(p, &ids, &len) == OPTALLOC_OK && len > 0 && ids[len - 1] == 0, "ids");
	optalloc_string_free(ids);
	optalloc_solver_new(&s);
	optalloc_solver_set_threads(s, 1);
	CHECK(optalloc_solver_solve(s, p, &r) == OPTALLOC_OK, "solve: %s", message(s));
	int status = -1;
	int64_t peak = 0, lb = 0;
	optalloc_result_status(r, &status);
	optalloc_result_peak(r, &peak);
	optalloc_result_lower_bound(r, &lb);
	CHECK(status == OPTALLOC_OPTIMAL && peak == 12 && lb == 12, "status %d peak %lld lb %lld", status, (long long)peak, (long long)lb);
	// The result outlives its problem and later edits of it.
	CHECK(optalloc_problem_pin(p, 0, 1000) == OPTALLOC_OK, "pin");
	CHECK(optalloc_problem_pin(p, 99, 0) == OPTALLOC_BAD_INPUT, "pin out of range");
	optalloc_problem_free(p);
	CHECK(optalloc_result_offsets(r, n, off, pools) == OPTALLOC_OK, "offsets");
	CHECK(optalloc_result_offsets(r, n - 1, off, NULL) == OPTALLOC_BAD_INPUT, "short array");
	char *pool = NULL;
	CHECK(optalloc_result_pool_name(r, pools[0], &pool) == OPTALLOC_OK && strcmp(pool, "default") == 0, "pool name");
	optalloc_string_free(pool);
	char out[] = "/tmp/optalloc_capi_test_XXXXXX.csv";
	int fd = mkstemps(out, 4);
	close(fd);
	CHECK(optalloc_result_write(r, out) == OPTALLOC_OK, "write: %s", message(r));
	FILE *f = fopen(out, "r");
	char head[256] = {0};
	CHECK(f != NULL && fgets(head, sizeof head, f) != NULL && strstr(head, "offset") != NULL, "header %s", head);
	if (f) fclose(f);
	unlink(out);
	optalloc_result_free(r);
	optalloc_solver_free(s);
}

static void test_infeasible_is_a_status(void) {
	uintptr_t p = 0, s = 0, r = 0;
	int64_t lower[] = {0, 0}, upper[] = {1, 1}, size[] = {8, 8};
	optalloc_problem_new(&p);
	optalloc_problem_add_buffers(p, 2, NULL, lower, upper, size, NULL);
	optalloc_solver_new(&s);
	optalloc_solver_set_capacity(s, 15);
	CHECK(optalloc_solver_solve(s, p, &r) == OPTALLOC_OK, "solve: %s", message(s));
	int status = -1;
	int64_t peak = 0, off[2];
	optalloc_result_status(r, &status);
	optalloc_result_peak(r, &peak);
	CHECK(status == OPTALLOC_INFEASIBLE && peak == -1, "status %d peak %lld", status, (long long)peak);
	CHECK(optalloc_result_offsets(r, 2, off, NULL) == OPTALLOC_FAILURE, "no plan, no offsets");
	char *reason = NULL;
	optalloc_result_reason(r, &reason);
	CHECK(reason != NULL && strlen(reason) > 0, "a reason");
	optalloc_string_free(reason);
	optalloc_result_free(r);
	optalloc_solver_free(s);
	optalloc_problem_free(p);
}

static void test_pins_and_pools_in_bulk(void) {
	uintptr_t p = 0, s = 0, r = 0;
	int64_t lower[] = {0, 0, 0}, upper[] = {1, 1, 1}, size[] = {8, 8, 8}, pins[] = {-1, 8, -1}, off[3];
	int32_t pools[] = {0, 0, 1}, got[3];
	optalloc_problem_new(&p);
	optalloc_problem_add_buffers(p, 3, NULL, lower, upper, size, NULL);
	CHECK(optalloc_problem_add_pool(p, "sram", 16, 0) == OPTALLOC_OK, "add_pool");
	CHECK(optalloc_problem_add_pool(p, "dram", 0, 0) == OPTALLOC_OK, "add_pool");
	CHECK(optalloc_problem_add_pool(p, "dram", 0, 0) == OPTALLOC_BAD_INPUT, "a pool twice");
	CHECK(optalloc_problem_pins(p, 2, pins) == OPTALLOC_BAD_INPUT, "one pin per buffer");
	CHECK(optalloc_problem_pins(p, 3, pins) == OPTALLOC_OK, "pins: %s", message(p));
	CHECK(optalloc_problem_pools(p, 3, pools) == OPTALLOC_OK, "pools: %s", message(p));
	optalloc_solver_new(&s);
	CHECK(optalloc_solver_solve(s, p, &r) == OPTALLOC_OK, "solve: %s", message(s));
	CHECK(optalloc_result_offsets(r, 3, off, got) == OPTALLOC_OK, "offsets");
	CHECK(off[0] == 0 && off[1] == 8 && off[2] == 0 && got[0] == 0 && got[1] == 0 && got[2] == 1,
	      "offsets %lld %lld %lld pools %d %d %d", (long long)off[0], (long long)off[1], (long long)off[2],
	      got[0], got[1], got[2]);
	optalloc_result_free(r);
	optalloc_solver_free(s);
	optalloc_problem_free(p);
}

struct job {
	int seed;
	int ok;
};

// solve_random builds a random problem, solves it with one thread and
// verifies the plan; several run at once on different problems.
static void *solve_random(void *arg) {
	struct job *j = arg;
	unsigned st = (unsigned)j->seed;
	enum { N = 60 };
	int64_t lower[N], upper[N], size[N], align[N], off[N];
	for (int i = 0; i < N; i++) {
		lower[i] = rand_r(&st) % 40;
		upper[i] = lower[i] + 1 + rand_r(&st) % 10;
		size[i] = 1 + rand_r(&st) % 100;
		align[i] = 1 << (rand_r(&st) % 3);
	}
	uintptr_t p = 0, s = 0, r = 0;
	optalloc_problem_new(&p);
	optalloc_problem_add_buffers(p, N, NULL, lower, upper, size, align);
	optalloc_solver_new(&s);
	optalloc_solver_set_threads(s, 1);
	optalloc_solver_set_time_limit_ms(s, 1000);
	size_t v = 99;
	j->ok = optalloc_solver_solve(s, p, &r) == OPTALLOC_OK &&
		optalloc_result_offsets(r, N, off, NULL) == OPTALLOC_OK &&
		optalloc_verify(p, N, off, NULL, &v, NULL) == OPTALLOC_OK && v == 0;
	off[0] = -8;  // now invalid: out of the pool
	char *lines = NULL;
	j->ok = j->ok && optalloc_verify(p, N, off, NULL, &v, &lines) == OPTALLOC_OK && v >= 1 && lines != NULL;
	optalloc_string_free(lines);
	optalloc_result_free(r);
	optalloc_solver_free(s);
	optalloc_problem_free(p);
	return NULL;
}

static void test_threads(void) {
	enum { T = 4 };
	pthread_t th[T];
	struct job jobs[T];
	for (int i = 0; i < T; i++) {
		jobs[i] = (struct job){.seed = i + 1};
		pthread_create(&th[i], NULL, solve_random, &jobs[i]);
	}
	for (int i = 0; i < T; i++) {
		pthread_join(th[i], NULL);
		CHECK(jobs[i].ok, "thread %d: solve and verify", i);
	}
}

struct canceller {
	uintptr_t solver;
	int delay_ms;
};

static void *cancel_later(void *arg) {
	struct canceller *c = arg;
	usleep(c->delay_ms * 1000);
	optalloc_solver_cancel(c->solver);
	return NULL;
}

static void test_cancel(void) {
	uintptr_t p = 0, s = 0, r = 0;
	optalloc_problem_new(&p);
	// D is not closed in 10 s (README), so only the cancel ends this solve.
	CHECK(optalloc_problem_load(p, path("../shared/benchmarks/minimalloc/D.1048576.csv"), NULL, 0) == OPTALLOC_OK, "load: %s", message(p));
	optalloc_solver_new(&s);
	optalloc_solver_set_time_limit_ms(s, 120000);
	struct canceller c = {s, 500};
	pthread_t th;
	pthread_create(&th, NULL, cancel_later, &c);
	double t0 = now();
	CHECK(optalloc_solver_solve(s, p, &r) == OPTALLOC_OK, "cancelled solve: %s", message(s));
	double took = now() - t0;
	pthread_join(th, NULL);
	CHECK(took < 10, "cancel stops the solve: it took %.1f s", took);
	int status = -1;
	optalloc_result_status(r, &status);
	CHECK(status == OPTALLOC_FEASIBLE, "the best plan so far: status %d", status);
	optalloc_result_free(r);
	r = 0;
	// A cancelled solver stays cancelled: a cancel just before a solve is not lost.
	t0 = now();
	CHECK(optalloc_solver_solve(s, p, &r) == OPTALLOC_OK, "solve after cancel");
	CHECK(now() - t0 < 10, "returns at once");
	optalloc_result_free(r);
	optalloc_solver_free(s);
	optalloc_problem_free(p);
}

// Issue 41: the C API goes through the front door (optalloc.Load, Plan,
// Input.Write): devices refused, counts past memory are bad input, the
// input is never written over, a .tflite model gets the plan written back.
static void test_front_door(void) {
	uintptr_t p = 0, s = 0, r = 0;
	optalloc_problem_new(&p);
	CHECK(optalloc_problem_load(p, "/dev/zero", NULL, 0) == OPTALLOC_BAD_INPUT, "a device is refused");
	CHECK(strstr(message(p), "is a device") != NULL, "message: %s", message(p));
	int64_t v[1] = {0};
	CHECK(optalloc_problem_add_buffers(p, SIZE_MAX, NULL, v, v, v, NULL) == OPTALLOC_BAD_INPUT, "SIZE_MAX buffers: %s", message(p));
	CHECK(optalloc_problem_pins(p, SIZE_MAX, v) == OPTALLOC_BAD_INPUT, "SIZE_MAX pins: %s", message(p));
	CHECK(optalloc_problem_load_bytes(p, "x", SIZE_MAX, "x.csv", NULL, 0) == OPTALLOC_BAD_INPUT, "SIZE_MAX bytes: %s", message(p));
	char *w = NULL;
	size_t nw = 99;
	CHECK(optalloc_problem_load(p, path("examples/tiny-cnn.csv"), NULL, 0) == OPTALLOC_OK, "load: %s", message(p));
	CHECK(optalloc_problem_warnings(p, &w, &nw) == OPTALLOC_OK && nw == 0 && w != NULL && w[0] == 0, "no warnings");
	optalloc_string_free(w);
	optalloc_problem_free(p);

	char model[8192];
	snprintf(model, sizeof model, "%s", path("../shared/models/tflite/keyword_scrambled_8bit.tflite"));
	if (access(model, R_OK) != 0) {
		printf("skipped the .tflite write-back: %s is absent\n", model);
		return;
	}
	optalloc_problem_new(&p);
	CHECK(optalloc_problem_load(p, model, NULL, 0) == OPTALLOC_OK, "load: %s", message(p));
	optalloc_solver_new(&s);
	optalloc_solver_set_threads(s, 1);
	CHECK(optalloc_solver_solve(s, p, &r) == OPTALLOC_OK, "solve: %s", message(s));
	int64_t peak = 0;
	optalloc_result_peak(r, &peak);
	CHECK(peak == 672, "the device's head, got %lld", (long long)peak);
	CHECK(optalloc_result_write(r, model) == OPTALLOC_BAD_INPUT, "writing onto the input model");
	CHECK(strstr(message(r), "is the input") != NULL, "message: %s", message(r));
	CHECK(optalloc_result_write(r, "/dev/null") == OPTALLOC_BAD_INPUT, "a device");
	char dir[] = "/tmp/optalloc_capi_door_XXXXXX";
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	char out[256], txt[256];
	snprintf(out, sizeof out, "%s/planned.tflite", dir);
	snprintf(txt, sizeof txt, "%s/plan.txt", dir);
	CHECK(optalloc_result_write(r, txt) == OPTALLOC_BAD_INPUT, "an unknown suffix");
	CHECK(access(txt, F_OK) != 0, "nothing written for .txt");
	CHECK(optalloc_result_write(r, out) == OPTALLOC_OK, "write-back: %s", message(r));
	// The model written reads back, and plans the same head.
	uintptr_t q = 0, r2 = 0;
	optalloc_problem_new(&q);
	CHECK(optalloc_problem_load(q, out, NULL, 0) == OPTALLOC_OK, "the written model loads: %s", message(q));
	CHECK(optalloc_solver_solve(s, q, &r2) == OPTALLOC_OK, "solve: %s", message(s));
	int64_t peak2 = 0;
	optalloc_result_peak(r2, &peak2);
	CHECK(peak2 == peak, "same head %lld, got %lld", (long long)peak, (long long)peak2);
	remove(out);
	rmdir(dir);
	optalloc_result_free(r2);
	optalloc_problem_free(q);
	optalloc_result_free(r);
	optalloc_solver_free(s);
	optalloc_problem_free(p);
}

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: capi_test REPO_ROOT\n");
		return 2;
	}
	snprintf(root, sizeof root, "%s", argv[1]);
	size_t live = 99;
	CHECK(optalloc_abi() == 1, "abi");
	CHECK(strlen(optalloc_version()) > 0, "version");
	test_handles();
	test_load_errors();
	test_file_round_trip();
	test_infeasible_is_a_status();
	test_pins_and_pools_in_bulk();
	test_threads();
	test_cancel();
	test_front_door();
	CHECK(optalloc_handle_count(&live) == OPTALLOC_OK && live == 0, "every handle freed: %zu live", live);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
