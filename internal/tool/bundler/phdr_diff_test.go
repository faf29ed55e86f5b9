package bundler_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// Executable hosts whose program header table no segment covers: a PT_PHDR
// entry with no file range (as yaml2obj writes it, for instance in LLVM's
// llvm-objdump/Offloading/fatbin-compress.test), or a table moved away
// from where the segments say. llvm-objcopy always writes the table, where
// it lays it out: in place, or moved down right after the segments before
// it. Bundling into such a host and extracting the host object from the
// fat binary, byte for byte, for ELF64 executables and shared libraries and
// an ELF32 executable.
func TestDiffObjectUncoveredProgramHeaders(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	clang := llvmref.Need(t, "clang")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.c"), []byte("int g = 5; int f(int x) { return x + g; } void _start(void) { for (;;); }\n"), 0o644)
	// PT_PHDR and the PT_LOADs are apart: no PT_LOAD holds the headers.
	os.WriteFile(filepath.Join(dir, "l.ld"), []byte("PHDRS { ph PT_PHDR PHDRS; text PT_LOAD; data PT_LOAD; stack PT_GNU_STACK; }\n"+
		"SECTIONS { . = 0x200000 + SIZEOF_HEADERS; .text : { *(.text*) } :text .data : { *(.data*) } :data }\n"), 0o644)
	link := []string{"-O1", "-nostdlib", "-fuse-ld=lld", "-Wl,-T,l.ld", "s.c", "-o"}
	for _, argv := range [][]string{
		append([]string{clang, "-static"}, append(link, "exe")...),
		append([]string{clang, "-shared", "-fPIC"}, append(link, "dyn.so")...),
		append([]string{clang, "--target=i686-linux-gnu", "-static"}, append(link, "exe32")...),
	} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	read := func(n string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	le := binary.LittleEndian
	// phdrs returns e_phoff, e_phnum and the entry size of an ELF file.
	phdrs := func(b []byte) (off, n, size int) {
		if b[4] == 2 {
			return int(le.Uint64(b[32:])), int(le.Uint16(b[56:])), 56
		}
		return int(le.Uint32(b[28:])), int(le.Uint16(b[44:])), 32
	}
	// unlisted clears the file range of the PT_PHDR entry.
	unlisted := func(b []byte) []byte {
		b = bytes.Clone(b)
		off, n, size := phdrs(b)
		for i := range n {
			p := b[off+i*size:]
			if le.Uint32(p) != 6 { // PT_PHDR
				continue
			}
			if size == 56 {
				clear(p[8:16])  // p_offset
				clear(p[32:40]) // p_filesz
			} else {
				clear(p[4:8])   // p_offset
				clear(p[16:20]) // p_filesz
			}
		}
		return b
	}
	// moved copies the table to the end of the file, skew bytes past an
	// address-aligned offset, and fills its old place with 0xee.
	moved := func(b []byte, skew int) []byte {
		b = bytes.Clone(b)
		off, n, size := phdrs(b)
		tab := bytes.Clone(b[off : off+n*size])
		for i := off; i < off+n*size; i++ {
			b[i] = 0xee
		}
		for len(b)%8 != 0 {
			b = append(b, 0)
		}
		b = append(b, make([]byte, skew)...)
		newOff := len(b)
		b = append(b, tab...)
		if size == 56 {
			le.PutUint64(b[32:], uint64(newOff))
		} else {
			le.PutUint32(b[28:], uint32(newOff))
		}
		return b
	}
	files := map[string][]byte{"d1": []byte("DEVICE")}
	var hosts []string
	for _, h := range []string{"exe", "dyn.so", "exe32"} {
		b := read(h)
		for name, data := range map[string][]byte{
			h:                     b, // covered by PT_PHDR: always right
			h + "-unlisted":       unlisted(b),
			h + "-moved":          moved(b, 0),
			h + "-moved-skew4":    moved(b, 4),
			h + "-unlisted-moved": moved(unlisted(b), 0),
		} {
			files[name] = data
			hosts = append(hosts, name)
		}
	}
	var cases []difftest.Case
	for _, h := range hosts {
		fat := difftest.Run(t, ref, difftest.Case{Files: files, Args: []string{"-type=o", "-targets=" + host + "," + gfx906, "-input=" + h, "-input=d1", "-output=fat"}})
		if fat.Code != 0 {
			t.Fatalf("bundling %s: %s", h, fat.Stderr)
		}
		cases = append(cases,
			difftest.Case{Name: h + " bundle", Files: files, Args: []string{"-type=o", "-targets=" + host + "," + gfx906, "-input=" + h, "-input=d1", "-output=fat"}},
			difftest.Case{Name: h + " unbundle host", Files: map[string][]byte{"fat": fat.Files["fat"]},
				Args: []string{"-type=o", "-unbundle", "-targets=" + gfx906 + "," + host, "-input=fat", "-output=d", "-output=h"}},
			// The host alone, not bundled first: the input's table as it is.
			difftest.Case{Name: h + " unbundle plain", Files: files,
				Args: []string{"-type=o", "-unbundle", "-allow-missing-bundles", "-targets=" + host, "-input=" + h, "-output=h"}},
		)
	}
	compare(t, ref, ours, cases)
}
