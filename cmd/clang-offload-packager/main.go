// Command clang-offload-packager is llvm-offload-binary under its old
// name: the same program, which warns on stderr that the name is
// deprecated, as LLVM 22.1.8 does (see package internal/tool/packager).
package main

import (
	"os"

	"github.com/goffload/goffload/internal/tool/packager"
)

func main() {
	os.Exit(packager.Main(os.Args, packager.StdEnv()))
}
