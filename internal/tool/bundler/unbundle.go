package bundler

import (
	"errors"
	"fmt"
	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/llvm/oserr"
	"io"
	"slices"
	"strings"

	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/bundle"
	"github.com/goffload/goffload/internal/format/objfmt"
	"github.com/goffload/goffload/internal/llvm/llvmhash"
	"github.com/goffload/goffload/internal/llvm/llvmtool"
	"github.com/goffload/goffload/targetid"
)

// source is the single input of -list and -unbundle and the bundle read
// from it (package bundle: the handler LLVM picks by -type, and for -type=o
// by whether the content is an object file; -type=a gets here only to
// list, where LLVM handles it as -type=o: an ELF fat object lists its IDs,
// an archive nothing). An input made of several compressed bundles is one
// bundle of several containers, walked one after the other.
type source struct {
	in  *input
	inf *bundle.Inflated // nil unless the input is compressed
	b   *bundle.Bundle
}

func (s *source) close() {
	s.in.close()
	if s.inf != nil {
		s.inf.Close()
	}
}

// whole returns the (decompressed) input: what a host target gets when
// nothing was extracted. Of several CCOBs, the first one's bundle.
func (s *source) whole() (io.ReaderAt, int64) {
	if s.inf != nil {
		p := s.inf.Parts[0]
		return p, p.Size()
	}
	return s.in.r, s.in.size
}

// maxTextBundle caps the text bundles read (into memory) for listing and
// unbundling: a compressed text bundle can inflate to gigabytes.
var maxTextBundle int64 = 1 << 30

// readOptions are how the bundler reads its input: by -type, compressed
// bundles decompressed into temporary files (inflate), text bundles capped.
func (j *job) readOptions() *bundle.Options {
	return &bundle.Options{Type: j.Type, MaxText: maxTextBundle}
}

// openBundle opens the single input and reads its bundle. With headOnly,
// a compressed binary bundle is decompressed keeping only its start, which
// is all -list needs (the entry table); when the table runs past it, the
// input is decompressed again in full.
func (j *job) openBundle(headOnly bool) (*source, error) {
	// (Not for standard input, which cannot be read again, nor in verbose
	// mode, whose statistics would be printed twice.)
	headOnly = headOnly && kindOf(j.Type) == kindBinary && j.inputs[0] != "-" && !j.Verbose
	in, err := j.openInput(j.inputs[0])
	if err != nil {
		return nil, err
	}
	s := &source{in: in}
	if in.compressed {
		if s.inf, err = j.inflate(in, headOnly); err != nil {
			in.close()
			return nil, err
		}
	}
	if kindOf(j.Type) == kindInvalid {
		s.close()
		return nil, j.invalidType()
	}
	if s.inf != nil {
		s.b, err = s.inf.Bundle(j.readOptions())
	} else {
		s.b, err = bundle.Read(in.r, in.size, j.readOptions())
	}
	if s.inf != nil && s.inf.Short() {
		// (The table reader may take a failed read for the end of the
		// table, so whatever it returned.)
		s.close()
		return j.openBundle(false)
	}
	if err != nil {
		s.close()
		return nil, j.readError(in.path, err)
	}
	return s, nil
}

// readError gives LLVM's words, or ours where LLVM has none, for a
// container that cannot be read.
func (j *job) readError(path string, err error) error {
	var tl *bundle.TooLargeError
	switch {
	case errors.As(err, &tl):
		// Text bundles are searched in memory: a hard cap, said.
		return fmterr.Messagef("'%s': a text bundle of %d bytes is larger than the %d bytes goffload reads into memory", path, tl.Size, tl.Max)
	case kindOf(j.Type) == kindText:
		return oserr.PathMessage(path, err)
	case errors.Is(err, binfmt.ErrTruncatedTable):
		return fmterr.Messagef("'%s': invalid bundle header: %w", path, err)
	}
	return fmterr.Messagef("'%s': %w", path, err)
}

// walkError gives LLVM's words for the damage of a fat object met after
// its bundles.
func walkError(err error) error {
	var le *objfmt.LLVMError
	if errors.As(err, &le) {
		return &fmterr.Message{Msg: le.Msg, Err: err}
	}
	return err
}

// list prints the bundle IDs of the single input, in the order LLVM lists
// them (bundle.Bundle.Entries: text bundles skip each END line).
func (j *job) list() error {
	s, err := j.openBundle(true)
	if err != nil {
		return err
	}
	defer s.close()
	w := s.b.Walk()
	for {
		e, err := w.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return walkError(err)
		}
		w.Take()
		if _, err := fmt.Fprintln(j.Stdout, e.ID); err != nil {
			return llvmtool.IOFailure(err)
		}
	}
}

// FatalError is LLVM's fatal error (a failed write to an output stream):
// Main prints it as "LLVM ERROR: <Msg>" with no program prefix.
type FatalError = llvmtool.FatalError

// unbundle extracts the requested targets from a text, binary or object
// bundle (decompressed first when it is a CCOB), as LLVM 22 does:
//
//   - A work list, an LLVM StringMap from standardised target to output
//     filled in command-line order, is matched against each bundle ID in
//     the format's order (bundle.Walker: text: file order; object: section
//     order; binary: StringMap order of the IDs). An ID that does not
//     split into 5 or 6 pieces is an error.
//   - Each ID goes to the first work-list entry, in StringMap order, it is
//     compatible with (targetid.Compatible), which then leaves the list: a
//     bundle that suits several targets goes to one of them only, and a
//     later bundle cannot satisfy a target already served. The walk stops
//     when the list is empty.
//   - Without -allow-missing-bundles, targets left over are an error
//     listing their standardised IDs in byte order. With it, each left-over
//     output is created empty, except that when nothing at all was
//     extracted a host target's output gets the whole (decompressed) input.
//
// Unlike LLVM 22, which writes the outputs it finds before it fails, the
// missing targets are known before any output is written, and no output is
// put in place unless every one is complete.
func (j *job) unbundle() error {
	s, err := j.openBundle(false)
	if err != nil {
		return err
	}
	defer s.close()

	// Which targets the input lacks is known before any output is written
	// (LLVM 22 writes the outputs it finds, then fails): a first walk over
	// the IDs. Where that walk meets an error, the extracting walk meets
	// it too, in LLVM's order, and no output survives it.
	if !j.AllowMissing {
		if missing, ok := j.missingTargets(s.b); ok && len(missing) > 0 {
			return fmterr.Messagef("%s", missingMessage(missing))
		}
	}
	var outs outputSet
	defer outs.abort()
	work := j.workList()
	total := len(j.targets) // LLVM compares with the CLI count, duplicates included
	if err := j.extractAll(s, &work, &outs); err != nil {
		return err
	}
	remaining := work.Keys()
	if len(remaining) > 0 && !j.AllowMissing {
		return fmterr.Messagef("%s", missingMessage(remaining))
	}
	for _, t := range remaining {
		path, _ := work.Get(t)
		f, err := outs.create(path)
		if err != nil {
			return err
		}
		if len(remaining) == total && isHostID(t) {
			// Nothing was extracted: the host gets the whole input.
			r, size := s.whole()
			if err := copyRange(f, r, 0, size); err != nil {
				return fmterr.Messagef("'%s': %w", path, err)
			}
		}
	}
	return outs.commit()
}

// workList maps standardised targets to outputs; a later target that
// standardises to the same ID replaces the earlier one's output.
func (j *job) workList() llvmhash.StringMap[string] {
	var work llvmhash.StringMap[string]
	for i, t := range j.targets {
		work.Set(t.std, j.outputs[i])
	}
	return work
}

// extractAll walks the bundle's entries, each to the first target of the
// work list it suits, until the list is empty.
func (j *job) extractAll(s *source, work *llvmhash.StringMap[string], outs *outputSet) error {
	w := s.b.Walk()
	for work.Len() > 0 {
		e, err := w.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return walkError(err)
		}
		// Unlike LLVM 22, IDs with a 3-field triple (older ROCm's
		// "host-x86_64-unknown-linux") are read, in their standard form.
		if _, ok := e.ParseID(); !ok {
			return fmterr.Messagef("invalid bundle id read from the bundle")
		}
		match := j.firstCompatible(e.ID, work)
		if match == "" {
			continue
		}
		path, _ := work.Get(match)
		if err := j.extractTo(outs, path, s, e); err != nil {
			return err
		}
		w.Take()
		work.Erase(match)
	}
	return nil
}

// firstCompatible returns the first target of the work list, in its
// order, that the stored ID suits, or "".
func (j *job) firstCompatible(id string, work *llvmhash.StringMap[string]) string {
	for _, t := range work.Keys() {
		if targetid.Compatible(id, t, j.HipOpenMP) {
			return t
		}
	}
	return ""
}

// extractTo writes entry e to the output path.
func (j *job) extractTo(outs *outputSet, path string, s *source, e *bundle.Entry) error {
	f, err := outs.create(path)
	if err != nil {
		return err
	}
	tw := llvmtool.NewTrackWriter(f)
	if err := j.extract(tw, s, e); err != nil {
		if tw.Err() != nil {
			return llvmtool.IOFailure(tw.Err())
		}
		var le *fmterr.Message
		if errors.As(err, &le) {
			return err // already LLVM's words (objcopy failures)
		}
		return fmterr.Messagef("'%s': %w", path, err)
	}
	return nil
}

// extract writes an entry's payload: its bytes, or for a fat object's host
// placeholder the host object (extractHost).
func (j *job) extract(w io.Writer, s *source, e *bundle.Entry) error {
	sr, err := e.Open()
	if err != nil {
		return entryError(s.in.path, err)
	}
	if e.HostPlaceholder {
		return j.extractHost(w, s, e)
	}
	r, off, n := sr.Outer()
	return copyRange(w, r, off, n)
}

// entryError gives LLVM's words, or ours where LLVM reads outside its
// buffer, for an entry whose bytes cannot be read.
func entryError(path string, err error) error {
	switch {
	case errors.Is(err, objfmt.ErrTruncated):
		return &fmterr.Message{Msg: objfmt.ErrTruncated.Error(), Err: objfmt.ErrTruncated}
	case errors.Is(err, binfmt.ErrTruncatedTable):
		return fmterr.Messagef("'%s': invalid bundle header: %w", path, err)
	}
	// A text entry without END marker: the input's fault, not the
	// output's (LLVM 22 reads past its buffer here and fails writing the
	// output).
	return fmterr.Messagef("'%s': %w", path, err)
}

func isHostID(std string) bool {
	id, ok := targetid.Parse(std)
	return ok && id.IsHost()
}

// missingMessage returns the bundler's "Can't find bundles for" message for
// the given standardised IDs, listed in byte order: " X", " X and Y" or
// " X, Y, and Z".
func missingMessage(ids []string) string {
	s := slices.Clone(ids)
	slices.Sort(s)
	var b strings.Builder
	b.WriteString("Can't find bundles for")
	for i, id := range s {
		switch {
		case i == 0:
			b.WriteString(" ")
		case len(s) == 2:
			b.WriteString(" and ")
		case i == len(s)-1:
			b.WriteString(", and ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(id)
	}
	return b.String()
}
