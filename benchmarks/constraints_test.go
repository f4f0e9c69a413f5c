package benchmarks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
	_ "github.com/optalloc/optalloc/formats/graph" // .graph.json inputs
	"github.com/optalloc/optalloc/heuristics"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

// The issue-6 "done when" measurements. They run only with OPTALLOC_LONG=1
// (each solve takes up to a minute) and print one line per case:
//
//	OPTALLOC_LONG=1 go test ./benchmarks -run TestIssue6 -v -timeout 30m

const sharedDir = "../../shared/benchmarks"

func issue6(t *testing.T) {
	t.Helper()
	if os.Getenv("OPTALLOC_LONG") == "" {
		t.Skip("set OPTALLOC_LONG=1 to run the issue-6 measurements")
	}
}

func mmFile(t *testing.T, name string) string {
	t.Helper()
	f := filepath.Join(sharedDir, "minimalloc", name+".1048576.csv")
	if _, err := os.Stat(f); err != nil {
		t.Skipf("benchmark data not found at %s (shared/benchmarks is needed)", f)
	}
	return f
}

// solveChecked runs solve.Solve and checks the plan with verify.Check.
func solveChecked(t *testing.T, p *model.Problem, opt solve.Options) (*solve.Result, time.Duration) {
	t.Helper()
	return solveCtx(t, context.Background(), p, opt)
}

func solveCtx(t *testing.T, ctx context.Context, p *model.Problem, opt solve.Options) (*solve.Result, time.Duration) {
	t.Helper()
	t0 := time.Now()
	r, err := solve.Solve(ctx, p, opt)
	el := time.Since(t0)
	require.NoError(t, err)
	if r.Plan != nil {
		require.Empty(t, verify.Check(p, r.Plan), "%s: the plan does not verify", p.Name)
	}
	return r, el
}

// TestIssue6Alignment: alignment 65536 on every buffer of at least 64 KiB
// of MiniMalloc C, G and K, method auto, 60 s.
func TestIssue6Alignment(t *testing.T) {
	issue6(t)
	for _, name := range []string{"C", "G", "K"} {
		p, err := formats.Load(mmFile(t, name))
		require.NoError(t, err)
		n := 0
		for i := range p.Buffers {
			if p.Buffers[i].Size >= 65536 {
				p.Buffers[i].Align = 65536
				n++
			}
		}
		r, el := solveChecked(t, p, solve.Options{Method: "auto", TimeLimit: 60 * time.Second, Seed: 1})
		require.NotNil(t, r.Plan)
		fmt.Printf("issue6 align65536 %s aligned=%d/%d peak=%d lower_bound=%d gap=%.2f%% status=%s method=%s time=%.1fs\n",
			name, n, len(p.Buffers), r.Peak, r.LowerBound, r.Gap(), r.Status, r.Method, el.Seconds())
	}
}

// TestIssue6Pins: a verified plan of each of A..K (auto, 30 s); every 5th
// buffer (by position) pinned at its offset; solved again with capacity =
// that plan's peak, and with 1048576 when the plan is below it. Every pin
// must be kept. OPTALLOC_INSTANCES=J,K restricts the instances.
func TestIssue6Pins(t *testing.T) {
	issue6(t)
	names := []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"}
	if v := os.Getenv("OPTALLOC_INSTANCES"); v != "" {
		names = strings.Split(v, ",")
	}
	for _, name := range names {
		f := mmFile(t, name)
		p, err := formats.Load(f)
		require.NoError(t, err)
		r, _ := solveChecked(t, p, solve.Options{Method: "auto", TimeLimit: 30 * time.Second, Seed: 1})
		require.NotNil(t, r.Plan)
		caps := []int64{r.Peak}
		if r.Peak < 1048576 {
			caps = append(caps, 1048576)
		}
		for _, c := range caps {
			q, err := formats.Load(f)
			require.NoError(t, err)
			pins := 0
			for i := range q.Buffers {
				if i%5 == 0 {
					o := r.Plan.Placements[i].Offset
					q.Buffers[i].Pin = &o
					pins++
				}
			}
			got, el := solveChecked(t, q, solve.Options{Method: "auto", Capacity: c, TimeLimit: 30 * time.Second, Seed: 1})
			kept := 0
			if got.Plan != nil {
				for i := range q.Buffers {
					if q.Buffers[i].Pin != nil && got.Plan.Placements[i].Offset == *q.Buffers[i].Pin {
						kept++
					}
				}
				require.Equal(t, pins, kept, "%s: every pin must be kept", name)
			}
			fmt.Printf("issue6 pins %s first_peak=%d pinned=%d/%d capacity=%d peak=%d lower_bound=%d status=%s kept=%d method=%s time=%.1fs\n",
				name, r.Peak, pins, len(q.Buffers), c, got.Peak, got.LowerBound, got.Status, kept, got.Method, el.Seconds())
		}
	}
}

// TestIssue6TwoPools: tiny-cnn with a small fast pool (a quarter of its
// single-pool peak) and an unbounded slow pool: the spill and the peak of
// each pool.
func TestIssue6TwoPools(t *testing.T) {
	issue6(t)
	p, err := formats.Load("../examples/tiny-cnn.csv")
	require.NoError(t, err)
	one, _ := solveChecked(t, p, solve.Options{Method: "auto", TimeLimit: 10 * time.Second, Seed: 1})
	for _, frac := range []int64{4, 2} {
		q, err := formats.Load("../examples/tiny-cnn.csv")
		require.NoError(t, err)
		fast := one.Peak / frac
		q.Pools = []model.Pool{{Name: "sram", Capacity: fast, Rank: 0}, {Name: "dram", Rank: 1}}
		r, el := solveChecked(t, q, solve.Options{Method: "auto", TimeLimit: 10 * time.Second, Seed: 1})
		require.NotNil(t, r.Plan)
		peaks := r.Plan.PoolPeaks(q)
		var n [2]int
		var bytes [2]int64
		for i, pl := range r.Plan.Placements {
			n[pl.Pool]++
			bytes[pl.Pool] += q.Buffers[i].Size
		}
		fmt.Printf("issue6 two-pools tiny-cnn single_pool_peak=%d sram_capacity=%d sram: buffers=%d bytes=%d peak=%d | dram (spill): buffers=%d bytes=%d peak=%d status=%s time=%.1fs\n",
			one.Peak, fast, n[0], bytes[0], peaks[0], n[1], bytes[1], peaks[1], r.Status, el.Seconds())
	}
}

// TestIssue6Occupancy: UNet (zero-copy skip concats) and two models run
// concurrently (a product timeline expressed with gaps): peak and lower
// bound with greedy-size, the heuristic portfolio and auto, with exact
// footprints ("exact") and with every alias group and gapped buffer
// reserved as its bounding rectangle ("bounding", the behaviour before,
// through heuristics.BoundingRectangles).
func TestIssue6Occupancy(t *testing.T) {
	issue6(t)
	two, err := os.ReadFile("../examples/two-models-shared-weights.graph.json")
	require.NoError(t, err)
	conc := bytes.Replace(two, []byte(`"schedule": "serial"`), []byte(`"schedule": "concurrent"`), 1)
	require.NotEqual(t, two, conc, "the example's schedule line changed")
	unet, err := os.ReadFile("../examples/unet.graph.json")
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		data []byte
	}{{"unet", unet}, {"two-models-concurrent", conc}, {"two-models-serial", two}} {
		for _, m := range []struct {
			method string
			limit  time.Duration
		}{{"greedy-size", 0}, {"heuristic", 60 * time.Second}, {"auto", 30 * time.Second}} {
			for _, mode := range []string{"bounding", "exact"} {
				p, err := formats.LoadBytes(c.data, c.name+".graph.json")
				require.NoError(t, err)
				ctx := context.Background()
				if mode == "bounding" {
					ctx = heuristics.BoundingRectangles(ctx)
				}
				r, el := solveCtx(t, ctx, p, solve.Options{Method: m.method, TimeLimit: m.limit, Seed: 1})
				require.NotNil(t, r.Plan)
				fmt.Printf("issue6 occupancy %s buffers=%d method=%s footprints=%s peak=%d lower_bound=%d gap=%.2f%% status=%s winner=%s time=%.1fs\n",
					c.name, len(p.Buffers), m.method, mode, r.Peak, r.LowerBound, r.Gap(), r.Status, r.Method, el.Seconds())
			}
		}
	}
}
