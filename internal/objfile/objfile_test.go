package objfile

import (
	"bytes"
	"debug/elf"
	"debug/pe"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/magic"
)

// testFiles are every ELF and COFF file in the repository's testdata.
func testFiles(t testing.TB) (elfs, coffs []string) {
	var all []string
	for _, g := range []string{"../../testdata/*/*", "../../testdata/*/*/*", "../../*/testdata/*", "../../*/testdata/*/*"} {
		m, _ := filepath.Glob(g)
		all = append(all, m...)
	}
	for _, p := range all {
		b, err := os.ReadFile(p)
		if err != nil || len(b) < 4 {
			continue
		}
		switch k := magic.Identify(b); {
		case k.IsELF():
			elfs = append(elfs, p)
		case k == magic.COFFObject || k == magic.PEExecutable:
			coffs = append(coffs, p)
		}
	}
	if len(elfs) == 0 || len(coffs) == 0 {
		t.Fatalf("no test files: %d ELF, %d COFF", len(elfs), len(coffs))
	}
	return elfs, coffs
}

// TestELFAgreesWithDebugELF reads every ELF test file with this package and
// with debug/elf and compares headers, sections and names.
func TestELFAgreesWithDebugELF(t *testing.T) {
	elfs, _ := testFiles(t)
	for _, p := range elfs {
		b, _ := os.ReadFile(p)
		want, werr := elf.NewFile(bytes.NewReader(b))
		f, err := NewELF(bytes.NewReader(b), int64(len(b)))
		if werr != nil {
			continue // debug/elf is stricter about some headers
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if uint16(want.Machine) != f.Machine || uint16(want.Type) != f.Type || (want.Class == elf.ELFCLASS64) != f.Is64 || want.ByteOrder != f.ByteOrder {
			t.Errorf("%s: header differs", p)
		}
		secs, err := f.Sections()
		if err != nil {
			t.Errorf("%s: sections: %v", p, err)
			continue
		}
		if bad, err := f.NameSections(secs); err != nil || bad >= 0 {
			t.Errorf("%s: names: %d %v", p, bad, err)
		}
		if len(secs) != len(want.Sections) {
			t.Errorf("%s: %d sections, debug/elf %d", p, len(secs), len(want.Sections))
			continue
		}
		for i, s := range want.Sections {
			g := secs[i]
			if g.Name != s.Name || g.Type != uint32(s.Type) || g.Offset != s.Offset || g.Size != s.FileSize && s.Type != elf.SHT_NOBITS || g.Addr != s.Addr || g.Link != s.Link || g.Index != i {
				t.Errorf("%s: section %d: %+v, debug/elf %+v", p, i, g, s.SectionHeader)
			}
		}
		for _, tag := range []elf.DynTag{elf.DT_NEEDED, elf.DT_RPATH, elf.DT_RUNPATH} {
			w, _ := want.DynString(tag)
			g, err := f.DynStrings(int64(tag))
			if err != nil || strings.Join(w, ",") != strings.Join(g, ",") {
				t.Errorf("%s: %v: %q (%v), debug/elf %q", p, tag, g, err, w)
			}
		}
		// Symbols: debug/elf leaves out entry 0.
		for _, typ := range []uint32{SHTSymtab, SHTDynsym} {
			var wantSyms []elf.Symbol
			if typ == SHTSymtab {
				wantSyms, _ = want.Symbols()
			} else {
				wantSyms, _ = want.DynamicSymbols()
			}
			st, ok, _ := f.FirstOfType(typ)
			if !ok {
				continue
			}
			n := 0
			f.Symbols(&st, func(sym Symbol) error {
				if sym.Index > 0 {
					if w := wantSyms[sym.Index-1]; w.Value != sym.Value || uint16(w.Section) != sym.Shndx || w.Info != sym.Info {
						t.Errorf("%s: symbol %d: %+v, debug/elf %+v", p, sym.Index, sym, w)
					}
					n++
				}
				return nil
			})
			if n != len(wantSyms) {
				t.Errorf("%s: %d symbols of type %d, debug/elf %d", p, n, typ, len(wantSyms))
			}
		}
		progs, err := f.Progs()
		if err != nil || len(progs) != len(want.Progs) {
			t.Errorf("%s: %d progs (%v), debug/elf %d", p, len(progs), err, len(want.Progs))
			continue
		}
		for i, q := range want.Progs {
			if progs[i].Vaddr != q.Vaddr || progs[i].Offset != q.Off || progs[i].Filesz != q.Filesz || progs[i].Type != uint32(q.Type) || progs[i].Flags != uint32(q.Flags) {
				t.Errorf("%s: prog %d differs", p, i)
			}
		}
	}
}

// TestCOFFAgreesWithDebugPE compares section names and contents ranges
// with debug/pe's.
func TestCOFFAgreesWithDebugPE(t *testing.T) {
	_, coffs := testFiles(t)
	for _, p := range coffs {
		b, _ := os.ReadFile(p)
		want, werr := pe.NewFile(bytes.NewReader(b))
		c, err := NewCOFF(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if werr != nil {
			continue
		}
		if int(c.NumSections) != len(want.Sections) || c.Machine != want.Machine {
			t.Errorf("%s: %d sections, machine %#x; debug/pe %d, %#x", p, c.NumSections, c.Machine, len(want.Sections), want.Machine)
			continue
		}
		for i, s := range want.Sections {
			cs, err := c.Section(i + 1)
			if err != nil {
				t.Fatal(err)
			}
			name, err := c.SectionName(&cs)
			if err != nil || name != s.Name || cs.PointerToRawData != s.Offset || cs.SizeOfRawData != s.Size {
				t.Errorf("%s: section %d: %q %+v (%v), debug/pe %q", p, i+1, name, cs, err, s.Name)
			}
		}
	}
}

func hdr64(shoff uint64, shentsize, shnum, shstrndx uint16) []byte {
	b := make([]byte, 64)
	copy(b, "\x7fELF\x02\x01\x01")
	le.PutUint16(b[16:], 1)
	le.PutUint16(b[18:], 62)
	le.PutUint64(b[40:], shoff)
	le.PutUint16(b[58:], shentsize)
	le.PutUint16(b[60:], shnum)
	le.PutUint16(b[62:], shstrndx)
	return b
}

// TestELFErrors checks LLVM's texts, the fields named and the sentinels
// for the defects LLVM's ELFFile checks.
func TestELFErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		b     []byte
		llvm  string
		field string
		is    error
	}{
		{"class", []byte("\x7fELF\x03\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"), "Invalid ELF class", "EI_CLASS", fmterr.ErrMalformed},
		{"data", []byte("\x7fELF\x02\x03\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"), "Invalid ELF data", "EI_DATA", fmterr.ErrMalformed},
		{"short header", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), "invalid buffer: the size (18) is smaller than an ELF header (64)", "ELF header", fmterr.ErrTruncated},
		{"shentsize", hdr64(64, 40, 1, 0), "invalid e_shentsize in ELF header: 40", "e_shentsize", fmterr.ErrMalformed},
		{"shoff", hdr64(0x1000, 64, 1, 0), "section header table goes past the end of the file: e_shoff = 0x1000", "e_shoff", fmterr.ErrTruncated},
		{"shnum", append(hdr64(64, 64, 2, 0), make([]byte, 64)...), "section table goes past the end of file", "e_shnum", fmterr.ErrTruncated},
	} {
		f, err := NewELF(bytes.NewReader(tc.b), int64(len(tc.b)))
		if err == nil {
			_, err = f.Sections()
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v, want an *Error", tc.name, err)
			continue
		}
		if e.LLVMMessage() != tc.llvm || e.Field != tc.field || !errors.Is(err, tc.is) {
			t.Errorf("%s: LLVM %q field %q (%v), want %q %q %v", tc.name, e.LLVMMessage(), e.Field, err, tc.llvm, tc.field, tc.is)
		}
	}
}

// TestNames checks the section name table's checks and an out-of-range
// name, which is reported, not fatal.
func TestNames(t *testing.T) {
	// Sections: null, .shstrtab (index 1), one with a name offset past the table.
	tab := []byte("\x00.shstrtab\x00")
	b := hdr64(64, 64, 3, 1)
	sh := make([]byte, 3*64)
	le.PutUint32(sh[64:], 1)
	le.PutUint32(sh[68:], SHTStrtab)
	le.PutUint64(sh[64+24:], uint64(64+len(sh)))
	le.PutUint64(sh[64+32:], uint64(len(tab)))
	le.PutUint32(sh[128:], 99)
	b = append(append(b, sh...), tab...)
	f, err := NewELF(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	secs, err := f.Sections()
	if err != nil {
		t.Fatal(err)
	}
	bad, err := f.NameSections(secs)
	if err != nil || bad != 2 || secs[1].Name != ".shstrtab" {
		t.Fatalf("NameSections = %d, %v; names %q", bad, err, secs[1].Name)
	}
	if got := f.NameError(secs, 2).(*Error).LLVMMessage(); got != "a section [index 2] has an invalid sh_name (0x63) offset which goes past the end of the section name string table" {
		t.Errorf("NameError: %q", got)
	}
	le.PutUint32(b[64+64+4:], SHTProgbits)
	f, _ = NewELF(bytes.NewReader(b), int64(len(b)))
	secs, _ = f.Sections()
	if _, err := f.NameSections(secs); err == nil || err.(*Error).LLVMMessage() != "invalid sh_type for string table section [index 1]: expected SHT_STRTAB, but got SHT_PROGBITS" {
		t.Errorf("wrong type: %v", err)
	}
}

// FuzzELF reads any input's header, sections, names and program headers:
// no panic, and every section this package hands out lies in the file.
func FuzzELF(f *testing.F) {
	elfs, _ := testFiles(f)
	for _, p := range elfs {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<16 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := NewELF(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		e.Progs()
		secs, err := e.Sections()
		if err != nil {
			return
		}
		e.NameSections(secs)
		for i := range secs {
			off, n, err := e.Contents(&secs[i])
			if err == nil && off+n > int64(len(b)) {
				t.Fatalf("section %d at %d+%d past %d", i, off, n, len(b))
			}
		}
	})
}

// FuzzCOFF reads any input's COFF headers and section names: no panic, and
// contents reported in the file lie in it.
func FuzzCOFF(f *testing.F) {
	_, coffs := testFiles(f)
	for _, p := range coffs {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<16 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := NewCOFF(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for i := 1; i <= int(c.NumSections); i++ {
			s, err := c.Section(i)
			if err != nil {
				t.Fatalf("section %d of %d unreadable after NewCOFF: %v", i, c.NumSections, err)
			}
			c.SectionName(&s)
			if off, n, in := c.Contents(&s); in && off+n > int64(len(b)) {
				t.Fatalf("section %d at %d+%d past %d", i, off, n, len(b))
			}
		}
	})
}

// TestCOFFNoSymbols: an import library's header, and a symbol table LLVM
// cannot read, leave no symbol table, as LLVM reads them.
func TestCOFFNoSymbols(t *testing.T) {
	h := make([]byte, 20+4)
	le.PutUint16(h[0:], 0x8664)
	le.PutUint16(h[2:], 0xffff)
	le.PutUint32(h[8:], 20) // a symbol table at 20: 0 symbols, then a 4-byte string table
	le.PutUint32(h[20:], 4)
	c, err := NewCOFF(bytes.NewReader(h), int64(len(h)))
	if err != nil || !c.ImportLibrary || c.SymbolTable != 0 || c.NumSections != 0 {
		t.Errorf("import library: %+v, %v", c, err)
	}
	le.PutUint16(h[2:], 0)
	le.PutUint32(h[20:], 5) // a string table longer than the file
	c, err = NewCOFF(bytes.NewReader(h), int64(len(h)))
	if err != nil || c.SymbolTable != 0 || c.StringTable() != nil {
		t.Errorf("bad string table: %+v, %v", c, err)
	}
	le.PutUint32(h[20:], 4)
	c, err = NewCOFF(bytes.NewReader(h), int64(len(h)))
	if err != nil || c.SymbolTable != 20 || len(c.StringTable()) != 4 {
		t.Errorf("empty string table: %+v, %v", c, err)
	}
}

// TestNamesSweep: Names gives what a lookup per offset gives, and resolves
// names in a table of 32 MiB of NUL bytes without memory in proportion to
// the table (it used to index every NUL: over 1 GiB).
func TestNamesSweep(t *testing.T) {
	tab := []byte("\x00.text\x00.data\x00abc")
	offs := []uint32{0, 1, 3, 7, 12, 13, 16, 99, 6}
	names, ok := Names(tab, offs)
	for i, off := range offs {
		want, wok := CString(tab, uint64(off))
		if names[i] != want || ok[i] != wok {
			t.Errorf("offset %d: %q %v, want %q %v", off, names[i], ok[i], want, wok)
		}
	}
	big := make([]byte, 32<<20)
	offs = make([]uint32, 100000)
	for i := range offs {
		offs[i] = uint32(i * 331 % len(big))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	names, ok = Names(big, offs)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 || !ok[0] || names[1] != "" {
		t.Errorf("%d bytes allocated for %d names", got, len(offs))
	}
}
