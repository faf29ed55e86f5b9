// Package cli is the command line of llvm-offload-binary and its older name
// clang-offload-packager, compatible with LLVM 22.1.8: the same options and
// option syntax (LLVM's cl rules, through internal/llvm/llvmcl), the same
// package and extract modes, outputs, messages and exit codes. Both
// commands' main functions only call Main.
package packager

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/llvm/llvmcl"
	"github.com/goffload/goffload/internal/llvm/llvmtool"
	"github.com/goffload/goffload/internal/llvm/oserr"
)

// Env is what a run of the tool reads and writes besides files.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Color colors the "error:" and "warning:" tags unless --color=false
	// says otherwise (--color turns them on). LLVM colors them when stderr
	// is a terminal that supports colors (see StdEnv).
	Color bool
}

// StdEnv returns the process's standard streams, with colors on when
// stderr is a terminal whose TERM supports colors, as LLVM decides.
func StdEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Color: llvmtool.AutoColor(os.Stderr)}
}

var spec = &llvmcl.Spec{
	// The order breaks ties in "Did you mean" suggestions: LLVM 22's option
	// map visits them in this order, found by probing ties against the
	// binary (help wins over every name it ties with, archive over all
	// but help, ...; o and help-list-hidden never tie, nor do o and
	// print-all-options).
	Options: []*llvmcl.Option{
		{Name: "help", Kind: llvmcl.Help},
		{Name: "archive", Kind: llvmcl.Bool},
		{Name: "help-hidden", Kind: llvmcl.Help},
		{Name: "version", Kind: llvmcl.Help},
		{Name: "help-list", Kind: llvmcl.Help},
		{Name: "o", Kind: llvmcl.String},
		{Name: "help-list-hidden", Kind: llvmcl.Help},
		{Name: "image", Kind: llvmcl.List},
		{Name: "print-options", Kind: llvmcl.Bool},
		{Name: "print-all-options", Kind: llvmcl.Bool},
		{Name: "h", Kind: llvmcl.Bool, Grouping: true, NoSuggest: true},
	},
	MaxPositional: 1,
}

// tool holds one run's state.
type tool struct {
	Env
	argv0 string
	fatal error // a fatalError ends the run at once
	// pending, while extracting, collects the finished outputs, put in
	// place together once all are written (see finish).
	pending *[]*atomicfile.File
}

// finish puts a finished output in place, or, while extracting, keeps it
// for extract to put in place with the others: a later failure then leaves
// every existing output as it was.
func (t *tool) finish(f *atomicfile.File) error {
	if t.pending != nil {
		*t.pending = append(*t.pending, f)
		return nil
	}
	if err := f.Commit(); err != nil {
		return errors.New(oserr.Strerror(err))
	}
	return nil
}

func (t *tool) errorf(format string, a ...any) {
	llvmtool.Error(t.Stderr, t.argv0, t.Color, fmt.Sprintf(format, a...))
}

func (t *tool) warnf(format string, a ...any) {
	llvmtool.Warning(t.Stderr, t.argv0, t.Color, fmt.Sprintf(format, a...))
}

// IsDeprecatedName reports whether argv0 names the tool by its old name:
// the stem of its base name (without the last extension) ends with
// "clang-offload-packager".
func IsDeprecatedName(argv0 string) bool {
	return strings.HasSuffix(stem(argv0), "clang-offload-packager")
}

// DeprecationWarning is printed on stderr, without a program-name prefix,
// when the tool runs as clang-offload-packager.
const DeprecationWarning = "warning: 'clang-offload-packager' is deprecated. Use 'llvm-offload-binary' instead.\n"

// Main runs the tool with argv (argv[0] included) and returns the exit code.
func Main(argv []string, env Env) int {
	argv0 := "llvm-offload-binary"
	if len(argv) > 0 {
		argv0 = argv[0]
	}
	// LLVM's stdout stream remembers a failed write and reports it as a
	// fatal error when it is destroyed at exit, after everything else.
	stdout := llvmtool.NewTrackWriter(env.Stdout)
	env.Stdout = stdout
	t := &tool{Env: env, argv0: argv0}
	code := t.main(argv)
	var fe *llvmtool.FatalError
	if errors.As(t.fatal, &fe) {
		return llvmtool.Fatal(t.Stderr, fe.Msg)
	}
	if stdout.Err() != nil {
		return llvmtool.Fatal(t.Stderr, llvmtool.IOFailure(stdout.Err()).Msg)
	}
	return code
}

func (t *tool) main(argv []string) int {
	argv0 := t.argv0
	prog := llvmcl.ProgName(argv0)

	expanded, xerr := llvmcl.Expand(argv[min(1, len(argv)):])
	if xerr != nil {
		// LLVM 22 prints this message, then crashes; we stop there.
		fmt.Fprintln(t.Stderr, xerr)
		return 1
	}
	args, colorErrs, color := stripColor(prog, expanded)
	if color != nil {
		t.Color = *color
	}
	res, errs := spec.Parse(argv0, args)
	errs = append(colorErrs, errs...)
	for _, e := range errs {
		fmt.Fprintln(t.Stderr, e)
	}
	switch res.Action {
	case "help":
		printHelp(t.Stdout, prog, true, false)
		return 0
	case "help-hidden":
		printHelp(t.Stdout, prog, true, true)
		return 0
	case "help-list":
		printHelp(t.Stdout, prog, false, false)
		return 0
	case "help-list-hidden":
		printHelp(t.Stdout, prog, false, true)
		return 0
	case "version":
		io.WriteString(t.Stdout, Version)
		return 0
	}
	if len(errs) > 0 {
		return 1
	}
	if IsDeprecatedName(argv0) {
		io.WriteString(t.Stderr, llvmtool.Tag("warning: ", t.Color)+strings.TrimPrefix(DeprecationWarning, "warning: "))
	}
	output := res.Last("o")
	if res.Flag("h") || output == "" && len(res.Positional) == 0 {
		printHelp(t.Stdout, prog, false, false)
		return 0
	}
	if output != "" && len(res.Positional) > 0 {
		t.errorf("Packaging to an output file and extracting from an input file are mutually exclusive.")
		return 1
	}
	var err error
	if output != "" {
		err = t.pack(output, res.Values["image"])
	} else {
		err = t.extract(res.Positional[0], res.Values["image"], res.Flag("archive"))
	}
	if err != nil {
		var fe *llvmtool.FatalError
		switch {
		case errors.As(err, &fe):
			t.fatal = err
		case !errors.Is(err, errReported):
			t.errorf("%s", err)
		}
		return 1
	}
	return 0
}

// errReported is returned once the error has been printed.
var errReported = errors.New("error already reported")

// stripColor removes LLVM's global --color option (accepted by the LLVM 22
// tool through libLLVM) and returns the last value given, nil when none.
func stripColor(prog string, args []string) (out, errs []string, color *bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		body := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == body {
			out = append(out, a)
			continue
		}
		if body == "o" || body == "image" {
			// The next argument is this option's value.
			out = append(out, a)
			if i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
			continue
		}
		name, value, hasValue := strings.Cut(body, "=")
		if name != "color" {
			out = append(out, a)
			continue
		}
		on, off := true, false
		switch {
		case !hasValue:
			color = &on
		case value == "true" || value == "TRUE" || value == "True" || value == "1":
			color = &on
		case value == "false" || value == "FALSE" || value == "False" || value == "0":
			color = &off
		default:
			errs = append(errs, fmt.Sprintf("%s: for the --color option: '%s' is invalid value for boolean argument! Try 0 or 1", prog, value))
		}
	}
	return out, errs, color
}

// stem is LLVM's sys::path::stem: the base name without its last
// extension ("." and ".." are kept; ".hidden" gives "").
func stem(path string) string {
	base := path
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	if base == "." || base == ".." {
		return base
	}
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		return base[:i]
	}
	return base
}

// extension is LLVM's sys::path::extension without the dot: what follows
// the last '.' of the base name ("" for none, "." and "..").
func extension(path string) string {
	base := path
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	if base == "." || base == ".." {
		return ""
	}
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		return base[i+1:]
	}
	return ""
}
