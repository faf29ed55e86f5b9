package compress

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// Layout of a CCOB header. All integers are little-endian.
//
//	field               v1        v2        v3
//	magic "CCOB"        0..3      0..3      0..3
//	version u16         4..5      4..5      4..5
//	method u16          6..7      6..7      6..7
//	total file size     -         u32 @8    u64 @8
//	uncompressed size   u32 @8    u32 @12   u64 @16
//	hash (MD5[0:8])     @12       @16       @24
//	payload             @20       @24       @32
const (
	magicLen = 4

	// MinLen is the shortest input that can be a CCOB: LLVM treats
	// anything shorter as uncompressed without looking at it.
	MinLen = 8

	headerLenV1 = 20
	headerLenV2 = 24
	headerLenV3 = 32

	// DefaultVersion is the version LLVM 22 writes.
	DefaultVersion = 3
	// DefaultLevel is LLVM 22's default zstd level.
	DefaultLevel = 3
	// ZlibDefaultLevel asks zlib for its default level (6), as does 0.
	ZlibDefaultLevel = -1
	// ZlibStore asks zlib for its level 0: stored blocks, no compression
	// (what LLVM writes for -compression-level=0 with zlib).
	ZlibStore = -1 << 31

	// Alignment is the boundary real fat binaries pad concatenated CCOBs to
	// (the section alignment of .hip_fatbin). The Reader accepts any run of
	// zero bytes between members; this constant is documentation.
	Alignment = 4096

	// maxZstdRatio bounds how many bytes one compressed zstd byte can
	// produce: an RLE block is 4 bytes for up to 128 KiB.
	maxZstdRatio = 32768
	// maxZlibRatio bounds deflate: 1032:1 is its theoretical maximum.
	maxZlibRatio = 1032
	// ratioSlack is added to ratio bounds to cover frame and header overhead.
	ratioSlack = 1 << 20

	// MaxUncompressedSize is the largest uncompressed size the library
	// Reader accepts (1 TiB). LLVM would try to allocate such a buffer.
	MaxUncompressedSize = 1 << 40

	// maxDecodeWindow bounds the zstd window the decoder keeps (128 MiB,
	// the window LLVM's long-distance-matching writer uses for large
	// inputs, and the most our writer uses).
	maxDecodeWindow = 1 << 27
	// maxEncodeWindow bounds the window of the encoder.
	maxEncodeWindow = 1 << 27
)

// Magic is the 4-byte signature of a compressed offload bundle.
var Magic = []byte("CCOB")

// Method is the compression method code stored in a CCOB header.
type Method uint16

const (
	Zlib Method = 0
	Zstd Method = 1
)

// String returns the name LLVM's verbose output uses ("zlib", "zstd").
func (m Method) String() string {
	switch m {
	case Zlib:
		return "zlib"
	case Zstd:
		return "zstd"
	}
	return "unknown"
}

// Header is a parsed CCOB header.
type Header struct {
	Version uint16
	Method  Method
	// TotalSize is the header plus payload size recorded by v2 and v3
	// writers; 0 for v1, which has no such field.
	TotalSize        uint64
	UncompressedSize uint64
	// Hash holds the first 8 bytes of the MD5 digest of the uncompressed
	// data, in digest order, as stored.
	Hash [8]byte
}

// HashValue is the hash as LLVM's verbose output prints it: the stored
// bytes read as a little-endian integer.
func (h Header) HashValue() uint64 { return binary.LittleEndian.Uint64(h.Hash[:]) }

// Len is the header size for h.Version: 20, 24 or 32 (0 for an unknown version).
func (h Header) Len() int { return headerLen(h.Version) }

func headerLen(version uint16) int {
	switch version {
	case 1:
		return headerLenV1
	case 2:
		return headerLenV2
	case 3:
		return headerLenV3
	}
	return 0
}

// IsCompressed reports whether LLVM would treat b as a CCOB: at least
// MinLen bytes starting with Magic. Inputs shorter than 8 bytes are never
// compressed, even if they start with "CCOB".
func IsCompressed(b []byte) bool {
	return len(b) >= MinLen && string(b[:magicLen]) == string(Magic)
}

// ParseHeader decodes the CCOB header at the start of b, applying LLVM 22's
// checks in its order: a version other than 1, 2 or 3, or fewer bytes than
// that version's header, fails with ErrHeaderTooSmall; a method other than
// zlib or zstd fails with ErrUnknownMethod. The errors are *FormatError values
// whose LLVM field holds LLVM's text. ParseHeader does not check the
// sizes against anything.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < MinLen || string(b[:magicLen]) != string(Magic) {
		return Header{}, &FormatError{Field: "magic", Msg: "not a CCOB (no \"CCOB\" magic in the first 8 bytes)", Err: ErrNotCompressed}
	}
	var h Header
	h.Version = binary.LittleEndian.Uint16(b[4:])
	h.Method = Method(binary.LittleEndian.Uint16(b[6:]))
	n := headerLen(h.Version)
	if n == 0 {
		return Header{}, &FormatError{Field: "version", Msg: "unsupported version " + strconv.Itoa(int(h.Version)) + " (want 1, 2 or 3)", LLVM: msgHeaderTooSmall, Err: ErrHeaderTooSmall}
	}
	if len(b) < n {
		return Header{}, &FormatError{Field: "header", Msg: "version " + strconv.Itoa(int(h.Version)) + " header needs " + strconv.Itoa(int(n)) + " bytes, have " + strconv.Itoa(int(len(b))), LLVM: msgHeaderTooSmall, Err: ErrHeaderTooSmall}
	}
	if h.Method != Zlib && h.Method != Zstd {
		return Header{}, &FormatError{Field: "method", Msg: "unknown compression method " + strconv.Itoa(int(h.Method)) + " (want 0 = zlib or 1 = zstd)", LLVM: msgUnknownMethod, Err: ErrUnknownMethod}
	}
	switch h.Version {
	case 1:
		h.UncompressedSize = uint64(binary.LittleEndian.Uint32(b[8:]))
		copy(h.Hash[:], b[12:20])
	case 2:
		h.TotalSize = uint64(binary.LittleEndian.Uint32(b[8:]))
		h.UncompressedSize = uint64(binary.LittleEndian.Uint32(b[12:]))
		copy(h.Hash[:], b[16:24])
	case 3:
		h.TotalSize = binary.LittleEndian.Uint64(b[8:])
		h.UncompressedSize = binary.LittleEndian.Uint64(b[16:])
		copy(h.Hash[:], b[24:32])
	}
	return h, nil
}

// AppendHeader appends the encoding of h to b. Fields that do not fit the
// version's layout are truncated; Compress checks the limits first.
func (h Header) AppendHeader(b []byte) []byte {
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint16(b, h.Version)
	b = binary.LittleEndian.AppendUint16(b, uint16(h.Method))
	switch h.Version {
	case 1:
		b = binary.LittleEndian.AppendUint32(b, uint32(h.UncompressedSize))
	case 2:
		b = binary.LittleEndian.AppendUint32(b, uint32(h.TotalSize))
		b = binary.LittleEndian.AppendUint32(b, uint32(h.UncompressedSize))
	default:
		b = binary.LittleEndian.AppendUint64(b, h.TotalSize)
		b = binary.LittleEndian.AppendUint64(b, h.UncompressedSize)
	}
	return append(b, h.Hash[:]...)
}

// FormatHash formats a hash value as LLVM's format_hex(v, 16) does: "0x"
// and lower-case hex digits, zero-padded to 16 characters including the
// "0x". So a value with a leading zero nibble prints 15 characters:
// 0x04b2008fd98c1dd4 is "0x4b2008fd98c1dd4".
func FormatHash(v uint64) string { return fmt.Sprintf("0x%014x", v) }
