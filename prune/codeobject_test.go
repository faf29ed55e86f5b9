package prune

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/ar"
)

// asMach is the code object co with its processor (e_flags' EF_AMDGPU_MACH)
// set to mach: gfx906 0x2f, gfx1030 0x36.
func asMach(t *testing.T, co []byte, mach byte) []byte {
	t.Helper()
	b := bytes.Clone(co)
	f := binary.LittleEndian.Uint32(b[48:])
	binary.LittleEndian.PutUint32(b[48:], f&^0xff|uint32(mach))
	return b
}

// A file that is one code object itself is decided on as list lists it: a
// kept one is written as it is (and counted kept), a dropped one refused as
// removable; in an archive, a dropped one's member is left out. Such files
// were "nothing to prune" and passed on whole, kept or not.
func TestPruneCodeObjectFiles(t *testing.T) {
	co, err := os.ReadFile(filepath.Join(realDir, "gfx90a.co"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Rewrite(&memOut{}, bytes.NewReader(co), int64(len(co)), "k.co", Options{Keep: targets("gfx90a")})
	if err != nil || len(rep.Decisions) != 1 || rep.Decisions[0].Action != Kept || rep.Changed() {
		t.Errorf("keep gfx90a: %v %+v", err, rep)
	}
	_, err = Rewrite(&memOut{}, bytes.NewReader(co), int64(len(co)), "k.co", Options{Keep: targets("gfx1030")})
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "it holds code for gfx90a") {
		t.Errorf("keep gfx1030: %v, want ErrEmpty naming what it holds", err)
	}
	_, err = Rewrite(&memOut{}, bytes.NewReader(co), int64(len(co)), "k.co", Options{Keep: targets("gfx1030"), AllowEmpty: true})
	if !errors.Is(err, ErrRemovable) {
		t.Errorf("keep gfx1030, AllowEmpty: %v", err)
	}
	var a bytes.Buffer
	g1030 := asMach(t, co, 0x36)
	err = ar.WriteGNU(&a, []ar.NewMember{
		{Name: "gfx90a.co", Data: bytes.NewReader(co), Size: int64(len(co))},
		{Name: "gfx1030.co", Data: bytes.NewReader(g1030), Size: int64(len(g1030))},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := &memOut{}
	rep, err = Rewrite(out, bytes.NewReader(a.Bytes()), int64(a.Len()), "k.a", Options{Keep: targets("gfx1030")})
	if err != nil || rep.count(Kept) != 1 || rep.count(Dropped) != 1 {
		t.Fatalf("archive, keep gfx1030: %v %+v", err, rep)
	}
	l := list(t, out.b)
	if len(l.Objects) != 1 || l.Objects[0].TargetID != "gfx1030" {
		t.Errorf("the archive holds %d objects", len(l.Objects))
	}
}

// A plain code object, alone or as an archive member, is replaced where a
// replace names it (by target or by the position list gives it), and an
// archive whose every member is dropped goes whole (it was written empty).
func TestReplaceCodeObjectFiles(t *testing.T) {
	co, err := os.ReadFile(filepath.Join(realDir, "gfx90a.co"))
	if err != nil {
		t.Fatal(err)
	}
	with := bytes.Clone(co)
	with = append(with, make([]byte, 64)...) // another gfx90a code object
	var a bytes.Buffer
	g1030 := asMach(t, co, 0x36)
	ar.WriteGNU(&a, []ar.NewMember{
		{Name: "gfx90a.co", Data: bytes.NewReader(co), Size: int64(len(co))},
		{Name: "gfx1030.co", Data: bytes.NewReader(g1030), Size: int64(len(g1030))},
	})
	l := list(t, a.Bytes())
	off, inner := l.Objects[0].Position()
	for _, c := range []struct {
		name string
		in   []byte
		at   []Position
	}{
		{"a code object", co, nil},
		{"an archive member", a.Bytes(), nil},
		{"an archive member by position", a.Bytes(), []Position{{off, inner}}},
	} {
		out := &memOut{}
		rep, err := Rewrite(out, bytes.NewReader(c.in), int64(len(c.in)), "x", Options{Replace: &Replacement{
			Target: targets("gfx90a")[0], Data: bytes.NewReader(with), Size: int64(len(with)), At: c.at}})
		if err != nil || rep.count(Replaced) != 1 || !bytes.Contains(out.b, with) {
			t.Errorf("%s: %v, %+v", c.name, err, rep)
		}
	}
	var only bytes.Buffer
	ar.WriteGNU(&only, []ar.NewMember{{Name: "gfx1030.co", Data: bytes.NewReader(g1030), Size: int64(len(g1030))}})
	_, err = Rewrite(&memOut{}, bytes.NewReader(only.Bytes()), int64(only.Len()), "x.a", Options{Keep: targets("gfx90a"), AllowEmpty: true})
	if !errors.Is(err, ErrRemovable) {
		t.Errorf("an archive of gfx1030 code only, keep gfx90a: %v", err)
	}
}

// A replacement for another processor is refused saying so once (it said
// "built for gfx90a (built for gfx90a)").
func TestReplacementOfAnotherProcessor(t *testing.T) {
	co, err := os.ReadFile(filepath.Join(realDir, "gfx90a.co"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.ReadFile("../testdata/targets/modes.hipfb")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Rewrite(&memOut{}, bytes.NewReader(in), int64(len(in)), "x", Options{Replace: &Replacement{
		Target: targets("gfx1030")[0], Data: bytes.NewReader(co), Size: int64(len(co))}})
	if !errors.Is(err, ErrMismatch) || strings.Count(err.Error(), "built for") != 1 {
		t.Errorf("%v", err)
	}
}
