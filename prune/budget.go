package prune

import "sync"

// A rewrite holds at most one CCOB's data in memory (up to maxInflated),
// but tree prunes run one rewrite per CPU. inflating bounds what they
// hold together: a rewrite reserves a CCOB's inflated size before
// inflating it, and waits while other rewrites hold the rest. A CCOB
// larger than the whole budget waits for all of it, so big ones go one
// at a time and peak memory stays near maxInflated on any number of CPUs.
var inflating = newBudget(maxInflated)

// budget is a count of bytes shared by goroutines.
type budget struct {
	mu         sync.Mutex
	freed      *sync.Cond
	free, size int64
	acquired   int // how many times acquire returned, for tests
}

func newBudget(size int64) *budget {
	b := &budget{free: size, size: size}
	b.freed = sync.NewCond(&b.mu)
	return b
}

// acquire waits until n bytes (at least 1, at most the whole budget) are
// free, takes them and returns how many it took, for release.
func (b *budget) acquire(n int64) int64 {
	n = min(max(n, 1), b.size)
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.free < n {
		b.freed.Wait()
	}
	b.free -= n
	b.acquired++
	return n
}

func (b *budget) release(n int64) {
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.freed.Broadcast()
}

// reserve takes n bytes of the inflating budget for the selector's rewrite
// and returns the function that gives them back. A rewrite that holds some
// already (a CCOB met while rewriting another's inflated bundle) takes no
// more: its first reservation covers it, and waiting on itself would hang.
func (t *tally) reserve(n int64) (release func()) {
	if t.holding {
		return func() {}
	}
	got := inflating.acquire(n)
	t.holding = true
	return func() {
		t.holding = false
		inflating.release(got)
	}
}
