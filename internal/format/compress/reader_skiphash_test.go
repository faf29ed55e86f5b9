package compress

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
)

// TestSkipHash: a wrong stored hash is a *HashMismatchError at the end of
// the data, and nothing with SkipHash (for callers that ignore it, as LLVM
// does, without paying for the MD5).
func TestSkipHash(t *testing.T) {
	var b bytes.Buffer
	if _, err := Compress(&b, bytes.Repeat([]byte("code object "), 1000), Options{}); err != nil {
		t.Fatal(err)
	}
	blob := b.Bytes()
	h, err := ParseHeader(blob)
	if err != nil || h.Len() != 32 {
		t.Fatalf("header %+v, %v", h, err)
	}
	blob[24] ^= 0xff // the stored hash
	for _, skip := range []bool{false, true} {
		r := NewReader(bytes.NewReader(blob), int64(len(blob)))
		if skip {
			r.SkipHash()
		}
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		_, err := io.Copy(io.Discard, r)
		if mismatch := errors.Is(err, ErrHashMismatch); mismatch == skip || !skip && err == nil || skip && err != nil {
			t.Errorf("SkipHash %v: %v", skip, err)
		}
	}
}

// TestCloseGivesBackDecoder: a reader left in the middle of a member gives
// its decoder back on Close (and on Next), so reading the starts of many
// CCOBs one after another does not allocate a window for each, and reads
// after Close fail. Before Close existed, every abandoned member kept a
// window of its size: listing a library of 100 CCOBs cleared 1.6 GB.
func TestCloseGivesBackDecoder(t *testing.T) {
	if raceEnabled {
		t.Skip("measures allocations, which sync.Pool makes random under -race")
	}
	const size = 4 << 20
	data := make([]byte, size)
	x := uint32(1)
	for i := range data {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		data[i] = byte(x)
	}
	var b bytes.Buffer
	if _, err := Compress(&b, data, Options{}); err != nil {
		t.Fatal(err)
	}
	blob := b.Bytes()
	two := append(append([]byte(nil), blob...), blob...)
	buf := make([]byte, 1024)
	run := func(close bool) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 20 {
			r := NewReader(bytes.NewReader(two), int64(len(two)))
			r.SkipHash()
			for range 2 { // Next leaves the first member half read
				if _, err := r.Next(); err != nil {
					t.Fatal(err)
				}
				if _, err := io.ReadFull(r, buf); err != nil || !bytes.Equal(buf, data[:len(buf)]) {
					t.Fatalf("read: %v", err)
				}
			}
			if close {
				r.Close()
				if _, err := r.Read(buf); err == nil {
					t.Fatal("Read after Close succeeded")
				}
				if _, err := r.Next(); err == nil {
					t.Fatal("Next after Close succeeded")
				}
			}
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	if got := run(true); got > 8*size {
		t.Errorf("40 half-read members with Close allocated %d MiB, want at most %d", got>>20, 8*size>>20)
	}
	if got := run(false); got < 20*size {
		t.Errorf("without Close, 20 abandoned members allocated only %d MiB: the test measures nothing", got>>20)
	}
}

// TestWindowDescriptor: the window handed to the decoder holds the data,
// and is at most an eighth larger than it (at least one block).
func TestWindowDescriptor(t *testing.T) {
	size := func(d byte) uint64 {
		base := uint64(1) << (10 + d>>3)
		return base + base/8*uint64(d&7)
	}
	for _, w := range []uint64{1, 1 << 17, 1<<17 + 1, 200_000, 10_814_640, 93_360_760, 1<<27 - 1, 1 << 27} {
		got := size(windowDescriptor(w))
		if got < w || got > max(w+w/8, 1<<17) {
			t.Errorf("window for %d bytes: %d", w, got)
		}
	}
}
