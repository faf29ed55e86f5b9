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

// put appends the low nb bits of v to acc only: the caller keeps n <= 64
// (flush leaves at most 7), which saves add's test per field.
func (w *bitWriter) put(v uint64, nb uint) {
	w.acc |= (v & (1<<nb - 1)) << w.n
	w.n += nb
}

// flush writes acc's whole bytes out, as one 8-byte store: out must have
// 8 bytes of spare capacity (reserve).
func (w *bitWriter) flush() {
	l := len(w.out)
	binary.LittleEndian.PutUint64(w.out[l:l+8], w.acc)
	k := w.n >> 3
	w.out = w.out[:l+int(k)]
	w.acc >>= k * 8
	w.n &= 7
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
