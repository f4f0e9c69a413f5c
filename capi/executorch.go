//go:build cgo

package main

/*
#include <stdint.h>
#include <stddef.h>

typedef const void optalloc_cbytes; // read-only bytes (const in the header)

// ExecuTorch's memory planning (docs/python.md, docs/formats.md):
//   optalloc_executorch_plan(solver, json, n, &out, &len)   a specs file in, the same file with
//                               the placements and bufsizes out (string: optalloc_string_free)
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/optalloc/optalloc"
	etfmt "github.com/optalloc/optalloc/formats/executorch"
)

// optalloc_executorch_plan plans the n bytes at data, an ExecuTorch specs
// file (docs/formats.md: {"executorch": {...}}), with the solver's
// settings (method, time limit shared among the mem_ids, threads, seed;
// optalloc_solver_cancel stops it), and stores in *out (its length in
// *len) the same file with each spec's mem_id, mem_obj_id and mem_offset
// and the bufsizes, as `optalloc plan specs.json -o out.json` writes it.
// Malformed specs are code 2 with the message naming the spec and the
// field; a solve that finds no plan is code 1. Free *out with
// optalloc_string_free.
//
//export optalloc_executorch_plan
func optalloc_executorch_plan(h C.uintptr_t, data *C.optalloc_cbytes, n C.size_t, out **C.char, length_ *C.size_t) C.int {
	return withSolver(h, func(s *solver) error {
		if (data == nil && n > 0) || out == nil || length_ == nil {
			return badArg("a pointer argument is NULL")
		}
		var b []byte
		if n > 0 {
			b = append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(data)), length(n, 1))...)
		}
		enc, err := s.planExecuTorch(b)
		if err != nil {
			return err
		}
		*out = (*C.char)(C.CBytes(append(enc, 0)))
		*length_ = C.size_t(len(enc))
		return nil
	})
}

// planExecuTorch plans a specs file held in memory through the front door
// and returns the specs file with the placements.
func (s *solver) planExecuTorch(data []byte) ([]byte, error) {
	const name = "<executorch specs>"
	if !etfmt.Sniff(data) {
		return nil, badArg("%s: not a specs file: expected a JSON object {\"executorch\": {...}}", name)
	}
	in, err := optalloc.LoadBytes(name, data, optalloc.LoadOptions{})
	if err != nil {
		return nil, err
	}
	ctx, opt, end, err := s.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	opt.Capacity = 0 // bufsizes are ExecuTorch's to report, not to bound
	r, err := optalloc.Plan(ctx, in, optalloc.Options{Options: opt})
	if err != nil {
		return nil, err
	}
	if r.Plan == nil {
		return nil, errors.New(name + ": no plan: status " + string(r.Status) + ": " + r.Reason)
	}
	enc, err := in.Encode("plan.json", r.Plan)
	if err != nil {
		return nil, err
	}
	return enc.Data, nil
}
