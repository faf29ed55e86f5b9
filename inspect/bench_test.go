package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadCodeObject reads one real code object's facts (processor,
// modes, kernel count): what listing a library does per code object.
func BenchmarkReadCodeObject(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(realDir, "gfx90a.co"))
	if err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(data)
	b.ReportAllocs()
	for b.Loop() {
		if c := ReadCodeObject(r, int64(len(data))); c.Processor != "gfx90a" || c.Kernels <= 0 {
			b.Fatalf("%+v", c)
		}
	}
}

// BenchmarkReadLibrary lists a shared library with three bundles of three
// code objects each, headers read.
func BenchmarkReadLibrary(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(realDir, "libmulti.so"))
	if err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(data)
	b.ReportAllocs()
	for b.Loop() {
		if l := Read(r, int64(len(data)), "libmulti.so", nil); len(l.Errors) > 0 || len(l.Objects) == 0 {
			b.Fatalf("%v", l.Errors)
		}
	}
}
