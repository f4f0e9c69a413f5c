package blocks_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/blocks"
	"github.com/optalloc/optalloc/formats/csv"
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
)

const sharedBench = "../../shared/benchmarks"

func loadCSV(t testing.TB, path string) *model.Problem {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	p, err := csv.Read(f, filepath.Base(path))
	require.NoError(t, err)
	return p
}

// TestTraceTable prints total block bytes per planner on every shared trace
// (and MiniMalloc A..K), with the median time of OPTALLOC_BLOCKS_RUNS runs
// (default 3; bytes that differ between runs are listed "a/b"). Set
// OPTALLOC_LONG=1 to run it; OPTALLOC_BLOCKS_LIMIT sets the time limit
// (default 10s).
func TestTraceTable(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 to measure the block planners on the shared traces")
	}
	if _, err := os.Stat(sharedBench); err != nil {
		t.Skipf("shared benchmarks not found at %s: %v", sharedBench, err)
	}
	limit := 10 * time.Second
	if s := os.Getenv("OPTALLOC_BLOCKS_LIMIT"); s != "" {
		d, err := time.ParseDuration(s)
		require.NoError(t, err)
		limit = d
	}
	files, _ := filepath.Glob(filepath.Join(sharedBench, "traces", "*.csv"))
	mm, _ := filepath.Glob(filepath.Join(sharedBench, "minimalloc", "[A-K].*.csv"))
	files = append(files, mm...)
	var sb strings.Builder
	fmt.Fprintf(&sb, "| instance | buffers | max-live (offsets LB) | offsets peak (greedy-size) | min blocks | level LB | %s | exact | status | exact time | nodes |\n",
		strings.Join(blocks.Heuristics, " | "))
	fmt.Fprintf(&sb, "|%s\n", strings.Repeat("---|", 11+len(blocks.Heuristics)-1))
	offsets, ok := heuristics.ByName("greedy-size")
	require.True(t, ok, "heuristics greedy-size")
	runs := 3
	if s := os.Getenv("OPTALLOC_BLOCKS_RUNS"); s != "" {
		_, err := fmt.Sscan(s, &runs)
		require.NoError(t, err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".plan.csv") {
			continue
		}
		p := loadCSV(t, f)
		var all []*blocks.Result
		for k := 0; k < runs; k++ {
			r, err := blocks.Solve(context.Background(), p, blocks.Options{TimeLimit: limit})
			require.NoError(t, err)
			all = append(all, r)
		}
		r := all[0]
		sw := p.ComputeSweep()
		var peak int64
		if op, err := offsets.Plan(context.Background(), p); err == nil {
			peak = op.Peak(p)
		}
		fmt.Fprintf(&sb, "| %s | %d | %d | %d | %d | %d |", filepath.Base(f), len(p.Buffers), sw.MaxLive, peak, r.MinBlocks, r.LowerBound)
		for x, a := range r.Attempts {
			var times []time.Duration
			var bytes []string
			for _, o := range all {
				times = append(times, o.Attempts[x].Elapsed)
				if b := fmt.Sprint(o.Attempts[x].TotalBytes); !slices.Contains(bytes, b) {
					bytes = append(bytes, b)
				}
			}
			slices.Sort(times)
			med := times[len(times)/2].Seconds()
			switch {
			case a.Err != nil:
				fmt.Fprintf(&sb, " – (%s) |", shortErr(a.Err))
			case a.Method != "exact":
				fmt.Fprintf(&sb, " %s (%d blk, %.2fs) |", strings.Join(bytes, "/"), a.Blocks, med)
			default:
				var st []string
				for _, o := range all {
					if s := string(o.Status); !slices.Contains(st, s) {
						st = append(st, s)
					}
				}
				fmt.Fprintf(&sb, " %s (%d blk) | %s | %.2fs | %d |", strings.Join(bytes, "/"), a.Blocks, strings.Join(st, "/"), med, r.Nodes)
			}
		}
		sb.WriteString("\n")
	}
	t.Log("\n" + sb.String())
}

// TestExactScaling measures up to which size the exact engine proves
// optimality (random instances, 10 per size; time limit per instance from
// OPTALLOC_BLOCKS_LIMIT, default 10s) and the effect of each pruning switch
// on 40-unit instances. Set OPTALLOC_LONG=1 to run it.
func TestExactScaling(t *testing.T) {
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 to measure the exact engine's reach")
	}
	limit := 10 * time.Second
	if s := os.Getenv("OPTALLOC_BLOCKS_LIMIT"); s != "" {
		d, err := time.ParseDuration(s)
		require.NoError(t, err)
		limit = d
	}
	sizes := []int{10, 20, 30, 40, 60, 80, 120, 160}
	variants := []struct {
		name string
		e    blocks.Exact
	}{
		{"all on", blocks.Exact{}},
		{"NoDominance", blocks.Exact{NoDominance: true}},
		{"NoForcedBound", blocks.Exact{NoForcedBound: true}},
		{"NoMemo", blocks.Exact{NoMemo: true}},
		{"NoGapDedup", blocks.Exact{NoGapDedup: true}},
		{"NoFreeSlots", blocks.Exact{NoFreeSlots: true}},
		{"NoLevelBound", blocks.Exact{NoLevelBound: true}},
	}
	var sb strings.Builder
	sb.WriteString("| units | engine | instances | proven optimal | median time | max time | median nodes | mean gap when not proven |\n|---|---|---|---|---|---|---|---|\n")
	for _, n := range sizes {
		for vi, v := range variants {
			if vi > 0 && n != 40 {
				continue
			}
			r := rand.New(rand.NewPCG(uint64(n), 99))
			const count = 10
			var times []time.Duration
			var nodes []int64
			proven := 0
			var gapSum float64
			for k := 0; k < count; k++ {
				p := genProblem(r, genOpts{n: n, horizon: int64(2 * n), maxSize: 1 << 16})
				e := v.e
				e.TimeLimit = limit
				t0 := time.Now()
				res, err := e.Solve(context.Background(), p, nil)
				require.NoError(t, err)
				times = append(times, time.Since(t0))
				nodes = append(nodes, res.Nodes)
				if res.Status == blocks.Optimal {
					proven++
				} else {
					gapSum += float64(res.TotalBytes)/float64(res.LowerBound) - 1
				}
			}
			slices.Sort(times)
			slices.Sort(nodes)
			gap := "-"
			if proven < count {
				gap = fmt.Sprintf("%.2f%%", 100*gapSum/float64(count-proven))
			}
			fmt.Fprintf(&sb, "| %d | %s | %d | %d | %.3fs | %.3fs | %d | %s |\n", n, v.name, count, proven,
				times[count/2].Seconds(), times[count-1].Seconds(), nodes[count/2], gap)
		}
	}
	t.Log("\n" + sb.String())
}

func shortErr(err error) string {
	s := err.Error()
	switch {
	case strings.Contains(s, "deadline"):
		return "time limit"
	case strings.Contains(s, "skipped"):
		return "skipped in auto"
	}
	return s
}
