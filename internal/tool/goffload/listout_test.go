package goffloadcmd

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/goffload/goffload/inspect"
)

// table writes a listing of rows whose IDs are id(i) through the table
// sink, and returns its lines.
func table(t *testing.T, rows int, id func(i int) string) []string {
	var buf bytes.Buffer
	s := newTableSink(&buf, nil)
	l := &inspect.Listing{File: "lib.so", Kind: "ELF shared object"}
	for i := range rows {
		o := &inspect.Object{Index: i, ID: id(i), Size: 4321, Offset: int64(i) * 0x1000, Path: []string{"bundle 0"}}
		if err := s.object(l, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.end(l, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.close(-1, nil, false); err != nil {
		t.Fatal(err)
	}
	return strings.Split(buf.String(), "\n")
}

// TestTableChunks: the table is written a chunk of rows at a time. A
// listing of up to tableChunk rows is aligned as one, as text/tabwriter
// would (the widest ID anywhere sets the column); in a longer one a later
// chunk widens a column its rows need, and earlier rows keep theirs.
func TestTableChunks(t *testing.T) {
	short, long := "hip-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+"
	sizeAt := func(line string) int { return strings.Index(line, "4321") }
	lines := table(t, tableChunk, func(i int) string {
		if i == tableChunk/2 {
			return long
		}
		return short
	})
	if lines[0] != "lib.so: ELF shared object" || !strings.HasPrefix(lines[1], "  #") {
		t.Fatalf("head %q", lines[:2])
	}
	want := len("  1023  ") + len(long) + 2
	for i, line := range lines[2 : 2+tableChunk] {
		if sizeAt(line) != want {
			t.Fatalf("row %d: SIZE at column %d, want %d: %q", i, sizeAt(line), want, line)
		}
	}
	lines = table(t, tableChunk+1, func(i int) string {
		if i == tableChunk {
			return long
		}
		return short
	})
	first, last := sizeAt(lines[2]), sizeAt(lines[2+tableChunk])
	if first != len("  1023  ")+len(short)+2 || last != len("  1024  ")+len(long)+2 {
		t.Errorf("SIZE at column %d in the first chunk, %d in the second", first, last)
	}
	for i, line := range lines[2:tableChunk] {
		if sizeAt(line) != first {
			t.Fatalf("row %d of the first chunk: %q", i, line)
		}
	}
	if got := lines[len(lines)-2]; got != fmt.Sprintf("  %s  1 object(s)     4321 bytes", long) {
		t.Errorf("summary line %q", got)
	}
}
