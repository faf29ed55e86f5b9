package compress

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// TestMeasure prints the Go encoder's sizes and speeds on the files in
// $GOFFLOAD_MEASURE_DIR (*.hipfb and friends), for NOTES.md. Skipped
// unless the variable is set.
func TestMeasure(t *testing.T) {
	dir := os.Getenv("GOFFLOAD_MEASURE_DIR")
	if dir == "" {
		t.Skip("set GOFFLOAD_MEASURE_DIR to a folder of uncompressed bundles")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil || len(src) == 0 {
			continue
		}
		for _, lvl := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression} {
			for _, win := range []int{0, encoderWindow(len(src))} {
				opts := []zstd.EOption{zstd.WithEncoderLevel(lvl), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1)}
				if win != 0 {
					opts = append(opts, zstd.WithWindowSize(win))
				}
				enc, _ := zstd.NewWriter(nil, opts...)
				out := enc.EncodeAll(src, nil)
				reps := 0
				start := time.Now()
				for time.Since(start) < 200*time.Millisecond {
					enc.EncodeAll(src, out[:0])
					reps++
				}
				el := time.Since(start) / time.Duration(reps)
				t.Logf("%s %s window=%d: %d -> %d  %.1f MB/s", filepath.Base(f), lvl, win, len(src), len(out), float64(len(src))/el.Seconds()/1e6)
			}
		}
		for _, level := range []int{-5, -2, -1, 1, 3, 6, 9, 19} {
			start := time.Now()
			h, err := Compress(io.Discard, src, Options{Level: level})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s Compress level %d: %d -> payload %d  %.1f MB/s", filepath.Base(f), level, len(src), h.TotalSize-32, float64(len(src))/time.Since(start).Seconds()/1e6)
		}
	}
}
