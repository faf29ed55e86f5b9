package textfmt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	host   = "host-x86_64-unknown-linux-gnu-"
	gfx906 = "hip-amdgcn-amd-amdhsa--gfx906"
	gfx908 = "hip-amdgcn-amd-amdhsa--gfx908"
)

var payloads = []string{"host content\n", "device A\n", "device B no newline"}

// The golden files were written by LLVM 22's clang-offload-bundler.
func TestWriteGolden(t *testing.T) {
	for _, typ := range []string{"i", "ll", "d", "s"} {
		want, err := os.ReadFile(filepath.Join("testdata", "three."+typ))
		if err != nil {
			t.Fatal(err)
		}
		c, ok := Comment(typ)
		if !ok {
			t.Fatalf("no comment for %s", typ)
		}
		var buf bytes.Buffer
		src := []Source{{host, strings.NewReader(payloads[0])}, {gfx906, strings.NewReader(payloads[1])}, {gfx908, strings.NewReader(payloads[2])}}
		if err := Write(&buf, c, src); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: got\n%q\nwant\n%q", typ, buf.Bytes(), want)
		}
		if got := List(want, c); strings.Join(got, ",") != host+","+gfx906+","+gfx908 {
			t.Errorf("%s: List = %q", typ, got)
		}
		r := NewReader(want, c)
		for i := range payloads {
			if _, ok := r.Next(); !ok {
				t.Fatal("missing entry")
			}
			p, err := r.Payload()
			if err != nil || string(p) != payloads[i] {
				t.Errorf("%s entry %d: %q %v", typ, i, p, err)
			}
		}
	}
}

func TestReaderQuirks(t *testing.T) {
	c := "//"
	// A marker at offset 0 is not recognised.
	if ids := List([]byte(startMarker(c)[1:]+host+"\nx"+endMarker(c)+host+"\n"), c); len(ids) != 0 {
		t.Errorf("marker at offset 0 listed: %q", ids)
	}
	// A CR stays part of the ID.
	if ids := List([]byte(startMarker(c)+host+"\r\nx"+endMarker(c)+host+"\n"), c); len(ids) != 1 || ids[0] != host+"\r" {
		t.Errorf("CR: %q", ids)
	}
	// Another type's comment finds nothing.
	data, _ := os.ReadFile("testdata/three.i")
	if ids := List(data, ";"); len(ids) != 0 {
		t.Errorf("ll comment found %q", ids)
	}
	// Missing END marker: an error, not LLVM's undefined behaviour.
	r := NewReader([]byte(startMarker(c)+host+"\npayload"), c)
	r.Next()
	if _, err := r.Payload(); err == nil {
		t.Error("missing END accepted")
	} else if fe := (*FormatError)(nil); !errors.As(err, &fe) || !errors.Is(err, ErrNoEnd) || fe.Offset != int64(len(startMarker(c)+host+"\n")) {
		t.Errorf("missing END: %v, want a *FormatError at the payload wrapping ErrNoEnd", err)
	}
	// Skipping without reading continues right after the START line.
	nested := startMarker(c) + "a\n" + startMarker(c) + "b\nB" + endMarker(c) + "b\n" + endMarker(c) + "a\n"
	r = NewReader([]byte(nested), c)
	id1, _ := r.Next()
	id2, _ := r.Next()
	if id1 != "a" || id2 != "b" {
		t.Errorf("skip: %q %q", id1, id2)
	}
}

func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob("testdata/three.*")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, take bool) {
		for _, c := range []string{"//", "#", ";"} {
			List(data, c)
			r := NewReader(data, c)
			for n := 0; n < 1000; n++ {
				if _, ok := r.Next(); !ok {
					break
				}
				if take {
					r.Payload()
				}
			}
		}
	})
}

func TestDetectAndPayloadAt(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "#", []Source{{ID: "a", R: strings.NewReader("x")}, {ID: "b", R: strings.NewReader("yy")}}); err != nil {
		t.Fatal(err)
	}
	if c, ok := Detect(b.Bytes()); !ok || c != "#" {
		t.Errorf("Detect = %q, %v", c, ok)
	}
	if _, ok := Detect([]byte("plain text")); ok {
		t.Error("Detect found a bundle in plain text")
	}
	r := NewReader(b.Bytes(), "#")
	r.Next()
	off := r.Offset()
	p, err := r.PayloadAt(off)
	if err != nil || string(p) != "x" || r.Offset() != off {
		t.Errorf("PayloadAt = %q, %v; reader moved to %d from %d", p, err, r.Offset(), off)
	}
}

// Sniff: a START marker in the first SniffLen bytes of data of no known
// magic; a code object or a bundle with such a line is not text.
func TestSniff(t *testing.T) {
	marker := "\n// __CLANG_OFFLOAD_BUNDLE____START__ " // what Detect looks for
	start := marker + "host-x86_64-unknown-linux-gnu-\n"
	for _, c := range []struct {
		head string
		want bool
	}{
		{start, true},
		{strings.Repeat("x", SniffLen-len(marker)) + start, true},
		{strings.Repeat("x", SniffLen-len(marker)+1) + start, false},
		{"\x7fELF\x02\x01\x01" + start, false},
		{"__CLANG_OFFLOAD_BUNDLE__" + start, false},
		{"plain text", false},
		{"", false},
	} {
		if got := Sniff([]byte(c.head)); got != c.want {
			t.Errorf("Sniff(%.40q...) = %v, want %v", c.head, got, c.want)
		}
	}
}
