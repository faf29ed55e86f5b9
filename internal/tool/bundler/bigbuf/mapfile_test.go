package bigbuf

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/internal/fault"
)

// TestMapFile fills a buffer as the bundler does: a header, files read
// through io.LimitedReader at page boundaries (mapped), zero padding, a
// file at an offset off a page boundary and a short one (copied). The bytes
// are the same either way; a mapped file truncated afterwards faults, and
// Source names it.
func TestMapFile(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(1))
	page := os.Getpagesize()
	var files []*os.File
	var contents [][]byte
	for i, size := range []int{20*page + 123, 200 << 10, 16 << 10} {
		data := make([]byte, size)
		r.Read(data)
		path := filepath.Join(dir, string(rune('a'+i)))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files, contents = append(files, f), append(contents, data)
	}
	b := New(8 << 20)
	defer b.Free()
	var want bytes.Buffer
	put := func(p []byte) {
		b.Write(p)
		want.Write(p)
	}
	pad := func() { put(make([]byte, (page-b.Len()%page)%page)) }
	copyFile := func(i int, off int64) {
		files[i].Seek(off, io.SeekStart)
		n := int64(len(contents[i])) - off
		if k, err := io.Copy(b, io.LimitReader(files[i], n)); k != n || err != nil {
			t.Fatalf("file %d: %d bytes, %v", i, k, err)
		}
		want.Write(contents[i][off:])
	}
	put([]byte("header"))
	pad()
	copyFile(0, 0) // mapped, ends inside a page
	pad()
	copyFile(1, 0) // mapped
	put([]byte("x"))
	pad()
	copyFile(1, 100) // off a page: copied
	pad()
	copyFile(2, 0) // below minFileMap: copied
	if !bytes.Equal(b.Bytes(), want.Bytes()) {
		t.Fatal("buffer differs from its inputs")
	}
	wantMaps := 0
	if mapsFiles {
		wantMaps = 2
	}
	if len(b.maps) != wantMaps {
		t.Fatalf("%d files mapped, want %d", len(b.maps), wantMaps)
	}
	if wantMaps == 0 {
		return
	}
	// Reading the bytes of a file truncated meanwhile faults; Source
	// names it.
	if err := os.Truncate(files[1].Name(), 0); err != nil {
		t.Fatal(err)
	}
	var sum byte
	err := fault.Catch(func() {
		for _, c := range b.Bytes() {
			sum += c
		}
	})
	var fe *fault.Error
	if !errors.As(err, &fe) {
		t.Fatalf("reading a truncated mapping: %v, want a fault", err)
	}
	if name, ok := b.Source(fe.Addr); !ok || name != files[1].Name() {
		t.Errorf("Source = %q, %v; want %q", name, ok, files[1].Name())
	}
	if _, ok := b.Source(0); ok {
		t.Error("Source of address 0 found a file")
	}
}
