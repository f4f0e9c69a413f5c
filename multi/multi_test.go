package multi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

func TestParseSchedule(t *testing.T) {
	names := []string{"pre", "kws", "vad"}
	for _, tc := range []struct {
		name, text string
		want       [][]int
		err        string
	}{
		{"serial", "pre\nkws\nvad\n", [][]int{{0}, {1}, {2}}, ""},
		{"stages", "# comment\npre\n\nkws, vad  # together\n", [][]int{{0}, {1, 2}}, ""},
		{"positions", "#1 #3\n#2\n", [][]int{{0, 2}, {1}}, ""},
		{"unknown", "pre\nkw\nvad\n", nil, "s.txt:2: unknown model \"kw\""},
		{"twice", "pre kws\nkws vad\n", nil, "s.txt:2: model \"kws\" is scheduled twice (also line 1)"},
		{"missing", "pre kws\n", nil, "s.txt: model \"vad\" is not scheduled"},
		{"position out of range", "#4\n", nil, "s.txt:1: unknown model \"#4\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSchedule(strings.NewReader(tc.text), "s.txt", names)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, s.Stages)
			assert.NoError(t, s.Check(len(names)))
		})
	}
}

// chain is a model of n buffers in a chain (buffer i on [i, i+2)), sizes
// given, the first an input and the last an output.
func chain(name string, sizes ...int64) Model {
	p := &model.Problem{Name: name}
	for i, s := range sizes {
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprintf("t%d", i), Start: int64(i), End: int64(i) + 2, Size: s, Align: 16})
	}
	last := len(sizes) - 1
	return Model{Name: name, Problem: p,
		Inputs:  []Port{{Name: "t0", Type: "INT8", Bytes: sizes[0], Buffer: 0}},
		Outputs: []Port{{Name: fmt.Sprintf("t%d", last), Type: "INT8", Bytes: sizes[last], Buffer: last}}}
}

func solvePeak(t *testing.T, p *model.Problem) (int64, solve.Status) {
	t.Helper()
	// No time limit: the problems are small, and a proof must not depend
	// on the machine's load.
	res, err := solve.Solve(context.Background(), p, solve.Options{Threads: 1})
	require.NoError(t, err)
	require.NotNil(t, res.Plan)
	require.Empty(t, verify.Check(p, res.Plan))
	return res.Peak, res.Status
}

func TestCombine(t *testing.T) {
	a := chain("a", 64, 128, 32)  // alone: 192
	b := chain("b", 32, 256, 128) // alone: 384
	for _, tc := range []struct {
		name  string
		sched Schedule
		opt   Options
		peak  int64
		err   string
	}{
		{"serial", Serial(2), Options{}, 384, ""},
		{"concurrent", Concurrent(2), Options{}, 192 + 384, ""},
		{"handoff", Serial(2), Options{Handoffs: []Handoff{{From: 0, Output: 0, To: 1, Input: 0}}}, 384, ""}, // a's output is b's input: counted once
		{"handoff backwards", Serial(2), Options{Handoffs: []Handoff{{From: 1, Output: 0, To: 0, Input: 0}}}, 0, "b must run before a"},
		{"handoff size", Serial(2), Options{Handoffs: []Handoff{{From: 0, Output: 0, To: 1, Input: 0}}}, 0, "the sizes differ"},
		{"handoff concurrent", Concurrent(2), Options{Handoffs: []Handoff{{From: 0, Output: 0, To: 1, Input: 0}}}, 0, "a must run before b"},
		{"no such output", Serial(2), Options{Handoffs: []Handoff{{From: 0, Output: 3, To: 1, Input: 0}}}, 0, "a has 1 outputs; output3 does not exist"},
		{"bad schedule", Schedule{Stages: [][]int{{0}}}, Options{}, 0, "model 1 is not scheduled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := []Model{a, b}
			switch tc.name {
			case "handoff size":
				ms[1] = chain("b", 48, 256, 128)
			case "handoff backwards":
				ms[1] = chain("b", 64, 256, 64)
			}
			c, err := Combine(ms, tc.sched, tc.opt)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			peak, st := solvePeak(t, c.Problem)
			assert.Equal(t, tc.peak, peak)
			assert.Equal(t, solve.Optimal, st)
			assert.Len(t, c.Problem.Buffers, 6-len(tc.opt.Handoffs))
		})
	}
}

func TestHandoffNamesBothTensors(t *testing.T) {
	a, b := chain("a", 64, 128, 32), chain("b", 48, 256)
	b.Inputs[0].Type = "FLOAT32"
	_, err := Combine([]Model{a, b}, Serial(2), Options{Handoffs: []Handoff{{0, 0, 1, 0}}})
	require.Error(t, err)
	assert.Equal(t, `handoff a:output0 (tensor "t2", INT8, 32 bytes) = b:input0 (tensor "t0", FLOAT32, 48 bytes): the types and sizes differ`, err.Error())
}

func TestWeightsStoredOnce(t *testing.T) {
	a, b := chain("a", 64, 64), chain("b", 64, 64)
	a.Weights = []Weight{{Name: "w", Size: 1000, Align: 16, Key: "k1"}, {Name: "own", Size: 16, Align: 16, Key: "k2"}}
	b.Weights = []Weight{{Name: "w2", Size: 1000, Align: 16, Key: "k1"}}
	for _, tc := range []struct {
		inArena bool
		peak    int64
		buffers int
	}{{false, 128, 4}, {true, 128 + 1000 + 16, 6}} {
		c, err := Combine([]Model{a, b}, Serial(2), Options{WeightsInArena: tc.inArena})
		require.NoError(t, err)
		require.Len(t, c.SameWeights, 1, "the weight with key k1 is in both models")
		assert.Equal(t, []string{"a/w", "b/w2"}, c.SameWeights[0].Names)
		assert.Len(t, c.Problem.Buffers, tc.buffers)
		peak, _ := solvePeak(t, c.Problem)
		assert.Equal(t, tc.peak, peak, "weights in arena: %v", tc.inArena)
	}
}

func TestSplitJoin(t *testing.T) {
	c, err := Combine([]Model{chain("a", 64, 128, 32), chain("b", 32, 256)}, Serial(2), Options{Handoffs: []Handoff{{0, 0, 1, 0}}})
	require.NoError(t, err)
	res, err := solve.Solve(context.Background(), c.Problem, solve.Options{Threads: 1})
	require.NoError(t, err)
	parts := c.Split(res.Plan)
	assert.Equal(t, parts[0].Placements[2].Offset, parts[1].Placements[0].Offset, "the handoff is one buffer")
	assert.Equal(t, res.Plan.Placements, c.Join(parts).Placements)
}

// randModel is a random model: a chain with skips, sizes multiples of 16,
// and, with scratch, some one-step scratch buffers the runtime places.
func randModel(rng *rand.Rand, name string, scratch bool) Model {
	n := 2 + rng.IntN(6)
	p := &model.Problem{Name: name}
	var online []bool
	for i := range n {
		end := int64(i) + 2 + int64(rng.IntN(3))
		p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprintf("t%d", i), Start: int64(i), End: end, Size: 16 * int64(1+rng.IntN(8)), Align: 16})
		online = append(online, false)
	}
	if scratch {
		for k := range 1 + rng.IntN(3) {
			s := int64(rng.IntN(n))
			p.Buffers = append(p.Buffers, model.Buffer{ID: fmt.Sprintf("s%d", k), Start: s, End: s + 1, Size: 16 * int64(1+rng.IntN(6)), Align: 16, Kind: model.Scratch})
			online = append(online, true)
		}
	}
	m := Model{Name: name, Problem: p}
	if scratch {
		m.Online = online
	}
	return m
}

// TestRandomCombinationsTFLM: random models, random schedules: every plan
// SolveTFLM returns passes the verifier on the combined problem, each
// model's part is what the runtime makes of its offline buffers, its peak
// is at least the bound, and it is never above TFLite Micro's own planner
// (serial: every model from the arena's start; concurrent: kept apart).
func TestRandomCombinationsTFLM(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 1))
	for trial := range 120 {
		n := 2 + rng.IntN(3)
		var ms []Model
		scratched := 0
		for k := range n {
			sc := rng.IntN(2) == 0
			ms = append(ms, randModel(rng, fmt.Sprintf("m%d", k), sc))
			if sc {
				scratched++
			}
		}
		sched := Serial(n)
		kind := "serial"
		if rng.IntN(3) == 0 {
			sched, kind = Concurrent(n), "concurrent"
		}
		c, err := Combine(ms, sched, Options{})
		require.NoError(t, err)
		res, out, err := SolveTFLM(context.Background(), c, solve.Options{Threads: 1, TimeLimit: 2 * time.Second})
		if kind == "concurrent" && scratched > 1 && err != nil {
			assert.Contains(t, err.Error(), "kernel scratch", "trial %d", trial)
			continue
		}
		require.NoError(t, err, "trial %d", trial)
		require.Empty(t, verify.Check(c.Problem, res.Plan), "trial %d (%s)", trial, kind)
		assert.GreaterOrEqual(t, res.Peak, res.LowerBound)
		assert.Equal(t, out.Head, res.Peak)
		for k, part := range c.Split(res.Plan) {
			m := c.Models[k]
			assert.Equal(t, out.ModelHeads[k], part.Peak(m.Problem))
			assert.LessOrEqual(t, out.ModelHeads[k], out.Head)
		}
		if kind == "serial" {
			assert.LessOrEqual(t, out.Head, out.OwnShared, "trial %d: above TFLite Micro's own", trial)
		} else if scratched <= 1 {
			assert.LessOrEqual(t, out.Head, out.OwnSafe, "trial %d: above TFLite Micro's own, kept apart", trial)
		}
	}
}

// TestSolveNeverAboveStacked: concurrent random models are never planned
// above each model's own optimum stacked (aligned), and every plan passes
// the verifier.
func TestSolveNeverAboveStacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 43))
	for trial := range 30 {
		n := 2 + rng.IntN(2)
		var ms []Model
		var stacked int64
		for k := range n {
			m := randModel(rng, fmt.Sprintf("m%d", k), false)
			for i := range m.Problem.Buffers {
				m.Problem.Buffers[i].Align = 64
			}
			ms = append(ms, m)
			peak, _ := solvePeak(t, m.Problem)
			stacked = (stacked+63)/64*64 + peak
		}
		c, err := Combine(ms, Concurrent(n), Options{})
		require.NoError(t, err)
		res, err := Solve(context.Background(), c, solve.Options{Threads: 1, TimeLimit: 2 * time.Second})
		require.NoError(t, err)
		require.Empty(t, verify.Check(c.Problem, res.Plan))
		assert.LessOrEqual(t, res.Peak, stacked, "trial %d", trial)
		assert.GreaterOrEqual(t, res.Peak, res.LowerBound)
	}
}
