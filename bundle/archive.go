package bundle

import (
	"errors"
	"fmt"

	"github.com/goffload/goffload/ar"
	"github.com/goffload/goffload/hda"
	"github.com/goffload/goffload/objfmt"
)

// unbundleArchive splits a heterogeneous device archive into one archive
// per target (spec bundler.md §6).
func (j *job) unbundleArchive() error {
	// LLVM 22 keys its outputs by standardised target: of two targets that
	// standardise alike, the first output is never written and the last
	// gets every code object twice, with no word said. We refuse.
	if a, b, ok := j.sameStandard(); ok {
		return errorf("Duplicate targets are not allowed: '%s' and '%s' both standardise to '%s'", a.raw, b.raw, a.std)
	}
	in, err := j.openRaw(j.inputs[0])
	if err != nil {
		return err
	}
	defer in.close()
	o := hda.Options{
		Archive:      in.r,
		ArchiveSize:  in.size,
		ArchiveName:  j.inputs[0],
		Outputs:      j.outputs,
		AllowMissing: j.AllowMissing,
		HipOpenMP:    j.HipOpenMP,
		CheckInput:   j.CheckArchive,
		Decompress:   j.decompress,
	}
	// LLVM's archive writer reads SYM64_THRESHOLD (whatever
	// OFFLOAD_BUNDLER_IGNORE_ENV_VAR says).
	v, set := j.LookupEnv("SYM64_THRESHOLD")
	o.WriteOptions = append(o.WriteOptions, ar.WithSym64Threshold(ar.Sym64ThresholdFromEnv(v, set)))
	// LLVM's archive writer prints its warnings (unreadable bitcode
	// members) with a plain "warning: " tag, never colored.
	o.Warn = func(msg string) { fmt.Fprintf(j.Stderr, "warning: %s\n", msg) }
	if j.DryRun {
		o.DryRun = func() { j.printCommand(objfmt.StripCommandArgs(tempName(), tempName())) }
	}
	// LLVM copies the member to a temporary file and runs llvm-objcopy on
	// it, whose messages name that file.
	o.ObjcopyFailed = func(err error) error { return j.objcopyFailed(tempName(), err) }
	if j.Verbose {
		o.Uncompressed = func() { fmt.Fprintln(j.Stderr, "Uncompressed bundle.") }
	}
	for _, t := range j.targets {
		o.Targets = append(o.Targets, t.std)
	}
	err = hda.Unbundle(o)
	var he *hda.Error
	if errors.As(err, &he) {
		return &Error{Msg: he.Msg}
	}
	return err
}

// sameStandard returns the first two targets, in command-line order, that
// standardise to the same ID.
func (j *job) sameStandard() (a, b target, ok bool) {
	first := map[string]target{}
	for _, t := range j.targets {
		if f, dup := first[t.std]; dup {
			return f, t, true
		}
		first[t.std] = t
	}
	return target{}, target{}, false
}
