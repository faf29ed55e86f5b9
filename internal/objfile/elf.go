package objfile

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/goffload/goffload/fmterr"
)

// ELF constants the readers above this package share.
const (
	SHNUndef  = 0
	SHNXIndex = 0xffff

	SHTNull     = 0
	SHTProgbits = 1
	SHTSymtab   = 2
	SHTStrtab   = 3
	SHTRela     = 4
	SHTDynamic  = 6
	SHTNote     = 7
	SHTNobits   = 8
	SHTRel      = 9
	SHTDynsym   = 11
	SHTRelr     = 19
	// SHTLLVMOffloading is SHT_LLVM_OFFLOADING, the type of
	// .llvm.offloading sections.
	SHTLLVMOffloading = 0x6fff4c0b

	// MaxSections bounds the section count this package reads (each
	// header is also checked against the file size).
	MaxSections = 1 << 24
	// MaxProgs bounds the program header count (e_phnum is 16 bits wide;
	// PN_XNUM's extension is not followed).
	MaxProgs = 0xffff
)

// ELF is the header of an ELF file, read by NewELF, and the way to its
// section table, section names and program headers.
type ELF struct {
	r    io.ReaderAt
	size int64

	Ident     [16]byte
	Is64      bool
	ByteOrder binary.ByteOrder
	Type      uint16
	Machine   uint16
	Version   uint32
	Entry     uint64
	Phoff     uint64
	Shoff     uint64
	Flags     uint32
	Ehsize    int
	Phentsize int
	Phnum     int
	Shentsize int
	Shnum     int // e_shnum as stored (0 with extended numbering)
	Shstrndx  int // e_shstrndx as stored (SHNXIndex with extended numbering)

	tab     []byte // the raw section header table
	ntab    int
	tabErr  error
	tabRead bool
	secs    []Section
	secsSet bool
}

// A Section is one section header.
type Section struct {
	Index   int
	NameOff uint32
	Name    string // set by NameSections
	Type    uint32
	Flags   uint64
	Addr    uint64
	Offset  uint64
	Size    uint64
	Link    uint32
	Info    uint32
	Align   uint64
	EntSize uint64
}

// A Prog is one program header.
type Prog struct {
	Type, Flags                                uint32
	Offset, Vaddr, Paddr, Filesz, Memsz, Align uint64
}

// Size returns the size of the file f reads.
func (f *ELF) Size() int64 { return f.size }

// ReaderAt returns the reader f reads.
func (f *ELF) ReaderAt() io.ReaderAt { return f.r }

// HeaderSize is the size of the ELF header, 52 or 64 bytes.
func (f *ELF) HeaderSize() int {
	if f.Is64 {
		return 64
	}
	return 52
}

// ShdrSize is the size of one section header, 40 or 64 bytes.
func (f *ELF) ShdrSize() int {
	if f.Is64 {
		return 64
	}
	return 40
}

// PhdrSize is the size of one program header, 32 or 56 bytes.
func (f *ELF) PhdrSize() int {
	if f.Is64 {
		return 56
	}
	return 32
}

// WordSize is 4 or 8.
func (f *ELF) WordSize() int {
	if f.Is64 {
		return 8
	}
	return 4
}

// ParseIdent reports the class and byte order of e_ident, as LLVM's
// readers accept them.
func ParseIdent(id []byte) (is64 bool, bo binary.ByteOrder, ok bool) {
	if len(id) < 16 || string(id[:4]) != "\x7fELF" {
		return false, nil, false
	}
	switch id[4] {
	case 1:
	case 2:
		is64 = true
	default:
		return false, nil, false
	}
	switch id[5] {
	case 1:
		bo = binary.LittleEndian
	case 2:
		bo = binary.BigEndian
	default:
		return false, nil, false
	}
	return is64, bo, true
}

// NewELF reads the ELF header of the size bytes r holds, with the checks
// of LLVM 22's ELFObjectFile::create: the magic, the class ("Invalid ELF
// class"), the byte order ("Invalid ELF data") and the header size.
func NewELF(r io.ReaderAt, size int64) (*ELF, error) {
	f := new(ELF)
	if err := f.Init(r, size); err != nil {
		return nil, err
	}
	return f, nil
}

// Init is NewELF into f, reusing it (a reader of many small files keeps
// one ELF instead of allocating one each).
func (f *ELF) Init(r io.ReaderAt, size int64) error {
	*f = ELF{r: r, size: size}
	var h [64]byte
	n := min(size, 64)
	if n < 16 {
		return truncated("ELF", 0, "e_ident", "", "file of %d bytes is too small for an ELF identification", size)
	}
	if err := readFull("ELF", r, h[:n], 0); err != nil {
		return err
	}
	copy(f.Ident[:], h[:16])
	if string(h[:4]) != "\x7fELF" {
		return malformed("ELF", 0, "e_ident", "", "bad magic %q", h[:4])
	}
	switch h[4] {
	case 1:
	case 2:
		f.Is64 = true
	default:
		return malformed("ELF", 4, "EI_CLASS", "Invalid ELF class", "invalid class %d", h[4])
	}
	switch h[5] {
	case 1:
		f.ByteOrder = binary.LittleEndian
	case 2:
		f.ByteOrder = binary.BigEndian
	default:
		return malformed("ELF", 5, "EI_DATA", "Invalid ELF data", "invalid data encoding %d", h[5])
	}
	hs := int64(f.HeaderSize())
	if size < hs {
		return truncated("ELF", 0, "ELF header",
			fmt.Sprintf("invalid buffer: the size (%d) is smaller than an ELF header (%d)", size, hs),
			"file of %d bytes is too small for the %d-byte header", size, hs)
	}
	bo := f.ByteOrder
	f.Type = bo.Uint16(h[16:])
	f.Machine = bo.Uint16(h[18:])
	f.Version = bo.Uint32(h[20:])
	if f.Is64 {
		f.Entry, f.Phoff, f.Shoff = bo.Uint64(h[24:]), bo.Uint64(h[32:]), bo.Uint64(h[40:])
		f.Flags = bo.Uint32(h[48:])
		f.Ehsize, f.Phentsize, f.Phnum = int(bo.Uint16(h[52:])), int(bo.Uint16(h[54:])), int(bo.Uint16(h[56:]))
		f.Shentsize, f.Shnum, f.Shstrndx = int(bo.Uint16(h[58:])), int(bo.Uint16(h[60:])), int(bo.Uint16(h[62:]))
	} else {
		f.Entry, f.Phoff, f.Shoff = uint64(bo.Uint32(h[24:])), uint64(bo.Uint32(h[28:])), uint64(bo.Uint32(h[32:]))
		f.Flags = bo.Uint32(h[36:])
		f.Ehsize, f.Phentsize, f.Phnum = int(bo.Uint16(h[40:])), int(bo.Uint16(h[42:])), int(bo.Uint16(h[44:]))
		f.Shentsize, f.Shnum, f.Shstrndx = int(bo.Uint16(h[46:])), int(bo.Uint16(h[48:])), int(bo.Uint16(h[50:]))
	}
	return nil
}

// fieldOffset is the file offset of an ELF header field.
func (f *ELF) fieldOffset(name string) int64 {
	off32 := map[string]int64{"e_phoff": 28, "e_shoff": 32, "e_phentsize": 42, "e_phnum": 44, "e_shentsize": 46, "e_shnum": 48, "e_shstrndx": 50}
	off64 := map[string]int64{"e_phoff": 32, "e_shoff": 40, "e_phentsize": 54, "e_phnum": 56, "e_shentsize": 58, "e_shnum": 60, "e_shstrndx": 62}
	if f.Is64 {
		return off64[name]
	}
	return off32[name]
}

// ShdrOffset is the file offset of section header i.
func (f *ELF) ShdrOffset(i int) int64 { return int64(f.Shoff) + int64(i)*int64(f.ShdrSize()) }

// Sections returns the section table, read once, with the checks and texts
// of LLVM 22's ELFFile::sections(): none when e_shoff is 0; e_shentsize;
// the table inside the file; the count from section 0's sh_size under
// extended numbering. Section contents are not checked (see Contents).
func (f *ELF) Sections() ([]Section, error) {
	if f.secsSet {
		return f.secs, nil
	}
	n, err := f.NumSections()
	if err != nil {
		return nil, err
	}
	if n > 0 {
		f.secs = make([]Section, n)
		for i := range f.secs {
			f.secs[i] = f.Section(i)
		}
	}
	f.secsSet = true
	return f.secs, nil
}

// NumSections reads the section header table, with Sections' checks, and
// returns its number of sections.
func (f *ELF) NumSections() (int, error) {
	if !f.tabRead {
		f.tabRead = true
		f.tab, f.ntab, f.tabErr = f.readTable()
	}
	return f.ntab, f.tabErr
}

// Section decodes section header i of the table NumSections read; i must
// be below its count. Reading one header costs less than Sections when a
// caller wants few.
func (f *ELF) Section(i int) Section {
	shsz := f.ShdrSize()
	s := f.decodeShdr(f.tab[i*shsz:])
	s.Index = i
	return s
}

// FirstOfType returns the first section of type t, if any.
func (f *ELF) FirstOfType(t uint32) (Section, bool, error) {
	n, err := f.NumSections()
	if err != nil {
		return Section{}, false, err
	}
	shsz := f.ShdrSize()
	for i := 0; i < n; i++ {
		if f.ByteOrder.Uint32(f.tab[i*shsz+4:]) == t {
			return f.Section(i), true, nil
		}
	}
	return Section{}, false, nil
}

func (f *ELF) readTable() ([]byte, int, error) {
	if f.Shoff == 0 {
		return nil, 0, nil
	}
	shsz := uint64(f.ShdrSize())
	if uint64(f.Shentsize) != shsz {
		return nil, 0, malformed("ELF", f.fieldOffset("e_shentsize"), "e_shentsize", fmt.Sprintf("invalid e_shentsize in ELF header: %d", f.Shentsize),
			"section header size %d, want %d", f.Shentsize, shsz)
	}
	fsize := uint64(f.size)
	shoff := f.Shoff
	if shoff+shsz > fsize || shoff+shsz < shoff {
		return nil, 0, truncated("ELF", f.fieldOffset("e_shoff"), "e_shoff", fmt.Sprintf("section header table goes past the end of the file: e_shoff = 0x%x", shoff),
			"section header table at %#x past the end of the file (%d bytes)", shoff, f.size)
	}
	n := uint64(f.Shnum)
	if n == 0 {
		// Extended numbering: the count is in section 0's sh_size (read
		// alone only then: otherwise the table is read once, below).
		first, err := view(f.r, int64(shoff), int64(shsz))
		if err != nil {
			return nil, 0, err
		}
		n = f.decodeShdr(first).Size
	}
	if n > ^uint64(0)/shsz {
		return nil, 0, malformed("ELF", int64(shoff), "section 0 sh_size",
			fmt.Sprintf("invalid number of sections specified in the NULL section's sh_size field (%d)", n),
			"section count %d", n)
	}
	if shoff+n*shsz < shoff {
		return nil, 0, malformed("ELF", f.fieldOffset("e_shoff"), "e_shoff",
			fmt.Sprintf("invalid section header table offset (e_shoff = 0x%x) or invalid number of sections specified in the first section header's sh_size field (0x%x)", shoff, n),
			"section header table of %d entries at %#x overflows", n, shoff)
	}
	if shoff+n*shsz > fsize {
		field := "e_shnum"
		at := f.fieldOffset(field)
		if f.Shnum == 0 {
			field, at = "section 0 sh_size", int64(shoff)+int64(shsz/2)
		}
		return nil, 0, truncated("ELF", at, field, "section table goes past the end of file",
			"section header table of %d entries at %#x goes past the end of the file (%d bytes)", n, shoff, f.size)
	}
	if n > MaxSections {
		e := malformed("ELF", f.fieldOffset("e_shnum"), "e_shnum", "", "%d sections, more than the %d this reader takes", n, MaxSections)
		e.Err = fmterr.ErrLimit
		return nil, 0, e
	}
	tab, err := view(f.r, int64(shoff), int64(n*shsz)) // inside the file, checked above
	if err != nil {
		return nil, 0, err
	}
	return tab, int(n), nil
}

func (f *ELF) decodeShdr(b []byte) Section {
	bo := f.ByteOrder
	if f.Is64 {
		return Section{
			NameOff: bo.Uint32(b[0:]), Type: bo.Uint32(b[4:]), Flags: bo.Uint64(b[8:]),
			Addr: bo.Uint64(b[16:]), Offset: bo.Uint64(b[24:]), Size: bo.Uint64(b[32:]),
			Link: bo.Uint32(b[40:]), Info: bo.Uint32(b[44:]), Align: bo.Uint64(b[48:]), EntSize: bo.Uint64(b[56:]),
		}
	}
	return Section{
		NameOff: bo.Uint32(b[0:]), Type: bo.Uint32(b[4:]), Flags: uint64(bo.Uint32(b[8:])),
		Addr: uint64(bo.Uint32(b[12:])), Offset: uint64(bo.Uint32(b[16:])), Size: uint64(bo.Uint32(b[20:])),
		Link: bo.Uint32(b[24:]), Info: bo.Uint32(b[28:]), Align: uint64(bo.Uint32(b[32:])), EntSize: uint64(bo.Uint32(b[36:])),
	}
}

// StringTableIndex is the index of the section name table: e_shstrndx, or
// section 0's sh_link under extended numbering.
func (f *ELF) StringTableIndex(secs []Section) int {
	if f.Shstrndx == SHNXIndex && len(secs) > 0 {
		return int(secs[0].Link)
	}
	return f.Shstrndx
}

// NameSections reads the section name table, with the checks and texts of
// LLVM 22's getSectionStringTable, and sets the Name of every section in
// secs. A name offset out of range leaves that Name empty: bad is the first
// such section (LLVM reports it only when a reader gets to it; NameError
// gives its text), or -1. Without a name table (index 0) every name is
// empty and only offset 0 is in range.
func (f *ELF) NameSections(secs []Section) (bad int, err error) {
	bad = -1
	if len(secs) == 0 {
		return bad, nil
	}
	idx := f.StringTableIndex(secs)
	if idx >= len(secs) {
		return bad, malformed("ELF", f.fieldOffset("e_shstrndx"), "e_shstrndx", fmt.Sprintf("section header string table index %d does not exist", idx),
			"section name table index %d of %d sections", idx, len(secs))
	}
	var tab []byte
	if idx != SHNUndef {
		st := &secs[idx]
		if st.Type != SHTStrtab {
			return bad, malformed("ELF", f.ShdrOffset(idx), fmt.Sprintf("section %d sh_type", idx),
				fmt.Sprintf("invalid sh_type for string table section [index %d]: expected SHT_STRTAB, but got %s", idx, TypeName(f.Machine, st.Type)),
				"section name table of type %#x", st.Type)
		}
		if tab, err = f.StringTable(st); err != nil {
			return bad, err
		}
	}
	offs := make([]uint32, len(secs))
	for i := range secs {
		offs[i] = secs[i].NameOff
	}
	names, found := Names(tab, offs)
	for i := range secs {
		s := &secs[i]
		if s.NameOff == 0 && len(tab) == 0 {
			continue
		}
		name, ok := names[i], found[i]
		if !ok {
			if bad < 0 {
				bad = i
			}
			continue
		}
		s.Name = name
	}
	return bad, nil
}

// NameError is LLVM's error for section i's out-of-range sh_name.
func (f *ELF) NameError(secs []Section, i int) error {
	return malformed("ELF", f.ShdrOffset(i), fmt.Sprintf("section %d sh_name", i),
		fmt.Sprintf("a section [index %d] has an invalid sh_name (0x%x) offset which goes past the end of the section name string table", i, secs[i].NameOff),
		"name offset %#x past the section name table", secs[i].NameOff)
}

// StringTable reads string table section s whole, with LLVM's checks: in
// the file, not empty, ending in NUL.
func (f *ELF) StringTable(s *Section) ([]byte, error) {
	off, n, err := f.contents(s, true)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, malformed("ELF", f.ShdrOffset(s.Index), fmt.Sprintf("section %d sh_size", s.Index),
			fmt.Sprintf("SHT_STRTAB string table section [index %d] is empty", s.Index), "empty string table")
	}
	b := make([]byte, n) // inside the file
	if err := readFull("ELF", f.r, b, off); err != nil {
		return nil, err
	}
	if b[n-1] != 0 {
		return nil, malformed("ELF", off+n-1, fmt.Sprintf("section %d", s.Index),
			fmt.Sprintf("SHT_STRTAB string table section [index %d] is non-null terminated", s.Index), "string table does not end in NUL")
	}
	return b, nil
}

// Contents returns where the contents of s lie in the file, checked to be
// inside it (a SHT_NOBITS section has none). The error's LLVM text is that
// of LLVM 22's object-file layer (ELFObjectFile::getSectionContents), which
// the bundler, the packager and llvm-ar print.
func (f *ELF) Contents(s *Section) (off, n int64, err error) {
	return f.contents(s, false)
}

// contents is Contents; with elfFile set, its LLVM texts are those of
// ELFFile::getSectionContents, which name the section and its fields.
func (f *ELF) contents(s *Section, elfFile bool) (off, n int64, err error) {
	if s.Type == SHTNobits {
		return 0, 0, nil
	}
	if s.Offset+s.Size >= s.Offset && s.Offset+s.Size <= uint64(f.size) {
		return int64(s.Offset), int64(s.Size), nil
	}
	field := fmt.Sprintf("section %d sh_offset", s.Index)
	if s.Offset+s.Size < s.Offset {
		llvm := llvmEOF
		if elfFile {
			llvm = fmt.Sprintf("section [index %d] has a sh_offset (0x%x) + sh_size (0x%x) that cannot be represented", s.Index, s.Offset, s.Size)
		}
		return 0, 0, malformed("ELF", f.ShdrOffset(s.Index), field, llvm, "contents at %#x, %#x bytes, overflow", s.Offset, s.Size)
	}
	if s.Offset+s.Size > uint64(f.size) {
		llvm := llvmEOF
		if elfFile {
			llvm = fmt.Sprintf("section [index %d] has a sh_offset (0x%x) + sh_size (0x%x) that is greater than the file size (0x%x)", s.Index, s.Offset, s.Size, f.size)
		}
		return 0, 0, truncated("ELF", f.ShdrOffset(s.Index), field, llvm,
			"contents at %#x, %#x bytes, past the end of the file (%d bytes)", s.Offset, s.Size, f.size)
	}
	return int64(s.Offset), int64(s.Size), nil
}

// Data reads the contents of s, refusing more than limit bytes (a limit
// of 0 or less means none beyond the file size).
func (f *ELF) Data(s *Section, limit int64) ([]byte, error) {
	off, n, err := f.Contents(s)
	if err != nil {
		return nil, err
	}
	if limit > 0 && n > limit {
		e := malformed("ELF", f.ShdrOffset(s.Index), fmt.Sprintf("section %d sh_size", s.Index), "", "%d bytes, more than the %d read at once", n, limit)
		e.Err = fmterr.ErrLimit
		return nil, e
	}
	b := make([]byte, n)
	if err := readFull("ELF", f.r, b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// Lookup returns the first section named name, or nil.
func Lookup(secs []Section, name string) *Section {
	for i := range secs {
		if secs[i].Name == name {
			return &secs[i]
		}
	}
	return nil
}

// Progs reads the program header table (none when e_phnum is 0), checked
// to lie inside the file.
func (f *ELF) Progs() ([]Prog, error) {
	if f.Phnum == 0 {
		return nil, nil // LLVM reads e_phnum headers at e_phoff, 0 included
	}
	psz := uint64(f.PhdrSize())
	if uint64(f.Phentsize) != psz {
		return nil, malformed("ELF", f.fieldOffset("e_phentsize"), "e_phentsize", fmt.Sprintf("invalid e_phentsize: %d", f.Phentsize), "program header size %d, want %d", f.Phentsize, psz)
	}
	n := uint64(f.Phnum)
	if f.Phoff > uint64(f.size) || n*psz > uint64(f.size)-f.Phoff {
		return nil, truncated("ELF", f.fieldOffset("e_phoff"), "e_phoff", fmt.Sprintf("program headers are longer than binary of size %d: e_phoff = 0x%x, e_phnum = %d, e_phentsize = %d", f.size, f.Phoff, f.Phnum, f.Phentsize),
			"program header table of %d entries at %#x past the end of the file (%d bytes)", n, f.Phoff, f.size)
	}
	tab := make([]byte, n*psz)
	if err := readFull("ELF", f.r, tab, int64(f.Phoff)); err != nil {
		return nil, err
	}
	ps := make([]Prog, n)
	bo := f.ByteOrder
	for i := range ps {
		b := tab[uint64(i)*psz:]
		if f.Is64 {
			ps[i] = Prog{bo.Uint32(b), bo.Uint32(b[4:]), bo.Uint64(b[8:]), bo.Uint64(b[16:]), bo.Uint64(b[24:]), bo.Uint64(b[32:]), bo.Uint64(b[40:]), bo.Uint64(b[48:])}
		} else {
			ps[i] = Prog{Type: bo.Uint32(b), Offset: uint64(bo.Uint32(b[4:])), Vaddr: uint64(bo.Uint32(b[8:])), Paddr: uint64(bo.Uint32(b[12:])),
				Filesz: uint64(bo.Uint32(b[16:])), Memsz: uint64(bo.Uint32(b[20:])), Flags: bo.Uint32(b[24:]), Align: uint64(bo.Uint32(b[28:]))}
		}
	}
	return ps, nil
}

// Names returns the NUL-terminated strings at offsets offs of string table
// tab, resolved in one sweep of the table: O(len(tab) + n log n) time and
// O(n) memory whatever the input (a table of many names is not scanned
// again for each, nor indexed byte by byte). ok[i] is false for an offset
// past the table or a string no NUL ends.
func Names(tab []byte, offs []uint32) (names []string, ok []bool) {
	order := make([]int, len(offs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(offs[a], offs[b]) })
	names, ok = make([]string, len(offs)), make([]bool, len(offs))
	nul := -1 // the NUL ending the strings that start at or before it
	for _, i := range order {
		off := int(offs[i])
		if off >= len(tab) {
			continue
		}
		if off > nul {
			j := bytes.IndexByte(tab[off:], 0)
			if j < 0 {
				break // no NUL from here on: this string and the later ones
			}
			nul = off + j
		}
		names[i], ok[i] = string(tab[off:nul]), true
	}
	return names, ok
}

// CString returns the NUL-terminated string at off in a string table, and
// whether there is one.
func CString(tab []byte, off uint64) (string, bool) {
	if off >= uint64(len(tab)) {
		return "", false
	}
	for i, c := range tab[off:] {
		if c == 0 {
			return string(tab[off : off+uint64(i)]), true
		}
	}
	return "", false
}

// A Viewer is an io.ReaderAt that can lend bytes it holds already (a
// file's head read into memory, a mapped file) instead of copying them.
// The bytes are only read; an ELF keeps its section header table's, so
// they must stay as they are while the ELF is used.
type Viewer interface {
	View(off, n int64) ([]byte, bool)
}

// view returns n bytes at off: r's own when it is a Viewer that holds them,
// else a copy.
func view(r io.ReaderAt, off, n int64) ([]byte, error) {
	if v, ok := r.(Viewer); ok {
		if b, ok := v.View(off, n); ok {
			return b, nil
		}
	}
	b := make([]byte, n)
	if err := readFull("ELF", r, b, off); err != nil {
		return nil, err
	}
	return b, nil
}

func readFull(format string, r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		return truncated(format, off+int64(n), "", llvmEOF, "read of %d bytes at %#x cut short at %d", len(b), off, n)
	}
	return fmt.Errorf("objfile: reading %d bytes at offset %#x: %w", len(b), off, err)
}

// LinkedStringTable reads the string table a symbol table's sh_link
// names, with the checks and texts of LLVM 22's
// ELFFile::getStringTableForSymtab.
func (f *ELF) LinkedStringTable(secs []Section, symtab *Section) ([]byte, error) {
	link := symtab.Link
	if uint64(link) >= uint64(len(secs)) {
		return nil, malformed("ELF", f.ShdrOffset(symtab.Index), fmt.Sprintf("section %d sh_link", symtab.Index), fmt.Sprintf("invalid section index: %d", link), "string table index %d of %d sections", link, len(secs))
	}
	st := &secs[link]
	if st.Type != SHTStrtab {
		return nil, malformed("ELF", f.ShdrOffset(int(link)), fmt.Sprintf("section %d sh_type", link),
			fmt.Sprintf("invalid sh_type for string table section [index %d]: expected SHT_STRTAB, but got %s", link, TypeName(f.Machine, st.Type)),
			"string table of type %#x", st.Type)
	}
	return f.StringTable(st)
}

// CheckTable checks a table of entsize-byte entries (symbols,
// relocations) as LLVM 22's ELFFile::getSectionContentsAsArray does: its
// sh_entsize, a sh_size that is a multiple of it, and its contents inside
// the file.
func (f *ELF) CheckTable(s *Section, entsize uint64) error {
	if s.EntSize != entsize {
		return malformed("ELF", f.ShdrOffset(s.Index), fmt.Sprintf("section %d sh_entsize", s.Index),
			fmt.Sprintf("section [index %d] has invalid sh_entsize: expected %d, but got %d", s.Index, entsize, s.EntSize),
			"entry size %d, want %d", s.EntSize, entsize)
	}
	if s.Size%entsize != 0 {
		return malformed("ELF", f.ShdrOffset(s.Index), fmt.Sprintf("section %d sh_size", s.Index),
			fmt.Sprintf("section [index %d] has an invalid sh_size (%d) which is not a multiple of its sh_entsize (%d)", s.Index, s.Size, entsize),
			"size %d not a multiple of the entry size %d", s.Size, entsize)
	}
	_, _, err := f.contents(s, true)
	return err
}

// Dynamic-section tags DynStrings is asked for.
const (
	DTNeeded  = 1
	DTRPath   = 15
	DTRunPath = 29
)

// MaxDynamic bounds the dynamic section DynStrings reads.
const MaxDynamic = 16 << 20

// Dynamic calls fn for each entry of dynamic section s up to DT_NULL, in
// order, with its file offset (the value field is a word after it).
func (f *ELF) Dynamic(s *Section, fn func(at int64, tag, val uint64) error) error {
	data, err := f.Data(s, MaxDynamic)
	if err != nil {
		return err
	}
	w := f.WordSize()
	for i := 0; i+2*w <= len(data); i += 2 * w {
		var t, v uint64
		if f.Is64 {
			t, v = f.ByteOrder.Uint64(data[i:]), f.ByteOrder.Uint64(data[i+8:])
		} else {
			t, v = uint64(int64(int32(f.ByteOrder.Uint32(data[i:])))), uint64(f.ByteOrder.Uint32(data[i+4:]))
		}
		if t == 0 { // DT_NULL
			return nil
		}
		if err := fn(int64(s.Offset)+int64(i), t, v); err != nil {
			return err
		}
	}
	return nil
}

// DynStrings returns the strings of the first SHT_DYNAMIC section's
// entries with tag tag (DT_NEEDED, DT_RPATH, DT_RUNPATH), in order, from
// the string table its sh_link names.
func (f *ELF) DynStrings(tag int64) ([]string, error) {
	dyn, ok, err := f.FirstOfType(SHTDynamic)
	if err != nil || !ok {
		return nil, err
	}
	secs, err := f.Sections()
	if err != nil {
		return nil, err
	}
	var strtab []byte
	var out []string
	err = f.Dynamic(&dyn, func(at int64, t, v uint64) error {
		if int64(t) != tag {
			return nil
		}
		if strtab == nil {
			var err error
			if strtab, err = f.LinkedStringTable(secs, &secs[dyn.Index]); err != nil {
				return err
			}
		}
		if s, ok := CString(strtab, v); ok {
			out = append(out, s) // an offset past the table names nothing, as in debug/elf
		}
		return nil
	})
	return out, err
}
