package targetid

import (
	"strings"
	"testing"
)

// The fuzz targets check that no input makes the parsers panic, plus a few
// invariants that hold for every input.

func FuzzParse(f *testing.F) {
	for _, r := range specStandardRows {
		f.Add(r[0])
	}
	for _, s := range invalidInputs {
		f.Add(s)
	}
	f.Add("a-b-c-d")
	f.Add("host-x86_64-unknown-linux")
	f.Fuzz(func(t *testing.T, s string) {
		if id, ok := ParseStored(s); ok {
			_ = id.Standard()
		}
		id, ok := Parse(s)
		if !ok {
			return
		}
		std := id.Standard()
		// The standard form has the same kind and always parses again.
		again, ok := Parse(std)
		if !ok {
			t.Fatalf("Standard(%q) = %q does not parse", s, std)
		}
		if again.Kind != id.Kind {
			t.Fatalf("Standard(%q) = %q changed the kind", s, std)
		}
		_ = id.ValidKind() && id.ValidTriple()
		_ = id.String()
		_ = Compatible(s, std, true)
	})
}

func FuzzNormalizeTriple(f *testing.F) {
	for _, s := range normalizeInputs()[:40] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizeTriple(s)
		if strings.Contains("-"+n+"-", "--") {
			t.Fatalf("NormalizeTriple(%q) = %q has an empty component", s, n)
		}
	})
}

func FuzzCompatible(f *testing.F) {
	for _, s := range compatStored[:10] {
		f.Add(s, compatRequested[0], false)
		f.Add(s, "openmp-amdgcn-amd-amdhsa--gfx906:xnack+", true)
	}
	f.Fuzz(func(t *testing.T, stored, requested string, hipOpenMP bool) {
		c := Compatible(stored, requested, hipOpenMP)
		if stored == requested && !c {
			if _, ok := Parse(stored); ok {
				t.Fatalf("Compatible(%q, itself) = false", stored)
			}
		}
	})
}

func FuzzTargetIDFeatures(f *testing.F) {
	for _, s := range conflictTIDs {
		f.Add(s, "gfx906:xnack+")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		proc, feats, ok := ParseTargetIDFeatures(a)
		if ok && a != "" && (proc == "" || strings.Contains(proc, ":")) {
			t.Fatalf("ParseTargetIDFeatures(%q) = %q, %v", a, proc, feats)
		}
		ConflictingPair([]string{a, b})
		FirstMalformed([]string{a, b})
	})
}

// FuzzParseTarget: any text either fails to parse or gives a Target whose
// spelling parses to the same target, and the rule never panics and
// agrees with itself: what Loads takes, Runs takes too.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"gfx90a", "gfx90a:xnack+", "gfx942:sramecc+:xnack-", "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
		"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "gfx9-generic", "GFX90A", "gfx90a:xnack", "sm_80", "host-x86_64-unknown-linux-gnu-"} {
		f.Add(s, "gfx90a:xnack-")
	}
	f.Fuzz(func(t *testing.T, s, code string) {
		tg, err := ParseTarget(s)
		if err != nil {
			return
		}
		_ = tg.Check([]string{"gfx1300"})
		again, err := ParseTarget(tg.String())
		if err != nil || again.String() != tg.String() {
			t.Fatalf("%q: String %q parses to %q, %v", s, tg.String(), again.String(), err)
		}
		c := Code{Kind: "hipv4", Triple: "amdgcn-amd-amdhsa-", TargetID: code}
		if r, _ := tg.Loads(c); r > 0 && !tg.Runs(c) {
			t.Fatalf("%s loads %s but does not run it", tg, code)
		}
		_, _ = tg.Choose([]Code{c, CodeOf(code)})
		_ = tg.Names(c)
	})
}
