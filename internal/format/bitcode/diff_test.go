package bitcode

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
)

// arSymbols returns the names in the "/" member of a GNU archive.
func arSymbols(t *testing.T, a []byte) []string {
	t.Helper()
	if len(a) < 68 || string(a[:8]) != "!<arch>\n" {
		t.Fatalf("not an archive")
	}
	if string(a[8:10]) != "/ " {
		return nil
	}
	size, err := strconv.Atoi(strings.TrimSpace(string(a[8+48 : 8+58])))
	if err != nil || 68+size > len(a) {
		t.Fatalf("bad symbol table size")
	}
	body := a[68 : 68+size]
	n := int(binary.BigEndian.Uint32(body))
	names := strings.Split(string(body[4+4*n:]), "\x00")[:n]
	return names
}

// llvmArSymbols writes bc into a GNU archive with llvm-ar and returns its
// symbol table.
func llvmArSymbols(t *testing.T, dir, bc string) []string {
	t.Helper()
	ar := llvmref.Need(t, "llvm-ar")
	out := filepath.Join(dir, "x.a")
	os.Remove(out)
	if r := llvmref.Run(t, dir, nil, nil, ar, "qcsD", "--format=gnu", out, bc); r.Code != 0 {
		t.Fatalf("llvm-ar: %s", r.Stderr)
	}
	a, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return arSymbols(t, a)
}

const diffC = `
int g_init = 1; int g_zero; static int s_var; extern int e_decl;
__attribute__((weak)) int w_var = 2;
__attribute__((visibility("hidden"))) int h_var = 3;
__attribute__((visibility("protected"))) int p_fn(void) { return 0; }
_Thread_local int tls;
const int ro = 4;
static int s_fn(void) { return s_var + e_decl; }
int g_fn(void) { return s_fn(); }
__attribute__((weak)) int w_fn(void) { return 1; }
extern __attribute__((weak)) int ew_fn(void);
int call(void) { return ew_fn ? ew_fn() : 0; }
#ifndef __APPLE__
int aliased(void) __attribute__((alias("g_fn")));
__attribute__((section("mysec"))) int in_sec = 5;
#endif
__attribute__((used)) static int used_static = 1;
int __attribute__((noinline)) asm_named(void) __asm__("real_name");
int asm_named(void) { return 2; }
__attribute__((constructor)) void ctor(void) {}
`

const diffCXX = `
template <class T> struct V { static T s; T get() { return s; } virtual ~V() {} };
template <class T> T V<T>::s;
template struct V<int>;
inline int inl() { static int guard = 1; return guard; }
int use() { V<long> v; return inl() + v.get(); }
namespace { int anon() { return 1; } }
int use2() { return anon(); }
extern "C" { int c_linkage = 1; }
thread_local int tl_cxx = 2;
`

// TestSymbolsDifferential compares Symbols with the symbol table llvm-ar 22
// writes, for bitcode clang-22 makes for several languages and targets.
func TestSymbolsDifferential(t *testing.T) {
	clang := llvmref.Need(t, "clang")
	llvmref.Need(t, "llvm-ar")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "d.c"), []byte(diffC), 0o644)
	os.WriteFile(filepath.Join(dir, "d.cpp"), []byte(diffCXX), 0o644)
	cases := []struct {
		name, src string
		args      []string
	}{
		{"c-x86_64-linux", "d.c", []string{"-target", "x86_64-linux-gnu", "-fcommon"}},
		{"c-aarch64-linux", "d.c", []string{"-target", "aarch64-linux-gnu"}},
		{"c-macos", "d.c", []string{"-target", "arm64-apple-macos12"}},
		{"c-win64", "d.c", []string{"-target", "x86_64-pc-windows-msvc"}},
		{"c-mingw32", "d.c", []string{"-target", "i686-w64-windows-gnu"}},
		{"c-thinlto", "d.c", []string{"-flto=thin"}},
		{"cxx-linux", "d.cpp", []string{"-target", "x86_64-linux-gnu"}},
		{"cxx-win64", "d.cpp", []string{"-target", "x86_64-pc-windows-msvc"}},
		{"cxx-split-lto", "d.cpp", []string{"-flto=thin", "-fsplit-lto-unit", "-fwhole-program-vtables", "-fvisibility=hidden"}},
		{"cxx-amdgcn", "d.cpp", []string{"-target", "amdgcn-amd-amdhsa", "-mcpu=gfx906", "-nogpulib"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".bc")
			args := append([]string{clang, "-c", "-emit-llvm", "-o", out, tc.src}, tc.args...)
			if r := llvmref.Run(t, dir, nil, nil, args...); r.Code != 0 {
				t.Skipf("clang cannot build this case: %s", r.Stderr)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			want := llvmArSymbols(t, dir, out)
			got, err := Symbols(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("Symbols:\n got %q\nwant %q", got, want)
			}
			f, err := openFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := f.irSymbols(); err != nil {
				t.Errorf("irSymbols: %v", err)
			} else if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("irSymbols:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// offloadImages walks a stream of OffloadBinaries (v1) and returns each
// image's bytes.
func offloadImages(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var imgs [][]byte
	for off := 0; off < len(b); {
		if len(b)-off < 72 || string(b[off:off+4]) != "\x10\xff\x10\xad" {
			t.Fatalf("no OffloadBinary at offset %d", off)
		}
		bin := b[off:]
		size := int(binary.LittleEndian.Uint64(bin[8:]))
		entry := int(binary.LittleEndian.Uint64(bin[16:]))
		io := int(binary.LittleEndian.Uint64(bin[entry+24:]))
		is := int(binary.LittleEndian.Uint64(bin[entry+32:]))
		if size <= 0 || size > len(bin) || io+is > size {
			t.Fatalf("bad OffloadBinary at offset %d", off)
		}
		imgs = append(imgs, bin[io:io+is])
		off += size
	}
	return imgs
}

// TestEmbeddedObjectsDifferential compares the images inside what
// EmbeddedObjects returns with what llvm-offload-binary 22 extracts from the
// same host bitcode, made by clang-22 for HIP and OpenMP.
func TestEmbeddedObjectsDifferential(t *testing.T) {
	clang := llvmref.Need(t, "clang")
	tool := llvmref.Need(t, "llvm-offload-binary")
	dir := t.TempDir()
	for _, s := range []string{"k.hip", "omp.c"} {
		src, err := os.ReadFile(filepath.Join("testdata", "src", s))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, s), src, 0o644)
	}
	hip := []string{"-x", "hip", "-nogpulib", "-nogpuinc", "--offload-new-driver", "-fgpu-rdc", "k.hip"}
	cases := []struct {
		name string
		args []string
	}{
		{"hip2", append([]string{"--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+"}, hip...)},
		{"hip-g-O2", append([]string{"--offload-arch=gfx1030", "-g", "-O2"}, hip...)},
		{"omp", []string{"-fopenmp", "--offload-arch=gfx906", "-nogpulib", "omp.c"}},
		{"omp2-g", []string{"-fopenmp", "--offload-arch=gfx906,gfx90a", "-nogpulib", "-g", "omp.c"}},
		{"plain", []string{"omp.c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bc := tc.name + ".bc"
			args := append([]string{clang, "-c", "-emit-llvm", "-o", bc}, tc.args...)
			if r := llvmref.Run(t, dir, nil, nil, args...); r.Code != 0 {
				t.Skipf("clang cannot build this case: %s", r.Stderr)
			}
			compareExtraction(t, tool, filepath.Join(dir, bc), filepath.Join(dir, tc.name))
		})
	}
}

// TestEmbeddedObjectsTestdata runs the same comparison on the committed
// single-module inputs.
func TestEmbeddedObjectsTestdata(t *testing.T) {
	tool := llvmref.Need(t, "llvm-offload-binary")
	dir := t.TempDir()
	files, _ := filepath.Glob("testdata/*.bc")
	for _, f := range files {
		if filepath.Base(f) == "multi.bc" {
			continue
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			compareExtraction(t, tool, abs, filepath.Join(dir, filepath.Base(f)))
		})
	}
}

// compareExtraction checks that the images inside EmbeddedObjects(bc) are
// those llvm-offload-binary extracts from bc, in order.
func compareExtraction(t *testing.T, tool, bc, out string) {
	t.Helper()
	data, err := os.ReadFile(bc)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := EmbeddedObjects(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	for _, o := range objs {
		got = append(got, offloadImages(t, o)...)
	}
	os.Mkdir(out, 0o755)
	if r := llvmref.Run(t, out, nil, nil, tool, bc, "--image="); r.Code != 0 {
		t.Fatalf("llvm-offload-binary: %s", r.Stderr)
	}
	ents, _ := os.ReadDir(out)
	want := make([][]byte, len(ents))
	for _, e := range ents {
		// Names end in .<index>.<ext>: order by index.
		parts := strings.Split(e.Name(), ".")
		i, err := strconv.Atoi(parts[len(parts)-2])
		if err != nil || i >= len(want) {
			t.Fatalf("unexpected output %q", e.Name())
		}
		want[i], _ = os.ReadFile(filepath.Join(out, e.Name()))
	}
	if len(got) != len(want) {
		t.Fatalf("got %d images, llvm-offload-binary extracted %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("image %d differs (%d bytes, want %d)", i, len(got[i]), len(want[i]))
		}
	}
}
