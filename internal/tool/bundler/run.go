package bundler

import (
	"errors"
	"fmt"
	"github.com/goffload/goffload/fmterr"
	"io"
	"os"

	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/llvm/llvmtool"
	"github.com/goffload/goffload/internal/llvm/oserr"
	"github.com/goffload/goffload/internal/spool"
	"github.com/goffload/goffload/targetid"
)

func asPathError(err error, pe **os.PathError) bool { return errors.As(err, pe) }

// job is one validated invocation.
type job struct {
	Options
	inputs, outputs []string
	targets         []target
	hostIndex       int // index of the last host target, -1 if none
	hipOnly         bool
	env             envSettings
}

// target is a command-line target: as given and standardised.
type target struct {
	raw string
	id  targetid.ID
	std string
}

func (j *job) warnf(format string, a ...any) {
	llvmtool.Warning(j.Stderr, j.Argv0, j.Color, fmt.Sprintf(format, a...))
}

// Run performs one bundler invocation. A returned *Error carries LLVM's
// message text; the caller prints it after "<argv0>: error: ".
func Run(o Options) error {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	j := &job{Options: o, hostIndex: -1}
	j.env = readEnv(o.LookupEnv, o.Stderr)
	j.applyEnv()
	if err := j.validate(); err != nil {
		return err
	}
	if j.List {
		return j.list()
	}
	if j.Unbundle {
		if j.Type == "a" {
			return j.unbundleArchive()
		}
		return j.unbundle()
	}
	return j.bundle()
}

// validate checks the options in LLVM 22's order, the first failure
// winning (exit 1): -inputs with -input, then -outputs with -output (a
// non-empty deprecated list also warns); for -list, no -unbundle, exactly
// one input, no output and no target; -check-input-archive only when
// unbundling -type=a; at least one output; -targets given; the counts
// (unbundling: one input and as many outputs as targets; bundling: not
// -type=a, one output and as many inputs as targets); then each target, in
// parseTargets. The -type value itself is checked later, once the work
// starts: a bundle's inputs are opened first, so a missing input is
// reported before an invalid type. (LLVM 22 first looks for llvm-objcopy,
// in every mode; we need it only for non-ELF objects.)
func (j *job) validate() error {
	if j.InputsGiven && j.InputGiven {
		return fmterr.Messagef("-inputs and -input cannot be used together, use only -input instead")
	}
	j.inputs = append(append([]string(nil), j.Input...), j.Inputs...)
	if len(j.Inputs) > 0 {
		j.warnf("-inputs is deprecated, use -input instead")
	}
	if j.OutputsGiven && j.OutputGiven {
		return fmterr.Messagef("-outputs and -output cannot be used together, use only -output instead")
	}
	j.outputs = append(append([]string(nil), j.Output...), j.Outputs...)
	if len(j.Outputs) > 0 {
		j.warnf("-outputs is deprecated, use -output instead")
	}
	if j.List {
		switch {
		case j.Unbundle:
			return fmterr.Messagef("-unbundle and -list cannot be used together")
		case len(j.inputs) != 1:
			return fmterr.Messagef("only one input file supported for -list")
		case len(j.outputs) > 0:
			return fmterr.Messagef("-outputs option is invalid for -list")
		case len(j.Targets) > 0:
			return fmterr.Messagef("-targets option is invalid for -list")
		}
		return nil
	}
	if j.CheckArchive {
		if !j.Unbundle {
			return fmterr.Messagef("-check-input-archive cannot be used while bundling")
		}
		if j.Type != "a" {
			return fmterr.Messagef("-check-input-archive can only be used for unbundling archives (-type=a)")
		}
	}
	if len(j.outputs) == 0 {
		return fmterr.Messagef("no output file specified!")
	}
	if !j.TargetsGiven {
		return fmterr.Messagef("for the --targets option: must be specified at least once!")
	}
	if j.Unbundle {
		if len(j.inputs) != 1 {
			return fmterr.Messagef("only one input file supported in unbundling mode")
		}
		if len(j.outputs) != len(j.Targets) {
			return fmterr.Messagef("number of output files and targets should match in unbundling mode")
		}
	} else {
		if j.Type == "a" {
			return fmterr.Messagef("Archive files are only supported for unbundling")
		}
		if len(j.outputs) != 1 {
			return fmterr.Messagef("only one output file supported in bundling mode")
		}
		if len(j.inputs) != len(j.Targets) {
			return fmterr.Messagef("number of input files and targets should match in bundling mode")
		}
	}
	if err := j.parseTargets(); err != nil {
		return err
	}
	return nil
}

// parseTargets checks each target in command-line order, as LLVM 22 does:
// a raw string seen before is a duplicate; it must split into 5 or 6
// pieces at '-' (targetid.Parse); its offload kind and triple must be
// valid. Then the target-ID conflict rule runs over all of them (unbundling
// too), and the host count: more than one host is an error when
// unbundling, anything but exactly one when bundling a list that is not
// HIP-only (a list of hip/hipv4 targets needs no host).
func (j *job) parseTargets() error {
	seen := map[string]bool{}
	var ids []targetid.ID
	hosts := 0
	j.hipOnly = true
	for i, raw := range j.Targets {
		if seen[raw] {
			return fmterr.Messagef("Duplicate targets are not allowed")
		}
		seen[raw] = true
		id, ok := targetid.Parse(raw)
		if !ok {
			return fmterr.Messagef("Targets need to follow the format '<offload kind>-<target triple>', where '<target triple>' follows the format '<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'.")
		}
		if !id.ValidKind() || !id.ValidTriple() {
			return fmterr.Messagef("%s", invalidTargetMessage(raw, id))
		}
		ids = append(ids, id)
		if id.IsHost() {
			hosts++
			j.hostIndex = i
		}
		if id.Kind != "hip" && id.Kind != "hipv4" {
			j.hipOnly = false
		}
		j.targets = append(j.targets, target{raw: raw, id: id, std: id.Standard()})
	}
	// Malformed feature lists take part as LLVM 22 lets them (it neither
	// rejects them nor crashes, whatever older notes say).
	if a, b, ok := targetid.CommandLineConflict(ids); ok {
		return fmterr.Messagef("Cannot bundle inputs with conflicting targets: '%s' and '%s'", a, b)
	}
	if (j.Unbundle && hosts > 1) || (!j.Unbundle && hosts != 1 && !j.hipOnly) {
		return fmterr.Messagef("expecting exactly one host target but got %d", hosts)
	}
	return nil
}

// invalidTargetMessage returns the bundler's message for a command-line
// target whose kind or triple is invalid: "invalid target '<raw>'" followed
// by ", unknown offloading kind '<kind>'" and/or ", unknown target triple
// '<arch-vendor-os-env>'". It returns "" when both are valid.
func invalidTargetMessage(raw string, id targetid.ID) string {
	if id.ValidKind() && id.ValidTriple() {
		return ""
	}
	msg := "invalid target '" + raw + "'"
	if !id.ValidKind() {
		msg += ", unknown offloading kind '" + id.Kind + "'"
	}
	if !id.ValidTriple() {
		msg += ", unknown target triple '" + id.Triple() + "'"
	}
	return msg
}

// fileKind is how a -type value is handled.
type fileKind int

const (
	kindInvalid fileKind = iota
	kindText
	kindBinary
	kindObject
	kindArchive
)

func kindOf(typ string) fileKind {
	switch typ {
	case "i", "ii", "cui", "hipi", "d", "ll", "s":
		return kindText
	case "bc", "gch", "ast":
		return kindBinary
	case "o":
		return kindObject
	case "a":
		return kindArchive
	}
	return kindInvalid
}

func (j *job) invalidType() error {
	return fmterr.Messagef("'%s': invalid file type specified", j.Type)
}

// outputSet collects unbundle outputs and commits them all at the end, so
// that an error leaves no output behind and existing files untouched. An
// existing output in a folder where no temporary file can be made (Create's
// in-place fallback) is written to a temporary file elsewhere first and
// copied over the output only at commit, before the others are renamed
// into place; a second such output is refused, since two files cannot be
// replaced in place together without the risk of changing only one.
type outputSet struct {
	files   []*atomicfile.File
	inPlace *inPlaceOutput
}

type inPlaceOutput struct {
	path string
	tmp  *spool.File
}

func (s *outputSet) create(path string) (io.Writer, error) {
	f, err := atomicfile.CreateNoInPlace(path)
	if errors.Is(err, atomicfile.ErrInPlace) {
		if s.inPlace != nil {
			return nil, fmterr.Messagef("'%s': %s; '%s' already has to be written in place, and no two outputs are", path, oserr.Strerror(err), s.inPlace.path)
		}
		tmp, terr := spool.New()
		if terr != nil {
			return nil, oserr.PathMessage(path, terr)
		}
		s.inPlace = &inPlaceOutput{path: path, tmp: tmp}
		return tmp.File, nil
	}
	if err != nil {
		return nil, oserr.PathMessage(path, err)
	}
	s.files = append(s.files, f)
	return f, nil
}

func (s *outputSet) commit() error {
	if p := s.inPlace; p != nil {
		s.inPlace = nil
		defer p.tmp.Close()
		f, err := atomicfile.Create(p.path)
		if err != nil {
			return oserr.PathMessage(p.path, err)
		}
		defer f.Abort()
		if _, err := p.tmp.Seek(0, io.SeekStart); err != nil {
			return oserr.PathMessage(p.path, err)
		}
		if _, err := io.Copy(f, p.tmp.File); err != nil {
			return llvmtool.IOFailure(err)
		}
		if err := f.Commit(); err != nil {
			return llvmtool.IOFailure(err)
		}
	}
	for _, f := range s.files {
		if err := f.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func (s *outputSet) abort() {
	if s.inPlace != nil {
		s.inPlace.tmp.Close()
		s.inPlace = nil
	}
	for _, f := range s.files {
		f.Abort()
	}
}

// copyRange copies n bytes at off of src to dst, letting the kernel copy
// file to file (copy_file_range) when both are files.
func copyRange(dst io.Writer, src io.ReaderAt, off, n int64) error {
	var r io.Reader
	if f, ok := src.(*os.File); ok {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return err
		}
		r = io.LimitReader(f, n)
	} else {
		r = io.NewSectionReader(src, off, n)
	}
	m, err := io.Copy(dst, r)
	if err == nil && m != n {
		err = io.ErrUnexpectedEOF
	}
	return err
}
