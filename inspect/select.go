package inspect

import (
	"fmt"
	"sort"
	"strings"
)

// A Target is a GPU as a runtime sees it: a processor and the modes it
// runs in, in target-ID syntax ("gfx90a", "gfx90a:xnack+",
// "gfx942:sramecc+:xnack-"). A feature left out is a mode not known, which
// any code object's setting of it fits.
type Target struct {
	Processor string
	Features  map[string]bool // feature name to on (+) or off (-)
}

// ParseTarget parses a target ID.
func ParseTarget(s string) (Target, error) {
	proc, rest, _ := strings.Cut(s, ":")
	t := Target{Processor: proc, Features: map[string]bool{}}
	if proc == "" {
		return t, fmt.Errorf("target %q: no processor", s)
	}
	for rest != "" {
		var f string
		f, rest, _ = strings.Cut(rest, ":")
		if len(f) < 2 || (f[len(f)-1] != '+' && f[len(f)-1] != '-') {
			return t, fmt.Errorf("target %q: feature %q must end in + or -", s, f)
		}
		name := f[:len(f)-1]
		if _, dup := t.Features[name]; dup {
			return t, fmt.Errorf("target %q: feature %q given twice", s, name)
		}
		t.Features[name] = f[len(f)-1] == '+'
	}
	return t, nil
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

// Fit says how well a code object built for target ID have serves a GPU
// t: 0 when it does not, more for a better fit (a code object for the
// processor itself beats a generic one; one with the GPU's exact modes
// beats one built for any mode). why says what did not fit.
func (t Target) Fit(have string) (score int, why string) {
	h, err := ParseTarget(have)
	if err != nil {
		return 0, err.Error()
	}
	switch h.Processor {
	case t.Processor:
		score = 100
	case genericFamily[t.Processor]:
		score = 50
	default:
		return 0, fmt.Sprintf("built for %s", h.Processor)
	}
	for name, on := range h.Features {
		want, known := t.Features[name]
		switch {
		case !known:
			// The GPU's mode is not given: any setting may fit.
		case want != on:
			return 0, fmt.Sprintf("built for %s%s, the GPU runs %s%s", name, sign(on), name, sign(want))
		default:
			score += 10
		}
	}
	return score, ""
}

func sign(on bool) string {
	if on {
		return "+"
	}
	return "-"
}

// String returns the target in target-ID syntax, features sorted.
func (t Target) String() string {
	names := make([]string, 0, len(t.Features))
	for n := range t.Features {
		names = append(names, n)
	}
	sort.Strings(names)
	s := t.Processor
	for _, n := range names {
		s += ":" + n + sign(t.Features[n])
	}
	return s
}

// ForTarget returns, for each container that holds code for several GPUs
// (a bundle, a set of offload images), the one code object a runtime on
// GPU t would load from it: the best Fit. reasons lists, when nothing fits,
// why each device object did not.
func (l *Listing) ForTarget(t Target) (picked []*Object, reasons []string) {
	type best struct {
		o     *Object
		score int
	}
	byContainer := map[string]*best{}
	var order []string
	for _, o := range l.Objects {
		if o.Host {
			continue
		}
		tid := o.TargetID
		if tid == "" {
			tid = o.Header().TargetID()
		}
		score, why := t.Fit(tid)
		if score == 0 {
			reasons = append(reasons, fmt.Sprintf("#%d %s: %s", o.Index, o.ID, why))
			continue
		}
		key := strings.Join(o.Path, "\x00")
		b := byContainer[key]
		if b == nil {
			byContainer[key] = &best{o, score}
			order = append(order, key)
		} else if score > b.score {
			b.o, b.score = o, score
		}
	}
	for _, k := range order {
		picked = append(picked, byContainer[k].o)
	}
	sort.Slice(picked, func(i, j int) bool { return picked[i].Index < picked[j].Index })
	if len(picked) > 0 {
		reasons = nil
	}
	return picked, reasons
}
