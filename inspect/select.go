package inspect

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/goffload/goffload/targetid"
)

// Target describes the object for the target rule of package targetid: its
// offload kind and triple, and its target ID from its container or, when
// the container names none, from its own header.
func (o *Object) Target() targetid.Code {
	tid := o.TargetID
	if tid == "" && !o.Host {
		tid = o.Header().TargetID()
	}
	return targetid.Code{Kind: o.Kind, Triple: o.Triple, TargetID: tid}
}

// Position returns where the object's bytes lie in the file: their file
// offset and inner -1, or, inside compressed data, the compressed
// container's file offset and the object's offset in the inflated data.
// off is -1 when the object lies in no byte range of the file as it is.
func (o *Object) Position() (off, inner int64) {
	if c := o.Compressed; c != nil {
		return c.Offset, c.InnerOffset
	}
	return o.Offset, -1
}

// Processors returns the processors the listing holds code for, sorted:
// the names targetid.Target.Check accepts beside those LLVM 22 knows.
func (l *Listing) Processors() []string {
	var ps []string
	for _, o := range l.Devices() {
		if p, _, _ := strings.Cut(o.Target().TargetID, ":"); p != "" && !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	sort.Strings(ps)
	return ps
}

// Unit names the set of code objects o belongs to of which a runtime loads
// one, for the GPU it runs on: a bundle's entries, one OffloadBinary's
// images, a KPAK archive's entries filed under one name (a translation
// unit of a kpack'd binary: lib/libfoo.so#1).
func (o *Object) Unit() string {
	path := o.Path
	if n := len(path); o.Container == "offload image" && n > 0 && strings.HasPrefix(path[n-1], "offload binary ") {
		// "offload binary 2 v2 image 1": the images of one v2 or v3
		// binary are one unit.
		if step, _, cut := strings.Cut(path[n-1], " image "); cut {
			path = append(slices.Clip(path[:n-1]), step)
		}
	}
	k := strings.Join(path, "\x00")
	if o.Container == "kpak entry" {
		k += "\x00" + o.ID
	}
	return k
}

// ForTarget returns, for each unit of code for several GPUs (Unit: a
// bundle, an OffloadBinary, a translation unit in a KPAK archive), the one
// code object a runtime on
// GPU t loads from it (targetid.Target.Choose), in listing order. A
// container holding nothing for t contributes nothing, as for the runtime.
// When no container has code for t, the error is a *targetid.NoMatchError
// whose reasons say, per device object, why it does not fit; when t
// leaves a mode open and a container holds only builds that set it, the
// error is a *targetid.AmbiguousError naming every such build: which one
// runs depends on the mode the GPU is in, so nothing is picked silently.
func (l *Listing) ForTarget(t targetid.Target) ([]*Object, error) {
	var order []string
	byContainer := map[string][]*Object{}
	for _, o := range l.Devices() {
		key := o.Unit()
		if byContainer[key] == nil {
			order = append(order, key)
		}
		byContainer[key] = append(byContainer[key], o)
	}
	var picked []*Object
	var ambiguous *targetid.AmbiguousError
	nm := &targetid.NoMatchError{Target: t}
	for _, key := range order {
		objs := byContainer[key]
		codes := make([]targetid.Code, len(objs))
		for i, o := range objs {
			codes[i] = o.Target()
		}
		i, err := t.Choose(codes)
		var a *targetid.AmbiguousError
		switch {
		case err == nil:
			picked = append(picked, objs[i])
		case errors.As(err, &a):
			if ambiguous == nil {
				ambiguous = &targetid.AmbiguousError{Target: t}
			}
			ambiguous.Builds = append(ambiguous.Builds, a.Builds...)
		default:
			for _, o := range objs {
				_, why := t.Loads(o.Target())
				nm.Reasons = append(nm.Reasons, fmt.Sprintf("#%d %s: %s", o.Index, o.ID, why))
			}
		}
	}
	switch {
	case ambiguous != nil:
		return nil, ambiguous
	case len(picked) == 0:
		return nil, nm
	}
	sort.Slice(picked, func(i, j int) bool { return picked[i].Index < picked[j].Index })
	return picked, nil
}
