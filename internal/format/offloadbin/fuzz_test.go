package offloadbin

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/fmterr"
)

func FuzzReadAll(f *testing.F) {
	for _, path := range goldenBins(f) {
		data, _ := os.ReadFile(path)
		f.Add(data)
	}
	f.Add(buildV2(2, v2Images))
	f.Add(buildV2(3, v2Images))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, strict := range []bool{true, false} {
			var opts []ReadOption
			if strict {
				opts = append(opts, V1Only())
			}
			bins, err := ReadAll(bytes.NewReader(data), int64(len(data)), append(opts, MaxInflatedSize(1<<20))...)
			if err != nil {
				continue
			}
			for _, b := range bins {
				if b.ImageSize() < 0 || b.ImageSize() > int64(len(data)) && b.Version < 3 {
					t.Fatalf("image size %d from %d bytes", b.ImageSize(), len(data))
				}
				buf := make([]byte, b.ImageSize())
				if _, err := b.Image().ReadAt(buf, 0); err != nil && len(buf) > 0 {
					t.Fatalf("image not readable: %v", err)
				}
			}
		}
	})
}

func FuzzExtract(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "inputs", "*"))
	for _, path := range inputs {
		if fi, err := os.Stat(path); err == nil && fi.Size() <= 32<<10 && !strings.HasSuffix(path, "thin.a") {
			data, _ := os.ReadFile(path)
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		found, err := Extract(bytes.NewReader(data), int64(len(data)), "fuzz", V1Only())
		if err != nil {
			if fmterr.LLVMMessage(err) == "" {
				t.Fatal("empty message")
			}
			return
		}
		for _, b := range found {
			if b.ImageSize() > int64(len(data)) {
				t.Fatalf("image of %d bytes in a %d-byte input", b.ImageSize(), len(data))
			}
		}
	})
}
