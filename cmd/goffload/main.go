// Command goffload lists, extracts and inspects the GPU code objects in any
// file: ELF and COFF objects, executables and shared libraries, archives,
// offload bundles (plain or compressed), OffloadBinaries and code objects.
// Run "goffload --help" for examples.
package main

import (
	"os"

	"github.com/goffload/goffload/internal/tool/goffload"
)

func main() {
	os.Exit(goffloadcmd.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
