package prune

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goffload/goffload/internal/format/offloadbin"
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

func nestedBytes() ([]byte, error) {
	img := func(arch, data string) offloadbin.Image {
		return offloadbin.Image{ImageKind: offloadbin.ImageKindFromExtension("o"), OffloadKind: offloadbin.ParseOffloadKind("hip"),
			Strings: []offloadbin.StringEntry{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: arch}},
			Data:    bytes.NewReader([]byte(data)), Size: int64(len(data))}
	}
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

// goffload replace --index names an OffloadBinary image by the position
// inspect gives it, nested ones and those of a new-driver object's
// .llvm.offloading included: each is found there (none was).
func TestReplaceOffloadImageAt(t *testing.T) {
	obj, err := os.ReadFile(filepath.Join(realDir, "newdriver.o"))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range [][]byte{nestedFile(t), obj} {
		replaceEach(t, in)
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
