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
		{"huge-section-count", patched(patched(elf, 60, 0, 0), shdr(0, 32), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), "invalid number of sections specified in the NULL section's sh_size field"},
		{"bad-shentsize", patched(elf, 58, 0x30), "e_shentsize"},
		{"shstrndx-out-of-range", patched(elf, 62, 0x63), "string table index 99"},
		{"name-offset-out-of-range", patched(elf, shdr(2, 0), 0xff, 0xff), "a section [index 2] has an invalid sh_name (0xffff) offset which goes past the end of the section name string table"},
		{"section-past-eof", patched(elf, shdr(2, 24), 0xff, 0xff, 0xff), "section [index 2] has a sh_offset (0xffffff) + sh_size (0xa) that is greater than the file size (0x8a8)"},
		{"symtab-entsize", patched(elf, shdr(symtab, 56), 16), "section [index 13] has invalid sh_entsize: expected 24, but got 16"},
		{"symtab-size", patched(elf, shdr(symtab, 32), 0xd9), "section [index 13] has an invalid sh_size (217) which is not a multiple of its sh_entsize (24)"},
		{"symtab-link", patched(elf, shdr(symtab, 40), 0x50), "Symbol table has link index of 80 which is not a valid index"},
		{"two-symtabs", patched(elf, shdr(11, 4), 2), "found multiple SHT_SYMTAB sections"},
		{"symbol-name-out-of-range", patched(elf, int(f.secs[symtab].off)+24, 0xff, 0xff, 0xff), "st_name (0xffffff) is past the end of the string table of size 0x12c"},
		{"phoff-past-eof", patched(elf, 32, 0, 0, 0, 0, 0, 0, 0, 0x80), "program headers are longer than binary of size 2216: e_phoff = 0x8000000000000000, e_phnum = 0, e_phentsize = 0"},
		{"phentsize", patched(elf, 54, 0, 0, 1, 0), "invalid e_phentsize: 0"},
		{"phoff-wraps", patched(patched(elf, 32, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), 54, 56, 0, 1, 0), "program headers are longer than binary of size 2216: e_phoff = 0xffffffffffffffff, e_phnum = 1, e_phentsize = 56"},
		{"symbol-section-out-of-range", patched(elf, int(f.secs[symtab].off)+24*2+6, 0x00, 0xfe), "symbol '' is defined has invalid section index 65024"},
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
			var le *LLVMError
			if !errors.As(firstErr, &fe) && !errors.As(firstErr, &le) {
				t.Errorf("error %v is neither a *FormatError nor an *LLVMError", firstErr)
			}
			if !errors.Is(firstErr, ErrMalformed) {
				t.Errorf("error %v is not ErrMalformed", firstErr)
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
		// The layout a hostile header asks for can be gigabytes of padding
		// (llvm-objcopy would write it too): the output is capped here.
		out := &cappedBuffer{max: 64 << 20}
		if err := StripBundles(out, r, int64(len(b))); err == nil {
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

// An ELF file without a section header table (e_shoff 0, e_shstrndx 0):
// llvm-objcopy 22 writes none either, and the contents of added sections
// follow the rest of the file, unnamed. Observed: a relocatable object
// comes out as its header (e_shentsize 0) followed by the payloads.
func TestNoSectionHeaderTable(t *testing.T) {
	elf := readFile(t, "testdata/clang-O1.host.o")
	bad := append([]byte(nil), elf...)
	clear(bad[40:48]) // e_shoff
	clear(bad[58:64]) // e_shentsize, e_shnum, e_shstrndx
	var out bytes.Buffer
	secs := []Section{
		{Name: BundlePrefix + "host-x86_64-unknown-linux-gnu-", Data: bytes.NewReader([]byte{0}), Size: 1},
		{Name: BundlePrefix + "hip-amdgcn-amd-amdhsa--gfx906", Data: bytes.NewReader([]byte("DEV")), Size: 3},
	}
	if err := AddSections(&out, bytes.NewReader(bad), int64(len(bad)), secs); err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte(nil), bad[:64]...), "\x00DEV"...)
	sameBytes(t, "AddSections", out.Bytes(), want)
	out.Reset()
	if err := StripBundles(&out, bytes.NewReader(bad), int64(len(bad))); err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "StripBundles", out.Bytes(), bad[:64])
	bs, err := ReadBundles(bytes.NewReader(bad), int64(len(bad)))
	if err != nil || len(bs) != 0 {
		t.Errorf("ReadBundles = %v, %v; want no bundles", bs, err)
	}
	// With a section name table index but no sections, llvm-objcopy
	// refuses the file.
	bad[62] = 1
	err = StripBundles(io.Discard, bytes.NewReader(bad), int64(len(bad)))
	if err == nil || err.Error() != "e_shstrndx field value 1 in elf header  is invalid" {
		t.Errorf("StripBundles with e_shstrndx 1: %v", err)
	}
}

// TestSegmentPastEnd: a program header whose contents run past the end of
// the file is llvm-objcopy's error, in its words.
func TestSegmentPastEnd(t *testing.T) {
	exe := readFile(t, "testdata/clang-exe.fat.o")
	bad := bytes.Clone(exe)
	// The first program header's p_filesz (Elf64_Phdr at e_phoff=64).
	copy(bad[64+32:], []byte{0, 0, 0, 0, 0, 0, 0x4c, 0x02})
	err := StripBundles(io.Discard, bytes.NewReader(bad), int64(len(bad)))
	want := "program header with offset 0x40 and file size 0x24c000000000000 goes past the end of the file"
	var le *LLVMError
	if !errors.As(err, &le) || le.Msg != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// cappedBuffer is a bytes.Buffer that refuses to grow past max.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.Len()+len(p) > c.max {
		return 0, errOutputCap
	}
	return c.Buffer.Write(p)
}

var errOutputCap = errors.New("test output cap")
