package compress

import (
	"fmt"
	"github.com/goffload/goffload/fmterr"
)

// LLVM 22's messages.
const (
	msgHeaderTooSmall = "Compressed bundle header size too small"
	msgUnknownMethod  = "Unknown compressing method"
	msgDecompress     = "Could not decompress embedded file contents: "
	msgV2Uncompressed = "Uncompressed size exceeds version 2 limit"
	msgV2Total        = "Total file size exceeds version 2 limit"
)

// Sentinel errors, reachable with errors.Is from every *FormatError.
var (
	// ErrNotCompressed: the input does not start with a CCOB header.
	ErrNotCompressed = fmterr.Kind("not a compressed bundle", fmterr.ErrMalformed)
	// ErrHeaderTooSmall: unknown version, or fewer bytes than the header.
	ErrHeaderTooSmall = fmterr.Kind(msgHeaderTooSmall, fmterr.ErrTruncated)
	// ErrUnknownMethod: a method code other than 0 (zlib) or 1 (zstd).
	ErrUnknownMethod = fmterr.Kind(msgUnknownMethod, fmterr.ErrMalformed)
	// ErrCorrupt: the payload does not decompress.
	ErrCorrupt = fmterr.Kind("corrupt compressed payload", fmterr.ErrMalformed)
	// ErrSize: a size field is inconsistent with the data or the file.
	ErrSize = fmterr.Kind("inconsistent CCOB size", fmterr.ErrMalformed)
	// ErrTrailingData: bytes after a CCOB that are neither zero padding nor
	// another CCOB.
	ErrTrailingData = fmterr.Kind("unexpected data after compressed bundle", fmterr.ErrMalformed)
	// ErrLimit: the input is too large for the requested format version.
	ErrLimit = fmterr.Kind("size exceeds format limit", fmterr.ErrLimit)
)

// A FormatError describes a malformed CCOB, in the shape package fmterr
// describes: where (Offset of the CCOB in the input), which Field, what was
// wrong (Msg), the sentinel above it wraps (Err), and the text LLVM 22
// prints for the same failure (LLVM; empty where LLVM accepts the input or
// has no message), which LLVMMessage returns.
type FormatError struct {
	Offset int64
	Field  string
	Msg    string
	LLVM   string
	Err    error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("compressed bundle at offset %d: %s: %s", e.Offset, e.Field, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

// LLVMMessage returns the text LLVM 22 prints for the error (the part after
// "Failed to decompress input: "), or "" when LLVM has no equivalent.
func (e *FormatError) LLVMMessage() string { return e.LLVM }

// A HashMismatchError reports that the decompressed data does not match the
// truncated MD5 stored in the header. LLVM 22 does not treat this as an
// error (it only says "Hashes match: No" in verbose mode), so the drop-in
// tools ignore it; the library reports it.
type HashMismatchError struct {
	Offset   int64  // of the CCOB in the input
	Stored   uint64 // Header.HashValue()
	Computed uint64 // the same view of MD5[0:8] of the data read
}

// ErrHashMismatch is what every *HashMismatchError is (errors.Is).
var ErrHashMismatch = fmterr.Kind("ccob: hash mismatch", fmterr.ErrMalformed)

// Is reports a HashMismatchError as ErrHashMismatch.
func (e *HashMismatchError) Is(target error) bool { return target == ErrHashMismatch }

func (e *HashMismatchError) Error() string {
	return fmt.Sprintf("compressed bundle at offset %d: hash mismatch: stored %s, data has %s", e.Offset, FormatHash(e.Stored), FormatHash(e.Computed))
}

// zstd error names as libzstd's ZSTD_getErrorName returns them.
const (
	zstdSrcSizeWrong    = "Src size is incorrect"
	zstdDstTooSmall     = "Destination buffer is too small"
	zstdPrefixUnknown   = "Unknown frame descriptor"
	zstdCorruption      = "Data corruption detected"
	zstdChecksumWrong   = "Restored data doesn't match checksum"
	zstdFrameParamUnsup = "Unsupported frame parameter"
	zstdWindowTooLarge  = "Frame requires too much memory for decoding"
	zstdDictionaryWrong = "Dictionary mismatch"
)

// zlib error names as LLVM prints them.
const (
	zlibDataError = "zlib error: Z_DATA_ERROR"
	zlibBufError  = "zlib error: Z_BUF_ERROR"
)

// payloadError builds the error for a payload that does not decode: code is
// the libzstd or zlib name LLVM would print, detail says what we found.
func payloadError(off int64, code, detail string) *FormatError {
	return &FormatError{Offset: off, Field: "payload", Msg: detail, LLVM: msgDecompress + code, Err: ErrCorrupt}
}
