package main

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEveryHostileFile runs plan on every crafted file of ../shared/hostile
// (the files of issue 36; each has its own test beside this sweep): a
// verified plan (exit 0, and verify accepts it) or one line and exit 2
// with nothing written — never a panic, a stack trace or a plan verify
// rejects. TFLite models are also written back and verified.
func TestEveryHostileFile(t *testing.T) {
	root := filepath.Clean(sharedHostile)
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skipf("%s is absent (it sits beside the repository in CI)", root)
	}
	for _, in := range files {
		t.Run(strings.TrimPrefix(in, root+string(filepath.Separator)), func(t *testing.T) {
			outs := []string{filepath.Join(t.TempDir(), "plan.csv")}
			if strings.HasSuffix(in, ".tflite") {
				outs = append(outs, filepath.Join(t.TempDir(), "planned.tflite"))
			}
			for _, out := range outs {
				code, _, stderr := cli(t, "", "plan", in, "-o", out, "--time-limit", "3s", "--quiet")
				assert.NotContains(t, stderr, "panic:")
				assert.NotContains(t, stderr, "goroutine ")
				switch code {
				case 0:
					args := []string{"verify", in, out}
					if strings.HasSuffix(out, ".tflite") {
						args = []string{"verify", out}
					}
					vcode, stdout, verr := cli(t, "", args...)
					assert.Equal(t, 0, vcode, "the plan written does not verify: %s%s", stdout, verr)
				case 2:
					assert.Equal(t, 1, strings.Count(stderr, "\n"), "not one line: %q", stderr)
					assert.NoFileExists(t, out)
				default:
					t.Errorf("exit %d: %s", code, stderr)
				}
			}
		})
	}
}
