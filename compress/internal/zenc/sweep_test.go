package zenc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

var presets = map[string]params{
	"greedy":    {minMatch: 5, hashLog: 20, depth: 1, targetLen: 128},
	"fast1":     {minMatch: 5, hashLog: 20, depth: 1, lazy: 1, targetLen: 128},
	"fast1ldm":  {minMatch: 5, hashLog: 20, depth: 1, lazy: 1, targetLen: 128, ldm: true},
	"f1h16":     {minMatch: 5, hashLog: 16, depth: 1, lazy: 1, targetLen: 128, ldm: true},
	"f1h17":     {minMatch: 5, hashLog: 17, depth: 1, lazy: 1, targetLen: 128, ldm: true},
	"f1h18":     {minMatch: 5, hashLog: 18, depth: 1, lazy: 1, targetLen: 128, ldm: true},
	"f1h17r6":   {minMatch: 5, hashLog: 17, depth: 1, lazy: 1, targetLen: 128, ldm: true, ldmLog: 6},
	"f1h17r7":   {minMatch: 5, hashLog: 17, depth: 1, lazy: 1, targetLen: 128, ldm: true, ldmLog: 7},
	"d1":        {minMatch: 5, hashLog: 17, longLog: 18, depth: 1, lazy: 1, targetLen: 128, ldm: true, ldmLog: 6},
	"d1m6":      {minMatch: 6, hashLog: 17, longLog: 18, depth: 1, lazy: 1, targetLen: 128, ldm: true, ldmLog: 6},
	"d1m4":      {minMatch: 4, hashLog: 17, longLog: 18, depth: 1, lazy: 1, targetLen: 128, ldm: true, ldmLog: 6},
	"d2":        {minMatch: 5, hashLog: 17, longLog: 18, depth: 1, lazy: 2, targetLen: 128, ldm: true, ldmLog: 6},
	"c4l2sL":    {minMatch: 5, hashLog: 20, chainLog: 22, longLog: 20, depth: 4, lazy: 2, targetLen: 128, ldm: true, skipIn: 32},
	"c8l2sL":    {minMatch: 5, hashLog: 20, chainLog: 22, longLog: 20, depth: 8, lazy: 2, targetLen: 128, ldm: true, skipIn: 32},
	"d1n":       {minMatch: 5, hashLog: 17, longLog: 18, depth: 1, lazy: 1, targetLen: 128},
	"d0n":       {minMatch: 5, hashLog: 17, longLog: 18, depth: 1, lazy: 0, targetLen: 128},
	"d0n16":     {minMatch: 5, hashLog: 16, longLog: 17, depth: 1, lazy: 0, targetLen: 128},
	"d0m6n":     {minMatch: 6, hashLog: 17, longLog: 18, depth: 1, lazy: 0, targetLen: 128},
	"fast":      {minMatch: 5, hashLog: 17, longLog: 18, depth: 1, targetLen: 128, fast: true},
	"fast16":    {minMatch: 5, hashLog: 16, longLog: 17, depth: 1, targetLen: 128, fast: true},
	"fast6":     {minMatch: 6, hashLog: 17, longLog: 18, depth: 1, targetLen: 128, fast: true},
	"fast4":     {minMatch: 4, hashLog: 17, longLog: 18, depth: 1, targetLen: 128, fast: true},
	"fastL":     {minMatch: 5, hashLog: 18, longLog: 20, depth: 1, targetLen: 128, fast: true},
	"fastH":     {minMatch: 5, hashLog: 18, longLog: 20, depth: 1, targetLen: 128, fast: true},
	"c4nL":      {minMatch: 5, hashLog: 18, chainLog: 20, longLog: 20, depth: 4, lazy: 2, targetLen: 128, skipIn: 32},
	"c8nL":      {minMatch: 5, hashLog: 18, chainLog: 20, longLog: 20, depth: 8, lazy: 2, targetLen: 128, skipIn: 32},
	"c16nL":     {minMatch: 5, hashLog: 18, chainLog: 20, longLog: 20, depth: 16, lazy: 2, targetLen: 128, skipIn: 32},
	"c4l1nL":    {minMatch: 5, hashLog: 18, chainLog: 20, longLog: 20, depth: 4, lazy: 1, targetLen: 128, skipIn: 32},
	"d1m4n":     {minMatch: 4, hashLog: 17, longLog: 18, depth: 1, lazy: 1, targetLen: 128},
	"d1m4r7":    {minMatch: 4, hashLog: 17, longLog: 18, depth: 1, lazy: 1, targetLen: 128, ldm: true, ldmLog: 7},
	"lvl3":      levelParams(3, 1<<30),
	"c4h18c20":  {minMatch: 5, hashLog: 18, chainLog: 20, depth: 4, lazy: 2, targetLen: 128, ldm: true, ldmLog: 6, skipIn: 32},
	"c4h17c19":  {minMatch: 5, hashLog: 17, chainLog: 19, depth: 4, lazy: 2, targetLen: 128, ldm: true, ldmLog: 6, skipIn: 32},
	"c16h18c20": {minMatch: 5, hashLog: 18, chainLog: 20, depth: 16, lazy: 2, targetLen: 128, ldm: true, ldmLog: 6, skipIn: 32},
	"c4h18c20L": {minMatch: 5, hashLog: 18, chainLog: 20, longLog: 18, depth: 4, lazy: 2, targetLen: 128, ldm: true, ldmLog: 6, skipIn: 32},
	"lvl6":      levelParams(6, 1<<30),
	"lvl9":      levelParams(9, 1<<30),
	"f0h17":     {minMatch: 5, hashLog: 17, depth: 1, lazy: 0, targetLen: 128, ldm: true},
	"c4l2ldm":   {minMatch: 5, hashLog: 20, chainLog: 22, depth: 4, lazy: 2, targetLen: 128, ldm: true},
	"c16l2ldm":  {minMatch: 5, hashLog: 20, chainLog: 22, depth: 16, lazy: 2, targetLen: 128, ldm: true},
	"c64l2ldm":  {minMatch: 5, hashLog: 20, chainLog: 22, depth: 64, lazy: 2, targetLen: 256, ldm: true},
	"c16l2m4":   {minMatch: 4, hashLog: 20, chainLog: 22, depth: 16, lazy: 2, targetLen: 128, ldm: true},
	"c256l2ldm": {minMatch: 4, hashLog: 21, chainLog: 23, depth: 256, lazy: 2, targetLen: 1024, ldm: true},
	"c4l2s":     {minMatch: 5, hashLog: 20, chainLog: 22, depth: 4, lazy: 2, targetLen: 128, ldm: true, skipIn: 32},
	"c16l2s":    {minMatch: 5, hashLog: 20, chainLog: 22, depth: 16, lazy: 2, targetLen: 128, ldm: true, skipIn: 32},
	"c16l2m4s":  {minMatch: 4, hashLog: 20, chainLog: 22, depth: 16, lazy: 2, targetLen: 128, ldm: true, skipIn: 64},
}

// TestSweep reports sizes and CPU times of the presets in $ZENC_PRESETS
// (comma-separated; all when empty) on the files in $ZENC_SAMPLES.
func TestSweep(t *testing.T) {
	files := strings.Fields(os.Getenv("ZENC_SAMPLES"))
	if len(files) == 0 {
		t.Skip("set ZENC_SAMPLES to files to measure")
	}
	names := strings.Split(os.Getenv("ZENC_PRESETS"), ",")
	if names[0] == "" {
		names = []string{"greedy", "fast1", "fast1ldm", "c4l2ldm", "c16l2ldm", "c64l2ldm", "c16l2m4", "c256l2ldm"}
	}
	workers, _ := strconv.Atoi(os.Getenv("ZENC_WORKERS"))
	workers = max(workers, 1)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			p := presets[name]
			best, wall := time.Hour, time.Hour
			var n int
			for range 3 {
				start, w := cpuTime(), time.Now()
				n = len(encode(nil, src, p, workers))
				best = min(best, cpuTime()-start)
				wall = min(wall, time.Since(w))
			}
			if !checkRoundTrip(encode(nil, src, p, workers), src) {
				t.Errorf("%s %s: round trip failed", f, name)
			}
			t.Logf("%-24s %-10s %9d -> %8d in %v cpu, %v wall", f, name, len(src), n+32-9, best.Round(time.Millisecond), wall.Round(time.Millisecond))
		}
	}
}

func checkRoundTrip(enc, src []byte) bool {
	d, _ := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(1<<30), zstd.WithDecoderMaxMemory(1<<34))
	defer d.Close()
	got, err := d.DecodeAll(enc, nil)
	return err == nil && bytes.Equal(got, src)
}
