package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

// plannerOpts are the keys of --planner-opt NAME.KEY=VALUE: the planners'
// and passes' knobs that have no flag of their own. Each sets its field of
// plannerSettings; docs/heuristics.md has the measurements behind the
// defaults.
var plannerOpts = []struct {
	key, values, usage string
	set                func(s *plannerSettings, v string) error
}{
	{"freelist.reuse_threshold", "BYTES", "requests of at most this many bytes skip the free list (0)", func(s *plannerSettings, v string) error {
		var b byteSize
		if err := b.Set(v); err != nil {
			return err
		}
		s.freeList().ReuseThreshold = int64(b)
		return nil
	}},
	{"freelist.exact", "on|off", "reuse a free block of exactly the requested size (on)", onOff(func(s *plannerSettings, on bool) { s.freeList().NoExact = !on })},
	{"freelist.split", "smallest|largest|off", "the free block split for a request: the smallest that holds it, the largest (seed 000), or none (smallest)", freeListChoice(map[string]func(*heuristics.FreeList){
		"smallest": func(f *heuristics.FreeList) { f.SplitLargest, f.NoSplit = false, false },
		"largest":  func(f *heuristics.FreeList) { f.SplitLargest, f.NoSplit = true, false },
		"off":      func(f *heuristics.FreeList) { f.NoSplit = true },
	})},
	{"freelist.extend", "on|off", "take the free block at the arena's end and extend it when no block holds a request (on)", onOff(func(s *plannerSettings, on bool) { s.freeList().NoExtend = !on })},
	{"freelist.coalesce", "on|off", "merge a released block with its free neighbours (on)", onOff(func(s *plannerSettings, on bool) { s.freeList().NoCoalesce = !on })},
	{"freelist.same_start", "largest|op", "buffers starting at one time: largest first, or in op (input) order as seed 000 (largest)", freeListChoice(map[string]func(*heuristics.FreeList){
		"largest": func(f *heuristics.FreeList) { f.OpOrder = false },
		"op":      func(f *heuristics.FreeList) { f.OpOrder = true },
	})},
	{"freelist.tiers", "off|reuse-first|fill-fast", "with several pools, split the buffers over them as the free-list sweep places them — free blocks of every pool before fresh memory, or each pool filled (reuse, then fresh memory) before the next, as seed 000 — instead of by priority (off)", func(s *plannerSettings, v string) error {
		switch v {
		case "off", "reuse-first", "fill-fast":
			s.tiers = v
			return nil
		}
		return fmt.Errorf("%q is not one of fill-fast, off, reuse-first", v)
	}},
	{"strip.rounds", "N", "re-ordering rounds of the strip-* planners (64)", func(s *plannerSettings, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a round count (an integer ≥ 1)", v)
		}
		s.h.StripRounds = n
		return nil
	}},
	{"strip.budget", "N", "work budget of the strip-* planners in list entries scanned (4e7 up to 1000 buffers, scaled down above)", func(s *plannerSettings, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 1 && f <= 1e15) {
			return fmt.Errorf("%q is not a work budget (a number from 1 to 1e15)", v)
		}
		s.h.StripBudget = f
		return nil
	}},
	{"strip.reorder", "on|off", "the peak-driven re-ordering loop after the first placement (on)", onOff(func(s *plannerSettings, on bool) { s.h.StripNoReorder = !on })},
	{"scratch.place", "bottom|top", "where fixed-size scratch goes in its gap (bottom)", scratchChoice(map[string]func(*heuristics.ScratchOptions){
		"bottom": func(o *heuristics.ScratchOptions) { o.Top = false },
		"top":    func(o *heuristics.ScratchOptions) { o.Top = true },
	})},
	{"scratch.grow", "top|either", "scratch that fits no gap grows the arena at the top, or at whichever end grows it less (top)", scratchChoice(map[string]func(*heuristics.ScratchOptions){
		"top":    func(o *heuristics.ScratchOptions) { o.GrowBottom = false },
		"either": func(o *heuristics.ScratchOptions) { o.GrowBottom = true },
	})},
	{"scratch.elastic", "on|off", "grant elastic scratch more than its minimum where gaps allow (on)", onOff(func(s *plannerSettings, on bool) { s.scratch.NoElastic = !on })},
	{"scratch.fast_pool", "any|critical", "with several pools, which scratch may use the fastest: any, or only latency-critical scratch as seed 004 (any)", func(s *plannerSettings, v string) error {
		switch v {
		case "any", "critical":
			s.slowScratch = v == "critical"
			return nil
		}
		return fmt.Errorf("%q is not one of any, critical", v)
	}},
}

// plannerSettings collects the --planner-opt values.
type plannerSettings struct {
	h           heuristics.Settings
	scratch     heuristics.ScratchOptions
	slowScratch bool
	tiers       string // freelist.tiers
}

func (s *plannerSettings) freeList() *heuristics.FreeList {
	if s.h.FreeList == nil {
		s.h.FreeList = &heuristics.FreeList{}
	}
	return s.h.FreeList
}

func onOff(set func(s *plannerSettings, on bool)) func(*plannerSettings, string) error {
	return func(s *plannerSettings, v string) error {
		switch v {
		case "on", "true":
			set(s, true)
		case "off", "false":
			set(s, false)
		default:
			return fmt.Errorf("%q is not on or off", v)
		}
		return nil
	}
}

// oneOf applies the function of value v, or says which values there are.
func oneOf[T any](m map[string]func(*T), v string, t *T) error {
	f, ok := m[v]
	if !ok {
		return fmt.Errorf("%q is not one of %s", v, strings.Join(slices.Sorted(maps.Keys(m)), ", "))
	}
	f(t)
	return nil
}

func freeListChoice(m map[string]func(*heuristics.FreeList)) func(*plannerSettings, string) error {
	return func(s *plannerSettings, v string) error { return oneOf(m, v, s.freeList()) }
}

func scratchChoice(m map[string]func(*heuristics.ScratchOptions)) func(*plannerSettings, string) error {
	return func(s *plannerSettings, v string) error { return oneOf(m, v, &s.scratch) }
}

// plannerOptFlag defines --planner-opt; its usage lists every key.
func plannerOptFlag(fs *pflag.FlagSet) {
	var b strings.Builder
	b.WriteString("set a planner option NAME.KEY=VALUE; repeat for several (defaults in brackets):")
	for _, o := range plannerOpts {
		fmt.Fprintf(&b, "\n  %s=%s: %s", o.key, o.values, o.usage)
	}
	b.WriteString("\n--method strip-ORDER runs strip packing in any order: metrics (" + strings.Join(heuristics.MetricNames(), ", ") +
		") joined by - (tie-break), -plus- (sum of the metrics each divided by its largest value), -x- (product), -per- (ratio); -asc after a part sorts it lowest first (strip-size-per-lifetime, strip-lifetime-asc-size)")
	fs.StringArray("planner-opt", nil, b.String())
}

// parsePlannerOpts reads --planner-opt; nil when it is not given. A bad
// key or value is a usage error naming it.
func parsePlannerOpts(fs *pflag.FlagSet) (*plannerSettings, error) {
	args, err := fs.GetStringArray("planner-opt")
	if err != nil || len(args) == 0 {
		return nil, nil
	}
	s := &plannerSettings{}
	for _, a := range args {
		key, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, usageErr("--planner-opt %q: want NAME.KEY=VALUE (see 'optalloc help plan')", a)
		}
		found := false
		for _, o := range plannerOpts {
			if o.key == strings.TrimSpace(key) {
				if err := o.set(s, strings.TrimSpace(v)); err != nil {
					return nil, usageErr("--planner-opt %s: %v", key, err)
				}
				found = true
			}
		}
		if !found {
			keys := make([]string, len(plannerOpts))
			for i, o := range plannerOpts {
				keys[i] = o.key
			}
			return nil, usageErr("--planner-opt: unknown option %q (known: %s)", key, strings.Join(keys, ", "))
		}
	}
	return s, nil
}

// plannerOptsFor is parsePlannerOpts for a layout: the options tune the
// offset planners, so --layout blocks refuses them rather than ignore them.
func plannerOptsFor(fs *pflag.FlagSet, layout string) (*plannerSettings, error) {
	s, err := parsePlannerOpts(fs)
	if err == nil && s != nil && layout == "blocks" {
		return nil, usageErr("--planner-opt tunes the offset planners; not available with --layout blocks")
	}
	return s, err
}

// apply puts the settings into opt and the context the planners run in;
// it returns the problem to solve, which is p unless scratch.fast_pool=
// critical narrows scratch buffers' pools (then a copy: p is not changed,
// so that a corpus can share it between methods).
func (s *plannerSettings) apply(ctx context.Context, p *model.Problem, opt *solve.Options) (context.Context, *model.Problem) {
	if s == nil {
		return ctx, p
	}
	h := s.h // each solve gets its own copy: planners may run concurrently
	if s.h.FreeList != nil {
		fl := *s.h.FreeList
		h.FreeList = &fl
	}
	opt.Scratch = s.scratch
	if s.tiers == "reuse-first" || s.tiers == "fill-fast" {
		if h.FreeList == nil {
			h.FreeList = &heuristics.FreeList{}
		}
		h.FreeList.FillFast = s.tiers == "fill-fast"
		opt.FreeListTiers = h.FreeList
	}
	if s.slowScratch {
		p = heuristics.SlowScratch(p)
	}
	return heuristics.WithSettings(ctx, &h), p
}

// tune is apply as a corpus.Config.Tune; nil when there are no settings.
func (s *plannerSettings) tune() func(context.Context, *model.Problem, *solve.Options) (context.Context, *model.Problem) {
	if s == nil {
		return nil
	}
	return s.apply
}
