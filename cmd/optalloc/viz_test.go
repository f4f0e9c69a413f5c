package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func countRects(s string) int { return strings.Count(s, `<rect class="buf`) }

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

const fiveBuffers = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n"

func TestPlanDrawsPictures(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "five.csv")
	require.NoError(t, os.WriteFile(in, []byte(fiveBuffers), 0o644))
	svg, html := filepath.Join(dir, "p.svg"), filepath.Join(dir, "p.html")
	code, _, stderr := toolRun(t, "plan", in, "--svg", svg, "--html", html, "--quiet")
	require.Equal(t, 0, code, stderr)
	s := readFile(t, svg)
	assert.Equal(t, 5, countRects(s), "the SVG of a 5-buffer plan has 5 rectangles")
	assert.Contains(t, s, "peak 12 · max-live 12")
	assert.Equal(t, 5, countRects(readFile(t, html)))
}

func TestVizFromPlanFiles(t *testing.T) {
	dir := t.TempDir()
	in := writeRandomCSV(t, dir, 21, 30)
	csvPlan, jsonPlan := filepath.Join(dir, "plan.csv"), filepath.Join(dir, "plan.json")
	for _, out := range []string{csvPlan, jsonPlan} {
		code, _, stderr := toolRun(t, "plan", in, "-o", out, "--quiet", "--method", "heuristic")
		require.Equal(t, 0, code, stderr)
	}
	// A minimal plan (id, offset) needs the problem.
	var minimal strings.Builder
	minimal.WriteString("id,offset\n")
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, csvPlan)), "\n")[1:] {
		f := strings.Split(line, ",")
		minimal.WriteString(f[0] + "," + f[len(f)-1] + "\n")
	}
	minPlan := filepath.Join(dir, "min.csv")
	require.NoError(t, os.WriteFile(minPlan, []byte(minimal.String()), 0o644))

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"csv plan alone", []string{"viz", csvPlan}},
		{"json plan alone", []string{"viz", jsonPlan}},
		{"csv plan with problem", []string{"viz", csvPlan, "--problem", in}},
		{"minimal plan with problem", []string{"viz", minPlan, "--problem", in}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := toolRun(t, append(tc.args, "--svg", "-")...)
			require.Equal(t, 0, code, stderr)
			assert.Empty(t, stderr, "a valid plan draws without warnings")
			assert.Equal(t, 30, countRects(out))
			assert.True(t, strings.HasPrefix(out, "<svg"))
		})
	}
	html := filepath.Join(dir, "v.html")
	code, _, stderr := toolRun(t, "viz", csvPlan, "--html", html, "--title", "my plan", "--color-by", "kind")
	require.Equal(t, 0, code, stderr)
	page := readFile(t, html)
	assert.Equal(t, 30, countRects(page))
	assert.Contains(t, page, "<title>my plan · optalloc plan</title>")
}

func TestVizPoolsAndInvalidPlans(t *testing.T) {
	dir := t.TempDir()
	pools := filepath.Join(dir, "pools.csv")
	require.NoError(t, os.WriteFile(pools, []byte("id,lower,upper,size,offset,pool\na,0,2,4,0,sram\nb,1,3,4,4,sram\nc,0,3,8,0,dram\n"), 0o644))
	code, out, stderr := toolRun(t, "viz", pools, "--svg", "-")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 2, strings.Count(out, `<g class="panel"`))
	assert.Contains(t, out, `data-pool="dram"`)
	assert.Equal(t, 3, countRects(out))

	overlap := filepath.Join(dir, "overlap.csv")
	require.NoError(t, os.WriteFile(overlap, []byte("id,lower,upper,size,offset\na,0,2,4,0\nb,1,3,4,2\n"), 0o644))
	code, out, stderr = toolRun(t, "viz", overlap, "--svg", "-")
	require.Equal(t, 0, code)
	assert.Contains(t, stderr, "warning: the plan is invalid")
	assert.Equal(t, 2, countRects(out), "an invalid plan is drawn all the same")
}

func TestVizUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "five.csv")
	require.NoError(t, os.WriteFile(in, []byte(fiveBuffers), 0o644))
	partial := filepath.Join(dir, "partial.csv")
	require.NoError(t, os.WriteFile(partial, []byte("id,offset\nb1,0\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no output", []string{"viz", in}, "--svg"},
		{"no offsets", []string{"viz", in, "--svg", "-"}, "no offset column"},
		{"bad colour", []string{"viz", in, "--svg", "-", "--color-by", "mood"}, "--color-by"},
		{"missing placement", []string{"viz", partial, "--problem", in, "--svg", "-"}, `"b2" has no offset`},
		{"missing file", []string{"viz", filepath.Join(dir, "nope.csv"), "--svg", "-"}, "nope.csv"},
		{"two stdouts", []string{"viz", in, "--svg", "-", "--html", "-"}, "choose one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := toolRun(t, tc.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, stderr, tc.want)
			assert.Empty(t, out, "nothing written")
		})
	}
}

// TestVizPlanAloneHasNoFalseViolations (issue 35, item 2): right after the
// README's commands, viz PLAN used to warn of 18 violations on a valid plan
// (a reshape alias read as an overlap, elastic scratch read as too big);
// ONNX plans with views the same. Plan files now carry the alias groups
// and the elastic limits; a plan written before still reads, its granted
// sizes taken as limits, and a warning then suggests --problem.
func TestVizPlanAloneHasNoFalseViolations(t *testing.T) {
	dir := t.TempDir()
	inputs := [][]string{{"../../examples/resnet18.graph.json"}}
	if _, err := os.Stat(sileroPath); err == nil {
		inputs = append(inputs, append([]string{sileroPath}, sileroDims...))
	}
	for _, in := range inputs {
		for _, out := range []string{"plan.csv", "plan.json"} {
			t.Run(filepath.Base(in[0])+"/"+out, func(t *testing.T) {
				path := filepath.Join(dir, out)
				args := append([]string{"plan", in[0], "-o", path, "--time-limit", "2s", "--quiet"}, in[1:]...)
				code, _, stderr := toolRun(t, args...)
				require.Equal(t, 0, code, stderr)
				code, svg, stderr := toolRun(t, "viz", path, "--svg", "-")
				require.Equal(t, 0, code, stderr)
				assert.Empty(t, stderr, "a valid plan draws without warnings")
				assert.True(t, strings.HasPrefix(svg, "<svg"))
				code, stdout, stderr := toolRun(t, append([]string{"verify", in[0], path}, in[1:]...)...)
				require.Equal(t, 0, code, stderr)
				assert.Contains(t, stdout, "valid")
			})
		}
	}

	// a plan CSV as written before: granted without max_size, no alias columns
	path := filepath.Join(dir, "plan.csv")
	code, _, stderr := toolRun(t, "plan", "../../examples/resnet18.graph.json", "-o", path, "--quiet")
	require.Equal(t, 0, code, stderr)
	var old strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, path)), "\n") {
		f := strings.Split(line, ",")
		old.WriteString(strings.Join(f[:len(f)-3], ",") + "\n")
	}
	require.True(t, strings.HasPrefix(old.String(), "id,lower,upper,size,alignment,offset,granted\n"), old.String()[:80])
	oldPath := filepath.Join(dir, "old.csv")
	require.NoError(t, os.WriteFile(oldPath, []byte(old.String()), 0o644))
	code, _, stderr = toolRun(t, "viz", oldPath, "--svg", "-")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "elastic-range", "granted sizes of an old plan are not called too big")
	assert.Contains(t, stderr, "overlap")
	assert.Contains(t, stderr, "if it was written by an older optalloc, give --problem INPUT")
	code, _, stderr = toolRun(t, "viz", oldPath, "--problem", "../../examples/resnet18.graph.json", "--svg", "-")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
}

// TestPlanOutputBySuffix (issue 35, item 7): -o plan.svg and -o plan.html
// draw the picture (they used to hold a CSV); an unknown suffix or none is
// refused before solving, listing the known ones, and nothing is written.
func TestPlanOutputBySuffix(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, prefix string }{{"plan.svg", "<svg"}, {"plan.HTML", "<!DOCTYPE html>"}, {"plan.csv", "id,"}, {"plan.json", "{"}} {
		out := filepath.Join(dir, tc.name)
		code, _, stderr := toolRun(t, "plan", "../../examples/tiny-cnn.csv", "-o", out, "--quiet")
		require.Equal(t, 0, code, stderr)
		assert.True(t, strings.HasPrefix(readFile(t, out), tc.prefix), tc.name)
	}
	for _, tc := range []struct{ name, want string }{
		{"out.txt", `: suffix ".txt"; the plan's format is chosen by the suffix: .csv, .json, .tflite, .svg, .html`},
		{"plan", ": no suffix; the plan's format is chosen by the suffix: .csv, .json, .tflite, .svg, .html"},
	} {
		out := filepath.Join(dir, tc.name)
		code, stdout, stderr := toolRun(t, "plan", "../../examples/tiny-cnn.csv", "-o", out)
		assert.Equal(t, 2, code)
		assert.Empty(t, stdout)
		assert.Equal(t, "optalloc plan: -o "+out+tc.want+"\n", stderr)
		assert.NoFileExists(t, out)
	}
	code, _, stderr := toolRun(t, "plan", "../../examples/tiny-cnn.csv", "-o", filepath.Join(dir, "a.svg"), "--svg", filepath.Join(dir, "b.svg"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "both draw a picture")
}
