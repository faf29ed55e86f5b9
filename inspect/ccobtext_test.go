package inspect

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/goffload/goffload/internal/format/compress"
)

// A CCOB of a text bundle (`clang-offload-bundler -type=s -compress`) is
// listed entry by entry, as LLVM's bundler lists it and as the text bundle
// itself is: it was one "code object" of no target.
func TestCompressedTextBundle(t *testing.T) {
	plain, err := os.ReadFile("../testdata/inspect/kernel.s")
	if err != nil {
		t.Fatal(err)
	}
	var c bytes.Buffer
	if _, err := compress.Compress(&c, plain, compress.Options{Version: 3}); err != nil {
		t.Fatal(err)
	}
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
