package compress

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/internal/format/compress/internal/zenc"
)

// ErrNotStreamable is returned by DecompressTo for an input it leaves to
// NewLLVMReader: anything but one zstd CCOB whose payload is exactly one
// frame holding the recorded number of bytes.
var ErrNotStreamable = errors.New("not a single-frame zstd CCOB")

// DecompressTo inflates r[0:size], one zstd CCOB, into w, holding only a
// few MiB of history in memory however large the content: a match that
// reaches further back is read from back, which must return what was
// written to w so far at its offset (the file w writes to). libzstd
// writes a frame's whole content as its window up to 128 MiB, which any
// decoder keeping its history in memory must hold; this keeps it on disk.
//
// It accepts only inputs that leave no room for interpretation — one
// CCOB filling r, zstd, a payload that is exactly one frame decoding to
// the header's size — and returns an error wrapping ErrNotStreamable for
// anything else (an unreadable header included), and the decoder's error
// for a damaged frame; what was written to w is then to be discarded, and
// NewLLVMReader gives LLVM's reading of the input with LLVM's errors.
func DecompressTo(w io.Writer, back io.ReaderAt, r io.ReaderAt, size int64) (Header, error) {
	h, err := readHeader(r, size)
	if err != nil {
		return Header{}, fmt.Errorf("%w: %w", ErrNotStreamable, err)
	}
	base := int64(h.Len())
	if h.Method != Zstd || (h.Version >= 2 && h.TotalSize != uint64(size)) {
		return Header{}, ErrNotStreamable
	}
	// A frame checksum would go unchecked here; libzstd checks it.
	var fhd [5]byte
	if _, err := r.ReadAt(fhd[:], base); err != nil || fhd[4]&4 != 0 {
		return Header{}, ErrNotStreamable
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, base, size-base), 64<<10)
	n, err := zenc.Decode(w, back, br)
	if err != nil {
		return Header{}, err
	}
	// The frame must end the input.
	if _, err := br.ReadByte(); err != io.EOF {
		return Header{}, fmt.Errorf("%w: data after the frame", ErrNotStreamable)
	}
	if n != int64(h.UncompressedSize) {
		return Header{}, fmt.Errorf("%w: %d bytes decoded, the header records %d", ErrNotStreamable, n, h.UncompressedSize)
	}
	return h, nil
}
