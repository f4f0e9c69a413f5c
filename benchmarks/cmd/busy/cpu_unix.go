//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU is this process's CPU time so far, user and system (the
// spinning children are not counted).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
