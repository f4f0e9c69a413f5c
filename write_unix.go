//go:build unix

package optalloc

import (
	"os"
	"sync"
	"syscall"
)

// canWrite reports whether this process may open path for writing.
func canWrite(path string) bool { return syscall.Access(path, 2 /* W_OK */) == nil }

// umask is the process's umask, read once (it can only be read by setting
// it).
var umask = sync.OnceValue(func() int {
	m := syscall.Umask(0o22)
	syscall.Umask(m)
	return m
})

// newFileMode is the mode of a new output file: 0666 minus the umask.
func newFileMode() os.FileMode { return os.FileMode(0o666 &^ umask()) }
