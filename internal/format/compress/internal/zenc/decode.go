package zenc

import (
	"errors"
	"io"
)

// historyLog sizes Decode's in-memory history: the last 4 MiB written.
const historyLog = 22

// ErrNoHistory is returned by Decode when a match reaches further back
// than its in-memory history and no reader of earlier output was given.
var ErrNoHistory = errors.New("zstd match beyond the in-memory history and no earlier output to read")

// Decode decodes one zstd frame read from r, writing its content to w,
// and returns the number of bytes written. It holds only the last 4 MiB
// of output in memory: a match reaching further back (or within 32 bytes
// of that) is read from back, which must return everything written to w
// so far at its offset (the file w writes to; nil if there is none). So
// decoding a frame whose window is its whole content, as libzstd writes
// single-segment frames, needs memory independent of the content's size.
// The frame must be complete; bytes after it are not read.
func Decode(w io.Writer, back io.ReaderAt, r io.Reader) (int64, error) {
	d := &streamDecoder{w: w, back: back}
	err := readFrame(&readerSource{r: r}, d)
	return d.flushed, err
}

// streamDecoder is the sink of Decode: it writes out, keeping a ring of recent output.
type streamDecoder struct {
	w       io.Writer
	back    io.ReaderAt
	ring    []byte // output byte i is ring[i&(len(ring)-1)] while i >= pos-len(ring)
	pos     int64  // bytes decoded
	flushed int64  // bytes written to w
	tmp     []byte
}

func (d *streamDecoder) size() int64 { return d.pos }

// expect sizes the ring: 4 MiB, less for a smaller content, never less
// than two blocks (so that what falls out of it has been written).
func (d *streamDecoder) expect(n int64) {
	size := int64(2 * blockMax)
	for size < 1<<historyLog && (n < 0 || size < n+2*blockMax) {
		size <<= 1
	}
	d.ring = make([]byte, size)
}

func (d *streamDecoder) literals(b []byte) error {
	mask := int64(len(d.ring) - 1)
	for len(b) > 0 {
		at := int(d.pos & mask)
		k := copy(d.ring[at:], b)
		b = b[k:]
		d.pos += int64(k)
	}
	return nil
}

func (d *streamDecoder) repeat(c byte, n int) error {
	mask := int64(len(d.ring) - 1)
	for n > 0 {
		at := int(d.pos & mask)
		k := min(n, len(d.ring)-at)
		seg := d.ring[at : at+k]
		for i := range seg {
			seg[i] = c
		}
		n -= k
		d.pos += int64(k)
	}
	return nil
}

// sequence writes lits and the match. Where neither wraps around the ring
// and the match's source does not overlap it, both are one copy each: most
// sequences of a fat binary (a few literals, tens of bytes of match) take
// that way, and those of up to 16 literals and 16 bytes of match are two
// 16-byte copies, whose bytes past the sequence's end are overwritten by
// the sequences after it. They overwrite the ring's oldest bytes first, so
// the ring keeps ringSlack bytes less than its size for matches.
func (d *streamDecoder) sequence(lits []byte, off, n int) error {
	r := len(d.ring)
	t := int(d.pos & int64(r-1))
	q := t + len(lits) // the match's place in the ring
	if s := q - off; s >= 0 && int64(off) <= d.pos+int64(len(lits)) {
		if len(lits) <= 16 && n <= 16 && off >= 16 && cap(lits) >= 16 && q+32 <= r {
			copy(d.ring[t:t+16], lits[:16])
			copy(d.ring[q:q+16], d.ring[s:s+16])
			d.pos += int64(len(lits) + n)
			return nil
		}
		if off >= n && q+n <= r {
			copy(d.ring[t:q], lits)
			copy(d.ring[q:q+n], d.ring[s:s+n])
			d.pos += int64(len(lits) + n)
			return nil
		}
	}
	if err := d.literals(lits); err != nil {
		return err
	}
	return d.match(off, n)
}

// ringSlack is how far short of the ring's size matches are taken from
// it (further back, from back): sequence writes up to 16 bytes past the
// output, over the ring's oldest bytes.
const ringSlack = 32

// match copies n bytes from off back.
func (d *streamDecoder) match(off, n int) error {
	if int64(off) > d.pos {
		return corrupt("match from %d back at %d", off, d.pos)
	}
	r := len(d.ring)
	if off > r-ringSlack {
		// Out of the ring (or among the bytes sequence may have written
		// over), and so (the ring holds at least two blocks) entirely in
		// what was written to w.
		if d.back == nil {
			return ErrNoHistory
		}
		if cap(d.tmp) < n {
			d.tmp = make([]byte, blockMax)
		}
		buf := d.tmp[:n]
		if _, err := d.back.ReadAt(buf, d.pos-int64(off)); err != nil {
			return err
		}
		return d.literals(buf)
	}
	// Forward copies in pieces that neither wrap nor overlap their
	// source: off <= len(ring), so no piece overwrites a byte a later
	// piece still reads.
	mask := int64(r - 1)
	for n > 0 {
		s, t := int((d.pos-int64(off))&mask), int(d.pos&mask)
		k := min(n, off, r-s, r-t)
		copy(d.ring[t:t+k], d.ring[s:s+k])
		n -= k
		d.pos += int64(k)
	}
	return nil
}

// endBlock writes the block's output.
func (d *streamDecoder) endBlock() error {
	mask := int64(len(d.ring) - 1)
	for d.flushed < d.pos {
		at := int(d.flushed & mask)
		k := int(min(d.pos-d.flushed, int64(len(d.ring)-at)))
		if _, err := d.w.Write(d.ring[at : at+k]); err != nil {
			return err
		}
		d.flushed += int64(k)
	}
	return nil
}
