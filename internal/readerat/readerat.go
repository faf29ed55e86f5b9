// Package readerat holds what several readers of io.ReaderAt share: where
// bytes read through nested io.SectionReaders lie in the reader they were
// cut from (OffsetIn: the one way bundle and offloadbin give file offsets),
// and skipping zero padding (SkipZeros).
package readerat

import "io"

// OffsetIn returns where r's first byte lies in top, following the
// io.SectionReaders r is made of; false when r's bytes are not top's
// (inflated, or copied out of it).
func OffsetIn(r, top io.ReaderAt) (int64, bool) {
	var off int64
	for r != nil {
		if r == top {
			return off, true
		}
		sr, ok := r.(*io.SectionReader)
		if !ok {
			return 0, false
		}
		outer, o, _ := sr.Outer()
		off, r = off+o, outer
	}
	return 0, false
}

// SkipZeros returns the offset of the first non-zero byte of r at or after
// off, or size when only zero bytes are left: how padding between bundles
// or OffloadBinaries is skipped. On a read error it returns the offset it
// had reached and the error.
func SkipZeros(r io.ReaderAt, off, size int64) (int64, error) {
	var buf [4096]byte
	for off < size {
		n := int(min(int64(len(buf)), size-off))
		if k, err := r.ReadAt(buf[:n], off); k < n && err != nil {
			return off, err
		}
		for i, b := range buf[:n] {
			if b != 0 {
				return off + int64(i), nil
			}
		}
		off += int64(n)
	}
	return size, nil
}
