package objfile

import (
	"encoding/binary"
	"io"
	"strconv"
	"strings"

	"github.com/goffload/goffload/internal/format/magic"
)

var le = binary.LittleEndian

// COFF is the header of a COFF object, a big object or a PE image, read by
// NewCOFF, and the way to its section table and string table.
type COFF struct {
	r    io.ReaderAt
	size int64

	Image         bool // a PE image (MZ): sections are VirtualSize long at most
	BigObj        bool // a big object (/bigobj)
	ImportLibrary bool // a section count of 0xFFFF: LLVM reads no further
	Machine       uint16
	NumSections   int64 // 0 for an import library's header
	SectionTable  int64 // file offset of the section table
	SymbolTable   int64 // PointerToSymbolTable; 0 when none, or when LLVM ignores it
	NumSymbols    int64
	SymbolSize    int64 // 18, or 20 in a big object

	strtab []byte // nil when LLVM has none
}

// A COFFSection is one section header.
type COFFSection struct {
	Index            int // from 1, as COFF numbers sections
	RawName          [8]byte
	VirtualSize      uint32
	VirtualAddress   uint32
	SizeOfRawData    uint32
	PointerToRawData uint32
	Characteristics  uint32
}

// NewCOFF reads the headers of a COFF object (kind "COFF"), big object or
// PE image, with the checks of LLVM 22's COFFObjectFile::initialize: the
// file header, for an image the PE32 or PE32+ optional header and its data
// directory count, and the section table inside the file. A big object
// under 56 bytes or of version 0 or 1, and a header whose section count is
// 0xFFFF (an import library's), are objects without sections, as LLVM
// reads them. The symbol table is not checked (LLVM ignores one it cannot
// read); the string table after it is kept when LLVM would use it.
func NewCOFF(r io.ReaderAt, size int64) (*COFF, error) {
	c := &COFF{r: r, size: size, SymbolSize: 18}
	var head [64]byte
	n := min(size, int64(len(head)))
	if err := readFull("COFF", r, head[:n], 0); err != nil {
		return nil, err
	}
	h := head[:n]
	hdr := int64(0) // the file header
	if size >= 0x40+4 && string(h[:2]) == "MZ" {
		hdr = int64(le.Uint32(h[0x3c:])) + 4
		c.Image = true
	}
	if !c.Image && magic.IsBigObj(h) {
		c.BigObj = true
		if size < 56 || le.Uint16(h[4:]) < 2 {
			c.ImportLibrary = true // LLVM: an object without sections
			return c, nil
		}
		c.Machine = le.Uint16(h[6:])
		c.NumSections = int64(le.Uint32(h[44:]))
		c.SymbolTable, c.NumSymbols, c.SymbolSize = int64(le.Uint32(h[48:])), int64(le.Uint32(h[52:])), 20
		c.SectionTable = 56
	} else {
		if hdr+20 > size {
			return nil, truncated("COFF", hdr, "file header", llvmEOF, "the 20-byte file header at %#x is past the end of the file (%d bytes)", hdr, size)
		}
		var fh [20]byte
		if err := readFull("COFF", r, fh[:], hdr); err != nil {
			return nil, err
		}
		c.Machine = le.Uint16(fh[0:])
		c.NumSections = int64(le.Uint16(fh[2:]))
		c.SymbolTable, c.NumSymbols = int64(le.Uint32(fh[8:])), int64(le.Uint32(fh[12:]))
		opt := int64(le.Uint16(fh[16:]))
		if c.NumSections == 0xffff {
			// LLVM reads nothing more: no sections, no symbols.
			c.ImportLibrary, c.NumSections, c.SymbolTable, c.NumSymbols = true, 0, 0, 0
			return c, nil
		}
		c.SectionTable = hdr + 20 + opt
		if c.Image {
			if err := c.checkOptional(hdr + 20); err != nil {
				return nil, err
			}
		}
	}
	if c.SectionTable+c.NumSections*40 > size {
		return nil, truncated("COFF", c.SectionTable, "NumberOfSections", llvmEOF,
			"%d section headers at %#x go past the end of the file (%d bytes)", c.NumSections, c.SectionTable, size)
	}
	if c.SymbolTable != 0 {
		if c.strtab = c.readStrtab(); c.strtab == nil {
			// LLVM recovers from a symbol or string table it cannot
			// read by dropping both.
			c.SymbolTable, c.NumSymbols = 0, 0
		}
	}
	return c, nil
}

// checkOptional checks a PE image's optional header at ph: its magic, its
// size and that of its data directory.
func (c *COFF) checkOptional(ph int64) error {
	if ph+96 > c.size {
		return truncated("COFF", ph, "optional header", llvmEOF, "optional header at %#x past the end of the file (%d bytes)", ph, c.size)
	}
	var b [2]byte
	if err := readFull("COFF", c.r, b[:], ph); err != nil {
		return err
	}
	var hdr, count int64
	switch le.Uint16(b[:]) {
	case 0x10b: // PE32
		hdr, count = 96, 92
	case 0x20b: // PE32+
		hdr, count = 112, 108
	default:
		return malformed("COFF", ph, "optional header magic", "", "magic %#x is neither PE32 nor PE32+", le.Uint16(b[:]))
	}
	if ph+hdr > c.size {
		return truncated("COFF", ph, "optional header", llvmEOF, "optional header at %#x past the end of the file (%d bytes)", ph, c.size)
	}
	var n [4]byte
	if err := readFull("COFF", c.r, n[:], ph+count); err != nil {
		return err
	}
	if ph+hdr+8*int64(le.Uint32(n[:])) > c.size {
		return truncated("COFF", ph+count, "NumberOfRvaAndSizes", llvmEOF, "data directory of %d entries past the end of the file (%d bytes)", le.Uint32(n[:]), c.size)
	}
	return nil
}

// readStrtab reads the string table after the symbol table, or returns
// nil when LLVM would ignore it and the symbol table with it: the symbol table or the table's size
// field cut off, the table past the end of the file, or holding strings
// but not ending in NUL.
func (c *COFF) readStrtab() []byte {
	symLen := c.NumSymbols * c.SymbolSize
	off := c.SymbolTable + symLen
	if c.SymbolTable+symLen > c.size || off+4 > c.size {
		return nil
	}
	var sz [4]byte
	if readFull("COFF", c.r, sz[:], off) != nil {
		return nil
	}
	n := int64(le.Uint32(sz[:]))
	if off+n > c.size {
		return nil
	}
	b := make([]byte, max(n, 4)) // inside the file
	if readFull("COFF", c.r, b[:min(n, int64(len(b)))], off) != nil {
		return nil
	}
	if n > 4 && b[n-1] != 0 {
		return nil
	}
	return b
}

// StringTable returns the string table, size field included, or nil.
func (c *COFF) StringTable() []byte { return c.strtab }

// Section reads section header i (from 1).
func (c *COFF) Section(i int) (COFFSection, error) {
	var b [40]byte
	if err := readFull("COFF", c.r, b[:], c.SectionTable+int64(i-1)*40); err != nil {
		return COFFSection{}, err
	}
	s := COFFSection{Index: i, VirtualSize: le.Uint32(b[8:]), VirtualAddress: le.Uint32(b[12:]),
		SizeOfRawData: le.Uint32(b[16:]), PointerToRawData: le.Uint32(b[20:]), Characteristics: le.Uint32(b[36:])}
	copy(s.RawName[:], b[:8])
	return s, nil
}

// SectionName decodes a section's name as LLVM 22's getSectionName does:
// inline (NUL-padded), "/<decimal offset>" or "//<base64 offset>" into the
// string table, with LLVM's texts for a bad one.
func (c *COFF) SectionName(s *COFFSection) (string, error) {
	name, _, _ := strings.Cut(string(s.RawName[:]), "\x00")
	if !strings.HasPrefix(name, "/") {
		return name, nil
	}
	at := c.SectionTable + int64(s.Index-1)*40
	var off uint64
	if strings.HasPrefix(name, "//") {
		v, ok := decodeBase64(name[2:])
		if !ok {
			return "", malformed("COFF", at, "section name", "invalid section name", "bad base64 string table offset %q", name)
		}
		off = v
	} else {
		v, err := strconv.ParseUint(name[1:], 10, 32)
		if err != nil {
			return "", malformed("COFF", at, "section name", "invalid section name", "bad string table offset %q", name)
		}
		off = v
	}
	return c.stringAt(at, off)
}

// SymbolName decodes a symbol's 8-byte name: inline, or when its first 4
// bytes are zero, an offset into the string table.
func (c *COFF) SymbolName(raw []byte, at int64) (string, error) {
	if raw[0] != 0 || raw[1] != 0 || raw[2] != 0 || raw[3] != 0 {
		name, _, _ := strings.Cut(string(raw[:8]), "\x00")
		return name, nil
	}
	return c.stringAt(at, uint64(le.Uint32(raw[4:])))
}

func (c *COFF) stringAt(at int64, off uint64) (string, error) {
	if len(c.strtab) <= 4 {
		return "", malformed("COFF", at, "name", "string table empty", "name at string table offset %d, but the string table is empty", off)
	}
	if off >= uint64(len(c.strtab)) {
		return "", truncated("COFF", at, "name", llvmEOF, "string table offset %d past the table's %d bytes", off, len(c.strtab))
	}
	s, _, _ := strings.Cut(string(c.strtab[off:]), "\x00")
	return s, nil
}

// Contents returns where a section's contents lie: SizeOfRawData bytes at
// PointerToRawData (in an image no more than VirtualSize), none when
// PointerToRawData is 0. inFile is false when they reach past the end of
// the file.
func (c *COFF) Contents(s *COFFSection) (off, n int64, inFile bool) {
	off, n = int64(s.PointerToRawData), int64(s.SizeOfRawData)
	if c.Image {
		n = min(n, int64(s.VirtualSize))
	}
	if off == 0 {
		return 0, 0, true
	}
	return off, n, off+n <= c.size
}

// decodeBase64 decodes the base64 (A-Z a-z 0-9 + /) string-table offsets
// COFF writes for long section tables, of at most 6 characters and 32
// bits.
func decodeBase64(s string) (uint64, bool) {
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
