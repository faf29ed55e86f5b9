package targetid

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTargetSpellings(t *testing.T) {
	for _, c := range []struct {
		in, kind, triple, want string
	}{
		{"gfx90a", "", "", "gfx90a"},
		{"gfx942:xnack-:sramecc+", "", "", "gfx942:sramecc+:xnack-"},
		{"gfx9-generic", "", "", "gfx9-generic"},
		{"gfx9-4-generic:xnack+", "", "", "gfx9-4-generic:xnack+"},
		// rocminfo / comgr
		{"amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "", "amdgcn-amd-amdhsa-", "gfx90a:sramecc+:xnack-"},
		{"amdgcn-amd-amdhsa--gfx10-3-generic", "", "amdgcn-amd-amdhsa-", "gfx10-3-generic"},
		// bundle IDs
		{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4", "amdgcn-amd-amdhsa-", "gfx90a:xnack+"},
		{"hip-amdgcn-amd-amdhsa-unknown-gfx906", "hip", "amdgcn-amd-amdhsa-unknown", "gfx906"},
		{"openmp-amdgcn-amd-amdhsa--gfx11-generic", "openmp", "amdgcn-amd-amdhsa-", "gfx11-generic"},
		// ROCm 5's bundle IDs, with a three-field triple
		{"hip-amdgcn-amd-amdhsa-gfx906", "hip", "amdgcn-amd-amdhsa", "gfx906"},
	} {
		g, err := ParseTarget(c.in)
		if err != nil {
			t.Errorf("ParseTarget(%q): %v", c.in, err)
			continue
		}
		if g.Kind != c.kind || g.Triple != c.triple || g.TargetID() != c.want {
			t.Errorf("ParseTarget(%q) = kind %q triple %q tid %q, want %q %q %q", c.in, g.Kind, g.Triple, g.TargetID(), c.kind, c.triple, c.want)
		}
		if err := g.Check(nil); err != nil {
			t.Errorf("Check(%q): %v", c.in, err)
		}
	}
	for _, bad := range []string{"", ":xnack+", "gfx90a:xnack", "gfx90a:xnack+:xnack-", "host-x86_64-unknown-linux-gnu-", "gfx90a:", "gfx90a:xnack+:"} {
		if _, err := ParseTarget(bad); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseTarget(%q) = %v, want ErrSyntax", bad, err)
		}
	}
}

func TestCheckSuggests(t *testing.T) {
	for _, c := range []struct {
		in      string
		present []string
		want    string // in the message; "" for no error
	}{
		{"GFX90A", nil, "did you mean gfx90a?"},
		{"gfx9O8", nil, "did you mean gfx908?"},
		{"gfx9999", nil, `no GPU is called "gfx9999"`},
		{"gfx9999", []string{"gfx9999"}, ""},
		{"gfx1100:xnack+", nil, "gfx1100 has no xnack mode"},
		{"gfx90a:foo+", nil, "gfx90a has no foo mode"},
		{"gfx90a:sramecc+:XNACK+", nil, "did you mean gfx90a:sramecc+:xnack+?"},
		{"gfx942:xnak-", nil, "did you mean gfx942:xnack-?"},
		{"sm_80", []string{"gfx906", "gfx90a"}, "sm_80 is not an AMD GPU; goffload chooses among AMD GPU code objects; the input holds code for gfx906, gfx90a"},
		{"gfx942:sramecc+:xnack-", nil, ""},
	} {
		err := MustParseTarget(c.in).Check(c.present)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Check(%q): %v", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrUnknown)):
			t.Errorf("Check(%q) = %v, want ErrUnknown with %q", c.in, err, c.want)
		}
	}
}

// TestRule pins the three questions on the builds real libraries hold.
func TestRule(t *testing.T) {
	code := func(tid string) Code { return Code{Kind: "hipv4", Triple: "amdgcn-amd-amdhsa-", TargetID: tid} }
	for _, c := range []struct {
		target, code string
		loads        int
		runs, names  bool
	}{
		{"gfx90a", "gfx90a", 100, true, true},
		{"gfx90a:xnack+", "gfx90a", 100, true, false},
		{"gfx90a:xnack+", "gfx90a:xnack+", 110, true, true},
		{"gfx90a:xnack+", "gfx90a:xnack-", 0, false, false},
		{"gfx90a", "gfx90a:xnack-", 0, true, true},
		{"gfx906", "gfx9-generic", 50, true, false},
		{"gfx906:xnack-", "gfx9-generic:xnack-", 60, true, false},
		{"gfx906", "gfx90a", 0, false, false},
		{"gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack-", 120, true, true},
		{"hip-amdgcn-amd-amdhsa--gfx90a", "gfx90a", 100, true, true},
		{"openmp-amdgcn-amd-amdhsa--gfx90a", "gfx90a", 0, false, false},
		{"nvptx64-nvidia-cuda--sm_80", "gfx90a", 0, false, false},
	} {
		g := MustParseTarget(c.target)
		loads, why := g.Loads(code(c.code))
		if loads != c.loads || g.Runs(code(c.code)) != c.runs || g.Names(code(c.code)) != c.names {
			t.Errorf("%s on %s: Loads %d (%s) Runs %v Names %v, want %d %v %v", c.target, c.code,
				loads, why, g.Runs(code(c.code)), g.Names(code(c.code)), c.loads, c.runs, c.names)
		}
	}
}

func TestChoose(t *testing.T) {
	codes := func(tids ...string) []Code {
		var cs []Code
		for _, tid := range tids {
			cs = append(cs, Code{Kind: "hipv4", Triple: "amdgcn-amd-amdhsa-", TargetID: tid})
		}
		return cs
	}
	for _, c := range []struct {
		target string
		codes  []Code
		want   int
		err    error
	}{
		// rocRAND 5.3: gfx90a built twice.
		{"gfx90a", codes("gfx1030", "gfx90a:xnack+", "gfx90a:xnack-"), -1, ErrAmbiguous},
		{"gfx90a:xnack-", codes("gfx1030", "gfx90a:xnack+", "gfx90a:xnack-"), 2, nil},
		{"gfx90a:sramecc+:xnack-", codes("gfx1030", "gfx90a:xnack+", "gfx90a:xnack-"), 2, nil},
		// The exact build before the one for any mode, in either order.
		{"gfx90a:xnack+", codes("gfx90a", "gfx90a:xnack+"), 1, nil},
		{"gfx90a:xnack+", codes("gfx90a:xnack+", "gfx90a"), 0, nil},
		{"gfx90a", codes("gfx90a:xnack+", "gfx90a"), 1, nil},
		// Own code before the generic family's.
		{"gfx906", codes("gfx9-generic", "gfx906"), 1, nil},
		// Own builds for open modes: on the GPU one of them runs, not
		// the generic code, so which is the mode's.
		{"gfx906", codes("gfx9-generic", "gfx906:xnack+", "gfx906:xnack-"), -1, ErrAmbiguous},
		{"gfx906:xnack-", codes("gfx9-generic", "gfx906:xnack+", "gfx906:xnack-"), 2, nil},
		{"gfx900", codes("gfx9-generic", "gfx906:xnack+", "gfx906:xnack-"), 0, nil},
		{"gfx906", codes("gfx9-generic", "gfx1030"), 0, nil},
		{"gfx1100", codes("gfx906", "gfx90a"), -1, ErrNoMatch},
		{"gfx1100", nil, -1, ErrNoMatch},
	} {
		got, err := MustParseTarget(c.target).Choose(c.codes)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("Choose(%s) = %d, %v; want %d, %v", c.target, got, err, c.want, c.err)
		}
	}
	_, err := MustParseTarget("gfx90a").Choose(codes("gfx90a:xnack+", "gfx90a:xnack-"))
	if want := "gfx90a leaves xnack open, and the code objects for it were built for gfx90a:xnack+, gfx90a:xnack- only"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ambiguous message: %v, want %q", err, want)
	}
}

func TestCodeOf(t *testing.T) {
	for id, want := range map[string]Code{
		"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+": {"hipv4", "amdgcn-amd-amdhsa-", "gfx90a:xnack+"},
		"host-x86_64-unknown-linux":              {"host", "x86_64-unknown-linux-unknown", ""},
		"hipv4-amdgcn-amd-amdhsa--gfx1300":       {"hipv4", "amdgcn-amd-amdhsa-", "gfx1300"},
		"junk":                                   {},
	} {
		if got := CodeOf(id); got != want {
			t.Errorf("CodeOf(%q) = %+v, want %+v", id, got, want)
		}
	}
}
