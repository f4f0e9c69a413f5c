//go:build cgo

package main

// The helpers of export.go. This file exports nothing, so its preamble
// stays out of the header; it repeats export.go's typedefs.

/*
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

typedef const char optalloc_cchar;
typedef const int64_t optalloc_cint64;
typedef const char *const optalloc_cstring;
*/
import "C"

import "unsafe"

// call runs f for a call made on handle h: the message stays on h, the code
// is returned, and a panic becomes an internal error instead of ending the
// host process.
func call(h uintptr, f func() error) (rc C.int) {
	defer func() {
		if r := recover(); r != nil {
			if c, ok := r.(countError); ok {
				rc = C.int(finish(h, badArg("a count of %d is more values than memory holds", uint64(c))))
				return
			}
			rc = C.int(finish(h, internalError(r)))
		}
	}()
	return C.int(finish(h, f()))
}

// countError is a count past what memory holds (SIZE_MAX, say): bad input
// (code 2), raised by length and turned into its message by call.
type countError uint64

// maxBytes is the most bytes a C array may span: half the address space
// (a larger count cannot describe memory the caller holds).
const maxBytes = uint64(1) << 62

// length checks that n values of size bytes each can be memory the caller
// holds and returns n as an int; past that it raises countError.
func length(n C.size_t, size uint64) int {
	if uint64(n) > maxBytes/size {
		panic(countError(n))
	}
	return int(n)
}

// int64s views n C int64_t values (nil for a NULL pointer).
func int64s(p *C.optalloc_cint64, n C.size_t) []int64 {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(p)), length(n, 8))
}

// outInt64s is int64s for an output array.
func outInt64s(p *C.int64_t, n C.size_t) []int64 {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(p)), length(n, 8))
}

// strings copies n C strings; a NULL array is nil.
func goStrings(p *C.optalloc_cstring, n C.size_t) ([]string, error) {
	if p == nil {
		return nil, nil
	}
	out := make([]string, n)
	for i, s := range unsafe.Slice((**C.char)(unsafe.Pointer(p)), length(n, 8)) {
		if s == nil {
			return nil, badArg("string %d of %d is NULL", i, n)
		}
		out[i] = C.GoString(s)
	}
	return out, nil
}

func goString(s *C.optalloc_cchar) string {
	if s == nil {
		return ""
	}
	return C.GoString((*C.char)(unsafe.Pointer(s)))
}

// putString stores a malloc'd copy of s in *out.
func putString(out **C.char, s string) error {
	if out == nil {
		return badArg("the output pointer is NULL")
	}
	*out = C.CString(s)
	return nil
}

// newOut registers v and stores its handle in *out.
func newOut(out *C.uintptr_t, v any) error {
	if out == nil {
		return badArg("the output pointer is NULL")
	}
	*out = C.uintptr_t(newHandle(v))
	return nil
}

// withSolver runs f on the solver behind h.
func withSolver(h C.uintptr_t, f func(s *solver) error) C.int {
	return call(uintptr(h), func() error {
		s, _, err := valueOf[*solver](uintptr(h), "solver")
		if err != nil {
			return err
		}
		return f(s)
	})
}

// withResult runs f on the result behind h.
func withResult(h C.uintptr_t, f func(r *result) error) C.int {
	return call(uintptr(h), func() error {
		r, _, err := valueOf[*result](uintptr(h), "result")
		if err != nil {
			return err
		}
		return f(r)
	})
}
