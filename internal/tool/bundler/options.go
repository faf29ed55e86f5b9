// Package bundle is the driver of goffload's clang-offload-bundler: it owns
// the bundler's rules — option validation in LLVM 22's order and with its
// exact messages, target standardisation, which requested target receives
// which bundle, host handling, missing bundles, compression on and off — and
// dispatches the byte work to the format packages (textfmt, binfmt, objfmt,
// hda, compress). It knows no file layout itself.
package bundler

import (
	"io"
)

// Options is one invocation of the bundler, as the command line gives it.
type Options struct {
	// Argv0 is the program name exactly as invoked: LLVM prefixes errors
	// with it.
	Argv0 string

	Type    string
	Targets []string // after comma splitting, in command-line order
	// TargetsGiven is false when -targets never occurred.
	TargetsGiven bool

	Input, Inputs   []string // -input (repeatable) and deprecated -inputs
	Output, Outputs []string
	// The Given flags record occurrences, even of empty values: LLVM's
	// "cannot be used together" checks look at those.
	InputGiven, InputsGiven, OutputGiven, OutputsGiven bool

	Unbundle, List, AllowMissing, HipOpenMP, CheckArchive bool
	// DryRun is -###: print the llvm-objcopy commands instead of running them.
	DryRun bool
	Align  uint64

	// Compress, Level and Verbose apply only when their Set flag is true;
	// otherwise the environment decides (see Env).
	Compress, CompressSet bool
	Level                 int
	LevelSet              bool
	Verbose, VerboseSet   bool

	// Color colors the "error:" and "warning:" tags.
	Color bool

	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// LookupEnv reads the environment; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
}
