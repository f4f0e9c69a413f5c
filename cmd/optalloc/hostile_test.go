package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hostile input end to end (issue 9, item 3): every bad input gives exit 2,
// exactly one line "file:line: what is wrong" (or "file: what is wrong") on
// stderr, nothing on stdout and nothing written in the output folder, not
// even a temporary file. Well-formed but infeasible inputs give exit 1.

// hostileInput is a bad problem file and what its one error line must say.
type hostileInput struct {
	name string // file name: the suffix chooses the reader
	data string
	line int    // expected line of the message; 0 = "file: msg"
	want string // substring of the message
}

var hostileInputs = []hostileInput{
	{"empty.csv", "", 0, "empty file"},
	{"header-only.csv", "id,lower,upper,size\n", 0, "no buffers"},
	{"header-only-crlf.csv", "id,lower,upper,size\r\n", 0, "no buffers"},
	{"missing-column.csv", "id,lower,size\na,0,4\n", 1, "missing column upper"},
	{"duplicate-column.csv", "id,buffer,lower,upper,size\na,a,0,2,8\n", 1, "appears twice"},
	{"short-row.csv", "id,lower,upper,size\na,0,2\n", 2, "column size"},
	{"not-a-number.csv", "id,lower,upper,size\na,0,2,4\nb,0,2,abc\n", 3, `"abc" is not an integer`},
	{"float-size.csv", "id,lower,upper,size\na,0,2,4.5\n", 2, "not an integer"},
	{"beyond-int64.csv", "id,lower,upper,size\na,0,2,99999999999999999999\n", 2, "int64"},
	{"negative-size.csv", "id,lower,upper,size\na,0,2,4\nb,0,2,-4\n", 3, `buffer "b": size -4 is negative`},
	{"negative-start.csv", "id,lower,upper,size\na,-3,2,4\n", 2, "start -3 is negative"},
	{"empty-lifetime.csv", "id,lower,upper,size\na,2,2,4\n", 2, "lifetime [2, 2) is empty"},
	{"duplicate-id.csv", "id,lower,upper,size\na,0,2,4\nb,0,2,4\na,1,3,4\n", 4, `buffer "a": duplicate id (first defined on line 2)`},
	{"duplicate-id-crlf.csv", "id,lower,upper,size\r\na,0,2,4\r\na,1,3,4\r\n", 3, "duplicate id"},
	{"pin-overflow.csv", "id,lower,upper,size,offset\na,0,2,100,9223372036854775797\n", 2, "overflows int64"},
	{"sum-overflow.csv", "id,lower,upper,size\na,0,2,9223372036854775807\nb,5,6,1\n", 3, "more than 2^63-1"},
	{"inclusive-end-overflow.csv", "id,start,end,size\na,0,9223372036854775807,4\n", 2, "overflows"},
	{"negative-alignment.csv", "id,lower,upper,size,alignment\na,0,2,1,-8\n", 2, "alignment -8"},
	{"pin-misaligned.csv", "id,lower,upper,size,alignment,offset\na,0,2,8,16,8\n", 2, "not a multiple of the alignment"},
	{"bad-gap.csv", "id,lower,upper,size,gaps\na,0,10,8,x-y\n", 2, `gap "x-y"`},
	{"gap-window-overflow.csv", "id,lower,upper,size,gaps\na,0,10,8,2-3@0:9223372036854775807\n", 2, "gap window"},
	{"bad-quote.csv", "id,lower,upper,size\n\"a,0,2,8\n", 2, "quote"},
	{"empty.json", "", 1, "expected a JSON object"},
	{"array.json", "[1,2]", 1, "expected a JSON object"},
	{"no-buffers.json", "{}", 1, "no buffers"},
	{"truncated.json", `{"buffers":[{"id":"a","start":0,"end":2,"size":8}`, 1, "unexpected end of file"},
	{"trailing.json", `{"buffers":[{"id":"a","start":0,"end":2,"size":8}]}{"x":1}`, 1, "after top-level value"},
	{"unknown-field.json", "{\"buffers\": [\n{\"id\":\"a\",\"start\":0,\"end\":2,\"size\":8,\n \"colour\":\"red\"}]}", 3, `unknown field "colour"`},
	{"string-size.json", `{"buffers":[{"id":"a","start":0,"end":2,"size":"8"}]}`, 1, "field size"},
	{"huge-float.json", `{"buffers":[{"id":"a","start":0,"end":2,"size":1e30}]}`, 1, "field size"},
	{"negative-size.json", "{\"buffers\":[\n{\"id\":\"a\",\"start\":0,\"end\":2,\"size\":-1}]}", 2, "size -1 is negative"},
	{"duplicate-id.json", "{\"buffers\":[\r\n{\"id\":\"a\",\"start\":0,\"end\":2,\"size\":8},\r\n{\"id\":\"a\",\"start\":0,\"end\":2,\"size\":8}]}\r\n", 3, "duplicate id (first defined on line 2)"},
	{"alias-cycle.json", "{\"buffers\":[\n" +
		`{"id":"a","start":0,"end":2,"size":8,"alias":{"parent":"b","delta":0}},` + "\n" +
		`{"id":"b","start":0,"end":2,"size":8,"alias":{"parent":"a","delta":0}}]}`, 3, "is a cycle"},
	{"alias-self.json", `{"buffers":[{"id":"a","start":0,"end":2,"size":8,"alias":{"parent":"a","delta":0}}]}`, 1, "is a cycle"},
	{"alias-missing-parent.json", `{"buffers":[{"id":"a","start":0,"end":2,"size":8,"alias":{"parent":"zz","delta":0}}]}`, 1, `alias parent "zz" does not exist`},
	{"alias-delta-overflow.json", `{"buffers":[{"id":"a","start":0,"end":2,"size":100},{"id":"b","start":0,"end":2,"size":8,"alias":{"parent":"a","delta":9223372036854775800}}]}`, 1, "does not fit inside parent"},
	{"pin-overflow.json", `{"buffers":[{"id":"a","start":0,"end":2,"size":100,"offset":9223372036854775797}]}`, 1, "overflows int64"},
	{"unknown-pool.json", `{"pools":[{"name":"sram"}],"buffers":[{"id":"a","start":0,"end":2,"size":8,"pools":["dram"]}]}`, 1, `unknown pool "dram"`},
	{"bad-dtype.graph.json", `{"name":"m","tensors":[{"name":"a","shape":[1,2],"dtype":"float33"}],"ops":[{"name":"o","type":"Relu","inputs":[],"outputs":["a"]}]}`, 1, `unknown dtype "float33"`},
	{"unknown-tensor.graph.json", `{"name":"m","tensors":[{"name":"a","shape":[1,2],"dtype":"float32"}],"ops":[{"name":"o","type":"Relu","inputs":["zz"],"outputs":["a"]}]}`, 1, `unknown tensor "zz"`},
	{"unknown-field.graph.json", `{"name":"m","colour":1,"tensors":[],"ops":[]}`, 1, `unknown field "colour"`},
	{"no-models.graph.json", `{"name":"m"}`, 0, "no models"},
	{"truncated.graph.json", `{"name":"m","tensors":[`, 1, ""}, // message: see TestGraphTruncatedMessage
}

// hostileCommands are the commands that read a problem INPUT; %IN is the
// input and %OUT the (initially empty) output folder.
var hostileCommands = [][]string{
	{"plan", "%IN", "-o", "%OUT/plan.csv", "--svg", "%OUT/plan.svg", "--time-limit", "300ms"},
	{"plan", "%IN", "-o", "%OUT/plan.json", "--json", "--method", "heuristic"},
	{"bounds", "%IN"},
	{"bounds", "%IN", "--json", "--prove", "--time-limit", "300ms"},
	{"verify", "%IN", "%OUT/../valid-plan.csv"},
	{"viz", "%OUT/../valid-plan.csv", "--problem", "%IN", "--svg", "%OUT/x.svg"},
	{"compare", "%OUT/../valid.csv", "%IN", "--methods", "greedy-size", "--quiet", "--time-limit", "300ms"},
	{"check", "%IN", "--write-baseline", "%OUT/base.json", "--quiet", "--time-limit", "300ms"},
}

// hostileDir makes a temporary folder with a valid problem and plan beside
// the empty output folder "out", and returns both paths.
func hostileDir(t *testing.T) (dir, out string) {
	t.Helper()
	dir = t.TempDir()
	out = filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(out, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "valid.csv"), []byte("id,lower,upper,size\na,0,2,8\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "valid-plan.csv"), []byte("id,offset\na,0\n"), 0o644))
	return dir, out
}

func expandHostileArgs(args []string, in, out string) []string {
	r := strings.NewReplacer("%IN", in, "%OUT", out)
	res := make([]string, len(args))
	for i, a := range args {
		res[i] = r.Replace(a)
	}
	return res
}

// assertOneLine checks the bad-input contract: exit code, nothing on stdout,
// exactly one stderr line starting "file:line: " (or "file: " when line is
// 0) and containing want, and an empty output folder.
func assertOneLine(t *testing.T, code int, stdout, stderr string, wantCode int, file string, line int, want, out string) {
	t.Helper()
	assert.Equal(t, wantCode, code, "exit code; stderr: %s", stderr)
	assert.Empty(t, stdout, "nothing on stdout")
	require.True(t, strings.HasSuffix(stderr, "\n"), "stderr must end with a newline: %q", stderr)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "exactly one line on stderr: %q", stderr)
	prefix := file + ": "
	if line > 0 {
		prefix = fmt.Sprintf("%s:%d: ", file, line)
	}
	assert.True(t, strings.HasPrefix(stderr, prefix), "stderr %q must start with %q", stderr, prefix)
	assert.Contains(t, stderr, want)
	assertEmptyDir(t, out)
}

// assertEmptyDir checks that a failed command wrote nothing in dir.
func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Empty(t, names, "a failed command must leave no file (nor temporary file) in %s", dir)
}

func TestHostileInputs(t *testing.T) {
	for _, h := range hostileInputs {
		for _, cmd := range hostileCommands {
			t.Run(h.name+"/"+strings.Join(cmd[:2], "_"), func(t *testing.T) {
				dir, out := hostileDir(t)
				in := filepath.Join(dir, h.name)
				require.NoError(t, os.WriteFile(in, []byte(h.data), 0o644))
				code, stdout, stderr := cli(t, "", expandHostileArgs(cmd, in, out)...)
				assertOneLine(t, code, stdout, stderr, 2, in, h.line, h.want, out)
			})
		}
	}
}

// TestHostileStdin sends bad inputs through "-": the file is "<stdin>".
func TestHostileStdin(t *testing.T) {
	for _, h := range hostileInputs {
		if strings.HasSuffix(h.name, ".graph.json") {
			continue // "-" sniffs; these graphs lack "ops" or are truncated
		}
		t.Run(h.name, func(t *testing.T) {
			_, out := hostileDir(t)
			code, stdout, stderr := cli(t, h.data, "plan", "-", "-o", filepath.Join(out, "p.csv"), "--time-limit", "300ms")
			line := h.line
			if h.data == "" {
				line = 0 // an empty stdin is sniffed as CSV
			}
			want := h.want
			switch {
			case h.data == "":
				want = "empty file"
			case h.name == "array.json":
				want = "missing column" // only a leading '{' is sniffed as JSON
			}
			assertOneLine(t, code, stdout, stderr, 2, "<stdin>", line, want, out)
		})
	}
}

func TestHostileFiles(t *testing.T) {
	dir, out := hostileDir(t)
	missing := filepath.Join(dir, "missing.csv")
	folder := filepath.Join(dir, "folder.csv")
	require.NoError(t, os.Mkdir(folder, 0o755))
	dangling := filepath.Join(dir, "dangling.csv")
	require.NoError(t, os.Symlink(missing, dangling))
	notDir := filepath.Join(dir, "valid.csv", "x.csv")
	for _, tc := range []struct{ name, path, want string }{
		{"missing", missing, "cannot open"},
		{"directory", folder, "directory"},
		{"dangling symlink", dangling, "cannot open"},
		{"below a file", notDir, "cannot open"},
	} {
		for _, cmd := range hostileCommands {
			t.Run(tc.name+"/"+strings.Join(cmd[:2], "_"), func(t *testing.T) {
				code, stdout, stderr := cli(t, "", expandHostileArgs(cmd, tc.path, out)...)
				assertOneLine(t, code, stdout, stderr, 2, tc.path, 0, tc.want, out)
			})
		}
	}
}

func TestHostileUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: a mode-000 file is still readable")
	}
	dir, out := hostileDir(t)
	in := filepath.Join(dir, "secret.csv")
	require.NoError(t, os.WriteFile(in, []byte("id,lower,upper,size\na,0,2,4\n"), 0o000))
	for _, cmd := range hostileCommands {
		code, stdout, stderr := cli(t, "", expandHostileArgs(cmd, in, out)...)
		assertOneLine(t, code, stdout, stderr, 2, in, 0, "permission denied", out)
	}
}

// TestHostilePlanFiles feeds bad plan files to verify and viz.
func TestHostilePlanFiles(t *testing.T) {
	problem := "id,lower,upper,size\na,0,2,100\nb,1,3,100\n"
	for _, tc := range []struct {
		name, data string
		line       int
		want       string
	}{
		{"empty.csv", "", 0, "empty file"},
		{"no-offset.csv", "id\na\nb\n", 1, "missing column offset"},
		{"not-a-number.csv", "id,offset\na,0\nb,x\n", 3, `offset "x" is not an integer`},
		{"unknown-buffer.csv", "id,offset\na,0\nb,100\nc,5\n", 4, `buffer "c" is not in the problem`},
		{"unknown-field.json", `{"placements":[{"id":"a","offset":0}],"zzz":1}`, 0, `unknown field "zzz"`},
		{"truncated.json", `{"placements":[{"id":"a","offset":0}`, 0, "plan"},
	} {
		for _, viz := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/viz=%v", tc.name, viz), func(t *testing.T) {
				dir, out := hostileDir(t)
				prob := filepath.Join(dir, "problem.csv")
				require.NoError(t, os.WriteFile(prob, []byte(problem), 0o644))
				plan := filepath.Join(dir, tc.name)
				require.NoError(t, os.WriteFile(plan, []byte(tc.data), 0o644))
				args := []string{"verify", prob, plan}
				if viz {
					args = []string{"viz", plan, "--problem", prob, "--svg", filepath.Join(out, "x.svg"), "--html", filepath.Join(out, "x.html")}
				}
				code, stdout, stderr := cli(t, "", args...)
				assertOneLine(t, code, stdout, stderr, 2, plan, tc.line, tc.want, out)
			})
		}
	}
}

// TestVerifyCatchesOffsetOverflow: a plan that puts a buffer at
// MaxInt64-10 with size 100 wraps around int64; verify must call it invalid
// (exit 1), list the violation on stdout and say so in one stderr line.
func TestVerifyCatchesOffsetOverflow(t *testing.T) {
	dir, _ := hostileDir(t)
	prob := filepath.Join(dir, "problem.csv")
	require.NoError(t, os.WriteFile(prob, []byte("id,lower,upper,size\na,0,2,100\nb,1,3,100\n"), 0o644))
	for _, tc := range []struct{ name, plan, want string }{
		{"offset near MaxInt64", "id,offset\na,9223372036854775797\nb,0\n", `out-of-capacity: buffer "a"`},
		{"negative offset", "id,offset\na,-5\nb,100\n", `buffer "a" has offset -5`},
		{"granted beyond int64", "id,offset,granted\na,0,9223372036854775807\nb,100,100\n", `buffer "a" is granted 9223372036854775807`},
		{"overlap", "id,offset\na,0\nb,50\n", `overlap: buffers "a" [0, 2) and "b" [1, 3) share bytes [50, 100)`},
		{"missing buffer", "id,offset\na,0\n", `buffer "b" has no placement`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := filepath.Join(t.TempDir(), "plan.csv")
			require.NoError(t, os.WriteFile(plan, []byte(tc.plan), 0o644))
			code, stdout, stderr := cli(t, "", "verify", prob, plan)
			assert.Equal(t, 1, code, stderr)
			assert.Equal(t, "optalloc verify: the plan is invalid: 1 violations\n", stderr)
			assert.Equal(t, 1, strings.Count(stdout, "\n"), stdout)
			assert.Contains(t, stdout, tc.want)
		})
	}
}

// TestVerifyRejectsDuplicatePlacement: a plan file that places a buffer twice
// is ambiguous input.
func TestVerifyRejectsDuplicatePlacement(t *testing.T) {
	dir, out := hostileDir(t)
	prob := filepath.Join(dir, "problem.csv")
	require.NoError(t, os.WriteFile(prob, []byte("id,lower,upper,size\na,0,2,100\nb,1,3,100\n"), 0o644))
	plan := filepath.Join(dir, "plan.csv")
	require.NoError(t, os.WriteFile(plan, []byte("id,offset\na,0\na,100\nb,200\n"), 0o644))
	code, stdout, stderr := cli(t, "", "verify", prob, plan)
	assertOneLine(t, code, stdout, stderr, 2, plan, 3, `"a"`, out)
}

// TestInfeasibleExits1 covers well-formed problems with no plan: exit 1, one
// line (with --quiet) naming the reason, no output file.
func TestInfeasibleExits1(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		args       []string
		want       string
	}{
		{"colliding pins", "id,lower,upper,size,offset\na,0,2,8,0\nb,1,3,8,4\n", nil, `pinned buffers "a" [0, 2) and "b" [1, 3) share bytes [4, 8)`},
		{"capacity below max-live", "id,lower,upper,size\na,0,2,100\nb,1,3,100\n", []string{"--capacity", "150"}, "max-live 200 exceeds the capacity 150"},
		{"pin beyond capacity", "id,lower,upper,size,offset\na,0,2,8,64\n", []string{"--capacity", "32"}, "infeasible"},
	} {
		for _, method := range []string{"auto", "heuristic", "greedy-size", "bnb", "sat"} {
			t.Run(tc.name+"/"+method, func(t *testing.T) {
				dir, out := hostileDir(t)
				in := filepath.Join(dir, "in.csv")
				require.NoError(t, os.WriteFile(in, []byte(tc.data), 0o644))
				args := append([]string{"plan", in, "--quiet", "--method", method, "--time-limit", "1s",
					"-o", filepath.Join(out, "p.csv"), "--html", filepath.Join(out, "p.html")}, tc.args...)
				code, stdout, stderr := cli(t, "", args...)
				assert.Equal(t, 1, code, stderr)
				assert.Empty(t, stdout)
				assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
				assert.True(t, strings.HasPrefix(stderr, "optalloc plan: infeasible: "), stderr)
				assert.Contains(t, stderr, tc.want)
				assertEmptyDir(t, out)
				// Without --quiet the summary line comes first.
				code, _, stderr = cli(t, "", append(args[:len(args):len(args)], "--quiet=false")...)
				assert.Equal(t, 1, code)
				assert.Regexp(t, `(?m)^peak=none lower_bound=\d+ gap=none status=infeasible method=none `, stderr)
				assertEmptyDir(t, out)
			})
		}
	}
}

// TestGraphTruncatedMessage: a truncated model graph must say what is wrong.
func TestGraphTruncatedMessage(t *testing.T) {
	dir, out := hostileDir(t)
	in := filepath.Join(dir, "t.graph.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"name":"m","tensors":[`), 0o644))
	code, stdout, stderr := cli(t, "", "plan", in)
	assertOneLine(t, code, stdout, stderr, 2, in, 1, "unexpected end of file", out)
}

// TestEncodingVariants: a UTF-8 BOM, CRLF line ends and a missing final
// newline change nothing: same exit code, same plan bytes (apart from the
// line ends of the echoed input, which plan -o writes as LF).
func TestEncodingVariants(t *testing.T) {
	plain := "id,lower,upper,size\na,0,2,4\nb,1,3,8\nc,2,5,4\n"
	variants := map[string]string{
		"plain.csv":         plain,
		"bom.csv":           "\ufeff" + plain,
		"crlf.csv":          strings.ReplaceAll(plain, "\n", "\r\n"),
		"bom-crlf.csv":      "\ufeff" + strings.ReplaceAll(plain, "\n", "\r\n"),
		"no-final-nl.csv":   strings.TrimSuffix(plain, "\n"),
		"spaces.csv":        "id, lower, upper, size\na, 0, 2, 4\nb, 1, 3, 8\nc, 2, 5, 4\n",
		"crlf.json":         "{\"buffers\": [\r\n{\"id\":\"a\",\"start\":0,\"end\":2,\"size\":4},\r\n{\"id\":\"b\",\"start\":1,\"end\":3,\"size\":8},\r\n{\"id\":\"c\",\"start\":2,\"end\":5,\"size\":4}]}\r\n",
		"no-final-nl.json":  `{"buffers":[{"id":"a","start":0,"end":2,"size":4},{"id":"b","start":1,"end":3,"size":8},{"id":"c","start":2,"end":5,"size":4}]}`,
		"upper-case.csv":    "ID,LOWER,UPPER,SIZE\na,0,2,4\nb,1,3,8\nc,2,5,4\n",
		"reordered.csv":     "size,upper,id,lower\n4,2,a,0\n8,3,b,1\n4,5,c,2\n",
		"inclusive-end.csv": "id,start,end,size\na,0,1,4\nb,1,2,8\nc,2,4,4\n",
	}
	dir := t.TempDir()
	var want string
	for _, name := range []string{"plain.csv", "bom.csv", "crlf.csv", "bom-crlf.csv", "no-final-nl.csv", "spaces.csv", "crlf.json", "no-final-nl.json", "upper-case.csv", "reordered.csv", "inclusive-end.csv"} {
		t.Run(name, func(t *testing.T) {
			in := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(in, []byte(variants[name]), 0o644))
			out := filepath.Join(dir, name+".plan.json")
			code, stdout, stderr := cli(t, "", "plan", in, "--quiet", "--method", "heuristic", "-o", out)
			require.Equal(t, 0, code, stderr)
			assert.Empty(t, stdout)
			assert.Empty(t, stderr)
			got, err := os.ReadFile(out)
			require.NoError(t, err)
			// The JSON plan lists id, lifetime, size and offset only.
			if want == "" {
				want = string(got)
			}
			assert.Equal(t, want, string(got), "%s plans differently from plain.csv", name)
			code, _, stderr = cli(t, "", "verify", in, out)
			assert.Equal(t, 0, code, stderr)
		})
	}
}

func TestJSONWithBOM(t *testing.T) {
	in := filepath.Join(t.TempDir(), "bom.json")
	require.NoError(t, os.WriteFile(in, []byte("\ufeff"+`{"buffers":[{"id":"a","start":0,"end":2,"size":8}]}`), 0o644))
	code, _, stderr := cli(t, "", "plan", in, "--quiet")
	assert.Equal(t, 0, code, stderr)
}

// TestExtremeButValidValues: sizes, pins and hints near the int64 maximum
// that do not overflow must plan (exit 0) to a plan that verify accepts.
func TestExtremeButValidValues(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"one buffer of MaxInt64 bytes", "id,lower,upper,size\na,0,2,9223372036854775807\n"},
		{"three near 2^61", "id,lower,upper,size\na,0,2,2305843009213693951\nb,1,3,2305843009213693953\nc,1,4,2305843009213693955\nd,3,5,1\n"},
		{"pin that just fits", "id,lower,upper,size,offset\na,0,2,100,9223372036854775707\nb,5,6,5,\n"},
		{"end at MaxInt64", "id,lower,upper,size\na,9223372036854775806,9223372036854775807,8\nb,0,1,8\n"},
	} {
		for _, method := range []string{"heuristic", "greedy-size", "freelist", "skyline", "strip-size"} {
			t.Run(tc.name+"/"+method, func(t *testing.T) {
				dir := t.TempDir()
				in := filepath.Join(dir, "in.csv")
				require.NoError(t, os.WriteFile(in, []byte(tc.data), 0o644))
				out := filepath.Join(dir, "plan.csv")
				code, _, stderr := cli(t, "", "plan", in, "--quiet", "--method", method, "--time-limit", "1s", "-o", out)
				require.Equal(t, 0, code, stderr)
				code, stdout, stderr := cli(t, "", "verify", in, out)
				assert.Equal(t, 0, code, stdout+stderr)
				code, _, stderr = cli(t, "", "bounds", in)
				assert.Equal(t, 0, code, stderr)
			})
		}
	}
}

// TestHintNearMaxInt64: a hint is only a preference; one near the int64
// limit must not break the plan.
func TestHintNearMaxInt64(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	require.NoError(t, os.WriteFile(in, []byte("id,lower,upper,size,hint\na,0,2,8,9223372036854775807\nb,0,2,8,-1\n"), 0o644))
	for _, method := range []string{"heuristic", "greedy-size", "freelist", "skyline", "strip-size", "auto"} {
		out := filepath.Join(dir, method+".csv")
		code, _, stderr := cli(t, "", "plan", in, "--quiet", "--method", method, "--time-limit", "1s", "-o", out)
		if code == 2 {
			assert.Contains(t, stderr, in+":2: ", method)
			continue
		}
		require.Equal(t, 0, code, "%s: %s", method, stderr)
		code, stdout, stderr := cli(t, "", "verify", in, out)
		assert.Equal(t, 0, code, stdout+stderr)
	}
}

// TestHugeAlignment: two buffers aligned to 2^62 fit (offsets 0 and 2^62);
// if the planners refuse such alignments, that is a limit of the input (exit
// 2, one "file:line:" line), never exit 1 as if the problem were infeasible.
func TestHugeAlignment(t *testing.T) {
	dir, out := hostileDir(t)
	in := filepath.Join(dir, "align.csv")
	require.NoError(t, os.WriteFile(in, []byte("id,lower,upper,size,alignment\na,0,2,1,4611686018427387904\nb,0,2,1,4611686018427387904\n"), 0o644))
	for _, method := range []string{"heuristic", "greedy-size", "auto"} {
		code, stdout, stderr := cli(t, "", "plan", in, "--quiet", "--method", method, "--time-limit", "300ms", "-o", filepath.Join(out, "p.csv"))
		if code == 0 {
			continue
		}
		assertOneLine(t, code, stdout, stderr, 2, in, 2, "alignment", out)
	}
}

// TestUnwritableOutput: an output path that cannot be written is bad usage:
// exit 2, one line, and nothing else written (not the plan, not a picture).
func TestUnwritableOutput(t *testing.T) {
	dir, out := hostileDir(t)
	in := filepath.Join(dir, "valid.csv")
	nodir := filepath.Join(dir, "nodir")
	for _, args := range [][]string{
		{"plan", in, "-o", filepath.Join(nodir, "p.csv")},
		{"plan", in, "-o", out},
		{"plan", in, "-o", filepath.Join(out, "p.csv"), "--svg", filepath.Join(nodir, "x.svg")},
		{"plan", in, "--svg", filepath.Join(out, "x.svg"), "--html", filepath.Join(nodir, "x.html")},
		{"check", in, "--write-baseline", filepath.Join(nodir, "b.json"), "--quiet"},
		{"viz", filepath.Join(dir, "valid-plan.csv"), "--problem", in, "--svg", filepath.Join(out, "x.svg"), "--html", filepath.Join(nodir, "x.html")},
	} {
		code, stdout, stderr := cli(t, "", append(args, "--quiet")...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Empty(t, stdout)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
		assert.NotContains(t, stderr, ".tmp-", "the message names the user's path, not a temporary file")
		assertEmptyDir(t, out)
		require.NoError(t, os.RemoveAll(out)) // a fresh folder for the next case
		require.NoError(t, os.Mkdir(out, 0o755))
	}
}

// TestLowerBoundSoundOnExtremeValues: whatever the method, the lower bound
// reported may never exceed the peak of a plan that verifies, and on these
// 2–4 buffer problems every method reaches the optimum at once.
func TestLowerBoundSoundOnExtremeValues(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"2^62 and 1", "id,lower,upper,size\na,0,2,4611686018427387904\nb,1,3,1\n"},
		{"three near 2^61", "id,lower,upper,size\na,0,2,2305843009213693951\nb,1,3,2305843009213693953\nc,1,4,2305843009213693955\nd,3,5,1\n"},
		{"two of 2^60", "id,lower,upper,size\na,0,2,1152921504606846976\nb,1,3,1152921504606846976\n"},
		{"one of MaxInt64", "id,lower,upper,size\na,0,2,9223372036854775807\n"},
	} {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.csv")
		require.NoError(t, os.WriteFile(in, []byte(tc.data), 0o644))
		ref := filepath.Join(dir, "ref.csv")
		code, _, stderr := cli(t, "", "plan", in, "--method", "greedy-size", "--quiet", "-o", ref)
		require.Equal(t, 0, code, stderr)
		code, stdout, stderr := cli(t, "", "verify", in, ref, "--json")
		require.Equal(t, 0, code, stderr)
		var v struct{ Peak int64 }
		require.NoError(t, json.Unmarshal([]byte(stdout), &v))
		for _, method := range []string{"auto", "exact", "bnb", "sat", "heuristic"} {
			t.Run(tc.name+"/"+method, func(t *testing.T) {
				code, stdout, stderr := cli(t, "", "plan", in, "--method", method, "--time-limit", "1s", "--quiet", "--json")
				var res struct {
					Peak       int64  `json:"peak"`
					LowerBound int64  `json:"lower_bound"`
					Status     string `json:"status"`
				}
				require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout+stderr)
				assert.LessOrEqual(t, res.LowerBound, v.Peak, "lower bound above a verified peak")
				assert.Equal(t, 0, code, stderr)
				assert.Equal(t, "optimal", res.Status)
				assert.Equal(t, res.LowerBound, res.Peak)
			})
		}
	}
}

// TestGraphIndexOverflow: indexes near the int64 limits in a model graph are
// out of range and must be reported as such, not through a wrapped value.
func TestGraphIndexOverflow(t *testing.T) {
	dir, out := hostileDir(t)
	for _, tc := range []struct{ name, data, want string }{
		{"slice.graph.json", `{"name":"m","alignment":1,"tensors":[{"name":"x","shape":[4,4],"dtype":"float32","kind":"input"},{"name":"a","shape":[2,4],"dtype":"float32"}],"ops":[{"name":"s","type":"Slice","begin":[9223372036854775807,0],"inputs":["x"],"outputs":["a"]}]}`, "does not fit in input shape"},
		{"slice64.graph.json", `{"name":"m","tensors":[{"name":"x","shape":[4,4],"dtype":"float32","kind":"input"},{"name":"a","shape":[2,4],"dtype":"float32"}],"ops":[{"name":"s","type":"Slice","begin":[9223372036854775807,0],"inputs":["x"],"outputs":["a"]}]}`, "does not fit in input shape"},
		{"concat.graph.json", `{"name":"m","tensors":[{"name":"x","shape":[4,4],"dtype":"float32","kind":"input"},{"name":"y","shape":[4,4],"dtype":"float32","kind":"input"},{"name":"a","shape":[8,4],"dtype":"float32"}],"ops":[{"name":"c","type":"Concat","axis":-9223372036854775808,"inputs":["x","y"],"outputs":["a"]}]}`, "axis -9223372036854775808 "},
	} {
		in := filepath.Join(dir, tc.name)
		require.NoError(t, os.WriteFile(in, []byte(tc.data), 0o644))
		code, stdout, stderr := cli(t, "", "plan", in, "-o", filepath.Join(out, "p.csv"))
		assertOneLine(t, code, stdout, stderr, 2, in, 1, tc.want, out)
	}
}

// TestPoolsBeyondCapacity: with bounded pools whose capacities add up to
// less than max-live the problem is infeasible, and the result must say so
// rather than blame the clock.
func TestPoolsBeyondCapacity(t *testing.T) {
	dir, out := hostileDir(t)
	in := filepath.Join(dir, "pools.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"pools":[{"name":"s","capacity":100},{"name":"d","capacity":100}],"buffers":[{"id":"a","start":0,"end":2,"size":100},{"id":"b","start":1,"end":3,"size":100},{"id":"c","start":1,"end":3,"size":100}]}`), 0o644))
	for _, method := range []string{"auto", "heuristic", "bnb", "sat", "greedy-size"} {
		code, stdout, stderr := cli(t, "", "plan", in, "--method", method, "--time-limit", "1s", "--json", "--quiet", "-o", filepath.Join(out, "p.csv"))
		assert.Equal(t, 1, code, stderr)
		var res struct {
			LowerBound int64  `json:"lower_bound"`
			Status     string `json:"status"`
			Reason     string `json:"reason"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
		assert.Equal(t, "infeasible", res.Status, method)
		assert.NotContains(t, res.Reason, "in time", method)
		assert.GreaterOrEqual(t, res.LowerBound, int64(300), "max-live is 300")
		assertEmptyDir(t, out)
	}
}

// TestCheckHostileToleranceAndBaseline: --tolerance NaN would let every
// regression through; a baseline peak below 0 is not a peak.
func TestCheckHostileToleranceAndBaseline(t *testing.T) {
	dir, out := hostileDir(t)
	in := filepath.Join(dir, "valid.csv")
	base := filepath.Join(dir, "base.json")
	require.NoError(t, os.WriteFile(base, []byte(`{"instances":{"`+filepath.ToSlash(in)+`":{"peak":4}}}`), 0o644))
	for _, tol := range []string{"NaN", "nan"} {
		code, stdout, stderr := cli(t, "", "check", in, "--baseline", base, "--tolerance", tol, "--quiet")
		assert.Equal(t, 2, code, "--tolerance %s: %s%s", tol, stdout, stderr)
		assert.Empty(t, stdout)
	}
	neg := filepath.Join(dir, "neg.json")
	require.NoError(t, os.WriteFile(neg, []byte(`{"instances":{"`+filepath.ToSlash(in)+`":{"peak":-5}}}`), 0o644))
	code, stdout, stderr := cli(t, "", "check", in, "--baseline", neg, "--quiet")
	assertOneLine(t, code, stdout, stderr, 2, neg, 0, "-5", out)
}

// TestOutputsNameTheSameFile: two outputs of one command on the same path
// would overwrite each other; that is bad usage.
func TestOutputsNameTheSameFile(t *testing.T) {
	dir, out := hostileDir(t)
	in := filepath.Join(dir, "valid.csv")
	same := filepath.Join(out, "same.out")
	for _, args := range [][]string{
		{"plan", in, "-o", same, "--svg", same},
		{"plan", in, "--svg", same, "--html", same},
		{"viz", filepath.Join(dir, "valid-plan.csv"), "--problem", in, "--svg", same, "--html", same},
	} {
		code, stdout, stderr := cli(t, "", append(args, "--quiet")...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Empty(t, stdout)
		assertEmptyDir(t, out)
		require.NoError(t, os.RemoveAll(out)) // a fresh folder for the next case
		require.NoError(t, os.Mkdir(out, 0o755))
	}
}

// TestVizJSONPlanValidated: viz rebuilds the problem from a JSON plan; bad
// values in it are bad input (exit 2), as they are in a CSV plan.
func TestVizJSONPlanValidated(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"negative-size.json", `{"placements":[{"id":"a","offset":0,"size":-5,"start":0,"end":2}]}`, "negative"},
		{"duplicate-id.json", `{"placements":[{"id":"a","offset":0,"size":5,"start":0,"end":2},{"id":"a","offset":8,"size":5,"start":0,"end":2}]}`, "duplicate"},
		{"no-placements.json", `{"placements":[]}`, "no buffers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, out := hostileDir(t)
			plan := filepath.Join(dir, tc.name)
			require.NoError(t, os.WriteFile(plan, []byte(tc.data), 0o644))
			code, stdout, stderr := cli(t, "", "viz", plan, "--svg", filepath.Join(out, "x.svg"))
			assert.Equal(t, 2, code, stderr)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tc.want)
			assertEmptyDir(t, out)
		})
	}
}
