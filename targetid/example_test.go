package targetid_test

import (
	"fmt"

	"github.com/goffload/goffload/targetid"
)

func ExampleParse() {
	for _, s := range []string{
		"hip-amdgcn-amd-amdhsa-unknown-gfx906:xnack+",
		"host-x86_64-linux-gnu-",
		"hip-amdgcn-amd-amdhsa--gfx940",
	} {
		id, _ := targetid.Parse(s)
		fmt.Println(id.Standard())
	}
	// Output:
	// hip-amdgcn-amd-amdhsa--gfx906:xnack+
	// host-x86_64-unknown-linux-gnu-
	// hip-amdgcn-amd-amdhsa--
}

func ExampleCompatible() {
	stored := "hip-amdgcn-amd-amdhsa--gfx906"
	fmt.Println(targetid.Compatible(stored, "hip-amdgcn-amd-amdhsa--gfx906:xnack+", false))
	fmt.Println(targetid.Compatible("hip-amdgcn-amd-amdhsa--gfx906:xnack+", "hip-amdgcn-amd-amdhsa--gfx906", false))
	fmt.Println(targetid.Compatible(stored, "openmp-amdgcn-amd-amdhsa--gfx906", true))
	// Output:
	// true
	// false
	// true
}

func ExampleNormalizeTriple() {
	fmt.Println(targetid.NormalizeTriple("x86_64-w64-mingw32"))
	fmt.Println(targetid.NormalizeTriple("linux-gnu-x86_64"))
	// Output:
	// x86_64-w64-windows-gnu
	// x86_64-unknown-linux-gnu
}
