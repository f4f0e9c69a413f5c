package executorch_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	etdevice "github.com/optalloc/optalloc/device/executorch"
	etfmt "github.com/optalloc/optalloc/formats/executorch"
	"github.com/optalloc/optalloc/solve"
)

// plan reads a specs file, plans it as the front door does (Runtime.Solve
// with 1 thread) and returns the file, ExecuTorch's figures of the plan
// and of ExecuTorch's greedy alone.
func plan(t *testing.T, text string) (*etfmt.File, *etfmt.Plan, *etfmt.Plan) {
	t.Helper()
	f, err := etfmt.Read(strings.NewReader(text), "specs.json")
	require.NoError(t, err)
	rt := etdevice.New(f)
	p := rt.Arena.Problem
	res, _, err := rt.Solve(context.Background(), p, solve.Options{TimeLimit: 2 * time.Second, Threads: 1, Seed: 1})
	require.NoError(t, err)
	require.NotNil(t, res.Plan)
	got, err := rt.Placements(p, res.Plan)
	require.NoError(t, err)
	own, err := rt.Own(context.Background(), p)
	require.NoError(t, err)
	greedy, err := rt.Placements(p, own)
	require.NoError(t, err)
	check(t, f, got)
	check(t, f, greedy)
	f.Plan = got
	assert.Empty(t, etdevice.Check(f), "the library's own check agrees")
	f.Plan = nil
	return f, got, greedy
}

// check is an independent check of ExecuTorch's rules on a plan: bufsizes
// cover every spec above input_mem_buffer_sizes, views sit in their base,
// two specs live together in one mem_id never share a byte unless they
// share a storage base, and overlapping bytes share a mem_obj_id.
func check(t *testing.T, f *etfmt.File, pl *etfmt.Plan) {
	t.Helper()
	require.Len(t, pl.Specs, len(f.Specs))
	require.GreaterOrEqual(t, len(pl.BufSizes), 2)
	assert.Zero(t, pl.BufSizes[0], "bufsizes[0]")
	root := func(i int) int {
		for f.Specs[i].Base >= 0 {
			i = f.Specs[i].Base
		}
		return i
	}
	for i, s := range f.Specs {
		a := pl.Specs[i]
		assert.Equal(t, f.Specs[root(i)].MemID, a.MemID, "spec %s: its root's mem_id", s.ID)
		var base int64
		if int64(len(f.InputMemBufferSizes)) > a.MemID {
			base = f.InputMemBufferSizes[a.MemID]
		}
		assert.GreaterOrEqual(t, a.MemOffset, base, "spec %s above input_mem_buffer_sizes", s.ID)
		assert.LessOrEqual(t, a.MemOffset+s.Size+f.ExtraPadding, pl.BufSizes[a.MemID], "spec %s inside bufsizes", s.ID)
		if s.Base >= 0 {
			b := pl.Specs[s.Base]
			assert.Equal(t, b.MemOffset+s.BaseOffset, a.MemOffset, "view %s at its base's offset", s.ID)
			assert.Equal(t, b.MemObjID, a.MemObjID, "view %s in its base's mem_obj_id", s.ID)
		} else {
			assert.Zero(t, (a.MemOffset-base)%f.Alignment, "spec %s aligned", s.ID)
		}
	}
	for i, s := range f.Specs {
		for j := i + 1; j < len(f.Specs); j++ {
			u, a, b := f.Specs[j], pl.Specs[i], pl.Specs[j]
			if a.MemID != b.MemID || s.Size == 0 || u.Size == 0 {
				continue
			}
			if a.MemOffset >= b.MemOffset+u.Size || b.MemOffset >= a.MemOffset+s.Size {
				continue
			}
			assert.Equal(t, a.MemObjID, b.MemObjID, "%s and %s share bytes: one mem_obj_id", s.ID, u.ID)
			if root(i) != root(j) {
				assert.True(t, s.Last < u.First || u.Last < s.First, "%s and %s share bytes while both live", s.ID, u.ID)
			}
		}
	}
}

func total(v []int64) (t int64) {
	for _, x := range v {
		t += x
	}
	return t
}

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name     string
		specs    string
		bufsizes []int64
		more     func(t *testing.T, f *etfmt.File, pl *etfmt.Plan)
	}{
		{"no specs: bufsizes [0, 0], as ExecuTorch's greedy", `{"executorch": {"specs": []}}`, []int64{0, 0}, nil},
		{"sizes are realigned; inclusive lifetimes [0,1] and [1,2] meet at 1", `{"executorch": {"alignment": 16, "specs": [
			{"id": "a", "size": 10, "lifetime": [0, 1]}, {"id": "b", "size": 20, "lifetime": [1, 2]}, {"id": "c", "size": 16, "lifetime": [2, 3]}]}}`,
			[]int64{0, 48}, func(t *testing.T, f *etfmt.File, pl *etfmt.Plan) {
				assert.Equal(t, []int64{16, 32, 16}, []int64{f.Specs[0].Size, f.Specs[1].Size, f.Specs[2].Size})
			}},
		{"input_mem_buffer_sizes and extra_padding", `{"executorch": {"alignment": 16, "extra_padding": 8, "input_mem_buffer_sizes": [0, 64],
			"specs": [{"id": "a", "size": 16, "lifetime": [0, 1]}, {"id": "b", "size": 32, "lifetime": [1, 2], "mem_id": 1}]}}`,
			[]int64{0, 64 + 48 + 8}, nil},
		{"one plan per mem_id; an unused mem_id between keeps 0", `{"executorch": {"specs": [
			{"id": "a", "size": 100, "lifetime": [0, 5], "mem_id": 3}, {"id": "b", "size": 50, "lifetime": [0, 5]}]}}`,
			[]int64{0, 50, 0, 100}, nil},
		{"overlapping bytes share a mem_obj_id, apart ones do not", `{"executorch": {"specs": [
			{"id": "a", "size": 64, "lifetime": [0, 0]}, {"id": "b", "size": 32, "lifetime": [1, 1]},
			{"id": "c", "size": 32, "lifetime": [1, 1]}, {"id": "d", "size": 64, "lifetime": [0, 1]}]}}`,
			[]int64{0, 128}, func(t *testing.T, f *etfmt.File, pl *etfmt.Plan) {
				ids := map[int64]bool{}
				for _, s := range pl.Specs {
					ids[s.MemObjID] = true
				}
				assert.Len(t, ids, 2, "a with b and c; d apart")
				assert.NotEqual(t, pl.Specs[0].MemObjID, pl.Specs[3].MemObjID)
			}},
		{"a view takes its base's place; the base lives over the view's lifetime", `{"executorch": {"alignment": 16, "specs": [
			{"id": "base", "size": 256, "lifetime": [2, 4]}, {"id": "v", "size": 64, "lifetime": [5, 7], "storage_base": "base", "storage_base_offset": 128},
			{"id": "other", "size": 256, "lifetime": [5, 6]}, {"id": "vv", "size": 16, "lifetime": [8, 8], "storage_base": "v", "storage_base_offset": 16, "mem_id": 2}]}}`,
			[]int64{0, 512}, func(t *testing.T, f *etfmt.File, pl *etfmt.Plan) {
				assert.Equal(t, pl.Specs[0].MemOffset+128+16, pl.Specs[3].MemOffset, "a view of a view")
				assert.Equal(t, int64(1), pl.Specs[3].MemID, "a view's own mem_id gives way to its base's")
			}},
		{"zero-byte specs get mem_obj_ids of their own", `{"executorch": {"specs": [
			{"id": "z", "size": 0, "lifetime": [0, 9]}, {"id": "a", "size": 8, "lifetime": [0, 9]}]}}`,
			[]int64{0, 8}, func(t *testing.T, f *etfmt.File, pl *etfmt.Plan) {
				assert.NotEqual(t, pl.Specs[0].MemObjID, pl.Specs[1].MemObjID)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, got, _ := plan(t, tc.specs)
			assert.Equal(t, tc.bufsizes, got.BufSizes)
			if tc.more != nil {
				tc.more(t, f, got)
			}
		})
	}
}

// TestGreedyFallbackNeverWorse: the shared-objects greedy is beaten on a
// case where it opens a second object, and is never beaten the other way.
func TestGreedyFallbackNeverWorse(t *testing.T) {
	_, got, greedy := plan(t, `{"executorch": {"specs": [
		{"id": "big", "size": 64, "lifetime": [0, 0]}, {"id": "h1", "size": 40, "lifetime": [1, 1]},
		{"id": "h2", "size": 24, "lifetime": [1, 1]}, {"id": "x", "size": 40, "lifetime": [2, 2]}, {"id": "y", "size": 40, "lifetime": [2, 2]}]}}`)
	assert.Equal(t, []int64{0, 80}, got.BufSizes)
	assert.Equal(t, []int64{0, 104}, greedy.BufSizes, "ExecuTorch's greedy: objects of 64 and 40")
}

// TestGreedyIsExecuTorchs mirrors pick_shared_obj's cases by hand: a free
// object at offset 0, above the live allocations inside an object, a new
// object when neither fits.
func TestGreedyIsExecuTorchs(t *testing.T) {
	f, err := etfmt.Read(strings.NewReader(`{"executorch": {"specs": [
		{"id": "a", "size": 100, "lifetime": [0, 1]}, {"id": "b", "size": 60, "lifetime": [2, 3]},
		{"id": "c", "size": 40, "lifetime": [2, 3]}, {"id": "d", "size": 50, "lifetime": [0, 3]}]}}`), "g.json")
	require.NoError(t, err)
	p := etdevice.New(f).Arena.Problem
	offs, size := etdevice.Greedy(p, []int{0, 1, 2, 3})
	// a: object 0; b: object 0 at 0 (a is not live with it); d: meets a
	// (a is live with it), above them at 100 it does not fit → object 1; c: above b
	// in object 0 (60+40 ≤ 100).
	assert.Equal(t, []int64{0, 0, 60, 100}, offs)
	assert.Equal(t, int64(150), size)
}

// TestProperty: random specs (views, mem_ids, inputs, padding), every plan
// checked by check and never above ExecuTorch's greedy in any mem_id.
func TestProperty(t *testing.T) {
	planned := 0
	for seed := int64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		n := 1 + rng.Intn(25)
		var b strings.Builder
		fmt.Fprintf(&b, `{"executorch": {"alignment": %d, "extra_padding": %d, "input_mem_buffer_sizes": [0, %d, %d], "specs": [`,
			[]int{1, 16, 64}[rng.Intn(3)], rng.Intn(2)*32, rng.Intn(3)*64, rng.Intn(2)*128)
		sizes := make([]int, n)
		for i := range n {
			first := rng.Intn(20)
			sizes[i] = []int{0, 1 + rng.Intn(5000)}[min(rng.Intn(8), 1)]
			if i > 0 {
				b.WriteString(",")
			}
			view := ""
			if j := rng.Intn(i + 1); i > 0 && j < i && rng.Intn(4) == 0 && sizes[j] > 0 {
				sizes[i] = rng.Intn(sizes[j] + 1)
				view = fmt.Sprintf(`, "storage_base": "s%d", "storage_base_offset": %d`, j, rng.Intn(sizes[j]-sizes[i]+1))
			}
			mem := []string{"null", "1", "2", "4"}[rng.Intn(4)]
			fmt.Fprintf(&b, `{"id": "s%d", "size": %d, "lifetime": [%d, %d], "mem_id": %s%s}`, i, sizes[i], first, first+rng.Intn(8), mem, view)
		}
		b.WriteString("]}}")
		text := b.String()
		if _, err := etfmt.Read(strings.NewReader(text), "p.json"); err != nil { // a view whose base was realigned smaller than asked: not a case here
			require.Contains(t, err.Error(), "storage_base", text)
			continue
		}
		_, got, greedy := plan(t, text)
		for k := range got.BufSizes {
			assert.LessOrEqual(t, got.BufSizes[k], greedy.BufSizes[k], "seed %d mem_id %d: %s", seed, k, text)
		}
		assert.LessOrEqual(t, total(got.BufSizes), total(greedy.BufSizes))
		planned++
	}
	assert.Greater(t, planned, 30, "most random files are valid")
}
