// Package measure holds what the long measurements of several packages
// share: the process's CPU time, for tables that print wall and CPU time.
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
