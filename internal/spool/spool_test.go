package spool

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
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

// TestFreeSpaceBound: a writer stops at half the space its file system
// had left when it began, when that is below the caller's cap, and says
// so; the caller's cap applies when it is the lower.
func TestFreeSpaceBound(t *testing.T) {
	tmp, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if free, ok := freeSpace(tmp.File); ok && free <= 0 {
		t.Errorf("freeSpace = %d where temporary files go", free)
	}
	tmp.Close()
	saved := freeSpace
	defer func() { freeSpace = saved }()
	freeSpace = func(*os.File) (int64, bool) { return 2000, true }
	src := strings.Repeat("x", 1500)
	_, err = Read(strings.NewReader(src), 1<<30, "input")
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Max != 1000 || !tl.Free || !strings.Contains(err.Error(), "what the space left for temporary files in") {
		t.Fatalf("1500 bytes, 2000 free: %v", err)
	}
	f, err := Read(strings.NewReader(src[:900]), 1<<30, "input")
	if err != nil || f.Size != 900 {
		t.Fatalf("900 bytes, 2000 free: %v", err)
	}
	f.Close()
	_, err = Read(strings.NewReader(src), 800, "input")
	if !errors.As(err, &tl) || tl.Max != 800 || tl.Free || !strings.Contains(err.Error(), "the most goffload holds") {
		t.Fatalf("1500 bytes, cap 800: %v", err)
	}
}

// TestFreeSpaceShrinking: a writer asks again for the space left as it
// goes, and stops once the file system is down to a quarter of what it
// had (others filled it); a file system that does not tell leaves the
// caller's cap alone.
func TestFreeSpaceShrinking(t *testing.T) {
	saved, savedRecheck := freeSpace, recheck
	defer func() { freeSpace, recheck = saved, savedRecheck }()
	recheck = 100
	free := int64(1 << 20)
	freeSpace = func(*os.File) (int64, bool) { return free, true }
	f, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := f.Writer(1<<30, "input")
	chunk := []byte(strings.Repeat("y", 64))
	for range 10 {
		if _, err := w.Write(chunk); err != nil {
			t.Fatalf("with room: %v", err)
		}
	}
	free = 1<<18 - 1 // below a quarter of what there was
	var tl *TooLargeError
	for i := 0; ; i++ {
		_, err := w.Write(chunk)
		if err == nil && i < 3 {
			continue
		}
		if !errors.As(err, &tl) || !tl.Free || tl.Max != f.Size {
			t.Fatalf("after the file system filled up: %v (size %d)", err, f.Size)
		}
		break
	}
	freeSpace = func(*os.File) (int64, bool) { return 0, false }
	g, err := Read(strings.NewReader(strings.Repeat("z", 5000)), 1<<30, "input")
	if err != nil {
		t.Fatalf("a file system that does not tell: %v", err)
	}
	g.Close()
}
