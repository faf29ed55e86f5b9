package zenc

import (
	"testing"
	"unsafe"
)

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

// TestPrefetchRows: rows are 64 bytes, as prefetchRows's assembly counts
// them, and prefetching rows changes none.
func TestPrefetchRows(t *testing.T) {
	if n := unsafe.Sizeof(row{}); n != 64 {
		t.Fatalf("a row is %d bytes, want 64 (one cache line; prefetchRows)", n)
	}
	rows := make([]row, 4)
	rows[3].pos[0] = 7
	hs := [8]uint32{0, 1 << 8, 3<<8 | 255, 3 << 8, 0, 0, 2 << 8, 1}
	prefetchRows(&rows[0], &hs)
	if rows[3].pos[0] != 7 || hs[2] != 3<<8|255 {
		t.Fatal("prefetchRows changed memory")
	}
}
