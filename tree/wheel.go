package tree

import (
	"strings"

	"github.com/goffload/goffload/inspect"
)

// SplitsMembers reports whether SplitMembers splits l: whether it is a
// zip archive's. Its Kind says so before any object is listed (a caller
// of inspect.Walk learns it from the first object's listing).
func SplitsMembers(l *inspect.Listing) bool { return l.Kind == "zip archive" }

// SplitMembers turns the listing of a zip archive (a wheel) into one
// listing per member that holds device code, each named
// "ARCHIVE!member" with the member step left out of its objects' and
// errors' paths. Damage outside any member stays in a listing of the
// archive itself. Other listings are returned as they are.
func SplitMembers(l *inspect.Listing) []*inspect.Listing {
	if !SplitsMembers(l) {
		return []*inspect.Listing{l}
	}
	byName := map[string]*inspect.Listing{}
	var out []*inspect.Listing
	member := func(path []string) (*inspect.Listing, []string) {
		if len(path) == 0 || !strings.HasPrefix(path[0], "member ") {
			return nil, path
		}
		name := strings.TrimSuffix(strings.TrimPrefix(path[0], "member "), " (inflated)")
		m := byName[name]
		if m == nil {
			m = &inspect.Listing{File: l.File + "!" + name, Kind: "zip member"}
			byName[name] = m
			out = append(out, m)
		}
		return m, path[1:]
	}
	var rest []*inspect.Error
	for _, o := range l.Objects {
		if m, p := member(o.Path); m != nil {
			o.Path = p
			m.Objects = append(m.Objects, o)
		}
	}
	for _, e := range l.Errors {
		if m, p := member(e.Path); m != nil {
			e.Path = p
			m.Errors = append(m.Errors, e)
		} else {
			rest = append(rest, e)
		}
	}
	if len(rest) > 0 {
		out = append(out, &inspect.Listing{File: l.File, Kind: l.Kind, Errors: rest})
	}
	return out
}
