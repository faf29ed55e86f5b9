package compress

import (
	"io"
	"os"
	"strconv"
	"syscall"
	"testing"
)

func BenchmarkBig(b *testing.B) {
	src, err := os.ReadFile(os.Getenv("BIG"))
	if err != nil {
		b.Skip()
	}
	lv, _ := strconv.Atoi(os.Getenv("LEVEL"))
	b.SetBytes(int64(len(src)))
	var h Header
	var r0, r1 syscall.Rusage
	syscall.Getrusage(0, &r0)
	for b.Loop() {
		h, _ = Compress(io.Discard, src, Options{Level: lv})
	}
	syscall.Getrusage(0, &r1)
	cpu := float64(r1.Utime.Nano()+r1.Stime.Nano()-r0.Utime.Nano()-r0.Stime.Nano()) / 1e6 / float64(b.N)
	b.ReportMetric(float64(h.TotalSize), "B")
	b.ReportMetric(cpu, "cpu-ms")
}
