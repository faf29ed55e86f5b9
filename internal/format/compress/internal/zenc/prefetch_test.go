package zenc

import "testing"

// TestPrefetch: a prefetch is a hint, not a load: nil and the last byte
// of a slice are as good as any address, and nothing changes.
func TestPrefetch(t *testing.T) {
	b := []byte{1, 2, 3}
	prefetch(nil)
	prefetch(&b[len(b)-1])
	if b[0] != 1 || b[2] != 3 {
		t.Fatal("prefetch changed memory")
	}
}
