package bitcode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrSymtabRebuild is returned (wrapped) by Symbols when the file has no
// usable irsymtab (it is missing, lacks its string table, or has a version or
// module count other than what LLVM 22 expects) and the symbols cannot be
// worked out from the IR records either: the module has module-level inline
// asm (which needs the target's assembler), uses x86 Windows calling
// conventions whose names LLVM decorates (stdcall, fastcall, vectorcall), or
// predates string tables (LLVM < 5).
var ErrSymtabRebuild = errors.New("no usable irsymtab, and rebuilding the symbol table from this IR is not supported")

// errNoSymtab marks a missing or stale irsymtab; Symbols then reads the IR.
var errNoSymtab = errors.New("no usable irsymtab")

// Symbols returns the names that LLVM 22's archive writer (llvm-ar, and the
// offload tools' archive output) puts in an archive symbol table for a
// bitcode member: the global, defined, not format-specific symbols of every
// module, in LLVM's order (functions, variables, aliases, ifuncs, then
// module-asm symbols). Names are mangled for the target, as the irsymtab
// stores them.
//
// The names come from the irsymtab that LLVM 5 and later write into every
// bitcode file. When there is no usable irsymtab (as in files made by
// llvm-cat -b, or for targets LLVM was built without) or another LLVM
// release wrote it (its producer is not "22.1.8"), Symbols works the names out
// from the modules' global value records, as LLVM does. Where that needs
// more than this package knows, an irsymtab of the right format version is
// trusted, and without one the error wraps ErrSymtabRebuild.
func Symbols(r io.ReaderAt, size int64) ([]string, error) {
	f, err := openFile(r, size)
	if err != nil {
		return nil, err
	}
	if len(f.mods) == 0 {
		return nil, nil // an object without symbols, to LLVM
	}
	// LLVM reads each module (lazily) before it collects any symbol.
	for i := range f.mods {
		if err := f.checkLazy(i); err != nil {
			return nil, err
		}
	}
	names, producer, err := f.symbols()
	if errors.Is(err, errNoSymtab) {
		return f.irSymbols()
	}
	if err != nil {
		// LLVM reads the IR, not the irsymtab: a damaged table does not
		// matter to it where the IR can be read.
		if ir, irErr := f.irSymbols(); irErr == nil {
			return ir, nil
		}
		return nil, err
	}
	if err == nil && producer != symtabProducer {
		// LLVM 22 rebuilds a table another release wrote; do the same
		// where we can, and trust the old table where we cannot.
		if ir, irErr := f.irSymbols(); irErr == nil {
			return ir, nil
		} else if !errors.Is(irErr, ErrSymtabRebuild) {
			return nil, irErr
		}
	}
	return names, err
}

// symbols reads the names from the irsymtab and returns its producer too.
func (f *file) symbols() ([]string, string, error) {
	st, str := f.symtab, f.symStrtab
	switch {
	case !f.haveSymtab:
		return nil, "", fmt.Errorf("bitcode: no SYMTAB block: %w", errNoSymtab)
	case f.symStrtab == nil && len(f.symtab) > 0:
		return nil, "", fmt.Errorf("bitcode: no STRTAB block after the SYMTAB block: %w", errNoSymtab)
	case len(st) < headerSize:
		return nil, "", fmt.Errorf("bitcode: irsymtab of %d bytes is shorter than its %d-byte header: %w", len(st), headerSize, errNoSymtab)
	}
	word := func(off int) uint32 { return binary.LittleEndian.Uint32(st[off:]) }
	if v := word(hdrVersion); v != symtabVersion {
		return nil, "", fmt.Errorf("bitcode: irsymtab version %d, LLVM 22 expects %d: %w", v, symtabVersion, errNoSymtab)
	}
	var producer string
	if po, pl := uint64(word(hdrProducer)), uint64(word(hdrProducer+4)); po <= uint64(len(str)) && pl <= uint64(len(str))-po {
		producer = string(str[po : po+pl])
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
		return nil, "", err
	}
	if modCnt != len(f.mods) {
		return nil, "", fmt.Errorf("bitcode: irsymtab lists %d modules, the file has %d: %w", modCnt, len(f.mods), errNoSymtab)
	}
	symOff, symCnt, err := rng(hdrSymbols, "symbol", symbolSize)
	if err != nil {
		return nil, "", err
	}
	var names []string
	for m := range modCnt {
		b, e := word(modOff+m*moduleSize), word(modOff+m*moduleSize+4)
		if b > e || int64(e) > int64(symCnt) {
			return nil, "", fmt.Errorf("bitcode: irsymtab module %d: symbols [%d, %d) outside the %d symbols", m, b, e, symCnt)
		}
		for i := int(b); i < int(e); i++ {
			s := symOff + i*symbolSize
			flags := word(s + symFlagsOff)
			if flags&flagGlobal == 0 || flags&(flagUndefined|flagFormatSpecific) != 0 {
				continue
			}
			no, nl := uint64(word(s)), uint64(word(s+4))
			if no > uint64(len(str)) || nl > uint64(len(str))-no {
				return nil, "", fmt.Errorf("bitcode: irsymtab symbol %d: name (offset %d, size %d) outside the %d-byte string table", i, no, nl, len(str))
			}
			names = append(names, string(str[no:no+nl]))
		}
	}
	return names, producer, nil
}

// irSymbols works the archive symbols out from the modules' records: the
// functions, variables, aliases and ifuncs, each kind in record order, that
// are defined, not local, not named llvm.* and not in section llvm.metadata,
// with names mangled as the data layout says.
func (f *file) irSymbols() ([]string, error) {
	var names []string
	for i := range f.mods {
		mi, err := f.parseModule(i, false)
		if err != nil {
			return nil, err
		}
		if mi.version < 2 {
			return nil, fmt.Errorf("bitcode: module %d: version %d bitcode without a string table: %w", i, mi.version, ErrSymtabRebuild)
		}
		if mi.asm != "" {
			return nil, fmt.Errorf("bitcode: module %d has module-level inline asm, whose symbols need the target's assembler: %w", i, ErrSymtabRebuild)
		}
		mode := manglingMode(mi.dataLayout)
		for _, kind := range []gvKind{gvFunc, gvVar, gvAlias, gvIFunc} {
			for _, g := range mi.globals {
				if g.kind != kind || !mi.archiveSymbol(g) {
					continue
				}
				name, err := mangle(g, mode)
				if err != nil {
					return nil, fmt.Errorf("bitcode: module %d: %w", i, err)
				}
				names = append(names, name)
			}
		}
	}
	return names, nil
}

func (mi *moduleInfo) archiveSymbol(g globalValue) bool {
	switch g.linkage {
	case linkInternal, 9, 13, 14: // internal and the private linkages
		return false
	case linkAvailableExtrn:
		return false // a declaration for the linker
	}
	if g.decl || strings.HasPrefix(g.name, "llvm.") {
		return false
	}
	if g.kind == gvVar && g.section > 0 && g.section <= uint64(len(mi.sections)) && mi.sections[g.section-1] == "llvm.metadata" {
		return false
	}
	return true
}

// manglingMode returns the letter of the data layout's "m:" component.
func manglingMode(dl string) byte {
	for _, part := range strings.Split(dl, "-") {
		if len(part) == 3 && strings.HasPrefix(part, "m:") {
			return part[2]
		}
	}
	return 0
}

// mangle returns the symbol name LLVM's mangler gives a global value.
func mangle(g globalValue, mode byte) (string, error) {
	if strings.HasPrefix(g.name, "\x01") {
		return g.name[1:], nil
	}
	if g.kind == gvFunc && (mode == 'x' || mode == 'w') {
		switch g.cc {
		case 64, 65, 80: // x86 stdcall, fastcall, vectorcall
			return "", fmt.Errorf("function %q: calling convention %d decorates the name: %w", g.name, g.cc, ErrSymtabRebuild)
		}
	}
	if mode == 'o' || mode == 'x' {
		return "_" + g.name, nil
	}
	return g.name, nil
}
