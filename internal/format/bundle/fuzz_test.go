package bundle

import (
	"bytes"
	"github.com/goffload/goffload/targetid"
	"io"
	"os"
	"testing"
)

// FuzzOpen reads any input as a bundle, with and without a type: no panic,
// no read outside the input, inflation capped.
func FuzzOpen(f *testing.F) {
	for _, c := range listCases {
		if data, err := os.ReadFile(c.file); err == nil && len(data) < 64<<10 {
			f.Add(data, c.typ)
		}
	}
	f.Add([]byte("\n// __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64--linux-\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64--linux-\n"), "")
	f.Fuzz(func(t *testing.T, data []byte, typ string) {
		b, err := Open(bytes.NewReader(data), int64(len(data)), &Options{Type: typ, MaxInflated: 4 << 20, MaxText: 4 << 20})
		if err != nil {
			return
		}
		defer b.Close()
		entries, _ := b.Entries()
		for _, e := range entries {
			if r, err := e.Open(); err == nil {
				io.Copy(io.Discard, r)
			}
			e.Processor()
		}
		b.Select(targetid.MustParseTarget("gfx90a:xnack+"))
		b.Select(targetid.MustParseTarget("hip-amdgcn-amd-amdhsa--gfx906"))
		w := b.Walk()
		for i := 0; i < 1000; i++ {
			if _, err := w.Next(); err != nil {
				break
			}
		}
	})
}
