package bundler_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
)

// elfPatcher edits the section headers of a 64-bit little-endian ELF file.
type elfPatcher struct{ b []byte }

func (p elfPatcher) shoff() int { return int(binary.LittleEndian.Uint64(p.b[40:])) }
func (p elfPatcher) shnum() int { return int(binary.LittleEndian.Uint16(p.b[60:])) }

// field returns the offset of a section header field (Elf64_Shdr offsets).
func (p elfPatcher) field(i, off int) int { return p.shoff() + 64*i + off }

func (p elfPatcher) get(i, off, size int) uint64 {
	if size == 4 {
		return uint64(binary.LittleEndian.Uint32(p.b[p.field(i, off):]))
	}
	return binary.LittleEndian.Uint64(p.b[p.field(i, off):])
}

// with returns a copy with a section header field set.
func (p elfPatcher) with(i, off, size int, v uint64) []byte {
	c := append([]byte(nil), p.b...)
	if size == 4 {
		binary.LittleEndian.PutUint32(c[p.field(i, off):], uint32(v))
	} else {
		binary.LittleEndian.PutUint64(c[p.field(i, off):], v)
	}
	return c
}

// sectionIndex finds a section by type (the first one).
func (p elfPatcher) sectionIndex(typ uint32) int {
	for i := 1; i < p.shnum(); i++ {
		if uint32(p.get(i, 4, 4)) == typ {
			return i
		}
	}
	return -1
}

// Malformed ELF hosts and fat objects: the bundler's own messages (listing,
// unbundling) and llvm-objcopy's (bundling, making the host object), word
// for word, for one defect at a time.
func TestDiffMalformedObject(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	files := objectFiles(t)
	const (
		hostT = "host-x86_64-unknown-linux-gnu"
		d906  = "hip-amdgcn-amd-amdhsa--gfx906"
	)
	fat := difftest.Run(t, ref, difftest.Case{Files: files, Args: []string{"-type=o", "-targets=" + hostT + "," + d906, "-input=clang.o", "-input=d1", "-output=fat.o"}})
	if fat.Code != 0 {
		t.Fatalf("bundling: %s", fat.Stderr)
	}
	const (
		name, typ, flags, off, size, link, info, align, entsize = 0, 4, 8, 24, 32, 40, 44, 48, 56
	)
	type field struct {
		tag      string
		off, len int
		v        func(p elfPatcher, i int) uint64
	}
	fileLen := func(p elfPatcher, i int) uint64 { return uint64(len(p.b)) + 10 }
	fields := []field{
		{"name-out-of-range", name, 4, func(elfPatcher, int) uint64 { return 0xfffff }},
		{"offset-past-eof", off, 8, fileLen},
		{"size-past-eof", size, 8, func(p elfPatcher, i int) uint64 { return uint64(len(p.b)) * 2 }},
		{"offset-wraps", off, 8, func(elfPatcher, int) uint64 { return 0xffffffffffffff00 }},
		{"size-wraps", size, 8, func(elfPatcher, int) uint64 { return ^uint64(0) - 4 }},
		{"link-out-of-range", link, 4, func(p elfPatcher, i int) uint64 { return uint64(p.shnum() + 3) }},
		{"info-out-of-range", info, 4, func(p elfPatcher, i int) uint64 { return uint64(p.shnum() + 3) }},
		{"entsize-7", entsize, 8, func(elfPatcher, int) uint64 { return 7 }},
		{"offset-0", off, 8, func(elfPatcher, int) uint64 { return 0 }},
		{"type-progbits", typ, 4, func(elfPatcher, int) uint64 { return 1 }},
		{"type-nobits", typ, 4, func(elfPatcher, int) uint64 { return 8 }},
		{"type-unknown", typ, 4, func(elfPatcher, int) uint64 { return 0x12345678 }},
		{"flags-alloc", flags, 8, func(elfPatcher, int) uint64 { return 2 }},
		{"align-3", align, 8, func(elfPatcher, int) uint64 { return 3 }},
	}
	var cases []difftest.Case
	for _, host := range []string{"clang.o", "fat.o"} {
		data := files[host]
		if host == "fat.o" {
			data = fat.Files["fat.o"]
		}
		p := elfPatcher{data}
		shstrndx := int(binary.LittleEndian.Uint16(data[62:]))
		targets := []int{1, shstrndx, p.sectionIndex(4), p.sectionIndex(2), p.shnum() - 2, p.shnum() - 1}
		for _, i := range targets {
			for _, fl := range fields {
				bad := p.with(i, fl.off, fl.len, fl.v(p, i))
				in := map[string][]byte{"m.o": bad, "d1": files["d1"]}
				tag := fmt.Sprintf("%s s%d %s", host, i, fl.tag)
				cases = append(cases,
					difftest.Case{Name: tag + " bundle", Files: in, Args: []string{"-type=o", "-targets=" + hostT + "," + d906, "-input=m.o", "-input=d1", "-output=out.o"}})
				if host == "fat.o" {
					cases = append(cases,
						difftest.Case{Name: tag + " list", Files: in, Args: []string{"-type=o", "-list", "-input=m.o"}},
						difftest.Case{Name: tag + " unbundle", Files: in, Args: []string{"-type=o", "-unbundle", "-targets=" + hostT + "," + d906, "-input=m.o", "-output=h.o", "-output=d.o"}},
						difftest.Case{Name: tag + " unbundle device", Files: in, Args: []string{"-type=o", "-unbundle", "-targets=" + d906, "-input=m.o", "-output=d.o"}})
				}
			}
		}
		for _, h := range []struct {
			tag string
			off int
			v   uint16
		}{{"shstrndx-0", 62, 0}, {"shstrndx-xindex", 62, 0xffff}, {"shstrndx-past", 62, uint16(p.shnum() + 2)}, {"shnum-0", 60, 0}} {
			bad := append([]byte(nil), data...)
			binary.LittleEndian.PutUint16(bad[h.off:], h.v)
			in := map[string][]byte{"m.o": bad, "d1": files["d1"]}
			tag := host + " " + h.tag
			cases = append(cases,
				difftest.Case{Name: tag + " bundle", Files: in, Args: []string{"-type=o", "-targets=" + hostT + "," + d906, "-input=m.o", "-input=d1", "-output=out.o"}},
				difftest.Case{Name: tag + " list", Files: in, Args: []string{"-type=o", "-list", "-input=m.o"}},
				difftest.Case{Name: tag + " unbundle", Files: in, Args: []string{"-type=o", "-unbundle", "-targets=" + hostT + "," + d906, "-input=m.o", "-output=h.o", "-output=d.o"}})
		}
	}
	// The program header table of an object without program headers:
	// e_phoff past the end (an error even with no headers), odd (the
	// sections move), and a header count with a bad entry size.
	for _, host := range []string{"clang.o", "fat.o"} {
		data := files[host]
		if host == "fat.o" {
			data = fat.Files["fat.o"]
		}
		for _, h := range []struct {
			tag          string
			phoff        uint64
			phnum, phent uint16
		}{{"phoff-past", 1 << 40, 0, 0}, {"phoff-wraps", ^uint64(0), 0, 0}, {"phoff-5", 5, 0, 0}, {"phoff-173", 173, 0, 0}, {"phnum-1-phentsize-0", 64, 1, 0}, {"phnum-1-past", 1 << 20, 1, 56}} {
			bad := append([]byte(nil), data...)
			binary.LittleEndian.PutUint64(bad[32:], h.phoff)
			binary.LittleEndian.PutUint16(bad[54:], h.phent)
			binary.LittleEndian.PutUint16(bad[56:], h.phnum)
			in := map[string][]byte{"m.o": bad, "d1": files["d1"]}
			tag := host + " " + h.tag
			cases = append(cases,
				difftest.Case{Name: tag + " bundle", Files: in, Args: []string{"-type=o", "-targets=" + hostT + "," + d906, "-input=m.o", "-input=d1", "-output=out.o"}},
				difftest.Case{Name: tag + " unbundle", Files: in, Args: []string{"-type=o", "-unbundle", "-targets=" + hostT + "," + d906, "-input=m.o", "-output=h.o", "-output=d.o"}})
		}
	}
	// Single fields llvm-objcopy reads its own way: sh_entsize keeps 32
	// bits, a symbol table without a string table link, a terabyte
	// alignment (objcopy cannot allocate the output), symbols with an
	// unsupported reserved section index or SHN_XINDEX without a table,
	// and SHT_NOBITS sections of a shared library placed by address, not
	// by their (garbage) offsets.
	{
		p := elfPatcher{files["clang.o"]}
		symtab := p.sectionIndex(2)
		symOff := int(p.get(symtab, off, 8))
		withSym := func(v uint16) []byte {
			c := append([]byte(nil), p.b...)
			binary.LittleEndian.PutUint16(c[symOff+24*2+6:], v)
			return c
		}
		nullGlobal := append([]byte(nil), p.b...)
		nullGlobal[symOff+4] = 0x10 // st_info of symbol 0: STB_GLOBAL
		odd := map[string][]byte{
			"null-symbol-global":  nullGlobal,
			"align-32MiB":         p.with(2, align, 8, 1<<25),
			"entsize-upper-bits":  p.with(2, entsize, 8, 0x100000005),
			"symtab-link-0":       p.with(symtab, link, 4, 0),
			"align-1TiB":          p.with(2, align, 8, 1<<44),
			"symbol-shndx-ff05":   withSym(0xff05),
			"symbol-shndx-xindex": withSym(0xffff),
		}
		if so := files["lib.so"]; so != nil {
			q := elfPatcher{so}
			for i := 1; i < q.shnum(); i++ {
				if q.get(i, typ, 4) == 8 { // SHT_NOBITS
					odd[fmt.Sprintf("lib.so nobits %d garbage offset", i)] = q.with(i, off, 8, 0xff01010000005048)
					odd[fmt.Sprintf("lib.so nobits %d huge size", i)] = q.with(i, size, 8, 0x1000004)
				}
			}
		}
		for tag, bad := range odd {
			cases = append(cases, difftest.Case{Name: tag, Files: map[string][]byte{"m.o": bad, "d1": files["d1"]},
				Args: []string{"-type=o", "-targets=" + hostT + "," + d906, "-input=m.o", "-input=d1", "-output=out.o"}})
		}
	}
	// The symbol table's own string table (gcc keeps it apart from the
	// section names): empty, or not NUL-terminated.
	if g := files["gcc.o"]; g != nil {
		p := elfPatcher{g}
		str := int(p.get(p.sectionIndex(2), link, 4))
		end := int(p.get(str, off, 8) + p.get(str, size, 8))
		nonNUL := append([]byte(nil), g...)
		nonNUL[end-1] = 'x'
		for tag, bad := range map[string][]byte{"strtab-empty": p.with(str, size, 8, 0), "strtab-non-NUL": nonNUL} {
			cases = append(cases, difftest.Case{Name: "gcc.o " + tag, Files: map[string][]byte{"m.o": bad, "d1": files["d1"]},
				Args: []string{"-type=o", "-targets=" + hostT + "," + d906, "-input=m.o", "-input=d1", "-output=out.o"}})
		}
	}
	compare(t, ref, ours, cases)
}
