package bnb

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// LNSOptions configure LNS.
type LNSOptions struct {
	// Seed drives the choice of neighbourhoods, the orders of the
	// decisions and the random orders of the sideways moves.
	Seed uint64
	// Iterations caps the neighbourhoods tried; 0 means until ctx ends.
	Iterations int
	// MaxFree caps the free buffers of a neighbourhood; 0 means 90.
	MaxFree int
	// Nodes is the node budget of the first round of the decision of one
	// neighbourhood (Options.NodeLimit); 0 means 20 000.
	Nodes int64
	// Rounds bounds each decision to that many rounds (Options.MaxRounds:
	// Nodes, then 2·Nodes, ...); 0 means 2.
	Rounds int
	// SubTime bounds each sub-search in time, a safety net: a run is
	// deterministic as long as no sub-search reaches it; 0 means 10 s.
	SubTime time.Duration
	// Sideways is the probability that a neighbourhood which cannot be
	// lowered is re-packed at the current peak in a random order (a move on
	// the plateau, accepted as it comes); 0 means 0.5, negative means never.
	// Seed, Nodes and Rounds fix the run: the same ones, problem and start
	// give the same plans.
	Sideways float64
}

// LNSStats count what LNS did.
type LNSStats struct {
	Neighbourhoods int `json:"neighbourhoods"`
	Improved       int `json:"improved"`
	Sideways       int `json:"sideways"`
	// Refuted counts the neighbourhoods proven unable to go below the peak
	// (the rest ran out of nodes or time); FreeTotal sums their free buffers.
	Refuted   int   `json:"refuted"`
	FreeTotal int   `json:"free_total"`
	StartPeak int64 `json:"start_peak"`
	Peak      int64 `json:"peak"`
}

// ErrLNSUnsupported is returned for problems LNS does not take: several
// pools, gaps, aliases or elastic buffers.
var ErrLNSUnsupported = errors.New("bnb: LNS takes single-pool problems without gaps, aliases or elastic buffers")

// LNS lowers the peak of start by large-neighbourhood search: it frees a
// neighbourhood of buffers (always every buffer that reaches the peak),
// pins every other buffer that conflicts with one of them at its offset
// in the current plan, and minimises the neighbourhood with the
// branch-and-bound (one thread, a node budget) from the current offsets.
// A lower plan is accepted; when none is found, with probability
// LNSOptions.Sideways the neighbourhood is re-packed at the current peak in
// a random static order instead (a move on the plateau). Neighbourhoods:
// "band" (the buffers whose top lies in an upper band of the plan, nearest
// in time to a buffer at the peak), "window" (the buffers live around a
// buffer at the peak whose top lies above a lower line), "random" (buffers
// that conflict with those at the peak). Every accepted plan passes
// verify.Check; onImprove (when non-nil) gets each lower one. Pinned
// buffers of p stay where they are. It proves nothing: every neighbourhood
// is a restriction. It stops at max-live, at Iterations, or when ctx ends.
func LNS(ctx context.Context, p *model.Problem, start *model.Plan, lo LNSOptions, onImprove func(*model.Plan)) (*model.Plan, LNSStats, error) {
	if len(p.PoolList()) > 1 {
		return start, LNSStats{}, ErrLNSUnsupported
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		if len(b.Gaps) > 0 || b.Alias != nil || b.Elastic() {
			return start, LNSStats{}, ErrLNSUnsupported
		}
	}
	if v := verify.Check(p, start); len(v) > 0 {
		return start, LNSStats{}, errors.New("bnb: LNS: the start plan is invalid: " + v[0].String())
	}
	n := len(p.Buffers)
	off := make([]int64, n)
	for i := range off {
		off[i] = start.Placements[i].Offset
	}
	peak := start.Peak(p)
	st := LNSStats{StartPeak: peak, Peak: peak}
	floor := p.ComputeSweep().MaxLive
	if lo.MaxFree <= 0 {
		lo.MaxFree = 90
	}
	if lo.Nodes <= 0 {
		lo.Nodes = 20_000
	}
	if lo.SubTime <= 0 {
		lo.SubTime = 10 * time.Second
	}
	if lo.Rounds <= 0 {
		lo.Rounds = 2
	}
	if lo.Sideways == 0 {
		lo.Sideways = 0.5
	}
	rng := rand.New(rand.NewPCG(lo.Seed, 0x6c6e73))
	nb := &neighbourhoods{p: p, off: off, rng: rng, maxFree: lo.MaxFree}
	best := start
	for it := 0; (lo.Iterations == 0 || it < lo.Iterations) && peak > floor && ctx.Err() == nil; it++ {
		free := nb.pick(peak)
		if free == nil {
			break // a pinned buffer holds the peak
		}
		st.Neighbourhoods++
		sub, _, idx := subProblem(p, off, free)
		orders := DefaultOrders()
		order := orders[rng.IntN(len(orders))]
		sctx, cancel := context.WithTimeout(ctx, lo.SubTime)
		got, status, _, err := Decide(sctx, sub, peak-1, Options{Threads: 1, NoProbe: true, MaxRounds: lo.Rounds, Orders: []string{order}, NodeLimit: lo.Nodes, Seed: int64(rng.Uint64() >> 1)})
		cancel()
		if err != nil {
			return best, st, err
		}
		if status == Infeasible {
			st.Refuted++
		}
		st.FreeTotal += countTrue(free)
		sideways := false
		if status != Feasible {
			got = nil
			if lo.Sideways > 0 && rng.Float64() < lo.Sideways {
				sctx, cancel := context.WithTimeout(ctx, lo.SubTime)
				pl, status, _, err := Decide(sctx, sub, peak, Options{Threads: 1, NoProbe: true, MaxRounds: lo.Rounds, NodeLimit: lo.Nodes, Orders: []string{"random"}, Seed: int64(rng.Uint64() >> 1)})
				cancel()
				if err != nil {
					return best, st, err
				}
				if status == Feasible {
					got, sideways = pl, true
				}
			}
		}
		if got == nil {
			continue
		}
		cand := slices.Clone(off)
		for k, i := range idx {
			cand[i] = got.Placements[k].Offset
		}
		pl := planOf(p, cand)
		if v := verify.Check(p, pl); len(v) > 0 {
			return best, st, errors.New("bnb: LNS built an invalid plan: " + v[0].String())
		}
		np := pl.Peak(p)
		if np > peak {
			continue
		}
		copy(off, cand)
		if np < peak {
			peak, best = np, pl
			st.Improved++
			st.Peak = peak
			if onImprove != nil {
				onImprove(pl.Clone())
			}
		} else if sideways {
			st.Sideways++
			best = pl
		}
	}
	return best, st, nil
}

// planOf returns the plan of p with the given offsets in pool 0.
func planOf(p *model.Problem, off []int64) *model.Plan {
	pl := model.NewPlan(p)
	for i := range pl.Placements {
		pl.Placements[i].Offset = off[i]
	}
	return pl
}

// subProblem returns the neighbourhood problem: the free buffers (free[i])
// unpinned, every other buffer that conflicts with one of them pinned at
// off, the rest left out; with the offsets of its buffers in off and, for
// each, its index in p.
func subProblem(p *model.Problem, off []int64, free []bool) (*model.Problem, []int64, []int) {
	q := &model.Problem{Name: p.Name + " (neighbourhood)", Pools: p.Pools}
	var subOff []int64
	var idx []int
	for i := range p.Buffers {
		b := p.Buffers[i]
		if !free[i] {
			if b.Size <= 0 || !conflictsWith(p, i, free) {
				continue
			}
			v := off[i]
			b.Pin = &v
		}
		b.Hint = nil
		q.Buffers = append(q.Buffers, b)
		subOff = append(subOff, off[i])
		idx = append(idx, i)
	}
	return q, subOff, idx
}

func conflictsWith(p *model.Problem, i int, free []bool) bool {
	a := &p.Buffers[i]
	for j := range p.Buffers {
		b := &p.Buffers[j]
		if free[j] && b.Size > 0 && a.Start < b.End && b.Start < a.End {
			return true
		}
	}
	return false
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}
