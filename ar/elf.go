package ar

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/magic"
)

// ELF constants used by symbol extraction.
const (
	elfClass32, elfClass64   = 1, 2
	elfData2LSB, elfData2MSB = 1, 2

	shtSymtab = 2
	shtStrtab = 3

	shnUndef = 0

	stbLocal   = 0
	sttSection = 3
	sttFile    = 4

	emARM     = 40
	emAArch64 = 183
	emRISCV   = 243
	emCSKY    = 252
)

// ELFSymbols returns the names an LLVM 22 archive writer puts in the symbol
// table for an ELF file: the symbols of the first SHT_SYMTAB section, in
// table order, that are not local (GLOBAL, WEAK, GNU_UNIQUE, ...), not
// undefined (section index 0), not STT_SECTION or STT_FILE, and not a
// target's mapping symbol (ARM "$a" "$d" "$t" and empty names, AArch64 "$d"
// "$x", RISC-V "$d" "$x", C-SKY "$d" "$t"). Common, absolute, TLS,
// IFUNC, hidden and SHN_XINDEX symbols are included. A file without a
// .symtab has no symbols (the dynamic symbol table is not used).
func ELFSymbols(r io.ReaderAt, size int64) ([]string, error) {
	e, err := newELF(r, size)
	if err != nil {
		return nil, err
	}
	return e.symbols()
}

type elfFile struct {
	r       io.ReaderAt
	size    int64
	bo      binary.ByteOrder
	is64    bool
	machine uint16
}

// elfError is an ELF parsing error. LLVM's text (e.g. "Invalid ELF class")
// is what llvm-ar prints after "'<member>': ".
type elfError struct{ msg string }

func (e *elfError) Error() string { return e.msg }

func elfErr(format string, a ...any) error { return &elfError{fmt.Sprintf(format, a...)} }

func newELF(r io.ReaderAt, size int64) (*elfFile, error) {
	var id [16]byte
	if size < 16 || readFull(r, id[:], 0) != nil || string(id[:4]) != magic.ELFMagic {
		return nil, elfErr("not an ELF file")
	}
	e := &elfFile{r: r, size: size}
	switch id[4] {
	case elfClass32:
	case elfClass64:
		e.is64 = true
	default:
		return nil, elfErr("Invalid ELF class")
	}
	switch id[5] {
	case elfData2LSB:
		e.bo = binary.LittleEndian
	case elfData2MSB:
		e.bo = binary.BigEndian
	default:
		return nil, elfErr("Invalid ELF data")
	}
	return e, nil
}

type elfSection struct {
	typ             uint32
	off, size, link uint64
	entsize         uint64
}

func (e *elfFile) header() (shoff uint64, shentsize, shnum uint16, err error) {
	hsize := 52
	if e.is64 {
		hsize = 64
	}
	if e.size < int64(hsize) {
		return 0, 0, 0, elfErr("invalid buffer: the size (%d) is smaller than an ELF header (%d)", e.size, hsize)
	}
	h := make([]byte, hsize)
	if err := readFull(e.r, h, 0); err != nil {
		return 0, 0, 0, err
	}
	e.machine = e.bo.Uint16(h[18:])
	if e.is64 {
		return e.bo.Uint64(h[40:]), e.bo.Uint16(h[58:]), e.bo.Uint16(h[60:]), nil
	}
	return uint64(e.bo.Uint32(h[32:])), e.bo.Uint16(h[46:]), e.bo.Uint16(h[48:]), nil
}

func (e *elfFile) section(b []byte) elfSection {
	if e.is64 {
		return elfSection{typ: e.bo.Uint32(b[4:]), off: e.bo.Uint64(b[24:]), size: e.bo.Uint64(b[32:]), link: uint64(e.bo.Uint32(b[40:])), entsize: e.bo.Uint64(b[56:])}
	}
	return elfSection{typ: e.bo.Uint32(b[4:]), off: uint64(e.bo.Uint32(b[16:])), size: uint64(e.bo.Uint32(b[20:])), link: uint64(e.bo.Uint32(b[24:])), entsize: uint64(e.bo.Uint32(b[36:]))}
}

// sections reads the section header table.
func (e *elfFile) sections() ([]elfSection, error) {
	shoff, shentsize, shnum16, err := e.header()
	if err != nil {
		return nil, err
	}
	if shoff == 0 {
		return nil, nil
	}
	want := uint16(40)
	if e.is64 {
		want = 64
	}
	if shentsize != want {
		return nil, elfErr("invalid e_shentsize in ELF header: %d", shentsize)
	}
	if shoff > uint64(e.size) || uint64(e.size)-shoff < uint64(want) {
		return nil, elfErr("section header table goes past the end of the file: e_shoff = 0x%x", shoff)
	}
	first := make([]byte, want)
	if err := readFull(e.r, first, int64(shoff)); err != nil {
		return nil, err
	}
	num := uint64(shnum16)
	if num == 0 { // extended numbering: the count is in section 0's sh_size
		num = e.section(first).size
	}
	if num > (uint64(e.size)-shoff)/uint64(want) {
		return nil, elfErr("section table goes past the end of file")
	}
	buf := make([]byte, num*uint64(want))
	if err := readFull(e.r, buf, int64(shoff)); err != nil {
		return nil, err
	}
	secs := make([]elfSection, num)
	for i := range secs {
		secs[i] = e.section(buf[i*int(want):])
	}
	return secs, nil
}

func (e *elfFile) symbols() ([]string, error) {
	secs, err := e.sections()
	if err != nil {
		return nil, err
	}
	symIdx := -1
	for i := range secs {
		if secs[i].typ == shtSymtab {
			symIdx = i
			break
		}
	}
	if symIdx < 0 {
		return nil, nil
	}
	symtab := secs[symIdx]
	entsize := uint64(16)
	if e.is64 {
		entsize = 24
	}
	// LLVM skips the null symbol and reads the table lazily: a table of at
	// most one entry is never looked at.
	n := symtab.size / entsize
	if n <= 1 {
		return nil, nil
	}
	if symtab.entsize != entsize {
		return nil, elfErr("section [index %d] has invalid sh_entsize: expected %d, but got %d", symIdx, entsize, symtab.entsize)
	}
	if symtab.size%entsize != 0 {
		return nil, elfErr("section [index %d] has an invalid sh_size (%d) which is not a multiple of its sh_entsize (%d)", symIdx, symtab.size, entsize)
	}
	if symtab.off > uint64(e.size) || symtab.size > uint64(e.size)-symtab.off {
		return nil, elfErr("section [index %d] has a sh_offset (0x%x) + sh_size (0x%x) that is greater than the file size (0x%x)", symIdx, symtab.off, symtab.size, e.size)
	}
	// LLVM resolves the string table only when it needs a name, that is
	// for the symbols that go into the archive's table.
	var strtab []byte
	loadStrtab := func() error {
		if symtab.link >= uint64(len(secs)) {
			return elfErr("invalid section index: %d", symtab.link)
		}
		strsec := secs[symtab.link]
		if strsec.typ != shtStrtab {
			return elfErr("invalid sh_type for string table section [index %d]: expected SHT_STRTAB, but got %s", symtab.link, elfSectionTypeName(strsec.typ))
		}
		if strsec.off > uint64(e.size) || strsec.size > uint64(e.size)-strsec.off {
			return elfErr("section [index %d] has a sh_offset (0x%x) + sh_size (0x%x) that is greater than the file size (0x%x)", symtab.link, strsec.off, strsec.size, e.size)
		}
		if strsec.size == 0 {
			return elfErr("SHT_STRTAB string table section [index %d] is empty", symtab.link)
		}
		strtab = make([]byte, strsec.size)
		if err := readFull(e.r, strtab, int64(strsec.off)); err != nil {
			return err
		}
		if strtab[len(strtab)-1] != 0 {
			return elfErr("SHT_STRTAB string table section [index %d] is non-null terminated", symtab.link)
		}
		return nil
	}
	var names []string
	br := bufio.NewReaderSize(io.NewSectionReader(e.r, int64(symtab.off), int64(symtab.size)), 64<<10)
	ent := make([]byte, entsize)
	for i := uint64(0); i < n; i++ {
		if _, err := io.ReadFull(br, ent); err != nil {
			return nil, err
		}
		if i == 0 {
			continue // the null symbol
		}
		var nameOff uint32
		var info byte
		var shndx uint16
		if e.is64 {
			nameOff, info, shndx = e.bo.Uint32(ent), ent[4], e.bo.Uint16(ent[6:])
		} else {
			nameOff, info, shndx = e.bo.Uint32(ent), ent[12], e.bo.Uint16(ent[14:])
		}
		bind, typ := info>>4, info&0xf
		if bind == stbLocal || shndx == shnUndef || typ == sttSection || typ == sttFile {
			continue
		}
		if strtab == nil {
			if err := loadStrtab(); err != nil {
				return nil, err
			}
		}
		if uint64(nameOff) >= uint64(len(strtab)) {
			return nil, elfErr("st_name (0x%x) is past the end of the string table of size 0x%x", nameOff, len(strtab))
		}
		name := strtab[nameOff:]
		name = name[:bytes.IndexByte(name, 0)] // terminated: checked above
		if e.isMappingSymbol(string(name)) {
			continue
		}
		names = append(names, string(name))
	}
	return names, nil
}

// isMappingSymbol reports the names LLVM marks format-specific per machine.
func (e *elfFile) isMappingSymbol(name string) bool {
	switch e.machine {
	case emARM:
		return name == "" || strings.HasPrefix(name, "$a") || strings.HasPrefix(name, "$d") || strings.HasPrefix(name, "$t")
	case emAArch64:
		return strings.HasPrefix(name, "$d") || strings.HasPrefix(name, "$x")
	case emRISCV:
		return strings.HasPrefix(name, "$d") || strings.HasPrefix(name, "$x")
	case emCSKY:
		return strings.HasPrefix(name, "$d") || strings.HasPrefix(name, "$t")
	}
	return false
}

// elfSectionTypeName names a section type in LLVM's messages.
func elfSectionTypeName(t uint32) string {
	names := map[uint32]string{0: "SHT_NULL", 1: "SHT_PROGBITS", 2: "SHT_SYMTAB", 3: "SHT_STRTAB", 4: "SHT_RELA", 5: "SHT_HASH", 6: "SHT_DYNAMIC", 7: "SHT_NOTE", 8: "SHT_NOBITS", 9: "SHT_REL", 10: "SHT_SHLIB", 11: "SHT_DYNSYM", 14: "SHT_INIT_ARRAY", 15: "SHT_FINI_ARRAY", 16: "SHT_PREINIT_ARRAY", 17: "SHT_GROUP", 18: "SHT_SYMTAB_SHNDX", 19: "SHT_RELR"}
	if n, ok := names[t]; ok {
		return n
	}
	return "Unknown"
}
