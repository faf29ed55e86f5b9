package bundler

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/format/bundle"
	"github.com/goffload/goffload/internal/format/hda"
	"github.com/goffload/goffload/internal/llvm/oserr"
	"github.com/goffload/goffload/internal/spool"
	"github.com/goffload/goffload/internal/tool/bundler/objcopy"
)

// unbundleArchive splits a heterogeneous device archive (-type=a
// -unbundle) into one archive per target. The rules are LLVM 22's, and
// package hda applies them: members are read in archive order, a CCOB
// member decompressed first; a member that is an object file is read for
// its bundle sections, any other as a binary bundle (a member without
// bundles, a text bundle among them, is skipped); every bundle ID
// goes to every compatible requested target, not only the first, so one
// code object can land in several outputs; each output is a GNU archive
// with LLVM's symbol table, its members named
// <stem>-<stored ID><stem><ext> with ':' replaced by '_'. A target left
// without code objects is an error unless -allow-missing-bundles, which
// writes it an empty archive ("!<arch>\n"). Here the bundler adds what
// belongs to a process: the input file, where compressed members are
// inflated (memberSpool), the environment (SYM64_THRESHOLD), warnings,
// -### and -verbose output, and the output files (writeArchives).
func (j *job) unbundleArchive() error {
	// LLVM 22 keys its outputs by standardised target: of two targets that
	// standardise alike, the first output is never written and the last
	// gets every code object twice, with no word said. We refuse.
	if a, b, ok := j.sameStandard(); ok {
		return fmterr.Messagef("Duplicate targets are not allowed: '%s' and '%s' both standardise to '%s'", a.raw, b.raw, a.std)
	}
	in, err := j.openRaw(j.inputs[0])
	if err != nil {
		return err
	}
	defer in.close()
	members := &memberSpool{j: j}
	defer members.close()
	o := hda.Options{
		Archive:      in.r,
		ArchiveSize:  in.size,
		ArchiveName:  j.inputs[0],
		AllowMissing: j.AllowMissing,
		HipOpenMP:    j.HipOpenMP,
		CheckInput:   j.CheckArchive,
		Decompress:   members.decompress,
	}
	if j.DryRun {
		o.DryRun = func() { j.printCommand(objcopy.StripArgs(objcopy.TempName(), objcopy.TempName())) }
	}
	// LLVM copies the member to a temporary file and runs llvm-objcopy on
	// it, whose messages name that file.
	o.ObjcopyFailed = func(err error) error { return j.objcopyFailed(objcopy.TempName(), err) }
	if j.Verbose {
		o.Uncompressed = func() { fmt.Fprintln(j.Stderr, "Uncompressed bundle.") }
	}
	for _, t := range j.targets {
		o.Targets = append(o.Targets, t.std)
	}
	res, err := hda.Unbundle(o)
	if err != nil {
		return err // hda's errors are in LLVM's words
	}
	defer res.Close()
	return j.writeArchives(res.Outputs)
}

// writeArchives writes each target's archive to its output, atomically:
// every output is written to a temporary file first, and they are renamed
// into place together at the end, so that a failure writing one (a folder
// in the way, a full disk) leaves every output as it was (LLVM 22 first
// writes the archives of the targets before). "-" is a file named "-"
// here, as in LLVM. Write errors carry no path, as in LLVM.
func (j *job) writeArchives(outs []hda.Output) error {
	// LLVM's archive writer reads SYM64_THRESHOLD (whatever
	// OFFLOAD_BUNDLER_IGNORE_ENV_VAR says), and prints its warnings
	// (unreadable bitcode members) with a plain "warning: " tag, never
	// colored.
	v, set := j.LookupEnv("SYM64_THRESHOLD")
	opts := []ar.WriteOption{
		ar.WithSym64Threshold(sym64ThresholdFromEnv(v, set)),
		ar.WithWarnings(func(err error) { fmt.Fprintf(j.Stderr, "warning: %s\n", err.Error()) }),
	}
	files := make([]*atomicfile.File, 0, len(outs))
	defer func() {
		for _, f := range files {
			f.Abort()
		}
	}()
	for i, out := range outs {
		f, err := atomicfile.CreateFile(j.outputs[i])
		if err != nil {
			return &fmterr.Message{Msg: oserr.Strerror(err), Err: err}
		}
		files = append(files, f)
		if err := out.WriteArchive(f, opts...); err != nil {
			return err // hda's errors are in LLVM's words
		}
	}
	for _, f := range files {
		if err := f.Commit(); err != nil {
			return &fmterr.Message{Msg: oserr.Strerror(err), Err: err}
		}
	}
	return nil
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

// memberSpool holds an archive's decompressed members, one after another in
// one unnamed temporary file (one file, not one per member: they are read
// again only when the outputs are written, and an archive may have
// thousands of members). Each member is decoded as a stream and capped at
// maxDecompressed, so that a member that is a decompression bomb costs the
// decoder's window in memory and at most the cap on disk.
type memberSpool struct {
	j *job
	f *spool.File
}

func (s *memberSpool) close() {
	if s.f != nil {
		s.f.Close()
	}
}

// decompress is hda.Options.Decompress: a member inflated as any
// compressed input is (bundle.Inflate: LLVM 22's reading of one CCOB, else
// several back to back with padding), its bundles one after another at
// the spool's end, capped at maxDecompressed in all, with the verbose
// statistics. What a failed member wrote is dropped.
func (s *memberSpool) decompress(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	if s.f == nil {
		f, err := spool.New()
		if err != nil {
			return nil, 0, err
		}
		s.f = f
	}
	start := time.Now()
	begin := s.f.Size
	// The cap is the member's, whatever the number of its bundles: a
	// per-bundle cap would also stop the first past it, as damage.
	inf, err := bundle.Inflate(r, size, &bundle.Options{
		MaxInflated: math.MaxInt64,
		MaxTotal:    maxDecompressed,
		Hash:        s.j.Verbose,
		Scratch:     func() (bundle.Scratch, error) { return s.f.Tail(), nil },
	})
	if err != nil {
		return nil, 0, tooLarge(err)
	}
	if s.j.Verbose {
		s.j.reportDecompress(inf.CCOBs, time.Since(start))
	}
	n := s.f.Size - begin
	return io.NewSectionReader(s.f, begin, n), n, nil
}
