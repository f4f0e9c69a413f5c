//go:build !unix

package main

import "os"

// usage returns a finished process's CPU time (user + system, seconds);
// the peak resident memory is not known here (0).
func usage(ps *os.ProcessState) (cpu, rssMiB float64) {
	return (ps.UserTime() + ps.SystemTime()).Seconds(), 0
}
