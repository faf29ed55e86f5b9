package ar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	"github.com/goffload/goffload/magic"
)

// COFF objects (and "bigobj" COFF objects) as LLVM 22's archive writer
// reads them for the symbol table, established by probing llvm-ar and
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

var errCOFFStringTableEmpty = errors.New("string table empty")

// coffSymbols returns the archive symbols of a COFF object.
func coffSymbols(r io.ReaderAt, size int64) ([]string, error) {
	le := binary.LittleEndian
	var h [56]byte
	n, _ := r.ReadAt(h[:min(int64(len(h)), size)], 0)
	var (
		nsec, symPtr, nsym int64
		secTab, recSize    int64
	)
	if magic.IsBigObj(h[:n]) {
		// Too short for the bigobj header, or of version 0 or 1: LLVM reads
		// an object without sections or symbols.
		if n < 56 || le.Uint16(h[4:]) < 2 {
			return nil, nil
		}
		nsec, symPtr, nsym = int64(le.Uint32(h[44:])), int64(le.Uint32(h[48:])), int64(le.Uint32(h[52:]))
		secTab, recSize = 56, 20
	} else {
		if n < 20 {
			return nil, errCOFFEOF
		}
		nsec, symPtr, nsym = int64(le.Uint16(h[2:])), int64(le.Uint32(h[8:])), int64(le.Uint32(h[12:]))
		secTab, recSize = 20+int64(le.Uint16(h[16:])), 18
		if nsec == 0xffff {
			// LLVM takes this for an import library's header: nothing
			// more is read, no sections, no symbols.
			return nil, nil
		}
	}
	if secTab+40*nsec > size {
		return nil, errCOFFEOF
	}
	if symPtr == 0 {
		return nil, nil
	}
	strOff := symPtr + nsym*recSize
	if strOff+4 > size {
		return nil, nil // the symbol table or the string table's size is cut off
	}
	var sz [4]byte
	if readFull(r, sz[:], strOff) != nil {
		return nil, nil
	}
	strSize := int64(le.Uint32(sz[:]))
	if strOff+max(strSize, 4) > size {
		return nil, nil
	}
	var strtab []byte
	if strSize > 4 {
		strtab = make([]byte, strSize) // fits in the file
		if err := readFull(r, strtab, strOff); err != nil {
			return nil, err
		}
		if strtab[strSize-1] != 0 {
			return nil, nil
		}
	}
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
			name, err := coffName(rec[:8], strtab, strSize)
			if err != nil {
				return nil, err
			}
			syms = append(syms, name)
		}
		i += 1 + int64(naux)
	}
	return syms, nil
}

func coffName(raw, strtab []byte, strSize int64) (string, error) {
	if raw[0] != 0 || raw[1] != 0 || raw[2] != 0 || raw[3] != 0 {
		if i := bytes.IndexByte(raw, 0); i >= 0 {
			raw = raw[:i]
		}
		return string(raw), nil
	}
	if strSize <= 4 {
		return "", errCOFFStringTableEmpty
	}
	off := int64(binary.LittleEndian.Uint32(raw[4:]))
	if off >= strSize {
		return "", errCOFFEOF
	}
	s := strtab[off:]
	return string(s[:bytes.IndexByte(s, 0)]), nil // the table ends in NUL
}
