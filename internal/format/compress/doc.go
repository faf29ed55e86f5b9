// Package compress reads and writes CCOBs, the compressed offload bundles
// of LLVM's clang-offload-bundler (-compress), in pure Go.
//
// # Format
//
// A CCOB is a header followed by a payload that compresses a whole bundle
// container (text, binary or the empty object-handler buffer). All header
// integers are little-endian:
//
//	field               v1        v2        v3
//	magic "CCOB"        0..3      0..3      0..3
//	version u16         4..5      4..5      4..5
//	method u16          6..7      6..7      6..7     0 = zlib, 1 = zstd
//	total file size     -         u32 @8    u64 @8   header + payload
//	uncompressed size   u32 @8    u32 @12   u64 @16
//	hash                @12       @16       @24      MD5(uncompressed)[0:8]
//	payload             @20       @24       @32
//
// The hash is the first 8 bytes of the MD5 digest in digest order; LLVM's
// verbose output prints them read as a little-endian integer
// (Header.HashValue, FormatHash). A zstd payload is one or more zstd frames
// (skippable frames allowed); a zlib payload is one zlib stream.
//
// LLVM 22 writes version 3 with zstd at level 3 by default (version 2 on
// request, never version 1, never zlib), as one ZSTD_compress2 call with
// long-distance matching: no frame checksum, content size recorded.
//
// # Reading
//
// Three entry points, from strictest to most faithful to LLVM:
//
//   - Reader reads a sequence of CCOBs as found in real fat binaries:
//     back to back or separated by zero padding, each bounded by its
//     total-size field (v2, v3) or by the end of its run of zstd frames
//     or its zlib stream (v1). Data is streamed, sizes are checked against the input
//     before anything is allocated, and the uncompressed size and hash are
//     verified at the end of each member (HashMismatchError).
//   - DecompressLLVM is LLVM 22's reader: the whole input is one CCOB, the
//     payload is everything after the header, the total size is ignored,
//     the data may be shorter than the header says, the hash is not checked.
//     Its errors carry LLVM's exact messages (FormatError.LLVMMessage),
//     including the libzstd error names ("Src size is incorrect",
//     "Destination buffer is too small", ...) and zlib's ("zlib error:
//     Z_DATA_ERROR").
//   - Decompress, for the drop-in tools, gives DecompressLLVM's result
//     whenever LLVM 22 would succeed and otherwise reads the input as a
//     sequence (which LLVM 22 rejects), keeping LLVM's error when both fail.
//
// Limits: the Reader refuses an uncompressed size above 1 TiB
// (MaxUncompressedSize) or above what the payload could possibly expand to
// (32768:1 for zstd, the ratio of an RLE block; 1032:1 for zlib). Output
// buffers are never allocated from a header's size alone, and the zstd
// decoder's window is bounded by the frame's declared window, what its
// blocks can produce, the output size and 128 MiB; LLVM's frames never need
// more (LDM uses a 2^27 window).
//
// # Writing
//
// Compress writes one CCOB: version 3 (or 2, or 1), zstd or zlib, with
// LLVM's header fields and limits ("Uncompressed size exceeds version 2
// limit"). The zstd payload comes from our own encoder (internal/zenc: lazy
// hash-chain parsing, repeat offsets, long-distance matches over a 2^27
// window, segments parsed in parallel into one frame), so its bytes differ
// from libzstd's; LLVM 22 reads it (tested), and at every level up to 12
// it is smaller than what LLVM writes (NOTES.md). Every payload is decoded
// and compared with the input before it is written.
package compress
