package sat

import (
	"context"
	"reflect"
	"time"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"
)

// solve runs the solver under the assumptions until it answers or ctx is
// done: 1 SAT, −1 UNSAT, 0 unknown. It uses GoSolve and polls, never Try:
// after a timed-out Try gini keeps the old deadline (see the notes).
func (e *encoder) solve(ctx context.Context, assume ...z.Lit) int {
	if e.dead {
		return -1
	}
	if ctx.Err() != nil {
		return 0
	}
	e.calls++
	e.s.Assume(assume...)
	c := e.s.GoSolve()
	slice := 10 * time.Millisecond
	if e.opt.Slice > 0 {
		slice = e.opt.Slice
	}
	// Poll with a growing interval: quick answers return at once, long
	// solves are checked every slice.
	wait := 20 * time.Microsecond
	t := time.NewTimer(wait)
	defer t.Stop()
	res := 0
	for {
		if r, done := c.Test(); done {
			res = r
			break
		}
		select {
		case <-ctx.Done():
			res = c.Stop()
			e.conflicts = conflicts(e.s)
			return res
		case <-t.C:
		}
		wait = min(2*wait, slice)
		t.Reset(wait)
	}
	e.conflicts = conflicts(e.s)
	if res == -1 && len(e.s.Why(make([]z.Lit, 0, 8))) == 0 {
		e.dead = true
	}
	return res
}

// conflicts reads gini's conflict counter (cumulative since creation). gini v1.0.4 does not
// export its statistics; the counter is read through reflection (read-only,
// only while no solve is running) and 0 is returned if the layout differs.
func conflicts(g *gini.Gini) (n int64) {
	defer func() {
		if recover() != nil {
			n = 0
		}
	}()
	v := reflect.ValueOf(g).Elem().FieldByName("xo")
	if !v.IsValid() || v.IsNil() {
		return 0
	}
	d := v.Elem().FieldByName("Driver")
	if !d.IsValid() || d.IsNil() {
		return 0
	}
	f := d.Elem().FieldByName("Conflicts")
	if !f.IsValid() || f.Kind() != reflect.Int64 {
		return 0
	}
	return f.Int()
}

func (e *encoder) stats() Stats {
	return Stats{Vars: e.vars, Clauses: e.clauses, Conflicts: e.conflicts, Calls: e.calls, Encodings: 1}
}
