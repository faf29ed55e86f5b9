package ar

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func addFileSeeds(f *testing.F, patterns ...string) {
	for _, p := range patterns {
		files, _ := filepath.Glob(p)
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
}

// FuzzReader: any input gives members or an error, never a panic, and
// never a member whose data lies outside the archive.
func FuzzReader(f *testing.F) {
	addFileSeeds(f, "testdata/golden/*.a", "testdata/read/*.a", "testdata/big/*.a")
	f.Add([]byte("!<arch>\n"))
	f.Add([]byte("!<thin>\n/0              0           0     0     644     6         `\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), "fuzz.a")
		if err != nil {
			return
		}
		r.Symbols()
		for {
			m, err := r.Next()
			if err != nil {
				if err != io.EOF {
					if _, ok := err.(*FormatError); !ok {
						t.Fatalf("error of type %T: %v", err, err)
					}
				}
				break
			}
			if m.Offset < 0 { // thin: data on disk, not opened here
				continue
			}
			if m.Offset+m.Size > int64(len(data)) || m.Size < 0 {
				t.Fatalf("member %q: data [%d, +%d) outside a %d-byte archive", m.Name, m.Offset, m.Size, len(data))
			}
			sr, err := m.Open()
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, sr)
		}
	})
}

// FuzzELFSymbols: ELF symbol extraction never panics.
func FuzzELFSymbols(f *testing.F) {
	addFileSeeds(f, "testdata/members/*.o")
	f.Fuzz(func(t *testing.T, data []byte) {
		ELFSymbols(bytes.NewReader(data), int64(len(data)))
	})
}

// FuzzWriteRead: what WriteGNU writes reads back as the same members.
func FuzzWriteRead(f *testing.F) {
	f.Add("a.o", []byte("\x7fELF"), "averyveryverylongname.o", []byte("odd"), true)
	f.Add("../x/y.o", []byte{}, "y", []byte("hello\n"), false)
	// An inline name starting with '#' ends at its first space, for
	// llvm-ar as for us: "# 0" is written "# 0/" and read back as "#".
	f.Add("# 0", []byte("x"), "#a b", []byte("y"), false)
	f.Fuzz(func(t *testing.T, n1 string, d1 []byte, n2 string, d2 []byte, dup bool) {
		for _, n := range []string{n1, n2} {
			// Names LLVM could never produce: empty, or with a newline
			// (which ends a long name), or inline names that would be
			// misread ("/..." or with trailing spaces).
			// "#1", written inline as "#1/", is read as a BSD long
			// name whose length is missing: llvm-ar 22 writes such an
			// archive (`llvm-ar rc x.a '#1'`) and cannot read it back
			// either, and our writer makes LLVM's bytes.
			if n == "" || bytes.ContainsAny([]byte(n), "\n\x00") || n[0] == '/' || n[len(n)-1] == ' ' || (len(n) >= 3 && n[:3] == "#1/") || n == "#1" {
				return
			}
		}
		fs := []file{{n1, d1}, {n2, d2}}
		if dup {
			fs = append(fs, file{n1, d2})
		}
		var b bytes.Buffer
		if err := WriteGNU(&b, newMembers(fs)); err != nil {
			return // e.g. malformed ELF or unsupported object
		}
		r, err := NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()), "w.a")
		if err != nil {
			t.Fatal(err)
		}
		ms, err := r.Members()
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != len(fs) {
			t.Fatalf("%d members, want %d", len(ms), len(fs))
		}
		for i, m := range ms {
			sr, _ := m.Open()
			got, _ := io.ReadAll(sr)
			if want := readBackName(fs[i].name); m.Name != want || !bytes.Equal(got, fs[i].data) {
				t.Fatalf("member %d: %q %q, want %q %q", i, m.Name, got, want, fs[i].data)
			}
		}
	})
}

// readBackName is the name LLVM's archive reader (llvm-ar t, checked with
// LLVM 22) gives a member written under name: an inline name (under 16
// bytes, no '/') that starts with '#' ends at its first space, as GNU names
// starting with '/' or '#' do.
func readBackName(name string) string {
	if len(name) < 16 && !strings.Contains(name, "/") && name[0] == '#' {
		if i := strings.IndexByte(name, ' '); i >= 0 {
			return name[:i]
		}
	}
	return name
}

// FuzzCOFFSymbols: no panic and no unbounded allocation on any COFF input.
func FuzzCOFFSymbols(f *testing.F) {
	addFileSeeds(f, "testdata/members/*.obj")
	f.Fuzz(func(t *testing.T, data []byte) {
		coffSymbols(bytes.NewReader(data), int64(len(data)))
	})
}
