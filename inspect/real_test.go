package inspect

import (
	"archive/zip"
	"bufio"
	"bytes"
	"fmt"
	"github.com/goffload/goffload/targetid"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
)

// The files of testdata/inspect are real clang 22 outputs made by
// testdata/inspect/gen.sh (see its MANIFEST.md).
const realDir = "../testdata/inspect"

func readReal(t *testing.T, name string) *Listing {
	t.Helper()
	l, err := ReadFile(filepath.Join(realDir, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if len(l.Errors) > 0 {
		t.Fatalf("%s: %v", name, l.Errors)
	}
	return l
}

const (
	h4   = "host-x86_64-unknown-linux-gnu-"
	h5   = "host-x86_64-pc-linux-gnu-"
	v906 = "hipv4-amdgcn-amd-amdhsa--gfx906"
	v90a = "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"
	v942 = "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
	r906 = "hip-amdgcn-amd-amdhsa--gfx906"
	r90a = "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"
	r942 = "hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
)

// Every file lists exactly the objects gen.sh put in it, in file order,
// with the containers named.
func TestRealFiles(t *testing.T) {
	tu := []string{h4, v906, v90a, v942}
	three := slices.Concat(tu, tu, tu)
	rdc := []string{r906, r90a, r942, h5}
	for _, c := range []struct {
		file       string
		ids        []string
		wrappers   int
		compressed bool
		path0      string
	}{
		{"hip-nonrdc.o", tu, 1, false, ".hip_fatbin"},
		{"hip-nonrdc-ccob.o", tu, 1, true, ".hip_fatbin"},
		{"libmulti.so", three, 3, false, ".hip_fatbin"},
		{"libmulti-ccob.so", three, 3, true, ".hip_fatbin"},
		{"libmulti-ccob-v2.so", three, 3, true, ".hip_fatbin"},
		{"exe-pie", slices.Concat(tu, tu), 2, false, ".hip_fatbin"},
		{"exe-nopie", slices.Concat(tu, tu), 2, false, ".hip_fatbin"},
		{"exe-nopie-bfd", slices.Concat(tu, tu), 2, false, ".hip_fatbin"},
		{"rdc.o", rdc, 1, false, ""},
		{"librdc.a", slices.Concat(rdc, rdc), 2, false, "member k"},
		{"kernel.bc", []string{r906, r90a, r942, h5}, 0, false, "bundle 0"},
		{"kernel.s", rdc, 0, false, ""},
		{"kernel.ll", rdc, 0, false, ""},
		{"newdriver.o", []string{"hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"}, 0, false, ".llvm.offloading"},
		{"newdriver-nonrdc.o", []string{h4, "hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx906"}, 1, false, ".hip_fatbin"},
		{"newdriver-exe", []string{h4, "hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "hip-amdgcn-amd-amdhsa--gfx906"}, 1, false, ".hip_fatbin"},
		{"omp.o", []string{"openmp-amdgcn-amd-amdhsa--gfx90a"}, 0, false, ".llvm.offloading"},
		{"gfx90a.co", []string{""}, 0, false, ""},
		{"gfx90a-ccob.co", []string{h4, "hipv4-amdgcn-amd-amdhsa--gfx90a"}, 0, true, ""},
		{"coff.obj", tu, 0, false, ".hip_fatbin"},
		{"coff-ccob.obj", tu, 0, true, ".hip_fatbin"},
		{"pe.dll", tu, 0, false, ".hip_fat"},
		{"pe-ccob.dll", tu, 0, true, ".hip_fat"},
		{"coff-fat.obj", []string{"host-x86_64-pc-windows-msvc-", "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx906"}, 0, false, ""},
		{"packaged.bin", []string{"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"}, 0, false, "offload binary "},
	} {
		t.Run(c.file, func(t *testing.T) {
			l := readReal(t, c.file)
			got := ids(l)
			if !slices.Equal(got, c.ids) {
				t.Fatalf("IDs\n%q\nwant\n%q", got, c.ids)
			}
			if len(l.Wrappers) != c.wrappers {
				t.Errorf("%d wrappers, want %d", len(l.Wrappers), c.wrappers)
			}
			for i, w := range l.Wrappers {
				if w.Magic != "HIPF" || w.Version != 1 {
					t.Errorf("wrapper %d: %+v", i, w)
				}
				if w.Note == "" && w.Bundle < 0 {
					t.Errorf("wrapper %d points nowhere and says nothing", i)
				}
			}
			for _, o := range l.Objects {
				if (o.Compressed != nil) != c.compressed {
					t.Errorf("%s: compressed %v", o.Where(), o.Compressed)
				}
				if c.path0 != "" && (len(o.Path) == 0 || !strings.HasPrefix(o.Path[0], c.path0)) {
					t.Errorf("%s: path %q, want it to start with %q", o.Where(), o.Path, c.path0)
				}
				if !o.Host && o.Compressed == nil && o.Code == nil {
					t.Errorf("%s: header not read", o.Where())
				}
				if !o.Host && o.TargetID == "" {
					t.Errorf("%s: no target ID", o.Where())
				}
			}
		})
	}
}

// In linked files every wrapper points at a bundle start, found through the
// RELATIVE relocation (lld) or in place (non-PIE).
func TestRealWrappers(t *testing.T) {
	for _, f := range []string{"libmulti.so", "libmulti-ccob.so", "exe-pie", "exe-nopie", "exe-nopie-bfd", "newdriver-exe"} {
		l := readReal(t, f)
		for i, w := range l.Wrappers {
			if w.Bundle != i || w.Note != "" {
				t.Errorf("%s: wrapper %d: bundle %d, note %q", f, i, w.Bundle, w.Note)
			}
		}
	}
}

// Code object headers: processor and modes as the bundle IDs say, code
// object version 6 (clang 22's default), kernels counted.
func TestRealHeaders(t *testing.T) {
	l := readReal(t, "libmulti.so")
	for _, o := range l.Devices() {
		c := o.Code
		if c.Machine != "AMDGPU" || c.CodeObjectVersion != 6 || c.Kernels < 1 {
			t.Errorf("%s: %+v", o.Where(), c)
		}
		if c.TargetID() != strings.ReplaceAll(o.TargetID, ":xnack-", ":xnack-") {
			// The header has modes the ID leaves out (any): compare
			// the processor and the modes the ID names.
			if !targetid.MustParseTarget(c.TargetID()).Runs(o.Target()) {
				t.Errorf("%s: header says %s, the bundle ID %s", o.Where(), c.TargetID(), o.TargetID)
			}
		}
	}
}

// llvm-readobj --offloading lists the same entries of .hip_fatbin: IDs,
// offsets (inside the inflated bundle for CCOBs, a known LLVM defect) and
// sizes, from the output gen.sh saved.
func TestRealAgainstReadobj(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(realDir, "*.readobj"))
	if len(files) < 10 {
		t.Fatalf("only %d .readobj files", len(files))
	}
	for _, rf := range files {
		name := strings.TrimSuffix(filepath.Base(rf), ".readobj")
		data, err := os.ReadFile(rf)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			id, uri, ok := strings.Cut(sc.Text(), "\tfile://")
			if !ok {
				continue
			}
			_, frag, _ := strings.Cut(uri, "#")
			want = append(want, id+" "+frag)
		}
		l := readReal(t, name)
		var got []string
		if !strings.HasPrefix(l.Kind, "ELF") {
			if len(want) > 0 {
				t.Errorf("%s: llvm-readobj lists entries of a %s", name, l.Kind)
			}
			continue // llvm-readobj lists ELF files' .hip_fatbin only
		}
		for _, o := range l.Objects {
			if len(o.Path) == 0 || o.Path[0] != ".hip_fatbin" {
				continue // llvm-readobj lists .hip_fatbin only
			}
			off := o.Offset
			if o.Compressed != nil {
				off = o.Compressed.InnerOffset
			}
			got = append(got, fmt.Sprintf("%s offset=%d&size=%d", o.ID, off, o.Size))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", name, got, want)
		}
	}
}

// Extracted bytes are what LLVM 22's bundler unbundles.
func TestRealAgainstBundler(t *testing.T) {
	bundler := llvmref.Need(t, "clang-offload-bundler")
	tmp := t.TempDir()
	check := func(file, typ, input string, o *Object) {
		t.Helper()
		out := filepath.Join(tmp, "ref.bin")
		res := llvmref.Run(t, tmp, nil, nil, bundler, "-type="+typ, "-unbundle", "-targets="+o.ID, "-input="+input, "-output="+out)
		if res.Code != 0 {
			t.Fatalf("%s: LLVM: %s", o.Where(), res.Stderr)
		}
		ref, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, o); !bytes.Equal(got, ref) {
			t.Errorf("%s: %d bytes differ from LLVM's %d", o.Where(), len(got), len(ref))
		}
	}
	for _, c := range []struct{ file, typ string }{{"rdc.o", "o"}, {"coff-fat.obj", "o"}, {"kernel.bc", "bc"}, {"kernel.s", "s"}, {"kernel.ll", "ll"}, {"gfx90a-ccob.co", "o"}} {
		l := readReal(t, c.file)
		for _, o := range l.Objects {
			if o.Host && c.typ == "o" && o.Compressed == nil {
				continue // LLVM unbundles the host object, stripped; the section holds a placeholder
			}
			abs, _ := filepath.Abs(filepath.Join(realDir, c.file))
			check(c.file, c.typ, abs, o)
		}
	}
	// Each bundle of .hip_fatbin, cut out of the file, unbundled by LLVM.
	for _, f := range []string{"hip-nonrdc.o", "hip-nonrdc-ccob.o", "libmulti.so", "libmulti-ccob.so", "libmulti-ccob-v2.so", "exe-pie", "exe-nopie-bfd", "newdriver-exe", "newdriver-nonrdc.o"} {
		l := readReal(t, f)
		data, err := os.ReadFile(filepath.Join(realDir, f))
		if err != nil {
			t.Fatal(err)
		}
		ends := map[int64]int64{}
		for _, o := range l.Objects {
			ends[o.bundleOffset] = max(ends[o.bundleOffset], o.Offset+o.Size)
		}
		for _, o := range l.Devices() {
			var start, end int64
			if c := o.Compressed; c != nil {
				start, end = c.Offset, c.Offset+c.Size
			} else {
				start, end = o.bundleOffset, ends[o.bundleOffset]
			}
			cut := filepath.Join(tmp, "bundle.bin")
			if err := os.WriteFile(cut, data[start:end], 0o644); err != nil {
				t.Fatal(err)
			}
			check(f, "o", cut, o)
		}
	}
}

// A Python wheel (a zip): stored members are read in place, compressed ones
// that hold device code are inflated to a temporary file; the objects are
// the same as in the libraries themselves.
func TestWheel(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range []struct {
		name   string
		method uint16
	}{{"torch/lib/libmulti.so", zip.Deflate}, {"torch/lib/libmulti-ccob.so", zip.Store}, {"torch/__init__.py", zip.Deflate}} {
		data := []byte("import torch\n")
		if strings.HasSuffix(m.name, ".so") {
			data = realBytes(t, filepath.Base(m.name))
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: m.method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	zw.Close()
	whl := filepath.Join(t.TempDir(), "torch-2.9-cp312-linux_x86_64.whl")
	os.WriteFile(whl, buf.Bytes(), 0o644)
	l, err := ReadFile(whl, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if len(l.Errors) > 0 || l.Kind != "zip archive" {
		t.Fatalf("%s: %v", l.Kind, l.Errors)
	}
	for _, f := range []string{"libmulti.so", "libmulti-ccob.so"} {
		want := readReal(t, f)
		var got []*Object
		for _, o := range l.Objects {
			if strings.Contains(o.Path[0], "/"+f+" ") || strings.HasSuffix(o.Path[0], "/"+f) {
				got = append(got, o)
			}
		}
		if len(got) != len(want.Objects) {
			t.Fatalf("%s: %d objects in the wheel, %d in the library", f, len(got), len(want.Objects))
		}
		for i, o := range got {
			if o.ID != want.Objects[i].ID || !bytes.Equal(readAll(t, o), readAll(t, want.Objects[i])) {
				t.Errorf("%s: object %d differs", o.Where(), i)
			}
			stored := f == "libmulti-ccob.so"
			if stored && o.Compressed != nil && o.Compressed.Offset < 0 || !stored && o.Offset >= 0 {
				t.Errorf("%s: offsets %d / %+v", o.Where(), o.Offset, o.Compressed)
			}
		}
	}
}
