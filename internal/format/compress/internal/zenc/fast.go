package zenc

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// parseFast is the parser of the fastest levels: greedy, two hash tables
// (minMatch-byte and 8-byte prefixes, the latest position each), the
// repeat offset checked first, a stride that grows through literals, and
// only two positions of each match indexed. It does what parse does with
// lazy 0 and no chains, in one loop without scoring, which is what makes
// it several times faster: on fat binaries most bytes are inside long
// matches, and the cost is per sequence.
func (m *matcher) parseFast(start, end int, seqs []seq) []seq {
	src := m.src
	stop := min(end, len(src)-8)
	lit, p := start, start
	rep0, rep1, rep2 := m.rep[0], m.rep[1], m.rep[2]
	maxStep := m.maxStep()
	for p < stop {
		if scanLiterals {
			if p = m.scanFast(p, lit, stop, maxStep, [3]uint32{rep0, rep1, rep2}); p >= stop {
				break
			}
		}
		n, off := m.fastAt(p, end, [3]uint32{rep0, rep1, rep2})
		repeat := off == rep0 || off == rep1 || off == rep2
		if n > 0 && n < m.p.targetLen && p+1 < stop && !(repeat && n >= repKeep) {
			// Lazy: a match one byte on that is worth more (four points a
			// byte, less the bits of the offset) wins.
			for step := 0; step < m.p.lazy && n < m.p.targetLen && p+1 < stop; step++ {
				k, o := m.fastAt(p+1, end, [3]uint32{rep0, rep1, rep2})
				if k == 0 || score(k, o, rep0) <= score(n, off, rep0)+4 {
					break
				}
				p, n, off = p+1, k, o
			}
			if m.p.lazy == 0 {
				// Greedy: only a longer match one byte on from the 8-byte
				// table.
				if k, o := m.longAt(p+1, end); k > n+1 {
					p, n, off = p+1, k, o
				}
			}
		}
		if n == 0 {
			p += min(1+(p-lit)>>8, maxStep)
			continue
		}
		if n = min(n, end-p); n < 3 {
			p++
			continue
		}
		p, n = extendBack(src, lit, p, n, off)
		seqs = append(seqs, seq{litLen: uint32(p - lit), matchLen: uint32(n), off: off})
		rep0, rep1, rep2 = nextReps(off, rep0, rep1, rep2)
		e := p + n
		// Index the match's third byte and its end.
		if q := p + 2; q < stop {
			m.indexFast(q)
		}
		if q := e - 2; q > p+2 && q < stop {
			m.indexFast(q)
		}
		p = e
		lit = p
		// The second repeat offset, straight after a match, costs no
		// literals: take it while it matches.
		for p < stop && repAt(src, p, rep1, end) {
			k := 4 + matchLen(src, p-int(rep1)+4, p+4, end)
			seqs = append(seqs, seq{litLen: 0, matchLen: uint32(k), off: rep1})
			rep0, rep1 = rep1, rep0
			p += k
			lit = p
		}
		// The latest offset one byte on: code repeated with one byte
		// changed (a register, an immediate) goes on there. Taken at once
		// when it gives repNext bytes, without the tables (libzstd's fast
		// strategy looks there first too): on real kernels a tenth to a
		// fifth of the parse, for 1-2% in size.
		for m.p.repNext > 0 && p+5 <= stop && repAt(src, p+1, rep0, end) {
			k := 4 + matchLen(src, p+1-int(rep0)+4, p+5, end)
			if k < m.p.repNext {
				break
			}
			seqs = append(seqs, seq{litLen: 1, matchLen: uint32(k), off: rep0})
			p += 1 + k
			lit = p
		}
	}
	m.rep = [3]uint32{rep0, rep1, rep2}
	return seqs
}

// maxStep is the largest step parseFast takes through a run of literals:
// the step grows by one every 256 literals (as libzstd's does), up to
// m.p.stride where that is set.
func (m *matcher) maxStep() int {
	if m.p.stride > 0 {
		return m.p.stride
	}
	return math.MaxInt
}

// repKeep is the length from which a match at a repeat offset is taken
// without looking one byte on. The lazy look weighs rep1 and rep2 as new
// offsets, and a longer match one byte on at a new offset costs more bits
// than it saves: taking the repeat made every level 1-12 0.01-3% smaller on
// all seven corpora measured (but corpus A at 8, 0.4% larger, at 0.83 of
// libzstd's size) for 5-19% less parse time (4 cost rocBLAS 0.3% at 3;
// compress/NOTES.md).
const repKeep = 6

// score weighs a match as the lazy parsers do: four points a byte, less
// the bits of its offset (one for the latest repeat offset).
func score(n int, off, rep0 uint32) int {
	if off == rep0 {
		return 4*n - 1
	}
	return 4*n - bits.Len32(off+3)
}

// fastAt returns parseFast's match at p (length 0 if none): the longest
// at a repeat offset, replaced by the 8-byte table's candidate or else the
// minMatch-byte table's when worth more. It records p in both tables.
func (m *matcher) fastAt(p, end int, rep [3]uint32) (int, uint32) {
	src := m.src
	cur := binary.LittleEndian.Uint64(src[p : p+8])
	h, l := cur<<(m.hashLsh&63)*prime8, cur*prime8
	hs, ts := h>>(m.hashRsh&63), fastTag(h, m.hashTsh)
	hl, tl := l>>(m.longRsh&63), fastTag(l, m.longTsh)
	es, el := m.head[hs], m.long[hl]
	cs := int(es&fastPosMask) - 1 + m.base
	cl := int(el&fastPosMask) - 1 + m.base
	pos := int32(p - m.base + 1)
	if m.chain != nil {
		m.chain[p&m.mask] = es
	}
	m.head[hs], m.long[hl] = pos|ts, pos|tl
	// The repeat offsets, the longest of them: repMatch written out, since
	// the call cost level 1 5-7% of its CPU time on R3 and R5 (9
	// alternating runs).
	var n int
	var off uint32
	c3 := uint32(cur) << 8
	for _, r := range rep {
		if rep3At(src, p, r, c3) {
			if k := 3 + matchLen(src, p-int(r)+3, p+3, end); k > n {
				n, off = k, r
			}
		}
	}
	if n >= m.p.targetLen {
		return n, off
	}
	if el&^fastPosMask == tl && cl >= m.base && p-cl <= 1<<WindowLog && binary.LittleEndian.Uint64(src[cl:cl+8]) == cur {
		if k := 8 + matchLen(src, cl+8, p+8, end); n == 0 || score(k, uint32(p-cl), 0) > 4*n-1 {
			n, off = k, uint32(p-cl)
		}
	} else if es&^fastPosMask == ts && cs >= m.base && p-cs <= 1<<WindowLog && binary.LittleEndian.Uint32(src[cs:cs+4]) == uint32(cur) {
		if k := 4 + matchLen(src, cs+4, p+4, end); k >= m.p.minMatch && k >= farMin(uint32(p-cs)) && (n == 0 || score(k, uint32(p-cs), 0) > 4*n-1) {
			n, off = k, uint32(p-cs)
		}
	}
	// The chains only where the tables or the repeat offsets found a
	// match (so that scanFast can pass the rest): levels 7-8 took half the
	// CPU time on R5, 0.1% larger on R3 and D, 0.5% on R5 at 8.
	if m.chain != nil && n > 0 && n < m.p.targetLen {
		n, off = m.chainAt(p, end, cs, ts, n, off, rep[0])
	}
	return n, off
}

// scanLiterals is whether parseFast steps through runs of literals with
// scanFast (a variable so that tests can compare the parse without it).
var scanLiterals = true

// scanFast steps from p through a run of literals (the pending ones from
// lit) as parseFast does, recording each position it passes in both
// tables (and the chain) as fastAt would, and returns the first at which
// fastAt could find a match (at a repeat offset, or a candidate of either
// table whose first bytes are p's), without recording that one, or stop.
// The same parse as calling fastAt at every position, in a loop small
// enough that the processor overlaps the loads of several positions: on
// R5 (25 MB, much of it literals) levels 1, 3 and 6 took 13-20% less CPU
// time in the bundler (9 alternating runs), 7 and 8 half (with fastAt's
// chains walked only from a match). Loading the next position's slots and
// candidates before this one's compares was slower (R5 +24%), as was
// scanning only from the second literal of a run.
func (m *matcher) scanFast(p, lit, stop, maxStep int, rep [3]uint32) int {
	src, head, long := m.src, m.head, m.long
	base := m.base
	lsh, rsh, lrsh := m.hashLsh&63, m.hashRsh&63, m.longRsh&63
	tsh, ltsh := m.hashTsh, m.longTsh
	for ; p < stop; p += min(1+(p-lit)>>8, maxStep) {
		cur := binary.LittleEndian.Uint64(src[p : p+8])
		h, l := cur<<lsh*prime8, cur*prime8
		hs, ts := h>>rsh, fastTag(h, tsh)
		hl, tl := l>>lrsh, fastTag(l, ltsh)
		es, el := head[hs], long[hl]
		cs := int(es&fastPosMask) - 1 + base
		cl := int(el&fastPosMask) - 1 + base
		if el&^fastPosMask == tl && cl >= base && p-cl <= 1<<WindowLog && binary.LittleEndian.Uint64(src[cl:cl+8]) == cur ||
			es&^fastPosMask == ts && cs >= base && p-cs <= 1<<WindowLog && binary.LittleEndian.Uint32(src[cs:cs+4]) == uint32(cur) {
			return p
		}
		if c3 := uint32(cur) << 8; rep3At(src, p, rep[0], c3) || rep3At(src, p, rep[1], c3) || rep3At(src, p, rep[2], c3) {
			return p
		}
		pos := int32(p - base + 1)
		if m.chain != nil {
			m.chain[p&m.mask] = es
		}
		head[hs], long[hl] = pos|ts, pos|tl
	}
	return p
}

// chainAt looks for a better match than n bytes at off among the older
// positions of cand's chain (cand itself was tried), depth candidates at
// most; those whose tag is not p's (tag) have other first bytes and are
// passed. Only the positions parseFast visits are chained, which keeps
// the chains short and cheap to keep.
func (m *matcher) chainAt(p, end, cand int, tag int32, n int, off, rep0 uint32) (int, uint32) {
	src := m.src
	cur := binary.LittleEndian.Uint32(src[p : p+4])
	best := score(n, off, rep0)
	if n == 0 {
		best = 0
	}
	for d := m.p.depth; d > 0; d-- {
		if cand < m.base || p-cand > m.mask {
			break
		}
		e := m.chain[cand&m.mask]
		next := int(e&fastPosMask) - 1 + m.base
		if next < m.base || next >= cand || p-next > 1<<WindowLog {
			break
		}
		cand = next
		if e&^fastPosMask != tag || p+n < end && src[cand+n] != src[p+n] || binary.LittleEndian.Uint32(src[cand:cand+4]) != cur {
			continue
		}
		k := 4 + matchLen(src, cand+4, p+4, end)
		if o := uint32(p - cand); k >= m.p.minMatch && k >= farMin(o) && score(k, o, rep0) > best {
			n, off, best = k, o, score(k, o, rep0)
			if n >= m.p.targetLen {
				break
			}
		}
	}
	return n, off
}

// indexFast records p in parseFast's tables (and chain).
func (m *matcher) indexFast(p int) {
	v := binary.LittleEndian.Uint64(m.src[p:])
	h, l := v<<(m.hashLsh&63)*prime8, v*prime8
	hs := h >> (m.hashRsh & 63)
	pos := int32(p - m.base + 1)
	if m.chain != nil {
		m.chain[p&m.mask] = m.head[hs]
	}
	m.head[hs] = pos | fastTag(h, m.hashTsh)
	m.long[l>>(m.longRsh&63)] = pos | fastTag(l, m.longTsh)
}

// longAt returns the 8-byte table's match at p (length 0 if none) and
// records p there.
func (m *matcher) longAt(p, end int) (int, uint32) {
	src := m.src
	cur := binary.LittleEndian.Uint64(src[p : p+8])
	l := cur * prime8
	hl, tl := l>>(m.longRsh&63), fastTag(l, m.longTsh)
	e := m.long[hl]
	c := int(e&fastPosMask) - 1 + m.base
	m.long[hl] = int32(p-m.base+1) | tl
	if e&^fastPosMask == tl && c >= m.base && p-c <= 1<<WindowLog && binary.LittleEndian.Uint64(src[c:c+8]) == cur {
		return 8 + matchLen(src, c+8, p+8, end), uint32(p - c)
	}
	return 0, 0
}

// parseFast's tables and chains hold positions (from 1; 0 is none) in
// their low fastPosBits, enough for a segment and its warm-up, and above
// them fastTagBits of the hash below the slot's own bits (fastTag): a
// candidate whose tag differs from the position's has other first bytes,
// so it is passed without loading them, a load from anywhere in the
// input, mostly a cache miss. The same parse as without the tags, in less
// CPU time in the bundler (5-7 alternating runs): R5 at levels 1, 6 and 8
// 264 -> 214, 316 -> 246 and 338 -> 314 ms, rocRAND at 1 and 7 136 -> 127
// and 226 -> 191.
const (
	fastTagBits = 5
	fastPosBits = 32 - fastTagBits
	fastPosMask = 1<<fastPosBits - 1
)

// fastTag is the tag of hash product h, whose bits from tsh up follow the
// slot's: those bits at the top of an int32.
func fastTag(h uint64, tsh uint8) int32 {
	return int32(uint32(h>>(tsh&63)) << fastPosBits)
}
