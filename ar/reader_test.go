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
