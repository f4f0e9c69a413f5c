//go:build cgo

package main

/*
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

// liboptalloc: optalloc's C API. Build: go build -buildmode=c-shared -o liboptalloc.so ./capi
// (from the repository root; it writes this header as liboptalloc.h). Docs: docs/c.md.
//
//   uintptr_t p = 0, s = 0, r = 0;
//   int64_t lower[] = {0, 1}, upper[] = {2, 3}, size[] = {4, 8}, off[2];
//   optalloc_problem_new(&p);
//   optalloc_problem_add_buffers(p, 2, NULL, lower, upper, size, NULL);   // ids "0", "1"
//   optalloc_solver_new(&s);
//   optalloc_solver_set_time_limit_ms(s, 1000);
//   if (optalloc_solver_solve(s, p, &r) != OPTALLOC_OK) {
//     char *m = optalloc_error(s); fprintf(stderr, "%s\n", m); optalloc_string_free(m);
//   }
//   optalloc_result_offsets(r, 2, off, NULL);                                // off = {8, 0}
//   optalloc_result_free(r); optalloc_solver_free(s); optalloc_problem_free(p);
//
// Every call returns OPTALLOC_OK (0), OPTALLOC_BAD_INPUT (2: the CLI's exit 2,
// a bad file or argument) or OPTALLOC_FAILURE (1: anything else); the one-line
// message of a failed call is kept on the handle it was made on (optalloc_error).
// Handles are uintptr_t, 0 is none; each is freed by one call of its _free,
// and freeing 0 does nothing. Arrays are copied in before a call returns and
// copied out into arrays the caller allocated. Strings returned through
// char ** are the caller's, freed with optalloc_string_free.
//
// Who frees what (every _new has one _free; "string" = free with optalloc_string_free):
//   optalloc_version()          static string, do not free; optalloc_abi(), optalloc_handle_count(&n)
//   optalloc_error(h)           string: the last failed call's message on h (h = 0: calls with no live handle)
//   optalloc_problem_new(&p)    problem, optalloc_problem_free; _load, _load_bytes replace its contents
//   optalloc_problem_add_buffers, _pin, _pins, _hint, _add_pool, _set_pool, _pools: edits, arrays copied in
//   optalloc_problem_buffer_count, _columns (caller's arrays), _ids (string, NUL-separated)
//   optalloc_problem_warnings   the loaded input's warnings (string, one per line)
//   optalloc_verify(p, ...)     violation count; lines (string or NULL) when asked
//   optalloc_solver_new(&s)     solver, optalloc_solver_free; _set_method, _set_time_limit_ms,
//                               _set_capacity, _set_threads, _set_seed, _set_work; _cancel from any thread
//   optalloc_solver_solve(s, p, &r)  result, optalloc_result_free; blocks until done
//   optalloc_result_status, _peak, _lower_bound, _offsets (caller's arrays),
//   _method, _reason, _pool_name (strings), _write (a plan file)
//   optalloc_problem_write_plan, _encode_plan   a plan given as offsets, written as _write writes it

enum {
	OPTALLOC_OK = 0,
	OPTALLOC_FAILURE = 1,
	OPTALLOC_BAD_INPUT = 2,
};

// The statuses of a result (optalloc_result_status).
enum {
	OPTALLOC_OPTIMAL = 0,
	OPTALLOC_FEASIBLE = 1,
	OPTALLOC_INFEASIBLE = 2,
	OPTALLOC_UNKNOWN = 3,
};

// Read-only arguments: const in the header (cgo writes parameter types by name).
typedef const char optalloc_cchar;
typedef const int64_t optalloc_cint64;
typedef const int32_t optalloc_cint32;
typedef const char *const optalloc_cstring;
typedef const void optalloc_cvoid;
*/
import "C"

import (
	"strings"
	"unsafe"

	"github.com/optalloc/optalloc/solve"
)

// version is the module version, kept equal to cmd/optalloc's Version
// (TestVersionMatchesCLI).
const version = "0.1.0-dev"

// abi is bumped when a signature or a meaning changes.
const abi = 1

var cVersion = C.CString(version) // static: never freed

//export optalloc_version
func optalloc_version() *C.optalloc_cchar { return (*C.optalloc_cchar)(unsafe.Pointer(cVersion)) }

//export optalloc_abi
func optalloc_abi() C.int { return abi }

// optalloc_handle_count stores the number of live handles in *out (a leak
// check for tests and bindings).
//
//export optalloc_handle_count
func optalloc_handle_count(out *C.size_t) C.int {
	return call(0, func() error {
		if out == nil {
			return badArg("the output pointer is NULL")
		}
		*out = C.size_t(liveHandles())
		return nil
	})
}

// optalloc_error returns the message of the last failed call on handle h
// ("" after a call that succeeded); for 0 or a handle that is not live, the
// last message that no handle kept. Free it with optalloc_string_free.
//
//export optalloc_error
func optalloc_error(h C.uintptr_t) *C.char { return C.CString(errorOf(uintptr(h))) }

// optalloc_string_free frees a string this library returned; NULL is a no-op.
//
//export optalloc_string_free
func optalloc_string_free(s *C.char) { C.free(unsafe.Pointer(s)) }

// optalloc_problem_new makes an empty problem; free it with optalloc_problem_free.
//
//export optalloc_problem_new
func optalloc_problem_new(out *C.uintptr_t) C.int {
	return call(0, func() error { return newOut(out, newProblem()) })
}

// optalloc_problem_load replaces the problem with the file at path, read as
// `optalloc plan` reads it (.csv, .json, .graph.json, .tflite, .onnx,
// .events); dims are ndims NAME=VALUE strings, as --dim (NULL for none). A
// device (/dev/zero) is refused (code 2) without being opened; warnings
// about the input are kept for optalloc_problem_warnings.
//
//export optalloc_problem_load
func optalloc_problem_load(h C.uintptr_t, path *C.optalloc_cchar, dims *C.optalloc_cstring, ndims C.size_t) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		if path == nil {
			return badArg("the path is NULL")
		}
		d, err := goStrings(dims, ndims)
		if err != nil {
			return err
		}
		return pr.load(goString(path), d)
	})
}

// optalloc_problem_set_target names the device the TFLite models loaded
// next into this problem are planned for, as `optalloc plan --target T
// --kernels K`: target "host" (TFLite Micro's reference kernels) or a
// Cortex-M ("cortex-m4", "cortex-m55", ...: CMSIS-NN's kernels on that
// CPU's code path), kernels "reference" or "cmsis-nn" to override the
// target's; NULL or "" for the defaults. An unknown name is code 2.
//
//export optalloc_problem_set_target
func optalloc_problem_set_target(h C.uintptr_t, target, kernels *C.optalloc_cchar) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		var t, k string
		if target != nil {
			t = goString(target)
		}
		if kernels != nil {
			k = goString(kernels)
		}
		return pr.setTarget(t, k)
	})
}

// optalloc_problem_load_bytes is optalloc_problem_load for n bytes held in
// memory, the format sniffed as for standard input; name appears in messages.
//
//export optalloc_problem_load_bytes
func optalloc_problem_load_bytes(h C.uintptr_t, data *C.optalloc_cvoid, n C.size_t, name *C.optalloc_cchar, dims *C.optalloc_cstring, ndims C.size_t) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		if data == nil && n > 0 {
			return badArg("the data pointer is NULL")
		}
		d, err := goStrings(dims, ndims)
		if err != nil {
			return err
		}
		// Copied with its full size_t length: C.GoBytes takes an int
		// (32 bits), which cut 4 GiB + 28 bytes to 28.
		var b []byte
		if n > 0 {
			b = append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(data)), length(n, 1))...)
		}
		return pr.loadBytes(b, goString(name), d)
	})
}

// optalloc_problem_add_buffers appends n buffers, live on [lower, upper):
// ids NULL names them by their index in the problem ("0", "1", ...),
// alignment NULL means none.
//
//export optalloc_problem_add_buffers
func optalloc_problem_add_buffers(h C.uintptr_t, n C.size_t, ids *C.optalloc_cstring, lower, upper, size, alignment *C.optalloc_cint64) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		if n > 0 && (lower == nil || upper == nil || size == nil) {
			return badArg("lower, upper and size must not be NULL")
		}
		id, err := goStrings(ids, n)
		if err != nil {
			return err
		}
		return pr.addBuffers(id, int64s(lower, n), int64s(upper, n), int64s(size, n), int64s(alignment, n))
	})
}

// optalloc_problem_pin fixes buffer index at offset (TFLM's offline offset);
// a negative offset frees it.
//
//export optalloc_problem_pin
func optalloc_problem_pin(h C.uintptr_t, index C.size_t, offset C.int64_t) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		return pr.pin(int(index), int64(offset))
	})
}

// optalloc_problem_hint gives buffer index a preferred offset, honoured when
// it costs nothing (the CSV's hint column); a negative offset clears it.
//
//export optalloc_problem_hint
func optalloc_problem_hint(h C.uintptr_t, index C.size_t, offset C.int64_t) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		return pr.hint(int(index), int64(offset))
	})
}

// optalloc_problem_pins fixes each of the problem's n buffers at pins[i]
// (negative: free), as optalloc_problem_pin does one by one.
//
//export optalloc_problem_pins
func optalloc_problem_pins(h C.uintptr_t, n C.size_t, pins *C.optalloc_cint64) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		if pins == nil && n > 0 {
			return badArg("pins is NULL")
		}
		return pr.pins(append([]int64(nil), int64s(pins, n)...))
	})
}

// optalloc_problem_pools keeps each of the problem's n buffers in pool
// pools[i], an index into the pools added so far (-1: any pool).
//
//export optalloc_problem_pools
func optalloc_problem_pools(h C.uintptr_t, n C.size_t, pools *C.optalloc_cint32) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		if pools == nil && n > 0 {
			return badArg("pools is NULL")
		}
		var ps []int32
		if n > 0 {
			ps = append(ps, unsafe.Slice((*int32)(unsafe.Pointer(pools)), length(n, 4))...)
		}
		return pr.pools(ps)
	})
}

// optalloc_problem_add_pool adds a pool, slower than those added before;
// capacity 0 is unbounded, alignment 0 none. Without pools a problem has one
// unbounded pool named "default".
//
//export optalloc_problem_add_pool
func optalloc_problem_add_pool(h C.uintptr_t, name *C.optalloc_cchar, capacity, alignment C.int64_t) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		return pr.addPool(goString(name), int64(capacity), int64(alignment))
	})
}

// optalloc_problem_set_pool keeps buffer index in the named pool (NULL or ""
// allows every pool).
//
//export optalloc_problem_set_pool
func optalloc_problem_set_pool(h C.uintptr_t, index C.size_t, pool *C.optalloc_cchar) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		return pr.setPool(int(index), goString(pool))
	})
}

// optalloc_problem_buffer_count stores the number of buffers in *out.
//
//export optalloc_problem_buffer_count
func optalloc_problem_buffer_count(h C.uintptr_t, out *C.size_t) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		if out == nil {
			return badArg("the output pointer is NULL")
		}
		*out = C.size_t(pr.len())
		return nil
	})
}

// optalloc_problem_columns copies the buffers' columns into arrays of n (the
// buffer count) values; a NULL array is skipped. alignment is at least 1; an
// absent pin or hint is -1.
//
//export optalloc_problem_columns
func optalloc_problem_columns(h C.uintptr_t, n C.size_t, lower, upper, size, alignment, pin, hint *C.int64_t) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		return pr.columns(outInt64s(lower, n), outInt64s(upper, n), outInt64s(size, n),
			outInt64s(alignment, n), outInt64s(pin, n), outInt64s(hint, n))
	})
}

// optalloc_problem_warnings stores in *out the warnings of the input last
// loaded (lines the CLI prints as "warning: ..." without stopping: an ONNX
// If planned both ways, TFLite operators whose scratch is unknown), one per
// line, and their number in *count; "" and 0 when there are none. Free *out
// with optalloc_string_free.
//
//export optalloc_problem_warnings
func optalloc_problem_warnings(h C.uintptr_t, out **C.char, count *C.size_t) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		if out == nil || count == nil {
			return badArg("the output pointer is NULL")
		}
		ws := pr.warnings()
		text := strings.Join(ws, "\n")
		if len(ws) > 0 {
			text += "\n"
		}
		*out = C.CString(text)
		*count = C.size_t(len(ws))
		return nil
	})
}

// optalloc_problem_ids stores the buffer ids in *out, each followed by a NUL
// byte, and their total length in *len; free *out with optalloc_string_free.
//
//export optalloc_problem_ids
func optalloc_problem_ids(h C.uintptr_t, out **C.char, length *C.size_t) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		if out == nil || length == nil {
			return badArg("the output pointer is NULL")
		}
		ids := pr.ids()
		*out = (*C.char)(C.CBytes(ids))
		*length = C.size_t(len(ids))
		return nil
	})
}

// optalloc_problem_free frees a problem (results solved from it stay valid).
//
//export optalloc_problem_free
func optalloc_problem_free(h C.uintptr_t) C.int {
	return call(0, func() error { return release(uintptr(h)) })
}

// optalloc_verify checks offsets (and pools, indices into the problem's
// pools; NULL = the first) for the problem's n buffers, as `optalloc verify`
// does: *violations gets their number and, when lines is not NULL, *lines
// one line per violation (NULL when valid; free with optalloc_string_free).
//
//export optalloc_verify
func optalloc_verify(h C.uintptr_t, n C.size_t, offsets *C.optalloc_cint64, pools *C.optalloc_cint32, violations *C.size_t, lines **C.char) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		if offsets == nil && n > 0 {
			return badArg("offsets is NULL")
		}
		var ps []int32
		if pools != nil {
			ps = unsafe.Slice((*int32)(unsafe.Pointer(pools)), length(n, 4))
		}
		vs, err := pr.check(int64s(offsets, n), ps)
		if err != nil {
			return err
		}
		if violations != nil {
			*violations = C.size_t(len(vs))
		}
		if lines != nil {
			*lines = nil
			if len(vs) > 0 {
				*lines = C.CString(strings.Join(vs, "\n") + "\n")
			}
		}
		return nil
	})
}

// optalloc_solver_new makes a solver (method auto, 10 s, all cores, seed 1,
// no capacity); free it with optalloc_solver_free.
//
//export optalloc_solver_new
func optalloc_solver_new(out *C.uintptr_t) C.int {
	return call(0, func() error { return newOut(out, newSolver()) })
}

// optalloc_solver_set_method sets the method, as plan --method: auto, exact,
// heuristic, bnb, sat or a planner name (checked when solving).
//
//export optalloc_solver_set_method
func optalloc_solver_set_method(h C.uintptr_t, method *C.optalloc_cchar) C.int {
	return withSolver(h, func(s *solver) error {
		m := goString(method)
		s.set(func(o *solve.Options) { o.Method = m })
		return nil
	})
}

// optalloc_solver_set_time_limit_ms bounds each solve (0 = no limit).
//
//export optalloc_solver_set_time_limit_ms
func optalloc_solver_set_time_limit_ms(h C.uintptr_t, ms C.int64_t) C.int {
	return withSolver(h, func(s *solver) error {
		if ms < 0 {
			return badArg("the time limit must not be negative")
		}
		s.set(func(o *solve.Options) { o.TimeLimit = msDuration(int64(ms)) })
		return nil
	})
}

// optalloc_solver_set_capacity turns minimisation into a decision, as plan
// --capacity (0 = minimise).
//
//export optalloc_solver_set_capacity
func optalloc_solver_set_capacity(h C.uintptr_t, capacity C.int64_t) C.int {
	return withSolver(h, func(s *solver) error {
		if capacity < 0 {
			return badArg("the capacity must not be negative")
		}
		s.set(func(o *solve.Options) { o.Capacity = int64(capacity) })
		return nil
	})
}

// optalloc_solver_set_threads sets the concurrent workers (0 = all cores).
//
//export optalloc_solver_set_threads
func optalloc_solver_set_threads(h C.uintptr_t, threads C.int) C.int {
	return withSolver(h, func(s *solver) error {
		if threads < 0 {
			return badArg("threads must not be negative")
		}
		s.set(func(o *solve.Options) { o.Threads = int(threads) })
		return nil
	})
}

// optalloc_solver_set_seed sets the seed of randomised planners.
//
//export optalloc_solver_set_seed
func optalloc_solver_set_seed(h C.uintptr_t, seed C.int64_t) C.int {
	return withSolver(h, func(s *solver) error {
		s.set(func(o *solve.Options) { o.Seed = int64(seed) })
		return nil
	})
}

// optalloc_solver_set_work sets a work budget instead of wall time (0 =
// off): one answer per input on any machine, as `optalloc plan --work`.
//
//export optalloc_solver_set_work
func optalloc_solver_set_work(h C.uintptr_t, work C.int64_t) C.int {
	return withSolver(h, func(s *solver) error {
		if work < 0 {
			return badArg("work must not be negative")
		}
		s.set(func(o *solve.Options) { o.Work = int64(work) })
		return nil
	})
}

// optalloc_solver_solve solves the problem and stores a result handle in
// *result (free it with optalloc_result_free). It blocks until the solve
// ends; infeasible and unknown are statuses of the result, not errors.
//
//export optalloc_solver_solve
func optalloc_solver_solve(h C.uintptr_t, p C.uintptr_t, result *C.uintptr_t) C.int {
	return withSolver(h, func(s *solver) error {
		pr, _, err := valueOf[*problem](uintptr(p), "problem")
		if err != nil {
			return err
		}
		if result == nil {
			return badArg("the output pointer is NULL")
		}
		r, err := s.run(pr)
		if err != nil {
			return err
		}
		return newOut(result, r)
	})
}

// optalloc_solver_cancel stops the solver's running solve (it returns its
// best plan so far) and every later one; it may be called from any thread.
//
//export optalloc_solver_cancel
func optalloc_solver_cancel(h C.uintptr_t) C.int {
	return withSolver(h, func(s *solver) error {
		s.cancelSolve()
		return nil
	})
}

// optalloc_solver_free frees a solver that is not solving.
//
//export optalloc_solver_free
func optalloc_solver_free(h C.uintptr_t) C.int {
	return call(0, func() error { return release(uintptr(h)) })
}

// optalloc_result_status stores OPTALLOC_OPTIMAL, _FEASIBLE, _INFEASIBLE or
// _UNKNOWN in *out.
//
//export optalloc_result_status
func optalloc_result_status(h C.uintptr_t, out *C.int) C.int {
	return withResult(h, func(r *result) error {
		if out == nil {
			return badArg("the output pointer is NULL")
		}
		*out = C.int(statusCode(r.res.Status))
		return nil
	})
}

// optalloc_result_peak stores the plan's peak (the largest pool's) in
// *out, -1 when there is no plan.
//
//export optalloc_result_peak
func optalloc_result_peak(h C.uintptr_t, out *C.int64_t) C.int {
	return withResult(h, func(r *result) error {
		if out == nil {
			return badArg("the output pointer is NULL")
		}
		*out = C.int64_t(r.peak())
		return nil
	})
}

// optalloc_result_lower_bound stores the proven lower bound in *out.
//
//export optalloc_result_lower_bound
func optalloc_result_lower_bound(h C.uintptr_t, out *C.int64_t) C.int {
	return withResult(h, func(r *result) error {
		if out == nil {
			return badArg("the output pointer is NULL")
		}
		*out = C.int64_t(r.res.LowerBound)
		return nil
	})
}

// optalloc_result_method stores the name of the planner or engine that
// found the plan in *out (free with optalloc_string_free).
//
//export optalloc_result_method
func optalloc_result_method(h C.uintptr_t, out **C.char) C.int {
	return withResult(h, func(r *result) error { return putString(out, r.res.Method) })
}

// optalloc_result_reason stores why a result is infeasible or unknown in
// *out ("" otherwise; free with optalloc_string_free).
//
//export optalloc_result_reason
func optalloc_result_reason(h C.uintptr_t, out **C.char) C.int {
	return withResult(h, func(r *result) error { return putString(out, r.res.Reason) })
}

// optalloc_result_offsets copies the plan's offsets and pool indices into
// arrays of n (the buffer count) values, either may be NULL; without a plan
// it fails (OPTALLOC_FAILURE).
//
//export optalloc_result_offsets
func optalloc_result_offsets(h C.uintptr_t, n C.size_t, offsets *C.int64_t, pools *C.int32_t) C.int {
	return withResult(h, func(r *result) error {
		var ps []int32
		if pools != nil {
			ps = unsafe.Slice((*int32)(unsafe.Pointer(pools)), length(n, 4))
		}
		return r.offsets(outInt64s(offsets, n), ps)
	})
}

// optalloc_result_pool_name stores the name of pool index in *out (free
// with optalloc_string_free).
//
//export optalloc_result_pool_name
func optalloc_result_pool_name(h C.uintptr_t, index C.int32_t, out **C.char) C.int {
	return withResult(h, func(r *result) error {
		name, err := r.poolName(int(index))
		if err != nil {
			return err
		}
		return putString(out, name)
	})
}

// optalloc_result_write writes the plan as `optalloc plan -o path` does,
// through the front door: the format by path's suffix (.csv: the input
// columns plus offset and pool; .json: a JSON plan; .tflite: a copy of the
// TFLite model loaded, carrying the plan as its offline plan; .svg, .html: a
// picture; any other suffix is code 2), atomically. A file the problem was
// loaded from, and a file that is not a regular file (a device, a FIFO),
// are refused (code 2).
//
//export optalloc_result_write
func optalloc_result_write(h C.uintptr_t, path *C.optalloc_cchar) C.int {
	return withResult(h, func(r *result) error {
		if path == nil {
			return badArg("the path is NULL")
		}
		return r.write(goString(path))
	})
}

// optalloc_problem_write_plan writes a plan given as n offsets (and pools,
// indices into the problem's pools; NULL = the first) for the problem's n
// buffers, as optalloc_result_write writes a result's: by the path's suffix,
// through the front door. A plan the verifier rejects is not written (code 2).
//
//export optalloc_problem_write_plan
func optalloc_problem_write_plan(h C.uintptr_t, n C.size_t, offsets *C.optalloc_cint64, pools *C.optalloc_cint32, path *C.optalloc_cchar) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		if path == nil || (offsets == nil && n > 0) {
			return badArg("the path or the offsets are NULL")
		}
		var ps []int32
		if pools != nil {
			ps = unsafe.Slice((*int32)(unsafe.Pointer(pools)), length(n, 4))
		}
		return pr.writePlan(int64s(offsets, n), ps, goString(path))
	})
}

// optalloc_problem_encode_plan stores in *out (and its length in *len) what
// optalloc_problem_write_plan would write to a file named like path (its
// suffix chooses the format; "-" is CSV), without writing it. Free *out with
// optalloc_string_free.
//
//export optalloc_problem_encode_plan
func optalloc_problem_encode_plan(h C.uintptr_t, n C.size_t, offsets *C.optalloc_cint64, pools *C.optalloc_cint32, path *C.optalloc_cchar, out **C.char, length_ *C.size_t) C.int {
	return call(uintptr(h), func() error {
		pr, _, err := valueOf[*problem](uintptr(h), "problem")
		if err != nil {
			return err
		}
		if path == nil || out == nil || length_ == nil || (offsets == nil && n > 0) {
			return badArg("a pointer argument is NULL")
		}
		var ps []int32
		if pools != nil {
			ps = unsafe.Slice((*int32)(unsafe.Pointer(pools)), length(n, 4))
		}
		data, err := pr.encodePlan(int64s(offsets, n), ps, goString(path))
		if err != nil {
			return err
		}
		*out = (*C.char)(C.CBytes(append(data, 0)))
		*length_ = C.size_t(len(data))
		return nil
	})
}

// optalloc_result_free frees a result.
//
//export optalloc_result_free
func optalloc_result_free(h C.uintptr_t) C.int {
	return call(0, func() error { return release(uintptr(h)) })
}
