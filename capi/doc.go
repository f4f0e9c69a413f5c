// Command capi is optalloc's C API: a library built with
//
//	go build -buildmode=c-shared -o liboptalloc.so ./capi
//
// from the repository root, which writes liboptalloc.so and its header
// liboptalloc.h (never edited by hand). It plans nothing itself: like
// cmd/optalloc it copies in, calls formats, solve and verify, and copies
// out. It is the only code with import "C"; C types never reach solve or
// model. docs/c.md is the reference; capi/example/example.c a program.
//
// The pieces:
//
//	export.go   the exported functions (//export), C types only, and the
//	            header's preamble: status codes, const typedefs, an example
//	handles.go  live handles (runtime/cgo.Handle in a map behind a mutex),
//	            the message kept on each, codes (0 ok, 2 bad input, 1 other)
//	core.go     problem, solver and result in Go: load, columns in and out,
//	            solve with cancel, write, verify
//	ctest/      C tests through the header, run built with GOEXPERIMENT=cgocheck2
//
// Rules the API keeps (notes/style.md §2): handles for what lives in Go,
// copies for data (no Go pointer is kept by C or returned to it); one free
// call per handle, freeing 0 does nothing and an unknown handle is an error,
// not a crash; every call returns 0, 2 (a *model.InputError or a bad
// argument: the CLI's exit 2) or 1, with the CLI's one-line message on the
// handle (optalloc_error); no panic crosses into C (it becomes "internal
// error: ... please report it"); calls may come from any thread, a solve
// blocks its caller and optalloc_solver_cancel from another thread stops
// it. A process that loaded the library must not fork and keep using it.
//
// Without cgo the package builds as an empty command.
package main
