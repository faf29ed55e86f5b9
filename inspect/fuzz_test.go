package inspect

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/compress"
)

// FuzzRead walks arbitrary bytes: no panic, every object's place lies
// inside the input, and opening an object never reads more than its size.
func FuzzRead(f *testing.F) {
	b := threeTargets(f)
	f.Add(b)
	f.Add(ccob(f, b, compress.Options{Version: 3}))
	f.Add(ccob(f, b, compress.Options{Version: 1, Zlib: true}))
	if text, err := os.ReadFile("../testdata/inspect/kernel.s"); err == nil {
		f.Add(ccob(f, text, compress.Options{Version: 3})) // a compressed text bundle
	}
	for _, pattern := range []string{"../testdata/inspect/*", "../testdata/example/*", "../testdata/llvmtests/*", "testdata/*"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
				continue
			}
			if strings.HasSuffix(name, ".sh") || strings.HasSuffix(name, ".objdump") || strings.HasSuffix(name, ".readobj") || strings.HasSuffix(name, ".offload-binary") {
				continue // scripts and saved tool outputs
			}
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := Read(bytes.NewReader(data), int64(len(data)), "fuzz", nil)
		defer l.Close()
		for _, o := range l.Objects {
			if o.Size < 0 || o.Offset >= 0 && (o.Offset > int64(len(data)) || o.Size > int64(len(data))-o.Offset) {
				t.Fatalf("%s: offset %d size %d outside the %d-byte input", o.Where(), o.Offset, o.Size, len(data))
			}
			if o.Compressed != nil && o.Compressed.InnerOffset+o.Size > 16<<20 {
				continue // a lying size can ask for gigabytes of inflating
			}
			r, err := o.Open()
			if err != nil {
				continue
			}
			n, _ := io.Copy(io.Discard, io.LimitReader(r, o.Size+1))
			if n > o.Size {
				t.Fatalf("%s: read more than its %d bytes", o.Where(), o.Size)
			}
		}
		for _, e := range l.Errors {
			if e.Error() == "" {
				t.Fatal("empty error")
			}
		}
	})
}
