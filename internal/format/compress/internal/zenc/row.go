package zenc

import (
	"encoding/binary"
	"math/bits"
)

// The row match finder of the lazy levels: the hash of a position's first
// minMatch bytes picks a row of the 12 latest positions with that hash's
// row bits, and keeps a byte more of the hash (a tag) beside each, so that a
// search compares the 12 tags at once and reads only the positions whose
// tag is equal. A row is one cache line. Every position is indexed (but
// the inside of matches longer than skipIn), which is what finds the short
// matches machine code is made of; chains of every position find them too
// but cost a cache miss a link. The rows of the next eight positions are
// prefetched, their hashes kept meanwhile.
const rowWays = 12

// The warm-up before a segment indexes its last rowWarm bytes fully, and
// one position in rowWarmStep before them: as small as the full warm-up of
// 4 MiB (0.01% on rocSPARSE 5.7.1, corpus A and B), in 40% of its steps.
const (
	rowWarm     = 1 << 20
	rowWarmStep = 4
)

// rowAhead is how many positions are hashed, and their rows prefetched,
// at a time, 8-16 positions before they are indexed.
const rowAhead = 8

type row struct {
	tag  [rowWays]byte
	head uint8 // the newest entry
	_    [3]byte
	pos  [rowWays]int32 // position-base+1
}

// rowHash returns p's row (high bits) and tag (low byte).
func (m *matcher) rowHash(p int) uint32 {
	return uint32(binary.LittleEndian.Uint64(m.src[p:]) << (m.hashLsh & 63) * prime8 >> (m.rowRsh & 63))
}

// rowSeek makes q the next position to index.
func (m *matcher) rowSeek(q int) {
	m.next, m.hashed = q, q
	m.rowHashAhead()
}

// rowHashAhead hashes the rowAhead positions from m.hashed into m.hashes
// and prefetches their rows.
func (m *matcher) rowHashAhead() {
	a := m.hashed
	m.hashed += rowAhead
	src := m.src
	if a+rowAhead+8 > len(src) {
		for ; a+8 <= len(src) && a < m.hashed; a++ {
			m.hashes[uint(a)%(2*rowAhead)] = m.rowHash(a)
		}
		return
	}
	var hs [rowAhead]uint32
	lsh, rsh := m.hashLsh&63, m.rowRsh&63
	w := (*[rowAhead + 8]byte)(src[a : a+rowAhead+8]) // an array: no bounds checks below
	for i := range hs {
		hs[i] = uint32(binary.LittleEndian.Uint64(w[i:i+8]) << lsh * prime8 >> rsh)
		m.hashes[uint(a+i)%(2*rowAhead)] = hs[i]
	}
	if m.rowPrefetch {
		prefetchRows(&m.rows[0], &hs)
	}
}

// put records a position (pos: position-base+1) of hash h as the row's
// newest entry, in place of its oldest.
func (r *row) put(h uint32, pos int32) {
	hd := uint(r.head) - 1 // a fresh row's 0 wraps around
	if hd >= rowWays {
		hd = rowWays - 1
	}
	r.head = uint8(hd)
	r.tag[hd] = byte(h)
	r.pos[hd] = pos
}

// rowFill indexes the positions from m.next up to (not including) p, each
// as its row's newest entry, hashing (and prefetching the rows of) the
// positions 8-16 on eight at a time.
func (m *matcher) rowFill(p int) {
	q := m.next
	rows, hashed := m.rows, m.hashed
	for ; q < p; q++ {
		if hashed-q <= rowAhead {
			m.rowHashAhead()
			hashed = m.hashed
		}
		h := m.hashes[uint(q)%(2*rowAhead)]
		rows[h>>8].put(h, int32(q-m.base+1))
	}
	m.next = q
}

// rowStep indexes m.next, of hash h, and moves on.
func (m *matcher) rowStep(h uint32) {
	q := m.next
	if m.hashed-q <= rowAhead {
		m.rowHashAhead()
	}
	m.rows[h>>8].put(h, int32(q-m.base+1))
	m.next = q + 1
}

// rowSparse indexes one position in step of src[from:to], rows
// prefetched a batch ahead.
func (m *matcher) rowSparse(from, to, step int) {
	var cur, nxt [rowAhead]uint32
	lsh, rsh := m.hashLsh&63, m.rowRsh&63
	src := m.src
	hashBatch := func(a int, hs *[rowAhead]uint32) {
		for i := range hs {
			hs[i] = uint32(binary.LittleEndian.Uint64(src[a+i*step:]) << lsh * prime8 >> rsh)
		}
		if m.rowPrefetch {
			prefetchRows(&m.rows[0], hs)
		}
	}
	batch := rowAhead * step
	if to-from < 2*batch {
		return
	}
	hashBatch(from, &cur)
	for a := from; ; a += batch {
		more := a+2*batch <= to
		if more {
			hashBatch(a+batch, &nxt)
		}
		for i, h := range cur {
			m.rows[h>>8].put(h, int32(a+i*step-m.base+1))
		}
		if !more {
			return
		}
		cur = nxt
	}
}

// rowSkip is called for a match from at to end: it prefetches the rows of
// the eight positions from end (the next search), and leaves the inside of
// a match longer than skipIn out of the rows, since it repeats what is
// indexed already: only its first skipIn/2 positions and its last 8 are.
func (m *matcher) rowSkip(at, end, stop int) {
	if m.rowPrefetch && end+rowAhead+8 <= len(m.src) {
		var hs [rowAhead]uint32
		w := (*[rowAhead + 8]byte)(m.src[end : end+rowAhead+8])
		for i := range hs {
			hs[i] = uint32(binary.LittleEndian.Uint64(w[i:i+8]) << (m.hashLsh & 63) * prime8 >> (m.rowRsh & 63))
		}
		prefetchRows(&m.rows[0], &hs)
	}
	if m.p.skipIn == 0 || end-at <= m.p.skipIn {
		return
	}
	m.rowFill(min(at+m.p.skipIn/2, stop))
	if q := min(end-8, stop); q > m.next {
		m.rowSeek(q)
	}
}

// repLen is the length of the match at p at offset r, ending by end, if it
// is at least 4 bytes long (else 0).
func repLen(src []byte, p int, r uint32, end int) int {
	if !repAt(src, p, r, end) {
		return 0
	}
	return 4 + matchLen(src, p-int(r)+4, p+4, end)
}

// repAt tells whether the 4 bytes at p, all before end, repeat r bytes
// back. Small enough to inline, where repLen is not: the parsers' loops
// over repeat offsets call it and measure the match themselves.
func repAt(src []byte, p int, r uint32, end int) bool {
	q := p - int(r)
	return q >= 0 && p+4 <= end && binary.LittleEndian.Uint32(src[q:q+4]) == binary.LittleEndian.Uint32(src[p:p+4])
}

// rep3At tells whether the first 3 bytes at p repeat r bytes back; c3 is
// p's 4-byte word shifted left by 8 (the 3 bytes, compared at once).
// Small enough to inline: repMatch, fastAt and scanFast try the three
// repeat offsets with it.
func rep3At(src []byte, p int, r, c3 uint32) bool {
	q := p - int(r)
	return q >= 0 && binary.LittleEndian.Uint32(src[q:q+4])<<8 == c3
}

// repMatch returns the longest match at p, ending by end, at one of the
// repeat offsets rep, if at least 3 bytes long (else 0); n may run past
// end by up to 3 bytes when p+3 > end.
func repMatch(src []byte, p, end int, rep [3]uint32) (n int, off uint32) {
	c3 := binary.LittleEndian.Uint32(src[p:p+4]) << 8
	for _, r := range rep {
		if rep3At(src, p, r, c3) {
			if k := 3 + matchLen(src, p-int(r)+3, p+3, end); k > n {
				n, off = k, r
			}
		}
	}
	return n, off
}

// offBits is an offset's cost as lazy evaluation counts it: the latest
// repeat offset's none, others their value plus three's.
func offBits(off, rep0 uint32) int {
	if off == rep0 {
		return 0
	}
	return bits.Len32(off+3) - 1
}

// zeroBytes returns a bit for each zero byte of x, byte i's as bit i.
func zeroBytes(x uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	y := ^((x&low7 + low7) | x | low7) // 0x80 in each zero byte, exactly
	return (y >> 7) * 0x0102040810204080 >> 56
}

// rowFind returns the longest match at p, ending by limit, among the
// entries of p's row whose tag is p's (depth of them at most, newest first),
// and the long-distance match covering p (length 0 if none). It indexes
// every position up to p, and p.
func (m *matcher) rowFind(p, limit int) (int, uint32) {
	src := m.src
	var n int
	var off uint32
	m.rowFill(p)
	if m.ldm != nil {
		if n, off = m.ldmSpan(p, limit); n >= m.p.targetLen {
			return n, off
		}
	}
	fresh := p == m.next
	var h uint32
	if fresh {
		h = m.hashes[uint(p)%(2*rowAhead)]
	} else {
		h = m.rowHash(p) // indexed already
	}
	r := &m.rows[h>>8]
	hd := int(r.head)
	t := uint64(byte(h)) * 0x0101010101010101
	hits := zeroBytes(binary.LittleEndian.Uint64(r.tag[:8])^t) | zeroBytes(binary.LittleEndian.Uint64(r.tag[4:])^t)>>4<<8
	hits = (hits | hits<<rowWays) >> (uint(hd) & 15) & (1<<rowWays - 1) // bit j: the entry j after the newest (hd < rowWays)
	if fresh {
		m.rowStep(h)
	}
	// The candidates' bytes are not prefetched first: that pass cost 4-14%
	// of level 10's CPU time on R1, R3 and R5 (compress/NOTES.md).
	cur := binary.LittleEndian.Uint32(src[p : p+4])
	for d := m.p.depth; hits != 0 && d > 0; d-- {
		i := hd + bits.TrailingZeros64(hits)
		hits &= hits - 1
		if i >= rowWays {
			i -= rowWays
		}
		c := int(r.pos[i]) - 1 + m.base
		if c < m.base || p-c > 1<<WindowLog {
			break // an empty entry, or older than the window: so are the rest
		}
		if c >= p || binary.LittleEndian.Uint32(src[c:c+4]) != cur || n > 0 && p+n < limit && src[c+n] != src[p+n] {
			continue
		}
		if k := 4 + matchLen(src, c+4, p+4, limit); k > n {
			n, off = k, uint32(p-c)
			if k >= m.p.targetLen || p+k >= limit {
				break
			}
		}
	}
	return min(n, limit-p), off
}

// parseRow is the lazy parser of the row match finder, weighing matches as
// libzstd's lazy2 does: a match is searched one and two bytes on, and one
// there wins if it is worth more (four points a byte, less the bits of its
// offset) by a margin that grows with the bytes it leaves as literals. The
// three repeat offsets are tried at each position searched (from 3 bytes),
// the latest one byte on too, and the second straight after a match. In a
// run of k literals one position in 1+k/256 is searched (a
// larger stride made rocSPARSE 5.7.1's bundle 0.2% larger at 1+k/128).
func (m *matcher) parseRow(start, end int, seqs []seq) []seq {
	src := m.src
	stop := min(end, len(src)-8)
	lit, p := start, start
	rep0, rep1, rep2 := m.rep[0], m.rep[1], m.rep[2]
	for p < stop {
		// The repeat offsets at p, from 3 bytes (parseFast's rule): code
		// repeated with a byte changed goes on at an offset just used.
		// Without them the rows were 0.5-7% larger on the eight corpora
		// measured, in as much CPU time (compress/NOTES.md).
		n, off := repMatch(src, p, end, [3]uint32{rep0, rep1, rep2})
		n, at := min(n, end-p), p
		if p+1 < stop {
			if k := repLen(src, p+1, rep0, end); k > n {
				n, off, at = k, rep0, p+1
			}
		}
		if k, o := m.rowFind(p, end); k > n {
			n, off, at = k, o, p
		}
		if n < 3 {
			p += 1 + (p-lit)>>8
			continue
		}
		// A repeat one byte on must beat the current match at three points
		// a byte, two bytes on at four; another match by 4 and 7 points
		// (libzstd's lazy2 weights). The two steps are written out: as one
		// loop they took 1% more instructions.
		for q := at; n < m.p.targetLen && q+1 < stop && m.p.lazy > 0; {
			q++
			if k := repLen(src, q, rep0, end); k > 0 && 3*k > 3*n-offBits(off, rep0)+1 {
				n, off, at = k, rep0, q
			}
			if k, o := m.rowFind(q, end); k >= 4 && 4*k-offBits(o, rep0) > 4*n-offBits(off, rep0)+4 {
				n, off, at = k, o, q
				continue
			}
			if m.p.lazy < 2 || q+1 >= stop {
				break
			}
			q++
			if k := repLen(src, q, rep0, end); k > 0 && 4*k > 4*n-offBits(off, rep0)+1 {
				n, off, at = k, rep0, q
			}
			if k, o := m.rowFind(q, end); k >= 4 && 4*k-offBits(o, rep0) > 4*n-offBits(off, rep0)+7 {
				n, off, at = k, o, q
				continue
			}
			break
		}
		n = min(n, end-at)
		at, n = extendBack(src, lit, at, n, off)
		seqs = append(seqs, seq{litLen: uint32(at - lit), matchLen: uint32(n), off: off})
		rep0, rep1, rep2 = nextReps(off, rep0, rep1, rep2)
		p = at + n
		m.rowSkip(at, p, stop)
		lit = p
		// The second repeat offset straight after a match costs no
		// literals: take it while it matches.
		for p < stop && repAt(src, p, rep1, end) {
			k := 4 + matchLen(src, p-int(rep1)+4, p+4, end)
			seqs = append(seqs, seq{litLen: 0, matchLen: uint32(k), off: rep1})
			rep0, rep1 = rep1, rep0
			m.rowSkip(p, p+k, stop)
			p += k
			lit = p
		}
	}
	m.rep = [3]uint32{rep0, rep1, rep2}
	return seqs
}
