// Command multimodels regenerates the several-models table of
// docs/tflite.md: it plans the shared TFLite models together on one
// TFLite Micro arena (package multi), writes them, and runs the originals
// and the planned copies on one MicroAllocator with tools/tflm_multi. It
// fails when a stated arena differs from the runtime's head or an output
// from the model run alone.
//
// Usage (from the repository root, after tools/tflm_multi/build.sh):
//
//	go run ./benchmarks/cmd/multimodels -models ../shared/models/tflite -readme docs/tflite.md
//
// Flags: -models (the shared TFLite models folder), -tflm-multi (the
// driver's binary), -time-limit (each plan), -o (markdown file, - =
// stdout) or -readme (replace the table between the markers
// <!-- multimodels:begin --> and <!-- multimodels:end --> of that file).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/internal/report"
	"github.com/optalloc/optalloc/internal/tflmrun"
	"github.com/optalloc/optalloc/multi"
	"github.com/optalloc/optalloc/solve"
)

// tcase is one row: models (file names without .tflite) and stages of
// indices into them.
type tcase struct {
	models   []string
	stages   [][]int
	label    string
	handoffs []multi.Handoff
}

var cases = []tcase{
	{[]string{"keyword_scrambled_8bit", "micro_speech_quantized", "person_detect"}, [][]int{{0}, {1}, {2}}, "serial", nil},
	{[]string{"person_detect", "micro_speech_quantized", "keyword_scrambled_8bit"}, [][]int{{0}, {1}, {2}}, "serial", nil},
	{[]string{"keyword_scrambled_8bit", "micro_speech_quantized"}, [][]int{{0, 1}}, "concurrent", nil},
	{[]string{"micro_speech_quantized", "hello_world_int8", "keyword_scrambled_8bit"}, [][]int{{0, 1, 2}}, "concurrent", nil},
	{[]string{"keyword_scrambled_8bit", "micro_speech_quantized", "person_detect"}, [][]int{{0, 1}, {2}}, "stages", nil},
	// The third model reads the first one's output where it lies.
	{[]string{"hello_world_int8", "keyword_scrambled_8bit", "hello_world_int8"}, [][]int{{0}, {1}, {2}}, "handoff", []multi.Handoff{{From: 0, Output: 0, To: 2, Input: 0}}},
}

func main() {
	models := flag.String("models", "../shared/models/tflite", "the shared TFLite models folder")
	bin := flag.String("tflm-multi", "tools/tflm_multi/out/bin/tflm_multi", "tools/tflm_multi's binary")
	limit := flag.Duration("time-limit", 10*time.Second, "time limit of each plan")
	out := flag.String("o", "-", "output markdown file (- = stdout)")
	readme := flag.String("readme", "", "replace the table between the markers of this file (instead of -o)")
	flag.Parse()
	if _, ok := tflmrun.Find(*bin); !ok {
		fmt.Fprintf(os.Stderr, "multimodels: %s is absent: build it with tools/tflm_multi/build.sh\n", *bin)
		os.Exit(1)
	}
	md, err := table(context.Background(), *models, *bin, *limit, report.CommandLine("go run ./benchmarks/cmd/multimodels", os.Args[1:]))
	if err == nil {
		err = report.Write(md, *out, *readme, "<!-- multimodels:begin -->", "<!-- multimodels:end -->")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "multimodels:", err)
		os.Exit(1)
	}
}

func table(ctx context.Context, dir, bin string, limit time.Duration, cmd string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "`%s` (%s, %s; reference kernels, tools/tflm_multi on one MicroAllocator):\n\n", cmd, time.Now().UTC().Format("2006-01-02"), report.Machine())
	b.WriteString("| models (stages: `;`, together: `+`) | stated head | lower bound | status | runtime head, planned | runtime head, TFLite Micro's own | tails (runtime) | arena used, planned | outputs = alone |\n")
	b.WriteString("|---|---:|---:|---|---:|---:|---:|---:|---|\n")
	tmp, err := os.MkdirTemp("", "multimodels")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for n, tc := range cases {
		row, err := run(ctx, dir, bin, filepath.Join(tmp, fmt.Sprint(n)), tc, limit)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(tc.models, " "), err)
		}
		b.WriteString(row)
	}
	return b.Bytes(), nil
}

func run(ctx context.Context, dir, bin, tmp string, tc tcase, limit time.Duration) (string, error) {
	ms := make([]*tflite.Model, len(tc.models))
	as := make([]*tflite.Arena, len(tc.models))
	mm := make([]multi.Model, len(tc.models))
	names := map[string]int{}
	for k, name := range tc.models {
		m, err := tflite.ReadFile(filepath.Join(dir, name+".tflite"))
		if err != nil {
			return "", err
		}
		a, err := m.Arena()
		if err != nil {
			return "", err
		}
		if names[name]++; names[name] > 1 {
			name = fmt.Sprintf("%s_%d", name, names[name])
		}
		ms[k], as[k], mm[k] = m, a, multi.FromTFLite(name, m, a)
	}
	c, err := multi.Combine(mm, multi.Schedule{Stages: tc.stages}, multi.Options{Handoffs: tc.handoffs})
	if err != nil {
		return "", err
	}
	res, _, err := multi.SolveTFLM(ctx, c, solve.Options{TimeLimit: limit, Threads: 1})
	if err != nil {
		return "", err
	}
	files, err := multi.TFLiteFiles(ctx, c, ms, as, res.Plan)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(tmp, 0o777); err != nil {
		return "", err
	}
	var origArgs, planArgs, label []string
	for _, st := range tc.stages {
		var o, p, l []string
		for _, k := range st {
			path := filepath.Join(tmp, mm[k].Name+".tflite")
			if err := os.WriteFile(path, files[k], 0o666); err != nil {
				return "", err
			}
			o, p, l = append(o, filepath.Join(dir, tc.models[k]+".tflite")), append(p, path), append(l, mm[k].Name)
		}
		origArgs, planArgs, label = append(origArgs, strings.Join(o, ",")), append(planArgs, strings.Join(p, ",")), append(label, strings.Join(l, " + "))
	}
	var extra []string
	for _, h := range tc.handoffs {
		extra = append(extra, "--handoff", fmt.Sprintf("%d:%d=%d:%d", h.From, h.Output, h.To, h.Input))
		label[h.To] += fmt.Sprintf(" (input%d = %s's output%d)", h.Input, mm[h.From].Name, h.Output)
	}
	origArgs, planArgs = append(slices.Clone(extra), origArgs...), append(extra, planArgs...)
	orig, err := tflmrun.RunMulti(bin, origArgs...)
	if err != nil {
		return "", err
	}
	got, err := tflmrun.RunMulti(bin, planArgs...)
	if err != nil {
		return "", err
	}
	if !got.OK {
		return "", fmt.Errorf("the planned models fail on the runtime:\n%s", got.Text)
	}
	if got.Head != res.Peak {
		return "", fmt.Errorf("stated head %d, runtime head %d", res.Peak, got.Head)
	}
	same := fmt.Sprint(orig.AloneOutputs) == fmt.Sprint(got.SharedOutputs)
	if !same {
		return "", fmt.Errorf("outputs differ from the models alone")
	}
	own := fmt.Sprint(orig.Head)
	switch {
	case !orig.OK && len(tc.handoffs) > 0:
		own += " (outputs wrong: no handoff without a copy)"
	case !orig.OK:
		own += " (outputs wrong: models run together overlap)"
	}
	var tails []string
	for _, t := range got.TailsAdded {
		tails = append(tails, fmt.Sprint(t))
	}
	return fmt.Sprintf("| %s | %d | %d | %s | %d | %s | %s | %d | yes |\n", strings.Join(label, " ; "), res.Peak, res.LowerBound, res.Status,
		got.Head, own, strings.Join(tails, " + "), got.Used), nil
}
