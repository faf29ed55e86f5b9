package targetid

import (
	"fmt"
	"sort"
	"strings"
)

// A GPU is a GPU as a runtime sees it: a processor and the modes it runs
// in, in target-ID syntax ("gfx90a", "gfx90a:xnack+",
// "gfx942:sramecc+:xnack-"). A feature left out is a mode not known, which
// any code object's setting of it fits.
//
// Where Compatible answers the bundler's question (may a bundle stored
// under one ID be extracted for a requested ID), Fit answers the runtime's:
// which of a bundle's code objects does this GPU load. The runtime also
// loads the code of a processor's generic family ("gfx9-generic" on a
// gfx906), and prefers the processor's own.
type GPU struct {
	Processor string
	Features  map[string]bool // feature name to on (+) or off (-)
}

// ParseGPU parses a target ID: a processor, then features each ending in
// '+' or '-', separated by ':'.
func ParseGPU(s string) (GPU, error) {
	proc, rest, _ := strings.Cut(s, ":")
	g := GPU{Processor: proc, Features: map[string]bool{}}
	if proc == "" {
		return g, fmt.Errorf("target %q: no processor", s)
	}
	for rest != "" {
		var f string
		f, rest, _ = strings.Cut(rest, ":")
		if len(f) < 2 || (f[len(f)-1] != '+' && f[len(f)-1] != '-') {
			return g, fmt.Errorf("target %q: feature %q must end in + or -", s, f)
		}
		name := f[:len(f)-1]
		if _, dup := g.Features[name]; dup {
			return g, fmt.Errorf("target %q: feature %q given twice", s, name)
		}
		g.Features[name] = f[len(f)-1] == '+'
	}
	return g, nil
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

// Fit says how well a code object built for target ID have serves the GPU:
// 0 when it does not, more for a better fit (a code object for the
// processor itself beats a generic one; one with the GPU's exact modes
// beats one built for any mode). why says what did not fit.
func (g GPU) Fit(have string) (score int, why string) {
	h, err := ParseGPU(have)
	if err != nil {
		return 0, err.Error()
	}
	switch h.Processor {
	case g.Processor:
		score = 100
	case genericFamily[g.Processor]:
		score = 50
	default:
		return 0, fmt.Sprintf("built for %s", h.Processor)
	}
	for name, on := range h.Features {
		want, known := g.Features[name]
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

// String returns the GPU in target-ID syntax, features sorted.
func (g GPU) String() string {
	names := make([]string, 0, len(g.Features))
	for n := range g.Features {
		names = append(names, n)
	}
	sort.Strings(names)
	s := g.Processor
	for _, n := range names {
		s += ":" + n + sign(g.Features[n])
	}
	return s
}
