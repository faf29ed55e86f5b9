package prune

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/format/kpak"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/format/objfmt"
	"github.com/goffload/goffload/internal/format/offloadbin"
	"github.com/goffload/goffload/internal/format/textfmt"
	"github.com/goffload/goffload/internal/objfile"
	"github.com/goffload/goffload/targetid"
)

// maxMember bounds an archive member rewritten in memory.
const maxMember = 1 << 30

// Rewrite writes to out the size bytes of in with the device code that opts
// choose, and reports what it kept, dropped and replaced. name names the
// input in messages. On error out holds garbage: write it to a temporary
// file and rename it only on success.
//
// A rewrite that drops and replaces nothing writes the input byte for
// byte. A Keep that keeps no code object of the input fails with ErrEmpty
// (unless Options.AllowEmpty); a file whose code objects are all dropped
// and that cannot be written without them is refused with ErrRemovable
// (AllowEmpty or not); a Keep or Drop target that matches no code
// object is named in Report.Unmatched. A Replace whose target no container
// holds fails with a *targetid.NoMatchError, and one whose target leaves a
// mode open where a container holds only builds that set it with a
// *targetid.AmbiguousError.
func Rewrite(out Output, in io.ReaderAt, size int64, name string, opts Options) (*Report, error) {
	r := &Report{SizeBefore: size}
	s, err := newSelector(opts, r)
	if err != nil {
		return nil, err
	}
	err = s.file(out, in, size, name, 0)
	placed(r.Decisions)
	for i, t := range append(slices.Clip(opts.Keep), opts.Drop...) {
		if s.used[i] == 0 {
			r.Unmatched = append(r.Unmatched, t)
		}
	}
	if err != nil {
		// (Unmatched holds for a file refused as removable too: the
		// targets its code objects matched are not named.)
		if errors.Is(err, ErrRemovable) && len(opts.Keep) > 0 && r.count(Kept) == 0 && !opts.AllowEmpty {
			// A Keep that keeps nothing is said so, whatever the file.
			return r, fmt.Errorf("%s: %w (%s); it holds code for %s", name, ErrEmpty, targetList(opts.Keep), s.present())
		}
		return r, fmt.Errorf("%s: %w", name, asRefusal(err))
	}
	if rep := opts.Replace; rep != nil {
		if !s.matched && rep.Target.Processor == "" {
			return r, fmt.Errorf("%s: nothing to replace at the %d position(s) given", name, len(rep.At))
		}
		if !s.matched {
			return r, fmt.Errorf("%s: nothing to replace: %w", name, &targetid.NoMatchError{Target: rep.Target, Reasons: s.reasons()})
		}
		if n := len(s.replaced); n > 1 {
			r.Notes = append(r.Notes, fmt.Sprintf("the %d code objects replaced differed from each other (%d distinct): each now holds the one replacement", r.count(Replaced), n))
		}
	}
	if len(opts.Keep) > 0 && r.count(Kept) == 0 && !opts.AllowEmpty {
		return r, fmt.Errorf("%s: %w (%s); it holds code for %s", name, ErrEmpty, targetList(opts.Keep), s.present())
	}
	if !r.Changed() {
		// Nothing dropped or replaced: the input as it was, whatever the
		// containers' writers would have made of it (and said of it).
		r.Notes = nil
		if err := copyInput(out, in, size, r.SizeAft); err != nil {
			return r, fmt.Errorf("%s: %w", name, err)
		}
		r.SizeAft = size
	}
	return r, nil
}

// asRefusal makes damage the section layer found in headers and tables
// (an *objfile.Error: a table past the end of the file, over a limit) a
// refusal: the file is not rewritten, and a tree prune keeps it as it is.
func asRefusal(err error) error {
	var oe *objfile.Error
	if err == nil || errors.Is(err, ErrRefused) || !errors.As(err, &oe) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrRefused, err)
}

// copyInput writes in over what out holds; out must be shortened to size
// when more was written.
func copyInput(out Output, in io.ReaderAt, size, written int64) error {
	if _, err := io.Copy(io.NewOffsetWriter(out, 0), io.NewSectionReader(in, 0, size)); err != nil {
		return err
	}
	if written <= size {
		return nil
	}
	t, ok := out.(interface{ Truncate(int64) error })
	if !ok {
		return errors.New("the output cannot be shortened to the input's size")
	}
	return t.Truncate(size)
}

func targetList(ts []targetid.Target) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

func (s *selector) file(out Output, in io.ReaderAt, size int64, name string, depth int) error {
	if depth > 8 {
		return refuse("archives nested too deep")
	}
	k, err := magic.IdentifyReader(in, size)
	if err != nil {
		return err
	}
	err = s.container(out, in, size, name, depth, k)
	if errors.Is(err, ErrNoDeviceCode) && k != magic.Archive {
		// (An archive's members were each asked already.)
		return confirmNothing(in, size, name, k, err)
	}
	// A 32-bit or big-endian ELF file, one of another machine, a COFF or
	// PE file: refused only when it holds device code (i386 host
	// libraries in an install are copied, as any host library).
	var u *unsupportedError
	if errors.As(err, &u) && listedDevice(in, size, name) == nil {
		return nothing("inspect lists no device code in it (%s)", u.msg)
	}
	return err
}

// An unsupportedError refuses a file of a format prune does not rewrite
// (an ErrRefused): a refusal only where the file holds device code.
type unsupportedError struct{ msg string }

func unsupported(format string, a ...any) error {
	return &unsupportedError{fmt.Sprintf(format, a...)}
}

func (e *unsupportedError) Error() string { return ErrRefused.Error() + ": " + e.msg }
func (e *unsupportedError) Unwrap() error { return ErrRefused }

// confirmNothing keeps a "no device code to rewrite" answer only when
// inspect, the walker every command lists with, finds no device code in
// the file either. Device code in a place prune does not rewrite (a bundle
// in a section of another name, an ELF of another e_type, a zip, host
// bitcode) is refused: in an archive or a tree it would otherwise pass on
// whole, as if it held none. (A file that is one code object itself is
// decided on by elf: codeObject.)
func confirmNothing(in io.ReaderAt, size int64, name string, k magic.Kind, nothing error) error {
	found := listedDevice(in, size, name)
	if found == nil {
		return nothing
	}
	where := inspect.Escape(found.Place())
	off, inner := found.Position()
	at := fmt.Sprintf("at offset %#x", off)
	if inner >= 0 {
		at = fmt.Sprintf("at offset %#x inside the compressed data at offset %#x", inner, off)
	}
	what := k.String()
	if k == magic.Unknown {
		what = "file"
	}
	return refuse("device code in a place this tool does not rewrite: %s in %s %s of this %s", inspect.Escape(found.ID), where, at, what)
}

// listedDevice is the first device code object inspect lists in the file
// that is not the file itself, or nil.
func listedDevice(in io.ReaderAt, size int64, name string) *inspect.Object {
	var found *inspect.Object
	errFound := errors.New("found")
	l, _ := inspect.Walk(in, size, name, &inspect.Options{SkipHeaders: true}, func(_ *inspect.Listing, o *inspect.Object) error {
		if o.Host || o.Nested > 0 || o.Container == "file" && len(o.Path) == 0 {
			return nil
		}
		found = o
		return errFound
	})
	l.Close()
	return found
}

// container rewrites a file of kind k.
func (s *selector) container(out Output, in io.ReaderAt, size int64, name string, depth int, k magic.Kind) (err error) {
	c := &counter{w: out}
	switch {
	case k == magic.ELFShared || k == magic.ELFExecutable || k == magic.ELFRelocatable:
		err = s.elf(out, in, size, name)
		return err
	case k == magic.OffloadBundle || k == magic.CompressedBundle:
		// A run of bundles (one per translation unit, as .hip_fatbin
		// holds them, 4 KiB apart) is rewritten bundle by bundle: none
		// is dropped because it is not the first.
		spans, ferr := findBundles(in, &shdr{off: 0, size: uint64(size)})
		switch {
		case ferr == nil && len(spans) > 1:
			_, err = s.writeBundles(c, &elfFile{r: in, size: size}, &shdr{off: 0, size: uint64(size)}, 0, spans)
		case k == magic.OffloadBundle:
			err = s.rewriteBinary(c, in, size, "bundle 0")
		default:
			var end int64
			end, err = s.rewriteCCOB(c, in, size, "bundle 0")
			if err == nil && end < size {
				if z, zerr := onlyZeros(in, end, size); zerr != nil || !z {
					return refuse("data after the first CCOB that is neither a CCOB nor padding")
				}
			}
		}
	case k == magic.Archive:
		return s.archive(out, in, size, name, depth)
	case k == magic.OffloadBinary:
		err = s.offloadBinaries(c, in, size, 0, "offload binary")
		if err == nil && c.n == 0 && len(s.report.Decisions) > 0 {
			// Every image dropped: an empty file is no OffloadBinary a
			// tool reads as one, so the file goes whole, as a code
			// object of code not kept does.
			return fmt.Errorf("%w: %w (OffloadBinaries of code for GPUs not kept only)", ErrRefused, ErrRemovable)
		}
	case k == magic.COFFObject || k == magic.PEExecutable:
		return unsupported("COFF and PE files are not rewritten")
	case k == magic.Unknown && kpak.Is(in, size):
		return s.kpackArchive(out, in, size, name)
	case k == magic.Unknown && isText(in, size):
		data := make([]byte, size)
		if _, err := in.ReadAt(data, 0); err != nil {
			return err
		}
		err = s.rewriteText(c, data, "text bundle", "")
	default:
		return nothing("no device code this tool can rewrite (%s)", k)
	}
	s.report.SizeAft = int64(c.n)
	return err
}

// isText reports a text bundle by textfmt's rule (a START marker in the
// first 4 KiB), as inspect finds one; one held in memory to be rewritten is
// at most 1 GiB.
func isText(r io.ReaderAt, size int64) bool {
	b := make([]byte, min(size, textfmt.SniffLen))
	n, _ := r.ReadAt(b, 0)
	return textfmt.Sniff(b[:n]) && size < 1<<30
}

func onlyZeros(r io.ReaderAt, off, end int64) (bool, error) {
	var buf [4096]byte
	for off < end {
		n := min(int64(len(buf)), end-off)
		if _, err := r.ReadAt(buf[:n], off); err != nil {
			return false, err
		}
		for _, b := range buf[:n] {
			if b != 0 {
				return false, nil
			}
		}
		off += n
	}
	return true, nil
}

// elf rewrites an ELF file: its .hip_fatbin, or its bundle sections.
func (s *selector) elf(out Output, in io.ReaderAt, size int64, name string) error {
	var m [2]byte
	if _, err := in.ReadAt(m[:], 18); err == nil && (m[0] == 224 || m[0] == 190) && m[1] == 0 {
		// A GPU code object (AMDGPU, CUDA): decided on whole.
		if done, err := s.codeObject(out, in, size, name); done {
			return err
		}
		return nothing("the file is a GPU code object that inspect does not list as one")
	}
	f, err := parseELF(in, size)
	if err != nil {
		return err
	}
	if _, fat := f.section(".hip_fatbin"); fat != nil {
		for _, sh := range f.shdrs {
			if strings.HasPrefix(sh.name, objfmt.BundlePrefix) || sh.name == ".llvm.offloading" || sh.typ == 0x6fff4c0b {
				// Only .hip_fatbin would be rewritten: the device code
				// in the other sections would stay, unreported.
				return refuse("the file holds device code both in .hip_fatbin and in %s", sh.name)
			}
		}
		return s.rewriteFatbin(out, f)
	}
	oi, err := f.offloadingSection()
	if err != nil {
		return err
	}
	var bundleSecs []shdr
	var es []entry
	for _, sh := range f.shdrs {
		if !strings.HasPrefix(sh.name, objfmt.BundlePrefix) {
			continue
		}
		if oi >= 0 {
			return refuse("the file holds device code both in %s and in %s", f.shdrs[oi].name, sh.name)
		}
		sr := io.NewSectionReader(in, int64(sh.off), int64(sh.size))
		bundleSecs = append(bundleSecs, sh)
		es = append(es, s.bundleEntry(strings.TrimPrefix(sh.name, objfmt.BundlePrefix), int64(sh.off), func() io.Reader { return io.NewSectionReader(sr, 0, sr.Size()) }))
	}
	found := len(bundleSecs) > 0
	actions, err := s.decide("fat object", es)
	if err != nil {
		return err
	}
	changed := changes(actions)
	var secs []objfmt.Section
	for i, sh := range bundleSecs {
		id, action := es[i].id, actions[i]
		const kind = "bundle section"
		switch action {
		case Dropped:
			s.recordIn(kind, id, int64(sh.size), 0, action)
			continue
		case Replaced:
			rep := s.opts.Replace
			secs = append(secs, objfmt.Section{Name: sh.name, Data: rep.Data, Size: rep.Size})
			s.recordIn(kind, id, int64(sh.size), rep.Size, action)
			continue
		}
		secs = append(secs, objfmt.Section{Name: sh.name, Data: io.NewSectionReader(in, int64(sh.off), int64(sh.size)), Size: int64(sh.size)})
		s.recordIn(kind, id, int64(sh.size), int64(sh.size), action)
	}
	if oi >= 0 {
		if f.typ != etRel {
			return refuse("%s in a linked file is not rewritten", f.shdrs[oi].name)
		}
		return s.rewriteOffloading(out, f, oi)
	}
	if !found {
		return nothing("no .hip_fatbin and no bundle sections")
	}
	c := &counter{w: out}
	if !changed {
		err = copyRange(c, in, 0, uint64(size))
	} else {
		// As the bundler makes fat objects: the host without its bundle
		// sections, then the kept ones added (llvm-objcopy's layout).
		var host bytes.Buffer
		if err := objfmt.StripBundles(&host, in, size); err != nil {
			return err
		}
		err = objfmt.AddSections(c, bytes.NewReader(host.Bytes()), int64(host.Len()), secs)
	}
	s.report.SizeAft = int64(c.n)
	return err
}

// memOut is an in-memory Output.
type memOut struct{ b []byte }

func (m *memOut) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }

func (m *memOut) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > int64(len(m.b)) {
		return 0, fmt.Errorf("write at %d past %d bytes", off, len(m.b))
	}
	return copy(m.b[off:], p), nil
}

// archive rewrites each member that holds device code, and writes the
// archive again as llvm-ar would (symbol table recomputed).
func (s *selector) archive(out Output, in io.ReaderAt, size int64, name string, depth int) error {
	a, err := ar.NewReader(in, size, name)
	if err != nil {
		return err
	}
	defer a.Close()
	if a.Kind() != ar.GNU {
		return refuse("only GNU archives are rewritten (this is %s)", a.Kind())
	}
	var members []ar.NewMember
	rewritten := false
	for {
		m, err := a.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		sr, err := m.Open()
		if err != nil {
			return err
		}
		if m.Size > maxMember {
			return refuse("member %s: %d bytes, more than the %d rewritten in memory", m.Name, m.Size, int64(maxMember))
		}
		mo := &memOut{}
		sub := *s // the same targets, counts and replacement
		sub.report = &Report{}
		sub.base = -1
		if outer, off, _ := sr.Outer(); outer == in && s.base >= 0 {
			sub.base = s.base + off
		}
		err = sub.file(mo, sr, sr.Size(), m.Name, depth+1)
		for _, d := range sub.report.Decisions {
			if d.Where == "" {
				d.Where = "member " + m.Name // list's path: the member's
			} else {
				d.Where = "member " + m.Name + " › " + d.Where
			}
			s.report.Decisions = append(s.report.Decisions, d)
		}
		switch {
		case err == nil:
			rewritten = true
			members = append(members, ar.NewMember{Name: m.Name, Data: bytes.NewReader(mo.b), Size: int64(len(mo.b))})
		case errors.Is(err, ErrNoDeviceCode):
			members = append(members, ar.NewMember{Name: m.Name, Data: sr, Size: sr.Size()})
		case errors.Is(err, ErrRemovable):
			// A member holding only code dropped (a code object, a KPAK
			// archive) is left out.
			rewritten = true
		default:
			return fmt.Errorf("member %s: %w", m.Name, err)
		}
	}
	if !rewritten {
		// A host library: nothing to write again (the archive as llvm-ar
		// would write it may differ from the input in size, which an
		// output that cannot be shortened, a dry run's, cannot take back).
		return nothing("no member holds device code")
	}
	if len(members) == 0 {
		// Every member held only code dropped: the archive goes whole,
		// as such a file does.
		return fmt.Errorf("%w: %w (an archive of code for GPUs not kept only)", ErrRefused, ErrRemovable)
	}
	c := &counter{w: out}
	err = ar.WriteGNU(c, members)
	s.report.SizeAft = int64(c.n)
	return err
}

// ErrNoDeviceCode marks files without device code to rewrite (with
// ErrRefused): in an archive or a tree, such files are kept as they are.
var ErrNoDeviceCode = fmterr.Kind("no device code to rewrite", fmterr.ErrNoMatch)

func nothing(format string, a ...any) error {
	return fmt.Errorf("%w: %w: %s", ErrRefused, ErrNoDeviceCode, fmt.Sprintf(format, a...))
}

// codeObject decides on a file that is one device code object itself (a
// Tensile .co or .hsaco, an offload-arch build): kept, it is written as it
// is; dropped, it is refused with ErrRemovable (a tree or wheel prune
// leaves it out, an archive leaves the member out). done is false when the
// file is not one.
func (s *selector) codeObject(out io.Writer, in io.ReaderAt, size int64, name string) (done bool, err error) {
	l := inspect.Read(in, size, name, &inspect.Options{SkipHeaders: true})
	defer l.Close()
	if len(l.Objects) != 1 || len(l.Errors) > 0 {
		return false, nil
	}
	o := l.Objects[0]
	if o.Host || o.Container != "file" || len(o.Path) > 0 {
		return false, nil
	}
	code := o.Target()
	id := o.ID
	if id == "" {
		id = code.TargetID
	}
	open := func() io.Reader { return io.NewSectionReader(in, 0, size) }
	actions, err := s.decide("file", []entry{{id: id, code: code, pos: s.position(0), open: open}})
	if err != nil {
		return true, err
	}
	src := open()
	switch actions[0] {
	case Dropped:
		s.recordIn("file", id, size, 0, Dropped)
		return true, fmt.Errorf("%w: %w (a code object for %s)", ErrRefused, ErrRemovable, inspect.Escape(code.TargetID))
	case Replaced:
		// The new code object in its place (checked by decide).
		s.recordIn("file", id, size, s.opts.Replace.Size, Replaced)
		src = io.NewSectionReader(s.opts.Replace.Data, 0, s.opts.Replace.Size)
	default:
		s.recordIn("file", id, size, size, actions[0])
	}
	return true, s.writeWhole(out, src)
}

// writeWhole writes a file not rewritten, whole: the input as it is (or
// the code object that replaces it).
func (s *selector) writeWhole(out io.Writer, r io.Reader) error {
	n, err := io.Copy(out, r)
	s.report.SizeAft = n
	return err
}

// kpackArchive decides on the code objects of a KPAK archive (as inspect
// lists them), which prune does not rewrite: one whose code objects are
// all kept is written as it is; one whose code objects are all dropped is
// refused with ErrRemovable (a tree or wheel prune leaves it out); one
// holding both, or a code object to replace, is refused.
func (s *selector) kpackArchive(out io.Writer, in io.ReaderAt, size int64, name string) error {
	l := inspect.Read(in, size, name, &inspect.Options{SkipHeaders: true})
	defer l.Close()
	if len(l.Errors) > 0 {
		return refuse("a damaged KPAK archive: %v", l.Errors[0])
	}
	devs := l.Devices()
	if len(devs) == 0 {
		return nothing("a KPAK archive of no code object")
	}
	es := make([]entry, len(devs))
	for i, o := range devs {
		// Positions in the input, as list gives them (an archive
		// member's start added).
		off, inner := o.Position()
		pos := s.position(off)
		if inner >= 0 && pos.Offset >= 0 {
			pos.Inner = inner
		}
		es[i] = entry{id: o.ID, code: o.Target(), pos: pos}
	}
	actions, err := s.decide("KPAK archive", es)
	if err != nil {
		return err
	}
	var kept, dropped []string
	for i, o := range devs {
		where := o.Place()
		switch actions[i] {
		case Replaced:
			return refuse("KPAK archives are not rewritten: %s cannot be replaced in %s", inspect.Escape(o.ID), inspect.Escape(where))
		case Dropped:
			dropped = append(dropped, o.TargetID)
			s.record(where, o.ID, o.Size, 0, Dropped)
		default:
			kept = append(kept, o.TargetID)
			s.record(where, o.ID, o.Size, o.Size, actions[i])
		}
	}
	switch {
	case len(dropped) == 0:
		return s.writeWhole(out, io.NewSectionReader(in, 0, size))
	case len(kept) == 0:
		return fmt.Errorf("%w: %w (a KPAK archive of code for %s)", ErrRefused, ErrRemovable, inspect.Escape(strings.Join(uniq(dropped), ", ")))
	}
	return refuse("KPAK archives are not rewritten, and this one holds code kept (%s) and dropped (%s)",
		inspect.Escape(strings.Join(uniq(kept), ", ")), inspect.Escape(strings.Join(uniq(dropped), ", ")))
}

// uniq returns s sorted, without repeats.
func uniq(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// offloadBinaries rewrites a run of OffloadBinaries, each image kept or
// dropped by its arch, at offset at of the reader being rewritten (-1 when
// not known); the result is written as version 1 binaries.
func (s *selector) offloadBinaries(w io.Writer, in io.ReaderAt, size, at int64, where string) error {
	return s.offloadRun(w, in, size, where, 0, func(off int64) Position {
		if at < 0 {
			return Position{-1, -1}
		}
		return s.position(at + off)
	})
}

// maxNesting bounds OffloadBinaries nested in each other's images, and
// maxNested the size of a nested one, which is rewritten in memory (as is
// what it holds, inflated, at each level).
const (
	maxNesting = 4
	maxNested  = 64 << 20
)

// offloadRun rewrites the OffloadBinaries at in[0:size]; place gives the
// position in the input of an offset of in. An image that is itself an
// OffloadBinary (clang nests them; inspect lists what is inside) is
// rewritten in turn, image by image: kept as it is when all it holds is
// kept, dropped when all it holds is dropped, written again otherwise.
func (s *selector) offloadRun(w io.Writer, in io.ReaderAt, size int64, where string, depth int, place func(int64) Position) error {
	var opts []offloadbin.ReadOption
	if depth > 0 {
		opts = append(opts, offloadbin.MaxInflatedSize(maxNested))
	}
	bins, err := offloadbin.ReadAll(in, size, opts...)
	if err != nil {
		return err
	}
	var es []entry
	var leaves []int
	// What a nested image became: its decisions, and its new bytes (nil
	// with keep: as it is; nil without: dropped).
	type rewrite struct {
		decisions []Decision
		data      []byte
		keep      bool
	}
	nested := make([]*rewrite, len(bins))
	for i, b := range bins {
		_, off, inflated := b.ImageAt()
		pos := place(off)
		if inflated {
			// A compressed v3 binary: positions are in its inflated bytes.
			pos = Position{-1, -1}
			if p := place(b.Offset); p.Offset >= 0 && p.Inner < 0 {
				pos = Position{p.Offset, off}
			}
		}
		if !b.Nested() { // inspect's rule: what it lists inside is decided on
			code := targetid.Code{Kind: b.OffloadKind.String(), Triple: b.Triple(), TargetID: b.Arch()}
			es = append(es, entry{id: b.BundleID(), code: code, open: func() io.Reader { return b.Image() }, pos: pos})
			leaves = append(leaves, i)
			continue
		}
		if depth >= maxNesting {
			return refuse("%s %d: OffloadBinaries nested more than %d deep", where, i, maxNesting)
		}
		if b.ImageSize() > maxNested {
			return refuse("%s %d: a nested OffloadBinary of %d bytes, more than the %d rewritten in memory", where, i, b.ImageSize(), int64(maxNested))
		}
		innerPlace := func(o int64) Position {
			switch {
			case !inflated:
				return place(off + o)
			case pos.Offset < 0:
				return Position{-1, -1}
			}
			return Position{pos.Offset, pos.Inner + o}
		}
		sub := *s // the same targets and counts
		sub.report = &Report{}
		mo := &memOut{}
		inner := fmt.Sprintf("%s %d › image %d › offload binary", where, i, b.Index)
		if err := sub.offloadRun(mo, b.Image(), b.ImageSize(), inner, depth+1, innerPlace); err != nil {
			if errors.Is(err, ErrRefused) {
				return err
			}
			// A nested binary that reads but does not fill its image
			// (bytes after it): inspect lists it, with an error.
			return refuse("%s %d › image %d: %v", where, i, b.Index, err)
		}
		rw := &rewrite{decisions: sub.report.Decisions}
		kept, dropped := 0, 0
		for _, d := range rw.decisions {
			switch d.Action {
			case Kept, Unknown, Host:
				kept++
			case Dropped:
				dropped++
			}
		}
		switch {
		case kept == len(rw.decisions):
			rw.keep = true // all kept (or nothing inside): the image as it is
		case dropped < len(rw.decisions):
			rw.data = mo.b
		}
		nested[i] = rw
	}
	// Decided binary by binary: each is a unit a GPU loads one image of
	// (inspect.Object.Unit), which a replacement's target chooses in.
	action := make([]string, len(bins))
	for start := 0; start < len(leaves); {
		end := start + 1
		for end < len(leaves) && bins[leaves[end]].Offset == bins[leaves[start]].Offset {
			end++
		}
		actions, err := s.decide(where, es[start:end])
		if err != nil {
			return err
		}
		for j := start; j < end; j++ {
			action[leaves[j]] = actions[j-start]
		}
		start = end
	}
	var imgs []offloadbin.Image
	for i, b := range bins {
		img := offloadbin.Image{ImageKind: b.ImageKind, OffloadKind: b.OffloadKind, Flags: b.Flags, Strings: b.Strings,
			Data: b.Image(), Size: b.ImageSize()}
		if rw := nested[i]; rw != nil {
			s.report.Decisions = append(s.report.Decisions, rw.decisions...)
			switch {
			case rw.data != nil:
				img.Data, img.Size = bytes.NewReader(rw.data), int64(len(rw.data))
			case !rw.keep:
				continue
			}
			imgs = append(imgs, img)
			continue
		}
		id, at := b.BundleID(), fmt.Sprintf("%s %d", where, i)
		switch action[i] {
		case Dropped:
			s.record(at, id, b.ImageSize(), 0, action[i])
			continue
		case Replaced:
			img.Data, img.Size = s.opts.Replace.Data, s.opts.Replace.Size
		}
		s.record(at, id, b.ImageSize(), img.Size, action[i])
		imgs = append(imgs, img)
	}
	return offloadbin.Write(w, imgs...)
}
