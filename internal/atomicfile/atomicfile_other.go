//go:build !unix

package atomicfile

import "os"

// CanWrite cannot tell here: the write says.
func CanWrite(path string) bool { return true }

// NewFileMode is the mode of a new file.
func NewFileMode() os.FileMode { return 0o644 }

func keepOwner(tmp string, fi os.FileInfo) {}

// processAlive cannot tell here: every process may still be writing.
func processAlive(pid int) bool { return true }

// RereadUmask does nothing here (there is no umask).
func RereadUmask() {}
