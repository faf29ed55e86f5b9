package llvmhash

import (
	"encoding/binary"
	"math/bits"
)

// This file implements XXH3-64 with seed 0 and the default secret, the hash
// behind LLVM 22's xxh3_64bits (and hence StringMap bucket placement). It
// follows the published XXH3 specification; it is written for clarity, not
// speed, since the bundler hashes only a few short IDs.

const (
	xxPrime32_1 = 0x9E3779B1
	xxPrime32_2 = 0x85EBCA77
	xxPrime32_3 = 0xC2B2AE3D
	xxPrime64_1 = 0x9E3779B185EBCA87
	xxPrime64_2 = 0xC2B2AE3D27D4EB4F
	xxPrime64_3 = 0x165667B19E3779F9
	xxPrime64_4 = 0x85EBCA77C2B2AE63
	xxPrime64_5 = 0x27D4EB2F165667C5
	xxPrimeMX1  = 0x165667919E3779F9
	xxPrimeMX2  = 0x9FB21C651E98DF25

	xxStripeLen        = 64
	xxSecretConsume    = 8
	xxSecretSizeMin    = 136
	xxMidsizeMax       = 240
	xxMidsizeStartOff  = 3
	xxMidsizeLastOff   = 17
	xxSecretLastAcc    = 7
	xxSecretMergeStart = 11
)

// xxSecret is XXH3's default 192-byte secret (kSecret).
var xxSecret = [192]byte{
	0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
	0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
	0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
	0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
	0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
	0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
	0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
	0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
	0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
	0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
	0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
	0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
}

func xxLE64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
func xxLE32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

// xxFold64 multiplies a and b to 128 bits and xors the two halves.
func xxFold64(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func xx64Avalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= xxPrime64_2
	h ^= h >> 29
	h *= xxPrime64_3
	h ^= h >> 32
	return h
}

func xx3Avalanche(h uint64) uint64 {
	h ^= h >> 37
	h *= xxPrimeMX1
	h ^= h >> 32
	return h
}

func xxRrmxmx(h uint64, n uint64) uint64 {
	h ^= bits.RotateLeft64(h, 49) ^ bits.RotateLeft64(h, 24)
	h *= xxPrimeMX2
	h ^= (h >> 35) + n
	h *= xxPrimeMX2
	return h ^ h>>28
}

// xxMix16 mixes 16 input bytes at in[i:] with 16 secret bytes at s[j:].
func xxMix16(in []byte, i int, s []byte, j int) uint64 {
	return xxFold64(xxLE64(in, i)^xxLE64(s, j), xxLE64(in, i+8)^xxLE64(s, j+8))
}

// XXH3_64 returns the 64-bit XXH3 hash of b with seed 0 and the default
// secret, the value of LLVM's llvm::xxh3_64bits.
func XXH3_64(b []byte) uint64 {
	s := xxSecret[:]
	n := len(b)
	switch {
	case n == 0:
		return xx64Avalanche(xxLE64(s, 56) ^ xxLE64(s, 64))
	case n <= 3:
		c1, c2, c3 := uint32(b[0]), uint32(b[n>>1]), uint32(b[n-1])
		combined := c1<<16 | c2<<24 | c3 | uint32(n)<<8
		flip := uint64(xxLE32(s, 0) ^ xxLE32(s, 4))
		return xx64Avalanche(uint64(combined) ^ flip)
	case n <= 8:
		in1, in2 := xxLE32(b, 0), xxLE32(b, n-4)
		flip := xxLE64(s, 8) ^ xxLE64(s, 16)
		in64 := uint64(in2) + uint64(in1)<<32
		return xxRrmxmx(in64^flip, uint64(n))
	case n <= 16:
		flip1 := xxLE64(s, 24) ^ xxLE64(s, 32)
		flip2 := xxLE64(s, 40) ^ xxLE64(s, 48)
		lo := xxLE64(b, 0) ^ flip1
		hi := xxLE64(b, n-8) ^ flip2
		acc := uint64(n) + bits.ReverseBytes64(lo) + hi + xxFold64(lo, hi)
		return xx3Avalanche(acc)
	case n <= 128:
		acc := uint64(n) * xxPrime64_1
		if n > 32 {
			if n > 64 {
				if n > 96 {
					acc += xxMix16(b, 48, s, 96)
					acc += xxMix16(b, n-64, s, 112)
				}
				acc += xxMix16(b, 32, s, 64)
				acc += xxMix16(b, n-48, s, 80)
			}
			acc += xxMix16(b, 16, s, 32)
			acc += xxMix16(b, n-32, s, 48)
		}
		acc += xxMix16(b, 0, s, 0)
		acc += xxMix16(b, n-16, s, 16)
		return xx3Avalanche(acc)
	case n <= xxMidsizeMax:
		acc := uint64(n) * xxPrime64_1
		rounds := n / 16
		for i := 0; i < 8; i++ {
			acc += xxMix16(b, 16*i, s, 16*i)
		}
		acc = xx3Avalanche(acc)
		for i := 8; i < rounds; i++ {
			acc += xxMix16(b, 16*i, s, 16*(i-8)+xxMidsizeStartOff)
		}
		acc += xxMix16(b, n-16, s, xxSecretSizeMin-xxMidsizeLastOff)
		return xx3Avalanche(acc)
	}
	return xxLong(b, s)
}

// xxLong hashes inputs longer than 240 bytes with the stripe/accumulator loop.
func xxLong(b, s []byte) uint64 {
	acc := [8]uint64{xxPrime32_3, xxPrime64_1, xxPrime64_2, xxPrime64_3,
		xxPrime64_4, xxPrime32_2, xxPrime64_5, xxPrime32_1}
	n := len(b)
	stripesPerBlock := (len(s) - xxStripeLen) / xxSecretConsume
	blockLen := xxStripeLen * stripesPerBlock
	blocks := (n - 1) / blockLen
	for blk := 0; blk < blocks; blk++ {
		xxAccumulate(&acc, b[blk*blockLen:], s, stripesPerBlock)
		xxScramble(&acc, s[len(s)-xxStripeLen:])
	}
	stripes := ((n - 1) - blockLen*blocks) / xxStripeLen
	xxAccumulate(&acc, b[blocks*blockLen:], s, stripes)
	xxAccumulate512(&acc, b[n-xxStripeLen:], s[len(s)-xxStripeLen-xxSecretLastAcc:])

	res := uint64(n) * xxPrime64_1
	ms := s[xxSecretMergeStart:]
	for i := 0; i < 4; i++ {
		res += xxFold64(acc[2*i]^xxLE64(ms, 16*i), acc[2*i+1]^xxLE64(ms, 16*i+8))
	}
	return xx3Avalanche(res)
}

func xxAccumulate(acc *[8]uint64, in, s []byte, stripes int) {
	for i := 0; i < stripes; i++ {
		xxAccumulate512(acc, in[i*xxStripeLen:], s[i*xxSecretConsume:])
	}
}

func xxAccumulate512(acc *[8]uint64, in, s []byte) {
	for i := 0; i < 8; i++ {
		v := xxLE64(in, 8*i)
		k := v ^ xxLE64(s, 8*i)
		acc[i^1] += v
		acc[i] += uint64(uint32(k)) * (k >> 32)
	}
}

func xxScramble(acc *[8]uint64, s []byte) {
	for i := 0; i < 8; i++ {
		a := acc[i]
		a ^= a >> 47
		a ^= xxLE64(s, 8*i)
		a *= xxPrime32_1
		acc[i] = a
	}
}
