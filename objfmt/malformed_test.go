package objfmt

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

func TestMalformed(t *testing.T) {
	elf := readFile(t, "testdata/clang-O1.fat.o") // shoff 0x398... read below
	f, err := parseELF(bytes.NewReader(elf), int64(len(elf)))
	if err != nil {
		t.Fatal(err)
	}
	sh := int(f.shoff)
	shdr := func(i, field int) int { return sh + 64*i + field }
	symtab := 13
	cases := []struct {
		name string
		data []byte
		want string // in the error text
	}{
		{"empty", nil, "too small"},
		{"not-elf", []byte("hello, world, this is text"), "bad magic"},
		{"truncated-header", elf[:40], "ELF header"},
		{"section-table-past-eof", patched(elf, 40, 0xff, 0xff, 0xff), "section header table"},
		{"huge-section-count", patched(patched(elf, 60, 0, 0), shdr(0, 32), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), "section header table of"},
		{"bad-shentsize", patched(elf, 58, 0x30), "e_shentsize"},
		{"shstrndx-out-of-range", patched(elf, 62, 0x63), "string table index 99"},
		{"name-offset-out-of-range", patched(elf, shdr(2, 0), 0xff, 0xff), "name offset 0xffff"},
		{"section-past-eof", patched(elf, shdr(2, 24), 0xff, 0xff, 0xff), "past the end of the file"},
		{"symtab-entsize", patched(elf, shdr(symtab, 56), 16), "sh_entsize 16"},
		{"symtab-size", patched(elf, shdr(symtab, 32), 0xd9), "not a multiple"},
		{"symtab-link", patched(elf, shdr(symtab, 40), 0x50), "not a string table"},
		{"two-symtabs", patched(elf, shdr(11, 4), 2), "multiple SHT_SYMTAB"},
		{"symbol-name-out-of-range", patched(elf, int(f.secs[symtab].off)+24, 0xff, 0xff, 0xff), "symbol 1: name offset"},
		{"symbol-section-out-of-range", patched(elf, int(f.secs[symtab].off)+24*2+6, 0x00, 0xfe), "section index 65024"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := bytes.NewReader(c.data)
			_, err1 := ReadBundles(r, int64(len(c.data)))
			err2 := StripBundles(io.Discard, r, int64(len(c.data)))
			err3 := AddSections(io.Discard, r, int64(len(c.data)), goldenSections(t))
			var firstErr error
			for _, e := range []error{err1, err2, err3} {
				if e != nil {
					firstErr = e
					break
				}
			}
			if firstErr == nil {
				t.Fatalf("no error")
			}
			for _, e := range []error{err1, err2, err3} {
				if e != nil && !strings.Contains(e.Error(), c.want) {
					t.Errorf("error %q does not say %q", e, c.want)
				}
			}
			var fe *FormatError
			if !errors.As(firstErr, &fe) {
				t.Errorf("error %v is not a *FormatError", firstErr)
			}
		})
	}
}

// TestOverlappingSections: sections sharing bytes are not an error for
// llvm-objcopy either; the writer lays them out one after the other.
func TestOverlappingSections(t *testing.T) {
	elf := readFile(t, "testdata/clang-O1.host.o")
	f, _ := parseELF(bytes.NewReader(elf), int64(len(elf)))
	bad := patched(elf, int(f.shoff)+64*4+24, 0x40) // .data at .text's offset
	var out bytes.Buffer
	if err := AddSections(&out, bytes.NewReader(bad), int64(len(bad)), goldenSections(t)); err != nil {
		t.Fatal(err)
	}
	bs, err := ReadBundles(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil || len(bs) != 3 {
		t.Fatalf("ReadBundles = %v, %v", bs, err)
	}
}

func FuzzReadBundles(f *testing.F) {
	// The smaller golden files: large seeds slow the fuzzer's minimisation.
	for _, name := range []string{"removal.fat.o", "removal.strip.o", "clang-O1.fat.o",
		"clang-i686.fat.o", "clang-exe-i686.fat.o", "clang-exe.fat.o", "clang-aarch64_be.fat.o",
		"coff-x86_64.fat.obj"} {
		f.Add(readFile(f, filepath.Join("testdata", name)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		bs, err := ReadBundles(r, int64(len(b)))
		if err == nil {
			for _, x := range bs {
				if x.Offset < 0 || x.Size < 0 || x.Offset+x.Size > int64(len(b)) {
					t.Fatalf("bundle %+v outside the %d-byte input", x, len(b))
				}
			}
		}
		IsObject(r, int64(len(b)))
		var out bytes.Buffer
		if err := StripBundles(&out, r, int64(len(b))); err == nil {
			// The result is an ELF file without bundles.
			o := out.Bytes()
			if bs, err := ReadBundles(bytes.NewReader(o), int64(len(o))); err != nil || len(bs) != 0 {
				t.Fatalf("stripped output: bundles %v, error %v", bs, err)
			}
		}
		if len(b) < 1<<16 {
			AddSections(io.Discard, r, int64(len(b)), []Section{{Name: BundlePrefix + "x", Data: bytes.NewReader([]byte{0}), Size: 1}})
		}
	})
}
