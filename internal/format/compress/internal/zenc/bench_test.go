package zenc

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func BenchmarkEncode(b *testing.B) {
	f := os.Getenv("ZENC_SAMPLE")
	if f == "" {
		b.Skip("set ZENC_SAMPLE")
	}
	src, _ := os.ReadFile(f)
	p := params{minMatch: 5, hashLog: 20, chainLog: 22, depth: 4, lazy: 1, targetLen: 128, ldm: true}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		encode(nil, src, p, 0)
	}
}

func BenchmarkLDM(b *testing.B) {
	f := os.Getenv("ZENC_SAMPLE")
	if f == "" {
		b.Skip("set ZENC_SAMPLE")
	}
	src, _ := os.ReadFile(f)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		findLDM(src, sampleChunks(src, []int{0, len(src)}, 1), 0, 0, 5)
	}
}

func BenchmarkSmall(b *testing.B) {
	src := []byte("hello hello hello world world world, a small input of about a hundred bytes with some repeats repeats")
	for b.Loop() {
		Encode(nil, src, 3, 1)
	}
}

// BenchmarkPreset encodes $ZENC_SAMPLE with the sweep preset $ZENC_PRESET.
func BenchmarkPreset(b *testing.B) {
	src, err := os.ReadFile(os.Getenv("ZENC_SAMPLE"))
	if err != nil {
		b.Skip("set ZENC_SAMPLE and ZENC_PRESET")
	}
	p := presets[os.Getenv("ZENC_PRESET")]
	b.SetBytes(int64(len(src)))
	start := cpuTime()
	for b.Loop() {
		encode(nil, src, p, 1)
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(len(encode(nil, src, p, 1))), "bytes")
}

// BenchmarkLevel encodes $ZENC_SAMPLE at each level in $ZENC_LEVELS
// (default "1 3 6 9 12 19") with one worker: the encoder's CPU time.
func BenchmarkLevel(b *testing.B) {
	src, err := os.ReadFile(os.Getenv("ZENC_SAMPLE"))
	if err != nil {
		b.Skip("set ZENC_SAMPLE")
	}
	levels := os.Getenv("ZENC_LEVELS")
	if levels == "" {
		levels = "1 3 6 9 12 19"
	}
	for _, l := range strings.Fields(levels) {
		level, _ := strconv.Atoi(l)
		b.Run("level="+l, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			var n int
			start := cpuTime()
			for b.Loop() {
				n = len(Encode(nil, src, level, 1))
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(n), "bytes")
		})
	}
}

// BenchmarkCoder entropy-codes $ZENC_SAMPLE's blocks from their level-1
// sequences, parsed once: the coder's time alone (ns/op per input).
func BenchmarkCoder(b *testing.B) {
	src, err := os.ReadFile(os.Getenv("ZENC_SAMPLE"))
	if err != nil {
		b.Skip("set ZENC_SAMPLE")
	}
	p := levelParams(1, len(src))
	m := newMatcher(src, p, 0, len(src))
	var blocks [][]seq
	for s := 0; s < len(src); s += blockMax {
		blocks = append(blocks, m.parseFast(s, min(s+blockMax, len(src)), nil))
	}
	dst := make([]byte, 0, len(src)/4)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		c := newCoder()
		dst = dst[:0]
		for i, seqs := range blocks {
			s := i * blockMax
			e := min(s+blockMax, len(src))
			dst = c.encodeBlock(dst, src[s:e], seqs, e == len(src))
		}
	}
	b.ReportMetric(float64(len(dst)), "bytes")
}
