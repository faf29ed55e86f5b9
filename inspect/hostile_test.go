package inspect

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/test/llvmref"
)

func realBytes(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sectionHeader returns the file offset of the named section's header in a
// little-endian ELF64 file.
func sectionHeader(t *testing.T, b []byte, name string) int64 {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	shoff := int64(binary.LittleEndian.Uint64(b[40:]))
	for i, s := range f.Sections {
		if s.Name == name {
			return shoff + int64(i)*64
		}
	}
	t.Fatalf("no section %s", name)
	return 0
}

// Damaged real files: the error names the file, the container and the
// field; what is intact is still listed.
func TestHostileRealFiles(t *testing.T) {
	le := binary.LittleEndian
	for _, c := range []struct {
		name, file string
		damage     func(t *testing.T, b []byte) []byte
		nobj       int
		errSub     string
	}{
		{"fatbin offset past EOF", "libmulti.so", func(t *testing.T, b []byte) []byte {
			le.PutUint64(b[sectionHeader(t, b, ".hip_fatbin")+24:], 1<<40)
			return b
		}, 0, "section"},
		{"fatbin size past EOF", "libmulti-ccob.so", func(t *testing.T, b []byte) []byte {
			le.PutUint64(b[sectionHeader(t, b, ".hip_fatbin")+32:], 1<<40)
			return b
		}, 0, "past the end of the file"},
		{"second CCOB's uncompressed size lies", "libmulti-ccob.so", func(t *testing.T, b []byte) []byte {
			le.PutUint64(b[0x2000+16:], 1<<50)
			return b
		}, 4, "uncompressed size"},
		{"second bundle's entry offset lies", "libmulti.so", func(t *testing.T, b []byte) []byte {
			i := 0x8000 + bytes.Index(b[0x8000:], []byte("hipv4-amdgcn-amd-amdhsa--gfx906")) - 24
			le.PutUint64(b[i:], 1<<60)
			return b
		}, 11, "entry 1"},
		{"archive cut inside the second member", "librdc.a", func(t *testing.T, b []byte) []byte {
			return b[:len(b)-5000]
		}, 4, "member 1"},
		{"archive member size past EOF", "librdc.a", func(t *testing.T, b []byte) []byte {
			i := bytes.LastIndex(b, []byte("k3.o/")) + 48
			copy(b[i:], "9999999999")
			return b
		}, 4, "member 1"},
		{"OffloadBinary size lies", "packaged.bin", func(t *testing.T, b []byte) []byte {
			le.PutUint64(b[8:], 1<<40)
			return b
		}, 0, "offload binary 0"},
		{"second OffloadBinary image past its binary", "packaged.bin", func(t *testing.T, b []byte) []byte {
			second := int(le.Uint64(b[8:]))
			second = (second + 7) &^ 7
			entry := second + int(le.Uint64(b[second+16:]))
			le.PutUint64(b[entry+32:], 1<<40) // image size
			return b
		}, 1, "offload binary 1"},
		{"text bundle without END", "kernel.ll", func(t *testing.T, b []byte) []byte {
			i := bytes.LastIndex(b, []byte("__END__"))
			return b[:i-20]
		}, 3, "no END marker"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.damage(t, bytes.Clone(realBytes(t, c.file)))
			l := Read(bytes.NewReader(b), int64(len(b)), c.file, nil)
			if len(l.Errors) == 0 {
				t.Fatalf("no error; %d objects", len(l.Objects))
			}
			if len(l.Objects) != c.nobj {
				t.Errorf("%d objects, want %d: %q\n%v", len(l.Objects), c.nobj, ids(l), l.Errors)
			}
			msg := l.Errors[0].Error()
			if !strings.HasPrefix(msg, c.file) || !strings.Contains(msg, c.errSub) {
				t.Errorf("error %q: want the file and %q", msg, c.errSub)
			}
			var e *Error
			if !errors.As(l.Errors[0], &e) || e.Offset < 0 && e.InnerOffset < 0 {
				t.Errorf("error %q has no offset", msg)
			}
		})
	}
}

// A thin archive's members are read only below its folder: "../x.o" and
// absolute names are reported as damage, never opened.
func TestThinArchiveEscape(t *testing.T) {
	arTool := llvmref.Need(t, "llvm-ar")
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	obj, err := os.ReadFile(filepath.Join(realDir, "hip-nonrdc.o"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sub, "a.o"), obj, 0o644)
	os.WriteFile(filepath.Join(dir, "secret.o"), obj, 0o644)
	if res := llvmref.Run(t, sub, nil, nil, arTool, "rcT", "thin.a", "a.o", "../secret.o"); res.Code != 0 {
		t.Fatalf("llvm-ar: %s", res.Stderr)
	}
	l, err := ReadFile(filepath.Join(sub, "thin.a"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if len(l.Errors) != 1 || !errors.Is(l.Errors[0], ar.ErrInsecurePath) {
		t.Errorf("errors %v, want one insecure path", l.Errors)
	}
	for _, o := range l.Objects {
		if strings.Contains(strings.Join(o.Path, " "), "secret") {
			t.Errorf("read %s", o.Where())
		}
	}
	if len(l.Devices()) != 3 {
		t.Errorf("%d device objects from a.o, want 3", len(l.Devices()))
	}
}

// A shared library cut in half is reported at the header field whose
// table it lost, not as an unreadable ELF header.
func TestHalfELF(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(realDir, "libmulti.so"))
	if err != nil {
		t.Fatal(err)
	}
	half := data[:len(data)/2]
	l := Read(bytes.NewReader(half), int64(len(half)), "half.so", nil)
	if len(l.Errors) != 1 || !errors.Is(l.Errors[0], ErrTruncated) || l.Errors[0].Offset != 40 || !strings.Contains(l.Errors[0].Error(), "section header table") {
		t.Errorf("%v", l.Errors)
	}
}
