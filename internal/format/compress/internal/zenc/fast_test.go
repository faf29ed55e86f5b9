package zenc

import (
	"encoding/binary"
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
		if got := m.scanFast(at, at, at+1, m.maxStep(), rep); got != want {
			t.Errorf("only rep[%d] matching: scanFast stopped at %d, want %d", i, got, want)
		}
	}
}

// TestFastTags: after parseFast (and its warm-up), every entry of its
// tables and chains holds a position whose hash gives that slot and that
// tag, whichever of warm, fastAt, scanFast, indexFast or longAt wrote it;
// a reader that computes a tag otherwise loses matches, which the golden
// outputs of compress catch.
func TestFastTags(t *testing.T) {
	src := inputs()["mixed"]
	for _, level := range []int{1, 3, 6, 7, 8} {
		p := levelParams(level, 1<<30)
		warm := len(src) / 4
		m := newMatcher(src, p, 0, len(src))
		m.warm(0, warm)
		var seqs []seq
		for b := warm; b < len(src); b += blockMax {
			seqs = m.parseFast(b, min(b+blockMax, len(src)), seqs[:0])
		}
		check := func(name string, e int32, slot uint64, long bool) {
			if e == 0 {
				return
			}
			q := int(e&fastPosMask) - 1 + m.base
			v := binary.LittleEndian.Uint64(src[q:])
			h, rsh, tsh := v<<(m.hashLsh&63)*prime8, m.hashRsh, m.hashTsh
			if long {
				h, rsh, tsh = v*prime8, m.longRsh, m.longTsh
			}
			if h>>(rsh&63) != slot || fastTag(h, tsh) != e&^fastPosMask {
				t.Fatalf("level %d: %s slot %d holds position %d with tag %x, whose hash is slot %d tag %x", level, name, slot, q, uint32(e)>>fastPosBits, h>>(rsh&63), uint32(fastTag(h, tsh))>>fastPosBits)
			}
		}
		used := 0
		for s, e := range m.head {
			check("head", e, uint64(s), false)
			if e != 0 {
				used++
			}
		}
		for s, e := range m.long {
			check("long", e, uint64(s), true)
		}
		for _, e := range m.chain {
			if e == 0 {
				continue
			}
			// A link is an older entry of the head: its tag is that of
			// the position it holds.
			q := int(e&fastPosMask) - 1 + m.base
			v := binary.LittleEndian.Uint64(src[q:])
			h := v << (m.hashLsh & 63) * prime8
			check("chain", e, h>>(m.hashRsh&63), false)
		}
		if used < 4096 {
			t.Fatalf("level %d: %d of %d head slots used", level, used, len(m.head))
		}
	}
}

// TestFastSegmentsFitTags: a segment of parseFast and its warm-up are
// within the positions its tagged entries hold, however large the
// segments it is asked for.
func TestFastSegmentsFitTags(t *testing.T) {
	defer func(s int) { fastSegment = s }(fastSegment)
	for _, seg := range []int{fastSegment, 1 << 30} {
		fastSegment = seg
		for _, n := range []int{100 << 20, 300 << 20, 1<<30 + 1<<29} {
			b := segments(n, levelParams(1, n))
			for i := range len(b) - 1 {
				if span := b[i+1] - max(0, b[i]-warmBytes); span >= 1<<fastPosBits {
					t.Errorf("fastSegment %d, %d bytes: segment %d spans %d bytes with its warm-up, more than %d", seg, n, i, span, 1<<fastPosBits-1)
				}
			}
		}
	}
}

// TestStrideFindsRepeats: levels 3-8 step through a run of literals at
// most params.stride bytes at a time. In incompressible bytes with short
// repeats every few hundred bytes (data a GPU back: R5's blocks of it were
// stored raw), an unbounded step (one more every 256 literals) passes a
// repeat now and then, the run grows, the step with it, and the repeats
// after it are passed too; the bound keeps finding them.
func TestStrideFindsRepeats(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	src := make([]byte, 3<<20)
	r.Read(src)
	const size = 36
	var at []int
	for to := 64 << 10; to+size < len(src); to += 100 + r.Intn(300) {
		from := to - 1024 - r.Intn(min(to-1024, 2<<20))
		copy(src[to:to+size], src[from:from+size])
		at = append(at, to)
	}
	for _, level := range []int{3, 6, 8} {
		p := levelParams(level, 1<<30)
		if p.stride == 0 || p.stride > 32 {
			t.Fatalf("level %d: stride %d", level, p.stride)
		}
		var found [2]int
		for i, stride := range []int{p.stride, 0} {
			p.stride = stride
			m := newMatcher(src, p, 0, len(src))
			covered := make([]bool, len(src))
			for b := 0; b < len(src); b += blockMax {
				pos := b
				for _, s := range m.parseFast(b, min(b+blockMax, len(src)), nil) {
					pos += int(s.litLen)
					for i := pos; i < pos+int(s.matchLen); i++ {
						covered[i] = true
					}
					pos += int(s.matchLen)
				}
			}
			for _, a := range at {
				if covered[a+size/2] {
					found[i]++
				}
			}
		}
		if found[0] < found[1]*11/10 {
			t.Errorf("level %d: %d of %d repeats found with steps of %d at most, %d with unbounded steps", level, found[0], len(at), levelParams(level, 1<<30).stride, found[1])
		}
	}
}
