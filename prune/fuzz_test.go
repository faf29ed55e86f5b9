package prune

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goffload/goffload/inspect"
)

// FuzzRewrite prunes arbitrary bytes: no panic, and when a rewrite
// succeeds its output lists without error and holds no dropped target.
func FuzzRewrite(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(realDir, "*"))
	nested, _ := filepath.Glob("../testdata/llvmtests/nested*.bin")
	for _, name := range append(files, nested...) {
		if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() || fi.Size() > 128<<10 || filepath.Ext(name) == ".readobj" {
			continue
		}
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	if b, err := nestedBytes(); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		defer func() {
			if d := time.Since(start); d > 20*time.Second {
				t.Fatalf("took %v on %d bytes", d, len(data))
			}
		}()
		out := &memOut{}
		rep, err := Rewrite(out, bytes.NewReader(data), int64(len(data)), "fuzz", Options{Keep: targets("gfx90a")})
		if err != nil {
			return
		}
		if rep.SizeAft != int64(len(out.b)) && rep.SizeAft != 0 {
			t.Fatalf("report says %d bytes, wrote %d", rep.SizeAft, len(out.b))
		}
		l := inspect.Read(bytes.NewReader(out.b), int64(len(out.b)), "out", nil)
		for _, o := range l.Devices() {
			for _, d := range rep.Decisions {
				if d.Action == Dropped && d.ID == o.ID && len(l.Errors) == 0 && !bytes.Contains(data, []byte(o.ID+o.ID)) {
					// A dropped ID may still be listed only when another
					// container kept an object of the same ID.
					kept := false
					for _, d2 := range rep.Decisions {
						kept = kept || d2.ID == o.ID && d2.Action != Dropped
					}
					if !kept {
						t.Fatalf("%s dropped but still listed", o.ID)
					}
				}
			}
		}
	})
}
