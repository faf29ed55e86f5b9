// Command llvm-offload-binary packages device images into OffloadBinary
// containers and extracts them again, as LLVM 22.1.8's tool of the same
// name does (see package internal/tool/packager).
package main

import (
	"os"

	"github.com/goffload/goffload/internal/tool/packager"
)

func main() {
	os.Exit(packager.Main(os.Args, packager.StdEnv()))
}
