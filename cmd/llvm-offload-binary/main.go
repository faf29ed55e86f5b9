// Command llvm-offload-binary packages device images into OffloadBinary
// containers and extracts them again, as LLVM 22.1.8's tool of the same
// name does (see package offloadbin/cli).
package main

import (
	"os"

	"github.com/goffload/goffload/offloadbin/cli"
)

func main() {
	os.Exit(cli.Main(os.Args, cli.StdEnv()))
}
