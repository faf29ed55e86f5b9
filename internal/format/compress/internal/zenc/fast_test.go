package zenc

import (
	"math/rand"
	"slices"
	"testing"
)

// TestScanFast: parseFast with scanFast through runs of literals writes
// the sequences it writes with fastAt looking at every position, at each
// level that takes it, on the test inputs and on code-like words (a small
// vocabulary with changed bytes, so that runs of literals and matches at
// many offsets alternate).
func TestScanFast(t *testing.T) {
	in := inputs()
	r := rand.New(rand.NewSource(11))
	words := make([]uint64, 64)
	for i := range words {
		words[i] = r.Uint64()
	}
	code := make([]byte, 0, 2<<20)
	for len(code) < 2<<20 {
		w := words[r.Intn(len(words))]
		if r.Intn(4) == 0 {
			w ^= uint64(r.Intn(256)) << (8 * r.Intn(8))
		}
		for i := range 8 {
			code = append(code, byte(w>>(8*i)))
		}
	}
	in["code"] = code
	defer func() { scanLiterals = true }()
	for _, level := range []int{1, 3, 5, 6, 7, 8} {
		p := levelParams(level, 1<<30)
		if !p.fast {
			t.Fatalf("level %d: not parseFast", level)
		}
		for name, src := range in {
			if len(src) < 16 {
				continue
			}
			var got [2][]seq
			for i, scan := range []bool{true, false} {
				scanLiterals = scan
				m := newMatcher(src, p, 0, len(src))
				for b := 0; b < len(src); b += blockMax {
					got[i] = m.parseFast(b, min(b+blockMax, len(src)), got[i])
				}
			}
			if !slices.Equal(got[0], got[1]) {
				t.Errorf("level %d, %s: %d sequences with scanFast, %d without, not the same", level, name, len(got[0]), len(got[1]))
			}
		}
	}
}

// TestScanFastRepeats: scanFast stops where only one of the repeat
// offsets gives 3 bytes, whichever of the three it is, and not where none
// does.
func TestScanFastRepeats(t *testing.T) {
	p := levelParams(1, 1<<30)
	rep := [3]uint32{100, 200, 300}
	for i := -1; i < 3; i++ {
		src := make([]byte, 1000)
		rand.New(rand.NewSource(int64(i + 20))).Read(src)
		at := 500
		if i >= 0 {
			copy(src[at:at+3], src[at-int(rep[i]):])
		}
		for j, r := range rep {
			if j != i && src[at] == src[at-int(r)] {
				src[at-int(r)]++ // no other offset's first byte
			}
		}
		m := newMatcher(src, p, 0, len(src))
		want := at
		if i < 0 {
			want = at + 1
		}
		if got := m.scanFast(at, at, at+1, rep); got != want {
			t.Errorf("only rep[%d] matching: scanFast stopped at %d, want %d", i, got, want)
		}
	}
}
