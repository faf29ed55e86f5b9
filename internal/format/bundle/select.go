package bundle

import (
	"github.com/goffload/goffload/targetid"
)

// Select returns the entry of the bundle that a runtime on GPU t loads, by
// the one rule every goffload command follows (targetid.Target.Choose):
// code built for a mode t leaves open is not taken, the processor's own
// code comes before its generic family's ("gfx9-generic" for a gfx906),
// the build naming more of t's modes before one built for any mode, and
// of equal fits the first in Entries' order. A t given as a bundle ID also
// narrows the offload kind and triple.
//
// When none fits, the error is a *targetid.NoMatchError (targetid.ErrNoMatch)
// saying why each device entry did not, or a *targetid.AmbiguousError
// (targetid.ErrAmbiguous) when t leaves a mode open and the bundle holds
// only builds that set it ("gfx90a" where there are gfx90a:xnack+ and
// gfx90a:xnack-).
func (b *Bundle) Select(t targetid.Target) (*Entry, error) {
	entries, err := b.Entries()
	if err != nil {
		return nil, err
	}
	var devices []*Entry
	var codes []targetid.Code
	for _, e := range entries {
		if !e.IsHost() {
			devices = append(devices, e)
			codes = append(codes, targetid.CodeOf(e.ID))
		}
	}
	i, err := t.Choose(codes)
	if err != nil {
		return nil, err
	}
	return devices[i], nil
}
