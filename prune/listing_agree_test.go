package prune

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/format/textfmt"
	"github.com/goffload/goffload/internal/test/ccobtest"
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
	files = append(files, mixedArchive(t), compressedText(t))
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
		var listed, wheres []string
		var keep []targetid.Target
		seen := map[string]bool{}
		for _, o := range l.Devices() {
			if o.Container == "file" && len(o.Path) == 0 {
				continue // a code object itself: decided whole (TestPruneCodeObjectFiles)
			}
			id := o.ID
			if id == "" {
				id = o.Target().TargetID // a code object: prune names it by its target
			}
			listed = append(listed, id)
			wheres = append(wheres, o.Place()+" | "+id)
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
		var decided, dwheres []string
		for _, d := range rep.Decisions {
			if d.Action != Host {
				decided = append(decided, d.ID)
				dwheres = append(dwheres, d.Where+" | "+d.ID)
			}
		}
		slices.Sort(wheres)
		slices.Sort(dwheres)
		if !slices.Equal(wheres, dwheres) {
			t.Errorf("%s: list places %q\nprune %q", f, wheres, dwheres)
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

// A text bundle whose entry ends with the END marker of another is damage
// list reports; prune, reading it through the same scanner, reports it as
// damage too, as it does an entry without an END marker (it rewrote it,
// splitting the entries where the markers fell).
func TestTextEndMarkerOfAnother(t *testing.T) {
	in := []byte("\n// __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\nhost\n" +
		"// __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx90a\n" +
		"\n// __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx90a\ndevice\n" +
		"// __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx90a\n")
	l := inspect.Read(bytes.NewReader(in), int64(len(in)), "t.s", nil)
	if len(l.Errors) == 0 {
		t.Fatal("list reports no damage")
	}
	l.Close()
	_, err := Rewrite(&memOut{}, bytes.NewReader(in), int64(len(in)), "t.s", Options{Keep: targets("gfx90a")})
	if err == nil || errors.Is(err, ErrRefused) || !errors.Is(err, inspect.ErrMalformed) ||
		!strings.Contains(err.Error(), `offset 0x4a: END marker: malformed input: entry "host-x86_64-unknown-linux-gnu-" ends with the END marker of "hip-amdgcn-amd-amdhsa--gfx90a"`) {
		t.Errorf("%v, want damage at the END marker, as list reports it", err)
	}
	// Healthy, it is rewritten.
	good := bytes.Replace(in, []byte("END__ hip-amdgcn-amd-amdhsa--gfx90a\n\n"), []byte("END__ host-x86_64-unknown-linux-gnu-\n\n"), 1)
	if _, err := Rewrite(&memOut{}, bytes.NewReader(good), int64(len(good)), "t.s", Options{Keep: targets("gfx90a")}); err != nil {
		t.Errorf("healthy: %v", err)
	}
}

// One answer for replace --index: every device code object list shows in
// a file prune rewrites is found at the position list gives it, and only
// it is replaced (text bundle entries were found nowhere).
func TestReplaceAtEveryListedPosition(t *testing.T) {
	var files []string
	for _, g := range []string{"../testdata/inspect/*", "../testdata/targets/*", "../testdata/llvmtests/*"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	files = append(files, mixedArchive(t), compressedText(t))
	with := []byte("replacement")
	tried := 0
	for _, f := range files {
		in, err := os.ReadFile(f)
		if err != nil {
			continue // a folder
		}
		l := inspect.Read(bytes.NewReader(in), int64(len(in)), f, &inspect.Options{SkipHeaders: true})
		devs := l.Devices()
		l.Close()
		if len(l.Errors) > 0 {
			continue
		}
		for i, o := range devs {
			if o.Nested > 0 {
				continue
			}
			off, inner := o.Position()
			rep, err := Rewrite(&memOut{}, bytes.NewReader(in), int64(len(in)), f, Options{
				Replace: &Replacement{Data: bytes.NewReader(with), Size: int64(len(with)), Force: true, At: []Position{{off, inner}}}})
			if err != nil {
				if !errors.Is(err, ErrRefused) {
					t.Errorf("%s: object %d (%s at %#x/%d): %v", f, i, o.ID, off, inner, err)
				}
				continue
			}
			tried++
			if n := rep.count(Replaced); n != 1 {
				t.Errorf("%s: object %d (%s at %#x/%d): %d replaced", f, i, o.ID, off, inner, n)
			}
		}
	}
	if tried < 20 {
		t.Fatalf("only %d replacements tried: the test data moved?", tried)
	}
}

// mixedArchive writes an archive of members of every kind list places by
// the member: a text bundle, a code object, OffloadBinaries, a KPAK
// archive, a fat object of bundle sections; it returns its path.
func mixedArchive(t *testing.T) string {
	t.Helper()
	var members []ar.NewMember
	for _, f := range []string{"../testdata/inspect/kernel.s", "../testdata/inspect/gfx90a.co", "../testdata/inspect/packaged.bin",
		"../inspect/testdata/kpak-foo_gfx1100.kpack", "../testdata/inspect/rdc.o"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, ar.NewMember{Name: filepath.Base(f), Data: bytes.NewReader(b), Size: int64(len(b))})
	}
	mixed := filepath.Join(t.TempDir(), "mixed.a")
	var a bytes.Buffer
	if err := ar.WriteGNU(&a, members); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mixed, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return mixed
}

// compressedText writes kernel.s, a text bundle clang 22 wrote, compressed
// as `clang-offload-bundler -type=s -compress` compresses it (a CCOB of
// the whole text bundle); it returns its path. list found one "code
// object" of no target in it, prune refused it.
func compressedText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/inspect/kernel.s")
	if err != nil {
		t.Fatal(err)
	}
	c := bytes.NewBuffer(ccobtest.Compress(t, b))
	p := filepath.Join(t.TempDir(), "kernel-ccob.s")
	if err := os.WriteFile(p, c.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A compressed text bundle is listed entry by entry and pruned as the
// text bundle it holds: what is kept is what was there.
func TestPruneCompressedText(t *testing.T) {
	p := compressedText(t)
	in, _ := os.ReadFile(p)
	plain, _ := os.ReadFile("../testdata/inspect/kernel.s")
	out := &memOut{}
	rep, err := Rewrite(out, bytes.NewReader(in), int64(len(in)), p, Options{Keep: targets("gfx90a")})
	if err != nil || rep.count(Kept) != 1 || rep.count(Dropped) != 2 {
		t.Fatalf("keep gfx90a: %v %+v", err, rep)
	}
	l := list(t, out.b)
	defer l.Close()
	devs := l.Devices()
	if len(devs) != 1 || devs[0].TargetID != "gfx90a:xnack+" || devs[0].Compressed == nil {
		t.Fatalf("the output lists %d objects", len(devs))
	}
	r, err := devs[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	got.ReadFrom(r)
	if got.Len() == 0 || !bytes.Contains(plain, got.Bytes()) {
		t.Errorf("the gfx90a entry kept is not kernel.s's (%d bytes)", got.Len())
	}
}

// A text bundle of more entries than textfmt.MaxHeldEntries is refused as
// over a limit (prune holds every entry: kilobytes of CCOB took gigabytes),
// and a compressed code object with a START marker line stays a code
// object (it was rewritten as a text bundle).
func TestCompressedTextBounds(t *testing.T) {
	text := ccobtest.ManyEntries(textfmt.MaxHeldEntries + 10)
	for name, in := range map[string][]byte{"many.s": text, "many-ccob.s": ccobtest.Compress(t, text)} {
		_, err := Rewrite(Discard{}, bytes.NewReader(in), int64(len(in)), name, Options{Keep: targets("gfx90a")})
		if !errors.Is(err, fmterr.ErrLimit) {
			t.Errorf("%s: %v", name, err)
		}
	}
	c := ccobtest.Compress(t, ccobtest.MarkedCodeObject(t, "../testdata/inspect/gfx90a.co"))
	_, err := Rewrite(Discard{}, bytes.NewReader(c), int64(len(c)), "co.ccob", Options{Replace: &Replacement{
		Data: bytes.NewReader([]byte("x")), Size: 1, Force: true, At: []Position{{0, 0}}}})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not a bundle") {
		t.Errorf("a compressed code object: %v", err)
	}
}
