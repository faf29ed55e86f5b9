package compress

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"testing"
)

func BenchmarkCompress(b *testing.B) {
	src := readTestdata(b, "bundle.bin")
	for _, level := range []int{1, 3, 6, 9, 19} {
		b.Run("level"+itoaTest(level), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			var h Header
			for b.Loop() {
				h, _ = Compress(io.Discard, src, Options{Level: level})
			}
			b.ReportMetric(float64(h.TotalSize), "bytes/op-out")
		})
	}
}

// BenchmarkCompressFile compresses $GOFFLOAD_BENCH_FILE (an uncompressed
// bundle, such as the one scripts/bench-compress.sh makes) at
// $GOFFLOAD_BENCH_LEVEL, for profiling: go test -bench CompressFile
// -cpuprofile cpu.prof ./compress.
func BenchmarkCompressFile(b *testing.B) {
	src, err := os.ReadFile(os.Getenv("GOFFLOAD_BENCH_FILE"))
	if err != nil {
		b.Skip("set GOFFLOAD_BENCH_FILE (and GOFFLOAD_BENCH_LEVEL)")
	}
	level, _ := strconv.Atoi(os.Getenv("GOFFLOAD_BENCH_LEVEL"))
	b.SetBytes(int64(len(src)))
	var h Header
	for b.Loop() {
		h, _ = Compress(io.Discard, src, Options{Level: level})
	}
	b.ReportMetric(float64(h.TotalSize), "bytes/op-out")
}

func BenchmarkDecompress(b *testing.B) {
	blob := readTestdata(b, "v3-default.cbc")
	b.SetBytes(int64(len(readTestdata(b, "bundle.bin"))))
	for b.Loop() {
		if _, _, err := DecompressLLVM(blob); err != nil {
			b.Fatal(err)
		}
	}
	_ = bytes.MinRead
}

func itoaTest(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return string(rune('0'+n/10)) + string(rune('0'+n%10))
}
