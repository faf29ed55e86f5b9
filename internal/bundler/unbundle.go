package bundler

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/goffload/goffload/binfmt"
	"github.com/goffload/goffload/internal/llvmhash"
	"github.com/goffload/goffload/internal/llvmtool"
	"github.com/goffload/goffload/targetid"
	"github.com/goffload/goffload/textfmt"
)

// walker visits the bundles of a container in the order LLVM 22 visits
// them: file order for text, section order for objects, StringMap order for
// the binary format.
type walker interface {
	// next returns the next bundle ID, or false at the end.
	next() (string, bool, error)
	// extract writes the current bundle's payload.
	extract(w io.Writer) error
	// reset starts the walk again from the first bundle.
	reset()
}

// walkerFor picks the handler for an input as LLVM does: by -type, and for
// -type=o by whether the content is an object file. -type=a gets here only to
// list, where LLVM handles it as -type=o: an ELF fat object lists its IDs, an
// archive nothing. An input made of several compressed bundles is walked one
// bundle after the other.
func (j *job) walkerFor(in *input) (walker, error) {
	w, err := j.walkerFor1(in)
	if err != nil || len(in.more) == 0 {
		return w, err
	}
	chain := &chainWalker{ws: []walker{w}}
	for _, m := range in.more {
		w, err := j.walkerFor1(m)
		if err != nil {
			return nil, err
		}
		chain.ws = append(chain.ws, w)
	}
	return chain, nil
}

// chainWalker walks several containers one after the other.
type chainWalker struct {
	ws []walker
	i  int
}

func (c *chainWalker) next() (string, bool, error) {
	for c.i < len(c.ws) {
		id, ok, err := c.ws[c.i].next()
		if ok || err != nil {
			return id, ok, err
		}
		c.i++
	}
	return "", false, nil
}

func (c *chainWalker) extract(w io.Writer) error { return c.ws[c.i].extract(w) }

// maxTextBundle caps the text bundles read (into memory) for listing and
// unbundling: a compressed text bundle can inflate to gigabytes.
var maxTextBundle int64 = 1 << 30

func (j *job) walkerFor1(in *input) (walker, error) {
	switch kindOf(j.Type) {
	case kindText:
		c, _ := textfmt.Comment(j.Type)
		if in.size > maxTextBundle {
			// Text bundles are searched in memory: a hard cap, said.
			return nil, fmt.Errorf("'%s': a text bundle of %d bytes is larger than the %d bytes goffload reads into memory", in.path, in.size, maxTextBundle)
		}
		data, err := in.bytes()
		if err != nil {
			return nil, pathError(in.path, err)
		}
		return &textWalker{r: textfmt.NewReader(data, c), path: in.path}, nil
	case kindBinary:
		return newBinaryWalker(in)
	case kindObject, kindArchive:
		if w, ok, err := j.objectWalker(in); ok || err != nil {
			return w, err
		}
		return newBinaryWalker(in)
	}
	return nil, j.invalidType()
}

type textWalker struct {
	r    *textfmt.Reader
	path string // the input, which a damaged entry is reported against
}

func (t *textWalker) next() (string, bool, error) {
	id, ok := t.r.Next()
	return id, ok, nil
}

func (t *textWalker) extract(w io.Writer) error {
	p, err := t.r.Payload()
	if err != nil {
		// The input's fault, not the output's (LLVM 22 reads past its
		// buffer here and fails writing the output).
		return errorf("'%s': %w", t.path, err)
	}
	_, err = w.Write(p)
	return err
}

// listText lists text bundles, skipping each END line as LLVM's list does.
type listTextWalker struct{ textWalker }

func (t *listTextWalker) next() (string, bool, error) {
	id, ok := t.r.Next()
	if ok {
		t.r.SkipEnd()
	}
	return id, ok, nil
}

type binaryWalker struct {
	in      *input
	entries []binfmt.Entry
	i       int
}

func newBinaryWalker(in *input) (*binaryWalker, error) {
	// As LLVM 22 reads the table: an entry whose payload lies outside the
	// file because offset + size wraps is listed, and refused only when it
	// is extracted (LLVM would read outside its buffer).
	entries, err := binfmt.ReadTable(in.r, in.size)
	if err != nil {
		return nil, errorf("'%s': invalid bundle header: %w", in.path, err)
	}
	return &binaryWalker{in: in, entries: binfmt.VisitOrder(entries), i: -1}, nil
}

func (b *binaryWalker) next() (string, bool, error) {
	b.i++
	if b.i >= len(b.entries) {
		return "", false, nil
	}
	return b.entries[b.i].ID, true, nil
}

func (b *binaryWalker) extract(w io.Writer) error {
	e := b.entries[b.i]
	if e.Outside != nil {
		return errorf("'%s': invalid bundle header: %w", b.in.path, e.Outside)
	}
	return copyRange(w, b.in.r, e.Offset, e.Size)
}

// openWalker opens the single input and its handler. With headOnly, a
// compressed binary bundle is decompressed keeping only its start, which
// is all -list needs (the entry table); when the table runs past it, the
// input is decompressed again in full.
func (j *job) openWalker(headOnly bool) (*input, walker, error) {
	// (Not for standard input, which cannot be read again, nor in verbose
	// mode, whose statistics would be printed twice.)
	headOnly = headOnly && kindOf(j.Type) == kindBinary && j.inputs[0] != "-" && !j.Verbose
	in, err := j.openInput(j.inputs[0], headOnly)
	if err != nil {
		return nil, nil, err
	}
	w, err := j.walkerFor(in)
	if in.short() {
		// (The table reader may take a failed read for the end of the
		// table, so whatever it returned.)
		in.close()
		return j.openWalker(false)
	}
	if err != nil {
		in.close()
		return nil, nil, err
	}
	return in, w, nil
}

// list prints the bundle IDs of the single input.
func (j *job) list() error {
	in, w, err := j.openWalker(true)
	if err != nil {
		return err
	}
	defer in.close()
	w = listWalker(w)
	for {
		id, ok, err := w.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if _, err := fmt.Fprintln(j.Stdout, id); err != nil {
			return llvmtool.IOFailure(err)
		}
	}
}

// listWalker makes text walkers skip END lines, as LLVM's list does.
func listWalker(w walker) walker {
	switch t := w.(type) {
	case *textWalker:
		return &listTextWalker{*t}
	case *chainWalker:
		for i := range t.ws {
			t.ws[i] = listWalker(t.ws[i])
		}
	}
	return w
}

// FatalError is LLVM's fatal error (a failed write to an output stream):
// Main prints it as "LLVM ERROR: <Msg>" with no program prefix.
type FatalError = llvmtool.FatalError

// unbundle extracts the requested targets from a text, binary or object
// bundle (decompressed first when it is a CCOB), as LLVM 22 does:
//
//   - A work list, an LLVM StringMap from standardised target to output
//     filled in command-line order, is matched against each bundle ID in
//     the format's order (text: file order; object: section order; binary:
//     StringMap order of the IDs). An ID that does not split into 5 or 6
//     pieces is an error.
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
	in, w, err := j.openWalker(false)
	if err != nil {
		return err
	}
	defer in.close()

	// The work list maps standardised targets to outputs; a later target
	// that standardises to the same ID replaces the earlier one's output.
	var work llvmhash.StringMap[string]
	for i, t := range j.targets {
		work.Set(t.std, j.outputs[i])
	}
	total := len(j.targets) // LLVM compares with the CLI count, duplicates included

	// Which targets the input lacks is known before any output is written
	// (LLVM 22 writes the outputs it finds, then fails): a first walk over
	// the IDs. Where that walk meets an error, the extracting walk meets
	// it too, in LLVM's order, and no output survives it.
	if !j.AllowMissing {
		if missing, ok := j.missingTargets(w); ok && len(missing) > 0 {
			return errorf("%s", missingMessage(missing))
		}
		w.reset()
	}

	var outs outputSet
	defer outs.abort()
	for work.Len() > 0 {
		id, ok, err := w.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		// Unlike LLVM 22, IDs with a 3-field triple (older ROCm's
		// "host-x86_64-unknown-linux") are read, in their standard form.
		if _, ok := targetid.ParseStored(id); !ok {
			return errorf("invalid bundle id read from the bundle")
		}
		var match string
		for _, t := range work.Keys() {
			if targetid.Compatible(id, t, j.HipOpenMP) {
				match = t
				break
			}
		}
		if match == "" {
			continue
		}
		path, _ := work.Get(match)
		f, err := outs.create(path)
		if err != nil {
			return err
		}
		tw := llvmtool.NewTrackWriter(f)
		if err := w.extract(tw); err != nil {
			if tw.Err() != nil {
				return llvmtool.IOFailure(tw.Err())
			}
			var e *Error
			if errors.As(err, &e) {
				return err // already LLVM's words (objcopy failures)
			}
			return errorf("'%s': %w", path, err)
		}
		work.Erase(match)
	}
	remaining := work.Keys()
	if len(remaining) > 0 && !j.AllowMissing {
		return errorf("%s", missingMessage(remaining))
	}
	for _, t := range remaining {
		path, _ := work.Get(t)
		f, err := outs.create(path)
		if err != nil {
			return err
		}
		if len(remaining) == total && isHostID(t) {
			// Nothing was extracted: the host gets the whole input.
			if err := copyRange(f, in.r, 0, in.size); err != nil {
				return errorf("'%s': %w", path, err)
			}
		}
	}
	return outs.commit()
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
