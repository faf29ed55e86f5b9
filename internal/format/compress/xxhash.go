package compress

import (
	"encoding/binary"
	"math/bits"
)

// xxh64 is the XXH64 hash (seed 0) used by zstd frame checksums: the
// checksum is its low 32 bits. The Go zstd decoder is told to ignore
// checksums so that we can check them after the frame's content size, in
// libzstd's order.
type xxh64 struct {
	v     [4]uint64
	total uint64
	mem   [32]byte
	n     int
}

const (
	xxP1 uint64 = 11400714785074694791
	xxP2 uint64 = 14029467366897019727
	xxP3 uint64 = 1609587929392839161
	xxP4 uint64 = 9650029242287828579
	xxP5 uint64 = 2870177450012600261
)

func newXXH64() *xxh64 {
	p1, p2 := xxP1, xxP2 // variables: the initial state wraps around
	return &xxh64{v: [4]uint64{p1 + p2, p2, 0, -p1}}
}

func xxRound(acc, in uint64) uint64 {
	acc += in * xxP2
	return bits.RotateLeft64(acc, 31) * xxP1
}

func xxMerge(acc, v uint64) uint64 {
	acc ^= xxRound(0, v)
	return acc*xxP1 + xxP4
}

func (x *xxh64) Write(p []byte) (int, error) {
	n := len(p)
	x.total += uint64(n)
	if x.n > 0 {
		c := copy(x.mem[x.n:], p)
		x.n += c
		p = p[c:]
		if x.n < 32 {
			return n, nil
		}
		x.blocks(x.mem[:])
		x.n = 0
	}
	full := len(p) &^ 31
	x.blocks(p[:full])
	x.n = copy(x.mem[:], p[full:])
	return n, nil
}

func (x *xxh64) blocks(p []byte) {
	for ; len(p) >= 32; p = p[32:] {
		for i := range 4 {
			x.v[i] = xxRound(x.v[i], binary.LittleEndian.Uint64(p[8*i:]))
		}
	}
}

func (x *xxh64) Sum64() uint64 {
	var h uint64
	if x.total >= 32 {
		v := x.v
		h = bits.RotateLeft64(v[0], 1) + bits.RotateLeft64(v[1], 7) + bits.RotateLeft64(v[2], 12) + bits.RotateLeft64(v[3], 18)
		for _, vi := range v {
			h = xxMerge(h, vi)
		}
	} else {
		h = xxP5
	}
	h += x.total
	p := x.mem[:x.n]
	for ; len(p) >= 8; p = p[8:] {
		h ^= xxRound(0, binary.LittleEndian.Uint64(p))
		h = bits.RotateLeft64(h, 27)*xxP1 + xxP4
	}
	if len(p) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(p)) * xxP1
		h = bits.RotateLeft64(h, 23)*xxP2 + xxP3
		p = p[4:]
	}
	for _, b := range p {
		h ^= uint64(b) * xxP5
		h = bits.RotateLeft64(h, 11) * xxP1
	}
	h ^= h >> 33
	h *= xxP2
	h ^= h >> 29
	h *= xxP3
	h ^= h >> 32
	return h
}
