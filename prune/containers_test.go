package prune

import (
	"bytes"
	"errors"
	"github.com/goffload/goffload/targetid"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/test/llvmref"
)

const realDir = "../testdata/inspect"

func list(t *testing.T, b []byte) *inspect.Listing {
	t.Helper()
	l := inspect.Read(bytes.NewReader(b), int64(len(b)), "out", nil)
	if len(l.Errors) > 0 {
		t.Fatalf("listing the output: %v", l.Errors)
	}
	return l
}

func objectBytes(t *testing.T, l *inspect.Listing) map[string][][]byte {
	t.Helper()
	m := map[string][][]byte{}
	for _, o := range l.Objects {
		r, err := o.Open()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := b.ReadFrom(r); err != nil {
			t.Fatal(err)
		}
		m[o.ID] = append(m[o.ID], b.Bytes())
	}
	return m
}

// Every container kind of testdata/inspect that prune rewrites: the output
// lists only the kept targets (and every host entry), each kept object
// byte-identical to the original.
func TestPruneContainers(t *testing.T) {
	for _, c := range []struct {
		file string
		keep []string
		drop []string
	}{
		{"hip-nonrdc.o", []string{"gfx90a"}, nil},
		{"hip-nonrdc-ccob.o", []string{"gfx942"}, nil},
		{"libmulti.so", []string{"gfx906", "gfx942"}, nil},
		{"libmulti-ccob.so", nil, []string{"gfx906"}},
		{"libmulti-ccob-v2.so", []string{"gfx90a:xnack+"}, nil},
		{"exe-nopie-bfd", []string{"gfx90a"}, nil},
		{"newdriver-exe", []string{"gfx906"}, nil},
		{"rdc.o", []string{"gfx90a"}, nil},
		{"librdc.a", []string{"gfx942"}, nil},
		{"kernel.bc", nil, []string{"gfx906", "gfx942"}},
		{"kernel.s", []string{"gfx906"}, nil},
		{"kernel.ll", []string{"gfx906"}, nil},
		{"gfx90a-ccob.co", nil, []string{"gfx90a"}},
		{"packaged.bin", []string{"gfx942"}, nil},
		{"newdriver.o", []string{"gfx90a"}, nil},
		{"omp.o", nil, []string{"gfx90a"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(realDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			out := &memOut{}
			rep, err := Rewrite(out, bytes.NewReader(in), int64(len(in)), c.file, Options{Keep: targets(c.keep...), Drop: targets(c.drop...)})
			if err != nil {
				t.Fatal(err)
			}
			if rep.SizeAft != int64(len(out.b)) {
				t.Errorf("report says %d bytes, wrote %d", rep.SizeAft, len(out.b))
			}
			sel, _ := newSelector(Options{Keep: targets(c.keep...), Drop: targets(c.drop...)}, &Report{})
			lin := list(t, in)
			tids := map[string]string{}
			for _, o := range lin.Objects {
				tids[o.ID] = o.TargetID
			}
			orig := objectBytes(t, lin)
			got := objectBytes(t, list(t, out.b))
			for id, objs := range orig {
				tid, host := tids[id], strings.HasPrefix(id, "host-")
				actions, _ := sel.decide("", []entry{{id: id, code: targetid.Code{TargetID: tid}, host: host}})
				want := actions[0] != Dropped
				switch {
				case want && len(got[id]) != len(objs):
					t.Errorf("%s: %d kept, want %d", id, len(got[id]), len(objs))
				case !want && len(got[id]) != 0:
					t.Errorf("%s: still there", id)
				case want:
					for i := range objs {
						if !bytes.Equal(got[id][i], objs[i]) {
							t.Errorf("%s #%d: bytes differ", id, i)
						}
					}
				}
			}
			for id := range got {
				if _, ok := orig[id]; !ok {
					t.Errorf("%s: appeared", id)
				}
			}
			if !rep.Changed() {
				t.Error("nothing dropped")
			}
		})
	}
}

// LLVM's bundler unbundles pruned fat objects, bundles and archives to the
// same bytes as before pruning.
func TestPruneAgainstBundler(t *testing.T) {
	bundler := llvmref.Need(t, "clang-offload-bundler")
	dir := t.TempDir()
	for _, c := range []struct{ file, typ, id string }{
		{"rdc.o", "o", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"},
		{"kernel.bc", "bc", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"},
		{"kernel.s", "s", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"},
		{"gfx90a-ccob.co", "o", "hipv4-amdgcn-amd-amdhsa--gfx90a"},
		{"librdc.a", "a", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"},
	} {
		in, _ := filepath.Abs(filepath.Join(realDir, c.file))
		data, _ := os.ReadFile(in)
		out := &memOut{}
		if _, err := Rewrite(out, bytes.NewReader(data), int64(len(data)), c.file, Options{Keep: targets("gfx90a")}); err != nil {
			t.Fatal(err)
		}
		pruned := filepath.Join(dir, "pruned-"+c.file)
		os.WriteFile(pruned, out.b, 0o644)
		unbundle := func(input, output string) []byte {
			args := []string{"-type=" + c.typ, "-unbundle", "-targets=" + c.id, "-input=" + input, "-output=" + output}
			if c.typ == "a" {
				args = append(args, "-allow-missing-bundles")
			}
			res := llvmref.Run(t, dir, nil, nil, append([]string{bundler}, args...)...)
			if res.Code != 0 {
				t.Fatalf("%s: %s", c.file, res.Stderr)
			}
			b, err := os.ReadFile(output)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		a, b := unbundle(in, filepath.Join(dir, "a"+c.typ)), unbundle(pruned, filepath.Join(dir, "b"+c.typ))
		if c.typ == "a" {
			// Archives of the same members; compare what they list.
			la, lb := list(t, a), list(t, b)
			if !slices.Equal(idsOf(la), idsOf(lb)) {
				t.Errorf("%s: LLVM unbundles %q from the original, %q after pruning", c.file, idsOf(la), idsOf(lb))
			}
			continue
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: LLVM unbundles %d bytes before pruning, %d after", c.file, len(a), len(b))
		}
	}
}

func idsOf(l *inspect.Listing) []string {
	var s []string
	for _, o := range l.Objects {
		s = append(s, o.ID)
	}
	return s
}

// What cannot be rewritten is refused and names the reason.
func TestPruneRefusedFiles(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"pe.dll", "COFF and PE"},
		{"coff.obj", "COFF and PE"},
	} {
		in, _ := os.ReadFile(filepath.Join(realDir, c.file))
		_, err := Rewrite(&memOut{}, bytes.NewReader(in), int64(len(in)), c.file, Options{Keep: targets("gfx90a")})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a refusal about %q", c.file, err, c.want)
		}
	}
	// Options must say one thing.
	if _, err := Rewrite(&memOut{}, bytes.NewReader(nil), 0, "x", Options{Keep: targets("gfx90a"), Drop: targets("gfx906")}); err == nil {
		t.Error("Keep and Drop together accepted")
	}
}

// Keep, drop and exact follow the target-ID rules.
func TestDecide(t *testing.T) {
	for _, c := range []struct {
		opts Options
		tid  string
		want string
	}{
		{Options{Keep: targets("gfx90a")}, "gfx90a:xnack+", Kept},
		{Options{Keep: targets("gfx90a")}, "gfx90a:xnack-", Kept},
		{Options{Keep: targets("gfx90a:xnack+")}, "gfx90a", Kept},
		{Options{Keep: targets("gfx90a:xnack+")}, "gfx90a:xnack-", Dropped},
		{Options{Keep: targets("gfx90a:xnack+"), Exact: true}, "gfx90a", Dropped},
		{Options{Keep: targets("gfx906")}, "gfx9-generic", Kept},
		{Options{Keep: targets("gfx906")}, "gfx1100", Dropped},
		{Options{Keep: targets("gfx906")}, "", Unknown},
		{Options{Drop: targets("gfx90a")}, "gfx90a:xnack+", Dropped},
		{Options{Drop: targets("gfx90a:xnack+")}, "gfx90a", Kept},
		{Options{Drop: targets("gfx90a:xnack+")}, "gfx90a:sramecc-:xnack+", Dropped},
		{Options{Drop: targets("gfx90a"), Exact: true}, "gfx90a:xnack+", Kept},
	} {
		s, err := newSelector(c.opts, &Report{})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := s.decide("id", []entry{{id: "id", code: targetid.Code{TargetID: c.tid}}}); got[0] != c.want {
			t.Errorf("%+v on %q: %s, want %s", c.opts, c.tid, got, c.want)
		}
	}
}

// CCOBs of every version and method: the streamed rewrite (v2 and v3, v1
// zstd) and the whole-bundle one (v1 zlib, whose end is known only once
// inflated) keep exactly the kept objects, with the CCOB's version and
// method.
func TestPruneCCOBKinds(t *testing.T) {
	obj := func(n int, seed byte) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = seed + byte(i*i>>5)
		}
		return b
	}
	var src []binfmt.Source
	payloads := map[string][]byte{
		"host-x86_64-unknown-linux-gnu-":         {},
		"hipv4-amdgcn-amd-amdhsa--gfx906":        obj(3<<20, 1),
		"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+": obj(2<<20, 2),
		"hipv4-amdgcn-amd-amdhsa--gfx942":        obj(1<<20, 3),
	}
	for _, id := range []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "hipv4-amdgcn-amd-amdhsa--gfx942"} {
		src = append(src, binfmt.Source{ID: id, R: bytes.NewReader(payloads[id]), Size: int64(len(payloads[id]))})
	}
	var bundle bytes.Buffer
	if err := binfmt.Write(&bundle, src, 4096); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []compress.Options{{Version: 3}, {Version: 2, Zlib: true}, {Version: 1}, {Version: 1, Zlib: true}} {
		var c bytes.Buffer
		if _, err := compress.Compress(&c, bundle.Bytes(), opt); err != nil {
			t.Fatal(err)
		}
		out := &memOut{}
		if _, err := Rewrite(out, bytes.NewReader(c.Bytes()), int64(c.Len()), "c.co", Options{Keep: targets("gfx90a")}); err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		h, err := compress.ParseHeader(out.b)
		if err != nil || h.Version != opt.Version || (h.Method == compress.Zlib) != opt.Zlib {
			t.Errorf("%+v: output header %+v, %v", opt, h, err)
		}
		got := objectBytes(t, list(t, out.b))
		if len(got) != 2 || !bytes.Equal(got["hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"][0], payloads["hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"]) || len(got["host-x86_64-unknown-linux-gnu-"]) != 1 {
			t.Errorf("%+v: kept %d IDs", opt, len(got))
		}
	}
}

// targets parses target IDs known to be valid.
func targets(s ...string) []targetid.Target {
	ts := make([]targetid.Target, len(s))
	for i, x := range s {
		ts[i] = targetid.MustParseTarget(x)
	}
	return ts
}

// No silent loss: a Keep that keeps nothing is refused unless AllowEmpty,
// targets that match nothing are named, and a rewrite that changes
// nothing writes the input byte for byte (.hip_fatbin's size included).
func TestNoSilentLoss(t *testing.T) {
	for _, file := range []string{"libmulti.so", "libmulti-ccob.so", "exe-nopie-bfd", "librdc.a", "kernel.bc", "packaged.bin", "newdriver.o", "rdc.o"} {
		in, err := os.ReadFile(filepath.Join(realDir, file))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Rewrite(&memOut{}, bytes.NewReader(in), int64(len(in)), file, Options{Keep: targets("gfx1100")})
		if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "it holds code for gfx9") {
			t.Errorf("%s: keep gfx1100: %v, want ErrEmpty naming what it holds", file, err)
		}
		out := &memOut{}
		rep, err = Rewrite(out, bytes.NewReader(in), int64(len(in)), file, Options{Keep: targets("gfx1100"), AllowEmpty: true})
		if file == "packaged.bin" && errors.Is(err, ErrRemovable) {
			err = nil // a file of OffloadBinaries only, all dropped: removable, not written empty
		}
		if err != nil || rep.count(Kept) != 0 || len(rep.Unmatched) != 1 {
			t.Errorf("%s: keep gfx1100, AllowEmpty: %v, %+v", file, err, rep)
		}
		out = &memOut{}
		rep, err = Rewrite(out, bytes.NewReader(in), int64(len(in)), file, Options{Drop: targets("gfx1100", "gfx906")})
		if err != nil || len(rep.Unmatched) == 0 || rep.Unmatched[0].String() != "gfx1100" {
			t.Errorf("%s: drop gfx1100,gfx906: %v, unmatched %v", file, err, rep.Unmatched)
		}
		out = &memOut{}
		rep, err = Rewrite(out, bytes.NewReader(in), int64(len(in)), file, Options{Drop: targets("gfx1100")})
		if err != nil || rep.Changed() || !bytes.Equal(out.b, in) || rep.SizeAft != int64(len(in)) {
			t.Errorf("%s: a rewrite dropping nothing: %v, changed %v, same bytes %v", file, err, rep.Changed(), bytes.Equal(out.b, in))
		}
	}
}

// A file holding a run of bundles (as .hip_fatbin holds them, 4 KiB
// apart), plain and compressed: every bundle is rewritten, none dropped
// for not being the first.
func TestPruneBundleRun(t *testing.T) {
	var run []byte
	for _, f := range []string{"../testdata/targets/modes.hipfb", "../testdata/targets/generic.hipfb"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		run = append(run, b...)
		run = append(run, make([]byte, (4096-len(run)%4096)%4096)...)
	}
	out := &memOut{}
	rep, err := Rewrite(out, bytes.NewReader(run), int64(len(run)), "run.hipfb", Options{Keep: targets("gfx1030")})
	if err != nil {
		t.Fatal(err)
	}
	l := list(t, out.b)
	var tids []string
	for _, o := range l.Devices() {
		tids = append(tids, o.TargetID)
	}
	// gfx1030's own code from both bundles, and the second one's
	// gfx10-3-generic code (a gfx1030 may load it).
	if got := strings.Join(tids, " "); got != "gfx1030 gfx10-3-generic gfx1030" {
		t.Errorf("kept %q (report %+v)", got, rep.Decisions)
	}
	if rep.Decisions[0].Where != "bundle 0" {
		t.Errorf("where: %q", rep.Decisions[0].Where)
	}
}
