package prune

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/targetid"
)

// One answer: on every file of the repository's test data that prune
// rewrites, keeping every target inspect lists, prune decides on exactly
// the code objects `goffload list` shows (by bundle ID, host entries
// aside). A file prune refuses is named by the refusal; one it calls
// code-free lists none (TestNothingOnlyWhereInspectAgrees).
func TestDecisionsMatchListing(t *testing.T) {
	var files []string
	for _, g := range []string{"../testdata/*/*", "../testdata/*/*/*", "testdata/*/*", "../inspect/testdata/*", "../tree/testdata/*/*"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	rewritten := 0
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		l, err := inspect.ReadFile(f, &inspect.Options{SkipHeaders: true})
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		var keep []targetid.Target
		seen := map[string]bool{}
		for _, o := range l.Devices() {
			if o.Container == "file" && len(o.Path) == 0 {
				continue // a code object itself: decided whole (TestPruneCodeObjectFiles)
			}
			listed = append(listed, o.ID)
			if x, err := targetid.ParseTarget(o.Target().TargetID); err == nil && !seen[x.String()] {
				seen[x.String()] = true
				keep = append(keep, x)
			}
		}
		l.Close()
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Rewrite(Discard{}, in, fi.Size(), f, Options{Keep: keep, AllowEmpty: true})
		in.Close()
		if err != nil {
			if len(listed) > 0 && !strings.Contains(err.Error(), "cannot rewrite safely") {
				t.Errorf("%s: %v", f, err)
			}
			continue
		}
		var decided []string
		for _, d := range rep.Decisions {
			if d.Action != Host {
				decided = append(decided, d.ID)
			}
		}
		slices.Sort(listed)
		slices.Sort(decided)
		if !slices.Equal(listed, decided) {
			t.Errorf("%s: inspect lists %v\nprune decided on %v", f, listed, decided)
		}
		if len(listed) > 0 {
			rewritten++
		}
	}
	if rewritten < 10 {
		t.Fatalf("only %d files with device code rewritten: the test data moved?", rewritten)
	}
}
