// Package parallel runs independent jobs on every CPU: reading the
// headers of thousands of code objects, decompressing CCOBs, walking and
// rewriting the files of an install.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in [0, n), on up to jobs goroutines at once
// (jobs <= 0: GOMAXPROCS), and returns when all calls have returned. The
// calls must not depend on each other's order.
func For(n, jobs int, fn func(i int)) {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, n)
	if jobs <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				fn(int(i))
			}
		}()
	}
	wg.Wait()
}
