package bitcode

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbeddedObjectsGolden checks EmbeddedObjects against the bytes of the
// .llvm.offloading section clang-22 makes from the same bitcode (NAME.N.obj),
// and that files without llvm.embedded.objects give nothing.
func TestEmbeddedObjectsGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.bc")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := EmbeddedObjects(bytes.NewReader(data), int64(len(data)))
			if filepath.Base(f) == "multi.bc" {
				if err == nil {
					t.Fatal("no error for a file with two modules")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want [][]byte
			for i := 0; ; i++ {
				b, err := os.ReadFile(fmt.Sprintf("%s.%d.obj", strings.TrimSuffix(f, ".bc"), i))
				if err != nil {
					break
				}
				want = append(want, b)
			}
			if len(got) != len(want) {
				t.Fatalf("got %d objects, want %d", len(got), len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i], want[i]) {
					t.Errorf("object %d: got %d bytes, want %d; differ", i, len(got[i]), len(want[i]))
				}
			}
		})
	}
}
