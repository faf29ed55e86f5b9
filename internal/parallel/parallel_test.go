package parallel

import (
	"sync/atomic"
	"testing"
)

func TestFor(t *testing.T) {
	for _, jobs := range []int{0, 1, 3, 100} {
		var sum atomic.Int64
		seen := make([]int32, 1000)
		For(len(seen), jobs, func(i int) {
			atomic.AddInt32(&seen[i], 1)
			sum.Add(int64(i))
		})
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("jobs %d: %d called %d times", jobs, i, s)
			}
		}
		if sum.Load() != 999*1000/2 {
			t.Fatalf("jobs %d: sum %d", jobs, sum.Load())
		}
	}
	For(0, 4, func(int) { t.Fatal("called for n = 0") })
}
