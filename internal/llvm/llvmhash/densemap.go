package llvmhash

import (
	"encoding/binary"
	"math/bits"
)

// This file models LLVM 22's DenseMap<StringRef, ...>: the hash LLVM 22 uses
// for StringRef keys (hash_value(StringRef), a CityHash64 variant with the
// fixed seed of release builds) and the order in which a DenseMap visits its
// buckets. llvm-offload-binary 22 stores an image's string entries in that
// order, so a byte-compatible writer must reproduce it.

// Constants of LLVM 22's hash_value(StringRef).
const (
	dmK0   = 0xc3a5c85c97cb3127
	dmK1   = 0xb492b66fbe98f273
	dmK2   = 0x9ae16a3b2f90404f
	dmK3   = 0xc949d7c7509e6557
	dmKMul = 0x9ddfea08eb382d69
	// dmSeed is the fixed seed of builds without LLVM_ENABLE_ABI_BREAKING_CHECKS
	// (Debian's release packages among them).
	dmSeed = 0xff51afd7ed558ccd
)

func rotr(v uint64, s uint) uint64 { return bits.RotateLeft64(v, -int(s)) }

func shiftMix(v uint64) uint64 { return v ^ v>>47 }

func mix16(lo, hi uint64) uint64 {
	a := (lo ^ hi) * dmKMul
	a ^= a >> 47
	b := (hi ^ a) * dmKMul
	b ^= b >> 47
	return b * dmKMul
}

func r64(s []byte, i int) uint64 { return binary.LittleEndian.Uint64(s[i:]) }
func r32(s []byte, i int) uint64 { return uint64(binary.LittleEndian.Uint32(s[i:])) }

// DenseMapHash returns LLVM 22's hash_value(StringRef) of s, as computed by
// a release build of libLLVM 22 (the 64-bit value; DenseMap uses its low 32
// bits).
func DenseMapHash(s []byte) uint64 {
	n := uint64(len(s))
	switch {
	case n == 0:
		return dmK2 ^ dmSeed
	case n <= 3:
		a, b, c := uint32(s[0]), uint32(s[n>>1]), uint32(s[n-1])
		y := a + b<<8
		z := uint32(n) + c<<2
		return shiftMix(uint64(y)*dmK2^uint64(z)*dmK3^dmSeed) * dmK2
	case n <= 8:
		return mix16(n+r32(s, 0)<<3, dmSeed^r32(s, len(s)-4))
	case n <= 16:
		a, b := r64(s, 0), r64(s, len(s)-8)
		return mix16(dmSeed^a, rotr(b+n, uint(n))) ^ b
	case n <= 32:
		a := r64(s, 0) * dmK1
		b := r64(s, 8)
		c := r64(s, len(s)-8) * dmK2
		d := r64(s, len(s)-16) * dmK0
		return mix16(rotr(a-b, 43)+rotr(c^dmSeed, 30)+d, a+rotr(b^dmK3, 20)-c+n+dmSeed)
	case n <= 64:
		return hash33to64(s)
	}
	return hashLong(s)
}

func hash33to64(s []byte) uint64 {
	n := len(s)
	z := r64(s, 24)
	a := r64(s, 0) + (uint64(n)+r64(s, n-16))*dmK0
	b := rotr(a+z, 52)
	c := rotr(a, 37)
	a += r64(s, 8)
	c += rotr(a, 7)
	a += r64(s, 16)
	vf := a + z
	vs := b + rotr(a, 31) + c

	a = r64(s, 16) + r64(s, n-32)
	z = r64(s, n-8)
	b = rotr(a+z, 52)
	c = rotr(a, 37)
	a += r64(s, n-24)
	c += rotr(a, 7)
	a += r64(s, n-16)
	wf := a + z
	ws := b + rotr(a, 31) + c

	r := shiftMix((vf+ws)*dmK2 + (wf+vs)*dmK0)
	return shiftMix((dmSeed^r*dmK0)+vs) * dmK2
}

// longState is the seven-word state of the hash of strings over 64 bytes.
type longState struct{ h0, h1, h2, h3, h4, h5, h6 uint64 }

func (st *longState) mix32(s []byte, p int, a, b *uint64) {
	*a += r64(s, p)
	c := r64(s, p+24)
	*b = rotr(*b+*a+c, 21)
	d := *a
	*a += r64(s, p+8) + r64(s, p+16)
	*b += rotr(*a, 44) + d
	*a += c
}

func (st *longState) mix(s []byte, p int) {
	st.h0 = rotr(st.h0+st.h1+st.h3+r64(s, p+8), 37) * dmK1
	st.h1 = rotr(st.h1+st.h4+r64(s, p+48), 42) * dmK1
	st.h0 ^= st.h6
	st.h1 += st.h3 + r64(s, p+40)
	st.h2 = rotr(st.h2+st.h5, 33) * dmK1
	st.h3 = st.h4 * dmK1
	st.h4 = st.h0 + st.h5
	st.mix32(s, p, &st.h3, &st.h4)
	st.h5 = st.h2 + st.h6
	st.h6 = st.h1 + r64(s, p+16)
	st.mix32(s, p+32, &st.h5, &st.h6)
	st.h0, st.h2 = st.h2, st.h0
}

func hashLong(s []byte) uint64 {
	n := len(s)
	seed := uint64(dmSeed)
	st := longState{h1: seed, h2: mix16(seed, dmK1), h3: rotr(seed^dmK1, 49), h4: seed * dmK1, h5: shiftMix(seed)}
	st.h6 = mix16(st.h4, st.h5)
	st.mix(s, 0)
	end := n &^ 63
	for p := 64; p < end; p += 64 {
		st.mix(s, p)
	}
	if n%64 != 0 {
		st.mix(s, n-64)
	}
	return mix16(mix16(st.h3, st.h5)+shiftMix(st.h1)*dmK1+st.h2,
		mix16(st.h4, st.h6)+shiftMix(uint64(n))*dmK1+st.h0)
}

// DenseMap models the bucket layout of an LLVM 22 DenseMap with StringRef
// keys into which keys are only ever inserted (never erased, so there are no
// tombstones). It records only where each key lands.
type DenseMap struct {
	buckets []int32 // index into keys, or -1 when empty; 0, then 64, 128, ... buckets
	keys    []string
}

// Insert adds key if it is not present yet and reports whether it was added.
func (m *DenseMap) Insert(key string) bool {
	if m.find(key) >= 0 {
		return false
	}
	// LLVM grows before inserting a new key when the table would become
	// three quarters full (and on the very first insertion).
	if n := len(m.buckets); (len(m.keys)+1)*4 >= n*3 {
		m.grow(max(64, n*2))
	}
	m.keys = append(m.keys, key)
	m.place(len(m.keys) - 1)
	return true
}

// find returns the bucket holding key, or -1.
func (m *DenseMap) find(key string) int {
	if len(m.buckets) == 0 {
		return -1
	}
	mask := uint32(len(m.buckets) - 1)
	b := uint32(DenseMapHash([]byte(key))) & mask
	for probe := uint32(1); ; probe++ {
		k := m.buckets[b]
		if k < 0 {
			return -1
		}
		if m.keys[k] == key {
			return int(b)
		}
		b = (b + probe) & mask
	}
}

// place puts keys[i] into the first empty bucket of its quadratic probe
// sequence.
func (m *DenseMap) place(i int) {
	mask := uint32(len(m.buckets) - 1)
	b := uint32(DenseMapHash([]byte(m.keys[i]))) & mask
	for probe := uint32(1); m.buckets[b] >= 0; probe++ {
		b = (b + probe) & mask
	}
	m.buckets[b] = int32(i)
}

func (m *DenseMap) grow(n int) {
	old := m.buckets
	m.buckets = make([]int32, n)
	for i := range m.buckets {
		m.buckets[i] = -1
	}
	for _, k := range old {
		if k >= 0 {
			m.place(int(k))
		}
	}
}

// Order returns the keys in the order a DenseMap iteration visits them
// (increasing bucket index).
func (m *DenseMap) Order() []string {
	out := make([]string, 0, len(m.keys))
	for _, k := range m.buckets {
		if k >= 0 {
			out = append(out, m.keys[k])
		}
	}
	return out
}

// DenseMapOrder inserts keys, in order, into an empty DenseMap and returns
// the distinct keys in the map's iteration order.
func DenseMapOrder(keys []string) []string {
	var m DenseMap
	for _, k := range keys {
		m.Insert(k)
	}
	return m.Order()
}
