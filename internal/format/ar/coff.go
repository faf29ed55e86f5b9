package ar

import (
	"encoding/binary"
	"io"

	"github.com/goffload/goffload/internal/objfile"
)

// COFF objects (and "bigobj" COFF objects) as LLVM 22's archive writer
// reads them for the symbol table (headers, section and string tables
// through package objfile), established by probing llvm-ar and
// llvm-offload-binary --archive 22.1.8 with patched objects:
//
//   - The file header and section table must fit in the file, else "The end
//     of the file was unexpectedly encountered". A section count of 0xFFFF
//     (an import library's mark) means no sections and no symbols.
//   - A symbol table that does not fit, whose string table (u32 size, then
//     the strings) does not fit, or whose string table (when it holds more
//     than its size field) does not end in NUL, is ignored: the object then
//     has no symbols (it still counts as an object).
//   - A symbol is archived when its storage class is EXTERNAL (2) or
//     WEAK_EXTERNAL (105), except: an EXTERNAL in section 0 with value 0
//     (undefined; with a value it is common and archived); a WEAK_EXTERNAL
//     with an auxiliary record whose characteristics are not SEARCH_ALIAS
//     (3); a FILE (103) record; and a symbol with auxiliary records that is
//     STATIC (3), or EXTERNAL in the absolute section (-1) (both section
//     definitions).
//   - Names are inline (8 bytes, NUL-padded) or, when the first 4 bytes are
//     zero, a string-table offset: "string table empty" when the table has
//     no strings, "The end of the file was unexpectedly encountered" when
//     the offset is past it. Only archived symbols' names are read.

// coffSymbols returns the archive symbols of a COFF object.
func coffSymbols(r io.ReaderAt, size int64) ([]string, error) {
	c, err := objfile.NewCOFF(r, size)
	if err != nil {
		return nil, err
	}
	if c.SymbolTable == 0 {
		return nil, nil
	}
	le := binary.LittleEndian
	symPtr, nsym, recSize := c.SymbolTable, c.NumSymbols, c.SymbolSize
	const (
		classExternal     = 2
		classStatic       = 3
		classFile         = 103
		classWeakExternal = 105
		searchAlias       = 3
	)
	var syms []string
	rec := make([]byte, recSize)
	for i := int64(0); i < nsym; {
		if err := readFull(r, rec, symPtr+i*recSize); err != nil {
			return nil, err
		}
		value := le.Uint32(rec[8:])
		var sec int64
		var class, naux byte
		if recSize == 20 {
			sec, class, naux = int64(int32(le.Uint32(rec[12:]))), rec[18], rec[19]
		} else {
			sec, class, naux = int64(int16(le.Uint16(rec[12:]))), rec[16], rec[17]
		}
		include := class == classExternal || class == classWeakExternal
		switch {
		case class == classExternal && sec == 0 && value == 0: // undefined
			include = false
		case naux > 0 && (class == classStatic || class == classExternal && sec == -1): // section definitions
			include = false
		case class == classWeakExternal && naux > 0:
			var aux [8]byte
			if readFull(r, aux[:], symPtr+(i+1)*recSize) != nil || le.Uint32(aux[4:]) != searchAlias {
				include = false // a weak undefined symbol
			}
		}
		if include {
			name, err := c.SymbolName(rec[:8], symPtr+i*recSize)
			if err != nil {
				return nil, err
			}
			syms = append(syms, name)
		}
		i += 1 + int64(naux)
	}
	return syms, nil
}
