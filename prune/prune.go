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
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/inspect"
)

// Options say what to keep. Exactly one of Keep, Drop or Replace is used.
type Options struct {
	// Keep keeps the code objects a GPU of one of these target IDs can load
	// (target-ID rules: "gfx90a" keeps gfx90a, gfx90a:xnack+ and
	// gfx90a:xnack-; "gfx90a:xnack+" keeps gfx90a:xnack+ and gfx90a), and
	// drops the other device code.
	Keep []string
	// Drop drops the code objects built for one of these target IDs: the
	// processor matches and so does every feature the ID names ("gfx90a"
	// drops every gfx90a object, "gfx90a:xnack+" only xnack+ ones).
	Drop []string
	// Exact compares target IDs as strings instead.
	Exact bool
	// Replace puts Data in place of the code object whose bundle ID (or
	// target ID, when no ID matches) is Target, in every bundle holding it.
	Replace *Replacement
	// Level is the compression level for rewritten CCOBs (0: LLVM's
	// default, zstd 3 or zlib 6).
	Level int
}

// A Replacement is a new code object for one target.
type Replacement struct {
	Target string
	Data   io.ReaderAt
	Size   int64
}

// A Decision is what happened to one code object.
type Decision struct {
	Where   string // container path, as inspect prints it
	ID      string
	Size    int64 // bytes before
	NewSize int64 // bytes after (0 when dropped)
	Action  string
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

// selector decides for one code object.
type selector struct {
	opts    Options
	keep    []inspect.Target
	drop    []inspect.Target
	report  *Report
	matched bool // Replace found its target
}

func newSelector(o Options, r *Report) (*selector, error) {
	s := &selector{opts: o, report: r}
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
	for _, k := range o.Keep {
		t, err := inspect.ParseTarget(k)
		if err != nil {
			return nil, err
		}
		s.keep = append(s.keep, t)
	}
	for _, d := range o.Drop {
		t, err := inspect.ParseTarget(d)
		if err != nil {
			return nil, err
		}
		s.drop = append(s.drop, t)
	}
	return s, nil
}

// decide returns the action for a bundle entry or image ID with target ID
// tid (may be "").
func (s *selector) decide(id, tid string, host bool) string {
	switch {
	case host:
		return Host
	case s.opts.Replace != nil:
		if id == s.opts.Replace.Target || tid == s.opts.Replace.Target {
			s.matched = true
			return Replaced
		}
		return Kept
	case tid == "":
		return Unknown
	case len(s.keep) > 0:
		for i, t := range s.keep {
			if s.opts.Exact {
				if tid == s.opts.Keep[i] {
					return Kept
				}
				continue
			}
			if score, _ := t.Fit(tid); score > 0 {
				return Kept
			}
		}
		return Dropped
	default:
		h, err := inspect.ParseTarget(tid)
		if err != nil {
			return Unknown
		}
		for i, t := range s.drop {
			if s.opts.Exact {
				if tid == s.opts.Drop[i] {
					return Dropped
				}
				continue
			}
			if covers(t, h) {
				return Dropped
			}
		}
		return Kept
	}
}

// covers reports whether target ID have is one of the builds t names: the
// same processor, and every feature t names set alike.
func covers(t, have inspect.Target) bool {
	if t.Processor != have.Processor {
		return false
	}
	for f, on := range t.Features {
		if h, ok := have.Features[f]; !ok || h != on {
			return false
		}
	}
	return true
}

func (s *selector) record(where, id string, size, newSize int64, action string) {
	s.report.Decisions = append(s.report.Decisions, Decision{Where: where, ID: id, Size: size, NewSize: newSize, Action: action})
}

// targetOf returns the target ID a bundle entry ID names, or "".
func targetOf(id string) (tid string, host bool) {
	kind, _, tid := inspect.SplitID(id)
	return tid, kind == "host"
}
