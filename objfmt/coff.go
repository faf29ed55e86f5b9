package objfmt

import (
	"encoding/binary"
	"io"
	"strconv"
	"strings"

	"github.com/goffload/goffload/magic"
)

// readCOFFBundles lists the bundle sections of a COFF object (also a big
// object) or PE image that IsObject accepted, as LLVM 22's COFFObjectFile
// presents them to the bundler:
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
	t, err := readCOFFTable(r, size)
	if err != nil {
		return nil, err
	}
	var out []Bundle
	sh := make([]byte, 40)
	for i := range t.nsec {
		if _, err := r.ReadAt(sh, t.off+i*40); err != nil {
			return nil, errUnexpectedEOF
		}
		name, err := t.sectionName(sh[:8])
		if err != nil {
			return out, err
		}
		id, ok := bundleID(name)
		if !ok {
			continue
		}
		le := binary.LittleEndian
		n, ptr := int64(le.Uint32(sh[16:])), int64(le.Uint32(sh[20:]))
		if t.image {
			n = min(n, int64(le.Uint32(sh[8:])))
		}
		b := Bundle{ID: id}
		switch {
		case ptr == 0:
		case ptr+n > size:
			b.Truncated = true
		default:
			b.Offset, b.Size = ptr, n
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

// coffTable is where a COFF file's section table lies and its string
// table.
type coffTable struct {
	off, nsec int64
	image     bool   // a PE image: sections are VirtualSize long at most
	strtab    []byte // nil when LLVM has none (its size then counts as 0)
}

func readCOFFTable(r io.ReaderAt, size int64) (*coffTable, error) {
	le := binary.LittleEndian
	var head [64]byte
	n, _ := r.ReadAt(head[:min(size, int64(len(head)))], 0)
	h := head[:n]
	t := &coffTable{}
	hdr := int64(0) // the COFF file header
	if size >= 0x40+4 && string(h[:2]) == "MZ" {
		hdr = int64(le.Uint32(h[0x3c:])) + 4
		t.image = true
	}
	var fh [20]byte
	if _, err := r.ReadAt(fh[:], hdr); err != nil {
		return nil, errUnexpectedEOF
	}
	nsec := int64(le.Uint16(fh[2:]))
	symPtr, nsym, symSize := int64(le.Uint32(fh[8:])), int64(le.Uint32(fh[12:])), int64(18)
	t.off = hdr + 20 + int64(le.Uint16(fh[16:]))
	switch {
	case !t.image && magic.IsBigObj(h) && size >= 56 && le.Uint16(h[4:]) >= 2:
		var bh [56]byte
		if _, err := r.ReadAt(bh[:], 0); err != nil {
			return nil, errUnexpectedEOF
		}
		nsec = int64(le.Uint32(bh[44:]))
		symPtr, nsym, symSize = int64(le.Uint32(bh[48:])), int64(le.Uint32(bh[52:])), 20
		t.off = 56
	case nsec == 0xffff:
		// An import library's header: LLVM reads no further.
		return &coffTable{}, nil
	}
	t.nsec = nsec
	if symPtr != 0 {
		t.strtab = readCOFFStrtab(r, size, symPtr+nsym*symSize, symPtr, nsym*symSize)
	}
	return t, nil
}

// readCOFFStrtab reads the string table at off, or returns nil when LLVM
// would ignore it (see readCOFFBundles).
func readCOFFStrtab(r io.ReaderAt, size, off, symPtr, symLen int64) []byte {
	if symPtr+symLen > size || off+4 > size {
		return nil
	}
	var sz [4]byte
	if _, err := r.ReadAt(sz[:], off); err != nil {
		return nil
	}
	n := int64(binary.LittleEndian.Uint32(sz[:]))
	if off+n > size {
		return nil
	}
	b := make([]byte, max(n, 4))
	if _, err := r.ReadAt(b[:min(n, int64(len(b)))], off); err != nil {
		return nil
	}
	if n > 4 && b[n-1] != 0 {
		return nil
	}
	return b
}

// sectionName decodes an 8-byte COFF section name as LLVM 22's
// getSectionName does.
func (t *coffTable) sectionName(raw []byte) (string, error) {
	name, _, _ := strings.Cut(string(raw), "\x00")
	if !strings.HasPrefix(name, "/") {
		return name, nil
	}
	var off uint64
	if strings.HasPrefix(name, "//") {
		v, ok := decodeBase64Offset(name[2:])
		if !ok {
			return "", llvmErr("invalid section name")
		}
		off = v
	} else {
		v, err := strconv.ParseUint(name[1:], 10, 32)
		if err != nil {
			return "", llvmErr("invalid section name")
		}
		off = v
	}
	if len(t.strtab) <= 4 {
		return "", llvmErr("string table empty")
	}
	if off >= uint64(len(t.strtab)) {
		return "", errUnexpectedEOF
	}
	s, _, _ := strings.Cut(string(t.strtab[off:]), "\x00")
	return s, nil
}

// decodeBase64Offset decodes the base64 (A-Z a-z 0-9 + /) string-table
// offsets COFF writes for long section tables, of at most 6 characters and
// 32 bits.
func decodeBase64Offset(s string) (uint64, bool) {
	if len(s) > 6 {
		return 0, false
	}
	var v uint64
	for _, c := range []byte(s) {
		var d byte
		switch {
		case c >= 'A' && c <= 'Z':
			d = c - 'A'
		case c >= 'a' && c <= 'z':
			d = c - 'a' + 26
		case c >= '0' && c <= '9':
			d = c - '0' + 52
		case c == '+':
			d = 62
		case c == '/':
			d = 63
		default:
			return 0, false
		}
		v = v*64 + uint64(d)
	}
	return v, v <= 0xffffffff
}
