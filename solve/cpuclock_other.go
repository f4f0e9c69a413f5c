//go:build !unix

package solve

import "time"

// wallStart stands in for the process's start where no CPU clock is read.
var wallStart = time.Now()

// processCPU is the wall time since the program started times the cores,
// where the process's CPU time is not read: shares are then counted on the
// wall clock, as before.
func processCPU() time.Duration { return time.Since(wallStart) * cpuRate() }
