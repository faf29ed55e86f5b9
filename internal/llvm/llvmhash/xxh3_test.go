package llvmhash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testBytes returns n deterministic pseudo-random bytes (a 64-bit LCG).
func testBytes(n int) []byte {
	b := make([]byte, n)
	x := uint64(0x243F6A8885A308D3)
	for i := range b {
		x = x*6364136223846793005 + 1442695040888963407
		b[i] = byte(x >> 56)
	}
	return b
}

// xxh3Vectors were produced by `xxhsum -H3` (xxHash 0.8.1) over testBytes(n).
var xxh3Vectors = []struct {
	n    int
	want uint64
}{
	{0, 0x2d06800538d394c2},
	{1, 0xc0d1e3a09a6ab844},
	{2, 0xfc85756002682820},
	{3, 0x40ffb44ddc6a1ae4},
	{4, 0xc67c86eea81241b8},
	{5, 0xb19f6a3f9a21278b},
	{7, 0x172b522e62743067},
	{8, 0x8bbb553473f39d0d},
	{9, 0x21e8e1bb56e8fbbb},
	{15, 0x60fa34166ebeb7e8},
	{16, 0xf16cdb36e7fb7c86},
	{17, 0xf81d8c46a785bad9},
	{31, 0xd56aad7f410ed92f},
	{32, 0x299524a3cb690b69},
	{33, 0xe3e480bd7a46a5b2},
	{63, 0x4136038841488d1a},
	{64, 0x64bfe753916b76d7},
	{65, 0x016e927a5484d1fb},
	{96, 0x0100be5cd7bbab8d},
	{97, 0x1de8c46f20a4f6f2},
	{127, 0x5b65b576f11381f0},
	{128, 0x0ab589b07c0b2288},
	{129, 0x7dbd0c5b2622d756},
	{130, 0xfe734c84f8c170c4},
	{143, 0xfe9a72b2fc46dc47},
	{144, 0x2d135be451bd5626},
	{145, 0x2fb18eb6f015d0cb},
	{239, 0xa6f207268afc7fd5},
	{240, 0xfedb3d4c4f935a6e},
	{241, 0x0d78bc9c748024a7},
	{255, 0x7dc97f5aa5bded4f},
	{256, 0x024d790b2c4fdefb},
	{257, 0xd2efd63b0b95ee04},
	{1000, 0x350ed0ed46bb7fde},
	{1023, 0x15521f8b9b43dc0f},
	{1024, 0x46182daff2f9d8e1},
	{1025, 0x1f7a9173ce46bb59},
	{1088, 0x5eddac8bc7769cb8},
	{2048, 0x4b7b6e9c1af5e762},
	{2049, 0xe49c872a5fac1ea1},
	{5000, 0x06146d0d434d33ee},
	{10000, 0x02c2ecaaa6b26b10},
}

func TestXXH3Vectors(t *testing.T) {
	for _, v := range xxh3Vectors {
		if got := XXH3_64(testBytes(v.n)); got != v.want {
			t.Errorf("XXH3_64(len %d) = %#016x, want %#016x", v.n, got, v.want)
		}
	}
}

func TestXXH3Strings(t *testing.T) {
	// Values from xxhsum -H3.
	for s, want := range map[string]uint64{
		"":  0x2d06800538d394c2,
		"a": 0xe6c632b61e964e1f,
	} {
		if got := XXH3_64([]byte(s)); got != want {
			t.Errorf("XXH3_64(%q) = %#016x, want %#016x", s, got, want)
		}
	}
}

// TestXXH3AgainstXXHSum checks every length from 0 to 600 and a few long
// inputs against the xxhsum tool, when it is installed.
func TestXXH3AgainstXXHSum(t *testing.T) {
	tool, err := exec.LookPath("xxhsum")
	if err != nil {
		t.Skip("xxhsum not installed (apt-get install xxhash); skipping")
	}
	dir := t.TempDir()
	var lens []int
	for n := 0; n <= 600; n++ {
		lens = append(lens, n)
	}
	lens = append(lens, 1024+64, 3000, 4096, 4097, 16384+1)
	args := []string{"-H3"}
	for _, n := range lens {
		name := filepath.Join(dir, fmt.Sprintf("d%d", n))
		// Vary the content as well as the length.
		b := testBytes(n + 7)[7:]
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, name)
	}
	out, err := exec.Command(tool, args...).Output()
	if err != nil {
		t.Fatalf("xxhsum: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(lens) {
		t.Fatalf("xxhsum printed %d lines, want %d", len(lines), len(lens))
	}
	for i, line := range lines {
		// "XXH3 (<file>) = <hex>"
		j := strings.LastIndex(line, "= ")
		if j < 0 {
			t.Fatalf("unexpected xxhsum line %q", line)
		}
		want, err := strconv.ParseUint(strings.TrimSpace(line[j+2:]), 16, 64)
		if err != nil {
			t.Fatalf("unexpected xxhsum line %q: %v", line, err)
		}
		n := lens[i]
		if got := XXH3_64(testBytes(n + 7)[7:]); got != want {
			t.Errorf("XXH3_64(len %d) = %#016x, xxhsum says %#016x", n, got, want)
		}
	}
}

func FuzzXXH3(f *testing.F) {
	for _, n := range []int{0, 3, 8, 16, 128, 240, 241, 1025} {
		f.Add(testBytes(n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h := XXH3_64(b)
		if h != XXH3_64(append([]byte(nil), b...)) {
			t.Fatal("hash not deterministic")
		}
	})
}
