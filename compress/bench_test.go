package compress

import (
	"bytes"
	"io"
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
