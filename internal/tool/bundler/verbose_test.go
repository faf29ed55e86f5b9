package bundler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goffload/goffload/internal/format/compress"
)

// ccobTestdata reads one of package compress's golden CCOBs.
func ccobTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "format", "compress", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Expected texts are LLVM 22's verbose output for the same files (with the
// timing-dependent speed lines replaced).
func TestFormatCompressStats(t *testing.T) {
	h, _ := compress.ParseHeader(ccobTestdata(t, "v3-default.cbc"))
	h.TotalSize = 3891
	checkLines(t, formatCompressStats(h, 30, 3859, time.Second), `Compressed bundle format version: 3
Total file size (including headers): 3,891 bytes
Compression method used: zstd
Compression level: 30
Binary size before compression: 48,812 bytes
Binary size after compression: 3,859 bytes
Compression rate: 12.65
Compression ratio: 7.91%
Compression speed: 0.05 MB/s
Truncated MD5 hash: 0x5f9372749e0260f0`)
	h, _ = compress.ParseHeader(ccobTestdata(t, "v2-default.cbc"))
	checkLines(t, formatCompressStats(h, 3, 4443, 10*time.Millisecond), `Compressed bundle format version: 2
Total file size (including headers): 4,467 bytes
Compression method used: zstd
Compression level: 3
Binary size before compression: 48,812 bytes
Binary size after compression: 4,443 bytes
Compression rate: 10.99
Compression ratio: 9.10%
Compression speed: 4.66 MB/s
Truncated MD5 hash: 0x5f9372749e0260f0`)
	h, _ = compress.ParseHeader(ccobTestdata(t, "empty.cbc"))
	checkLines(t, formatCompressStats(h, 3, 9, time.Millisecond), `Compressed bundle format version: 3
Total file size (including headers): 41 bytes
Compression method used: zstd
Compression level: 3
Binary size before compression: 0 bytes
Binary size after compression: 9 bytes
Compression rate: 0.00
Compression ratio: inf%
Compression speed: 0.00 MB/s
Truncated MD5 hash: 0x4b2008fd98c1dd4`)
}

func TestFormatDecompressStats(t *testing.T) {
	h, _ := compress.ParseHeader(ccobTestdata(t, "v3-default.cbc"))
	checkLines(t, formatDecompressStats(h, 4443, 2*time.Second, h.HashValue()), `Compressed bundle format version: 3
Total file size (from header): 4,475 bytes
Decompression method: zstd
Size before decompression: 4,443 bytes
Size after decompression: 48,812 bytes
Compression rate: 10.99
Compression ratio: 9.10%
Decompression speed: 0.02 MB/s
Stored hash: 0x5f9372749e0260f0
Recalculated hash: 0x5f9372749e0260f0
Hashes match: Yes`)
	// An empty payload with size 0, then with size 5 (LLVM prints -nan, inf).
	h0 := h
	h0.UncompressedSize = 0
	checkLines(t, formatDecompressStats(h0, 0, time.Millisecond, 0x04b2008fd98c1dd4), `Compressed bundle format version: 3
Total file size (from header): 4,475 bytes
Decompression method: zstd
Size before decompression: 0 bytes
Size after decompression: 0 bytes
Compression rate: -nan
Compression ratio: -nan%
Decompression speed: 0.00 MB/s
Stored hash: 0x5f9372749e0260f0
Recalculated hash: 0x4b2008fd98c1dd4
Hashes match: No`)
	h0.UncompressedSize = 5
	got := formatDecompressStats(h0, 0, time.Millisecond, 0x04b2008fd98c1dd4)
	if got[5] != "Compression rate: inf" || got[6] != "Compression ratio: 0.00%" {
		t.Errorf("size 5, empty payload: %q", got[5:7])
	}
	// Version 1 has no total-size line.
	h.Version = 1
	got = formatDecompressStats(h, 4443, time.Second, h.HashValue())
	if got[0] != "Compressed bundle format version: 1" || got[1] != "Decompression method: zstd" || len(got) != 10 {
		t.Errorf("v1: %q", got)
	}
}

func TestFormatHelpers(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 999: "999", 1000: "1,000", 3863798: "3,863,798", 1 << 40: "1,099,511,627,776"} {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
	for v, want := range map[uint64]string{0x04b2008fd98c1dd4: "0x4b2008fd98c1dd4", 0xc8a55e2ceecc8a93: "0xc8a55e2ceecc8a93", 0: "0x00000000000000", 0x0dedac46d5f588ff: "0xdedac46d5f588ff"} {
		if got := compress.FormatHash(v); got != want {
			t.Errorf("compress.FormatHash(%#x) = %q, want %q", v, got, want)
		}
	}
	if got := statFloat(statDiv(1, 0)); got != "inf" {
		t.Errorf("1/0 = %q", got)
	}
	if got := formatDecompressStats(compress.Header{Version: 3, UncompressedSize: 1 << 20}, 10, 0, 0)[7]; got != "Decompression speed: inf MB/s" {
		t.Errorf("zero time: %q", got)
	}
}

func checkLines(t *testing.T, got []string, want string) {
	t.Helper()
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("got:\n%s\nwant:\n%s", g, want)
	}
}
