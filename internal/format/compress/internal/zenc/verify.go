package zenc

import "bytes"

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

// match: the decoder copies off bytes back; since want up to pos has been
// decoded, the copy gives want if want repeats itself there (overlapping
// copies included: byte i equals byte i-off for every i).
func (v *verifier) match(off, n int) error {
	p := v.pos
	if off > p || p+n > len(v.want) || !bytes.Equal(v.want[p:p+n], v.want[p-off:p-off+n]) {
		return corrupt("match of %d bytes at %d from %d back differs", n, p, off)
	}
	v.pos += n
	return nil
}

// sequence is literals then match(off, n), as one call.
func (v *verifier) sequence(lits []byte, off, n int) error {
	p, q := v.pos, v.pos+len(lits)
	if q > len(v.want) || !bytes.Equal(lits, v.want[p:q]) {
		return corrupt("literals differ at %d", p)
	}
	if off > q || q+n > len(v.want) || !bytes.Equal(v.want[q:q+n], v.want[q-off:q-off+n]) {
		return corrupt("match of %d bytes at %d from %d back differs", n, q, off)
	}
	v.pos = q + n
	return nil
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
