// Package readerat answers where bytes read through nested
// io.SectionReaders lie in the reader they were cut from: the one way
// bundle and offloadbin give file offsets.
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
