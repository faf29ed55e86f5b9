package compress

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/fmterr"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Golden files made by LLVM 22.1.8's clang-offload-bundler from
// testdata/bundle.bin's inputs (see testdata/README.md).
var goldens = []struct {
	file    string
	version uint16
	total   uint64
	hash    uint64
}{
	{"v3-default.cbc", 3, 4475, 0x5f9372749e0260f0},
	{"v2-default.cbc", 2, 4467, 0x5f9372749e0260f0},
	{"v3-level1.cbc", 3, 4537, 0x5f9372749e0260f0},
	{"v3-level9.cbc", 3, 4304, 0x5f9372749e0260f0},
	{"v3-level19.cbc", 3, 3905, 0x5f9372749e0260f0},
	{"v3-level-5.cbc", 3, 7576, 0x5f9372749e0260f0},
}

func TestParseHeaderGolden(t *testing.T) {
	bundle := readTestdata(t, "bundle.bin")
	for _, g := range goldens {
		b := readTestdata(t, g.file)
		h, err := ParseHeader(b)
		if err != nil {
			t.Fatalf("%s: %v", g.file, err)
		}
		want := Header{Version: g.version, Method: Zstd, TotalSize: g.total, UncompressedSize: uint64(len(bundle))}
		copy(want.Hash[:], b[h.Len()-8:h.Len()])
		if h != want || h.HashValue() != g.hash || uint64(len(b)) != g.total {
			t.Errorf("%s: header %+v (hash %#x), want %+v (hash %#x)", g.file, h, h.HashValue(), want, g.hash)
		}
		if got := h.AppendHeader(nil); !bytes.Equal(got, b[:h.Len()]) {
			t.Errorf("%s: AppendHeader = %x, want %x", g.file, got, b[:h.Len()])
		}
	}
	// The 41-byte result of compressing nothing: hash bytes d41d8cd98f00b204.
	h, err := ParseHeader(readTestdata(t, "empty.cbc"))
	if err != nil || h.TotalSize != 41 || h.UncompressedSize != 0 || h.HashValue() != 0x04b2008fd98c1dd4 {
		t.Errorf("empty.cbc: %+v, %v", h, err)
	}
}

func TestParseHeaderErrors(t *testing.T) {
	good := readTestdata(t, "v3-default.cbc")
	patch := func(off int, v ...byte) []byte {
		b := bytes.Clone(good)
		copy(b[off:], v)
		return b
	}
	tests := []struct {
		name string
		in   []byte
		want error
		llvm string
	}{
		{"short", []byte("CCOB\x03\x00"), ErrNotCompressed, ""},
		{"no magic", []byte("CCOC\x03\x00\x01\x00"), ErrNotCompressed, ""},
		{"version 0", patch(4, 0, 0), ErrHeaderTooSmall, "Compressed bundle header size too small"},
		{"version 4", patch(4, 4, 0), ErrHeaderTooSmall, "Compressed bundle header size too small"},
		{"version 7", patch(4, 7, 0), ErrHeaderTooSmall, "Compressed bundle header size too small"},
		{"version 65535", patch(4, 0xff, 0xff), ErrHeaderTooSmall, "Compressed bundle header size too small"},
		{"v3 truncated", good[:31], ErrHeaderTooSmall, "Compressed bundle header size too small"},
		{"v1 truncated", patch(4, 1, 0)[:19], ErrHeaderTooSmall, "Compressed bundle header size too small"},
		{"method 2", patch(6, 2, 0), ErrUnknownMethod, "Unknown compressing method"},
		{"bad version and method", patch(4, 9, 0, 2, 0), ErrHeaderTooSmall, "Compressed bundle header size too small"},
		{"short header and bad method", patch(6, 2, 0)[:20], ErrHeaderTooSmall, "Compressed bundle header size too small"},
	}
	for _, tt := range tests {
		_, err := ParseHeader(tt.in)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
			continue
		}
		if tt.llvm != "" && fmterr.LLVMMessage(err) != tt.llvm {
			t.Errorf("%s: LLVM message %q, want %q", tt.name, fmterr.LLVMMessage(err), tt.llvm)
		}
	}
}

func TestIsCompressed(t *testing.T) {
	for in, want := range map[string]bool{"": false, "CCOB": false, "CCOB\x03\x00\x01": false, "CCOB\x03\x00\x01\x00": true, "CCOA\x03\x00\x01\x00": false} {
		if got := IsCompressed([]byte(in)); got != want {
			t.Errorf("IsCompressed(%q) = %v", in, got)
		}
	}
}
