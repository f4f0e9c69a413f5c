//go:build cgo

package main

import (
	"errors"
	"fmt"
	"runtime/cgo"
	"strings"
	"sync"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/model"
)

// The codes every exported call returns: the CLI's exit codes.
const (
	codeOK       = 0 // success
	codeFailure  = 1 // anything else: an unknown handle, no plan, an internal error
	codeBadInput = 2 // a *model.InputError or a bad argument (the CLI's exit 2)
)

// entry is what a live handle refers to: the object, and the message of the
// last failed call made on it.
type entry struct {
	value any
	mu    sync.Mutex // guards msg
	msg   string
}

func (e *entry) setMsg(msg string) {
	e.mu.Lock()
	e.msg = msg
	e.mu.Unlock()
}

func (e *entry) message() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.msg
}

// table keeps every live handle. cgo.Handle's Value and Delete panic on a
// handle that is not live; the map answers "unknown handle" instead.
var table = struct {
	sync.Mutex
	live map[uintptr]*entry
	// orphan is the message of the last failed call that had no live
	// handle to keep it (an unknown handle, a NULL out pointer).
	orphan string
}{live: map[uintptr]*entry{}}

// newHandle registers v and returns its handle (never 0).
func newHandle(v any) uintptr {
	e := &entry{value: v}
	h := uintptr(cgo.NewHandle(e))
	table.Lock()
	table.live[h] = e
	table.Unlock()
	return h
}

// lookup returns the entry of a live handle.
func lookup(h uintptr) (*entry, bool) {
	table.Lock()
	defer table.Unlock()
	e, ok := table.live[h]
	return e, ok
}

// release deletes a live handle: 0 is a no-op, an unknown handle an error.
func release(h uintptr) error {
	if h == 0 {
		return nil
	}
	table.Lock()
	defer table.Unlock()
	if _, ok := table.live[h]; !ok {
		return errUnknown(h)
	}
	delete(table.live, h)
	cgo.Handle(h).Delete()
	return nil
}

// liveHandles counts the live handles (tests check that nothing leaks).
func liveHandles() int {
	table.Lock()
	defer table.Unlock()
	return len(table.live)
}

// valueOf returns the object of type T behind a live handle.
func valueOf[T any](h uintptr, what string) (T, *entry, error) {
	var zero T
	e, ok := lookup(h)
	if !ok {
		return zero, nil, errUnknown(h)
	}
	v, ok := e.value.(T)
	if !ok {
		return zero, e, badArg("handle %d is not a %s", h, what)
	}
	return v, e, nil
}

// argError is a bad argument: code 2, like the CLI's usage errors.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func badArg(format string, args ...any) error {
	return &argError{fmt.Sprintf(format, args...)}
}

func errUnknown(h uintptr) error {
	if h == 0 {
		return badArg("handle 0 is not a live handle")
	}
	return badArg("handle %d is not a live handle (never made, or freed already)", h)
}

// codeOf maps an error to the code a call returns: 2 for bad input (the
// CLI's exit 2), 1 for anything else.
func codeOf(err error) int {
	var ie *model.InputError
	var ae *argError
	switch {
	case err == nil:
		return codeOK
	case errors.As(err, &ie), errors.As(err, &ae):
		return codeBadInput
	case errors.Is(err, optalloc.ErrUnknownMethod):
		return codeBadInput // the CLI's exit 2 too
	default:
		return codeFailure
	}
}

// finish records the outcome of a call made on handle h: the message stays
// on h's entry (or as the orphan message when h is not live) and the code
// is returned. A successful call clears the message.
func finish(h uintptr, err error) int {
	msg := ""
	if err != nil {
		msg = oneLine(err.Error())
	}
	if e, ok := lookup(h); ok {
		e.setMsg(msg)
	} else if err != nil {
		table.Lock()
		table.orphan = msg
		table.Unlock()
	}
	return codeOf(err)
}

// errorOf returns the message of the last failed call on h, or, for a handle
// that is not live (0 included), the last message no handle kept.
func errorOf(h uintptr) string {
	if e, ok := lookup(h); ok {
		return e.message()
	}
	table.Lock()
	defer table.Unlock()
	return table.orphan
}

// oneLine keeps the first line of a message: the CLI prints one line.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// internalError is what a recovered panic becomes (the wording of solve's
// offer).
func internalError(r any) error {
	return fmt.Errorf("internal error: %v; please report it", r)
}
