// Command clang-offload-bundler is goffload's drop-in replacement for LLVM
// 22's clang-offload-bundler: it bundles, unbundles and lists offload
// bundles with the same options, output bytes and messages.
package main

import (
	"os"

	"github.com/goffload/goffload/internal/tool/bundler"
)

func main() {
	os.Exit(bundler.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
