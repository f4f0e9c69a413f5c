package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModelsOnStdin (issue 35 item 9): the help said standard input takes
// no ONNX model; it takes every format, models included, sniffed — and
// plans them as from a file (a TFLite model with its scratch buffers).
func TestModelsOnStdin(t *testing.T) {
	code, stdout, _ := cli(t, "", "help", "plan")
	require.Equal(t, 0, code)
	assert.NotContains(t, stdout, "not ONNX")
	assert.Contains(t, stdout, `"-" reads standard input (every format, sniffed)`)

	data, err := os.ReadFile(sileroPath)
	if err != nil {
		t.Skip("the shared ONNX model is absent")
	}
	code, _, stderr := cli(t, string(data), "plan", "-", "--dim", "input:0=1", "--dim", "input:1=576", "--dim", "state:1=1", "--dim", "sr=16000")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "peak=10497 ")

	in := needTFLite(t, "keyword_scrambled_8bit.tflite")
	data, err = os.ReadFile(in)
	require.NoError(t, err)
	code, _, stderr = cli(t, string(data), "plan", "-")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "peak=672 ")
	assert.Contains(t, stderr, " scratch=14")
}

// TestClosedPipeLeavesNoTemporaryFiles (issue 35 item 13): plan --explain
// into a pipe closed early was killed by SIGPIPE and left its .tmp files;
// the write now fails as an ordinary error and every temporary file goes.
func TestClosedPipeLeavesNoTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "plan.csv")
	cmd := exec.Command(os.Args[0], "plan", "../../examples/resnet18.graph.json", "-o", out, "--explain")
	cmd.Env = append(os.Environ(), cliChildEnv+"=1")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	require.NoError(t, r.Close()) // the reader is gone before anything is written
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	w.Close()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	assert.Equal(t, 1, ee.ExitCode(), "killed by a signal instead of exiting: %s", stderr.String())
	assert.Contains(t, stderr.String(), "broken pipe")
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, f := range left {
		t.Errorf("left behind: %s", f.Name())
	}
}

// TestJSONProblemOnStdinNamedOps (D14): the crafted JSON problems of
// ../shared/hostile/sniff, whose buffers are named "ops" and "models", are
// read as JSON problems on standard input, not as model graphs.
func TestJSONProblemOnStdinNamedOps(t *testing.T) {
	for _, name := range []string{"ops_id.json", "models_id.json"} {
		data, err := os.ReadFile(hostileFile(t, "sniff", name))
		require.NoError(t, err)
		code, _, stderr := cli(t, string(data), "plan", "-")
		assert.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, "status=optimal")
	}
}

// TestDeviceInputRefused (issue 36 D18): /dev/zero as an input, a plan or
// a problem was read without end; a device that is not a terminal is
// refused at once, whatever its name says.
func TestDeviceInputRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "model.onnx")
	require.NoError(t, os.Symlink("/dev/zero", link))
	for _, args := range [][]string{
		{"plan", "/dev/zero"},
		{"plan", link},
		{"bounds", link},
		{"verify", "../../examples/tiny-cnn.csv", "/dev/zero"},
		{"viz", "/dev/zero", "--svg", filepath.Join(dir, "x.svg")},
	} {
		code, _, stderr := cli(t, "", args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, "is a device, not a file")
	}
}

// TestStaleTemporaryFilesRemoved (issue 36 D19): a process killed with
// SIGKILL between writing and renaming leaves its hidden temporary file;
// the next run that writes the same output removes it, and leaves alone
// the file of a process that still runs.
func TestStaleTemporaryFilesRemoved(t *testing.T) {
	dead := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, dead.Run())
	dir := t.TempDir()
	out := filepath.Join(dir, "plan.csv")
	stale := filepath.Join(dir, fmt.Sprintf(".plan.csv.tmp-%d-123", dead.Process.Pid))
	live := filepath.Join(dir, fmt.Sprintf(".plan.csv.tmp-%d-456", os.Getppid()))
	other := filepath.Join(dir, fmt.Sprintf(".other.csv.tmp-%d-789", dead.Process.Pid))
	for _, f := range []string{stale, live, other} {
		require.NoError(t, os.WriteFile(f, []byte("x"), 0o600))
	}
	code, _, stderr := cli(t, "", "plan", "../../examples/tiny-cnn.csv", "-o", out)
	require.Equal(t, 0, code, stderr)
	assert.NoFileExists(t, stale, "a dead writer's temporary file stays")
	assert.FileExists(t, live, "a running writer's temporary file was removed")
	assert.FileExists(t, other, "another output's temporary file was removed")
	assert.FileExists(t, out)
}
