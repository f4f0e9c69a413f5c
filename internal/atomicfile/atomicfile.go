// Package atomicfile writes a whole file at once for optalloc's developer
// tools (the results report, graph2tflite): into a temporary file beside
// the target, synced, then renamed over it, so a failed write never leaves
// half a file. A symlink is followed (its target is written, the link
// stays), an existing file keeps its mode, and anything that is not a
// regular file (a device, a pipe, a folder) is refused rather than
// replaced. The CLI has its own, staged outputs (cmd/optalloc/output.go).
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data (see the package comment).
func Write(path string, data []byte) error {
	target, mode := path, fs.FileMode(0o644)
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			if target, err = filepath.EvalSymlinks(path); err != nil {
				return err
			}
			if fi, err = os.Stat(target); err != nil {
				return err
			}
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}
