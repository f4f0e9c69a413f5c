//go:build unix

package atomicfile

import (
	"os"
	"sync"
	"syscall"
)

// CanWrite reports whether this process may open path for writing.
func CanWrite(path string) bool { return syscall.Access(path, 2 /* W_OK */) == nil }

// umask is the process's umask, read once (it can only be read by setting
// it).
var umask = readUmask()

func readUmask() func() int {
	return sync.OnceValue(func() int {
		m := syscall.Umask(0o22)
		syscall.Umask(m)
		return m
	})
}

// RereadUmask forgets the umask read, for a test that changes it.
func RereadUmask() { umask = readUmask() }

// NewFileMode is the mode of a new file: 0666 minus the umask.
func NewFileMode() os.FileMode { return os.FileMode(0o666 &^ umask()) }

// keepOwner gives tmp the owner and group of the file it replaces (only
// root may; best effort).
func keepOwner(tmp string, fi os.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
		os.Lchown(tmp, int(st.Uid), int(st.Gid))
	}
}

// processAlive reports whether a process with this id runs (or may: one
// of another user's answers "not permitted").
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
