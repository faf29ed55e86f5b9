// Package offloadbin reads and writes the OffloadBinary container (magic
// 10 FF 10 AD) that clang embeds, in sections named .llvm.offloading, to
// carry device images with their metadata (triple, arch, producer).
//
// The writer produces version-1 binaries byte for byte as LLVM 22's
// llvm-offload-binary does: header, one entry, the string entries in the
// given order, a tail-merged string table laid out like LLVM's
// StringTableBuilder, the image at an 8-aligned offset, zero padding to a
// multiple of 8. Image bytes are streamed from an io.ReaderAt.
//
// The reader walks a buffer of binaries back to back over an io.ReaderAt,
// reading headers and string maps only. It also accepts the newer versions
// 2 (several entries per header) and 3 (optionally zlib- or
// zstd-compressed); V1Only restricts it to exactly what LLVM 22 accepts,
// with LLVM 22's checks. Errors are *FormatError values that say where and
// what, and wrap ErrInvalid or ErrTruncated, LLVM's two messages.
//
// Finding binaries inside ELF, COFF, bitcode and archive files is done by
// Extract (see extract.go); the llvm-offload-binary command line lives in
// the cli subpackage.
package offloadbin
