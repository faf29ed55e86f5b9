package zenc

import (
	"encoding/binary"
	"slices"
)

// bitWriter collects bits least significant first, as zstd's backward
// bitstreams (Huffman and FSE) are written: the decoder reads them from the
// last byte towards the first.
type bitWriter struct {
	out []byte
	acc uint64
	n   uint // bits held in acc: < 32 between calls to add
}

// flush writes acc's whole bytes out, as one 8-byte store: out must have
// 8 bytes of spare capacity (reserve).
func (w *bitWriter) flush() { w.out, w.acc, w.n = flushBits(w.out, w.acc, w.n) }

// putBits appends the low nb bits of v to the accumulator acc of n bits,
// without writing: the caller keeps n <= 64 (flushBits leaves at most 7),
// which saves add's test per field. The coder's sequence loop holds the
// accumulator in locals; flushBits is flush on them.
func putBits(acc uint64, n uint, v uint64, nb uint) (uint64, uint) {
	return acc | (v&(1<<nb-1))<<n, n + nb
}

func flushBits(out []byte, acc uint64, n uint) ([]byte, uint64, uint) {
	l := len(out)
	binary.LittleEndian.PutUint64(out[l:l+8], acc)
	k := n >> 3
	return out[:l+int(k)], acc >> (k * 8), n & 7
}

// reserve makes room for n more bytes and a flush's store.
func (w *bitWriter) reserve(n int) {
	w.out = slices.Grow(w.out, n+8)
}

// add appends the low nb bits of v (nb <= 32).
func (w *bitWriter) add(v uint64, nb uint) {
	w.acc |= (v & (1<<nb - 1)) << w.n
	w.n += nb
	if w.n >= 32 {
		w.out = append(w.out, byte(w.acc), byte(w.acc>>8), byte(w.acc>>16), byte(w.acc>>24))
		w.acc >>= 32
		w.n -= 32
	}
}

// close ends the stream with the marker bit zstd's readers look for and
// flushes the last partial byte.
func (w *bitWriter) close() []byte {
	w.add(1, 1)
	for w.n > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.n = w.n - min(w.n, 8)
	}
	return w.out
}
