package zenc

import (
	"encoding/binary"
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
	shortShift := uint(64 - 8*m.p.minMatch)
	hlog, llog := 64-uint(m.p.hashLog), 64-uint(m.p.longLog)
	head, long := m.head, m.long
	base := m.base
	minBase := base // candidates before base are not indexed
	lit, p := start, start
	rep0, rep1, rep2 := m.rep[0], m.rep[1], m.rep[2]
	for p < stop {
		cur := binary.LittleEndian.Uint64(src[p:])
		hs := (cur << shortShift * prime8) >> hlog
		hl := (cur * prime8) >> llog
		cs := int(head[hs]) - 1 + base
		cl := int(long[hl]) - 1 + base
		pos := int32(p - base + 1)
		head[hs], long[hl] = pos, pos
		var n int
		var off uint32
		// The repeat offsets first, the longest of them.
		for _, r := range [3]uint32{rep0, rep1, rep2} {
			if int(r) <= p && (binary.LittleEndian.Uint32(src[p-int(r):])^uint32(cur))<<8 == 0 {
				if k := 3 + matchLen(src, p-int(r)+3, p+3, end); k > n {
					n, off = k, r
				}
			}
		}
		if n < m.p.targetLen {
			if cl >= minBase && p-cl <= 1<<WindowLog && binary.LittleEndian.Uint64(src[cl:]) == cur {
				// Taken if worth more than the repeat: four points a byte,
				// less the bits of the offset.
				if k := 8 + matchLen(src, cl+8, p+8, end); n == 0 || 4*k-bits.Len32(uint32(p-cl)+3) > 4*n-1 {
					n, off = k, uint32(p-cl)
				}
			} else if cs >= minBase && p-cs <= 1<<WindowLog && binary.LittleEndian.Uint32(src[cs:]) == uint32(cur) {
				if k := 4 + matchLen(src, cs+4, p+4, end); k >= m.p.minMatch && k >= farMin(uint32(p-cs)) && (n == 0 || 4*k-bits.Len32(uint32(p-cs)+3) > 4*n-1) {
					n, off = k, uint32(p-cs)
					// A longer match one byte on, from the 8-byte table?
					if q := p + 1; q < stop {
						nx := binary.LittleEndian.Uint64(src[q:])
						hq := (nx * prime8) >> llog
						if c := int(long[hq]) - 1 + base; c >= minBase && q-c <= 1<<WindowLog && binary.LittleEndian.Uint64(src[c:]) == nx {
							long[hq] = int32(q - base + 1)
							if k := 8 + matchLen(src, c+8, q+8, end); k > n+1 {
								p, n, off = q, k, uint32(q-c)
							}
						}
					}
				}
			}
		}
		if n == 0 {
			p += 1 + (p-lit)>>8
			continue
		}
		if n = min(n, end-p); n < 3 {
			p++
			continue
		}
		// Extend backwards over the pending literals.
		for p > lit && int(off) < p && src[p-1] == src[p-1-int(off)] {
			p--
			n++
		}
		seqs = append(seqs, seq{litLen: uint32(p - lit), matchLen: uint32(n), off: off})
		switch off {
		case rep0:
		case rep1:
			rep0, rep1 = rep1, rep0
		default:
			rep0, rep1, rep2 = off, rep0, rep1
		}
		e := p + n
		// Index the match's third byte and its end.
		if q := p + 2; q < stop {
			v := binary.LittleEndian.Uint64(src[q:])
			head[(v<<shortShift*prime8)>>hlog] = int32(q - base + 1)
			long[(v*prime8)>>llog] = int32(q - base + 1)
		}
		if q := e - 2; q > p+2 && q < stop {
			v := binary.LittleEndian.Uint64(src[q:])
			head[(v<<shortShift*prime8)>>hlog] = int32(q - base + 1)
			long[(v*prime8)>>llog] = int32(q - base + 1)
		}
		p = e
		lit = p
		// The second repeat offset, straight after a match, costs no
		// literals: take it while it matches.
		for p < stop && p+4 <= end && int(rep1) <= p && binary.LittleEndian.Uint32(src[p:]) == binary.LittleEndian.Uint32(src[p-int(rep1):]) {
			k := min(4+matchLen(src, p-int(rep1)+4, p+4, end), end-p)
			seqs = append(seqs, seq{litLen: 0, matchLen: uint32(k), off: rep1})
			rep0, rep1 = rep1, rep0
			p += k
			lit = p
		}
	}
	m.rep = [3]uint32{rep0, rep1, rep2}
	return seqs
}
