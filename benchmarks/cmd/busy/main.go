// Command busy plans problems beside a CPU-bound load it starts itself, and
// prints what each solve gave and the wall and CPU time it took: the
// benchmark of issue 44 item 1 (a loaded machine gets the same answer
// later, not a worse one; solve/cpuclock.go).
//
// Usage (from the repository root):
//
//	go run ./benchmarks/cmd/busy [-load 10] [-time-limit 10s] [-runs 3] [FILE...]
//
// The load is -load copies of this program, each spinning on one core
// until the runs end (or -spin-max, or its parent is gone). The files
// default to PanGu-α 2.6B (../shared/benchmarks/traces/
// mindspore-pangu_2.6B.csv); any problem file formats.Load reads (CSV,
// JSON problems; not model graphs). Each run is a solve.Solve with the default
// method and -time-limit, in this process; its CPU time is this process's
// (getrusage), so the load is not counted. With -want-optimal the command
// exits 1 when a run is not proven optimal.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/optalloc/optalloc/formats"
	"github.com/optalloc/optalloc/internal/measure"
	"github.com/optalloc/optalloc/solve"
)

// spinEnv marks a child that only spins (the load).
const spinEnv = "OPTALLOC_BUSY_SPIN"

func main() {
	if os.Getenv(spinEnv) != "" {
		spin()
		return
	}
	load := flag.Int("load", 10, "processes spinning on a core beside the solves")
	limit := flag.Duration("time-limit", 10*time.Second, "time limit of each solve")
	runs := flag.Int("runs", 3, "solves of each file")
	threads := flag.Int("threads", 0, "threads of each solve (0: all cores)")
	spinMax := flag.Duration("spin-max", 10*time.Minute, "the load stops after this at the latest")
	want := flag.Bool("want-optimal", false, "exit 1 when a run is not proven optimal")
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		files = []string{"../shared/benchmarks/traces/mindspore-pangu_2.6B.csv"}
	}
	stop, err := startLoad(*load, *spinMax)
	if err != nil {
		fmt.Fprintln(os.Stderr, "busy:", err)
		os.Exit(1)
	}
	ok, err := measureFiles(files, *runs, *limit, *threads, *load)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "busy:", err)
		os.Exit(1)
	}
	if *want && !ok {
		fmt.Fprintln(os.Stderr, "busy: a run was not proven optimal")
		os.Exit(1)
	}
}

// startLoad starts n spinning copies of this program and waits a second for
// the load to build; stop kills them (and only them).
func startLoad(n int, most time.Duration) (stop func(), err error) {
	var kids []*exec.Cmd
	stop = func() {
		for _, c := range kids {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	self, err := os.Executable()
	if err != nil {
		return stop, err
	}
	for range n {
		c := exec.Command(self)
		c.Env = append(os.Environ(), spinEnv+"="+most.String())
		if err := c.Start(); err != nil {
			stop()
			return func() {}, err
		}
		kids = append(kids, c)
	}
	if n > 0 {
		time.Sleep(time.Second)
	}
	return stop, nil
}

// spin keeps one core busy until its time is up or its parent is gone.
func spin() {
	most, err := time.ParseDuration(os.Getenv(spinEnv))
	if err != nil {
		most = 10 * time.Minute
	}
	parent, end := os.Getppid(), time.Now().Add(most)
	x := uint64(1)
	for time.Now().Before(end) && os.Getppid() == parent {
		for range 1 << 20 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	if x == 0 {
		fmt.Println(x) // keeps the loop from being optimised away
	}
}

// measureFiles solves each file runs times and prints a table; ok is false when
// a run was not proven optimal.
func measureFiles(files []string, runs int, limit time.Duration, threads, load int) (ok bool, err error) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "file\trun\tload\tpeak\tbound\tgap %%\tstatus\tmethod\twall s\tCPU s\tloadavg\t\n")
	ok = true
	for _, f := range files {
		p, err := formats.Load(f)
		if err != nil {
			return false, err
		}
		for run := 1; run <= runs; run++ {
			c0, t0 := measure.CPUTime(), time.Now()
			res, err := solve.Solve(context.Background(), p, solve.Options{TimeLimit: limit, Threads: threads})
			wall, cpu := time.Since(t0), measure.CPUTime()-c0
			if err != nil {
				return false, err
			}
			gap := "-"
			if res.Plan != nil && res.LowerBound > 0 {
				gap = fmt.Sprintf("%.3f", 100*float64(res.Peak-res.LowerBound)/float64(res.LowerBound))
			}
			if res.Status != solve.Optimal {
				ok = false
			}
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t\n", filepath.Base(f), run, load, res.Peak,
				res.LowerBound, gap, res.Status, res.Method, wall.Seconds(), cpu.Seconds(), loadAvg())
		}
	}
	return ok, w.Flush()
}

// loadAvg is the one-minute load average (Linux), or "-".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "-"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "-"
}
