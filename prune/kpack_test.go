package prune

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// A KPAK archive is not rewritten: one whose code objects are all kept is
// written as it is; one whose code objects are all dropped is refused as
// removable (a tree or wheel prune leaves it out); one holding both, or a
// code object to replace, is refused. It used to be refused in every case
// ("device code in a place this tool does not rewrite").
func TestPruneKPAK(t *testing.T) {
	for _, c := range []struct {
		file      string
		keep      []string
		removable bool
		refused   string // "" when written as it is
	}{
		{file: "kpak-foo_gfx1100.kpack", keep: []string{"gfx1100"}},
		{file: "kpak-foo_gfx1100.kpack", keep: []string{"gfx1030"}, removable: true, refused: "removed whole (a KPAK archive of code for gfx1100)"},
		{file: "kpak-foo_gfx1030.kpack", keep: []string{"gfx1100", "gfx1030"}},
		{file: "kpak-none.kpack", keep: []string{"gfx1100"}, refused: "kept (gfx1100) and dropped (gfx1030)"},
		{file: "kpak-zstd.kpack", keep: []string{"gfx1030"}, refused: "kept (gfx1030) and dropped (gfx1100)"},
		{file: "kpak-zstd.kpack", keep: []string{"gfx1030", "gfx1100"}},
	} {
		in, err := os.ReadFile("../inspect/testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		out := &memOut{}
		// (A Keep keeping nothing, without AllowEmpty, is ErrEmpty: below.)
		rep, err := Rewrite(out, bytes.NewReader(in), int64(len(in)), c.file, Options{Keep: targets(c.keep...), AllowEmpty: c.removable})
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s keep %v: %v", c.file, c.keep, err)
		case c.refused == "" && (rep.Changed() || !bytes.Equal(out.b, in) || len(rep.Decisions) == 0):
			t.Errorf("%s keep %v: changed %v, %d decisions, %d bytes of %d", c.file, c.keep, rep.Changed(), len(rep.Decisions), len(out.b), len(in))
		case c.refused != "" && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.refused) || errors.Is(err, ErrRemovable) != c.removable):
			t.Errorf("%s keep %v: %v", c.file, c.keep, err)
		}
	}
	in, _ := os.ReadFile("../inspect/testdata/kpak-foo_gfx1100.kpack")
	_, err := Rewrite(&memOut{}, bytes.NewReader(in), int64(len(in)), "k", Options{Keep: targets("gfx1030")})
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "it holds code for gfx1100") {
		t.Errorf("keep gfx1030: %v, want ErrEmpty naming what it holds", err)
	}
	// A replacement is not put into a KPAK archive.
	_, err = Rewrite(&memOut{}, bytes.NewReader(in), int64(len(in)), "k", Options{Replace: &Replacement{
		Target: targets("gfx1100")[0], Data: bytes.NewReader(in), Size: int64(len(in)), Force: true}})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "cannot be replaced") {
		t.Errorf("replace: %v", err)
	}
}
