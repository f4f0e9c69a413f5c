//go:build unix

package onnx

import (
	"io"
	"os"
	"syscall"
)

// load returns the bytes of r: a regular file is mapped read-only (its
// pages are read on demand and, being clean file pages, never count as
// the process's own memory); anything else is read whole.
func load(r io.Reader) ([]byte, func(), error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 && st.Size() == int64(int(st.Size())) {
			data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
			if err == nil {
				return data, func() { _ = syscall.Munmap(data) }, nil
			}
		}
	}
	data, err := io.ReadAll(r)
	return data, func() {}, err
}
