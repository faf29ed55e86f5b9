package hipfatbin

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/internal/format/fatbin"
	"github.com/goffload/goffload/internal/objfile"
)

// TestWrappers: on real clang 22 links (lld, which writes the address as a
// RELATIVE relocation's addend; GNU ld, which writes it in place too; a
// non-PIE executable, in place only), every wrapper resolves to the start
// of a bundle of .hip_fatbin.
func TestWrappers(t *testing.T) {
	for _, name := range []string{"libmulti.so", "libmulti-ccob.so", "exe-pie", "exe-nopie", "exe-nopie-bfd"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "inspect", name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := objfile.NewELF(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		secs, err := f.Sections()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.NameSections(secs); err != nil {
			t.Fatal(err)
		}
		seg, fat := objfile.Lookup(secs, ".hipFatBinSegment"), objfile.Lookup(secs, ".hip_fatbin")
		if seg == nil || fat == nil {
			t.Fatalf("%s: no .hipFatBinSegment or .hip_fatbin", name)
		}
		starts := map[uint64]bool{}
		sec := bytes.NewReader(data[fat.Offset : fat.Offset+fat.Size])
		fatbin.Runs(sec, int64(fat.Size), func(it fatbin.Item) error {
			starts[fat.Addr+uint64(it.Offset)] = true
			return nil
		})
		ws, err := Wrappers(f, secs, seg)
		if err != nil || len(ws) == 0 {
			t.Fatalf("%s: %d wrappers, %v", name, len(ws), err)
		}
		for _, w := range ws {
			if w.Magic != MagicHIPF || !starts[w.Address] || w.Offset != int64(seg.Offset)+int64(w.Index*WrapperSize) {
				t.Errorf("%s: wrapper %+v does not point at a bundle start (%v)", name, w, starts)
			}
			if w.Stored == 0 && !w.Relocated {
				t.Errorf("%s: wrapper %d: address 0 and no relocation", name, w.Index)
			}
		}
	}
}
