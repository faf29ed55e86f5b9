package bundle

import (
	"fmt"

	"github.com/goffload/goffload/targetid"
)

// Select returns the entry of the bundle that a GPU would load. target is
// either
//
//   - a target ID, a processor with optional features ("gfx90a",
//     "gfx90a:xnack+", "gfx942:sramecc+:xnack-"): the device entry that
//     fits the GPU best by the runtime's rules (targetid.GPU.Fit): the
//     processor's own code before its generic family's ("gfx9-generic"
//     for a gfx906), code built for the GPU's modes before code built for
//     any; a feature the target leaves out fits either setting. Of equal
//     fits, the entry that sets fewer of the features the target leaves
//     out (for "gfx90a", "gfx90a" before "gfx90a:xnack+": code built
//     for any mode runs whichever mode the GPU is in), then the first in
//     Entries' order;
//   - a bundle ID ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", with
//     kind and triple): the first entry, in Entries' order, that
//     clang-offload-bundler 22 -unbundle extracts for it
//     (targetid.Compatible of its standard form).
//
// When none fits, the error is a *NoMatchError (ErrNoMatch) saying why
// each device entry did not.
func (b *Bundle) Select(target string) (*Entry, error) {
	entries, err := b.Entries()
	if err != nil {
		return nil, err
	}
	if id, ok := targetid.Parse(target); ok {
		return selectID(entries, target, id.Standard())
	}
	gpu, err := targetid.ParseGPU(target)
	if err != nil {
		return nil, err
	}
	return selectGPU(entries, target, gpu)
}

// selectID picks the first entry the bundler extracts for the
// standardised bundle ID std.
func selectID(entries []*Entry, target, std string) (*Entry, error) {
	nm := &NoMatchError{Target: target}
	for _, e := range entries {
		if targetid.Compatible(e.ID, std, false) {
			return e, nil
		}
		if !e.IsHost() {
			nm.Reasons = append(nm.Reasons, fmt.Sprintf("%s: not compatible with %s", e.ID, std))
		}
	}
	return nil, nm
}

// selectGPU picks the device entry that fits gpu best.
func selectGPU(entries []*Entry, target string, gpu targetid.GPU) (*Entry, error) {
	var best *Entry
	bestScore := 0
	nm := &NoMatchError{Target: target}
	for _, e := range entries {
		if e.IsHost() {
			continue
		}
		score, why := gpu.Fit(e.TargetID())
		if score == 0 {
			nm.Reasons = append(nm.Reasons, fmt.Sprintf("%s: %s", e.ID, why))
			continue
		}
		if score > bestScore || score == bestScore && unspecified(gpu, e) < unspecified(gpu, best) {
			best, bestScore = e, score
		}
	}
	if best == nil {
		return nil, nm
	}
	return best, nil
}

// unspecified counts the features e's code sets that gpu leaves out: the
// modes the code needs that the GPU may not be in.
func unspecified(gpu targetid.GPU, e *Entry) int {
	h, err := targetid.ParseGPU(e.TargetID())
	if err != nil {
		return 0
	}
	n := 0
	for name := range h.Features {
		if _, ok := gpu.Features[name]; !ok {
			n++
		}
	}
	return n
}
