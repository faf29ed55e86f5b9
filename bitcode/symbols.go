package bitcode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ErrSymtabRebuild is returned (wrapped) by Symbols when the file has no
// usable irsymtab: it is missing, lacks its string table, has a version or
// module count other than what LLVM 22 expects. LLVM then rebuilds the table
// from the module's IR, which this package does not do.
var ErrSymtabRebuild = errors.New("no usable irsymtab; LLVM would rebuild the symbol table from the IR, which is not supported")

// Symbols returns the names that LLVM 22's archive writer (llvm-ar, and the
// offload tools' archive output) puts in an archive symbol table for a
// bitcode member: the global, defined, not format-specific symbols of every
// module, in LLVM's order (functions, variables, aliases, ifuncs, then
// module-asm symbols). Names are mangled for the target, as the irsymtab
// stores them.
//
// The names come from the irsymtab that LLVM 5 and later write into every
// bitcode file. An irsymtab made by another LLVM release with the same format
// version (3) is trusted; LLVM 22 would rebuild it from the IR, normally with
// the same result. A file without a usable irsymtab gives an error wrapping
// ErrSymtabRebuild.
func Symbols(r io.ReaderAt, size int64) ([]string, error) {
	f, err := openFile(r, size)
	if err != nil {
		return nil, err
	}
	return f.symbols()
}

func (f *file) symbols() ([]string, error) {
	st, str := f.symtab, f.symStrtab
	switch {
	case !f.haveSymtab:
		return nil, fmt.Errorf("bitcode: no SYMTAB block: %w", ErrSymtabRebuild)
	case f.symStrtab == nil:
		return nil, fmt.Errorf("bitcode: no STRTAB block after the SYMTAB block: %w", ErrSymtabRebuild)
	case len(st) < headerSize:
		return nil, fmt.Errorf("bitcode: irsymtab of %d bytes is shorter than its %d-byte header: %w", len(st), headerSize, ErrSymtabRebuild)
	}
	word := func(off int) uint32 { return binary.LittleEndian.Uint32(st[off:]) }
	if v := word(hdrVersion); v != symtabVersion {
		return nil, fmt.Errorf("bitcode: irsymtab version %d, LLVM 22 expects %d: %w", v, symtabVersion, ErrSymtabRebuild)
	}
	// rng checks a Range of n-byte elements and returns its offset and count.
	rng := func(field int, what string, n int) (int, int, error) {
		off, cnt := uint64(word(field)), uint64(word(field+4))
		if off > uint64(len(st)) || cnt > (uint64(len(st))-off)/uint64(n) {
			return 0, 0, fmt.Errorf("bitcode: irsymtab %s range (offset %d, %d entries of %d bytes) outside the %d-byte table", what, off, cnt, n, len(st))
		}
		return int(off), int(cnt), nil
	}
	modOff, modCnt, err := rng(hdrModules, "module", moduleSize)
	if err != nil {
		return nil, err
	}
	if modCnt != len(f.mods) {
		return nil, fmt.Errorf("bitcode: irsymtab lists %d modules, the file has %d: %w", modCnt, len(f.mods), ErrSymtabRebuild)
	}
	symOff, symCnt, err := rng(hdrSymbols, "symbol", symbolSize)
	if err != nil {
		return nil, err
	}
	var names []string
	for m := range modCnt {
		b, e := word(modOff+m*moduleSize), word(modOff+m*moduleSize+4)
		if b > e || int64(e) > int64(symCnt) {
			return nil, fmt.Errorf("bitcode: irsymtab module %d: symbols [%d, %d) outside the %d symbols", m, b, e, symCnt)
		}
		for i := int(b); i < int(e); i++ {
			s := symOff + i*symbolSize
			flags := word(s + symFlagsOff)
			if flags&flagGlobal == 0 || flags&(flagUndefined|flagFormatSpecific) != 0 {
				continue
			}
			no, nl := uint64(word(s)), uint64(word(s+4))
			if no > uint64(len(str)) || nl > uint64(len(str))-no {
				return nil, fmt.Errorf("bitcode: irsymtab symbol %d: name (offset %d, size %d) outside the %d-byte string table", i, no, nl, len(str))
			}
			names = append(names, string(str[no:no+nl]))
		}
	}
	return names, nil
}
