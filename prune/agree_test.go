package prune

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/ar"
)

// prune says a file holds no device code to rewrite only when inspect
// lists none in it: device code where prune does not rewrite it is refused,
// never passed on whole (FuzzRewrite found an archive member whose e_type
// was not one prune rewrites, kept unpruned while the report said its
// sibling's gfx906 was dropped).
func TestNothingOnlyWhereInspectAgrees(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(realDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// An ELF of an e_type prune does not rewrite, its bundle sections
	// listed by inspect.
	oddType := func(b []byte) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint16(b[16:], 0x100e)
		return b
	}
	// .hip_fatbin renamed: inspect finds its bundles by their magic.
	renamed := bytes.ReplaceAll(read("newdriver-nonrdc.o"), []byte(".hip_fatbin\x00"), []byte(".hip_fatbix\x00"))

	// librdc.a with its second member's e_type changed, as the fuzzer had it.
	var members []ar.NewMember
	a, err := ar.NewReader(bytes.NewReader(read("librdc.a")), int64(len(read("librdc.a"))), "librdc.a")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		m, err := a.Next()
		if err != nil {
			break
		}
		sr, err := m.Open()
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, sr.Size())
		sr.ReadAt(b, 0)
		if i == 1 {
			b = oddType(b)
		}
		members = append(members, ar.NewMember{Name: m.Name, Data: bytes.NewReader(b), Size: int64(len(b))})
	}
	a.Close()
	var arc bytes.Buffer
	if err := ar.WriteGNU(&arc, members); err != nil {
		t.Fatal(err)
	}
	if len(members) != 2 {
		t.Fatalf("librdc.a has %d members, want 2", len(members))
	}

	var cos bytes.Buffer
	co := read("gfx90a.co")
	if err := ar.WriteGNU(&cos, []ar.NewMember{{Name: "a.co", Data: bytes.NewReader(co), Size: int64(len(co))}}); err != nil {
		t.Fatal(err)
	}

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name    string
		in      []byte
		refused string // "" for no device code, "-" for code kept
	}{
		{"rdc.o of another e_type", oddType(read("rdc.o")), "hip-amdgcn-amd-amdhsa--gfx906 in bundle section"},
		{"an ID with a terminal escape", oddType(bytes.ReplaceAll(read("rdc.o"), []byte("--gfx906\x00"), []byte("--gfx9\x1b6\x00"))), "hip-amdgcn-amd-amdhsa--gfx9"},
		{".hip_fatbin renamed", renamed, "hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack- in .hip_fatbix"},
		{"archive member of another e_type", arc.Bytes(), "member " + members[1].Name},
		{"COFF with bundles", read("coff-fat.obj"), "COFF and PE files are not rewritten"},
		{"32-bit ELF with .hip_fatbin", elf32(".hip_fatbin", read("libmulti.so")[0x1000:0x8000]), "only 64-bit"},
		{"a code object itself, kept", read("gfx90a.co"), "-"},
		{"an archive of code objects, kept", cos.Bytes(), "-"},
		{"a 32-bit host object", elf32(".text", []byte{0xc3}), ""},
		{"a COFF file without device code", []byte{0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, ""},
		{"a host executable", host, ""},
		{"LLVM IR text", []byte("target triple = \"amdgcn-amd-amdhsa\"\n"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := &memOut{}
			_, err := Rewrite(out, bytes.NewReader(c.in), int64(len(c.in)), c.name, Options{Keep: targets("gfx90a")})
			if c.refused == "-" {
				// Device code, kept: written as it is.
				if err != nil || !bytes.Equal(out.b, c.in) {
					t.Fatalf("got %v, %d bytes of %d", err, len(out.b), len(c.in))
				}
				return
			}
			if c.refused == "" {
				if !errors.Is(err, ErrNoDeviceCode) {
					t.Fatalf("got %v, want no device code", err)
				}
				return
			}
			if err == nil || errors.Is(err, ErrNoDeviceCode) || !errors.Is(err, ErrRefused) {
				t.Fatalf("got %v, want a refusal naming the device code", err)
			}
			if !strings.Contains(err.Error(), c.refused) || strings.ContainsRune(err.Error(), 0x1b) {
				t.Fatalf("%v\ndoes not name %q", err, c.refused)
			}
		})
	}
}

// elf32 builds a 32-bit x86 relocatable object of one section holding data.
func elf32(name string, data []byte) []byte {
	le := binary.LittleEndian
	shstr := "\x00" + name + "\x00.shstrtab\x00"
	b := make([]byte, 52)
	copy(b, "\x7fELF\x01\x01\x01")
	le.PutUint16(b[16:], 1) // ET_REL
	le.PutUint16(b[18:], 3) // EM_386
	le.PutUint32(b[20:], 1)
	dataOff := len(b)
	b = append(b, data...)
	strOff := len(b)
	b = append(b, shstr...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	le.PutUint32(b[32:], uint32(len(b))) // e_shoff
	le.PutUint16(b[40:], 52)
	le.PutUint16(b[46:], 40)
	le.PutUint16(b[48:], 3) // e_shnum
	le.PutUint16(b[50:], 2) // e_shstrndx
	sh := func(nameOff, typ, flags, off, size int) {
		h := make([]byte, 40)
		le.PutUint32(h[0:], uint32(nameOff))
		le.PutUint32(h[4:], uint32(typ))
		le.PutUint32(h[8:], uint32(flags))
		le.PutUint32(h[16:], uint32(off))
		le.PutUint32(h[20:], uint32(size))
		le.PutUint32(h[32:], 1)
		b = append(b, h...)
	}
	sh(0, 0, 0, 0, 0)
	sh(1, 1, 2, dataOff, len(data))
	sh(2+len(name), 3, 0, strOff, len(shstr))
	return b
}
