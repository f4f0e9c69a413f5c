package benchmarks

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
)

// TestPoolAlignment: every buffer aligned (a pool alignment, default 4096;
// OPTALLOC_ALIGN sets another) on MiniMalloc A–K and the traces, method
// auto, 10 s, with the sizes rounded up to the alignment (the default) and
// as they are (NoRound) — the README's table "Every buffer aligned". One
// line per instance and setting (OPTALLOC_INSTANCES=D,K restricts the
// instances to those of A–K named):
//
//	OPTALLOC_LONG=1 go test ./benchmarks -run TestPoolAlignment -v -timeout 30m
func TestPoolAlignment(t *testing.T) {
	issue6(t)
	align := int64(4096)
	if v := os.Getenv("OPTALLOC_ALIGN"); v != "" {
		a, err := strconv.ParseInt(v, 10, 64)
		require.NoError(t, err, "OPTALLOC_ALIGN")
		align = a
	}
	var files []string
	names := []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"}
	if v := os.Getenv("OPTALLOC_INSTANCES"); v != "" {
		names = strings.Split(v, ",")
	}
	for _, name := range names {
		files = append(files, mmFile(t, name))
	}
	traces, _ := filepath.Glob(filepath.Join(sharedDir, "traces", "*.csv"))
	for _, f := range traces {
		if !strings.HasSuffix(f, ".plan.csv") && os.Getenv("OPTALLOC_INSTANCES") == "" {
			files = append(files, f)
		}
	}
	for _, f := range files {
		for _, off := range []bool{false, true} {
			p, err := formats.Load(f)
			require.NoError(t, err)
			p.Pools = []model.Pool{{Name: model.DefaultPool, Align: align}}
			opt := solve.Options{Method: "auto", TimeLimit: 10 * time.Second, Seed: 1}
			opt.NoRound = off
			r, el := solveChecked(t, p, opt)
			require.NotNil(t, r.Plan)
			fmt.Printf("poolalign %d %s rounded=%v peak=%d lower_bound=%d gap=%.2f%% status=%s method=%s time=%.1fs\n",
				align, filepath.Base(f), !off, r.Peak, r.LowerBound, r.Gap(), r.Status, r.Method, el.Seconds())
		}
	}
}
