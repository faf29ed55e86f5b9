package zenc

import (
	"math/bits"

	"github.com/klauspost/compress/huff0"
)

// Block splitting: a block's sequences are cut into smaller blocks where
// their statistics change, so that each gets Huffman and FSE tables of its
// own. A run is cut at a quarter, half or three quarters while the
// estimated sizes of the two parts, new tables included, are below the
// whole's.

// minSplitSeqs is the fewest sequences a block is cut into.
const minSplitSeqs = 300

// splitTries-1 cuts are weighed for each part: at the quarters.
const splitTries = 4

// A splitter estimates the coded size of runs of a block's sequences.
type splitter struct {
	src  []byte
	seqs []seq
	at   []int // at[i]: where seqs[i]'s literals start in src; at[len(seqs)]: len(src)
	ofc  []uint8
	lits []byte
	huff huff0.Scratch
	cuts []int
}

// encodeSplit appends src, described by seqs, as one block or several.
func (c *coder) encodeSplit(dst, src []byte, seqs []seq, last bool) []byte {
	if len(seqs) < 2*minSplitSeqs {
		return c.encodeBlock(dst, src, seqs, last)
	}
	s := c.split
	if s == nil {
		s = &splitter{}
		c.split = s
	}
	s.src, s.seqs = src, seqs
	s.at, s.ofc = s.at[:0], s.ofc[:0]
	pos := 0
	rep := c.rep
	for _, q := range seqs {
		s.at = append(s.at, pos)
		pos += int(q.litLen + q.matchLen)
		var ov uint32
		ov, rep = offsetValue(q.off, q.litLen, rep)
		s.ofc = append(s.ofc, uint8(bits.Len32(ov)-1))
	}
	s.at = append(s.at, len(src))
	s.cuts = s.cuts[:0]
	s.cut(0, len(seqs), s.cost(0, len(seqs)))
	from, fromSeq := 0, 0
	for _, k := range s.cuts {
		to := s.at[k]
		dst = c.encodeBlock(dst, src[from:to], seqs[fromSeq:k], false)
		from, fromSeq = to, k
	}
	return c.encodeBlock(dst, src[from:], seqs[fromSeq:], last)
}

// cut records, in order, where seqs[lo:hi] (estimated at whole) is worth
// cutting.
func (s *splitter) cut(lo, hi int, whole uint64) {
	if hi-lo < 2*minSplitSeqs {
		return
	}

	mid, a, b := 0, uint64(0), whole
	for k := 1; k < splitTries; k++ {
		m := lo + (hi-lo)*k/splitTries
		if m-lo < minSplitSeqs || hi-m < minSplitSeqs {
			continue
		}
		x, y := s.cost(lo, m), s.cost(m, hi)
		if x+y < a+b {
			mid, a, b = m, x, y
		}
	}
	if mid == 0 {
		return
	}
	s.cut(lo, mid, a)
	s.cuts = append(s.cuts, mid)
	s.cut(mid, hi, b)
}

// cost estimates, in 1/256 bits, seqs[lo:hi] coded as a block of their
// own with new tables (the last run takes the block's trailing literals).
func (s *splitter) cost(lo, hi int) uint64 {
	end := s.at[hi]
	if hi == len(s.seqs) {
		end = len(s.src)
	}
	s.lits = s.lits[:0]
	var ll [maxLLCode + 1]uint32
	var ml [maxMLCode + 1]uint32
	var of [maxOFCode + 1]uint32
	extra := uint64(0)
	for i := lo; i < hi; i++ {
		q := s.seqs[i]
		s.lits = append(s.lits, s.src[s.at[i]:s.at[i]+int(q.litLen)]...)
		lc, mc, oc := llCode(q.litLen), mlCode(q.matchLen-3), s.ofc[i]
		ll[lc]++
		ml[mc]++
		of[oc]++
		extra += uint64(llBits[lc]) + uint64(mlBits[mc]) + uint64(oc)
	}
	if hi == len(s.seqs) {
		s.lits = append(s.lits, s.src[s.at[hi]:end]...)
	}
	total := extra*256 + 3*8*256 // the block header
	n := uint32(hi - lo)
	total += s.tableCost(ll[:], n, maxLLLog, llPredef)
	total += s.tableCost(ml[:], n, maxMLLog, mlPredef)
	total += s.tableCost(of[:], n, maxOFLog, ofPredef)
	litCost := uint64(len(s.lits)) * 8 * 256
	if len(s.lits) > 16 {
		s.huff.Reuse = huff0.ReusePolicyNone
		if t, d, _, err := huff0.EstimateSizes(s.lits, &s.huff); err == nil && t+d < len(s.lits) {
			litCost = uint64(t+d) * 8 * 256
		}
	}
	return total + litCost
}

// tableCost is the least cost of coding cnt's symbols with the predefined
// table or a new one.
func (s *splitter) tableCost(cnt []uint32, n uint32, maxLog uint8, pre *fseTable) uint64 {
	top, distinct := 0, 0
	for i, c := range cnt {
		if c != 0 {
			top = i
			distinct++
		}
	}
	if distinct <= 1 {
		return 8 * 256
	}
	cnt = cnt[:top+1]
	best := ^uint64(0)
	if top < len(pre.norm) {
		best = pre.bitsFor(cnt)
	}
	_, _, c := newTableCost(nil, cnt, n, distinct, maxLog)
	return min(best, c)
}
