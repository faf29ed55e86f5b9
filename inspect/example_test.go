package inspect_test

import (
	"fmt"
	"github.com/goffload/goffload/targetid"
	"io"
	"log"
	"os"

	"github.com/goffload/goffload/inspect"
)

// List every GPU code object of a shared library, whatever holds it.
func Example() {
	l, err := inspect.ReadFile("../testdata/inspect/libmulti-ccob.so", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	for _, o := range l.Devices()[:3] {
		fmt.Printf("%-24s %5d bytes in %v\n", o.TargetID, o.Size, o.Path)
	}
	fmt.Println(len(l.Devices()), "code objects,", len(l.Errors), "errors")
	// Output:
	// gfx906                    6104 bytes in [.hip_fatbin bundle 0 (CCOB v3 zstd)]
	// gfx90a:xnack+             7096 bytes in [.hip_fatbin bundle 0 (CCOB v3 zstd)]
	// gfx942:sramecc+:xnack-    7032 bytes in [.hip_fatbin bundle 0 (CCOB v3 zstd)]
	// 9 code objects, 0 errors
}

// Take out the code objects a GPU would load: one per bundle, under the
// target-ID rules (a gfx90a in xnack+ mode loads gfx90a:xnack+ or plain
// gfx90a code, not gfx90a:xnack-).
func ExampleListing_ForTarget() {
	l, err := inspect.ReadFile("../testdata/inspect/libmulti.so", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	gpu, err := targetid.ParseTarget("gfx90a:xnack+")
	if err != nil {
		log.Fatal(err)
	}
	picked, err := l.ForTarget(gpu)
	if err != nil {
		log.Fatal(err) // a *targetid.NoMatchError says why each object does not fit
	}
	for _, o := range picked {
		r, err := o.Open() // streams; compressed bundles inflate only this far
		if err != nil {
			log.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(o.ID, n, o.Code.Processor, "xnack", o.Code.Xnack)
	}
	// Output:
	// hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+ 7096 gfx90a xnack on
	// hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+ 6752 gfx90a xnack on
	// hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+ 6592 gfx90a xnack on
}

// Count a library's code objects per processor without holding them: Walk
// hands each on as soon as its facts are read.
func ExampleWalk() {
	f, err := os.Open("../testdata/inspect/libmulti.so")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	per := map[string]int{}
	l, err := inspect.Walk(f, fi.Size(), f.Name(), nil, func(l *inspect.Listing, o *inspect.Object) error {
		if !o.Host {
			per[o.Header().Processor]++
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	fmt.Println(l.Kind, per, len(l.Errors), "errors")
	// Output:
	// ELF shared object map[gfx906:3 gfx90a:3 gfx942:3] 0 errors
}
