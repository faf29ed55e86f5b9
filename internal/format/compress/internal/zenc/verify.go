package zenc

import (
	"bytes"
	"encoding/binary"
)

// Verify reports whether frame is exactly one zstd frame (without
// dictionary) whose content is want. It decodes the frame as any decoder
// would (readFrame), but compares instead of writing: literals are
// checked against want where they land and matches as want against
// itself, so the history a decoder needs is want itself and no output
// buffer is ever allocated. It returns nil or the first difference.
func Verify(frame, want []byte) error {
	src := &bytesSource{b: frame}
	v := &verifier{want: want}
	if err := readFrame(src, v); err != nil {
		return err
	}
	if len(src.b) != 0 {
		return corrupt("%d bytes after the frame", len(src.b))
	}
	if v.pos != len(want) {
		return corrupt("%d bytes decoded, want %d", v.pos, len(want))
	}
	return nil
}

// verifier is the sink that compares with want.
type verifier struct {
	want []byte
	pos  int // bytes of want matched so far
}

func (v *verifier) literals(b []byte) error {
	if v.pos+len(b) > len(v.want) || !bytes.Equal(b, v.want[v.pos:v.pos+len(b)]) {
		return corrupt("literals differ at %d", v.pos)
	}
	v.pos += len(b)
	return nil
}

// sequence checks lits against want where they land, then a match of n
// bytes from off back: the decoder copies off bytes back, and since want up
// to there has been decoded, the copy gives want if want repeats itself
// there (overlapping copies included: byte i equals byte i-off for every
// i). Literal runs and matches of up to 16 bytes, most of them, are
// compared as two words each where there is room to load them: calls to a
// general compare were a third of Verify's time on rocRAND's 417,000
// sequences.
func (v *verifier) sequence(lits []byte, off, n int) error {
	p, q := v.pos, v.pos+len(lits)
	w := v.want
	if k := len(lits); k <= 16 && n <= 16 && cap(lits) >= 16 && off <= q && q+n+16 <= len(w) {
		l, a := lits[:16], w[p:p+16]
		if diff16(binary.LittleEndian.Uint64(l)^binary.LittleEndian.Uint64(a), binary.LittleEndian.Uint64(l[8:])^binary.LittleEndian.Uint64(a[8:]), k) {
			return corrupt("literals differ at %d", p)
		}
		m, b := w[q:q+16], w[q-off:q-off+16]
		if diff16(binary.LittleEndian.Uint64(m)^binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(m[8:])^binary.LittleEndian.Uint64(b[8:]), n) {
			return corrupt("match of %d bytes at %d from %d back differs", n, q, off)
		}
		v.pos = q + n
		return nil
	}
	if err := v.literals(lits); err != nil {
		return err
	}
	if off > q || q+n > len(w) || !bytes.Equal(w[q:q+n], w[q-off:q-off+n]) {
		return corrupt("match of %d bytes at %d from %d back differs", n, q, off)
	}
	v.pos = q + n
	return nil
}

// diff16 reports whether the first n (<= 16) bytes of two 16-byte strings
// differ, given the XOR of their low and high words.
func diff16(lo, hi uint64, n int) bool {
	k := min(n, 8)
	return lo<<(64-8*uint(k)) != 0 || hi<<(64-8*uint(n-k)) != 0
}

func (v *verifier) repeat(c byte, n int) error {
	if v.pos+n > len(v.want) {
		return corrupt("RLE block past the end")
	}
	for _, x := range v.want[v.pos : v.pos+n] {
		if x != c {
			return corrupt("RLE block differs at %d", v.pos)
		}
	}
	v.pos += n
	return nil
}

func (v *verifier) endBlock() error { return nil }
func (v *verifier) expect(int64)    {}
func (v *verifier) size() int64     { return int64(v.pos) }
