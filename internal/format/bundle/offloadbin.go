package bundle

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/format/offloadbin"
)

// isOffloadBinary reports whether r starts with an OffloadBinary's magic.
func isOffloadBinary(r io.ReaderAt, size int64) bool {
	var head [len(magic.OffloadBinaryMagic)]byte
	if size < int64(len(head)) {
		return false
	}
	if n, _ := r.ReadAt(head[:], 0); n != len(head) {
		return false
	}
	return string(head[:]) == magic.OffloadBinaryMagic
}

// readOffloadBinary lists the images of the OffloadBinaries in r[0:size]
// (offloadbin.ReadAll: versions 1 to 3, back to back) as entries, in file
// order, each under the bundle ID its metadata makes (offloadbin.Binary.BundleID). An image
// that is itself an OffloadBinary is one entry. A compressed (v3) binary
// is inflated in memory, within Options.MaxInflated and what is left of
// Options.MaxTotal (c.used counts it), a *TooLargeError past either.
func readOffloadBinary(r io.ReaderAt, size int64, c *config) (*part, error) {
	p := &part{format: OffloadBinary, r: r, size: size}
	// offloadbin.ReadAll's walk, one binary at a time, so that each is
	// capped by what the ones before it left.
	for off := int64(0); off < size; {
		room := min(c.MaxInflated, c.MaxTotal-c.used)
		bins, n, err := offloadbin.Read(r, off, size, offloadbin.MaxInflatedSize(room))
		if err != nil {
			return nil, c.offloadTooLarge(err, room)
		}
		if len(bins) > 0 && bins[0].Version >= offloadbin.Version3 {
			c.used += inflatedSize(r, off)
		}
		for _, b := range bins {
			img := b.Image()
			p.entries = append(p.entries, &Entry{ID: b.BundleID(), part: p, r: img, size: img.Size()})
		}
		off += n
		if off%offloadbin.Alignment != 0 && off < size && !isOffloadBinary(io.NewSectionReader(r, off, size-off), size-off) {
			off += offloadbin.Alignment - off%offloadbin.Alignment
		}
	}
	return p, nil
}

// inflatedSize returns a v3 binary's inflated size (0 when it is not
// compressed): the header's field at 0x20.
func inflatedSize(r io.ReaderAt, off int64) int64 {
	var b [8]byte
	if n, _ := r.ReadAt(b[:], off+0x20); n != len(b) {
		return 0
	}
	return int64(binary.LittleEndian.Uint64(b[:]))
}

// offloadTooLarge turns offloadbin's failure for a binary inflating past
// room (an offloadbin.ErrInvalid of its "inflated size") into a
// *TooLargeError naming the cap that room was.
func (c *config) offloadTooLarge(err error, room int64) error {
	var fe *offloadbin.FormatError
	if !errors.As(err, &fe) || fe.Field != "inflated size" || !errors.Is(fe, offloadbin.ErrInvalid) {
		return err
	}
	if room < c.MaxInflated {
		return &TooLargeError{What: totalWhat, Max: c.MaxTotal}
	}
	return &TooLargeError{What: "inflated OffloadBinary", Max: c.MaxInflated}
}
