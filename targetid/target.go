package targetid

import (
	"errors"
	"fmt"
	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/editdist"
	"maps"
	"slices"
	"sort"
	"strings"
)

// A Target is a GPU a user names: a processor and the modes (target-ID
// features: xnack, sramecc) it runs in, optionally narrowed to an offload
// kind and a triple when it was given as a bundle ID. A feature left out
// of Features is a mode left open.
//
// Every command and package asks the same three questions of a Target,
// each answered here once:
//
//   - Loads: which code object of a container does a runtime on this GPU
//     load (extract, replace, bundle.Entry selection). LLVM's rule, as
//     clang-offload-bundler 22 and ROCm's comgr apply it: every mode the
//     code was built for must be a mode the target names with the same
//     sign, so a mode the target leaves open takes only code that leaves
//     it open too; the processor's own code before its generic family's
//     ("gfx9-generic" for a gfx906), which the runtime also loads; of the
//     processor's own code, the build naming more of the target's modes.
//     Choose applies it to a container and refuses to pick silently when
//     the target leaves a mode open and the container holds only builds
//     that differ in it (an *AmbiguousError).
//   - Runs: could this GPU, in any mode it may run in, load the code (list
//     --target, prune --keep, check): a mode the target leaves open fits
//     either setting.
//   - Names: is the code one of the builds the target names (prune
//     --drop): the same processor, and every mode the target names set
//     alike.
type Target struct {
	// Kind is the offload kind ("hip", "hipv4", "openmp") when the target
	// was given as a bundle ID, else "" (any kind).
	Kind string
	// Triple is the triple when the target was given as a bundle ID or a
	// GPU name with a triple ("amdgcn-amd-amdhsa-"), else "" (any).
	Triple    string
	Processor string
	Features  map[string]bool // feature name to on (+) or off (-)
}

// Errors of Parse and Check, for errors.Is.
var (
	// ErrSyntax: the text is not a target (an empty processor, a feature
	// without + or -, a feature given twice).
	ErrSyntax = errors.New("targetid: malformed target")
	// ErrUnknown: the processor or a feature is not one LLVM 22 knows,
	// nor one present in the input (Check).
	ErrUnknown = errors.New("targetid: unknown target")
	// ErrNoMatch: no code object of a container suits the target.
	ErrNoMatch = fmterr.Kind("targetid: no code object for the target", fmterr.ErrNoMatch)
	// ErrAmbiguous: the target leaves a mode open and the container holds
	// only builds that differ in it.
	ErrAmbiguous = errors.New("targetid: the target leaves a mode open")
)

// ParseTarget reads a target as users copy it from other tools:
//
//   - a target ID: "gfx90a", "gfx90a:xnack+", "gfx942:sramecc+:xnack-",
//     "gfx9-generic";
//   - a GPU name as rocminfo and comgr print it, a triple then the target
//     ID: "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-";
//   - a bundle ID as goffload list and the bundler print it:
//     "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+".
//
// It checks the syntax only (errors wrap ErrSyntax); Check says whether
// the processor and its features are known.
func ParseTarget(s string) (Target, error) {
	var t Target
	tid := s
	if p := strings.SplitN(s, "-", 6); len(p) >= 5 && p[0] != "" && parseArch(p[1]) != "" && parseArch(p[0]) == "" {
		if p[0] == "host" {
			return t, fmt.Errorf("%w: %q is a host entry, not a GPU", ErrSyntax, s)
		}
		if len(p) == 6 {
			t.Kind, t.Triple, tid = p[0], strings.Join(p[1:5], "-"), p[5]
		} else { // a three-field triple, as older releases wrote bundle IDs
			t.Kind, t.Triple, tid = p[0], strings.Join(p[1:4], "-"), p[4]
		}
	} else if p := strings.SplitN(s, "-", 5); len(p) == 5 && parseArch(p[0]) != "" {
		t.Triple, tid = strings.Join(p[:4], "-"), p[4]
	}
	proc, rest, _ := strings.Cut(tid, ":")
	t.Processor = proc
	if proc == "" {
		return t, fmt.Errorf("%w: %q names no processor", ErrSyntax, s)
	}
	if strings.HasSuffix(tid, ":") {
		return t, fmt.Errorf("%w: %q ends in ':' (no feature after it)", ErrSyntax, s)
	}
	for rest != "" {
		var f string
		f, rest, _ = strings.Cut(rest, ":")
		if len(f) < 2 || (f[len(f)-1] != '+' && f[len(f)-1] != '-') {
			return t, fmt.Errorf("%w: %q: feature %q must end in + or - (%s:%s+ or %s:%s-)",
				ErrSyntax, s, f, proc, strings.TrimRight(f, "+-"), proc, strings.TrimRight(f, "+-"))
		}
		name := f[:len(f)-1]
		if t.Features == nil {
			t.Features = map[string]bool{}
		}
		if _, dup := t.Features[name]; dup {
			return t, fmt.Errorf("%w: %q: feature %q given twice", ErrSyntax, s, name)
		}
		t.Features[name] = f[len(f)-1] == '+'
	}
	return t, nil
}

// MustParseTarget is ParseTarget for targets known to be valid; it panics
// on error (tests and examples).
func MustParseTarget(s string) Target {
	t, err := ParseTarget(s)
	if err != nil {
		panic(err)
	}
	return t
}

// Check reports whether t names a processor LLVM 22 knows, or one of the
// processors present (those of the input, for GPUs newer than LLVM 22),
// and only modes that processor has. The error wraps ErrUnknown and
// offers the closest known name ("GFX90A": did you mean gfx90a?); for a
// processor of another vendor ("sm_80") it names what present holds.
func (t Target) Check(present []string) error {
	p := t.Processor
	known := slices.Contains(present, p)
	feats, amd := AMDGPUFeatures(p)
	switch {
	case amd:
	case known:
		feats = []string{"sramecc", "xnack"}
	case IsOffloadArch(p):
		return fmt.Errorf("%w: %s is not an AMD GPU; goffload chooses among AMD GPU code objects%s", ErrUnknown, p, holds(present))
	default:
		hint := ""
		if s := suggest(p, present); s != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", s)
		}
		return fmt.Errorf("%w: no GPU is called %q%s%s", ErrUnknown, p, hint, holds(present))
	}
	for _, name := range t.featureNames() {
		if !slices.Contains(feats, name) {
			has := "no modes"
			if len(feats) > 0 {
				has = "only " + strings.Join(feats, " and ")
			}
			hint := ""
			for _, f := range feats {
				if strings.EqualFold(f, name) || editdist.Distance(strings.ToLower(name), f) <= 2 {
					fixed := Target{Kind: t.Kind, Triple: t.Triple, Processor: p, Features: maps.Clone(t.Features)}
					delete(fixed.Features, name)
					fixed.Features[f] = t.Features[name]
					hint = fmt.Sprintf("; did you mean %s?", fixed.TargetID())
					break
				}
			}
			return fmt.Errorf("%w: %s has no %s mode (it has %s%s)", ErrUnknown, p, name, has, hint)
		}
	}
	return nil
}

// holds says which processors the input holds, for messages.
func holds(present []string) string {
	if len(present) == 0 {
		return ""
	}
	return "; the input holds code for " + strings.Join(present, ", ")
}

// suggest returns the known or present processor closest to p: the same
// name in another case, else one at edit distance 2 at most.
func suggest(p string, present []string) string {
	names := slices.Clone(present)
	for n := range amdgcnProcessors {
		names = append(names, n)
	}
	sort.Strings(names)
	best, bestD := "", 3
	for _, n := range names {
		if strings.EqualFold(n, p) {
			return n
		}
		if d := editdist.Distance(strings.ToLower(p), n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// A Code is a code object as its container describes it: the offload
// kind, triple and target ID of its bundle ID or OffloadBinary, or the
// target ID its own ELF header gives. Empty fields are unknown.
type Code struct {
	Kind, Triple, TargetID string
}

// CodeOf describes the code object a bundle entry ID names (as stored:
// three-field triples of older releases included).
func CodeOf(bundleID string) Code {
	id, ok := ParseStored(bundleID)
	if !ok {
		return Code{}
	}
	// ParseStored keeps the target ID only for processors LLVM 22 knows;
	// a newer processor's ID is still the GPU's name.
	tid := id.TargetID
	if p := strings.SplitN(bundleID, "-", 6); tid == "" && len(p) == 6 {
		tid = p[5]
	}
	return Code{Kind: id.Kind, Triple: id.Triple(), TargetID: tid}
}

// narrowed reports whether c is of t's kind and triple (when t names them).
func (t Target) narrowed(c Code) (bool, string) {
	if t.Kind != "" && c.Kind != "" && !kindsCompatible(c.Kind, t.Kind, false) {
		return false, fmt.Sprintf("offload kind %s, not %s", c.Kind, t.Kind)
	}
	if t.Triple != "" && c.Triple != "" && !parseTriple(c.Triple).compatibleWith(parseTriple(t.Triple)) {
		return false, fmt.Sprintf("triple %s, not %s", c.Triple, t.Triple)
	}
	return true, ""
}

// Loads says whether a runtime on GPU t loads code object c (see Target):
// 0 when it does not, with why; more for a better fit: 100 for the
// processor's own code, 50 for its generic family's, plus 10 for each mode
// the code names.
func (t Target) Loads(c Code) (rank int, why string) {
	rank, why = t.processorRank(c)
	if rank == 0 {
		return 0, why
	}
	h, _ := ParseTarget(c.TargetID)
	for _, name := range h.featureNames() {
		want, named := t.Features[name]
		switch {
		case !named:
			return 0, fmt.Sprintf("built for %s%s only; the target leaves %s open", name, sign(h.Features[name]), name)
		case want != h.Features[name]:
			return 0, fmt.Sprintf("built for %s%s, the target is %s%s", name, sign(h.Features[name]), name, sign(want))
		}
		rank += 10
	}
	return rank, ""
}

// Runs says whether GPU t, in some mode it may run in, can load c: as
// Loads, except that a mode t leaves open fits either setting.
func (t Target) Runs(c Code) bool {
	if rank, _ := t.processorRank(c); rank == 0 {
		return false
	}
	h, _ := ParseTarget(c.TargetID)
	for name, on := range h.Features {
		if want, named := t.Features[name]; named && want != on {
			return false
		}
	}
	return true
}

// Names says whether c is one of the builds t names: t's kind and triple
// when given, the same processor, and every mode t names set alike.
func (t Target) Names(c Code) bool {
	if ok, _ := t.narrowed(c); !ok {
		return false
	}
	h, err := ParseTarget(c.TargetID)
	if err != nil || h.Processor != t.Processor {
		return false
	}
	for name, on := range t.Features {
		if got, ok := h.Features[name]; !ok || got != on {
			return false
		}
	}
	return true
}

// processorRank is 100 when c is t's processor's code, 50 when it is its
// generic family's, else 0 and why.
func (t Target) processorRank(c Code) (int, string) {
	if ok, why := t.narrowed(c); !ok {
		return 0, why
	}
	if c.TargetID == "" {
		return 0, "no target ID"
	}
	h, err := ParseTarget(c.TargetID)
	if err != nil {
		return 0, err.Error()
	}
	switch h.Processor {
	case t.Processor:
		return 100, ""
	case genericFamily[t.Processor]:
		return 50, ""
	}
	return 0, "built for " + h.Processor
}

// Choose returns the index in codes of the code object a runtime on GPU t
// loads from one container (Loads' best; of equal fits, the first). When
// none loads, the error is an *AmbiguousError if t leaves a mode open and
// codes hold builds for t's processor that set it, else a *NoMatchError.
func (t Target) Choose(codes []Code) (int, error) {
	best, bestRank := -1, 0
	var reasons []string
	var modal []string
	for i, c := range codes {
		rank, why := t.Loads(c)
		if rank > bestRank {
			best, bestRank = i, rank
		}
		if rank == 0 {
			reasons = append(reasons, c.TargetID+": "+why)
			if t.Runs(c) {
				modal = append(modal, c.TargetID)
			}
		}
	}
	// The processor's own builds for modes t leaves open: on the GPU,
	// one of them runs whatever else is there (a generic family's code
	// only when none fits), so which depends on the mode.
	var own []string
	for _, m := range modal {
		if h, err := ParseTarget(m); err == nil && h.Processor == t.Processor {
			own = append(own, m)
		}
	}
	switch {
	case best >= 0 && (bestRank >= 100 || len(own) == 0):
		return best, nil
	case len(own) > 0:
		return -1, &AmbiguousError{Target: t, Builds: own}
	case len(modal) > 0:
		return -1, &AmbiguousError{Target: t, Builds: modal}
	}
	return -1, &NoMatchError{Target: t, Reasons: reasons}
}

// A NoMatchError says that no code object suits a target, and why each
// did not.
type NoMatchError struct {
	Target  Target
	Reasons []string // "<target ID>: <why>"
}

func (e *NoMatchError) Error() string {
	if len(e.Reasons) == 0 {
		return fmt.Sprintf("targetid: no code object for %s: no device code", e.Target)
	}
	return fmt.Sprintf("targetid: no code object for %s: %s", e.Target, strings.Join(e.Reasons, "; "))
}

// Is reports a NoMatchError as ErrNoMatch.
func (e *NoMatchError) Is(err error) bool { return err == ErrNoMatch }

// An AmbiguousError says that a target leaves a mode open where the code
// objects present were each built for one setting of it: which one a GPU
// loads depends on the mode it runs in, which the target does not say.
type AmbiguousError struct {
	Target Target
	Builds []string // the target IDs present that differ in the open modes
}

func (e *AmbiguousError) Error() string {
	builds := slices.Compact(slices.Sorted(slices.Values(e.Builds)))
	return fmt.Sprintf("targetid: %s leaves %s open, and the code objects for it were built for %s only: name the mode, e.g. %s",
		e.Target, strings.Join(e.open(), " and "), strings.Join(builds, ", "), builds[0])
}

// open lists the modes the builds set that the target leaves open.
func (e *AmbiguousError) open() []string {
	var names []string
	for _, b := range e.Builds {
		h, _ := ParseTarget(b)
		for _, n := range h.featureNames() {
			if _, named := e.Target.Features[n]; !named && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}

// Is reports an AmbiguousError as ErrAmbiguous.
func (e *AmbiguousError) Is(err error) bool { return err == ErrAmbiguous }

func (t Target) featureNames() []string {
	names := make([]string, 0, len(t.Features))
	for n := range t.Features {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TargetID returns the processor and features in target-ID syntax,
// features sorted as LLVM writes them ("gfx942:sramecc+:xnack-").
func (t Target) TargetID() string {
	s := t.Processor
	for _, n := range t.featureNames() {
		s += ":" + n + sign(t.Features[n])
	}
	return s
}

// String returns the target as it was given, in its standard spelling:
// the target ID, preceded by kind and triple when those were given.
func (t Target) String() string {
	switch {
	case t.Kind != "":
		return t.Kind + "-" + t.Triple + "-" + t.TargetID()
	case t.Triple != "":
		return t.Triple + "-" + t.TargetID()
	}
	return t.TargetID()
}

func sign(on bool) string {
	if on {
		return "+"
	}
	return "-"
}

// genericFamily maps a processor to the generic target whose code objects
// run on it (LLVM's AMDGPUUsage "generic processors").
var genericFamily = map[string]string{}

func init() {
	for g, procs := range map[string][]string{
		"gfx9-generic":    {"gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"},
		"gfx9-4-generic":  {"gfx940", "gfx941", "gfx942", "gfx950"},
		"gfx10-1-generic": {"gfx1010", "gfx1011", "gfx1012", "gfx1013"},
		"gfx10-3-generic": {"gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"},
		"gfx11-generic":   {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"},
		"gfx12-generic":   {"gfx1200", "gfx1201"},
	} {
		for _, p := range procs {
			genericFamily[p] = g
		}
	}
}

// GenericFamily returns the generic processor whose code runs on proc
// ("gfx9-generic" for "gfx906"), or "".
func GenericFamily(proc string) string { return genericFamily[proc] }
