// Package ccobtest makes the CCOBs of text the tests of inspect and prune
// read alike: a compressed text bundle, one of more entries than the
// readers hold, and a compressed code object with a text bundle's START
// line in its first 4 KiB.
package ccobtest

import (
	"bytes"
	"os"
	"testing"

	"github.com/goffload/goffload/internal/format/compress"
)

// Compress returns data as a CCOB v3 (zstd).
func Compress(t testing.TB, data []byte) []byte {
	t.Helper()
	var c bytes.Buffer
	if _, err := compress.Compress(&c, data, compress.Options{Version: 3}); err != nil {
		t.Fatal(err)
	}
	return c.Bytes()
}

// ManyEntries is a text bundle of n gfx90a entries of one byte each.
func ManyEntries(n int) []byte {
	entry := "\n// __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx90a\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx90a\n"
	return bytes.Repeat([]byte(entry), n)
}

// MarkedCodeObject is the code object at path (testdata's gfx90a.co) with
// a gfx906 text bundle entry written at 0x800: a code object still.
func MarkedCodeObject(t testing.TB, path string) []byte {
	t.Helper()
	co, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copy(co[0x800:], "\n// __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx906\n")
	return co
}
