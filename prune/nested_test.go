package prune

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goffload/goffload/internal/format/offloadbin"
	"github.com/goffload/goffload/internal/test/offbintest"
)

// nestedFile is an OffloadBinary file of three images: a gfx942 code
// object, and two images that are OffloadBinaries themselves, one of
// gfx906 and gfx90a, one of gfx906 only (clang nests them so; inspect
// lists what is inside).
func nestedFile(t *testing.T) []byte {
	t.Helper()
	b, err := nestedBytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// img is a HIP image of code for arch.
func img(arch, data string) offloadbin.Image {
	return offloadbin.Image{ImageKind: offloadbin.ImageKindFromExtension("o"), OffloadKind: offloadbin.ParseOffloadKind("hip"),
		Strings: []offloadbin.StringEntry{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: arch}},
		Data:    bytes.NewReader([]byte(data)), Size: int64(len(data))}
}

func nestedBytes() ([]byte, error) {
	nest := func(imgs ...offloadbin.Image) offloadbin.Image {
		var b bytes.Buffer
		offloadbin.Write(&b, imgs...) // into memory: no error
		return offloadbin.Image{ImageKind: offloadbin.ImageKindFromExtension("o"), OffloadKind: offloadbin.ParseOffloadKind("hip"),
			Strings: []offloadbin.StringEntry{{Key: "triple", Value: "amdgcn-amd-amdhsa"}},
			Data:    bytes.NewReader(b.Bytes()), Size: int64(b.Len())}
	}
	var b bytes.Buffer
	err := offloadbin.Write(&b, img("gfx942", "code for gfx942"),
		nest(img("gfx906", "code for gfx906 (1)"), img("gfx90a", "code for gfx90a")),
		nest(img("gfx906", "code for gfx906 (2)")))
	return b.Bytes(), err
}

// devices lists the IDs of a listing's device code objects, sorted.
func devices(t *testing.T, b []byte) []string {
	t.Helper()
	var ids []string
	for _, o := range list(t, b).Devices() {
		ids = append(ids, o.ID)
	}
	slices.Sort(ids)
	return ids
}

// Images nested in an image are decided one by one, as inspect lists them:
// a prune keeps what inside them it is asked to keep (it used to keep or
// drop the outer image by its own arch, which names none: "holds code for
// none"), drops an outer image left empty, and leaves one whose images are
// all kept as it was.
func TestPruneNestedOffloadBinaries(t *testing.T) {
	in := nestedFile(t)
	for _, c := range []struct {
		keep, drop []string
		want       []string
	}{
		{keep: []string{"gfx90a"}, want: []string{"hip-amdgcn-amd-amdhsa--gfx90a"}},
		{keep: []string{"gfx906"}, want: []string{"hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx906"}},
		{drop: []string{"gfx906"}, want: []string{"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx942"}},
		{keep: []string{"gfx942", "gfx90a"}, want: []string{"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx942"}},
	} {
		out := &memOut{}
		rep, err := Rewrite(out, bytes.NewReader(in), int64(len(in)), "nested.bin", Options{Keep: targets(c.keep...), Drop: targets(c.drop...)})
		if err != nil {
			t.Fatalf("keep %v drop %v: %v", c.keep, c.drop, err)
		}
		if got := devices(t, out.b); !slices.Equal(got, c.want) {
			t.Errorf("keep %v drop %v: the output lists %v, want %v", c.keep, c.drop, got, c.want)
		}
		kept := 0
		for _, d := range rep.Decisions {
			if d.Action == Kept {
				kept++
			}
		}
		if kept != len(c.want) || len(rep.Decisions) != 4 {
			t.Errorf("keep %v drop %v: %d kept of %d decisions: %+v", c.keep, c.drop, kept, len(rep.Decisions), rep.Decisions)
		}
		// The code kept is the code that was there.
		for _, o := range list(t, out.b).Devices() {
			r, err := o.Open()
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			b.ReadFrom(r)
			if !bytes.Contains(in, b.Bytes()) || !bytes.HasPrefix(b.Bytes(), []byte("code for "+o.TargetID)) {
				t.Errorf("%s: %q", o.Where(), b.Bytes())
			}
		}
	}
	// An outer image whose images are all dropped goes with them.
	out := &memOut{}
	if _, err := Rewrite(out, bytes.NewReader(in), int64(len(in)), "nested.bin", Options{Keep: targets("gfx90a")}); err != nil {
		t.Fatal(err)
	}
	if l := list(t, out.b); len(l.Objects) != 2 {
		t.Errorf("keep gfx90a: %d objects listed, want the outer image and its gfx90a", len(l.Objects))
	}
	// Keeping all writes the input as it was.
	out = &memOut{}
	rep, err := Rewrite(out, bytes.NewReader(in), int64(len(in)), "nested.bin", Options{Keep: targets("gfx906", "gfx90a", "gfx942")})
	if err != nil || rep.Changed() || !bytes.Equal(out.b, in) {
		t.Errorf("keeping every target: changed %v, %d bytes of %d, %v", rep.Changed(), len(out.b), len(in), err)
	}
}

// An OffloadBinary file whose every image is dropped is refused as
// removable, as a code object file is: it was written as an empty file,
// which no tool reads as an OffloadBinary, and exit status 0.
func TestDropEveryOffloadImage(t *testing.T) {
	packaged, err := os.ReadFile(filepath.Join(realDir, "packaged.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]byte{"packaged.bin": packaged, "nested.bin": nestedFile(t)} {
		out := &memOut{}
		rep, err := Rewrite(out, bytes.NewReader(in), int64(len(in)), name, Options{Drop: targets("gfx906", "gfx90a", "gfx942")})
		if !errors.Is(err, ErrRemovable) || !errors.Is(err, ErrRefused) {
			t.Errorf("%s: drop every GPU: %v, %d bytes written", name, err, len(out.b))
		}
		if rep == nil || rep.count(Dropped) == 0 || rep.count(Kept) != 0 {
			t.Errorf("%s: the report does not say what was dropped: %+v", name, rep)
		}
	}
}

// goffload replace --index names an OffloadBinary image by the position
// inspect gives it, nested ones and those of a new-driver object's
// .llvm.offloading included: each is found there (none was).
func TestReplaceOffloadImageAt(t *testing.T) {
	obj, err := os.ReadFile(filepath.Join(realDir, "newdriver.o"))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range [][]byte{nestedFile(t), obj, compressedNested(t)} {
		replaceEach(t, in)
	}
}

// compressedNested is a compressed (v3) OffloadBinary of a gfx942 image and
// an image that is an OffloadBinary of gfx906 and gfx90a images: what those
// hold is at offsets of the inflated data, which inspect gave from the
// nested image's start.
func compressedNested(t *testing.T) []byte {
	t.Helper()
	var inner bytes.Buffer
	if err := offloadbin.Write(&inner, img("gfx906", "code for gfx906 (1)"), img("gfx90a", "code for gfx90a")); err != nil {
		t.Fatal(err)
	}
	hip := uint16(offloadbin.ParseOffloadKind("hip"))
	obj := uint16(offloadbin.ImageKindFromExtension("o"))
	triple := [2]string{"triple", "amdgcn-amd-amdhsa"}
	raw := offbintest.BuildV2(3, []offbintest.Image{
		{Kind: obj, Offload: hip, Strings: [][2]string{triple, {"arch", "gfx942"}}, Data: "code for gfx942"},
		{Kind: obj, Offload: hip, Strings: [][2]string{triple}, Data: inner.String()},
	})
	return offbintest.CompressV3(raw, false)
}

// The code objects inside a compressed binary's nested image open to their
// own bytes.
func TestCompressedNestedOpens(t *testing.T) {
	l := list(t, compressedNested(t))
	if n := len(l.Devices()); n != 3 {
		t.Fatalf("%d devices listed", n)
	}
	for _, o := range l.Devices() {
		r, err := o.Open()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(r)
		if !bytes.HasPrefix(b.Bytes(), []byte("code for "+o.TargetID)) {
			t.Errorf("%s opens to %q", o.Where(), b.Bytes())
		}
	}
}

// A nested binary that does not fill its image is refused, not an error
// that stops a folder's prune.
func TestNestedWithTrailingBytes(t *testing.T) {
	var inner bytes.Buffer
	offloadbin.Write(&inner, img("gfx906", "code for gfx906"))
	inner.WriteString("JUNKJUNK")
	var b bytes.Buffer
	nested := offloadbin.Image{ImageKind: offloadbin.ImageKindFromExtension("o"), OffloadKind: offloadbin.ParseOffloadKind("hip"),
		Data: bytes.NewReader(inner.Bytes()), Size: int64(inner.Len())}
	if err := offloadbin.Write(&b, img("gfx90a", "code for gfx90a"), nested); err != nil {
		t.Fatal(err)
	}
	_, err := Rewrite(&memOut{}, bytes.NewReader(b.Bytes()), int64(b.Len()), "x", Options{Keep: targets("gfx90a")})
	if !errors.Is(err, ErrRefused) {
		t.Errorf("%v", err)
	}
}

func replaceEach(t *testing.T, in []byte) {
	l := list(t, in)
	for _, o := range l.Devices() {
		off, inner := o.Position()
		with := []byte("code for " + o.TargetID + " (new)")
		out := &memOut{}
		rep, err := Rewrite(out, bytes.NewReader(in), int64(len(in)), "nested.bin", Options{
			Replace: &Replacement{Data: bytes.NewReader(with), Size: int64(len(with)), Force: true, At: []Position{{off, inner}}}})
		if err != nil {
			t.Fatalf("%s: %v", o.Where(), err)
		}
		n := 0
		for _, d := range rep.Decisions {
			if d.Action == Replaced {
				n++
				if d.ID != o.ID {
					t.Errorf("%s: replaced %s", o.Where(), d.ID)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s (at %d, %d): %d replaced", o.Where(), off, inner, n)
		}
		if !bytes.Contains(out.b, with) {
			t.Errorf("%s: the replacement is not in the output", o.Where())
		}
	}
}

// replace --target replaces, in a run of OffloadBinaries, the image a GPU
// loads from each binary, as extract --target picks them: it chose one
// image across the whole run.
func TestReplaceInEachOffloadBinary(t *testing.T) {
	var b bytes.Buffer
	if err := offloadbin.Write(&b, img("gfx90a", "code for gfx90a, one"), img("gfx942", "code for gfx942"), img("gfx90a", "code for gfx90a, two")); err != nil {
		t.Fatal(err)
	}
	gfx90a := targets("gfx90a")[0]
	picked, err := list(t, b.Bytes()).ForTarget(gfx90a)
	if err != nil || len(picked) != 2 {
		t.Fatalf("ForTarget: %v, %d", err, len(picked))
	}
	with := []byte("code for gfx90a, new")
	rep, err := Rewrite(&memOut{}, bytes.NewReader(b.Bytes()), int64(b.Len()), "x", Options{Replace: &Replacement{
		Target: gfx90a, Data: bytes.NewReader(with), Size: int64(len(with)), Force: true}})
	if err != nil || rep.count(Replaced) != len(picked) {
		t.Errorf("%v: %d replaced, extract picks %d", err, rep.count(Replaced), len(picked))
	}
}
