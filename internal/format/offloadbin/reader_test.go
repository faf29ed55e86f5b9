package offloadbin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func goldenBins(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join("testdata", "golden", "*.bin"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no golden binaries: %v", err)
	}
	return m
}

func TestReadP1(t *testing.T) {
	data := readGolden(t, "p1.bin")
	bins, err := ReadAll(bytes.NewReader(data), int64(len(data)), V1Only())
	if err != nil {
		t.Fatal(err)
	}
	if len(bins) != 1 {
		t.Fatalf("got %d binaries, want 1", len(bins))
	}
	b := bins[0]
	if b.Version != 1 || b.Size != 0x98 || b.ImageKind != ImageObject || b.OffloadKind != OffloadHIP {
		t.Errorf("got version %d size %#x kinds %d/%d", b.Version, b.Size, b.ImageKind, b.OffloadKind)
	}
	want := []StringEntry{{"arch", "gfx906"}, {"triple", "amdgcn-amd-amdhsa"}}
	if len(b.Strings) != 2 || b.Strings[0] != want[0] || b.Strings[1] != want[1] {
		t.Errorf("strings = %q, want %q", b.Strings, want)
	}
	img := make([]byte, b.ImageSize())
	b.Image().ReadAt(img, 0)
	if string(img) != "ABC" {
		t.Errorf("image = %q", img)
	}
	if b.Triple() != "amdgcn-amd-amdhsa" || b.Arch() != "gfx906" {
		t.Errorf("triple/arch = %q/%q", b.Triple(), b.Arch())
	}
}

// Reading every golden binary and writing its images back gives the same
// bytes: the string table layout, padding and header match LLVM 22.
func TestGoldenRoundTrip(t *testing.T) {
	for _, path := range goldenBins(t) {
		data, _ := os.ReadFile(path)
		bins, err := ReadAll(bytes.NewReader(data), int64(len(data)), V1Only())
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		var out bytes.Buffer
		for _, b := range bins {
			img := Image{ImageKind: b.ImageKind, OffloadKind: b.OffloadKind, Flags: b.Flags,
				Strings: b.Strings, Data: b.Image(), Size: b.ImageSize()}
			if img.BinarySize() != b.Size {
				t.Errorf("%s: BinarySize %d, want %d", path, img.BinarySize(), b.Size)
			}
			if err := WriteImage(&out, img); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Errorf("%s: rewritten binary differs from LLVM 22's", path)
		}
	}
}

func TestReadDuplicateKeyLastWins(t *testing.T) {
	b := &Binary{Strings: []StringEntry{{"arch", "second"}, {"arch", "first"}}}
	if b.Arch() != "first" {
		t.Errorf("Arch() = %q, want the later entry", b.Arch())
	}
}

func patch(data []byte, off int, v uint64, n int) []byte {
	out := bytes.Clone(data)
	switch n {
	case 4:
		binary.LittleEndian.PutUint32(out[off:], uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(out[off:], v)
	}
	return out
}

// Patched copies of p2.bin (two binaries, at 0 and 0x98), each with the
// result llvm-offload-binary 22.1.8 gives it.
func TestReadValidationV1(t *testing.T) {
	p2 := readGolden(t, "p2.bin")
	tests := []struct {
		name string
		data []byte
		want error // nil: OK
	}{
		{"ok", p2, nil},
		{"version 0", patch(p2, 4, 0, 4), ErrInvalid},
		{"version 2", patch(p2, 4, 2, 4), ErrInvalid},
		{"version 3", patch(p2, 4, 3, 4), ErrInvalid},
		{"bad magic", patch(p2, 0, 0x12345678, 4), ErrInvalid},
		{"size 0x1000", patch(p2, 8, 0x1000, 8), ErrTruncated},
		{"size 0x10", patch(p2, 8, 0x10, 8), ErrTruncated},
		{"size 0x40", patch(p2, 8, 0x40, 8), ErrTruncated},
		{"size 0x40, entry at 0", patch(patch(patch(p2, 8, 0x40, 8), 0x10, 0, 8), 0x18, 0, 8), ErrInvalid},
		{"gap", patch(p2, 8, 0x94, 8), ErrInvalid},
		{"entry offset", patch(p2, 0x10, 0x90, 8), ErrTruncated},
		{"entry size", patch(p2, 0x18, 0x90, 8), ErrTruncated},
		{"entry size 0", patch(p2, 0x18, 0, 8), nil},
		{"image offset", patch(p2, 0x38, 0x1000, 8), ErrTruncated},
		{"image size", patch(p2, 0x40, 0x1000, 8), ErrTruncated},
		{"string offset", patch(p2, 0x28, 0x1000, 8), ErrTruncated},
		{"num strings", patch(p2, 0x30, 0x100, 8), ErrTruncated},
		{"key offset", patch(p2, 0x48, 0x10000, 8), ErrTruncated},
		{"value offset at end", patch(p2, 0x50, 0x98, 8), ErrTruncated},
		{"value offset on last byte", patch(p2, 0x50, 0x97, 8), nil},
		{"truncated 71", p2[:71], ErrInvalid},
		{"truncated 72", p2[:72], ErrTruncated},
		{"truncated 100", p2[:100], ErrTruncated},
		{"trailing zeros", append(bytes.Clone(p2), make([]byte, 8)...), ErrInvalid},
		{"empty", nil, nil},
		// Fields LLVM 22 does not check give way to the next binary's error.
		{"image size, then version 2", patch(patch(p2, 0x40, 0x1000, 8), 0x98+4, 2, 4), ErrInvalid},
		{"value offset at end, then trailing zeros", append(patch(p2, 0x50, 0x98, 8), make([]byte, 8)...), ErrInvalid},
	}
	for _, tt := range tests {
		_, err := ReadAll(bytes.NewReader(tt.data), int64(len(tt.data)), V1Only())
		switch {
		case tt.want == nil && err != nil:
			t.Errorf("%s: unexpected error %v", tt.name, err)
		case tt.want != nil && !errors.Is(err, tt.want):
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), "offset") {
			t.Errorf("%s: error %q does not say where", tt.name, err)
		}
	}
}

// A binary whose size is not a multiple of 8, followed directly by
// another, is read (no rounding in LLVM 22).
func TestReadUnalignedConcatenation(t *testing.T) {
	p1 := readGolden(t, "p1.bin")
	first := patch(p1, 8, 0x93, 8)[:0x93]
	data := append(first, p1...)
	bins, err := ReadAll(bytes.NewReader(data), int64(len(data)), V1Only())
	if err != nil || len(bins) != 2 || bins[1].Offset != 0x93 {
		t.Fatalf("got %d binaries, err %v", len(bins), err)
	}
}
