package objfmt_test

import (
	"bytes"
	"fmt"
	"log"
	"os"

	"github.com/goffload/goffload/internal/format/objfmt"
)

// Make a fat object as clang-offload-bundler -type=o does (the host entry
// is a section holding one NUL byte, each device payload a section of its
// own), list its bundles, and strip them again: both byte for byte as
// llvm-objcopy 22 does (testdata/gen.sh made the reference files with it).
func Example() {
	read := func(name string) []byte {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			log.Fatal(err)
		}
		return b
	}
	section := func(id string, data []byte) objfmt.Section {
		return objfmt.Section{Name: objfmt.BundlePrefix + id, Data: bytes.NewReader(data), Size: int64(len(data))}
	}
	host := read("clang-O1.host.o")
	var fat bytes.Buffer
	err := objfmt.AddSections(&fat, bytes.NewReader(host), int64(len(host)), []objfmt.Section{
		section("host-x86_64-unknown-linux-gnu-", []byte{0}),
		section("hip-amdgcn-amd-amdhsa--gfx906", []byte("ABCD")),
		section("openmp-x86_64-unknown-linux-gnu-", read("payload-300.bin")),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("as llvm-objcopy --add-section:", bytes.Equal(fat.Bytes(), read("clang-O1.fat.o")))

	r := bytes.NewReader(fat.Bytes())
	bundles, err := objfmt.ReadBundles(r, r.Size())
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range bundles {
		fmt.Printf("%-33s %3d byte(s) host placeholder: %v\n", b.ID, b.Size, b.HostPlaceholder)
	}

	// What the bundler extracts for the host: the object without its
	// bundle sections.
	var stripped bytes.Buffer
	if err := objfmt.StripBundles(&stripped, r, r.Size()); err != nil {
		log.Fatal(err)
	}
	fmt.Println("as llvm-objcopy --remove-section:", bytes.Equal(stripped.Bytes(), read("clang-O1.strip.o")))
	// Output:
	// as llvm-objcopy --add-section: true
	// host-x86_64-unknown-linux-gnu-      1 byte(s) host placeholder: true
	// hip-amdgcn-amd-amdhsa--gfx906       4 byte(s) host placeholder: false
	// openmp-x86_64-unknown-linux-gnu-  300 byte(s) host placeholder: false
	// as llvm-objcopy --remove-section: true
}
