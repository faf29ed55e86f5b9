package zenc

// bitWriter collects bits least significant first, as zstd's backward
// bitstreams (Huffman and FSE) are written: the decoder reads them from the
// last byte towards the first.
type bitWriter struct {
	out []byte
	acc uint64
	n   uint // bits held in acc, always < 32 between calls
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
