// Package goffloadcmd is the goffload command line: list and extract the GPU
// code objects of any file, over package inspect.
package goffloadcmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// Exit statuses.
const (
	exitOK      = 0
	exitProblem = 1 // damage found, or nothing matched
	exitUsage   = 2
)

// exitError carries an exit status and a message already printed or to print.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func problem(format string, a ...any) error {
	return &exitError{exitProblem, fmt.Sprintf(format, a...)}
}

func usage(format string, a ...any) error {
	return &exitError{exitUsage, fmt.Sprintf(format, a...)}
}

// Main runs goffload with args (args[0] is the program name) and returns
// the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	err := app.Run(args)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(stderr, "goffload: %s\n", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "goffload: %v\n", err)
	return exitUsage
}

const appHelp = `Finds the GPU code in any file and takes it out: ELF and COFF objects,
executables and shared libraries (.hip_fatbin with many bundles, plain or
compressed; __CLANG_OFFLOAD_BUNDLE__ sections; .llvm.offloading), static
archives, offload bundles, CCOBs, OffloadBinaries and code objects.

Examples:
   goffload list libMIOpen.so                 # every code object, with a summary per GPU
   goffload list --target gfx942 torch/lib/*.so   # is there code for gfx942? (exit 1 if not)
   goffload list --json lib.a > lib.json      # for scripts (schema: testdata/goffload-list.schema.json)
   goffload list /opt/rocm                    # a whole install, each file once
   goffload check --gpu gfx1031 ./app         # which library the program loads lacks gfx1031 code
   goffload prune --keep gfx90a -o rocm-gfx90a /opt/rocm   # an install (or a wheel) for one GPU
   goffload extract --target gfx90a:xnack+ -o out/ libfoo.so
   goffload extract --index 4 -o - kernel.o > k.co
   goffload extract --all -o out/ app`

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:                   "goffload",
		Usage:                  "list, check, extract and prune the GPU code objects in any file, install or wheel",
		Description:            appHelp,
		Reader:                 stdin,
		Writer:                 stdout,
		ErrWriter:              stderr,
		HideVersion:            true,
		UseShortOptionHandling: true,
		Commands:               []*cli.Command{listCommand(), checkCommand(), extractCommand(), pruneCommand(), replaceCommand()},
		ExitErrHandler:         func(*cli.Context, error) {}, // Main prints
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usage("%v (see --help)", err)
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usage("no command %q (commands: list, check, extract, prune, replace; see goffload --help)", c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
	}
}

// commandUsageError reports a bad flag without printing the whole help.
func commandUsageError(c *cli.Context, err error, _ bool) error {
	return usage("%s: %v (see goffload %s --help)", c.Command.Name, err, c.Command.Name)
}
