package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc"
	"github.com/optalloc/optalloc/corpus"
	"github.com/optalloc/optalloc/solve"
)

// Issue 41, "Done when": the CLI, the front door and the corpus runner give
// the same peak and the same written bytes for the same input and method, on
// every shared model and trace. The C API and Python are compared with the
// CLI by python/tests/test_doors_equal.py (run by .ci/doors).

// doorInputs returns every shared model and trace a door reads, and the
// shared files that do not load with why (for the test's log).
func doorInputs(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, glob := range []string{
		"../../../shared/models/tflite/*.tflite",
		"../../../shared/models/onnx/*.onnx",
		"../../../shared/benchmarks/traces/*.csv",
		"../../../shared/benchmarks/minimalloc/*.csv",
	} {
		m, err := filepath.Glob(glob)
		require.NoError(t, err)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("the shared models and traces are absent (they sit beside the repository in CI)")
	}
	return files
}

// doorMethods are the deterministic settings compared: answers that do not
// depend on wall time (two planners, and auto with a work budget on one
// thread; "heuristic" without a work budget improves its plan until a
// clock stops it). The work budget is small, and auto runs on the smaller
// inputs only (up to maxAuto buffers: 5 to 20 s each above): the comparison
// is of the doors, not of the solver. Seed 1 is every door's default.
var doorMethods = []struct {
	method string
	work   int64
}{
	{"freelist", 0},
	{"firstfit-peak", 0},
	{"auto", 2000},
}

const maxAuto = 160

func TestEveryDoorWritesTheSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("plans every shared model and trace three ways")
	}
	for _, file := range doorInputs(t) {
		name := filepath.Base(file)
		var lopt optalloc.LoadOptions
		var extra []string
		if name == "silero_vad_v5.onnx" {
			// Symbolic dimensions: the documented ones (docs/onnx.md).
			lopt.Dims = map[string]int64{"input:0": 1, "input:1": 576, "state:1": 1, "sr": 16000}
			extra = sileroDims
		}
		in, err := optalloc.Load(file, lopt)
		if err != nil {
			// Not every shared file is a problem (a plan file, say): each
			// door must refuse it with the same one line.
			code, _, stderr := cli(t, "", "plan", file, "-q", "-o", filepath.Join(t.TempDir(), "p.csv"))
			assert.Equal(t, 2, code, name)
			assert.Equal(t, err.Error(), strings.TrimSpace(stderr), name)
			t.Logf("%s does not load: %v", name, err)
			continue
		}
		suffixes := []string{".csv", ".json"}
		if strings.HasSuffix(file, ".tflite") {
			suffixes = append(suffixes, ".tflite")
		}
		for _, m := range doorMethods {
			if m.method == "auto" && len(in.Problem.Buffers) > maxAuto {
				continue
			}
			t.Run(name+"/"+m.method, func(t *testing.T) {
				dir := t.TempDir()
				opt := solve.Options{Method: m.method, Threads: 1, Work: m.work, Seed: 1}
				res, err := optalloc.Plan(context.Background(), in, optalloc.Options{Options: opt})
				require.NoError(t, err)
				require.NotNil(t, res.Plan, "no plan: %s", res.Status)

				// The corpus runner: the same input, the same settings.
				runs := corpus.Run(context.Background(), []corpus.Instance{{Name: name, Problem: in.Problem, Online: in.Online(), Input: in}},
					corpus.Config{Methods: []string{m.method}, Workers: 1, Threads: 1, Seed: 1, Work: m.work, AsPlan: true})
				require.Len(t, runs, 1)
				require.Len(t, runs[0].Runs, 1)
				run := runs[0].Runs[0]
				require.NoError(t, run.Err)
				require.True(t, run.Valid, run.Violation)
				assert.Equal(t, res.Peak, run.Peak, "corpus peak")

				for _, suffix := range suffixes {
					out := filepath.Join(dir, "cli"+suffix)
					args := []string{"plan", file, "--method", m.method, "--threads", "1", "--time-limit", "0", "--json", "-q", "-o", out}
					args = append(args, extra...)
					if m.work > 0 {
						args = append(args, "--work", strconv.FormatInt(m.work, 10))
					}
					code, stdout, stderr := cli(t, "", args...)
					require.Equal(t, 0, code, stderr)
					var summary struct {
						Peak int64 `json:"peak"`
					}
					require.NoError(t, json.Unmarshal([]byte(stdout), &summary))
					assert.Equal(t, res.Peak, summary.Peak, "CLI peak")
					got, err := os.ReadFile(out)
					require.NoError(t, err)
					door, err := in.Encode(out, res.Plan)
					require.NoError(t, err)
					assert.True(t, string(door.Data) == string(got), "%s: the door and the CLI write different bytes", suffix)
					viaCorpus, err := in.Encode(out, run.Plan)
					require.NoError(t, err)
					assert.True(t, string(viaCorpus.Data) == string(got), "%s: the corpus plan and the CLI's differ", suffix)
				}
			})
		}
	}
}
