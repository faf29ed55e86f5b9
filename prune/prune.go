// Package prune rewrites the device code of a file: it keeps only the code
// objects a set of GPUs can load (the nvprune of ROCm), or puts a new code
// object in place of one, in every container package inspect lists —
// binary and text bundles, CCOBs (recompressed with their version and
// method), fat objects and archives of them, and the .hip_fatbin of ELF
// shared libraries and executables, which is made smaller on disk without
// moving any virtual address.
//
// Host entries are always kept: a bundle left with no code for a GPU keeps
// its host entry, so the HIP runtime registers it and finds no code for that
// GPU, as it would on any unsupported GPU. What cannot be rewritten safely
// (a layout not recognised, pointers into .hip_fatbin that cannot all be
// accounted for, PE files, kpack'd binaries) is refused with an error that
// says why; nothing is written then.
package prune

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/targetid"
)

// Options say what to keep. Exactly one of Keep, Drop or Replace is used.
// Targets follow the one rule of package targetid.
type Options struct {
	// Keep keeps the code objects a GPU of one of these targets can load
	// in any mode it may run in (targetid.Target.Runs: "gfx90a" keeps
	// gfx90a, gfx90a:xnack+ and gfx90a:xnack-; "gfx90a:xnack+" keeps
	// gfx90a:xnack+ and gfx90a; "gfx906" keeps gfx9-generic code too), and
	// drops the other device code. A Keep that keeps no code object of
	// the whole input is an error wrapping ErrEmpty, unless AllowEmpty.
	Keep []targetid.Target
	// Drop drops the code objects built for one of these targets
	// (targetid.Target.Names: "gfx90a" drops every gfx90a object,
	// "gfx90a:xnack+" only xnack+ ones).
	Drop []targetid.Target
	// Exact compares target IDs as written instead: a code object is kept
	// or dropped when its target ID is the target's.
	Exact bool
	// AllowEmpty lets a Keep keep no code object at all.
	AllowEmpty bool
	// Replace puts new code in place of the code object each container
	// would give a runtime on Replace.Target (targetid.Target.Choose).
	Replace *Replacement
	// Level is the compression level for rewritten CCOBs (0: LLVM's
	// default, zstd 3 or zlib 6).
	Level int
}

// A Replacement is a new code object for one target.
type Replacement struct {
	Target targetid.Target
	Data   io.ReaderAt
	Size   int64
	// Force puts Data in place even when it is not a code object the
	// replaced entry's target accepts (another processor or mode, another
	// kind of code).
	Force bool
	// At, when set, limits the replacement to the code objects at these
	// positions (as inspect.Object.Position gives them: goffload's
	// --index and --bundle). With a zero Target, each of them is replaced;
	// else Target chooses among them, container by container.
	At []Position
}

// A Position locates a code object in the input: its file offset, or, for
// one inside a CCOB, the CCOB's file offset and the object's offset in the
// inflated bundle (Inner, -1 otherwise).
type Position struct {
	Offset, Inner int64
}

// A Decision is what happened to one code object.
type Decision struct {
	Where   string // container path, as list's CONTAINER column shows it (inspect.Object.Place)
	ID      string
	Size    int64 // bytes before
	NewSize int64 // bytes after (0 when dropped)
	Action  string
	// kind names a container that is the file itself ("bundle section",
	// "file"), with Where "": list names it so when it is not inside
	// another (an archive member's path is the member's).
	kind string
}

// Actions.
const (
	Kept     = "kept"
	Dropped  = "dropped"
	Replaced = "replaced"
	Host     = "kept (host)"
	Unknown  = "kept (target unknown)"
)

// A Report says what a rewrite did.
type Report struct {
	Decisions           []Decision
	SizeBefore, SizeAft int64
	Notes               []string
	// Unmatched lists the Keep or Drop targets no code object matched.
	Unmatched []targetid.Target
}

// count counts the decisions of one action.
func (r *Report) count(action string) int {
	n := 0
	for _, d := range r.Decisions {
		if d.Action == action {
			n++
		}
	}
	return n
}

// Changed reports whether any object was dropped or replaced.
func (r *Report) Changed() bool {
	for _, d := range r.Decisions {
		if d.Action == Dropped || d.Action == Replaced {
			return true
		}
	}
	return false
}

// ErrRefused wraps every refusal to rewrite a file that cannot be rewritten
// safely; the message says why.
var ErrRefused = errors.New("cannot rewrite safely")

func refuse(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, a...))
}

// ErrEmpty is a Keep that keeps no code object of the input.
var ErrEmpty = fmterr.Kind("prune: no code object of the input fits what is kept", fmterr.ErrNoMatch)

// ErrRemovable marks the refusal of a file whose code objects are all
// dropped and that no empty form of the file would stand for (with
// ErrRefused): a file that is one code object, a KPAK archive, a file of
// OffloadBinaries only, a static archive each of whose members is one of
// these. Pruning a folder or a wheel leaves such a file out (an archive
// leaves out such a member); pruning the file alone refuses it, and a Keep
// that keeps none of its code objects is ErrEmpty there unless AllowEmpty.
var ErrRemovable = fmterr.Kind("every code object is dropped, and the file is not rewritten: it may be removed whole", fmterr.ErrNoMatch)

// ErrMismatch is a replacement that is not code the replaced entry's
// target accepts.
var ErrMismatch = errors.New("prune: the replacement does not fit the code object it replaces")

// selector decides for each code object.
type selector struct {
	opts   Options
	report *Report
	*tally
	// base is the file offset of the reader being rewritten, -1 when it
	// is not part of the input as it is; ccob is the file offset of the
	// CCOB whose inflated bundle is being rewritten, or -1.
	base, ccob int64
	// repKind and repCode say what the replacement is: its kind of code
	// and, for an AMDGPU code object, its own target ID.
	repKind magic.Kind
	repCode targetid.Code
}

// tally is what a selector learns over the whole input, archive members
// included.
type tally struct {
	matched bool // Replace found its target
	// used counts, per Keep then Drop target, the code objects it matched.
	used []int
	// replaced holds a digest of each replaced code object's bytes, when
	// they could be read, to tell whether they differed.
	replaced map[[sha256.Size]byte]bool
	// seen lists every device code object decided on.
	seen []targetid.Code
	// holding is set while the rewrite holds part of the inflating budget.
	holding bool
}

func newSelector(o Options, r *Report) (*selector, error) {
	s := &selector{opts: o, report: r, tally: &tally{}, ccob: -1}
	n := 0
	if len(o.Keep) > 0 {
		n++
	}
	if len(o.Drop) > 0 {
		n++
	}
	if o.Replace != nil {
		n++
	}
	if n != 1 {
		return nil, errors.New("prune: give exactly one of Keep, Drop or Replace")
	}
	s.used = make([]int, len(o.Keep)+len(o.Drop))
	if rep := o.Replace; rep != nil {
		if rep.Data == nil || rep.Size < 0 {
			return nil, errors.New("prune: the replacement has no data")
		}
		head := make([]byte, min(rep.Size, magic.Len))
		if _, err := rep.Data.ReadAt(head, 0); err != nil && err != io.EOF {
			return nil, fmt.Errorf("prune: reading the replacement: %w", err)
		}
		s.repKind = magic.Identify(head)
		s.repCode = targetid.Code{TargetID: inspect.ReadCodeObject(rep.Data, rep.Size).TargetID()}
		s.replaced = map[[sha256.Size]byte]bool{}
	}
	return s, nil
}

// An entry is one code object of a container, as decide sees it.
type entry struct {
	id   string
	code targetid.Code
	host bool
	pos  Position // {-1, -1} when not known
	// open reads the entry's bytes (to check and tell apart what is
	// replaced), or is nil when they are not at hand.
	open func() io.Reader
}

// bundleEntry describes a bundle entry by its ID and its offset in the
// bundle being rewritten (-1 when not known).
func (s *selector) bundleEntry(id string, off int64, open func() io.Reader) entry {
	c := targetid.CodeOf(id)
	return entry{id: id, code: c, host: c.Kind == "host", open: open, pos: s.position(off)}
}

// position is where an entry at offset off of the reader being rewritten
// lies in the input.
func (s *selector) position(off int64) Position {
	switch {
	case off < 0 || s.ccob == -2:
		return Position{-1, -1}
	case s.ccob >= 0:
		return Position{s.ccob, off}
	case s.base >= 0:
		return Position{s.base + off, -1}
	}
	return Position{-1, -1}
}

// decide returns the action for each code object of one container.
func (s *selector) decide(where string, es []entry) ([]string, error) {
	actions := make([]string, len(es))
	for _, e := range es {
		if !e.host {
			s.seen = append(s.seen, e.code)
		}
	}
	rep := s.opts.Replace
	if rep == nil {
		for i, e := range es {
			actions[i] = s.keepOrDrop(e)
		}
		return actions, nil
	}
	var devices []int
	var codes []targetid.Code
	for i, e := range es {
		actions[i] = Kept
		switch {
		case e.host:
			actions[i] = Host
		case len(rep.At) == 0 || slices.Contains(rep.At, e.pos):
			devices = append(devices, i)
			codes = append(codes, e.code)
		}
	}
	if len(rep.At) > 0 && rep.Target.Processor == "" {
		for _, i := range devices {
			if err := s.checkReplacement(where, es[i]); err != nil {
				return nil, err
			}
			actions[i] = Replaced
			s.matched = true
		}
		return actions, nil
	}
	if len(devices) == 0 {
		return actions, nil
	}
	j, err := rep.Target.Choose(codes)
	if errors.Is(err, targetid.ErrAmbiguous) {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err == nil {
		i := devices[j]
		if err := s.checkReplacement(where, es[i]); err != nil {
			return nil, err
		}
		actions[i] = Replaced
		s.matched = true
	}
	return actions, nil
}

// keepOrDrop decides for one code object under Keep or Drop.
func (s *selector) keepOrDrop(e entry) string {
	switch {
	case e.host:
		return Host
	case e.code.TargetID == "":
		return Unknown
	case s.opts.keeps(e.code, func(i int) { s.used[i]++ }):
		return Kept
	}
	return Dropped
}

// Keeps reports whether code objects for c stay under o's Keep, Drop and
// Exact: the rule every rewrite decides by (a Keep target runs it, no Drop
// target names it; with Exact, target IDs compared as strings). Host code
// and code for no named target stay. Files a library looks up by a GPU's
// name (Tensile's, MIOpen's) are kept or left out by it too.
func (o Options) Keeps(c targetid.Code) bool {
	return c.Kind == "host" || c.TargetID == "" || o.keeps(c, nil)
}

// keeps applies the rule to device code c, calling matched with the index
// of each Keep, then Drop, target that matches it.
func (o Options) keeps(c targetid.Code, matched func(int)) bool {
	keep := len(o.Keep) > 0
	found := false
	for i, t := range append(slices.Clip(o.Keep), o.Drop...) {
		var match bool
		switch {
		case o.Exact:
			match = c.TargetID == t.TargetID()
		case keep:
			match = t.Runs(c)
		default:
			match = t.Names(c)
		}
		if match {
			found = true
			if matched != nil {
				matched(i)
			}
		}
	}
	return found == keep
}

// checkReplacement makes sure the replacement is code the entry's target
// accepts: the same kind of code and, for AMDGPU code objects, code a
// runtime would load in the entry's place (targetid.Target.Loads).
func (s *selector) checkReplacement(where string, e entry) error {
	kind := magic.Unknown
	if e.open != nil {
		h := sha256.New()
		head := make([]byte, magic.Len)
		r := e.open()
		n, _ := io.ReadFull(r, head)
		kind = magic.Identify(head[:n])
		h.Write(head[:n])
		io.Copy(h, r)
		s.replaced[[sha256.Size]byte(h.Sum(nil))] = true
	}
	if s.opts.Replace.Force {
		return nil
	}
	force := " (--force to replace anyway)"
	switch {
	case !s.repKind.IsELF() && s.repKind != magic.Bitcode:
		return fmt.Errorf("%w: %s: the replacement is %s, not a code object%s", ErrMismatch, where, s.repKind, force)
	case kind != magic.Unknown && kind != s.repKind && !(kind.IsELF() && s.repKind.IsELF()):
		return fmt.Errorf("%w: %s: %s holds %s, the replacement is %s%s", ErrMismatch, where, e.id, kind, s.repKind, force)
	case !s.repKind.IsELF():
		return nil
	case s.repCode.TargetID == "":
		return fmt.Errorf("%w: %s: the replacement is not an AMDGPU code object%s", ErrMismatch, where, force)
	}
	slot, err := targetid.ParseTarget(e.code.TargetID)
	if err != nil {
		return fmt.Errorf("%w: %s: %s names no target ID%s", ErrMismatch, where, e.id, force)
	}
	if rank, why := slot.Loads(s.repCode); rank == 0 {
		if proc, _, _ := strings.Cut(s.repCode.TargetID, ":"); why == "built for "+proc {
			why = "" // another processor: said already
		} else {
			why = " (" + why + ")"
		}
		return fmt.Errorf("%w: %s: %s is for %s, the replacement was built for %s%s%s",
			ErrMismatch, where, e.id, e.code.TargetID, s.repCode.TargetID, why, force)
	}
	return nil
}

// reasons says why no code object of the input was replaced.
func (s *selector) reasons() []string {
	var why []string
	for _, c := range s.seen {
		_, w := s.opts.Replace.Target.Loads(c)
		why = append(why, c.TargetID+": "+w)
	}
	return why
}

// present lists the target IDs the decisions name.
func (s *selector) present() string {
	var ts []string
	for _, c := range s.seen {
		if c.TargetID != "" && !slices.Contains(ts, c.TargetID) {
			ts = append(ts, c.TargetID)
		}
	}
	if len(ts) == 0 {
		return "no GPU"
	}
	slices.Sort(ts)
	return strings.Join(ts, ", ")
}

func (s *selector) record(where, id string, size, newSize int64, action string) {
	s.report.Decisions = append(s.report.Decisions, Decision{Where: where, ID: id, Size: size, NewSize: newSize, Action: action})
}

// recordIn records a decision on a code object in a container that is the
// file itself, of the given kind (see Decision.kind).
func (s *selector) recordIn(kind, id string, size, newSize int64, action string) {
	s.report.Decisions = append(s.report.Decisions, Decision{ID: id, Size: size, NewSize: newSize, Action: action, kind: kind})
}

// placed gives each decision on a container that is the file itself its
// kind as Where, as list names it.
func placed(ds []Decision) {
	for i := range ds {
		if ds[i].Where == "" {
			ds[i].Where = ds[i].kind
		}
		ds[i].kind = ""
	}
}
