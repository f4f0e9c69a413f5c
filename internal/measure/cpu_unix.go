//go:build unix

package measure

import (
	"syscall"
	"time"
)

// CPUTime is the user+system CPU time of the process so far (0 when the
// system does not tell).
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
