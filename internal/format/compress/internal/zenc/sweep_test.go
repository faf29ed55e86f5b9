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
	// parseFast: greedy, lazy one or two bytes, larger tables.
	"fast":      {minMatch: 5, hashLog: 17, longLog: 18, depth: 1, targetLen: 128, fast: true},
	"fastL1":    {minMatch: 5, hashLog: 17, longLog: 18, depth: 1, lazy: 1, targetLen: 128, fast: true},
	"fastL1H":   {minMatch: 5, hashLog: 18, longLog: 20, depth: 1, lazy: 1, targetLen: 128, fast: true},
	"fastL1t32": {minMatch: 5, hashLog: 17, longLog: 18, depth: 1, lazy: 1, targetLen: 32, fast: true},
	"fastL2":    {minMatch: 5, hashLog: 17, longLog: 18, depth: 1, lazy: 2, targetLen: 128, fast: true},
	"fastL2H":   {minMatch: 5, hashLog: 18, longLog: 20, depth: 1, lazy: 2, targetLen: 256, fast: true},
	"fastL2HH":  {minMatch: 5, hashLog: 20, longLog: 22, depth: 1, lazy: 2, targetLen: 256, fast: true},
	"fastL2m4":  {minMatch: 4, hashLog: 18, longLog: 20, depth: 1, lazy: 2, targetLen: 256, fast: true},
	"fastL2m6":  {minMatch: 6, hashLog: 18, longLog: 20, depth: 1, lazy: 2, targetLen: 256, fast: true},
	"fc2":       {minMatch: 5, hashLog: 18, longLog: 20, chainLog: 18, depth: 2, lazy: 2, targetLen: 256, fast: true},
	"fc4":       {minMatch: 5, hashLog: 18, longLog: 20, chainLog: 18, depth: 4, lazy: 2, targetLen: 256, fast: true},
	"fc8":       {minMatch: 4, hashLog: 18, longLog: 20, chainLog: 20, depth: 8, lazy: 2, targetLen: 256, fast: true},
	"fc16":      {minMatch: 4, hashLog: 18, longLog: 20, chainLog: 20, depth: 16, lazy: 2, targetLen: 256, fast: true},
	"fc32":      {minMatch: 4, hashLog: 20, longLog: 20, chainLog: 22, depth: 32, lazy: 2, targetLen: 256, fast: true},
	"fc64":      {minMatch: 4, hashLog: 20, longLog: 22, chainLog: 22, depth: 64, lazy: 2, targetLen: 512, fast: true},
	"f1416":     {minMatch: 5, hashLog: 14, longLog: 16, lazy: 1, targetLen: 128, fast: true},
	"f1517":     {minMatch: 5, hashLog: 15, longLog: 17, lazy: 1, targetLen: 128, fast: true},
	"f1617":     {minMatch: 5, hashLog: 16, longLog: 17, lazy: 1, targetLen: 128, fast: true},
	"f1315":     {minMatch: 5, hashLog: 13, longLog: 15, lazy: 1, targetLen: 128, fast: true},
	"g1416":     {minMatch: 5, hashLog: 14, longLog: 16, targetLen: 128, fast: true},
	"f2m4s":     {minMatch: 4, hashLog: 16, longLog: 18, lazy: 2, targetLen: 256, fast: true},
	"f2m5s":     {minMatch: 5, hashLog: 16, longLog: 18, lazy: 2, targetLen: 256, fast: true},
	"fc4s":      {minMatch: 5, hashLog: 16, longLog: 18, chainLog: 17, depth: 4, lazy: 2, targetLen: 256, fast: true},
	"fc8s":      {minMatch: 4, hashLog: 16, longLog: 18, chainLog: 18, depth: 8, lazy: 2, targetLen: 256, fast: true},
	// Hash chains with long-distance matches (parse).
	"c4":   {minMatch: 5, hashLog: 18, chainLog: 20, depth: 4, lazy: 2, targetLen: 128, ldm: true, ldmLog: 6, skipIn: 32},
	"c16":  {minMatch: 5, hashLog: 18, chainLog: 20, depth: 16, lazy: 2, targetLen: 128, ldm: true, ldmLog: 6, skipIn: 32},
	"c4L":  {minMatch: 5, hashLog: 18, chainLog: 20, longLog: 18, depth: 4, lazy: 2, targetLen: 128, ldm: true, ldmLog: 6, skipIn: 32},
	"c64":  {minMatch: 4, hashLog: 20, chainLog: 22, depth: 64, lazy: 2, targetLen: 256, ldm: true},
	"c256": {minMatch: 4, hashLog: 21, chainLog: 23, depth: 256, lazy: 2, targetLen: 1024, ldm: true},
	// Hash chains without them, an 8-byte table instead.
	"c4nL":  {minMatch: 5, hashLog: 18, chainLog: 20, longLog: 20, depth: 4, lazy: 2, targetLen: 128, skipIn: 32},
	"c16nL": {minMatch: 5, hashLog: 18, chainLog: 20, longLog: 20, depth: 16, lazy: 2, targetLen: 128, skipIn: 32},
	// The row parser (parseRow): level 10's and 12's settings, and a
	// table of half the rows (1% larger on rocSPARSE 5.7.1).
	"row20": {minMatch: 5, hashLog: 20, depth: 8, lazy: 2, targetLen: 32, row: true, ldm: true, ldmLog: 6, skipIn: 8},
	"lvl10": levelParams(10, 1<<30),
	"lvl1":  levelParams(1, 1<<30),
	"lvl6":  levelParams(6, 1<<30),
	"lvl9":  levelParams(9, 1<<30),
	"lvl12": levelParams(12, 1<<30),
	"lvl19": levelParams(19, 1<<30),
}

// TestSweep reports sizes and CPU times of the presets in $ZENC_PRESETS
// (comma-separated; L1 to L22 for a level's settings; lvl1, lvl6, lvl9,
// lvl12 and lvl19 when empty) on the files in $ZENC_SAMPLES. With
// ZENC_ONCE=1 each is encoded once and not checked: the run to count
// instructions with (valgrind --tool=cachegrind), where timings wander.
func TestSweep(t *testing.T) {
	files := strings.Fields(os.Getenv("ZENC_SAMPLES"))
	if len(files) == 0 {
		t.Skip("set ZENC_SAMPLES to files to measure")
	}
	names := strings.Split(os.Getenv("ZENC_PRESETS"), ",")
	if names[0] == "" {
		names = []string{"lvl1", "lvl6", "lvl9", "lvl12", "lvl19"}
	}
	workers, _ := strconv.Atoi(os.Getenv("ZENC_WORKERS"))
	workers = max(workers, 1)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			p, ok := presets[name]
			if l, err := strconv.Atoi(strings.TrimPrefix(name, "L")); err == nil && name[0] == 'L' {
				p, ok = levelParams(l, len(src)), true // L19: level 19's settings
			}
			if !ok {
				t.Fatalf("no preset %q", name)
			}
			if os.Getenv("ZENC_ONCE") != "" {
				t.Logf("%-24s %-10s %9d -> %8d", f, name, len(src), len(encode(nil, src, p, workers))+32-9)
				continue
			}
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
