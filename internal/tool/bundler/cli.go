package bundler

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/internal/llvm/llvmcl"
	"github.com/goffload/goffload/internal/llvm/llvmtool"
)

//go:embed help/*.txt
var helpTexts embed.FS

// Version is what --version prints: the reference build's text, since
// scripts compare it.
const Version = "Debian clang-offload-bundler version 22.1.8 (1~deb12u1)\n"

var spec = &llvmcl.Spec{Options: []*llvmcl.Option{
	{Name: "###", Kind: llvmcl.Bool},
	{Name: "allow-missing-bundles", Kind: llvmcl.Bool},
	{Name: "bundle-align", Kind: llvmcl.Uint},
	{Name: "check-input-archive", Kind: llvmcl.Bool},
	// --color is one of libLLVM's global options the LLVM tool accepts; it
	// is the one that changes what the bundler prints.
	{Name: "color", Kind: llvmcl.Bool, NoSuggest: true},
	{Name: "compress", Kind: llvmcl.Bool},
	{Name: "compression-level", Kind: llvmcl.Int},
	{Name: "h", Kind: llvmcl.Bool, Grouping: true, NoSuggest: true},
	{Name: "help", Kind: llvmcl.Help},
	{Name: "help-hidden", Kind: llvmcl.Help},
	{Name: "help-list", Kind: llvmcl.Help},
	{Name: "help-list-hidden", Kind: llvmcl.Help},
	{Name: "hip-openmp-compatible", Kind: llvmcl.Bool},
	{Name: "input", Kind: llvmcl.List},
	{Name: "inputs", Kind: llvmcl.CommaList},
	{Name: "list", Kind: llvmcl.Bool},
	{Name: "output", Kind: llvmcl.List},
	{Name: "outputs", Kind: llvmcl.CommaList},
	{Name: "print-all-options", Kind: llvmcl.Bool},
	{Name: "print-options", Kind: llvmcl.Bool},
	{Name: "targets", Kind: llvmcl.CommaList},
	{Name: "type", Kind: llvmcl.String, Required: true},
	{Name: "unbundle", Kind: llvmcl.Bool},
	{Name: "verbose", Kind: llvmcl.Bool},
	{Name: "version", Kind: llvmcl.Help},
},
	// The order LLVM 22's option map visits the suggestable options in,
	// found by probing ties (help wins over every name it ties with, ...).
	SuggestOrder: []string{
		"help", "list", "check-input-archive", "compression-level", "allow-missing-bundles",
		"help-hidden", "hip-openmp-compatible", "output", "unbundle", "version",
		"help-list", "###", "type", "help-list-hidden", "inputs", "verbose", "targets",
		"print-options", "input", "bundle-align", "outputs", "print-all-options", "compress",
	},
}

// Main runs the clang-offload-bundler command line and returns its exit
// status. argv[0] is the program name as invoked.
func Main(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	argv0 := argv[0]
	res, errs := spec.Parse(argv0, argv[1:])
	if res.ExpandErr != nil {
		// LLVM prints this and goes on with every option at its default.
		fmt.Fprintln(stderr, res.ExpandErr)
	}
	for _, e := range errs {
		fmt.Fprintln(stderr, e)
	}
	if res.Action != "" {
		var err error
		if res.Action == "version" {
			_, err = io.WriteString(stdout, Version)
		} else {
			err = printHelp(stdout, res.Action, argv0)
		}
		return helpStatus(stderr, err)
	}
	if len(errs) > 0 {
		return 1
	}
	if res.Flag("h") {
		// -h is an ordinary option of the tool: it prints the
		// uncategorised list, after the required-option checks.
		return helpStatus(stderr, printHelp(stdout, "help-list", argv0))
	}
	o := Options{
		Argv0:        argv0,
		Type:         res.Last("type"),
		Targets:      res.Values["targets"],
		TargetsGiven: res.Given("targets"),
		Input:        res.Values["input"],
		Inputs:       res.Values["inputs"],
		Output:       res.Values["output"],
		Outputs:      res.Values["outputs"],
		InputGiven:   res.Given("input"),
		InputsGiven:  res.Given("inputs"),
		OutputGiven:  res.Given("output"),
		OutputsGiven: res.Given("outputs"),
		Unbundle:     res.Flag("unbundle"),
		List:         res.Flag("list"),
		AllowMissing: res.Flag("allow-missing-bundles"),
		HipOpenMP:    res.Flag("hip-openmp-compatible"),
		CheckArchive: res.Flag("check-input-archive"),
		DryRun:       res.Flag("###"),
		Align:        1,
		Compress:     res.Flag("compress"),
		CompressSet:  res.Given("compress"),
		Verbose:      res.Flag("verbose"),
		VerboseSet:   res.Given("verbose"),
		LevelSet:     res.Given("compression-level"),
		Color:        colorFor(stderr, res),
		Stdin:        stdin,
		Stdout:       stdout,
		Stderr:       stderr,
	}
	if res.Given("bundle-align") {
		v, _ := llvmcl.ParseUint(res.Last("bundle-align"), 32)
		o.Align = v
	}
	if o.LevelSet {
		v, _ := llvmcl.ParseInt(res.Last("compression-level"), 32)
		o.Level = int(v)
	}
	// LLVM's standard output is buffered and written at exit, after any
	// error: a list cut short by a damaged input comes after the error.
	var listed *bytes.Buffer
	if o.List {
		listed = new(bytes.Buffer)
		o.Stdout = listed
	}
	status := report(stderr, argv0, o.Color, Run(o))
	if listed != nil && listed.Len() > 0 {
		if _, err := stdout.Write(listed.Bytes()); err != nil {
			status = report(stderr, argv0, o.Color, llvmtool.IOFailure(err))
		}
	}
	return status
}

// report prints err as LLVM does and returns the exit status.
func report(stderr io.Writer, argv0 string, color bool, err error) int {
	if err == nil {
		return 0
	}
	var fe *FatalError
	if errors.As(err, &fe) {
		return llvmtool.Fatal(stderr, fe.Msg)
	}
	llvmtool.Error(stderr, argv0, color, err.Error())
	return 1
}

// colorFor decides, as LLVM does, whether the "error:" and "warning:" tags
// are colored: --color[=bool] decides when given, else whether stderr is a
// terminal whose TERM supports colors.
func colorFor(stderr io.Writer, res *llvmcl.Result) bool {
	if res.Given("color") {
		return res.Flag("color")
	}
	return llvmtool.AutoColor(stderr)
}

func printHelp(w io.Writer, which, argv0 string) error {
	b, err := helpTexts.ReadFile("help/" + which + ".txt")
	if err != nil {
		return nil
	}
	_, err = io.WriteString(w, strings.Replace(string(b), "{{PROG}}", llvmcl.ProgName(argv0), 1))
	return err
}

// helpStatus is the exit status after help or version text: LLVM reports a
// failed write to stdout (/dev/full) as a fatal error.
func helpStatus(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	return llvmtool.Fatal(stderr, llvmtool.IOFailure(err).Msg)
}
