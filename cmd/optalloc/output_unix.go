//go:build unix

package main

import (
	"os"
	"sync"
	"syscall"
)

// canWrite reports whether this process may open path for writing.
func canWrite(path string) bool { return syscall.Access(path, 2 /* W_OK */) == nil }

// umaskOnceNew reads the process's umask once (it can only be read by
// setting it).
func umaskOnceNew() func() int {
	return sync.OnceValue(func() int {
		m := syscall.Umask(0o22)
		syscall.Umask(m)
		return m
	})
}

var umaskOnce = umaskOnceNew()

// newFileMode is the mode of a new output file: 0666 minus the umask.
func newFileMode() os.FileMode { return os.FileMode(0o666 &^ umaskOnce()) }

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
