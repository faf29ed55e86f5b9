package offloadbin

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/magic"
)

func extractFile(t *testing.T, name string) ([]Found, error) {
	t.Helper()
	path := filepath.Join("testdata", "inputs", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fi, _ := f.Stat()
	return Extract(f, fi.Size(), path, V1Only())
}

// Image counts and containers as llvm-offload-binary 22 finds them (counts
// checked with the 22.1.8 tool when the inputs were made).
func TestExtractContainers(t *testing.T) {
	in := func(n string) string { return filepath.Join("testdata", "inputs", n) }
	tests := []struct {
		name       string
		containers []string
	}{
		{"p2.bin", []string{in("p2.bin"), in("p2.bin")}},
		{"knew.o", []string{in("knew.o"), in("knew.o")}},
		{"omp.o", []string{in("omp.o")}},
		{"reloc.o", slices.Repeat([]string{in("reloc.o")}, 3)},
		{"knew.so", slices.Repeat([]string{in("knew.so")}, 2)},
		{"knew.exe", slices.Repeat([]string{in("knew.exe")}, 2)},
		{"inc_elf64.o", slices.Repeat([]string{in("inc_elf64.o")}, 4)},
		{"inc_elf32.o", slices.Repeat([]string{in("inc_elf32.o")}, 4)},
		{"inc_elf64be.o", slices.Repeat([]string{in("inc_elf64be.o")}, 4)},
		{"inc_elf32be.o", slices.Repeat([]string{in("inc_elf32be.o")}, 4)},
		{"inc_coff.obj", slices.Repeat([]string{in("inc_coff.obj")}, 4)},
		{"inc_coff_arm64.obj", slices.Repeat([]string{in("inc_coff_arm64.obj")}, 4)},
		{"inc_coff_i386.obj", slices.Repeat([]string{in("inc_coff_i386.obj")}, 4)},
		{"omp_win.obj", []string{in("omp_win.obj")}},
		{"omp_big.obj", []string{in("omp_big.obj")}}, // omp_win.obj as a COFF bigobj (tobigobj.py)
		{"inc_macho.o", nil},
		{"khost.bc", slices.Repeat([]string{in("khost.bc")}, 2)},
		{"libk.a", []string{"knew.o", "knew.o", "omp.o"}},
		{"libk_bsd.a", []string{"knew.o", "knew.o", "omp.o"}},
		{"libk_thin.a", []string{"knew.o", "knew.o", "omp.o"}},
		{"libmix.a", []string{"r.bin", "r.bin", "khost.bc", "khost.bc", "knew.o", "knew.o"}},
		{"libnest.a", []string{"knew.o", "knew.o", "omp.o", "omp.o"}},
		{"k.hip", nil},
	}
	for _, tt := range tests {
		found, err := extractFile(t, tt.name)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var got []string
		for _, f := range found {
			got = append(got, f.Container)
		}
		if !slices.Equal(got, tt.containers) {
			t.Errorf("%s: containers %q, want %q", tt.name, got, tt.containers)
		}
	}
}

func TestExtractKnew(t *testing.T) {
	found, err := extractFile(t, "knew.o")
	if err != nil || len(found) != 2 {
		t.Fatalf("%d images, %v", len(found), err)
	}
	for i, arch := range []string{"gfx906", "gfx90a:xnack+"} {
		b := found[i]
		if b.Arch() != arch || b.Triple() != "amdgcn-amd-amdhsa" || b.OffloadKind != OffloadHIP || b.ImageKind != ImageBitcode {
			t.Errorf("image %d: %+v", i, b.Strings)
		}
		head := make([]byte, 4)
		b.Image().ReadAt(head, 0)
		if !IsBitcode(head) {
			t.Errorf("image %d does not start with bitcode magic: % x", i, head)
		}
	}
}

func TestIdentify(t *testing.T) {
	tests := []struct {
		head string
		want FileType
	}{
		{"", TypeUnknown},
		{"\x10\xff\x10", TypeUnknown},
		{"\x10\xff\x10\xad", TypeOffloadBinary},
		{"BC\xc0\xde", TypeBitcode},
		{"\xde\xc0\x17\x0b", TypeBitcode},
		{"!<arch>\n", TypeArchive},
		{"!<thin>\n", TypeArchive},
		{"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00", TypeELF},
		{"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00", TypeUnknown}, // core
		{"\x7fELF\x02\x02\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03", TypeELF},     // big-endian DYN
		{"\x7fELF\x02\x01\x01", TypeUnknown},
		{"\x64\x86\x00\x00", TypeCOFF},
		{"\x64\xaa\x00\x00", TypeCOFF},
		{"\x4c\x01\x00\x00", TypeCOFF},
		{"\x00\x00\x00\x00", TypeCOFF},
		{"\x00\x00\xff\xff", TypeUnknown},
		{"\x00\x02\x00\x00", TypeUnknown},
		{"MZ\x90\x00", TypeUnknown},
		{"\xcf\xfa\xed\xfe", TypeUnknown},
		// COFF machines as LLVM 22 identifies them (magic.Identify).
		{"\xf0\x01\x00\x00", TypeCOFF}, // PowerPC
		{"\x66\x01\x00\x00", TypeCOFF}, // MIPS R4000
		{"\x83\x02\x00\x00", TypeCOFF},
		{"\x50\x01\x00\x00", TypeCOFF},
		{"\xc0\x01\x00\x00", TypeUnknown}, // ARM
		{"\xc2\x01\x00\x00", TypeUnknown}, // Thumb
		{"\x69\x01\x00\x00", TypeUnknown}, // WCE MIPS v2
		{"\x00\x00\xff\xff\x02\x00\x64\x86\x00\x00\x00\x00" + magic.BigObjClassID, TypeCOFF},
		{"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00", TypeUnknown},
		{"__CLANG_OFFLOAD_BUNDLE__\x01", TypeUnknown},
	}
	for _, tt := range tests {
		if got := Identify([]byte(tt.head)); got != tt.want {
			t.Errorf("Identify(%q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

func patchAt(data []byte, off int, b ...byte) []byte {
	out := bytes.Clone(data)
	copy(out[off:], b)
	return out
}

func TestExtractHostileContainers(t *testing.T) {
	knew, _ := os.ReadFile(filepath.Join("testdata", "inputs", "knew.o"))
	tests := []struct {
		name string
		data []byte
		msg  string // LLVM's message; "" for no error
	}{
		{"class", patchAt(knew, 4, 3), "Invalid ELF class"},
		{"data", patchAt(knew, 5, 3), "Invalid ELF data"},
		{"short", knew[:40], "invalid buffer: the size (40) is smaller than an ELF header (64)"},
		{"shentsize", patchAt(knew, 0x3a, 32, 0), "invalid e_shentsize in ELF header: 32"},
		{"shoff", patchAt(knew, 0x28, 0x20, 0x44), "section header table goes past the end of the file: e_shoff = 0x4420"},
		{"shoff zero", patchAt(knew, 0x28, 0, 0, 0, 0, 0, 0, 0, 0), ""},
		{"zero bytes", make([]byte, 100), ""},
		{"coff junk", []byte("\x64\x86junkjunk"), ErrTruncated.Error()},
	}
	for _, tt := range tests {
		_, err := Extract(bytes.NewReader(tt.data), int64(len(tt.data)), tt.name, V1Only())
		got := ""
		if err != nil {
			got = fmterr.LLVMMessage(err)
		}
		if got != tt.msg {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.msg)
		}
	}
	// A corrupt OffloadBinary inside an archive fails the whole extraction.
	lib, _ := os.ReadFile(filepath.Join("testdata", "inputs", "libmix.a"))
	i := bytes.Index(lib, []byte(Magic))
	bad := patchAt(lib, i+4, 9)
	if _, err := Extract(bytes.NewReader(bad), int64(len(bad)), "libmix.a", V1Only()); !errors.Is(err, ErrInvalid) {
		t.Errorf("corrupt member: %v", err)
	}
}
