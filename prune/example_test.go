package prune_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/goffload/goffload/prune"
	"github.com/goffload/goffload/targetid"
)

// Keep only the code a gfx90a loads in a HIP shared library: write to a
// temporary file beside the output, rename it on success.
func Example() {
	in, err := os.Open("../testdata/inspect/libmulti.so")
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	fi, _ := in.Stat()
	dir, _ := os.MkdirTemp("", "prune-example")
	defer os.RemoveAll(dir)
	tmp, err := os.CreateTemp(dir, ".libmulti-*.so")
	if err != nil {
		log.Fatal(err)
	}
	gfx90a, err := targetid.ParseTarget("gfx90a")
	if err != nil {
		log.Fatal(err)
	}
	rep, err := prune.Rewrite(tmp, in, fi.Size(), in.Name(), prune.Options{Keep: []targetid.Target{gfx90a}})
	if err == nil {
		err = tmp.Close()
	}
	if err != nil {
		os.Remove(tmp.Name())
		log.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, "libmulti.so")); err != nil {
		log.Fatal(err)
	}
	dropped := 0
	for _, d := range rep.Decisions {
		if d.Action == prune.Dropped {
			dropped++
		}
	}
	fmt.Printf("dropped %d code objects: %d bytes -> %d bytes\n", dropped, rep.SizeBefore, rep.SizeAft)
	// Output:
	// dropped 6 code objects: 96904 bytes -> 51848 bytes
}
