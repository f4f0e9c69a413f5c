//go:build !unix

package main

import "os"

func canWrite(path string) bool { return true }

func umaskOnceNew() func() int { return func() int { return 0o22 } }

var umaskOnce = umaskOnceNew()

func newFileMode() os.FileMode { return 0o644 }

func keepOwner(tmp string, fi os.FileInfo) {}

// processAlive cannot tell here: every process may still be writing.
func processAlive(pid int) bool { return true }
