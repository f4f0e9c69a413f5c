//go:build !unix

package optalloc

import "os"

func canWrite(path string) bool { return true }

func newFileMode() os.FileMode { return 0o644 }
