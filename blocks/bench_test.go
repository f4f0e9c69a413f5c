package blocks_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/blocks"
	"github.com/optalloc/optalloc/model"
)

const sharedBench = "../../shared/benchmarks"

func loadCSV(t testing.TB, path string) *model.Problem {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	p, err := model.ReadCSV(f, filepath.Base(path))
	require.NoError(t, err)
	return p
}

// TestTraceTable prints total block bytes per planner on every shared trace
// (and MiniMalloc A..K). Set OPTALLOC_LONG=1 to run it; OPTALLOC_BLOCKS_LIMIT
// sets the exact engine's time limit (default 10s).
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
	fmt.Fprintf(&sb, "| instance | buffers | max-live bytes (offsets LB) | min blocks | level LB | %s | exact | status | exact time | nodes |\n",
		strings.Join(blocks.Heuristics, " | "))
	fmt.Fprintf(&sb, "|%s\n", strings.Repeat("---|", 10+len(blocks.Heuristics)-1))
	for _, f := range files {
		if strings.HasSuffix(f, ".plan.csv") {
			continue
		}
		p := loadCSV(t, f)
		r, err := blocks.Solve(context.Background(), p, blocks.Options{TimeLimit: limit})
		require.NoError(t, err)
		sw := p.ComputeSweep()
		fmt.Fprintf(&sb, "| %s | %d | %d | %d | %d |", filepath.Base(f), len(p.Buffers), sw.MaxLive, r.MinBlocks, r.LowerBound)
		for _, a := range r.Attempts {
			if a.Err != nil {
				fmt.Fprintf(&sb, " error |")
			} else if a.Method != "exact" {
				fmt.Fprintf(&sb, " %d (%d blk, %.2fs) |", a.TotalBytes, a.Blocks, a.Elapsed.Seconds())
			} else {
				fmt.Fprintf(&sb, " %d (%d blk) | %s | %.2fs | %d |", a.TotalBytes, a.Blocks, a.Status, a.Elapsed.Seconds(), r.Nodes)
			}
		}
		sb.WriteString("\n")
	}
	t.Log("\n" + sb.String())
}
