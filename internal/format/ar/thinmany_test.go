//go:build unix

package ar

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A thin archive with more members than the process may open files
// (issue 14, item 10): every member opened before any is read, as the
// bundler's archive handling does, then each read, then all read again.
func TestThinMoreMembersThanOpenFiles(t *testing.T) {
	const n = 1100
	dir := t.TempDir()
	var ar bytes.Buffer
	ar.WriteString(magicThin)
	for i := range n {
		name := fmt.Sprintf("k%d.o", i)
		data := fmt.Sprintf("member %d", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&ar, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", name+"/", 0, 0, 0, 0o644, len(data))
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip("no RLIMIT_NOFILE:", err)
	}
	lim := old
	lim.Cur = min(256, old.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skip("cannot lower RLIMIT_NOFILE:", err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)

	path := filepath.Join(dir, "lib.a")
	r, err := NewReader(bytes.NewReader(ar.Bytes()), int64(ar.Len()), path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := r.Members()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != n {
		t.Fatalf("%d members, want %d", len(ms), n)
	}
	srs := make([]*io.SectionReader, n)
	for i, m := range ms {
		if srs[i], err = m.Open(); err != nil {
			t.Fatalf("member %d: %v", i, err)
		}
	}
	for pass := range 2 {
		for i, sr := range srs {
			got, err := io.ReadAll(io.NewSectionReader(sr, 0, sr.Size()))
			if want := fmt.Sprintf("member %d", i); err != nil || string(got) != want {
				t.Fatalf("pass %d, member %d: %q %v, want %q", pass, i, got, err, want)
			}
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// Readers from before Close fail, as when the files were closed.
	if _, err := srs[0].ReadAt(make([]byte, 1), 0); err == nil {
		t.Error("read after Close succeeded")
	}
	// A member file replaced after Open is not read in its place.
	m := ms[n-1]
	sr, err := m.Open()
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range ms[:64] { // more than a Reader keeps open
		if s, err := other.Open(); err != nil {
			t.Fatal(err)
		} else if _, err := s.ReadAt(make([]byte, 1), 0); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, m.Name)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sr.ReadAt(make([]byte, 1), 0); err == nil {
		t.Error("replaced member file read")
	}
	r.Close()
}
