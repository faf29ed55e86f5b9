// Command clang-offload-packager is llvm-offload-binary under its old
// name: the same program, which warns on stderr that the name is
// deprecated, as LLVM 22.1.8 does (see package offloadbin/cli).
package main

import (
	"os"

	"github.com/goffload/goffload/offloadbin/cli"
)

func main() {
	os.Exit(cli.Main(os.Args, cli.StdEnv()))
}
