package ar

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/objfile"
)

// ELF constants used by symbol extraction.
const (
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
	*objfile.ELF
	r io.ReaderAt
}

func newELF(r io.ReaderAt, size int64) (*elfFile, error) {
	f, err := objfile.NewELF(r, size)
	if err != nil {
		return nil, err
	}
	return &elfFile{ELF: f, r: r}, nil
}

func (e *elfFile) symbols() ([]string, error) {
	secs, err := e.Sections()
	if err != nil {
		return nil, err
	}
	symIdx := -1
	for i := range secs {
		if secs[i].Type == objfile.SHTSymtab {
			symIdx = i
			break
		}
	}
	if symIdx < 0 {
		return nil, nil
	}
	symtab := &secs[symIdx]
	entsize := uint64(16)
	if e.Is64 {
		entsize = 24
	}
	// LLVM skips the null symbol and reads the table lazily: a table of at
	// most one entry is never looked at.
	n := symtab.Size / entsize
	if n <= 1 {
		return nil, nil
	}
	if err := e.CheckTable(symtab, entsize); err != nil {
		return nil, err
	}
	// LLVM resolves the string table only when it needs a name, that is
	// for the symbols that go into the archive's table.
	var strtab []byte
	loadStrtab := func() (err error) {
		strtab, err = e.LinkedStringTable(secs, symtab)
		return err
	}
	var names []string
	br := bufio.NewReaderSize(io.NewSectionReader(e.r, int64(symtab.Offset), int64(symtab.Size)), 64<<10)
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
		bo := e.ByteOrder
		if e.Is64 {
			nameOff, info, shndx = bo.Uint32(ent), ent[4], bo.Uint16(ent[6:])
		} else {
			nameOff, info, shndx = bo.Uint32(ent), ent[12], bo.Uint16(ent[14:])
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
			return nil, &objfile.Error{Format: "ELF", Offset: int64(symtab.Offset + i*entsize), Field: fmt.Sprintf("symbol %d st_name", i),
				Msg:  fmt.Sprintf("name offset %#x past the string table's %d bytes", nameOff, len(strtab)),
				LLVM: fmt.Sprintf("st_name (0x%x) is past the end of the string table of size 0x%x", nameOff, len(strtab)), Err: fmterr.ErrMalformed}
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
	switch e.Machine {
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
