package zenc

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"
)

// TestLargeInput: an input past the 2^27-byte window. The frame declares a
// 2^27 window (not a single segment), no match reaches further, and it
// decodes (klauspost with that window, and Verify). The input repeats a
// block 2^27+1 MiB back, out of reach, and one 4 MiB back.
func TestLargeInput(t *testing.T) {
	if testing.Short() {
		t.Skip("a 130 MiB input (-short)")
	}
	n := 1<<WindowLog + 3<<20
	src := make([]byte, n)
	rng := rand.New(rand.NewSource(1))
	rng.Read(src[:2<<20])
	copy(src[n-1<<20:], src[:1<<20])    // too far back
	copy(src[4<<20:5<<20], src[:1<<20]) // in reach
	for i := 5 << 20; i < n-1<<20; i += 4096 {
		binary.LittleEndian.PutUint64(src[i:], uint64(i)) // fixed-stride records
	}
	levels := []int{1, 9}
	if !raceEnabled {
		levels = append(levels, 13)
	}
	for _, level := range levels {
		enc := Encode(nil, src, level, 0)
		if enc[4]&0x20 != 0 || enc[5] != (WindowLog-10)<<3 {
			t.Fatalf("level %d: frame header %x, want a 2^27 window", level, enc[4:6])
		}
		if err := Verify(enc, src); err != nil {
			t.Fatalf("level %d: %v", level, err)
		}
		if got := decode(t, enc); !bytes.Equal(got, src) {
			t.Fatalf("level %d: round trip differs", level)
		}
		// The unreachable repeat costs about its size; the reachable one
		// almost nothing.
		if len(enc) < 3<<20 || len(enc) > 3<<20+3<<20/10 {
			t.Errorf("level %d: %d bytes for 3 MiB of random data", level, len(enc))
		}
	}
}
