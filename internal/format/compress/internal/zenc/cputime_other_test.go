//go:build !unix

package zenc

import "time"

var start = time.Now()

// cpuTime stands in for the CPU time where getrusage is missing: wall time.
func cpuTime() time.Duration { return time.Since(start) }
