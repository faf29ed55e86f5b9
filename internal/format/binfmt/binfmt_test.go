package binfmt

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
	gfx90a = "hip-amdgcn-amd-amdhsa--gfx90a"
)

func fourSources() []Source {
	return []Source{
		{ID: host, R: strings.NewReader("HOSTDATA"), Size: 8},
		{ID: gfx906, R: strings.NewReader("DEV1"), Size: 4},
		{ID: gfx908, R: strings.NewReader("DEV22"), Size: 5},
		{ID: gfx90a, R: strings.NewReader("DEV333"), Size: 6},
	}
}

// The golden files were written by LLVM 22's clang-offload-bundler.
func TestWriteGolden(t *testing.T) {
	for _, tc := range []struct {
		file  string
		src   []Source
		align uint64
	}{
		{"four.bc", fourSources(), 1},
		{"four-align16.bc", fourSources(), 16},
		{"four-align3.bc", fourSources(), 3},
		{"emptylast-align4096.bc", []Source{{ID: host, R: strings.NewReader("HOSTDATA"), Size: 8}, {ID: gfx906, R: strings.NewReader(""), Size: 0}}, 4096},
		// Two targets that standardise to one ID: LLVM records offsets by ID.
		{"dupstd.bc", []Source{{ID: host, R: strings.NewReader("HOSTDATA"), Size: 8}, {ID: gfx906, R: strings.NewReader("DEV333"), Size: 6}, {ID: gfx906, R: strings.NewReader("DEV1"), Size: 4}}, 1},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, tc.src, tc.align); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: written bytes differ from LLVM's\n got %x\nwant %x", tc.file, buf.Bytes(), want)
		}
	}
}

func TestReadGolden(t *testing.T) {
	data, _ := os.ReadFile("testdata/four-align16.bc")
	entries, err := ReadEntries(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"HOSTDATA", "DEV1", "DEV22", "DEV333"}
	ids := []string{host, gfx906, gfx908, gfx90a}
	if len(entries) != 4 {
		t.Fatalf("got %d entries", len(entries))
	}
	for i, e := range entries {
		got := make([]byte, e.Size)
		e.Open(bytes.NewReader(data)).Read(got)
		if e.ID != ids[i] || string(got) != want[i] {
			t.Errorf("entry %d: %q %q", i, e.ID, got)
		}
	}
}

func TestDedupKeepsFirstPositionLastPayload(t *testing.T) {
	got := Dedup([]Entry{{ID: "a", Offset: 1}, {ID: "b", Offset: 2}, {ID: "a", Offset: 3}})
	if len(got) != 2 || got[0].ID != "a" || got[0].Offset != 3 || got[1].ID != "b" {
		t.Errorf("Dedup = %+v", got)
	}
}

func TestHostileHeaders(t *testing.T) {
	data, _ := os.ReadFile("testdata/four.bc")
	// Truncations inside the first entry: no bundles, as LLVM.
	for _, n := range []int{0, 10, 24, 31, 86, 100, 250} {
		e, err := ReadEntries(bytes.NewReader(data[:n]), int64(n))
		if err != nil || len(e) != 0 {
			t.Errorf("truncated to %d: %v entries, err %v", n, len(e), err)
		}
	}
	// Truncations after a valid entry: LLVM crashes, we report.
	for _, n := range []int{260, 267} {
		_, err := ReadEntries(bytes.NewReader(data[:n]), int64(n))
		var fe *FormatError
		if !errors.Is(err, ErrTruncatedTable) || !errors.As(err, &fe) || !strings.HasPrefix(fe.Field, "entry ") || fe.Offset <= 32 {
			t.Errorf("truncated to %d: err %v", n, err)
		}
	}
	// A lying count: huge N with one valid entry must not allocate N.
	lie := append([]byte(nil), data...)
	copy(lie[24:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	if _, err := ReadEntries(bytes.NewReader(lie), int64(len(lie))); err == nil {
		t.Error("lying entry count accepted")
	}
	// A zero count is no bundle.
	zero := append([]byte(nil), data[:32]...)
	for i := 24; i < 32; i++ {
		zero[i] = 0
	}
	if e, err := ReadEntries(bytes.NewReader(zero), 32); err != nil || len(e) != 0 {
		t.Error("zero entries")
	}
	// Huge ID length: LLVM's check wraps and it crashes hashing the ID.
	idl := append([]byte(nil), data...)
	copy(idl[48:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	if e, err := ReadEntries(bytes.NewReader(idl), int64(len(idl))); !errors.Is(err, ErrTruncatedTable) {
		t.Errorf("huge ID length: %v %v", e, err)
	}
	// The same with offset 0: LLVM stops at the offset check (no bundles).
	copy(idl[32:], make([]byte, 8))
	if e, err := ReadTable(bytes.NewReader(idl), int64(len(idl))); err != nil || len(e) != 0 {
		t.Errorf("huge ID length, offset 0: %v %v", e, err)
	}
}

// patchU64 returns data with the little-endian uint64 at off set to v.
func patchU64(data []byte, off int, v uint64) []byte {
	b := bytes.Clone(data)
	for i := range 8 {
		b[off+i] = byte(v >> (8 * i))
	}
	return b
}

// A first entry whose offset + size wraps past 2^64: LLVM 22 lists every
// entry and extracts the others; reading that one would read outside the
// file. ReadTable keeps it (marked), ReadEntries refuses the bundle.
func TestWrappedPayload(t *testing.T) {
	data, _ := os.ReadFile("testdata/four.bc")
	for _, tc := range []struct {
		name      string
		off, size uint64
	}{
		{"size wraps", 268, 1<<64 - 268 + 4},
		{"offset wraps", 1<<64 - 4, 8},
		{"size max", 268, 1<<64 - 1},
	} {
		b := patchU64(patchU64(data, 32, tc.off), 40, tc.size)
		es, err := ReadTable(bytes.NewReader(b), int64(len(b)))
		if err != nil || len(es) != 4 {
			t.Fatalf("%s: ReadTable: %d entries, %v", tc.name, len(es), err)
		}
		if es[0].ID != host || es[0].Outside == nil || es[0].Offset != 0 || es[0].Size != 0 {
			t.Errorf("%s: first entry %+v", tc.name, es[0])
		}
		for _, e := range es[1:] {
			if e.Outside != nil || e.Offset+e.Size > int64(len(b)) || e.Size == 0 {
				t.Errorf("%s: entry %+v", tc.name, e)
			}
		}
		if _, err := ReadEntries(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrTruncatedTable) {
			t.Errorf("%s: ReadEntries: %v", tc.name, err)
		}
	}
}

func TestZeroAlign(t *testing.T) {
	if err := Write(&bytes.Buffer{}, fourSources(), 0); err == nil {
		t.Error("alignment 0 accepted")
	}
}

func FuzzReadEntries(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.bc")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ReadEntries(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Offset <= 0 || e.Size < 0 || e.Offset+e.Size > int64(len(data)) || e.Outside != nil {
				t.Fatalf("entry out of range: %+v (len %d)", e, len(data))
			}
		}
		table, err := ReadTable(bytes.NewReader(data), int64(len(data)))
		if err != nil || len(table) != len(entries) {
			t.Fatalf("ReadTable: %d entries, %v; ReadEntries: %d", len(table), err, len(entries))
		}
	})
}

// TestScan: the lenient reader gives each row's real offset (32 plus the
// rows and IDs before it), reports a row whose payload cannot be where it
// says and goes on, and names the field of a damaged length.
func TestScan(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, fourSources()[:3], 4096); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	rows, err := Scan(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(rows) != 3 {
		t.Fatalf("Scan: %d rows, %v", len(rows), err)
	}
	want := []int64{32, 32 + 24 + int64(len(host)), 32 + 48 + int64(len(host)+len(gfx906))}
	for i, r := range rows {
		if r.At != want[i] || r.Index != i || r.Bad != nil {
			t.Errorf("row %d: %+v, want at %d", i, r, want[i])
		}
	}
	// Entry 1's offset past the data: listed as bad, entry 2 still read.
	bad := patchU64(data, int(want[1]), 1<<40)
	rows, err = Scan(bytes.NewReader(bad), int64(len(bad)))
	var fe *FormatError
	if err != nil || len(rows) != 3 || !errors.As(rows[1].Bad, &fe) || fe.Offset != want[1] || rows[2].Bad != nil {
		t.Fatalf("bad offset: %+v, %v", rows, err)
	}
	// Entry 2's ID length over the limit: an error at that field, no rows.
	bad = patchU64(data, int(want[2])+16, 1<<20)
	rows, err = Scan(bytes.NewReader(bad), int64(len(bad)))
	if !errors.As(err, &fe) || fe.Offset != want[2]+16 || fe.Field != "entry 2 ID length" || rows != nil {
		t.Fatalf("bad ID length: %+v, %v", rows, err)
	}
	// ReadTable, LLVM's rules over the same decoder, agrees on the IDs.
	table, err := ReadTable(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(table) != 3 || table[2].ID != gfx908 {
		t.Fatalf("ReadTable: %+v, %v", table, err)
	}
}

// FuzzScan: the lenient reader never panics, and every row it does not
// mark bad lies inside the data.
func FuzzScan(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.bc")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := Scan(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.Bad == nil && r.Offset+r.Size > uint64(len(data)) {
				t.Fatalf("row out of range: %+v (len %d)", r, len(data))
			}
		}
	})
}
