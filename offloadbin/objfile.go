package offloadbin

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/goffload/goffload/magic"
)

// Minimal ELF and COFF section walkers: just enough to find offloading
// sections the way LLVM 22's object readers do, with their checks and
// messages. Only headers and section tables are read.

const (
	shtLLVMOffloading = 0x6fff4c0b
	coffSectionPrefix = ".llvm.offloading"
)

// ObjectError is a container-level error whose text is exactly LLVM's.
type ObjectError struct{ Msg string }

func (e *ObjectError) Error() string { return e.Msg }

// LLVMMessage returns the error's text, which is LLVM's.
func (e *ObjectError) LLVMMessage() string { return e.Msg }

func objErr(format string, a ...any) error { return &ObjectError{fmt.Sprintf(format, a...)} }

// section is a byte range of the input holding OffloadBinaries.
type section struct{ off, size int64 }

func truncated(where string, format string, a ...any) error {
	return formatError(0, where, ErrTruncated, format, a...)
}

// elfOffloadSections returns the SHT_LLVM_OFFLOADING sections of an ELF
// file in section-header order.
func elfOffloadSections(r io.ReaderAt, size int64) ([]section, error) {
	var ident [16]byte
	if _, err := readFull(r, ident[:], 0); err != nil {
		return nil, err
	}
	var is64 bool
	switch ident[4] {
	case 1:
	case 2:
		is64 = true
	default:
		return nil, objErr("Invalid ELF class")
	}
	var bo binary.ByteOrder
	switch ident[5] {
	case 1:
		bo = binary.LittleEndian
	case 2:
		bo = binary.BigEndian
	default:
		return nil, objErr("Invalid ELF data")
	}
	ehSize, shEntSize := int64(52), uint64(40)
	if is64 {
		ehSize, shEntSize = 64, 64
	}
	if size < ehSize {
		return nil, objErr("invalid buffer: the size (%d) is smaller than an ELF header (%d)", size, ehSize)
	}
	eh := make([]byte, ehSize)
	if _, err := readFull(r, eh, 0); err != nil {
		return nil, err
	}
	var shoff uint64
	var shentsize, shnum uint16
	if is64 {
		shoff = bo.Uint64(eh[0x28:])
		shentsize, shnum = bo.Uint16(eh[0x3a:]), bo.Uint16(eh[0x3c:])
	} else {
		shoff = uint64(bo.Uint32(eh[0x20:]))
		shentsize, shnum = bo.Uint16(eh[0x2e:]), bo.Uint16(eh[0x30:])
	}
	if shoff == 0 {
		return nil, nil
	}
	if uint64(shentsize) != shEntSize {
		return nil, objErr("invalid e_shentsize in ELF header: %d", shentsize)
	}
	fsize := uint64(size)
	if shoff+shEntSize > fsize || shoff+shEntSize < shoff {
		return nil, objErr("section header table goes past the end of the file: e_shoff = 0x%x", shoff)
	}
	shdr := make([]byte, shEntSize)
	field := func(off32, off64 int) uint64 {
		if is64 {
			return bo.Uint64(shdr[off64:])
		}
		return uint64(bo.Uint32(shdr[off32:]))
	}
	if _, err := readFull(r, shdr, int64(shoff)); err != nil {
		return nil, err
	}
	n := uint64(shnum)
	if n == 0 {
		n = field(0x14, 0x20) // section 0's sh_size holds the count
	}
	if n > ^uint64(0)/shEntSize {
		return nil, objErr("invalid number of sections specified in the NULL section's sh_size field (%d)", n)
	}
	tsize := n * shEntSize
	if shoff+tsize < shoff {
		return nil, objErr("invalid section header table offset (e_shoff = 0x%x) or invalid number of sections specified in the first section header's sh_size field (0x%x)", shoff, n)
	}
	if shoff+tsize > fsize {
		return nil, objErr("section table goes past the end of file")
	}
	var out []section
	for i := uint64(0); i < n; i++ {
		if _, err := readFull(r, shdr, int64(shoff+i*shEntSize)); err != nil {
			return nil, err
		}
		if bo.Uint32(shdr[4:]) != shtLLVMOffloading {
			continue
		}
		off, sz := field(0x10, 0x18), field(0x14, 0x20)
		if off > fsize || sz > fsize-off {
			return nil, truncated(fmt.Sprintf("ELF section %d", i), "contents at %#x, %d bytes, past the end of the file (%d bytes)", off, sz, size)
		}
		out = append(out, section{int64(off), int64(sz)})
	}
	return out, nil
}

// coffOffloadSections returns the sections of a COFF object whose name
// starts with ".llvm.offloading", in section-table order.
func coffOffloadSections(r io.ReaderAt, size int64) ([]section, error) {
	le := binary.LittleEndian
	var fh [20]byte
	if size < int64(len(fh)) {
		return nil, truncated("COFF header", "file is %d bytes, the header needs 20", size)
	}
	if _, err := readFull(r, fh[:], 0); err != nil {
		return nil, err
	}
	nsec := int64(le.Uint16(fh[2:]))
	symPtr := int64(le.Uint32(fh[8:]))
	nsym := int64(le.Uint32(fh[12:]))
	optSize := int64(le.Uint16(fh[16:]))
	secTab := 20 + optSize
	symSize := int64(18)
	var head [28]byte
	if size >= int64(len(head)) {
		if _, err := readFull(r, head[:], 0); err != nil {
			return nil, err
		}
	}
	if magic.IsBigObj(head[:]) {
		// The 56-byte bigobj header: 32-bit section count, no optional
		// header, 20-byte symbol records.
		// LLVM reads a file too short for it, or of version 0 or 1, as a
		// COFF object without sections.
		var bh [56]byte
		if size < int64(len(bh)) {
			return nil, nil
		}
		if _, err := readFull(r, bh[:], 0); err != nil {
			return nil, err
		}
		if le.Uint16(bh[4:]) < 2 {
			return nil, nil
		}
		nsec = int64(le.Uint32(bh[44:]))
		symPtr = int64(le.Uint32(bh[48:]))
		nsym = int64(le.Uint32(bh[52:]))
		secTab, symSize = 56, 20
	} else if nsec == 0xffff {
		// LLVM 22 takes a section count of 0xFFFF for an import library's
		// header and reads nothing more: no sections.
		return nil, nil
	}
	if secTab+nsec*40 > size {
		return nil, truncated("COFF section table", "%d sections at %#x past the end of the file (%d bytes)", nsec, secTab, size)
	}
	// The string table follows the symbol table. LLVM treats a missing or
	// malformed one as empty rather than failing, until a long section
	// name needs it.
	var strtab []byte
	if symPtr != 0 {
		start := symPtr + nsym*symSize
		var sz [4]byte
		if start+4 <= size {
			if _, err := readFull(r, sz[:], start); err != nil {
				return nil, err
			}
			if n := int64(le.Uint32(sz[:])); n >= 4 && start+n <= size {
				strtab = make([]byte, n)
				if _, err := readFull(r, strtab, start); err != nil {
					return nil, err
				}
			}
		}
	}
	var out []section
	sh := make([]byte, 40)
	for i := range nsec {
		if _, err := readFull(r, sh, secTab+i*40); err != nil {
			return nil, err
		}
		name, err := coffSectionName(sh[:8], strtab)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(name, coffSectionPrefix) {
			continue
		}
		rawSize, rawPtr := int64(le.Uint32(sh[16:])), int64(le.Uint32(sh[20:]))
		if rawPtr == 0 {
			out = append(out, section{0, 0})
			continue
		}
		if rawPtr+rawSize > size {
			return nil, truncated(fmt.Sprintf("COFF section %d (%s)", i+1, name), "contents at %#x, %d bytes, past the end of the file (%d bytes)", rawPtr, rawSize, size)
		}
		out = append(out, section{rawPtr, rawSize})
	}
	return out, nil
}

// coffSectionName decodes an 8-byte COFF section name: inline, "/<decimal
// offset>" or "//<base64 offset>" into the string table.
func coffSectionName(raw, strtab []byte) (string, error) {
	n := raw
	if i := indexByte(n, 0); i >= 0 {
		n = n[:i]
	}
	name := string(n)
	if !strings.HasPrefix(name, "/") {
		return name, nil
	}
	var off uint64
	if strings.HasPrefix(name, "//") {
		v, ok := decodeBase64Offset(name[2:])
		if !ok {
			return "", objErr("invalid section name")
		}
		off = v
	} else {
		v, err := strconv.ParseUint(name[1:], 10, 32)
		if err != nil {
			return "", objErr("invalid section name")
		}
		off = v
	}
	if len(strtab) <= 4 {
		return "", objErr("string table empty")
	}
	if off >= uint64(len(strtab)) {
		return "", truncated("COFF section name", "string table offset %d past the table's %d bytes", off, len(strtab))
	}
	s := strtab[off:]
	if i := indexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return string(s), nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// decodeBase64Offset decodes the 6-character base64 (A-Z a-z 0-9 + /)
// string-table offsets COFF uses for very long section tables.
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
		v = v<<6 | uint64(d)
	}
	return v, v <= 0xffffffff
}
