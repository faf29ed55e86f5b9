package zenc

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// params tune the match finder.
type params struct {
	minMatch  int   // 4..8: bytes hashed to find candidates
	hashLog   uint8 // head table size
	chainLog  uint8 // chain ring size (0: no chains, the fast strategy)
	depth     int   // chain candidates tried per position
	lazy      int   // positions tried ahead of a match: 0 (greedy), 1 or 2
	targetLen int   // a match this long ends the search
	ldm       bool  // long-distance matches across the whole window
	ldmLog    uint  // one position in 1<<ldmLog is indexed for them (at least 5)
	longLog   uint8 // a second table of 8-byte hashes (0: none)
	skipIn    int   // chains: matches longer than this are indexed at their ends only
	fast      bool  // parseFast: greedy, both tables, no scoring (needs longLog; no LDM)
	repNext   int   // parseFast: after a match, the latest offset one byte on is taken at once if this long (0: never)
	stride    int   // parseFast: the largest step through a run of literals (0: no bound)
	split     bool  // cut blocks where the sequences' statistics change
	opt       bool  // optimal parsing over a binary tree of 1<<(chainLog-1) positions; depth: its compares
	row       bool  // parseRow: 1<<(hashLog-4) rows of rowWays positions; depth: the candidates followed
}

// A matcher turns src into sequences, a block at a time. It looks for
// matches at the repeat offsets, in a hash table of recent positions (with
// chains of older positions when chainLog > 0) and among the long-distance
// matches found beforehand, and evaluates them lazily. Without chains only
// a few positions of each match are indexed and the stride grows through
// literals, which is what makes that strategy fast.
type matcher struct {
	src         []byte
	p           params
	head        []int32              // hash -> position-base+1 of the latest occurrence
	long        []int32              // 8-byte hash -> position-base+1 of the latest occurrence
	chain       []int32              // position&mask -> position-base+1 of the previous occurrence
	rows        []row                // parseRow: 1<<(hashLog-4) of them
	hashes      [2 * rowAhead]uint32 // parseRow: the hashes of positions next to hashed-1, at their position%(2*rowAhead)
	hashed      int                  // parseRow: the first position not hashed
	rowRsh      uint8                // parseRow: rowHash's right shift (its left one is hashLsh)
	rowPrefetch bool                 // parseRow: rows are prefetched (they do not fit in a core's cache)
	tree        []int32              // optimal parsing: 2*(position&mask) -> smaller, +1 -> larger (position-base+1)
	far         []uint64             // optimal parsing: 4-byte hash -> (position-base+1)<<32 | the 4 bytes, of the latest before the warm-up (farFill)
	// treeInsert's read-ahead: the head of position pfPos's hash pfHash.
	pfPos  int
	pfHash uint32
	pfHead int32
	base   int // first position indexed (positions are stored from it, so inputs may exceed 2 GiB)
	mask   int
	next   int // chains: first position not inserted yet
	ldm    []ldmMatch
	li     int
	// ldmSpan's shortcut: ldm[li].start (MaxInt past the last), positions
	// before it in no long match (0: not known yet).
	ldmFrom int
	rep     [3]uint32
	// The shifts of hash, hashLong and rowHash (minMatch bytes to the top,
	// then hashLog or longLog bits down; rowRsh for the rows), worked out
	// once: a hash takes a third of the instructions it took with the
	// shifts from p (Go checks a variable shift for 64 or more): level 1 on
	// R5 took 6% less CPU time, level 6 12% less (compress/NOTES.md).
	hashLsh, hashRsh, longRsh uint8
	// The shifts that bring a hash's tag bits (the fastTagBits below its
	// slot's) to the top of 32 bits: parseFast's tables hold tagged
	// positions (fastTag).
	hashTsh, longTsh uint8
}

// fit cuts p's tables to n bytes of input (a segment and its warm-up):
// tables larger than that would only cost time.
func (p params) fit(n int) params {
	fit := uint8(max(bits.Len(uint(n)), 10))
	p.hashLog = min(p.hashLog, fit)
	if p.chainLog > 0 {
		p.chainLog = min(p.chainLog, fit)
	}
	if p.longLog > 0 {
		p.longLog = min(p.longLog, fit)
	}
	return p
}

// tableBytes is the size of the tables newMatcher (and findLDM) allocate
// for n bytes.
func (p params) tableBytes(n int) int {
	p = p.fit(n)
	b := 4 << p.hashLog
	if p.row {
		b = 64 << (p.hashLog - 4)
	}
	if p.chainLog > 0 {
		b += 4 << p.chainLog
	}
	if p.longLog > 0 {
		b += 4 << p.longLog
	}
	if p.ldm {
		b += 8 * ldmBucket << ldmHashLog // findLDM's table, at its largest
	}
	if p.opt {
		b += 8 << farLog // farFill's table
	}
	return b
}

// newMatcher prepares a matcher for src[base:base+n] (a segment and its
// warm-up).
func newMatcher(src []byte, p params, base, n int) *matcher {
	p = p.fit(n)
	// src's capacity cut to its length: the parsers read words as
	// src[x:x+4] (one bounds check, where src[x:] took two), which must
	// fail where src[x:] would have.
	src = src[:len(src):len(src)]
	m := &matcher{src: src, p: p, rep: [3]uint32{1, 4, 8}, base: base, next: base, pfPos: -1}
	m.hashLsh = uint8(64 - 8*p.minMatch)
	if p.row {
		m.rows = freshTable[row](1 << (p.hashLog - 4))
		m.rowRsh = 64 - 4 - p.hashLog
		m.rowPrefetch = havePrefetch && p.hashLog >= 17
	} else {
		m.head = freshTable[int32](1 << p.hashLog)
		m.hashRsh = 64 - p.hashLog
		m.hashTsh = m.hashRsh - fastTagBits
	}
	if p.longLog > 0 {
		m.long = freshTable[int32](1 << p.longLog)
		m.longRsh = 64 - p.longLog
		m.longTsh = m.longRsh - fastTagBits
	}
	switch {
	case p.opt:
		m.tree = freshTable[int32](1 << p.chainLog)
		m.mask = 1<<(p.chainLog-1) - 1
	case p.chainLog > 0:
		m.chain = freshTable[int32](1 << p.chainLog)
		m.mask = 1<<p.chainLog - 1
	}
	return m
}

// freshTable allocates a zeroed table and writes it once. Memory fresh from the
// system is mapped to the shared zero page when first read; the first write
// to such a page then has to flush it from every CPU's TLB, an interrupt to
// each, which on a two-CPU machine cost a third of the encoder's time. A
// page first touched by a write takes an ordinary fault.
func freshTable[T int32 | uint64 | row](n int) []T {
	t := make([]T, n)
	clear(t)
	return t
}

const prime8 = 0xcf1bbcdcb7a56463

func (m *matcher) hash(p int) uint32 {
	v := binary.LittleEndian.Uint64(m.src[p:])
	return uint32(((v << (m.hashLsh & 63)) * prime8) >> (m.hashRsh & 63))
}

func (m *matcher) hashLong(p int) uint32 {
	return uint32((binary.LittleEndian.Uint64(m.src[p:]) * prime8) >> (m.longRsh & 63))
}

// warm indexes src[from:to] (to <= len(src)-8) before parsing starts at to:
// every position for chains, every other one for the fast strategy, which
// indexes fewer still while it parses (that costs no ratio on bundles and
// halves the warm-up).
func (m *matcher) warm(from, to int) {
	if m.tree != nil {
		m.next = from
		m.treeFill(to, true)
		return
	}
	if m.p.fast {
		step := 2
		if m.chain != nil {
			step = 1
		}
		for q := from; q < to; q += step {
			m.indexFast(q)
		}
		return
	}
	if m.rows != nil {
		if dense := to - rowWarm; dense > from {
			m.rowSparse(from, dense, rowWarmStep)
			from = dense
		}
		m.rowSeek(from)
		m.rowFill(to)
		return
	}
	m.next = from
	m.insert(to)
}

// insert adds positions up to (not including) p to the chains.
func (m *matcher) insert(p int) {
	for ; m.next < p; m.next++ {
		h := m.hash(m.next)
		m.chain[m.next&m.mask] = m.head[h]
		m.head[h] = int32(m.next - m.base + 1)
		if m.long != nil {
			m.long[m.hashLong(m.next)] = int32(m.next - m.base + 1)
		}
	}
}

// extendBack moves the start of a match of n bytes at p, offset off, back
// over the equal bytes before it, down to lit (the pending literals'
// start), and returns its new start and length.
func extendBack(src []byte, lit, p, n int, off uint32) (int, int) {
	for p > lit && int(off) < p && src[p-1] == src[p-1-int(off)] {
		p--
		n++
	}
	return p, n
}

// nextReps returns the repeat offsets after a match at off, as the
// decoder keeps them: the latest first; one of the three moves to the
// front (a repeat offset with literals before it; rep0 stays).
func nextReps(off, rep0, rep1, rep2 uint32) (uint32, uint32, uint32) {
	switch off {
	case rep0:
		return rep0, rep1, rep2
	case rep1:
		return rep1, rep0, rep2
	}
	return off, rep0, rep1
}

// matchLen counts the equal bytes at a and b (a < b), up to limit - b.
func matchLen(src []byte, a, b, limit int) int {
	if b >= limit {
		return 0
	}
	// Two slices of one length, so that the loop's loads need no bounds
	// checks (a third of its instructions when indexed from src).
	y := src[b:limit]
	x := src[a:][:len(y)]
	n := 0
	for ; n+8 <= len(y); n += 8 {
		if d := binary.LittleEndian.Uint64(x[n:n+8]) ^ binary.LittleEndian.Uint64(y[n:n+8]); d != 0 {
			return n + bits.TrailingZeros64(d)>>3
		}
	}
	for n < len(y) && x[n] == y[n] {
		n++
	}
	return n
}

// matchBack counts the equal bytes just before a and b (a < b), going back
// no further than b reaching stop.
func matchBack(src []byte, a, b, stop int) int {
	n := 0
	for b-n-8 >= stop {
		x := binary.LittleEndian.Uint64(src[a-n-8:a-n]) ^ binary.LittleEndian.Uint64(src[b-n-8:b-n])
		if x != 0 {
			return n + bits.LeadingZeros64(x)>>3
		}
		n += 8
	}
	for b-n > stop && src[a-n-1] == src[b-n-1] {
		n++
	}
	return n
}

// A match and its worth: four points a byte, less the bits of its offset
// (a repeat offset costs almost nothing), as zstd's lazy parsers weigh them.
type match struct {
	length int
	off    uint32
	score  int
}

func (m *matcher) newMatch(n int, off uint32) match {
	cost := bits.Len32(off + 3)
	if off == m.rep[0] || off == m.rep[1] || off == m.rep[2] {
		cost = 1
	}
	return match{n, off, 4*n - cost}
}

// farMin is the shortest match worth taking at offset off: a far offset
// costs more bits than a few literals.
func farMin(off uint32) int {
	switch {
	case off < 1<<10:
		return 4
	case off < 1<<16:
		return 5
	case off < 1<<22:
		return 6
	}
	return 7
}

// find returns the best match at p that ends by limit (length 0 if none).
func (m *matcher) find(p, limit int) match {
	best := m.search(p, limit)
	if best.length > limit-p {
		// A match found by its first 4 or 8 bytes may run past limit.
		best = m.newMatch(limit-p, best.off)
		if best.length < 3 {
			return match{}
		}
	}
	return best
}

func (m *matcher) search(p, limit int) match {
	src := m.src
	best := m.repeatOrLong(p, limit)
	if best.length >= m.p.targetLen || p+best.length >= limit {
		return best
	}
	minPos := p - 1<<WindowLog
	if m.long != nil {
		cand := int(m.long[m.hashLong(p)]) - 1 + m.base
		if cand >= m.base && cand >= minPos && binary.LittleEndian.Uint64(src[cand:cand+8]) == binary.LittleEndian.Uint64(src[p:p+8]) {
			n := 8 + matchLen(src, cand+8, p+8, limit)
			if c := m.newMatch(n, uint32(p-cand)); c.score > best.score {
				best = c
				if n >= m.p.targetLen || p+n >= limit {
					return best
				}
			}
		}
	}
	m.insert(p)
	cand := int(m.head[m.hash(p)]) - 1 + m.base
	chainMin := p - m.mask
	for d := m.p.depth; d > 0 && cand >= m.base && cand >= minPos; d-- {
		if best.length == 0 || src[cand+best.length] == src[p+best.length] {
			if n := matchLen(src, cand, p, limit); n >= m.p.minMatch && n >= farMin(uint32(p-cand)) {
				if c := m.newMatch(n, uint32(p-cand)); c.score > best.score {
					best = c
					if n >= m.p.targetLen || p+n >= limit {
						break
					}
				}
			}
		}
		if cand < chainMin {
			break
		}
		cand = int(m.chain[cand&m.mask]) - 1 + m.base
	}
	return best
}

// repeatOrLong returns the best match at p, ending by limit, at a repeat
// offset or from the long-distance matches (length 0 if none).
func (m *matcher) repeatOrLong(p, limit int) match {
	var best match
	ldm := m.ldmAt(p, limit)
	for _, r := range m.rep {
		if int(r) > p {
			continue
		}
		c := ldm // a repeat offset is often the long match's: measured already
		if r != ldm.off {
			c = match{}
			if n := matchLen(m.src, p-int(r), p, limit); n >= 3 {
				c = m.newMatch(n, r)
			}
		}
		if c.score > best.score {
			best = c
		}
	}
	if ldm.score > best.score {
		best = ldm
	}
	return best
}

// ldmAt returns the long-distance match covering p, cut at limit (length
// 0 if there is none), scored. Its length needs no comparing: findLDM
// measured where the repeat ends.
func (m *matcher) ldmAt(p, limit int) match {
	if n, off := m.ldmSpan(p, limit); n > 0 {
		return m.newMatch(n, off)
	}
	return match{}
}

// ldmSpan returns the length from p, cut at limit, and the offset of the
// long-distance match covering p (0, 0 if none, or if fewer than 3 bytes).
func (m *matcher) ldmSpan(p, limit int) (int, uint32) {
	if p < m.ldmFrom {
		return 0, 0 // before the next long match: most positions
	}
	for m.li < len(m.ldm) && m.ldm[m.li].end <= p {
		m.li++
	}
	m.ldmFrom = math.MaxInt
	if m.li < len(m.ldm) {
		l := m.ldm[m.li]
		m.ldmFrom = l.start
		if n := min(l.end, limit) - p; l.start <= p && n >= 3 {
			return n, l.off
		}
	}
	return 0, 0
}

// parse appends the sequences of src[start:end] to seqs; end-start <= blockMax.
func (m *matcher) parse(start, end int, seqs []seq) []seq {
	src := m.src
	lit := start
	stop := min(end, len(src)-8)
	p := start
	for p < stop {
		cur := m.find(p, end)
		if cur.length < 3 {
			p++
			continue
		}
		// Lazy evaluation: a better match one or two bytes on wins.
		for step := 0; step < m.p.lazy && p+1 < stop; step++ {
			nx := m.find(p+1, end)
			if nx.length < 3 || nx.score <= cur.score+4 {
				break
			}
			cur = nx
			p++
		}
		p, cur.length = extendBack(src, lit, p, cur.length, cur.off)
		seqs = append(seqs, seq{litLen: uint32(p - lit), matchLen: uint32(cur.length), off: cur.off})
		m.rep[0], m.rep[1], m.rep[2] = nextReps(cur.off, m.rep[0], m.rep[1], m.rep[2])
		end := p + cur.length
		if m.p.skipIn > 0 && cur.length > m.p.skipIn {
			// Long matches repeat what is indexed already: index their
			// ends only.
			m.insert(min(p+8, stop))
			m.next = max(m.next, end-8)
		}
		p = end
		lit = p
	}
	return seqs
}
