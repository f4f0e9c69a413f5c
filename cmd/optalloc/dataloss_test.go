//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optalloc/optalloc/internal/atomicfile"
)

// Outputs must never destroy an input, whatever path spelling names it.

const tinyCNN = "../../examples/tiny-cnn.csv"

// copyFile copies src to dst with the given mode and returns dst's content.
func copyFile(t *testing.T, src, dst string, mode os.FileMode) []byte {
	t.Helper()
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dst, data, mode))
	require.NoError(t, os.Chmod(dst, mode))
	return data
}

// planFile writes a plan CSV of tiny-cnn into dir and returns its path.
func planFile(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "plan.csv")
	code, _, stderr := cli(t, "", "plan", tinyCNN, "-o", path, "--quiet", "--method", "greedy-size")
	require.Equal(t, 0, code, stderr)
	return path
}

func TestOutputNeverOverwritesAnInput(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "self.csv")
	want := copyFile(t, tinyCNN, self, 0o644)
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink("self.csv", link))
	hard := filepath.Join(dir, "hard.csv")
	require.NoError(t, os.Link(self, hard))
	plan := planFile(t, dir)
	planData, err := os.ReadFile(plan)
	require.NoError(t, err)
	base := filepath.Join(dir, "base.json")
	code, _, stderr := cli(t, "", "check", self, "--write-baseline", base, "-q")
	require.Equal(t, 0, code, stderr)
	baseData, err := os.ReadFile(base)
	require.NoError(t, err)
	dotted := filepath.Join(dir, ".", "sub", "..", "self.csv")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"plan -o through a symlink", []string{"plan", link, "-o", self}},
		{"plan -o the symlink", []string{"plan", self, "-o", link}},
		{"plan -o a hard link", []string{"plan", self, "-o", hard}},
		{"plan -o a dotted path", []string{"plan", self, "-o", dotted}},
		{"plan --svg", []string{"plan", self, "--svg", link}},
		{"plan --html", []string{"plan", link, "--html", self}},
		{"plan --schedule", []string{"plan", self, "--layout", "blocks", "--schedule", self}},
		{"plan --layout blocks -o", []string{"plan", self, "--layout", "blocks", "-o", link}},
		{"check --write-baseline the input", []string{"check", self, "--write-baseline", self}},
		{"check --write-baseline a linked input", []string{"check", link, "--write-baseline", hard}},
		{"check --write-baseline the baseline", []string{"check", self, "--baseline", base, "--write-baseline", base}},
		{"viz --svg the plan", []string{"viz", plan, "--svg", plan}},
		{"viz --html the plan", []string{"viz", plan, "--html", plan}},
		{"viz --svg the problem", []string{"viz", plan, "--problem", self, "--svg", self}},
		{"viz --html the problem via a link", []string{"viz", plan, "--problem", self, "--html", link}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "", append(tc.args, "--quiet")...)
			if tc.args[0] == "viz" {
				code, stdout, stderr = cli(t, "", tc.args...)
			}
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, "is the input")
			assert.Empty(t, stdout)
			for path, data := range map[string][]byte{self: want, plan: planData, base: baseData} {
				got, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.Equal(t, string(data), string(got), "%s changed", path)
			}
			fi, err := os.Lstat(link)
			require.NoError(t, err)
			assert.Equal(t, os.ModeSymlink, fi.Mode()&os.ModeSymlink, "the symlink was replaced")
		})
	}
}

func TestTwoOutputsToStdoutRefused(t *testing.T) {
	for _, args := range [][]string{
		{"plan", tinyCNN, "-o", "-", "--svg", "-"},
		{"plan", tinyCNN, "--svg", "-", "--html", "-"},
		{"plan", tinyCNN, "--svg", "-", "--json"},
		{"plan", tinyCNN, "--layout", "blocks", "-o", "-", "--schedule", "-"},
	} {
		code, stdout, stderr := cli(t, "", args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, "stdout", args)
		assert.Empty(t, stdout, args)
	}
}

func TestOutputWritesThroughSymlinkKeepsMode(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.csv")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o664))
	require.NoError(t, os.Chmod(target, 0o664))
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink("target.csv", link))
	code, _, stderr := cli(t, "", "plan", tinyCNN, "-o", link, "--quiet")
	require.Equal(t, 0, code, stderr)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode()&os.ModeSymlink, "the symlink must stay a symlink")
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "id,"), "the target holds the plan: %q", got)
	fi, err = os.Stat(target)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o664), fi.Mode().Perm(), "the mode is kept")
	code, _, stderr = cli(t, "", "verify", tinyCNN, link)
	require.Equal(t, 0, code, stderr)

	// A dangling symlink: its target is created.
	dangling := filepath.Join(dir, "dangling.json")
	require.NoError(t, os.Symlink("made.json", dangling))
	code, _, stderr = cli(t, "", "plan", tinyCNN, "-o", dangling, "--quiet")
	require.Equal(t, 0, code, stderr)
	_, err = os.Stat(filepath.Join(dir, "made.json"))
	require.NoError(t, err)
	fi, err = os.Lstat(dangling)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode()&os.ModeSymlink)
}

func TestNewOutputFollowsUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	atomicfile.RereadUmask()
	defer atomicfile.RereadUmask()
	path := filepath.Join(t.TempDir(), "p.csv")
	code, _, stderr := cli(t, "", "plan", tinyCNN, "-o", path, "--quiet")
	require.Equal(t, 0, code, stderr)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
}

func TestReadOnlyOutputRefusedBeforeSolving(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro.csv")
	require.NoError(t, os.WriteFile(ro, []byte("keep\n"), 0o444))
	require.NoError(t, os.Chmod(ro, 0o444))
	for _, args := range [][]string{
		{"plan", tinyCNN, "-o", ro, "--time-limit", "1h", "--method", "exact"},
		{"plan", tinyCNN, "--svg", ro},
		{"check", tinyCNN, "--write-baseline", ro},
	} {
		code, stdout, stderr := cli(t, "", append(args, "--quiet")...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, "read-only")
		assert.Empty(t, stdout)
		got, err := os.ReadFile(ro)
		require.NoError(t, err)
		assert.Equal(t, "keep\n", string(got))
	}
}

// The device tests make their own device nodes (as root), never touching
// /dev: a regression must not replace the machine's /dev/null.
func mkdev(t *testing.T, path string, major, minor int) {
	t.Helper()
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, major<<8|minor); err != nil {
		t.Skipf("mknod (needs root): %v", err)
	}
}

func TestOutputToDeviceWritesThrough(t *testing.T) {
	dir := t.TempDir()
	null, full := filepath.Join(dir, "null"), filepath.Join(dir, "full")
	mkdev(t, null, 1, 3)
	mkdev(t, full, 1, 7)
	stdout := filepath.Join(dir, "stdout")
	require.NoError(t, os.Symlink("null", stdout))
	isDev := func(path string) {
		fi, err := os.Lstat(path)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeDevice, "%s is still a device", path)
	}
	for _, args := range [][]string{
		{"plan", tinyCNN, "-o", null},
		{"plan", tinyCNN, "-o", stdout},
		{"plan", tinyCNN, "--svg", stdout, "--html", full + "x"},
		{"plan", tinyCNN, "--layout", "blocks", "--schedule", null},
		{"check", tinyCNN, "--write-baseline", null},
	} {
		code, _, stderr := cli(t, "", append(args, "--quiet")...)
		require.Equal(t, 0, code, "%v: %s", args, stderr)
		isDev(null)
		fi, err := os.Lstat(stdout)
		require.NoError(t, err)
		assert.Equal(t, os.ModeSymlink, fi.Mode()&os.ModeSymlink)
	}

	// A full device refuses every write: exit 1 with the reason, the device stays.
	code, _, stderr := cli(t, "", "plan", tinyCNN, "-o", full, "--quiet")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "no space left")
	isDev(full)
}

func TestOutputToFIFOWritesThrough(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Opened read-write: the command's open does not block, and nothing
	// blocks if the FIFO is (wrongly) replaced.
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	code, _, stderr := cli(t, "", "plan", tinyCNN, "-o", fifo, "--quiet")
	require.Equal(t, 0, code, stderr)
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	require.NotZero(t, fi.Mode()&os.ModeNamedPipe, "still a FIFO")
	require.NoError(t, f.SetReadDeadline(time.Now().Add(5*time.Second)))
	buf := make([]byte, 1<<16)
	n, err := f.Read(buf)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(buf[:n]), "id,"), "%q", buf[:n])
}

func TestVerifyChecksStatedPeakAndReadsStdin(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	code, _, stderr := cli(t, "", "plan", tinyCNN, "-o", plan, "--quiet", "--method", "greedy-size")
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(plan)
	require.NoError(t, err)
	code, stdout, stderr := cli(t, string(data), "verify", tinyCNN, "-")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "valid")

	var j map[string]any
	require.NoError(t, json.Unmarshal(data, &j))
	j["peak"] = j["peak"].(float64) - 1
	bad, err := json.Marshal(j)
	require.NoError(t, err)
	code, stdout, _ = cli(t, string(bad), "verify", tinyCNN, "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "wrong-peak")

	code, _, stderr = cli(t, "", "verify", "-", "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "both standard input")
}

// /dev/stdout is a symlink to /proc/self/fd/1, itself a link to a pipe or a
// terminal with no path: the output is written through it.
func TestOutputThroughProcFdLink(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	link := filepath.Join(t.TempDir(), "stdout")
	require.NoError(t, os.Symlink(fmt.Sprintf("/proc/self/fd/%d", w.Fd()), link))
	code, _, stderr := cli(t, "", "plan", tinyCNN, "-o", link, "--quiet")
	w.Close()
	require.Equal(t, 0, code, stderr)
	data, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "id,"), "%q", data)
}

func TestTwoOutputsThroughALinkRefused(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "a.svg")
	require.NoError(t, os.WriteFile(svg, []byte("old"), 0o644))
	link := filepath.Join(dir, "b.html")
	require.NoError(t, os.Symlink("a.svg", link))
	code, _, stderr := cli(t, "", "plan", tinyCNN, "--svg", svg, "--html", link, "--quiet")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "two outputs name the same file")
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode()&os.ModeSymlink)
}
