// Package atomicfile is optalloc's one way of replacing a file: the front
// door's Input.Write, the CLI's staged outputs (cmd/optalloc/output.go) and
// the developer tools (the results report, graph2tflite) all write through
// it. A file is written into a temporary file beside its target (named
// after the target and the writer's process id, so that a later run can
// remove what a killed one left), synced, given the mode of the file it
// replaces (or 0666 minus the umask), then renamed over the target and the
// rename synced: a failed write never leaves half a file. Symlinks are
// followed (ResolveLinks: the target is written, the link stays). What a
// caller may write (an input, a device) is the caller's rule.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Write replaces path with data; anything that is not a regular file (a
// device, a pipe, a folder) is refused rather than replaced.
func Write(path string, data []byte) error {
	target, err := ResolveLinks(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(target)
	if err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, err := Create(target)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := Finish(tmp, fi); err != nil {
		return err
	}
	return Commit(tmp.Name(), target)
}

// ResolveLinks follows the symlinks of path, even a dangling one, to the
// file a write must change.
func ResolveLinks(path string) (string, error) {
	p := path
	for range 64 {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return p, nil
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
	}
	return "", errors.New("too many levels of symbolic links")
}

// tempPrefix is the start of the name of target's temporary files; the
// writer's process id follows.
func tempPrefix(target string) string { return "." + filepath.Base(target) + ".tmp-" }

// Create makes the temporary file that will replace target (a path with
// its links resolved), after removing those a process that no longer runs
// left behind (killed between writing and renaming).
func Create(target string) (*os.File, error) {
	removeStale(target)
	return os.CreateTemp(filepath.Dir(target), tempPrefix(target)+strconv.Itoa(os.Getpid())+"-*")
}

// Finish syncs and closes tmp, written, and gives it the mode (and, for
// root, the owner) of old, the file it replaces (nil for a new file: 0666
// minus the umask). tmp is closed even on error.
func Finish(tmp *os.File, old os.FileInfo) error {
	err := tmp.Sync() // the data is on disk before the rename makes it the file
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	mode := NewFileMode()
	if old != nil {
		mode = old.Mode().Perm()
		keepOwner(tmp.Name(), old)
	}
	return os.Chmod(tmp.Name(), mode)
}

// Commit renames tmp over target and makes the rename durable (best
// effort).
func Commit(tmp, target string) error {
	if err := os.Rename(tmp, target); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(target)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// removeStale removes the temporary files of target whose writer no longer
// runs.
func removeStale(target string) {
	prefix := tempPrefix(target)
	names, _ := filepath.Glob(filepath.Join(filepath.Dir(target), globEscape(prefix)+"*-*"))
	for _, name := range names {
		pid, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(name), prefix), "-")
		if n, err := strconv.Atoi(pid); ok && err == nil && n > 0 && n != os.Getpid() && !processAlive(n) {
			os.Remove(name)
		}
	}
}

// globEscape quotes the pattern characters of a file name.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
