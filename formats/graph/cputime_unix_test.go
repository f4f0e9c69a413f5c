//go:build unix

package graph_test

import (
	"syscall"
	"testing"
	"time"
)

// reportCPU reports the CPU time of the process per op (every thread: the
// reader and the garbage collector) as cpu-ms/op, a figure that a machine
// shared with other jobs disturbs less than the wall time. Call it after
// the setup and run the returned function after the loop.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// cpuTime is the user and system time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
