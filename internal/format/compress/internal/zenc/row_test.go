package zenc

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestZeroBytes: each zero byte of a word, and only those, sets its bit,
// whatever the bytes beside it (a borrow from one byte must not mark the
// next).
func TestZeroBytes(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	vals := []byte{0, 1, 0x7f, 0x80, 0x81, 0xff}
	for range 20000 {
		var b [8]byte
		for i := range b {
			if r.Intn(3) == 0 {
				b[i] = vals[r.Intn(len(vals))]
			} else {
				b[i] = byte(r.Intn(256))
			}
		}
		var x, want uint64
		for i := range b {
			x |= uint64(b[i]) << (8 * i)
			if b[i] == 0 {
				want |= 1 << i
			}
		}
		if got := zeroBytes(x); got != want {
			t.Fatalf("zeroBytes(%#016x) = %08b, want %08b", x, got, want)
		}
	}
}

// rowMatcher indexes src for rowFind, with level 12's settings and tables
// (not cut to src's size: few positions share a row).
func rowMatcher(src []byte, depth int) *matcher {
	p := levelParams(12, 1<<30)
	p.depth, p.ldm = depth, false
	m := newMatcher(src, p, 0, 1<<24)
	m.rowSeek(0)
	return m
}

// TestRowNewestFirst: of equally long matches the nearest is found, at
// depth 1 too (the newest entry is tried first), and a row keeps its 12
// latest positions only.
func TestRowNewestFirst(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	word := []byte("0123456789abcdef")
	var src []byte
	var at []int
	for range 14 {
		filler := make([]byte, 100)
		r.Read(filler)
		src = append(src, filler...)
		at = append(at, len(src))
		src = append(src, word...)
		src = append(src, byte(len(at))) // a different byte after each copy
	}
	src = append(src, make([]byte, 64)...)
	last := at[len(at)-1]
	for _, depth := range []int{1, 4, 12} {
		m := rowMatcher(src, depth)
		n, off := m.rowFind(last, len(src))
		if n != len(word) || int(off) != last-at[len(at)-2] {
			t.Errorf("depth %d: match of %d bytes at offset %d, want %d at %d", depth, n, off, len(word), last-at[len(at)-2])
		}
	}
	// 13 copies before the last: the row holds 12 of them (the
	// positions of the fillers have other hashes, mostly), so the first
	// copy is gone. Its match would be as long; make it longer.
	copy(src[at[0]+len(word):], src[last+len(word):last+len(word)+8])
	m := rowMatcher(src, 12)
	if n, off := m.rowFind(last, len(src)); int(off) == last-at[0] {
		t.Errorf("the 13th latest position was still found (%d bytes)", n)
	}
	// With 11 copies before it the first is still in the row.
	src2 := src[:at[11]+len(word)+1]
	src2 = append(src2, make([]byte, 64)...)
	copy(src2[at[0]+len(word):], src2[at[11]+len(word):at[11]+len(word)+8])
	m = rowMatcher(src2, 12)
	if n, off := m.rowFind(at[11], len(src2)); int(off) != at[11]-at[0] {
		t.Errorf("the 12th latest position: match of %d bytes at offset %d, want offset %d", n, off, at[11]-at[0])
	}
}

// TestRowParser: the row parser's sequences decode to the input on every
// kind of input, small ones taking its tables cut to their size, and in
// segments: with one worker and several, the same bytes.
func TestRowParser(t *testing.T) {
	defer smallSegments()()
	for _, level := range []int{10, 12, 13} {
		p := levelParams(level, 1<<30)
		if !p.row {
			t.Fatalf("level %d does not use the row parser", level)
		}
		for name, src := range inputs() {
			enc := encode(nil, src, p, 1)
			if got := decode(t, enc); !bytes.Equal(got, src) {
				t.Fatalf("%s level %d: round trip differs", name, level)
			}
			if enc3 := encode(nil, src, p, 3); !bytes.Equal(enc3, enc) {
				t.Errorf("%s level %d: 3 workers give other bytes than 1", name, level)
			}
		}
	}
}

// TestRowWhole: the row parser takes an input under rowWhole as one segment
// (a second would index the first's end again) and cuts a larger one in two.
func TestRowWhole(t *testing.T) {
	p := levelParams(10, 1<<30)
	if b := segments(rowWhole-1, p); len(b) != 2 {
		t.Errorf("%d bytes at level 10: segments %v, want one", rowWhole-1, b)
	}
	if b := segments(rowWhole+blockMax, p); len(b) != 3 {
		t.Errorf("%d bytes at level 10: segments %v, want two", rowWhole+blockMax, b)
	}
	if b := segments(rowWhole-1, textParams(9)); len(b) != 3 {
		t.Errorf("%d bytes of text at level 9 (chains): segments %v, want two", rowWhole-1, b)
	}
}

// TestRowShortRepeats: parseRow takes matches of 3 bytes at a repeat
// offset, which its rows (5-byte hashes) cannot find: a copy of random
// bytes with every fourth byte changed (after its first 128) is
// three-quarters matches, at rep0 and, where two copies alternate, at
// rep1.
func TestRowShortRepeats(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	a, b := make([]byte, 4096), make([]byte, 4096)
	r.Read(a)
	r.Read(b)
	for name, pick := range map[string]func(i int) byte{
		"one copy": func(i int) byte { return a[i] },
		"alternating": func(i int) byte {
			if i/64%2 == 1 {
				return b[i]
			}
			return a[i]
		},
	} {
		src := append(append([]byte{}, a...), b...)
		for i := range 4096 {
			c := pick(i)
			if i%4 == 3 && i >= 128 { // the first 128 bytes set the offsets
				c = ^c
			}
			src = append(src, c)
		}
		src = append(src, make([]byte, 16)...)
		m := newMatcher(src, levelParams(10, 1<<30), 0, len(src))
		m.warm(0, 8192)
		m.rowSeek(8192)
		matched := 0
		for _, s := range m.parseRow(8192, len(src), nil) {
			matched += int(s.matchLen)
		}
		if matched < 3*4096/4 {
			t.Errorf("%s: %d of 4096 bytes in matches, want at least 3072", name, matched)
		}
	}
}
