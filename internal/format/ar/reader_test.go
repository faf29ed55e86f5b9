package ar

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func openArchive(t *testing.T, path string, opts ...Option) *Reader {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), path, opts...)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestReadFormats reads archives made by llvm-ar (GNU, BSD, Darwin, thin)
// and binutils ar (GNU, thin) and compares members and symbol tables with
// what llvm-ar t and llvm-nm --print-armap listed (testdata/read/*.want).
func TestReadFormats(t *testing.T) {
	wantKind := map[string]Kind{"gnu": GNU, "gnu-binutils": GNU, "bsd": BSD, "bsd-nosymtab": BSD, "darwin": BSD, "thin": Thin, "gnu-binutils-thin": Thin}
	archives, _ := filepath.Glob("testdata/read/*.a")
	if len(archives) == 0 {
		t.Fatal("no archives in testdata/read")
	}
	for _, path := range archives {
		name := strings.TrimSuffix(filepath.Base(path), ".a")
		t.Run(name, func(t *testing.T) {
			wantText, err := os.ReadFile(strings.TrimSuffix(path, ".a") + ".want")
			if err != nil {
				t.Fatal(err)
			}
			r := openArchive(t, path)
			if r.Kind() != wantKind[name] {
				t.Errorf("Kind = %v, want %v", r.Kind(), wantKind[name])
			}
			ms, err := r.Members()
			if err != nil {
				t.Fatal(err)
			}
			byOffset := map[int64]string{}
			var got []string
			for _, m := range ms {
				got = append(got, "member "+m.Name)
				byOffset[m.HeaderOffset] = m.Name
				sr, err := m.Open()
				if err != nil {
					t.Fatalf("Open %s: %v", m.Name, err)
				}
				data, err := io.ReadAll(sr)
				if err != nil {
					t.Fatal(err)
				}
				// Every member is a copy of a file in testdata/members.
				base := filepath.Base(m.Name)
				ref := map[string]string{"g.o": "g_gcc.o", "averyveryverylongname_member.o": "a_clang.o", "t1.txt": "text.txt"}[base]
				if ref == "" {
					ref = base
				}
				want, err := os.ReadFile(filepath.Join("testdata/members", ref))
				if err != nil {
					t.Fatal(err)
				}
				// Darwin archives pad members to 8 bytes inside the size;
				// LLVM returns the padding as data too.
				if name == "darwin" && len(data) > len(want) && strings.Trim(string(data[len(want):]), "\n") == "" {
					data = data[:len(want)]
				}
				if !bytes.Equal(data, want) {
					t.Errorf("member %s: data differs from %s", m.Name, ref)
				}
				if r.Kind() == Thin && m.Path() != filepath.Join("testdata/read", m.Name) {
					t.Errorf("member %s: Path() = %q", m.Name, m.Path())
				}
			}
			syms, err := r.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range syms {
				got = append(got, "symbol "+s.Name+" in "+byOffset[s.MemberOffset])
			}
			if g, w := strings.Join(got, "\n")+"\n", string(wantText); g != w {
				t.Errorf("got\n%s\nwant\n%s", g, w)
			}
		})
	}
}

// TestThinMissingMember checks the error for a thin member that is gone.
func TestThinMissingMember(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	b.WriteString("!<thin>\n")
	b.WriteString(memberHeader("nothere.o/", "0", "0", "0", "644", 6))
	r, err := NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()), filepath.Join(dir, "x.a"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Open()
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || pe.Path != filepath.Join(dir, "nothere.o") {
		t.Fatalf("Open: %v, want a *fs.PathError for %s", err, filepath.Join(dir, "nothere.o"))
	}
}

// TestThinEscapingPaths: absolute and ".." member names are accepted by
// default (as llvm-ar does, and llvm-ar rcT writes them), refused with
// RejectEscapingPaths.
func TestThinEscapingPaths(t *testing.T) {
	for _, name := range []string{"../x.o", "/abs/x.o", "a/../../x.o", "ok/../x.o"} {
		var strtab bytes.Buffer
		strtab.WriteString(name + "/\n")
		var b bytes.Buffer
		b.WriteString("!<thin>\n")
		b.WriteString(memberHeader("//", "", "", "", "", int64(strtab.Len())))
		b.Write(strtab.Bytes())
		if strtab.Len()%2 != 0 {
			b.WriteByte('\n')
		}
		b.WriteString(memberHeader("/0", "0", "0", "0", "644", 1))
		for _, strict := range []bool{false, true} {
			var opts []Option
			if strict {
				opts = append(opts, RejectEscapingPaths())
			}
			r, err := NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()), "dir/t.a", opts...)
			if err != nil {
				t.Fatal(err)
			}
			m, err := r.Next()
			if !strict {
				if err != nil || m.Name != name || m.Path() != joinLLVM("dir", name) {
					t.Errorf("%q: member %+v, %v", name, m, err)
				}
				continue
			}
			if !errors.Is(err, ErrInsecurePath) {
				t.Errorf("%q strict: err = %v, want ErrInsecurePath", name, err)
			}
		}
	}
}

// TestReadBigAIX reads an AIX big archive made by llvm-ar 22
// (--format=bigarchive, from the members of testdata/read/gnu.a): members
// follow the chain from the first to the last member; the symbol table is
// not read.
func TestReadBigAIX(t *testing.T) {
	r := openArchive(t, "testdata/big/bigaix.a")
	if r.Kind() != BigAIX {
		t.Errorf("Kind = %v", r.Kind())
	}
	ms, err := r.Members()
	if err != nil {
		t.Fatal(err)
	}
	refs := []struct{ name, file string }{
		{"g.o", "g_gcc.o"}, {"averyveryverylongname_member.o", "a_clang.o"}, {"text.txt", "text.txt"}, {"odd.bin", "odd.bin"},
	}
	if len(ms) != len(refs) {
		t.Fatalf("%d members, want %d", len(ms), len(refs))
	}
	for i, m := range ms {
		if m.Name != refs[i].name || m.Mode != 0o644 {
			t.Errorf("member %d: %q mode %o", i, m.Name, m.Mode)
		}
		sr, _ := m.Open()
		data, _ := io.ReadAll(sr)
		want, _ := os.ReadFile(filepath.Join("testdata/members", refs[i].file))
		if !bytes.Equal(data, want) {
			t.Errorf("member %s: data differs from %s", m.Name, refs[i].file)
		}
	}
	// Next after Members starts from the beginning as well.
	if m, err := r.Next(); err != nil || m.Name != "g.o" {
		t.Errorf("Next: %v %v", m, err)
	}

	data, _ := os.ReadFile("testdata/big/bigaix.a")
	for _, tt := range []struct {
		name string
		data []byte
		want string // LLVM 22's message
	}{
		{"short", data[:100], "truncated or malformed archive (malformed AIX big archive: incomplete fixed length header, the archive is only100 byte(s))"},
		{"first past end", setField(data, 68, 20, "999999"), "truncated or malformed archive (malformed AIX big archive: remaining buffer is unable to contain next archive member)"},
		{"next not a number", setField(data, 128+20, 20, "zz"), "truncated or malformed archive (characters in NextOffset field in archive member header are not all decimal numbers: 'zz' for the archive member header at offset 128)"},
		{"chain loops", setField(data, 128+20, 20, "128"), "truncated or malformed archive (malformed AIX big archive: the member chain comes back to the member at offset 128)"},
		{"name length", setField(data, 128+108, 4, "x"), "truncated or malformed archive (characters in NameLen field in archive member header are not all decimal numbers: 'x' for the archive member header at offset 128)"},
	} {
		r, err := NewReader(bytes.NewReader(tt.data), int64(len(tt.data)), "x.a")
		if err == nil {
			_, err = r.Members()
		}
		var fe *FormatError
		if !errors.As(err, &fe) || fe.LLVM != tt.want {
			t.Errorf("%s: %v, want LLVM message %q", tt.name, err, tt.want)
		}
	}
	// No first member: an empty archive.
	r2, err := NewReader(bytes.NewReader(setField(data, 68, 20, "0")), int64(len(data)), "x.a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Next(); err != io.EOF {
		t.Errorf("no first member: %v, want EOF", err)
	}
}

func setField(b []byte, off, n int, v string) []byte {
	out := bytes.Clone(b)
	copy(out[off:off+n], v+strings.Repeat(" ", n-len(v)))
	return out
}
