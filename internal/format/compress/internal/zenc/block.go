package zenc

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/klauspost/compress/huff0"
)

// A seq is one zstd sequence: litLen literals, then matchLen (>= 3) bytes
// copied from off (>= 1) bytes back.
type seq struct {
	litLen, matchLen, off uint32
}

// blockMax is zstd's largest block (Block_Maximum_Size).
const blockMax = 128 << 10

const (
	blockRaw        = 0
	blockRLE        = 1
	blockCompressed = 2
)

// A coder holds what the decoder remembers from one compressed block to
// the next: the repeat offsets, the Huffman table of the literals and the
// three sequence tables. The blocks of a frame go through one coder, in
// order.
type coder struct {
	rep        [3]uint32
	huff       huff0.Scratch
	huffKnown  bool // the decoder holds huff's previous table
	ll, ml, of *fseTable

	split *splitter // block splitting's scratch

	// per-block scratch
	lits          []byte
	llc, mlc, ofc []uint8
	llx, mlx, ofx []uint32
}

func newCoder() *coder {
	c := &coder{rep: [3]uint32{1, 4, 8}}
	return c
}

// What a block's literals section did to the Huffman table state.
const (
	huffSame     = iota // neither the decoder's table nor huff0's changed
	huffNew             // a new table was written: both hold it
	huffDiverged        // huff0 holds a table the decoder never saw
)

// result is the decoder state after a compressed block, applied only when
// the block is kept.
type result struct {
	rep        [3]uint32
	ll, ml, of *fseTable
	huff       int
	// tight: an FSE table description starts fewer than 4 bytes before
	// the block's end. libzstd reads that; klauspost/compress's decoder
	// (which our own readers use) refuses it, so the block goes raw.
	tight bool
}

// encodeBlock appends one block holding src, described by seqs (whose
// literals and matches cover a prefix of src; the rest are literals).
func (c *coder) encodeBlock(dst, src []byte, seqs []seq, last bool) []byte {
	lastBit := uint32(0)
	if last {
		lastBit = 1
	}
	if len(src) > 1 && src[0] == src[len(src)-1] && bytes.Equal(src[1:], src[:len(src)-1]) {
		h := lastBit | blockRLE<<1 | uint32(len(src))<<3
		return append(dst, byte(h), byte(h>>8), byte(h>>16), src[0])
	}
	if len(src) < 16 {
		return appendRaw(dst, src, lastBit)
	}
	hdrAt := len(dst)
	dst = append(dst, 0, 0, 0)
	if !c.huffKnown {
		c.huff.Reuse = huff0.ReusePolicyNone
	} else {
		c.huff.Reuse = huff0.ReusePolicyAllow
	}
	dst, res := c.compress(dst, src, seqs)
	size := len(dst) - hdrAt - 3
	if size >= len(src) || res.tight {
		if res.huff != huffSame {
			c.huffKnown = false
		}
		return appendRaw(dst[:hdrAt], src, lastBit)
	}
	c.rep, c.ll, c.ml, c.of = res.rep, res.ll, res.ml, res.of
	switch res.huff {
	case huffNew:
		c.huffKnown = true
	case huffDiverged:
		c.huffKnown = false
	}
	h := lastBit | blockCompressed<<1 | uint32(size)<<3
	dst[hdrAt], dst[hdrAt+1], dst[hdrAt+2] = byte(h), byte(h>>8), byte(h>>16)
	return dst
}

func appendRaw(dst, src []byte, lastBit uint32) []byte {
	h := lastBit | blockRaw<<1 | uint32(len(src))<<3
	dst = append(dst, byte(h), byte(h>>8), byte(h>>16))
	return append(dst, src...)
}

// compress appends the literals and sequences sections of src and returns
// the decoder state they lead to.
func (c *coder) compress(dst, src []byte, seqs []seq) ([]byte, result) {
	// The codes and extra bits are written into slices of the block's
	// number of sequences, and short literal runs eight bytes at a time
	// (most runs are a few bytes: a call of copy each cost more).
	n := len(seqs)
	c.lits = slices.Grow(c.lits[:0], len(src)+8)
	c.llc, c.mlc, c.ofc = slices.Grow(c.llc[:0], n), slices.Grow(c.mlc[:0], n), slices.Grow(c.ofc[:0], n)
	c.llx, c.mlx, c.ofx = slices.Grow(c.llx[:0], n), slices.Grow(c.mlx[:0], n), slices.Grow(c.ofx[:0], n)
	llc, mlc, ofc := c.llc[:n], c.mlc[:n], c.ofc[:n]
	llx, mlx, ofx := c.llx[:n], c.mlx[:n], c.ofx[:n]
	lits := c.lits[:cap(c.lits)]
	r0, r1, r2 := c.rep[0], c.rep[1], c.rep[2]
	pos, nl := uint32(0), 0
	for i, s := range seqs {
		if s.litLen <= 8 && int(pos)+8 <= len(src) {
			binary.LittleEndian.PutUint64(lits[nl:], binary.LittleEndian.Uint64(src[pos:]))
		} else {
			copy(lits[nl:], src[pos:pos+s.litLen])
		}
		nl += int(s.litLen)
		pos += s.litLen + s.matchLen
		var ov uint32
		ov, r1, r2 = offsetCode(s.off, s.litLen, r0, r1, r2)
		r0 = s.off
		llc[i], llx[i] = llCode(s.litLen), s.litLen
		mlc[i], mlx[i] = mlCode(s.matchLen-3), s.matchLen-3
		ofc[i], ofx[i] = uint8(bits.Len32(ov)-1), ov
	}
	nl += copy(lits[nl:], src[pos:])
	c.lits = lits[:nl]
	c.llc, c.mlc, c.ofc = llc, mlc, ofc
	c.llx, c.mlx, c.ofx = llx, mlx, ofx

	res := result{rep: [3]uint32{r0, r1, r2}, ll: c.ll, ml: c.ml, of: c.of}
	dst, res.huff = c.appendLiterals(dst, c.lits)

	switch {
	case n < 128:
		dst = append(dst, byte(n))
	case n < 0x7F00:
		dst = append(dst, byte(n>>8)+0x80, byte(n))
	default:
		dst = append(dst, 0xFF, byte(n-0x7F00), byte((n-0x7F00)>>8))
	}
	if n == 0 {
		return dst, res
	}
	modesAt := len(dst)
	dst = append(dst, 0)
	var llMode, ofMode, mlMode byte
	fseAt := -1 // where the last FSE table description starts
	at := len(dst)
	dst, res.ll, llMode = chooseTable(dst, c.llc, maxLLCode, maxLLLog, llPredef, c.ll)
	if llMode == modeFSE {
		fseAt = at
	}
	at = len(dst)
	dst, res.of, ofMode = chooseTable(dst, c.ofc, maxOFCode, maxOFLog, ofPredef, c.of)
	if ofMode == modeFSE {
		fseAt = at
	}
	at = len(dst)
	dst, res.ml, mlMode = chooseTable(dst, c.mlc, maxMLCode, maxMLLog, mlPredef, c.ml)
	if mlMode == modeFSE {
		fseAt = at
	}
	dst[modesAt] = llMode<<6 | ofMode<<4 | mlMode<<2

	// The bitstream is read backwards: the last sequence is written first.
	w := bitWriter{out: dst}
	var sLL, sML, sOF fseState
	i := n - 1
	sML.init(res.ml, c.mlc[i])
	sOF.init(res.of, c.ofc[i])
	sLL.init(res.ll, c.llc[i])
	w.add(uint64(c.llx[i]), uint(llBits[c.llc[i]]))
	w.add(uint64(c.mlx[i]), uint(mlBits[c.mlc[i]]))
	w.add(uint64(c.ofx[i]), uint(c.ofc[i]))
	// A sequence takes at most 26 bits of states (tables of at most 9, 9
	// and 8 bits), 16 + 16 of lengths and 31 of offset: two flushes, each
	// leaving at most 7 bits, keep the accumulator within 64, and 12 bytes
	// a sequence is room enough.
	w.reserve(12 * n)
	w.flush()
	// The loop keeps the accumulator and the states in locals: in the
	// bitWriter and fseStates, in memory, each update waited on the store
	// before it (6% of the coder's time on rocRAND).
	bs, acc, nacc := w.out, w.acc, w.n
	vOF, vML, vLL := sOF.value, sML.value, sLL.value
	for i--; i >= 0; i-- {
		of, ml, ll := ofc[i], mlc[i], llc[i]
		nb, next := res.of.step(vOF, of)
		acc, nacc = putBits(acc, nacc, uint64(vOF), nb)
		vOF = next
		nb, next = res.ml.step(vML, ml)
		acc, nacc = putBits(acc, nacc, uint64(vML), nb)
		vML = next
		nb, next = res.ll.step(vLL, ll)
		acc, nacc = putBits(acc, nacc, uint64(vLL), nb)
		vLL = next
		acc, nacc = putBits(acc, nacc, uint64(llx[i]), uint(llBits[ll]))
		bs, acc, nacc = flushBits(bs, acc, nacc)
		acc, nacc = putBits(acc, nacc, uint64(mlx[i]), uint(mlBits[ml]))
		acc, nacc = putBits(acc, nacc, uint64(ofx[i]), uint(of))
		bs, acc, nacc = flushBits(bs, acc, nacc)
	}
	w.out, w.acc, w.n = bs, acc, nacc
	sOF.value, sML.value, sLL.value = vOF, vML, vLL
	sML.flush(&w)
	sOF.flush(&w)
	sLL.flush(&w)
	out := w.close()
	res.tight = fseAt >= 0 && len(out)-fseAt < 4
	return out, res
}

// offsetValue is the Offset_Value that makes the decoder copy from off
// bytes back after litLen literals, given the repeat offsets rep, and the
// repeat offsets after it (RFC 8878, 3.1.2.5).
func offsetValue(off, litLen uint32, rep [3]uint32) (uint32, [3]uint32) {
	ov, r1, r2 := offsetCode(off, litLen, rep[0], rep[1], rep[2])
	return ov, [3]uint32{off, r1, r2}
}

// offsetCode is offsetValue on the repeat offsets as three values; the
// first repeat offset after it is always off. It is small enough to be
// inlined, and its tests compile to conditional moves: which repeat
// offset a sequence takes is what branch prediction cannot guess, and the
// call with its branches was a fifth of the coder's time on rocRAND.
func offsetCode(off, litLen, r0, r1, r2 uint32) (ov, n1, n2 uint32) {
	// Offset_Values 1, 2 and 3 stand for a, b and c; the first that
	// equals off is taken (the last assignment below).
	a, b, c := r0, r1, r2
	if litLen == 0 {
		a, b, c = r1, r2, r0-1
	}
	ov = off + 3
	if off == c {
		ov = 3
	}
	if off == b {
		ov = 2
	}
	if off == a {
		ov = 1
	}
	// The repeat offsets shift as for a new offset (off, r0, r1) but
	// when off is rep[0] itself (after literals: nothing moves) or rep[1]
	// (rep[2] stays).
	n1, n2 = r0, r1
	if litLen != 0 && off == r0 {
		n1, n2 = r1, r2
	}
	if off == r1 {
		n2 = r2
	}
	return
}

// Literals_Block_Type values.
const (
	litRaw        = 0
	litRLE        = 1
	litCompressed = 2
	litTreeless   = 3
)

// appendLiterals appends the literals section for lits.
func (c *coder) appendLiterals(dst, lits []byte) ([]byte, int) {
	var out []byte
	var reused, single bool
	err := huff0.ErrIncompressible
	switch {
	case len(lits) >= 1024:
		out, reused, err = huff0.Compress4X(lits, &c.huff)
	case len(lits) > 16:
		single = true
		out, reused, err = huff0.Compress1X(lits, &c.huff)
	}
	effect := huffSame
	if err == nil && !reused {
		effect = huffNew
	}
	if err == nil && len(out)+5 >= len(lits)+rawLitHeaderLen(len(lits)) {
		err = huff0.ErrIncompressible
		if effect == huffNew {
			effect = huffDiverged
		}
	}
	switch {
	case err == huff0.ErrUseRLE:
		dst = appendRawLitHeader(dst, litRLE, len(lits))
		return append(dst, lits[0]), effect
	case err != nil:
		dst = appendRawLitHeader(dst, litRaw, len(lits))
		return append(dst, lits...), effect
	}
	typ := uint64(litCompressed)
	if reused {
		typ = litTreeless
	}
	regen, comp := uint64(len(lits)), uint64(len(out))
	var sf uint64
	var nb, hl int
	switch {
	case single:
		sf, nb, hl = 0, 10, 3
	case regen < 1024 && comp < 1024:
		sf, nb, hl = 1, 10, 3
	case regen < 16384 && comp < 16384:
		sf, nb, hl = 2, 14, 4
	default:
		sf, nb, hl = 3, 18, 5
	}
	h := typ | sf<<2 | regen<<4 | comp<<(4+nb)
	for i := range hl {
		dst = append(dst, byte(h>>(8*i)))
	}
	return append(dst, out...), effect
}

func rawLitHeaderLen(n int) int {
	switch {
	case n < 32:
		return 1
	case n < 4096:
		return 2
	}
	return 3
}

func appendRawLitHeader(dst []byte, typ, n int) []byte {
	switch {
	case n < 32:
		return append(dst, byte(typ|n<<3))
	case n < 4096:
		h := typ | 1<<2 | n<<4
		return append(dst, byte(h), byte(h>>8))
	}
	h := typ | 3<<2 | n<<4
	return append(dst, byte(h), byte(h>>8), byte(h>>16))
}

// Symbol_Compression_Mode values.
const (
	modePredefined = 0
	modeRLE        = 1
	modeFSE        = 2
	modeRepeat     = 3
)

// chooseTable picks the cheapest way to code syms: the predefined table,
// one repeated symbol, the previous block's table, or a new table written
// to dst.
func chooseTable(dst []byte, syms []uint8, maxSym int, maxLog uint8, pre, prev *fseTable) ([]byte, *fseTable, byte) {
	counts := histogram(syms)
	top := 63
	for top > 0 && counts[top] == 0 {
		top--
	}
	cnt := counts[:top+1]
	distinct := 0
	for _, c := range cnt {
		if c != 0 {
			distinct++
		}
	}
	n := uint32(len(syms))
	if distinct == 1 && n > 2 {
		return append(dst, uint8(top)), rleTable(uint8(top)), modeRLE
	}
	best, bestMode := pre, byte(modePredefined)
	bestCost := pre.bitsFor(cnt)
	if top >= len(pre.norm) {
		bestCost = ^uint64(0)
	}
	if prev != nil && !prev.rle && top < len(prev.norm) {
		if b := prev.bitsFor(cnt); b < bestCost {
			best, bestMode, bestCost = prev, modeRepeat, b
		}
	}
	at := len(dst)
	norm, log, cost := newTableCost(dst, cnt, n, distinct, maxLog)
	if cost >= bestCost {
		return dst[:at], best, bestMode
	}
	t := &fseTable{log: log, norm: norm}
	t.build()
	return appendNCount(dst[:at], norm, log), t, modeFSE
}

// histogram counts syms (all under 64). Four tables, summed at the end:
// runs of one code (a block's literal lengths are mostly 0 and 1) would
// otherwise wait on the increment before.
func histogram(syms []uint8) [64]uint32 {
	var h [4][64]uint32
	for len(syms) >= 4 {
		h[0][syms[0]&63]++
		h[1][syms[1]&63]++
		h[2][syms[2]&63]++
		h[3][syms[3]&63]++
		syms = syms[4:]
	}
	for _, s := range syms {
		h[0][s&63]++
	}
	for i := range h[0] {
		h[0][i] += h[1][i] + h[2][i] + h[3][i]
	}
	return h[0]
}

// newTableCost finds the accuracy log at which a new table for counts
// cnt (n symbols, distinct of them different) costs least, its
// description included, and returns the table's distribution, log and
// cost (in 1/256 bits). It writes descriptions after dst's length as
// scratch.
func newTableCost(dst []byte, cnt []uint32, n uint32, distinct int, maxLog uint8) ([]int16, uint8, uint64) {
	const header = 8 * 256 // cost units per header byte
	minLog := uint8(5)
	for 1<<minLog < distinct {
		minLog++
	}
	hi := min(maxLog, uint8(max(bits.Len32(n)+1, int(minLog))))
	var bestNorm []int16
	bestLog := uint8(0)
	bestCost := ^uint64(0)
	at := len(dst)
	for log := minLog; log <= hi; log++ {
		norm := normalize(cnt, n, log)
		hdr := appendNCount(dst, norm, log)
		if cost := normBits(norm, log, cnt) + uint64(len(hdr)-at)*header; cost < bestCost {
			bestNorm, bestLog, bestCost = norm, log, cost
		}
	}
	return bestNorm, bestLog, bestCost
}
