// Package binfmt reads and writes clang-offload-bundler's binary bundle
// format, used for the bc, gch and ast types and for o inputs that are not
// object files.
//
// Layout (all integers little-endian uint64):
//
//	0   24 bytes  "__CLANG_OFFLOAD_BUNDLE__" (magic.BundleMagic)
//	24  8         number of entries N
//	32  N times:  offset, size, ID length, ID bytes (no NUL, no padding)
//	    payloads, each preceded by zero padding up to its offset
//
// Offsets are absolute. The writer aligns every payload to the bundle
// alignment (any positive number, not only powers of two). The reader
// returns entries in file order; the order in which LLVM visits them (its
// StringMap order) is the caller's business.
package binfmt

const (
	countOff   = 24 // offset of the entry count, right after the magic
	entriesOff = 32 // offset of the first entry
	entryFixed = 24 // offset, size and ID length fields of an entry
)
