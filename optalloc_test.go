package optalloc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/formats/tflite"
	"github.com/optalloc/optalloc/model"
	"github.com/optalloc/optalloc/solve"
	"github.com/optalloc/optalloc/verify"
)

const sharedTFLite = "../shared/models/tflite/"

// needModel returns a shared TFLite model's path, skipping when the shared
// folder is absent.
func needModel(t *testing.T, name string) string {
	t.Helper()
	path := sharedTFLite + name
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s absent: the shared models are not here", path)
	}
	return path
}

func quick(method string) Options {
	return Options{Options: solve.Options{Method: method, Threads: 1, TimeLimit: 5e9, Seed: 1}}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, data, 0o644))
}

func TestWriteRefusesWhatItMustNot(t *testing.T) {
	dir := t.TempDir()
	in, err := Load("examples/tiny-cnn.csv", LoadOptions{})
	require.NoError(t, err)
	res, err := Plan(context.Background(), in, quick("auto"))
	require.NoError(t, err)
	base := filepath.Join(dir, "baseline.json")
	require.NoError(t, os.WriteFile(base, []byte("{}"), 0o644))
	in.Protect(base)
	link := filepath.Join(dir, "link.csv")
	abs, _ := filepath.Abs("examples/tiny-cnn.csv")
	require.NoError(t, os.Symlink(abs, link))
	hard := filepath.Join(dir, "hard.csv")
	require.NoError(t, os.Link("examples/tiny-cnn.csv", hard))
	devLink := filepath.Join(dir, "null.csv")
	require.NoError(t, os.Symlink("/dev/null", devLink))
	before, _ := os.ReadFile("examples/tiny-cnn.csv")
	for _, tc := range []struct{ name, path, want string }{
		{"the input", "examples/tiny-cnn.csv", "is the input"},
		{"the input through a symlink", link, "is the input"},
		{"the input through a hard link", hard, "is the input"},
		{"a protected file", base, "is the input"},
		{"a device", devLink, "is not a regular file"},
		{"a directory", dir + "/.", "suffix"},
		{"an unknown suffix", filepath.Join(dir, "plan.txt"), `suffix ".txt"`},
		{"no suffix", filepath.Join(dir, "plan"), "no suffix"},
		{"a missing folder", filepath.Join(dir, "no", "plan.csv"), "does not exist"},
		{"a .tflite plan of a CSV problem", filepath.Join(dir, "plan.tflite"), "is not a TFLite model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := in.Write(tc.path, res.Plan)
			var ie *model.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	after, _ := os.ReadFile("examples/tiny-cnn.csv")
	assert.Equal(t, before, after)
	b, _ := os.ReadFile(base)
	assert.Equal(t, "{}", string(b))
}

func TestWriteByFormatReadsBack(t *testing.T) {
	dir := t.TempDir()
	in, err := Load("examples/unet.graph.json", LoadOptions{})
	require.NoError(t, err)
	res, err := Plan(context.Background(), in, quick("heuristic"))
	require.NoError(t, err)
	for _, tc := range []struct{ name, file, head string }{
		{"csv", "plan.csv", "id,"},
		{"json", "plan.json", "{"},
		{"svg", "plan.svg", "<svg"},
		{"html", "plan.html", "<!DOCTYPE html>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			require.NoError(t, os.WriteFile(path, []byte("old"), 0o640))
			require.NoError(t, in.Write(path, res.Plan))
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Contains(t, string(data[:min(len(data), 200)]), tc.head)
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "the mode of the file replaced")
			left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
			assert.Empty(t, left, "temporary files left")
		})
	}
}

func TestLoadRefusesDevicesAndListsThatAreNotForIt(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		opt        LoadOptions
		want       string
	}{
		{"a device", "/dev/zero", LoadOptions{}, "is a device"},
		{"a scratch list for a CSV", "examples/tiny-cnn.csv", LoadOptions{ScratchList: "x.csv"}, "is not a TFLite model"},
		{"a missing file", "nope.csv", LoadOptions{}, "cannot open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.path, tc.opt)
			var ie *model.InputError
			require.ErrorAs(t, err, &ie)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestUnknownMethodIsTyped(t *testing.T) {
	in, err := Load("examples/tiny-cnn.csv", LoadOptions{})
	require.NoError(t, err)
	_, err = Plan(context.Background(), in, quick("exakt"))
	require.True(t, errors.Is(err, ErrUnknownMethod), "%v", err)
	assert.Contains(t, err.Error(), `unknown method "exakt": did you mean "exact"?`)
}

// TestTFLiteWriteBack: a .tflite model planned through the door is written
// with the plan as its offline plan; the copy read back places the tensors
// where the plan put them, and it is refused as an output onto the input.
func TestTFLiteWriteBack(t *testing.T) {
	src := needModel(t, "keyword_scrambled_8bit.tflite")
	dir := t.TempDir()
	model := filepath.Join(dir, "m.tflite")
	copyFile(t, src, model)
	in, err := Load(model, LoadOptions{})
	require.NoError(t, err)
	require.NotNil(t, in.Online(), "the keyword model's SVDF asks for scratch")
	res, err := Plan(context.Background(), in, quick("auto"))
	require.NoError(t, err)
	require.NotNil(t, res.Device)
	assert.Equal(t, res.Device.Head, res.Peak)
	assert.Empty(t, verify.Check(in.Problem, res.Plan))

	err = in.Write(model, res.Plan)
	require.ErrorContains(t, err, "is the input")
	out := filepath.Join(dir, "planned.tflite")
	require.NoError(t, in.Write(out, res.Plan))
	back, err := tflite.ReadFile(out)
	require.NoError(t, err)
	require.NotNil(t, back.Offline)
	_, a := in.TFLite()
	for j, i := range a.Tensors {
		if in.Problem.Buffers[j].Size > 0 {
			assert.Equal(t, res.Plan.Placements[j].Offset, int64(back.Offline.Offsets[i]), in.Problem.Buffers[j].ID)
		}
	}
	// Reading the written model gives the same problem.
	again, err := Load(out, LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, len(in.Problem.Buffers), len(again.Problem.Buffers))
}

// TestMethodOnlyIsTheMethodsArena: on the keyword model the free list's
// joint plan gives TFLite Micro 800 bytes once it places the SVDF scratch;
// MethodOnly reports that arena (what compare measures), the default keeps
// TFLite Micro's own layout (672), as cmd/optalloc's TestFallbackOnARealModel
// states for the CLI.
func TestMethodOnlyIsTheMethodsArena(t *testing.T) {
	in, err := Load(needModel(t, "keyword_scrambled_8bit.tflite"), LoadOptions{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		only     bool
		want     int64
		fallback bool
	}{
		{"the method's own arena", true, 800, false},
		{"the best device arena", false, 672, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := quick("freelist")
			opt.MethodOnly = tc.only
			res, err := Plan(context.Background(), in, opt)
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Peak)
			assert.Equal(t, tc.fallback, res.Device.Fallback)
			assert.Empty(t, verify.Check(in.Problem, res.Plan))
		})
	}
}

// TestScratchListIsAnInput: the --scratch list is read and never written.
func TestScratchListIsAnInput(t *testing.T) {
	src := needModel(t, "keyword_scrambled_8bit.tflite")
	dir := t.TempDir()
	in, err := Load(src, LoadOptions{})
	require.NoError(t, err)
	res, err := Plan(context.Background(), in, quick("tflm-greedy"))
	require.NoError(t, err)
	// A scratch list in tflm_run's shape: this plan's CSV has the columns,
	// with the scratch rows named sK as tflm_run names them.
	enc, err := in.Encode("-", res.Plan)
	require.NoError(t, err)
	rows := strings.Split(string(enc.Data), "\n")
	for i, r := range rows {
		if id, rest, ok := strings.Cut(r, ","); ok && strings.HasPrefix(id, "s") && strings.Contains(id, "/") {
			rows[i] = id[:strings.IndexByte(id, '/')] + "," + rest
		}
	}
	list := filepath.Join(dir, "list.csv")
	require.NoError(t, os.WriteFile(list, []byte(strings.Join(rows, "\n")), 0o644))
	in2, err := Load(src, LoadOptions{ScratchList: list})
	require.NoError(t, err)
	_, a := in2.TFLite()
	assert.Contains(t, a.Kernels, list)
	res2, err := Plan(context.Background(), in2, quick("auto"))
	require.NoError(t, err)
	require.ErrorContains(t, in2.Write(list, res2.Plan), "is the input")
	assert.True(t, slices.Contains(in2.files, list))
}
