package blocks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/blocks"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/verify"
)

// replay executes a schedule step by step like a runtime: each block has a
// memory of its size where a taken buffer writes its id over its bytes; at
// every step the test checks that the bytes of every buffer still alive
// hold its own id, i.e. that no live tensor was overwritten.
func replay(t *testing.T, p *model.Problem, bp *blocks.BlockPlan, s *blocks.Schedule) {
	t.Helper()
	index := p.Index()
	mem := map[int][]string{}  // block -> owner id of each byte
	liveIn := map[int][]int{}  // block -> buffers written into it, not yet ended
	released := map[int]bool{} // block -> free
	retired := map[int]bool{}
	taken := map[string]bool{}
	for _, st := range s.Steps {
		for _, r := range st.Release {
			require.False(t, released[r.Block], "block %d released twice", r.Block)
			for _, i := range liveIn[r.Block] {
				require.LessOrEqual(t, p.Buffers[i].End, st.Time, "block %d released at %d while %s lives", r.Block, st.Time, p.Buffers[i].ID)
			}
			released[r.Block] = true
			liveIn[r.Block] = nil
		}
		for _, b := range st.Retire {
			require.True(t, released[b])
			retired[b] = true
		}
		for _, b := range st.New {
			_, exists := mem[b.ID]
			require.False(t, exists, "block %d created twice", b.ID)
			mem[b.ID] = make([]string, b.Size)
		}
		for _, tk := range st.Take {
			i := index[tk.Buffer]
			require.False(t, retired[tk.Block], "take of a retired block")
			require.Equal(t, bp.Assign[i], tk.Block)
			require.Equal(t, p.Buffers[i].Start, st.Time)
			m, ok := mem[tk.Block]
			require.True(t, ok, "block %d used before it is created", tk.Block)
			require.LessOrEqual(t, tk.Offset+tk.Size, int64(len(m)))
			for x := tk.Offset; x < tk.Offset+tk.Size; x++ {
				m[x] = tk.Buffer
			}
			released[tk.Block] = false
			liveIn[tk.Block] = append(liveIn[tk.Block], i)
			taken[tk.Buffer] = true
		}
		// Every buffer alive now still owns the bytes it wrote, unless an
		// alias relative (inside the same group) legitimately shares them.
		for k, ls := range liveIn {
			for _, i := range ls {
				b := &p.Buffers[i]
				if b.End <= st.Time {
					continue
				}
				owner := mem[k]
				for x := range owner {
					if owner[x] == "" || owner[x] == b.ID {
						continue
					}
					o := index[owner[x]]
					if p.Buffers[o].End <= st.Time {
						continue
					}
					require.True(t, sameGroup(p, index, o, i), "at %d block %d: %s overwrote live %s", st.Time, k, owner[x], b.ID)
				}
			}
		}
	}
	for i := range p.Buffers {
		if p.Buffers[i].Size > 0 {
			assert.True(t, taken[p.Buffers[i].ID], "buffer %s never taken", p.Buffers[i].ID)
		}
	}
	for k := range mem {
		assert.True(t, released[k], "block %d never released", k)
		assert.True(t, retired[k], "block %d never retired", k)
	}
}

func sameGroup(p *model.Problem, index map[string]int, a, b int) bool {
	ra, _ := p.Root(a, index)
	rb, _ := p.Root(b, index)
	return ra == rb
}

func TestScheduleReplay(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for iter := 0; iter < 120; iter++ {
		p := genProblem(r, genOpts{n: 1 + r.IntN(50), horizon: 5 + r.Int64N(40), maxSize: 1 + r.Int64N(64), aliases: 0.25, zeros: 0.05})
		for _, pl := range allPlanners(0) {
			if e, ok := pl.(*blocks.Exact); ok {
				e.TimeLimit = 20 * time.Millisecond
			}
			bp, err := pl.Plan(context.Background(), p)
			require.NoError(t, err)
			s, err := blocks.NewSchedule(p, bp)
			require.NoError(t, err)
			replay(t, p, bp, s)
			assert.Empty(t, s.Verify(p, bp), pl.Name())
			assert.Equal(t, bp.TotalBytes(), s.TotalBytes)
			if pl.Name() == "greedy_in_order" {
				assert.Zero(t, s.NewBlocksWhileFree, "greedy_in_order only creates a block when none is free")
			}
		}
	}
}

func TestScheduleVerifierCatchesTampering(t *testing.T) {
	p := &model.Problem{Buffers: []model.Buffer{
		{ID: "a", Start: 0, End: 2, Size: 8}, {ID: "b", Start: 1, End: 3, Size: 4}, {ID: "c", Start: 2, End: 4, Size: 6},
	}}
	res, err := blocks.Solve(context.Background(), p, blocks.Options{Method: "greedy_in_order"})
	require.NoError(t, err)
	s, err := blocks.NewSchedule(p, res.Plan)
	require.NoError(t, err)
	ev := s.Events()
	require.Empty(t, verify.BlockCheckSchedule(p, res.Plan.Sizes(), res.Plan.Assign, ev))
	kinds := func(ev []verify.BlockEvent) []verify.BlockKind {
		var ks []verify.BlockKind
		for _, v := range verify.BlockCheckSchedule(p, res.Plan.Sizes(), res.Plan.Assign, ev) {
			ks = append(ks, v.Kind)
		}
		return ks
	}
	// Drop the release of a's block: c then takes a held block.
	var noRelease []verify.BlockEvent
	for _, e := range ev {
		if !(e.Op == "release" && e.Buffer == "a") {
			noRelease = append(noRelease, e)
		}
	}
	assert.Contains(t, kinds(noRelease), verify.BlockLifecycle)
	// Send b into a's block: a is alive, so b overwrites it.
	var clash []verify.BlockEvent
	for _, e := range ev {
		if e.Op == "take" && e.Buffer == "b" {
			e.Block = res.Plan.Assign[0]
		}
		clash = append(clash, e)
	}
	assert.Contains(t, kinds(clash), verify.BlockOverwrite)
	// Reverse the events: out of order.
	rev := make([]verify.BlockEvent, len(ev))
	for i := range ev {
		rev[len(ev)-1-i] = ev[i]
	}
	assert.Contains(t, kinds(rev), verify.BlockOrder)
}

func TestScheduleWriters(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	p := genProblem(r, genOpts{n: 30, horizon: 20, maxSize: 100, aliases: 0.3, prefixes: []string{"m1", "m2"}})
	res, err := blocks.Solve(context.Background(), p, blocks.Options{TimeLimit: 100 * time.Millisecond})
	require.NoError(t, err)
	s, err := blocks.NewSchedule(p, res.Plan)
	require.NoError(t, err)

	var csvBuf bytes.Buffer
	require.NoError(t, blocks.WriteScheduleCSV(&csvBuf, s))
	lines := strings.Split(strings.TrimSpace(csvBuf.String()), "\n")
	assert.Equal(t, strings.Join(blocks.ScheduleCSVHeader, ","), lines[0])
	assert.Len(t, lines, 1+len(s.Events()))
	ev, err := blocks.ReadScheduleCSV(strings.NewReader(csvBuf.String()), "s.csv")
	require.NoError(t, err)
	assert.Equal(t, s.Events(), ev)
	assert.Empty(t, verify.BlockCheckSchedule(p, res.Plan.Sizes(), res.Plan.Assign, ev))
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		assert.Contains(t, []string{"m1", "m2"}, f[6], "every row names its model: %s", l)
	}

	var js bytes.Buffer
	require.NoError(t, blocks.WriteScheduleJSON(&js, s))
	var back blocks.Schedule
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	assert.Equal(t, *s, back)

	var plan bytes.Buffer
	require.NoError(t, blocks.WritePlanCSV(&plan, p, res.Plan))
	bp, err := blocks.ReadPlanCSV(strings.NewReader(plan.String()), "plan.csv", p)
	require.NoError(t, err)
	assert.Equal(t, res.Plan, bp)

	var rj bytes.Buffer
	require.NoError(t, blocks.WriteResultJSON(&rj, p, res))
	var m map[string]any
	require.NoError(t, json.Unmarshal(rj.Bytes(), &m))
	assert.Equal(t, "blocks", m["layout"])
	assert.EqualValues(t, res.TotalBytes, m["total_bytes"])
	assert.Contains(t, res.Summary(), "status=")

	_, err = blocks.ReadScheduleCSV(strings.NewReader("time,op\n1,new\n"), "x.csv")
	assert.ErrorContains(t, err, "missing column block")
	_, err = blocks.ReadScheduleCSV(strings.NewReader("time,op,block\nx,new,0\n"), "x.csv")
	assert.ErrorContains(t, err, "x.csv:2")
	_, err = blocks.ReadPlanCSV(strings.NewReader("id,block,block_size\nnope,0,1\n"), "p.csv", p)
	assert.ErrorContains(t, err, `"nope"`)
}

func TestTwoModelsShareOnePool(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	ctx := context.Background()
	for iter := 0; iter < 10; iter++ {
		p := serialProblem(r, []string{"encoder", "decoder"}, 12, 20, 1000)
		shared, err := blocks.Solve(ctx, p, blocks.Options{TimeLimit: 200 * time.Millisecond})
		require.NoError(t, err)
		var separate int64
		for _, m := range []string{"encoder", "decoder"} {
			sub := &model.Problem{Name: m}
			for _, b := range p.Buffers {
				if blocks.ModelOf(b.ID) == m {
					sub.Buffers = append(sub.Buffers, b)
				}
			}
			res, err := blocks.Solve(ctx, sub, blocks.Options{TimeLimit: 200 * time.Millisecond})
			require.NoError(t, err)
			separate += res.TotalBytes
		}
		assert.Less(t, shared.TotalBytes, separate, "one pool for serial models is smaller than two")

		s, err := blocks.NewSchedule(p, shared.Plan)
		require.NoError(t, err)
		require.Len(t, s.Models, 2)
		assert.Equal(t, "encoder", s.Models[0].Model)
		assert.Equal(t, "decoder", s.Models[1].Model)
		assert.Empty(t, s.Models[0].Reused)
		assert.NotEmpty(t, s.Models[1].Reused, "the second model reuses the first one's blocks")
		var takes int
		for _, v := range s.Models {
			for _, st := range v.Steps {
				for _, tk := range st.Take {
					assert.Equal(t, v.Model, blocks.ModelOf(tk.Buffer))
					takes++
				}
			}
		}
		assert.Equal(t, len(p.Buffers), takes)
		replay(t, p, shared.Plan, s)
	}
}
