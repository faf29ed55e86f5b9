package zenc

import (
	"math"
	"math/bits"
)

// An fseTable is one finite-state-entropy coding table of a sequences
// section (RFC 8878, 4.1): the normalized distribution the decoder rebuilds
// its table from, and the encoder's transforms derived from it.
type fseTable struct {
	log  uint8
	norm []int16 // per symbol; -1 is "less than one" (a single cell)
	rle  bool    // one symbol, no state bits (Symbol_Compression_Mode RLE)
	sym  uint8   // the symbol of an RLE table

	state []uint16   // next states, indexed by cumulative position
	tt    []symTrans // per symbol
	cost  []uint32   // per symbol: approximate cost in 1/256 bits
}

type symTrans struct {
	deltaBits uint32
	deltaFind int32
}

// spread places the symbols over the table cells as every zstd decoder
// does, in the first 1<<log of into, and returns those.
func spread(norm []int16, log uint8, into *[1 << maxTableLog]uint8) []uint8 {
	size := 1 << log
	cells := into[:size]
	high := size - 1
	for s, c := range norm {
		if c == -1 {
			cells[high] = uint8(s)
			high--
		}
	}
	step := size>>1 + size>>3 + 3
	mask := size - 1
	pos := 0
	for s, c := range norm {
		for range max(c, 0) {
			cells[pos] = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	return cells
}

// build derives the encoder's tables from t.norm and t.log.
func (t *fseTable) build() {
	if t.rle {
		return
	}
	size := 1 << t.log
	var spreadBuf [1 << maxTableLog]uint8
	cells := spread(t.norm, t.log, &spreadBuf)
	cumul := make([]int, len(t.norm)+1)
	for s, c := range t.norm {
		cumul[s+1] = cumul[s] + int(max(c, 1))
		if c == 0 {
			cumul[s+1] = cumul[s]
		}
	}
	t.state = make([]uint16, size)
	for u, s := range cells {
		t.state[cumul[s]] = uint16(size + u)
		cumul[s]++
	}
	t.tt = make([]symTrans, len(t.norm))
	t.cost = make([]uint32, len(t.norm))
	log := uint32(t.log)
	total := int32(0)
	for s, c := range t.norm {
		switch {
		case c == 0:
			t.tt[s].deltaBits = (log+1)<<16 - 1<<log
			t.cost[s] = math.MaxUint32
		case c == -1 || c == 1:
			t.tt[s] = symTrans{log<<16 - 1<<log, total - 1}
			total++
			t.cost[s] = log << 8
		default:
			maxOut := log - uint32(bits.Len32(uint32(c)-1)-1)
			t.tt[s] = symTrans{maxOut<<16 - uint32(c)<<maxOut, total - int32(c)}
			total += int32(c)
			t.cost[s] = uint32(256 * (float64(log) - log2Cells[c]))
		}
	}
}

// rleTable is the table of Symbol_Compression_Mode RLE: sym only, coded
// in no bits. Its transitions are all zero, so that coding with it as
// with any other table writes nothing and stays in state 0.
func rleTable(sym uint8) *fseTable {
	return &fseTable{rle: true, sym: sym, tt: rleTrans[:], state: rleNext[:]}
}

var (
	rleTrans [64]symTrans
	rleNext  [1]uint16
)

// fseState is one interleaved FSE encoder state.
type fseState struct {
	t     *fseTable
	value uint32
}

func (s *fseState) init(t *fseTable, sym uint8) {
	s.t = t
	tt := t.tt[sym]
	nb := (tt.deltaBits + 1<<15) >> 16
	v := nb<<16 - tt.deltaBits
	s.value = uint32(t.state[int32(v>>nb)+tt.deltaFind])
}

// step returns how many low bits of state v sym's transition writes (at
// most the table's log), and the state it leads to.
func (t *fseTable) step(v uint32, sym uint8) (uint, uint32) {
	tt := t.tt[sym]
	nb := (v + tt.deltaBits) >> 16
	return uint(nb), uint32(t.state[int32(v>>nb)+tt.deltaFind])
}

func (s *fseState) flush(w *bitWriter) {
	w.add(uint64(s.value), uint(s.t.log))
}

// normalize scales counts (total > 0, at most 1<<log distinct symbols) to a
// distribution summing to 1<<log in which every present symbol keeps at
// least one cell. Rounding errors go to the symbols that lose least by them.
func normalize(counts []uint32, total uint32, log uint8) []int16 {
	size := int64(1) << log
	norm := make([]int16, len(counts))
	sum := int64(0)
	for s, c := range counts {
		if c == 0 {
			continue
		}
		n := max(int64(c)*size/int64(total), 1)
		norm[s] = int16(n)
		sum += n
	}
	// Hand out or take back cells one at a time, each where it changes the
	// estimated cost the least: a symbol with count c and n cells costs
	// c*log2(size/n) bits.
	for sum != size {
		best, bestCost := -1, math.Inf(1)
		for s, c := range counts {
			n := norm[s]
			if c == 0 {
				continue
			}
			var delta float64
			if sum < size {
				delta = -float64(c) * (log2Cells[n+1] - log2Cells[n])
			} else {
				if n <= 1 {
					continue
				}
				delta = float64(c) * (log2Cells[n] - log2Cells[n-1])
			}
			if delta < bestCost {
				best, bestCost = s, delta
			}
		}
		if sum < size {
			norm[best]++
			sum++
		} else {
			norm[best]--
			sum--
		}
	}
	return norm
}

// log2Cells[n] is log2(n), for the cell counts of a table of up to
// 1<<maxTableLog cells.
var log2Cells = func() (t [1<<maxTableLog + 2]float64) {
	for n := 1; n < len(t); n++ {
		t[n] = math.Log2(float64(n))
	}
	return t
}()

// maxTableLog is the largest accuracy of a sequences table (maxLLLog).
const maxTableLog = 9

// normBits is bitsFor of the table norm would build, without building
// it: a symbol with c cells of 1<<log costs log - log2(c) bits.
func normBits(norm []int16, log uint8, counts []uint32) uint64 {
	var b uint64
	for s, c := range counts {
		if c == 0 {
			continue
		}
		cost := uint64(log) << 8
		if n := norm[s]; n > 1 {
			cost = uint64(256 * (float64(log) - log2Cells[n]))
		}
		b += uint64(c) * cost
	}
	return b
}

// appendNCount writes the distribution header of an FSE_Compressed table
// (RFC 8878, 4.1.1).
func appendNCount(dst []byte, norm []int16, log uint8) []byte {
	var acc uint64
	var n uint
	put := func(v uint64, nb uint) {
		acc |= v << n
		n += nb
		for n >= 8 {
			dst = append(dst, byte(acc))
			acc >>= 8
			n -= 8
		}
	}
	size := 1 << log
	put(uint64(log-5), 4)
	remaining := size + 1
	threshold := size
	nbBits := uint(log) + 1
	sym := 0
	prev0 := false
	for sym < len(norm) && remaining > 1 {
		if prev0 {
			start := sym
			for sym < len(norm) && norm[sym] == 0 {
				sym++
			}
			for sym >= start+24 {
				start += 24
				put(0xFFFF, 16)
			}
			for sym >= start+3 {
				start += 3
				put(3, 2)
			}
			put(uint64(sym-start), 2)
		}
		count := int(norm[sym])
		sym++
		maxv := 2*threshold - 1 - remaining
		if count < 0 {
			remaining += count
		} else {
			remaining -= count
		}
		count++
		if count >= threshold {
			count += maxv
		}
		if count < maxv {
			put(uint64(count), nbBits-1)
		} else {
			put(uint64(count), nbBits)
		}
		prev0 = count == 1
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
	}
	if n > 0 {
		dst = append(dst, byte(acc))
	}
	return dst
}

// predefined builds one of the default distributions (RFC 8878, 3.1.1.3.2.2).
func predefined(norm []int16, log uint8) *fseTable {
	t := &fseTable{log: log, norm: norm}
	t.build()
	return t
}

// bitsFor estimates the bits the table spends on the symbols counted, in
// 1/256 bits, or MaxUint64 when a symbol counted has no cell.
func (t *fseTable) bitsFor(counts []uint32) uint64 {
	if t.rle {
		for s, c := range counts {
			if c != 0 && s != int(t.sym) {
				return math.MaxUint64
			}
		}
		return 0
	}
	var b uint64
	for s, c := range counts {
		if c == 0 {
			continue
		}
		if s >= len(t.cost) || t.cost[s] == math.MaxUint32 {
			return math.MaxUint64
		}
		b += uint64(c) * uint64(t.cost[s])
	}
	return b
}
