package binfmt_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/goffload/goffload/internal/format/binfmt"
)

// Write a binary bundle of a host and two GPU payloads, then read its
// entry table back and extract one payload.
func Example() {
	src := []binfmt.Source{
		{ID: "host-x86_64-unknown-linux-gnu-", R: strings.NewReader("HOST"), Size: 4},
		{ID: "hip-amdgcn-amd-amdhsa--gfx906", R: strings.NewReader("DEV906"), Size: 6},
		{ID: "hip-amdgcn-amd-amdhsa--gfx90a", R: strings.NewReader("DEV90A"), Size: 6},
	}
	var buf bytes.Buffer
	if err := binfmt.Write(&buf, src, 16); err != nil { // payloads 16-byte aligned
		log.Fatal(err)
	}
	r := bytes.NewReader(buf.Bytes())

	entries, err := binfmt.ReadEntries(r, r.Size())
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range entries { // file order
		fmt.Printf("%-32s offset %3d size %d\n", e.ID, e.Offset, e.Size)
	}
	// LLVM 22 lists and unbundles in the order of its StringMap instead.
	for _, e := range binfmt.VisitOrder(entries) {
		fmt.Println("visit", e.ID)
	}
	payload, err := io.ReadAll(entries[2].Open(r))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", payload)
	// Output:
	// host-x86_64-unknown-linux-gnu-   offset 192 size 4
	// hip-amdgcn-amd-amdhsa--gfx906    offset 208 size 6
	// hip-amdgcn-amd-amdhsa--gfx90a    offset 224 size 6
	// visit hip-amdgcn-amd-amdhsa--gfx906
	// visit hip-amdgcn-amd-amdhsa--gfx90a
	// visit host-x86_64-unknown-linux-gnu-
	// DEV90A
}
