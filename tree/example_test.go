package tree_test

import (
	"fmt"
	"path/filepath"

	"github.com/goffload/goffload/targetid"
	"github.com/goffload/goffload/tree"
)

// Which files of a folder hold code a gfx1030 runs, and which lack it:
// what goffload check says for an install.
func Example() {
	files, err := tree.Walk([]string{filepath.Join("..", "testdata", "targets")}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	gpu := targetid.MustParseTarget("gfx1030")
	for _, r := range tree.Check(files, []targetid.Target{gpu}) {
		if len(r.Targets) == 0 {
			continue // no device code (gen.sh)
		}
		fmt.Printf("%s: %s (fails: %v)\n", filepath.Base(r.File), r.Verdict, r.Verdict.Fails())
	}
	// Output:
	// anymode.hipfb: none (fails: true)
	// app: exact (fails: false)
	// generic.hipfb: exact (fails: false)
	// libk2.so: exact (fails: false)
	// libmodes.so: exact (fails: false)
	// modes.hipfb: exact (fails: false)
	// sramecc.hipfb: none (fails: true)
}
