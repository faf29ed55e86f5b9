package bundler_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/goffload/goffload/internal/tool/bundler"
)

// Run clang-offload-bundler in-process, with LLVM 22's command line: bundle a
// host and two GPU payloads, list the bundle, unbundle one target, and ask
// for a target the bundle lacks.
func ExampleMain() {
	dir, err := os.MkdirTemp("", "bundle-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	in := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			log.Fatal(err)
		}
		return p
	}
	host, gfx906, gfx90a := in("host.bin", "host\n"), in("gfx906.bin", "gfx906 code\n"), in("gfx90a.bin", "gfx90a code\n")
	out := filepath.Join(dir, "example.bc")
	run := func(args ...string) {
		// Messages go to stdout here so that the example shows them.
		status := bundler.Main(append([]string{"clang-offload-bundler"}, args...), nil, os.Stdout, os.Stdout)
		fmt.Println("exit status", status)
	}

	run("-type=bc",
		"-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx90a",
		"-input="+host, "-input="+gfx906, "-input="+gfx90a, "-output="+out)
	run("-type=bc", "-list", "-input="+out) // in LLVM's (StringMap) order

	// A gfx90a in xnack+ mode can run the plain gfx90a code.
	got := filepath.Join(dir, "got.bin")
	run("-type=bc", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "-input="+out, "-output="+got)
	b, err := os.ReadFile(got)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s", b)

	run("-type=bc", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx1030", "-input="+out, "-output="+got)
	// Output:
	// exit status 0
	// hip-amdgcn-amd-amdhsa--gfx906
	// hip-amdgcn-amd-amdhsa--gfx90a
	// host-x86_64-unknown-linux-gnu-
	// exit status 0
	// exit status 0
	// gfx90a code
	// clang-offload-bundler: error: Can't find bundles for hip-amdgcn-amd-amdhsa--gfx1030
	// exit status 1
}
