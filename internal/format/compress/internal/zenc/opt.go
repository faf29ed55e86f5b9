package zenc

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// Optimal parsing (levels 16-22): every position of a stretch is priced as
// a literal and as the end of every match found, by dynamic programming
// over the cost in bits of each choice, and the cheapest path is kept. The
// costs come from statistics of the sequences chosen so far (the previous
// block's, scaled down, and this block's as it is parsed), and each path
// carries its own repeat offsets, so a repeat-offset match is priced as the
// decoder will read it. Matches come from a binary tree of every position
// ordered by its bytes (one descent both inserts a position and lists its
// matches of increasing length), the repeat offsets and the long-distance
// matches.

const (
	optNum  = 1 << 12 // positions one stretch of the parse may cover
	bitCost = 256     // prices are in 1/256 bits
	optInf  = 1 << 30
)

// A cand is a match found at a position: the longest at its offset that
// is longer than every cand before it.
type cand struct {
	off    uint32
	length int
}

// An optNode is the cheapest known way to reach a position of the stretch.
type optNode struct {
	price  int32
	mlen   uint32    // the match ending here (0: a literal ends here)
	off    uint32    // its offset
	litlen uint32    // literals since the last match on the path
	rep    [3]uint32 // the repeat offsets after the path
}

// optStats are the symbol frequencies the prices come from.
type optStats struct {
	lit                         [256]uint32
	ll                          [maxLLCode + 1]uint32
	ml                          [maxMLCode + 1]uint32
	of                          [maxOFCode + 1]uint32
	litSum, llSum, mlSum, ofSum uint32
	// A symbol's price is its table's part (the weight of the table's
	// sum, the W fields) plus its own part (its extra bits, less the
	// weight of its frequency, the P fields). A sequence chosen changes
	// the own parts of its symbols only, so commit updates those and the
	// four sums, not every symbol.
	litP                [256]int32
	llP                 [maxLLCode + 1]int32
	mlP                 [64]int32 // maxMLCode+1 used; 64 so that a code&63 needs no check
	ofP                 [maxOFCode + 1]int32
	litW, llW, mlW, ofW int32
	started             bool
}

// weight is about bitCost*log2(stat+1)+bitCost, with a linear fraction: a
// symbol seen f times out of s costs weight(s)-weight(f).
func weight(stat uint32) int32 {
	s := stat + 1
	hb := bits.Len32(s) - 1
	return int32(hb*bitCost) + int32((s<<8)>>hb)
}

// The starting frequencies of the codes before any sequence is seen:
// short literal runs and short or repeat offsets are the common ones.
var (
	startLL = [maxLLCode + 1]uint32{4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	startOF = [maxOFCode + 1]uint32{6, 2, 1, 1, 2, 3, 4, 4, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
)

// newBlock prepares the statistics for a block: from its bytes for the
// first, else the previous block's scaled down so that this one's weigh in.
func (s *optStats) newBlock(src []byte) {
	if !s.started {
		s.started = true
		clear(s.lit[:])
		for _, c := range src {
			s.lit[c]++
		}
		s.litSum = 0
		for i, f := range s.lit {
			if f > 0 {
				s.lit[i] = 1 + f>>8
			}
			s.litSum += s.lit[i]
		}
		s.ll = startLL
		s.of = startOF
		for i := range s.ml {
			s.ml[i] = 1
		}
		s.llSum, s.mlSum, s.ofSum = sum(s.ll[:]), sum(s.ml[:]), sum(s.of[:])
	} else {
		s.litSum = scaleDown(s.lit[:], s.litSum, 12)
		s.llSum = scaleDown(s.ll[:], s.llSum, 11)
		s.mlSum = scaleDown(s.ml[:], s.mlSum, 11)
		s.ofSum = scaleDown(s.of[:], s.ofSum, 11)
	}
	s.setWeights()
}

func sum(t []uint32) uint32 {
	n := uint32(0)
	for _, f := range t {
		n += f
	}
	return n
}

// scaleDown divides the frequencies so that they sum to about 1<<log,
// keeping each at least 1, and returns the new sum.
func scaleDown(t []uint32, total uint32, log uint) uint32 {
	factor := total >> log
	if factor <= 1 {
		return total
	}
	shift := bits.Len32(factor) - 1
	n := uint32(0)
	for i, f := range t {
		t[i] = 1 + f>>shift
		n += t[i]
	}
	return n
}

// setWeights works out every price from the frequencies.
func (s *optStats) setWeights() {
	for c := range s.lit {
		s.setLit(c)
	}
	for c := range s.ll {
		s.setLL(c)
	}
	for c := range s.ml {
		s.setML(c)
	}
	for c := range s.of {
		s.setOF(c)
	}
	s.setSums()
}

func (s *optStats) setLit(c int) { s.litP[c] = -weight(s.lit[c]) }

func (s *optStats) setLL(c int) { s.llP[c] = int32(llBits[c])*bitCost - weight(s.ll[c]) }

// A sequence costs a fifth of a bit more: of two paths as cheap, the one
// with fewer sequences decodes faster.
func (s *optStats) setML(c int) {
	s.mlP[c] = int32(mlBits[c])*bitCost - weight(s.ml[c]) + bitCost/5
}

func (s *optStats) setOF(c int) { s.ofP[c] = int32(c)*bitCost - weight(s.of[c]) }

// setSums works out the tables' parts of the prices.
func (s *optStats) setSums() {
	s.litW, s.llW, s.mlW, s.ofW = weight(s.litSum), weight(s.llSum), weight(s.mlSum), weight(s.ofSum)
}

// litPrice is the price of one literal byte, at least one bit.
func (s *optStats) litPrice(c byte) int32 { return max(s.litW+s.litP[c], bitCost) }

// llPrice is the price of coding a run of n literals' length.
func (s *optStats) llPrice(n uint32) int32 { return s.llW + s.llOwn(n) }

// llOwn is llPrice less the table's part: what differences of llPrice
// need.
func (s *optStats) llOwn(n uint32) int32 {
	if n >= blockMax {
		return bitCost + s.llP[llCode(blockMax-1)]
	}
	return s.llP[llCode(n)]
}

// ofPrice is the price of Offset_Value ov.
func (s *optStats) ofPrice(ov uint32) int32 { return s.ofW + s.ofP[bits.Len32(ov)-1] }

// mlPrice is the price of a match length n.
func (s *optStats) mlPrice(n int) int32 { return s.mlW + s.mlOwn(n) }

// mlOwn is mlPrice less the table's part (the parse adds mlW once a
// candidate), without a table look-up for the lengths whose code is their
// own (3-34).
func (s *optStats) mlOwn(n int) int32 {
	code := uint32(n - 3)
	if code >= 32 {
		code = uint32(mlCode(code))
	}
	return s.mlP[code&63]
}

// add counts a sequence chosen and updates its symbols' own parts of the
// prices; the tables' parts wait for setSums.
func (s *optStats) add(lits []byte, ov uint32, n int) {
	for _, c := range lits {
		s.lit[c] += 2
		s.setLit(int(c))
	}
	s.litSum += 2 * uint32(len(lits))
	c := llCode(uint32(len(lits)))
	s.ll[c]++
	s.setLL(int(c))
	s.llSum++
	c = uint8(bits.Len32(ov) - 1)
	s.of[c]++
	s.setOF(int(c))
	s.ofSum++
	c = mlCode(uint32(n - 3))
	s.ml[c]++
	s.setML(int(c))
	s.mlSum++
}

// treeInsert adds p to the binary tree and, when collect is set, appends
// to out the matches it passes that are longer than best (cut at limit-p)
// with their lengths increasing. It returns out, how many positions after
// p need not be inserted (inside a run that repeats itself, the tree holds
// them already) and the longest match it passed.
func (m *matcher) treeInsert(p, limit, best int, out []cand, collect bool) ([]cand, int, int) {
	src := m.src
	var h uint32
	var head int32
	if p == m.pfPos && !noReadAhead {
		// Read ahead by the call before, after it inserted p-1.
		h, head = m.pfHash, m.pfHead
	} else {
		h = m.hash(p)
		head = m.head[h]
	}
	idx := int(head) - 1 + m.base
	m.head[h] = int32(p - m.base + 1)
	if p+1 <= len(src)-8 {
		// Load the next position's head now, and ask for the one after
		// it: their cache misses overlap this search. A load the next
		// instructions wait for holds up the search when it misses the
		// cache (it did: 18% of treeInsert's time), a prefetch does not,
		// so the head loaded here was asked for by the call before.
		m.pfPos, m.pfHash = p+1, m.hash(p+1)
		m.pfHead = m.head[m.pfHash]
		if havePrefetch && p+2 <= len(src)-8 {
			prefetch((*byte)(unsafe.Pointer(&m.head[m.hash(p+2)])))
		}
	}
	tree, base, mask := m.tree, m.base, m.mask
	slot := 2 * (p & mask)
	smaller, larger := slot, slot+1
	cmpSmaller, cmpLarger := 0, 0
	// Nodes from low on are the tree's; an older node still linked from
	// one of them is compared (it may be far back and in the window) and
	// linked, but its own links, which a newer position may have
	// overwritten, are not followed.
	low := max(base, p-mask+1)
	windowLow := max(base, p-1<<WindowLog)
	end := len(src)
	matchEnd := p + 9
	longest := 0
	for d := m.p.depth; d > 0 && idx >= windowLow; d-- {
		n := min(cmpSmaller, cmpLarger)
		if p+n+8 <= end {
			// Most candidates differ within 8 bytes of the common prefix.
			if x := binary.LittleEndian.Uint64(src[idx+n:]) ^ binary.LittleEndian.Uint64(src[p+n:]); x != 0 {
				n += bits.TrailingZeros64(x) >> 3
			} else {
				n += 8 + matchLen(src, idx+n+8, p+n+8, end)
			}
		} else {
			n += matchLen(src, idx+n, p+n, end)
		}
		if n > longest {
			longest = n
			matchEnd = max(matchEnd, idx+n)
			if cut := min(n, limit-p); collect && cut > best && n >= m.p.minMatch {
				best = cut
				out = append(out, cand{uint32(p - idx), cut})
			}
			if p+n >= end || n > optNum {
				// The next byte cannot order them: leave the rest of
				// the tree as it is, unlinked.
				break
			}
		}
		next := 2 * (idx & mask)
		if src[idx+n] < src[p+n] {
			tree[smaller] = int32(idx - base + 1)
			cmpSmaller = n
			if idx < low {
				smaller = -1
				break
			}
			smaller = next + 1
			idx = int(tree[next+1]) - 1 + base
		} else {
			tree[larger] = int32(idx - base + 1)
			cmpLarger = n
			if idx < low {
				larger = -1
				break
			}
			larger = next
			idx = int(tree[next]) - 1 + base
		}
	}
	if smaller >= 0 {
		tree[smaller] = 0
	}
	if larger >= 0 {
		tree[larger] = 0
	}
	skip := matchEnd - (p + 8)
	if longest > 384 {
		skip = max(skip, min(192, longest-384))
	}
	return out, skip, longest
}

// farFill indexes src[from:to] in the table of older positions: the
// latest position of each 4-byte hash, before the segment's warm-up (to),
// which the tree does not hold. libzstd parses with one context whose hash
// table holds every position before; a segment of ours starts with a tree
// of the 4 MiB before it only, and on rocSOLVER's bundle (two segments) that
// cost 0.3% at levels 18-22: short matches far back, whose offsets the
// matches after them repeat, in code that repeats little otherwise. The
// table gives each position the latest earlier occurrence of its first 4
// bytes, which the parse weighs with the tree's matches. rocSOLVER at 18-22
// went from 0.28-0.37% larger than libzstd to 0.02-0.12%, the other corpora
// moved by less than 0.05%, and a second segment costs about 4% more CPU
// time (one hash and store a byte of history, a look-up where the tree
// found little).
func (m *matcher) farFill(from, to int) {
	m.far = freshTable[uint64](1 << farLog)
	for q := from; q < to; q++ {
		v := binary.LittleEndian.Uint32(m.src[q:])
		m.far[v*prime4>>(32-farLog)] = uint64(q-m.base+1)<<32 | uint64(v)
	}
}

const (
	prime4 = 0x9E3779B1
	// farFill's table: 1<<farLog entries of 8 bytes (the position and its 4
	// bytes, so that a bucket another string took costs no read of src).
	// 1<<22 entries found 0.02% more on rocSOLVER, at twice the cache
	// misses; 1<<18 lost most of the gain.
	farLog = 20
	// The table is asked only where the tree's longest match is shorter:
	// far short matches pay where nothing near does. Asked at every
	// position, it cost 15% more CPU time on rocSOLVER's second segment.
	farBelow = 8
)

// noReadAhead turns treeInsert's read-ahead off, for tests.
var noReadAhead = false

// treeFill inserts the positions before p not inserted yet. As a warm-up
// before parsing (warm), where a position repeats more than skipIn bytes
// the rest of the repeat is left out, as the parser leaves out long
// matches.
func (m *matcher) treeFill(p int, warm bool) {
	for q := m.next; q < p; {
		_, skip, longest := m.treeInsert(q, len(m.src), 0, nil, false)
		if warm && m.p.skipIn > 0 && longest > m.p.skipIn {
			skip = max(skip, longest-8)
		}
		q += max(skip, 1)
	}
	m.next = max(m.next, p)
}

// An optimal parser's state across the blocks of a segment.
type optimal struct {
	*matcher
	stats optStats
	nodes []optNode
	cands []cand
	path  []int // match ends of the stretch's path, backwards
}

func newOptimal(m *matcher) *optimal {
	return &optimal{matcher: m, nodes: make([]optNode, optNum+1)}
}

// candidates lists the matches at q that end by limit, after litlen
// literals with repeat offsets rep: the repeat offsets, the long-distance
// match, then the tree's, each longer than those before.
func (o *optimal) candidates(q, limit int, rep [3]uint32, litlen uint32) []cand {
	src := o.src
	out := o.cands[:0]
	best := o.p.minMatch - 1
	for i := range 3 {
		r := rep[i]
		if litlen == 0 {
			if i < 2 {
				r = rep[i+1]
			} else {
				r = rep[0] - 1
			}
		}
		if r == 0 || int(r) > q {
			continue
		}
		if q+best < limit && src[q+best] != src[q+best-int(r)] {
			continue
		}
		if n := matchLen(src, q-int(r), q, limit); n > best {
			best = n
			out = append(out, cand{r, n})
		}
	}
	if l := o.ldmAt(q, limit); l.length > best {
		best = l.length
		out = append(out, cand{l.off, l.length})
	}
	if havePrefetch && o.far != nil {
		// The far table is read below when the tree finds little: ask
		// for its entry now, so that the miss overlaps the tree's.
		prefetch((*byte)(unsafe.Pointer(&o.far[binary.LittleEndian.Uint32(src[q:])*prime4>>(32-farLog)])))
	}
	o.treeFill(q, false)
	var longest int
	out, _, longest = o.treeInsert(q, limit, best, out, true)
	if o.far != nil && longest < farBelow {
		if len(out) > 0 {
			best = max(best, out[len(out)-1].length)
		}
		v := binary.LittleEndian.Uint32(src[q:])
		if e := o.far[v*prime4>>(32-farLog)]; uint32(e) == v && e != 0 {
			c := int(e>>32) - 1 + o.base
			if n := matchLen(src, c, q, limit); n > best && n >= 4 && q-c <= 1<<WindowLog {
				out = append(out, cand{uint32(q - c), n})
			}
		}
	}
	o.next = q + 1
	o.cands = out
	return out
}

// parse appends the sequences of src[start:end] to seqs; end-start <= blockMax.
func (o *optimal) parse(start, end int, seqs []seq) []seq {
	src := o.src
	o.stats.newBlock(src[start:end])
	stop := min(end, len(src)-8)
	suff := o.p.targetLen
	nodes := o.nodes
	anchor, p := start, start
	for p < stop {
		litlen := uint32(p - anchor)
		st := &o.stats
		nodes[0] = optNode{price: st.llPrice(litlen), litlen: litlen, rep: o.rep}
		last := 0
		var final cand
		finalAt := 0
		for cur := 0; cur <= last; cur++ {
			at := &nodes[cur]
			if cur > 0 {
				pn := &nodes[cur-1]
				lp := pn.price + st.litPrice(src[p+cur-1]) + st.llOwn(pn.litlen+1) - st.llOwn(pn.litlen)
				if lp <= at.price {
					*at = optNode{price: lp, litlen: pn.litlen + 1, rep: pn.rep}
				} else {
					from := &nodes[cur-int(at.mlen)]
					_, r1, r2 := offsetCode(at.off, from.litlen, from.rep[0], from.rep[1], from.rep[2])
					at.rep = [3]uint32{at.off, r1, r2}
				}
				if cur == last {
					break
				}
			}
			q := p + cur
			if q >= stop {
				continue
			}
			cs := o.candidates(q, end, at.rep, at.litlen)
			if len(cs) == 0 {
				continue
			}
			if c := cs[len(cs)-1]; c.length >= suff || cur+c.length >= optNum {
				final, finalAt = c, cur
				break
			}
			top := cur + cs[len(cs)-1].length
			for ; last < top; last++ {
				// The rest of a node is read only once a price is set.
				nodes[last+1].price = optInf
			}
			base := at.price + st.llPrice(0)
			prev := 2
			for _, c := range cs {
				ov, _, _ := offsetCode(c.off, at.litlen, at.rep[0], at.rep[1], at.rep[2])
				ob := base + st.ofPrice(ov) + st.mlW
				for n := prev + 1; n <= c.length; n++ {
					if nd, pr := &nodes[cur+n], ob+st.mlOwn(n); pr < nd.price {
						// rep is set when the parse reaches the node.
						nd.price, nd.mlen, nd.off, nd.litlen = pr, uint32(n), c.off, 0
					}
				}
				prev = c.length
			}
		}
		if final.length > 0 {
			seqs = o.commit(seqs, anchor, p, nodes, finalAt, final)
			p += finalAt + final.length
			anchor = p
			o.skipTo(p)
			continue
		}
		if last == 0 {
			p++ // no match here: a literal
			continue
		}
		// The path to the stretch's end; literals after its last match
		// stay pending.
		e := o.lastMatchEnd(last)
		if e > 0 {
			seqs = o.commit(seqs, anchor, p, nodes, e, cand{})
			anchor = p + e
		}
		p += last
	}
	return seqs
}

// skipTo leaves the positions of a long match just taken out of the tree
// but its last few: the tree holds what it repeats already.
func (o *optimal) skipTo(p int) {
	if o.p.skipIn > 0 {
		o.next = max(o.next, p-8)
	}
}

// lastMatchEnd is where the last match on the path to end ends (0: none).
func (o *optimal) lastMatchEnd(end int) int {
	for end > 0 && o.nodes[end].mlen == 0 {
		end--
	}
	return end
}

// commit appends the sequences of the path to nodes[to] (the stretch
// starts at p, its pending literals at anchor), then final if it has a
// length, updating the repeat offsets and the statistics.
func (o *optimal) commit(seqs []seq, anchor, p int, nodes []optNode, to int, final cand) []seq {
	path := o.path[:0]
	for at := to; at > 0; {
		n := nodes[at]
		if n.mlen == 0 {
			at--
			continue
		}
		path = append(path, at)
		at -= int(n.mlen)
	}
	o.path = path
	emit := func(start int, n int, off uint32) {
		lits := o.src[anchor:start]
		var ov uint32
		ov, o.rep = offsetValue(off, uint32(len(lits)), o.rep)
		o.stats.add(lits, ov, n)
		seqs = append(seqs, seq{litLen: uint32(len(lits)), matchLen: uint32(n), off: off})
		anchor = start + n
	}
	for i := len(path) - 1; i >= 0; i-- {
		n := nodes[path[i]]
		emit(p+path[i]-int(n.mlen), int(n.mlen), n.off)
	}
	if final.length > 0 {
		emit(p+to, final.length, final.off)
	}
	o.stats.setSums()
	return seqs
}
