package kpak

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/fmterr"
)

// testdataDir holds the archives inspect's TestKPAKTestdata writes (with
// -kpak.update): kpak-none.kpack and kpak-zstd.kpack, three code objects
// each, stored and zstd-per-kernel.
const testdataDir = "../../../inspect/testdata"

func testdata(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, n := range []string{"kpak-none.kpack", "kpak-zstd.kpack"} {
		b, err := os.ReadFile(filepath.Join(testdataDir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	return out
}

type problem struct {
	off   int64
	field string
	err   error
}

// read reads an archive whole: its entries, and the problems reported.
func read(b []byte) (*Archive, []Entry, []problem) {
	var ps []problem
	bad := func(off int64, field string, err error) { ps = append(ps, problem{off, field, err}) }
	r := bytes.NewReader(b)
	if !Is(r, int64(len(b))) {
		return nil, nil, nil
	}
	a := Read(r, int64(len(b)), bad)
	if a == nil {
		return nil, nil, ps
	}
	return a, a.Entries(bad), ps
}

func TestReadTestdata(t *testing.T) {
	for name, b := range testdata(t) {
		a, entries, ps := read(b)
		if a == nil || len(ps) > 0 {
			t.Fatalf("%s: %v %v", name, a, ps)
		}
		want := map[string]string{"kpak-none.kpack": None, "kpak-zstd.kpack": Zstd}[name]
		if a.Scheme != want {
			t.Errorf("%s: scheme %q, want %q", name, a.Scheme, want)
		}
		var ids []string
		for _, e := range entries {
			ids = append(ids, e.Key+" "+e.Arch)
			var data []byte
			var err error
			if e.FrameSize == 0 {
				data, err = io.ReadAll(io.NewSectionReader(bytes.NewReader(b), e.Offset, e.Size))
			} else {
				var rd io.Reader
				if rd, err = OpenFrame(bytes.NewReader(b), &e, e.Key); err == nil {
					data, err = io.ReadAll(rd)
				}
			}
			if err != nil || int64(len(data)) != e.Size || !bytes.HasPrefix(data, []byte("\x7fELF")) {
				t.Errorf("%s: %s %s: %d bytes, %v", name, e.Key, e.Arch, len(data), err)
			}
		}
		if got := strings.Join(ids, ", "); got != "lib/liba.so#0 gfx1100, lib/liba.so#0 gfx1030, lib/liba.so#1 gfx1100" {
			t.Errorf("%s: entries %s", name, got)
		}
	}
}

// TestDamageIsReported: a cut archive reports where, with fmterr's
// sentinels, and keeps what is whole.
func TestDamageIsReported(t *testing.T) {
	b := testdata(t)["kpak-zstd.kpack"]
	if _, _, ps := read(b[:10]); len(ps) != 1 || ps[0].field != "header" || !errors.Is(ps[0].err, fmterr.ErrTruncated) {
		t.Errorf("cut header: %+v", ps)
	}
	c := bytes.Clone(b)
	c[8] = 3 // the TOC offset inside the header
	for i := 9; i < 16; i++ {
		c[i] = 0
	}
	if _, _, ps := read(c); len(ps) != 1 || ps[0].off != 8 || ps[0].field != "TOC offset" || !errors.Is(ps[0].err, fmterr.ErrMalformed) {
		t.Errorf("TOC offset in the header: %+v", ps)
	}
}

func TestParseRef(t *testing.T) {
	// {"kernel_name": "lib/x.so", "kpack_search_paths": ["a/@GFXARCH@.kpack"]}
	good := []byte("\x82\xabkernel_name\xa8lib/x.so\xb2kpack_search_paths\x91\xb1a/@GFXARCH@.kpack")
	ref, err := ParseRef(good, false)
	if err != nil || ref.KernelName != "lib/x.so" || len(ref.SearchPaths) != 1 || ref.SearchPaths[0] != "a/@GFXARCH@.kpack" {
		t.Fatalf("%+v %v", ref, err)
	}
	_, err = ParseRef(good[:20], true)
	var re *RefError
	if !errors.As(err, &re) || re.Field != "" || !strings.Contains(err.Error(), "only the first") {
		t.Errorf("cut reference: %v", err)
	}
	noPaths := []byte("\x81\xabkernel_name\xa8lib/x.so")
	if _, err = ParseRef(noPaths, false); !errors.As(err, &re) || re.Field != "kpack_search_paths" || !errors.Is(err, fmterr.ErrMalformed) {
		t.Errorf("no search paths: %v", err)
	}
}

// FuzzRead reads mutated archives: no panic, every entry inside the input,
// and no zstd frame decodes to more than its entry's size.
func FuzzRead(f *testing.F) {
	for _, b := range testdata(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, entries, _ := read(b)
		for _, e := range entries {
			end := e.Offset + e.Size
			if e.FrameSize > 0 {
				end = e.Offset + e.FrameSize
			}
			if e.Offset < HeaderSize || e.Size < 0 || end > int64(len(b)) {
				t.Fatalf("entry %+v outside the %d-byte input", e, len(b))
			}
			if e.FrameSize > 0 && e.Size < 1<<20 {
				rd, err := OpenFrame(bytes.NewReader(b), &e, "x")
				if err == nil {
					n, _ := io.Copy(io.Discard, rd)
					if n > e.Size {
						t.Fatalf("frame gave %d bytes, entry says %d", n, e.Size)
					}
				}
			}
		}
	})
}

func ExampleRead() {
	b, _ := os.ReadFile(filepath.Join(testdataDir, "kpak-zstd.kpack"))
	r := bytes.NewReader(b)
	report := func(off int64, field string, err error) { fmt.Printf("at %d, %s: %v\n", off, field, err) }
	a := Read(r, int64(len(b)), report)
	fmt.Println(a.Scheme)
	for _, e := range a.Entries(report) {
		fmt.Println(e.Key, e.Arch, e.Size)
	}
	// Output:
	// zstd-per-kernel
	// lib/liba.so#0 gfx1100 128
	// lib/liba.so#0 gfx1030 96
	// lib/liba.so#1 gfx1100 80
}
