package inspect

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"testing"
)

// The wrappers of a library inside a wheel point at its bundles whether
// the member is stored (read in place) or deflated (inflated to a
// temporary file): bundle starts are keyed by the file they lie in.
func TestWrappersInZipMembers(t *testing.T) {
	lib, err := os.ReadFile("../testdata/targets/libmodes.so")
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, name := range []string{"a/libmodes.so", "b/libmodes.so"} {
			w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
			w.Write(lib)
		}
		zw.Close()
		l := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "x.whl", nil)
		if len(l.Wrappers) != 2 {
			t.Fatalf("method %d: %d wrappers", method, len(l.Wrappers))
		}
		for _, wr := range l.Wrappers {
			if wr.Bundle != 0 || wr.Note != "" {
				t.Errorf("method %d: wrapper %+v", method, wr)
			}
		}
		l.Close()
	}
}

// A zip member that inflates past the cap is reported, not spooled whole.
func TestZipInflateCap(t *testing.T) {
	defer func(m, a int64) { maxZipMember, maxZipInflated = m, a }(maxZipMember, maxZipInflated)
	maxZipMember, maxZipInflated = 64<<10, 96<<10
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"a.so", "b.so"} {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		w.Write(append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 1<<20)...))
	}
	zw.Close()
	l := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "bomb.whl", nil)
	defer l.Close()
	if len(l.Errors) != 2 {
		t.Fatalf("errors: %v", l.Errors)
	}
	for _, e := range l.Errors {
		if !errors.Is(e, ErrLimit) {
			t.Errorf("%v: not ErrLimit", e)
		}
	}
}
