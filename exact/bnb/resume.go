package bnb

import (
	"context"
	"sync/atomic"
)

// Continued searches (issue 44). Each round of the portfolio used to
// restart every static order from scratch: its table of failed states
// makes the re-walk to where the last round stopped cheap, but a restart
// also schedules the window checks afresh (a node's subtree is counted from
// the restart), and on MiniMalloc I the order that decides (TLR) gets its
// refutations from windows checked over subtrees that grew across rounds.
// So an order runs as a runner: a search on a goroutine of its own that
// pauses at its node limit. At its next turn it goes on with the round's
// limit in new nodes when its window checks have refuted some state (the
// windows pay off for it) or cost it little, and starts afresh otherwise. Measured on A
// (issue 44): TWA, whose windows refute nothing there, decides after 19.4k
// nodes when it restarts and 26.7k when it goes on (7.5k more window nodes,
// checked over its long subtrees), and an order that only goes on stalls
// and lags behind. The worker that owns the order waits while the runner
// searches, so one thread stays deterministic.

// continueEvery makes every order go on at its next turn, windows or not
// (tests: exercises pausing on instances too small for windows).
var continueEvery = false

// A runner is one static order's search on its own goroutine, paused
// whenever it reaches its node limit.
type runner struct {
	s      *searcher
	resume chan int64 // a new node limit (counted from the search's start); ≤ 0: stop
	out    chan bool  // false: paused at the limit; true: finished or stopped
	found  bool
	dead   bool
}

// startRunner starts a fresh search of s at the given capacity; it waits
// for its first limit (run).
func startRunner(s *searcher, capacity int64) *runner {
	r := &runner{s: s, resume: make(chan int64), out: make(chan bool)}
	go func() {
		limit := <-r.resume
		s.reset(capacity)
		s.nodes = 0
		s.limit = limit
		if limit <= 0 {
			s.aborted = true
		} else {
			s.pause = r.pause
			r.found = s.solve(0)
		}
		s.pause = nil
		r.out <- true
	}()
	return r
}

// pause hands over at the node limit and waits for the next turn: true
// with a higher limit, false when the runner is stopped.
func (r *runner) pause() bool {
	if r.dead {
		return false
	}
	r.out <- false
	limit := <-r.resume
	if limit <= 0 {
		r.dead = true
		return false
	}
	r.s.limit = limit
	return true
}

// run lets the search go on up to limit nodes (counted from its start) and
// waits until it pauses or ends; done reports that it ended (found: with a
// packing; otherwise exhausted, or stopped when s.aborted).
func (r *runner) run(limit int64, stop *atomic.Bool, ctx context.Context) (found, done bool) {
	r.s.stop, r.s.ctx = stop, ctx
	r.resume <- limit
	if <-r.out {
		return r.found, true
	}
	return false, false
}

// kill stops a paused runner and waits for its goroutine to end (nil: no-op).
func (r *runner) kill() {
	if r == nil {
		return
	}
	r.resume <- 0
	<-r.out
}

// goesOn reports whether order k's paused search (if any) goes on at its
// next turn instead of starting afresh: when its window checks have refuted
// some state, or when they cost it under an eighth of its own nodes (a
// restart would reset little). On I, TLR's windows had refuted nothing in
// round 0 but took 337 nodes against its 7 875: going on from there saves
// 4k nodes; A's TWA (1 964 window nodes against 6 228, nothing refuted)
// restarts.
func (cs *compSolver) goesOn(k int) bool {
	s := cs.searcher[k]
	return continueEvery || s.windowRefutes > 0 || 8*s.windowWork < s.own
}
