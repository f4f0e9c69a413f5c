//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// usage returns a finished process's CPU time (user + system, seconds) and
// peak resident memory (MiB).
func usage(ps *os.ProcessState) (cpu, rssMiB float64) {
	cpu = (ps.UserTime() + ps.SystemTime()).Seconds()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		unit := 1024.0 // kilobytes on Linux and the BSDs
		if runtime.GOOS == "darwin" {
			unit = 1 // bytes
		}
		rssMiB = float64(ru.Maxrss) * unit / (1 << 20)
	}
	return cpu, rssMiB
}
