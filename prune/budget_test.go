package prune

import (
	"bytes"
	"os"
	"sync"
	"testing"
	"time"
)

func TestBudget(t *testing.T) {
	b := newBudget(10)
	if got := b.acquire(25); got != 10 {
		t.Fatalf("acquire(25) of 10 took %d", got)
	}
	done := make(chan int64)
	go func() { done <- b.acquire(3) }()
	select {
	case <-done:
		t.Fatal("acquire went ahead with the budget taken")
	case <-time.After(50 * time.Millisecond):
	}
	b.release(10)
	if got := <-done; got != 3 {
		t.Errorf("acquire(3) took %d", got)
	}
	if got := b.acquire(0); got != 1 {
		t.Errorf("acquire(0) took %d, want 1", got)
	}
	b.release(3)
	b.release(1)
	if b.free != b.size {
		t.Errorf("free %d of %d after every release", b.free, b.size)
	}
}

// A rewrite reserving again while it holds part of the budget (a CCOB
// inside another's bundle) does not wait on itself.
func TestReserveNested(t *testing.T) {
	saved := inflating
	inflating = newBudget(1)
	defer func() { inflating = saved }()
	var ta tally
	done := make(chan bool)
	go func() {
		outer := ta.reserve(100)
		inner := ta.reserve(100)
		inner()
		outer()
		done <- true
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("nested reserve hung")
	}
	if inflating.free != 1 {
		t.Errorf("free %d of 1 after the rewrite", inflating.free)
	}
}

// Rewrites running at once, as a tree prune runs them, share the
// inflating budget: with a budget smaller than one CCOB they go one at a
// time, all finish, and each writes what a rewrite alone writes.
func TestRewritesShareBudget(t *testing.T) {
	in, err := os.ReadFile("../testdata/inspect/libmulti-ccob.so")
	if err != nil {
		t.Fatal(err)
	}
	rewrite := func() ([]byte, error) {
		out := &memOut{}
		_, err := Rewrite(out, bytes.NewReader(in), int64(len(in)), "libmulti-ccob.so", Options{Keep: targets("gfx90a")})
		return out.b, err
	}
	want, err := rewrite()
	if err != nil {
		t.Fatal(err)
	}
	if len(list(t, want).Devices()) != 3 {
		t.Fatalf("the rewrite alone kept %d code objects, want 3", len(list(t, want).Devices()))
	}
	saved := inflating
	inflating = newBudget(1)
	defer func() { inflating = saved }()
	var wg sync.WaitGroup
	got := make([][]byte, 6)
	errs := make([]error, len(got))
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = rewrite()
		}()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || !bytes.Equal(got[i], want) {
			t.Errorf("rewrite %d: err %v, same bytes as alone: %v", i, errs[i], bytes.Equal(got[i], want))
		}
	}
	if inflating.free != inflating.size {
		t.Errorf("free %d of %d after every rewrite", inflating.free, inflating.size)
	}
	if inflating.acquired < len(got) {
		t.Errorf("the budget was taken %d times by %d rewrites of CCOBs", inflating.acquired, len(got))
	}
}
