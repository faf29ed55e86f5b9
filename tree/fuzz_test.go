package tree

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/prune"
)

// FuzzPruneWheel: no wheel, however damaged, makes listing, checking or
// pruning it panic; a failed prune leaves no output.
func FuzzPruneWheel(f *testing.F) {
	dir := f.TempDir()
	seed := filepath.Join(dir, "seed.whl")
	mkWheel(&testing.T{}, seed)
	if b, err := os.ReadFile(seed); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := t.TempDir()
		in := filepath.Join(d, "in.whl")
		os.WriteFile(in, data, 0o644)
		files, err := Walk([]string{in}, nil)
		if err == nil {
			Check(files, gpus("gfx90a", "gfx1030"))
		}
		out := filepath.Join(d, "out.whl")
		if _, err := PruneWheel(in, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx90a")}}); err != nil {
			if _, serr := os.Stat(out); serr == nil {
				t.Fatalf("a failed prune (%v) left its output", err)
			}
		}
	})
}
