package inspect

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/textfmt"
	"github.com/goffload/goffload/internal/test/ccobtest"
)

// A CCOB of a text bundle (`clang-offload-bundler -type=s -compress`) is
// listed entry by entry, as LLVM's bundler lists it and as the text bundle
// itself is: it was one "code object" of no target.
func TestCompressedTextBundle(t *testing.T) {
	plain, err := os.ReadFile("../testdata/inspect/kernel.s")
	if err != nil {
		t.Fatal(err)
	}
	c := bytes.NewBuffer(ccobtest.Compress(t, plain))
	want := Read(bytes.NewReader(plain), int64(len(plain)), "kernel.s", nil)
	got := Read(bytes.NewReader(c.Bytes()), int64(c.Len()), "kernel-ccob.s", nil)
	defer want.Close()
	defer got.Close()
	if len(got.Errors) > 0 || len(got.Objects) != len(want.Objects) || len(want.Objects) < 3 {
		t.Fatalf("%d objects (want %d), errors %v", len(got.Objects), len(want.Objects), got.Errors)
	}
	for i, o := range got.Objects {
		w := want.Objects[i]
		off, inner := o.Position()
		if o.ID != w.ID || o.Size != w.Size || off != 0 || inner != w.Offset || o.Compressed == nil {
			t.Errorf("object %d: %s %d bytes at %#x/%#x, want %s %d bytes at 0/%#x", i, o.ID, o.Size, off, inner, w.ID, w.Size, w.Offset)
			continue
		}
		r, err := o.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(b, plain[w.Offset:w.Offset+w.Size]) {
			t.Errorf("object %d: its bytes differ from the plain bundle's (%v)", i, err)
		}
	}
}

// Kilobytes of CCOB that inflate to a text bundle of more entries than
// textfmt.MaxHeldEntries are listed that far, with a limit error: each
// entry was held for its facts (2,000,000 empty ones took 1.3 GB).
func TestCompressedTextEntryBound(t *testing.T) {
	c := bytes.NewBuffer(ccobtest.Compress(t, ccobtest.ManyEntries(textfmt.MaxHeldEntries+10)))
	l := Read(bytes.NewReader(c.Bytes()), int64(c.Len()), "many.s", &Options{SkipHeaders: true})
	defer l.Close()
	if len(l.Objects) != textfmt.MaxHeldEntries || len(l.Errors) != 1 || !errors.Is(l.Errors[0], fmterr.ErrLimit) {
		t.Errorf("%d objects, errors %v", len(l.Objects), l.Errors)
	}
}

// A compressed code object with a START marker line in its first 4 KiB
// is a code object, as such a file is (it was read as a text bundle, and
// replace wrote a text bundle in its place).
func TestCompressedCodeObjectWithMarker(t *testing.T) {
	co := ccobtest.MarkedCodeObject(t, "../testdata/inspect/gfx90a.co")
	c := bytes.NewBuffer(ccobtest.Compress(t, co))
	l := Read(bytes.NewReader(c.Bytes()), int64(c.Len()), "co.ccob", nil)
	defer l.Close()
	if len(l.Objects) != 1 || l.Objects[0].Size != int64(len(co)) || l.Objects[0].Code == nil || l.Objects[0].Code.Processor != "gfx90a" {
		t.Errorf("%d objects: %+v", len(l.Objects), l.Objects)
	}
}

// The compressed text bundles of one file are scanned through at most
// maxCompressedText bytes together: past it, each is a limit error (sixteen
// CCOBs of 900 MiB of text each took 21 s to list).
func TestCompressedTextBudget(t *testing.T) {
	plain, err := os.ReadFile("../testdata/inspect/kernel.s")
	if err != nil {
		t.Fatal(err)
	}
	defer func(m int64) { maxCompressedText = m }(maxCompressedText)
	maxCompressedText = int64(len(plain)) * 3 / 2
	one := ccobtest.Compress(t, plain)
	two := append(bytes.Clone(one), one...)
	l := Read(bytes.NewReader(two), int64(len(two)), "two.s", &Options{SkipHeaders: true})
	defer l.Close()
	if len(l.Devices()) != 3 || len(l.Errors) != 1 || !errors.Is(l.Errors[0], fmterr.ErrLimit) {
		t.Errorf("%d devices, errors %v", len(l.Devices()), l.Errors)
	}
}
