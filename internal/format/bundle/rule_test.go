package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
	"github.com/goffload/goffload/targetid"
)

// The bundles of testdata/targets (gen.sh: clang 22 and its bundler, as
// clang writes them) and the GPU names tried on each.
var (
	ruleFiles   = []string{"modes.hipfb", "sramecc.hipfb", "generic.hipfb", "anymode.hipfb"}
	ruleTargets = []string{
		"gfx90a", "gfx90a:xnack+", "gfx90a:xnack-", "gfx90a:sramecc+:xnack-", "gfx90a:sramecc-",
		"gfx906", "gfx906:xnack+", "gfx906:sramecc-:xnack-", "gfx900", "gfx1030", "gfx1031", "gfx1100",
		"gfx942", "gfx942:sramecc+", "gfx942:xnack+", "gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack+",
		"gfx942:sramecc-:xnack+", "gfx950",
	}
)

// pick is what Select gives for a target: the entry's bytes, or why none.
func pick(t *testing.T, b *Bundle, target string) ([]byte, error) {
	e, err := b.Select(targetid.MustParseTarget(target))
	if err != nil {
		return nil, err
	}
	r, err := e.Open()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(r)
	return data, nil
}

// What Select picks on the real bundles, without any tool: rocRAND's
// shape asks which mode, the exact build beats none, generic code serves
// its family.
func TestRulePicks(t *testing.T) {
	want := map[string]string{ // file target -> picked target ID, or the error
		"modes.hipfb gfx90a":                   "ambiguous",
		"modes.hipfb gfx90a:xnack-":            "gfx90a:xnack-",
		"modes.hipfb gfx90a:sramecc+:xnack-":   "gfx90a:xnack-",
		"modes.hipfb gfx1031":                  "no match",
		"sramecc.hipfb gfx942":                 "ambiguous",
		"sramecc.hipfb gfx942:sramecc+":        "ambiguous",
		"sramecc.hipfb gfx942:xnack+":          "ambiguous",
		"sramecc.hipfb gfx942:sramecc-:xnack+": "gfx942:sramecc-:xnack+",
		"generic.hipfb gfx906":                 "gfx906",
		"generic.hipfb gfx900":                 "gfx9-generic",
		"generic.hipfb gfx1031":                "gfx10-3-generic",
		"generic.hipfb gfx1030":                "gfx1030",
		"anymode.hipfb gfx942:sramecc+:xnack-": "gfx942",
		"anymode.hipfb gfx90a:xnack+":          "gfx90a",
		"anymode.hipfb gfx950":                 "no match",
	}
	for key, w := range want {
		file, target, _ := strings.Cut(key, " ")
		b := openFile(t, filepath.Join("../../../testdata/targets", file), nil)
		e, err := b.Select(targetid.MustParseTarget(target))
		got := ""
		switch {
		case errors.Is(err, targetid.ErrAmbiguous):
			got = "ambiguous"
		case errors.Is(err, targetid.ErrNoMatch):
			got = "no match"
		case err != nil:
			t.Fatal(err)
		default:
			got = e.TargetID()
		}
		if got != w {
			t.Errorf("%s %s: %s, want %s", file, target, got, w)
		}
	}
}

// Against LLVM 22's bundler: for every target it extracts a code object
// for, Select picks the same bytes; where it extracts none, Select picks
// none either, but for generic code (which the runtime loads and the
// bundler does not know).
func TestRuleAgainstBundler(t *testing.T) {
	bundler := llvmref.Need(t, "clang-offload-bundler")
	dir := t.TempDir()
	for _, file := range ruleFiles {
		in, _ := filepath.Abs(filepath.Join("../../../testdata/targets", file))
		b := openFile(t, in, nil)
		for _, target := range ruleTargets {
			out := filepath.Join(dir, "out")
			os.Remove(out)
			res := llvmref.Run(t, dir, nil, nil, bundler, "-type=o", "-unbundle", "-allow-missing-bundles",
				"-targets=hipv4-amdgcn-amd-amdhsa--"+target, "-input="+in, "-output="+out)
			if res.Code != 0 {
				t.Fatalf("%s %s: bundler exit %d: %s", file, target, res.Code, res.Stderr)
			}
			llvm, _ := os.ReadFile(out)
			ours, err := pick(t, b, target)
			generic := err == nil && isGeneric(t, b, target)
			switch {
			case len(llvm) > 0 && !bytes.Equal(ours, llvm):
				t.Errorf("%s %s: the bundler extracts %d bytes, Select %d (%v)", file, target, len(llvm), len(ours), err)
			case len(llvm) == 0 && err == nil && !generic:
				t.Errorf("%s %s: the bundler extracts nothing, Select picks %d bytes", file, target, len(ours))
			}
		}
	}
}

func isGeneric(t *testing.T, b *Bundle, target string) bool {
	e, err := b.Select(targetid.MustParseTarget(target))
	return err == nil && strings.HasSuffix(e.Processor(), "-generic")
}

// comgr 5.2.3 (Debian 12's libamd-comgr2) knows these processors; others
// it matches only by their exact name, and it predates generic targets.
var comgrKnows = map[string]bool{"gfx900": true, "gfx906": true, "gfx90a": true, "gfx1030": true, "gfx1031": true}

// Against ROCm's code object manager: amd_comgr_lookup_code_object, which
// the HIP runtime asks, picks the same bytes as Select for every GPU name
// comgr knows, and none where Select picks none. It runs without a GPU.
func TestRuleAgainstComgr(t *testing.T) {
	if _, err := os.Stat("/usr/include/amd_comgr.h"); err != nil {
		t.Skip("ROCm's comgr is not installed (apt-get install libamd-comgr-dev); skipping the comparison with amd_comgr_lookup_code_object")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the comgr probe")
	}
	probe := filepath.Join(t.TempDir(), "comgr-lookup")
	if out, err := exec.Command(cc, "-o", probe, "testdata/comgr-lookup.c", "-lamd_comgr").CombinedOutput(); err != nil {
		t.Skipf("cannot build the comgr probe: %v\n%s", err, out)
	}
	for _, file := range ruleFiles {
		in := filepath.Join("../../../testdata/targets", file)
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		b := openFile(t, in, nil)
		for _, target := range ruleTargets {
			tg := targetid.MustParseTarget(target)
			entries, _ := b.Entries()
			exact := false
			for _, e := range entries {
				exact = exact || e.TargetID() == tg.TargetID()
			}
			if !comgrKnows[tg.Processor] && !exact {
				continue
			}
			// One name a call: comgr 5.2.3 stops at the first entry
			// that fits any of the names it is given.
			out, err := exec.Command(probe, in, "amdgcn-amd-amdhsa--"+target).Output()
			if err != nil {
				t.Fatalf("%s %s: %v", file, target, err)
			}
			f := strings.Fields(string(out))
			off, _ := strconv.ParseInt(f[1], 10, 64)
			size, _ := strconv.ParseInt(f[2], 10, 64)
			ours, err := pick(t, b, target)
			var theirs []byte
			if size > 0 {
				theirs = data[off : off+size]
			}
			if !bytes.Equal(ours, theirs) || (size == 0) != (err != nil) {
				if isGeneric(t, b, target) {
					continue // comgr 5.2.3 predates generic code objects
				}
				t.Errorf("%s %s: comgr picks %s, Select %d bytes (%v)", file, target, fmt.Sprintf("offset %d size %d", off, size), len(ours), err)
			}
		}
	}
}
