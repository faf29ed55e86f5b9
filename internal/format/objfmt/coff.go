package objfmt

import (
	"io"

	"github.com/goffload/goffload/internal/objfile"
)

// readCOFFBundles lists the bundle sections of a COFF object (also a big
// object) or PE image that IsObject accepted, as LLVM 22's COFFObjectFile
// presents them to the bundler (headers, section and string tables read
// through package objfile):
//
//   - The section table follows the file header and optional header, the
//     56-byte big-object header, or a PE image's headers. A section count of
//     0xFFFF (an import library's mark), or a big object under 56 bytes or
//     of version 0 or 1, means no sections.
//   - The string table follows the symbol table. One that does not fit in
//     the file, or holds more than its size field and does not end in NUL,
//     is ignored, as is any when there is no symbol table.
//   - Section names are inline (8 bytes, NUL-padded), "/<decimal offset>"
//     or "//<base64 offset>" into the string table, with LLVM's messages
//     for a bad one ("invalid section name", "string table empty", an
//     offset past the table); the bundles of the sections before a bad
//     name come with the error.
//   - Contents are SizeOfRawData bytes at PointerToRawData in an object,
//     the smaller of SizeOfRawData and VirtualSize in an image, none when
//     PointerToRawData is 0; contents past the end of the file are only
//     marked Truncated.
func readCOFFBundles(r io.ReaderAt, size int64) ([]Bundle, error) {
	c, err := objfile.NewCOFF(r, size)
	if err != nil {
		return nil, fromObjfile(err)
	}
	var out []Bundle
	for i := 1; i <= int(c.NumSections); i++ {
		s, err := c.Section(i)
		if err != nil {
			return nil, fromObjfile(err)
		}
		name, err := c.SectionName(&s)
		if err != nil {
			return out, fromObjfile(err)
		}
		id, ok := bundleID(name)
		if !ok {
			continue
		}
		b := Bundle{ID: id}
		if off, n, in := c.Contents(&s); !in {
			b.Truncated = true
		} else {
			b.Offset, b.Size = off, n
		}
		if b.Size == 1 {
			var c [1]byte
			if _, err := r.ReadAt(c[:], b.Offset); err != nil {
				return nil, errUnexpectedEOF
			}
			b.HostPlaceholder = c[0] == 0
		}
		out = append(out, b)
	}
	return out, nil
}
