package bundle_test

import (
	"bytes"
	"fmt"
	"github.com/goffload/goffload/targetid"
	"io"
	"log"
	"os"

	"github.com/goffload/goffload/bundle"
)

// open opens a file for Open: an io.ReaderAt and its size.
func open(name string) (*os.File, int64) {
	f, err := os.Open(name)
	if err != nil {
		log.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	return f, fi.Size()
}

// List the bundle IDs of a fat object (clang -fgpu-rdc -c), in the order
// clang-offload-bundler -list prints them, each split into its parts.
func Example() {
	f, size := open("../testdata/inspect/rdc.o")
	defer f.Close()
	b, err := bundle.Open(f, size, nil) // the format is detected
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	entries, err := b.Entries()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Format)
	for _, e := range entries {
		fmt.Printf("%-6s %-24s %-22s %d bytes\n", e.Kind(), e.Triple(), e.TargetID(), e.Size())
	}
	// Output:
	// object
	// hip    amdgcn-amd-amdhsa-       gfx906                 4296 bytes
	// hip    amdgcn-amd-amdhsa-       gfx90a:xnack+          4812 bytes
	// hip    amdgcn-amd-amdhsa-       gfx942:sramecc+:xnack- 5280 bytes
	// host   x86_64-pc-linux-gnu                             1 bytes
}

// Extract the code a gfx90a in xnack+ mode would load from a binary bundle
// (clang -c -emit-llvm): the entry built for gfx90a:xnack+.
func ExampleBundle_Select() {
	f, size := open("../testdata/inspect/kernel.bc")
	defer f.Close()
	b, err := bundle.Open(f, size, &bundle.Options{Type: "bc"}) // -type=bc
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	e, err := b.Select(targetid.MustParseTarget("gfx90a:xnack+"))
	if err != nil {
		log.Fatal(err)
	}
	r, err := e.Open()
	if err != nil {
		log.Fatal(err)
	}
	var code bytes.Buffer
	if _, err := io.Copy(&code, r); err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.ID, code.Len(), "bytes of bitcode:", bytes.HasPrefix(code.Bytes(), []byte("BC")))

	_, err = b.Select(targetid.MustParseTarget("gfx1100"))
	fmt.Println(err)
	// Output:
	// hip-amdgcn-amd-amdhsa--gfx90a:xnack+ 4812 bytes of bitcode: true
	// targetid: no code object for gfx1100: gfx906: built for gfx906; gfx90a:xnack+: built for gfx90a; gfx942:sramecc+:xnack-: built for gfx942
}

// Read a compressed bundle (clang-offload-bundler -compress, a CCOB): Open
// inflates it (into memory here; Options.Scratch can name other storage).
func Example_compressed() {
	f, size := open("../testdata/inspect/gfx90a-ccob.co")
	defer f.Close()
	b, err := bundle.Open(f, size, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	c := b.CCOBs[0]
	fmt.Printf("CCOB v%d %s, %d bytes inflated to %d, a %s bundle\n", c.Version, c.Method, c.PayloadSize, c.UncompressedSize, b.Format)
	entries, _ := b.Entries()
	for _, e := range entries {
		fmt.Println(e.ID, e.Size())
	}
	// Output:
	// CCOB v3 zstd, 2285 bytes inflated to 7237, a binary bundle
	// hipv4-amdgcn-amd-amdhsa--gfx90a 7096
	// host-x86_64-unknown-linux-gnu- 0
}

// List an OffloadBinary (llvm-offload-binary, clang --offload-new-driver):
// not an offload bundle, but its images are read as entries when no type is
// given. Package inspect lists their full metadata (image kind, strings).
func Example_offloadBinary() {
	f, size := open("../testdata/inspect/packaged.bin")
	defer f.Close()
	b, err := bundle.Open(f, size, nil)
	if err != nil {
		log.Fatal(err)
	}
	entries, _ := b.Entries()
	for _, e := range entries {
		fmt.Println(e.ID, e.Processor(), e.Size())
	}
	// Output:
	// hip-amdgcn-amd-amdhsa--gfx90a gfx90a 7096
	// hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack- gfx942 6648
}

// Write a binary bundle of two entries, then list it.
func ExampleWrite() {
	host, gpu := []byte("host code"), []byte("gpu code")
	var out bytes.Buffer
	err := bundle.Write(&out, []bundle.Source{
		{ID: "host-x86_64-unknown-linux-gnu-", R: bytes.NewReader(host), Size: int64(len(host))},
		{ID: "hipv4-amdgcn-amd-amdhsa--gfx90a", R: bytes.NewReader(gpu), Size: int64(len(gpu))},
	}, &bundle.WriteOptions{Align: 4096}) // nil: a binary bundle, unaligned
	if err != nil {
		log.Fatal(err)
	}
	b, err := bundle.Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
	if err != nil {
		log.Fatal(err)
	}
	entries, _ := b.Entries()
	for _, e := range entries {
		fmt.Println(e.ID, e.Size())
	}
	fmt.Println(out.Len(), "bytes")
	// Output:
	// hipv4-amdgcn-amd-amdhsa--gfx90a 8
	// host-x86_64-unknown-linux-gnu- 9
	// 8200 bytes
}
