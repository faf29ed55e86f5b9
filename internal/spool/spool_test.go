package spool

import (
	"bytes"
	"io"
	"testing"
)

func TestTail(t *testing.T) {
	f, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.WriteString(f.Writer(100, "input"), "head"); err != nil {
		t.Fatal(err)
	}
	// A failed region is dropped: the next starts where it did.
	bad := f.Tail()
	io.WriteString(bad, "dropped")
	if err := bad.Close(); err != nil || f.Size != 4 {
		t.Fatalf("Close: %v, size %d, want 4", err, f.Size)
	}
	tail := f.Tail()
	if _, err := io.WriteString(tail, "region"); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if n, err := tail.ReadAt(got, 2); n != 4 || err != nil || string(got) != "gion" {
		t.Fatalf("ReadAt(2) = %d %q %v", n, got[:n], err)
	}
	if n, err := tail.ReadAt(got, 4); n != 2 || err != io.EOF || string(got[:n]) != "on" {
		t.Fatalf("ReadAt(4) past the end = %d %q %v, want 2 \"on\" EOF", n, got[:n], err)
	}
	if _, err := tail.ReadAt(got, -1); err == nil {
		t.Fatal("ReadAt(-1): no error")
	}
	all := make([]byte, f.Size)
	if _, err := f.ReadAt(all, 0); err != nil || !bytes.Equal(all, []byte("headregion")) {
		t.Fatalf("file holds %q (%v), want \"headregion\"", all, err)
	}
}

// Regions closed oldest first, as a failed run of several is, leave the
// file at the first one's start: a later Close never grows it back.
func TestTailsClosedOldestFirst(t *testing.T) {
	f, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	io.WriteString(f.Writer(100, "input"), "head")
	var tails []*Tail
	for _, s := range []string{"one", "two", "three"} {
		tl := f.Tail()
		io.WriteString(tl, s)
		tails = append(tails, tl)
	}
	for _, tl := range tails {
		if err := tl.Close(); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := f.Stat()
	if err != nil || f.Size != 4 || fi.Size() != 4 {
		t.Errorf("after closing every region: Size %d, file %d bytes (%v), want 4", f.Size, fi.Size(), err)
	}
	io.WriteString(f.Tail(), "next")
	all := make([]byte, f.Size)
	if _, err := f.ReadAt(all, 0); err != nil || string(all) != "headnext" {
		t.Errorf("file holds %q (%v), want \"headnext\"", all, err)
	}
}
