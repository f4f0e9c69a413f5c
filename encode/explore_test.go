package encode

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/optalloc/optalloc/model"
)

func TestExploreWindows(t *testing.T) {
	name := os.Getenv("OPTALLOC_EXPLORE")
	if name == "" {
		t.Skip("set OPTALLOC_EXPLORE=D (or J)")
	}
	p, err := model.Load("../../shared/benchmarks/minimalloc/" + name + ".1048576.csv")
	if err != nil {
		t.Fatal(err)
	}
	in, _ := newInstance(p)
	s := in.positive()
	secs := sections(s.items, seq(len(s.items)))
	var M int64
	c := 0
	for k, x := range secs {
		if x.load > M {
			M, c = x.load, k
		}
	}
	t.Logf("g=%d M=%d sections=%d center=%d", in.g, M, len(secs), c)
	var spec [][2]int
	for _, f := range strings.Split(os.Getenv("OPTALLOC_W"), ";") {
		var a, b int
		if _, err := fmt.Sscanf(f, "%d,%d", &a, &b); err == nil {
			spec = append(spec, [2]int{a, b})
		}
	}
	var opt Options
	opt.NoSlackCover = os.Getenv("OPTALLOC_NOSLACK") != ""
	opt.MaxClauses = 20_000_000
	if v := os.Getenv("OPTALLOC_C"); v != "" {
		fmt.Sscan(v, &c)
	}
	for _, w := range spec {
		a, b := max(c-w[0], 0), min(c+w[1], len(secs)-1)
		win := window{a: a, b: b, t0: secs[a].start, t1: secs[b].end}
		items, g2 := rescale(windowItems(s.items, win))
		h := M / g2
		start := time.Now()
		e, inf, ref := newEncoder(items, h, opt)
		if inf || ref != "" {
			t.Logf("window %d..%d: %d items inf=%v %s", a, b, len(items), inf, ref)
			continue
		}
		build := time.Since(start)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		r := e.solve(ctx, e.height(h))
		cancel()
		t.Logf("window %d..%d [%d,%d): %d items g2=%d vars=%d clauses=%d build=%v res=%d time=%v conflicts=%d",
			a, b, win.t0, win.t1, len(items), g2, e.vars, e.clauses, build, r, time.Since(start), e.conflicts)
	}
}

func TestExploreProve(t *testing.T) {
	name := os.Getenv("OPTALLOC_PROVE")
	if name == "" {
		t.Skip("set OPTALLOC_PROVE=D (or J)")
	}
	p, err := model.Load("../../shared/benchmarks/minimalloc/" + name + ".1048576.csv")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	lb, how, st, err := ProveLowerBound(ctx, p, Options{WindowBuffers: 70, WindowTime: 3 * time.Second})
	t.Logf("%s: lb=%d how=%s stats=%+v err=%v time=%v", name, lb, how, st, err, time.Since(start))
}
