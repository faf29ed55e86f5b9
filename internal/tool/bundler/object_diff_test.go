package bundler_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/test/difftest"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// objectFiles compiles host objects of several kinds with clang 22 and gcc,
// once per test process; each caller gets its own copy. An object that
// does not compile is left out (and logged).
func objectFiles(t *testing.T) map[string][]byte {
	t.Helper()
	clang := llvmref.Need(t, "clang")
	return objectInputs.get(t, func(dir string, logf func(string, ...any)) error {
		src := "int g = 1; static int s(int x){return x+g;} int f(int x){return s(x)*2;}\n" +
			"__attribute__((weak)) int w(void){return 3;}\nint common_sym;\n"
		os.WriteFile(filepath.Join(dir, "h.c"), []byte(src), 0o644)
		os.WriteFile(filepath.Join(dir, "h.cc"), []byte("template<class T> T tf(T x){return x;} inline int il(){return 4;} int use(){return tf(1)+il();}\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "d1"), []byte("DEVICE ONE"), 0o644)
		os.WriteFile(filepath.Join(dir, "d2"), []byte("DEVICE TWO!"), 0o644)
		os.WriteFile(filepath.Join(dir, "nul"), []byte{0}, 0o644)
		run := func(argv ...string) bool {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				logf("%v: %v\n%s", argv, err, out)
			}
			return err == nil
		}
		run(clang, "-c", "-O1", "h.c", "-o", "clang.o")
		run(clang, "-c", "-g", "-ffunction-sections", "h.c", "-o", "clang-g.o")
		run(clang, "-c", "h.cc", "-o", "clang-cxx.o")
		run(clang, "-c", "--target=i686-linux-gnu", "h.c", "-o", "clang32.o")
		run(clang, "-c", "--target=powerpc64-linux-gnu", "h.c", "-o", "clangbe.o")
		run(clang, "-shared", "-fPIC", "-nostdlib", "h.c", "-o", "lib.so")
		run(clang, "-c", "--target=x86_64-pc-windows-msvc", "h.c", "-o", "coff.obj")
		if _, err := exec.LookPath("gcc"); err == nil {
			run("gcc", "-c", "-O2", "h.c", "-o", "gcc.o")
		}
		return nil
	})
}

var objectInputs sharedInputs

func TestDiffObject(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	files := objectFiles(t)
	const (
		hostT = "host-x86_64-unknown-linux-gnu"
		d906  = "hip-amdgcn-amd-amdhsa--gfx906"
		omp   = "openmp-x86_64-unknown-linux-gnu"
	)
	var cases []difftest.Case
	for _, h := range []string{"clang.o", "clang-g.o", "clang-cxx.o", "clang32.o", "clangbe.o", "lib.so", "gcc.o", "coff.obj"} {
		if files[h] == nil {
			continue
		}
		cases = append(cases,
			difftest.Case{Files: files, Args: []string{"-type=o", "-targets=" + hostT + "," + d906 + "," + omp, "-input=" + h, "-input=d1", "-input=d2", "-output=fat.o"}},
			difftest.Case{Files: files, Args: []string{"-type=o", "-targets=" + d906 + "," + hostT, "-input=d1", "-input=" + h, "-output=fat.o"}},
		)
	}
	compare(t, ref, ours, cases)

	// Unbundle and list what LLVM bundled.
	var more []difftest.Case
	for _, h := range []string{"clang.o", "clang-g.o", "clang-cxx.o", "clang32.o", "clangbe.o", "lib.so", "gcc.o", "coff.obj"} {
		if files[h] == nil {
			continue
		}
		out := difftest.Run(t, ref, difftest.Case{Files: files, Args: []string{"-type=o", "-targets=" + hostT + "," + d906 + "," + omp, "-input=" + h, "-input=d1", "-input=nul", "-output=fat.o"}})
		if out.Code != 0 {
			t.Fatalf("bundling %s: %s", h, out.Stderr)
		}
		f2 := map[string][]byte{"fat.o": out.Files["fat.o"]}
		more = append(more,
			difftest.Case{Name: h + " list", Files: f2, Args: []string{"-type=o", "-list", "-input=fat.o"}},
			difftest.Case{Name: h + " unbundle", Files: f2, Args: []string{"-type=o", "-unbundle", "-targets=" + hostT + "," + d906 + "," + omp, "-input=fat.o", "-output=h.o", "-output=d1.o", "-output=d2.o"}},
			difftest.Case{Name: h + " unbundle missing", Files: f2, Args: []string{"-type=o", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=fat.o", "-output=x"}},
			difftest.Case{Name: h + " allow missing", Files: f2, Args: []string{"-type=o", "-unbundle", "-allow-missing-bundles", "-targets=hip-amdgcn-amd-amdhsa--gfx90a,host-x86_64-unknown-linux", "-input=fat.o", "-output=x", "-output=y"}},
		)
	}
	more = append(more,
		difftest.Case{Name: "plain object list", Files: files, Args: []string{"-type=o", "-list", "-input=clang.o"}},
		difftest.Case{Name: "plain object allow missing", Files: files, Args: []string{"-type=o", "-unbundle", "-allow-missing-bundles", "-targets=" + hostT + "," + d906, "-input=clang.o", "-output=x", "-output=y"}},
		difftest.Case{Name: "truncated object is binary", Files: map[string][]byte{"t.o": files["clang.o"][:100], "d1": []byte("x")}, Args: []string{"-type=o", "-targets=" + hostT + "," + d906, "-input=t.o", "-input=d1", "-output=fat.o"}},
	)
	compare(t, ref, ours, more)
}

var tmpRE = regexp.MustCompile(`clang-offload-bundler-[0-9a-f]{6}\.tmp`)

// -### prints llvm-objcopy's command line; temp file names are random.
func TestDiffObjectDryRun(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	files := objectFiles(t)
	fat := difftest.Run(t, ref, difftest.Case{Files: files, Args: []string{"-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906", "-input=clang.o", "-input=d1", "-output=fat.o"}})
	files["fat.o"] = fat.Files["fat.o"]
	var ccob bytes.Buffer
	if _, err := compress.Compress(&ccob, files["fat.o"], compress.Options{}); err != nil {
		t.Fatal(err)
	}
	files["fat.ccob"] = ccob.Bytes()
	var cases []difftest.Case
	for _, args := range [][]string{
		{"-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906", "-input=clang.o", "-input=d1", "-output=fat.o", "-###"},
		{"-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906", "-input=clang.o", "-input=d1", "-output=fat.o", "-###", "-compress"},
		{"-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906", "-input=clang.o", "-input=d1", "-output=fat.o", "-###", "-compress", "-verbose"},
		{"-type=o", "-unbundle", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906", "-input=fat.o", "-output=h.o", "-output=d.o", "-###"},
	} {
		cases = append(cases, difftest.Case{Files: files, Args: args})
	}
	compare(t, ref, ours, cases, hideDry)
}

// llvm-objcopy reads its inputs again by path: a device input "-" is a file
// named "-", a host "-" (standard input, already read by the bundler) is
// empty, and the host object of a fat object read from standard input or
// decompressed from a CCOB cannot be made. With -output=- and -compress,
// the (empty) compressed container follows the object on standard output.
func TestDiffObjectRereadByPath(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	files := objectFiles(t)
	const (
		hostT = "host-x86_64-unknown-linux-gnu"
		d906  = "hip-amdgcn-amd-amdhsa--gfx906"
	)
	fat := difftest.Run(t, ref, difftest.Case{Files: files, Args: []string{"-type=o", "-targets=" + hostT + "," + d906, "-input=clang.o", "-input=d1", "-output=fat.o"}})
	if fat.Code != 0 {
		t.Fatalf("bundling: %s", fat.Stderr)
	}
	// A CCOB holding the fat object (as -type=bc -compress would hold a
	// bundle): made with our compressor, which LLVM reads.
	files["fat.o"] = fat.Files["fat.o"]
	var ccob bytes.Buffer
	if _, err := compress.Compress(&ccob, files["fat.o"], compress.Options{}); err != nil {
		t.Fatal(err)
	}
	files["fat.ccob"] = ccob.Bytes()
	withDash := map[string][]byte{"-": []byte("DASH FILE")}
	for k, v := range files {
		withDash[k] = v
	}
	bundleArgs := func(in ...string) []string {
		return append([]string{"-type=o", "-targets=" + hostT + "," + d906, "-output=out.o"}, in...)
	}
	cases := []difftest.Case{
		{Name: "device - without a file named -", Files: files, Stdin: []byte("stdin"), Args: bundleArgs("-input=clang.o", "-input=-")},
		{Name: "device - with a file named -", Files: withDash, Stdin: []byte("stdin"), Args: bundleArgs("-input=clang.o", "-input=-")},
		{Name: "host - (an object on stdin)", Files: files, Stdin: files["clang.o"], Args: bundleArgs("-input=-", "-input=d1")},
		{Name: "both -", Files: files, Stdin: files["clang.o"], Args: bundleArgs("-input=-", "-input=-")},
		{Name: "unbundle host from stdin", Files: files, Stdin: files["fat.o"], Args: []string{"-type=o", "-unbundle", "-targets=" + hostT, "-input=-", "-output=h.o"}},
		{Name: "unbundle device from stdin", Files: files, Stdin: files["fat.o"], Args: []string{"-type=o", "-unbundle", "-targets=" + d906, "-input=-", "-output=d.o"}},
		{Name: "unbundle host from a CCOB", Files: files, Args: []string{"-type=o", "-unbundle", "-targets=" + hostT, "-input=fat.ccob", "-output=h.o"}},
		{Name: "unbundle device from a CCOB", Files: files, Args: []string{"-type=o", "-unbundle", "-targets=" + d906, "-input=fat.ccob", "-output=d.o"}},
		{Name: "list from stdin", Files: files, Stdin: files["fat.o"], Args: []string{"-type=o", "-list", "-input=-"}},
		{Name: "compressed to stdout", Files: files, Args: []string{"-type=o", "-targets=" + hostT + "," + d906, "-input=clang.o", "-input=d1", "-output=-", "-compress"}},
		{Name: "compressed to stdout, verbose", Files: files, Args: []string{"-type=o", "-targets=" + hostT + "," + d906, "-input=clang.o", "-input=d1", "-output=-", "-compress", "-verbose"}},
	}
	compare(t, ref, ours, cases)
}

// WebAssembly objects: the bundler lists and unbundles custom sections
// named like bundles (llvm-objcopy can add them, though the bundler itself
// cannot make such a file); an object without any has no bundles.
func TestDiffObjectWasm(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	clang := llvmref.Need(t, "clang")
	objcopy := llvmref.Need(t, "llvm-objcopy")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "w.c"), []byte("int g = 3; int f(int x) { return x + g; }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "d"), []byte("DEVICE PAYLOAD"), 0o644)
	os.WriteFile(filepath.Join(dir, "nul"), []byte{0}, 0o644)
	for _, argv := range [][]string{
		{clang, "--target=wasm32", "-c", "-O1", "w.c", "-o", "w.o"},
		{objcopy, "--add-section=__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx906=d",
			"--add-section=__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu-=nul", "w.o", "fat.wasm"},
	} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("%v: %v\n%s", argv, err, out)
		}
	}
	files := map[string][]byte{}
	for _, n := range []string{"w.o", "fat.wasm", "d"} {
		b, _ := os.ReadFile(filepath.Join(dir, n))
		files[n] = b
	}
	files["trunc.wasm"] = files["fat.wasm"][:len(files["fat.wasm"])-20]
	const (
		hostT = "host-x86_64-unknown-linux-gnu"
		d906  = "hip-amdgcn-amd-amdhsa--gfx906"
	)
	var cases []difftest.Case
	for _, f := range []string{"w.o", "fat.wasm", "trunc.wasm"} {
		cases = append(cases,
			difftest.Case{Files: files, Args: []string{"-type=o", "-list", "-input=" + f}},
			difftest.Case{Files: files, Args: []string{"-type=o", "-unbundle", "-targets=" + d906 + "," + hostT, "-input=" + f, "-output=a", "-output=b"}},
			difftest.Case{Files: files, Args: []string{"-type=o", "-unbundle", "-allow-missing-bundles", "-targets=hip-amdgcn-amd-amdhsa--gfx908," + hostT, "-input=" + f, "-output=a", "-output=b"}},
		)
	}
	compare(t, ref, ours, cases)
}

// Hosts that are objects to LLVM 22 or not by their first bytes (package
// magic): COFF headers of machines its identify_magic takes and of
// machines it does not (then the binary format applies), and the headers
// LLVM's object readers accept or refuse. -### shows whether llvm-objcopy
// would run; a real run and -list show the rest.
// Real runs are left out for PE images, on which llvm-objcopy 22 crashes.
func TestDiffObjectIdentification(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	le := binary.LittleEndian
	coff := func(machine, nsec uint16) []byte {
		b := make([]byte, 100)
		le.PutUint16(b, machine)
		le.PutUint16(b[2:], nsec)
		return b
	}
	files := map[string][]byte{"d1": []byte("DEVICE CODE")}
	var hosts, noRun []string
	add := func(name string, data []byte) {
		files[name] = data
		hosts = append(hosts, name)
	}
	for _, m := range []uint16{0x8664, 0x0000, 0x01f0, 0x0166, 0x0250, 0x0184, 0x0283, 0x0290, 0x0268, 0x02c4,
		0x01c0, 0x01c2, 0x0200, 0x0169, 0x0366, 0x01a6, 0x5064, 0x0190} {
		add(fmt.Sprintf("coff-%04x.obj", m), coff(m, 0))
	}
	add("coff-20-bytes.obj", coff(0x01f0, 0)[:20])
	add("coff-sections-past-eof.obj", coff(0x8664, 3))
	add("coff-nsec-ffff.obj", coff(0x8664, 0xffff))
	symtab := coff(0x01f0, 0)
	le.PutUint32(symtab[8:], 1000)
	le.PutUint32(symtab[12:], 4)
	add("coff-symtab-past-eof.obj", symtab)
	bigobj := make([]byte, 40)
	copy(bigobj, "\x00\x00\xff\xff\x02\x00\x64\x86")
	copy(bigobj[12:], magic.BigObjClassID)
	add("bigobj-40.obj", bigobj)
	pe := make([]byte, 0x40+4+20+112)
	copy(pe, "MZ")
	le.PutUint32(pe[0x3c:], 0x40)
	copy(pe[0x40:], "PE\x00\x00")
	le.PutUint16(pe[0x44:], 0x01c0) // ARM: no object as a COFF file, but a PE image
	le.PutUint16(pe[0x44+16:], 112)
	le.PutUint16(pe[0x44+20:], 0x20b)
	add("pe-arm.exe", pe)
	add("pe-no-optional-header.exe", pe[:0x40+4+20])
	noRun = append(noRun, "pe-arm.exe")
	macho := make([]byte, 32)
	copy(macho, "\xcf\xfa\xed\xfe")
	add("macho-type-0.o", macho)
	goff := make([]byte, 80)
	copy(goff, "\x03\xf0\x00")
	add("goff.o", goff)
	dx := make([]byte, 32)
	copy(dx, "DXBC")
	add("dxcontainer.o", dx)
	var dry, real []difftest.Case
	for _, h := range hosts {
		bundle := []string{"-type=o", "-targets=host-x86_64-pc-windows-msvc," + gfx906, "-input=" + h, "-input=d1", "-output=fat.o"}
		dry = append(dry, difftest.Case{Name: h + " -###", Files: files, Args: append(bundle, "-###")})
		if !slices.Contains(noRun, h) {
			real = append(real, difftest.Case{Name: h, Files: files, Args: bundle})
		}
		real = append(real, difftest.Case{Name: h + " list", Files: files, Args: []string{"-type=o", "-list", "-input=" + h}})
	}
	compare(t, ref, ours, dry, hideDry)
	compare(t, ref, ours, real)
}

// COFF fat objects listed and unbundled by the bundler's own COFF reader:
// long section names and the string table, contents past the end, other
// machines, and a PE image holding bundle sections.
func TestDiffObjectCOFFSections(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	fat, err := os.ReadFile(filepath.Join("..", "..", "format", "objfmt", "testdata", "coff-x86_64.fat.obj"))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	patch := func(off int, b []byte) []byte {
		c := bytes.Clone(fat)
		copy(c[off:], b)
		return c
	}
	u32 := func(v uint32) []byte { return le.AppendUint32(nil, v) }
	nsec, opt := int(le.Uint16(fat[2:])), int(le.Uint16(fat[16:]))
	symPtr, nsym := int(le.Uint32(fat[8:])), int(le.Uint32(fat[12:]))
	strtab := symPtr + 18*nsym
	// The sections with long names, in table order.
	var long []int
	for i := range nsec {
		if o := 20 + opt + 40*i; fat[o] == '/' {
			long = append(long, o)
		}
	}
	if len(long) < 3 {
		t.Fatalf("%d long section names", len(long))
	}
	files := map[string][]byte{
		"fat.obj":                 fat,
		"name-past-strtab.obj":    patch(long[1], []byte("/9999\x00\x00\x00")),
		"name-not-a-number.obj":   patch(long[1], []byte("/1x\x00\x00\x00\x00\x00")),
		"name-empty-offset.obj":   patch(long[1], []byte("/\x00\x00\x00\x00\x00\x00\x00")),
		"name-base64.obj":         patch(long[0], []byte("//AAAAA"+string(rune('A'+4)))),
		"name-base64-bad.obj":     patch(long[0], []byte("//AA*AAA")),
		"strtab-size-4.obj":       patch(strtab, u32(4)),
		"strtab-size-0.obj":       patch(strtab, u32(0)),
		"strtab-past-eof.obj":     patch(strtab, u32(uint32(len(fat)))),
		"strtab-no-nul.obj":       patch(len(fat)-1, []byte("x")),
		"symtab-past-eof.obj":     patch(8, u32(uint32(len(fat)))),
		"contents-past-eof.obj":   patch(long[2]+20, u32(uint32(len(fat)))),
		"contents-ptr-0.obj":      patch(long[2]+20, u32(0)),
		"machine-powerpc.obj":     patch(0, []byte{0xf0, 0x01}),
		"machine-mips-r4000.obj":  patch(0, []byte{0x66, 0x01}),
		"machine-arm.obj":         patch(0, []byte{0xc0, 0x01}),
		"nsec-ffff.obj":           patch(2, []byte{0xff, 0xff}),
		"contents-past-eof-2.obj": patch(long[2]+16, u32(1<<20)),
	}
	// A PE image with the object's sections and string table: an MS-DOS
	// stub, the signature, the file header, a PE32+ optional header
	// without data directories, then the object from its section table
	// on (offsets moved along).
	shift := 0x40 + 4 + 112
	pe := make([]byte, 0x40)
	copy(pe, "MZ")
	le.PutUint32(pe[0x3c:], 0x40)
	pe = append(pe, "PE\x00\x00"...)
	fh := bytes.Clone(fat[:20])
	le.PutUint16(fh[16:], 112)
	le.PutUint32(fh[8:], uint32(symPtr+shift))
	pe = append(pe, fh...)
	oh := make([]byte, 112)
	le.PutUint16(oh, 0x20b)
	pe = append(pe, oh...)
	body := bytes.Clone(fat[20+opt:])
	for i := range nsec {
		o := 40 * i
		if p := le.Uint32(body[o+20:]); p != 0 {
			le.PutUint32(body[o+20:], p+uint32(shift))
		}
		le.PutUint32(body[o+8:], le.Uint32(body[o+16:])) // VirtualSize = SizeOfRawData
	}
	pe = append(pe, body...)
	files["image.exe"] = pe
	vs := func(i int, v uint32) []byte {
		c := bytes.Clone(pe)
		le.PutUint32(c[0x40+4+20+112+(long[i]-20-opt)+8:], v)
		return c
	}
	files["image-virtual-size-0.exe"] = vs(2, 0)
	files["image-virtual-size-1.exe"] = vs(2, 1)
	files["image-virtual-size-big.exe"] = vs(2, 1000)
	files["image-name-past-strtab.exe"] = func() []byte {
		c := bytes.Clone(pe)
		copy(c[0x40+4+20+112+(long[1]-20-opt):], "/9999\x00\x00\x00")
		return c
	}()
	var cases []difftest.Case
	for name := range files {
		cases = append(cases,
			difftest.Case{Files: files, Args: []string{"-type=o", "-list", "-input=" + name}},
			difftest.Case{Files: files, Args: []string{"-type=o", "-unbundle", "-targets=" + gfx906 + "," + gfx908, "-input=" + name, "-output=a", "-output=b"}},
			difftest.Case{Files: files, Args: []string{"-type=o", "-unbundle", "-allow-missing-bundles", "-targets=" + gfx90a + "," + gfx908, "-input=" + name, "-output=a", "-output=b"}},
		)
	}
	slices.SortFunc(cases, func(a, b difftest.Case) int {
		return strings.Compare(strings.Join(a.Args, " "), strings.Join(b.Args, " "))
	})
	compare(t, ref, ours, cases)
}

// TestObjectRepeatedSection: bundling into an ELF host with two targets
// that standardise to one ID. LLVM 22 hands llvm-objcopy the section twice
// and objcopy refuses its arguments; we say what it says and, as for every
// failure, leave no output (LLVM leaves an empty one). Under -### LLVM
// runs no objcopy and succeeds, and so do we.
func TestObjectRepeatedSection(t *testing.T) {
	t.Parallel()
	bin := ours.Path(t)
	ref := llvmref.Path("clang-offload-bundler")
	files := objectFiles(t)
	const hostT = "host-x86_64-unknown-linux-gnu"
	for _, c := range []struct{ targets, section string }{
		{hostT + ",hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa-unknown-gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
		// Old IDs without the environment: the processor is read as
		// the environment, and dropped.
		{hostT + ",openmp-amdgcn-amd-amdhsa-gfx906,openmp-amdgcn-amd-amdhsa-gfx906:sramecc+", "openmp-amdgcn-amd-amdhsa--"},
		{"hip-amdgcn-amd-amdhsa--gfx1030,hip-amdgcn-amd-amdhsa--gfx906," + hostT + ",hip-amdgcn-amd-amdhsa-unknown-gfx1030", "hip-amdgcn-amd-amdhsa--gfx1030"},
	} {
		args := []string{"-type=o", "-targets=" + c.targets, "-output=fat.o"}
		for _, tg := range strings.Split(c.targets, ",") {
			if tg == hostT {
				args = append(args, "-input=clang.o")
			} else {
				args = append(args, "-input=d1")
			}
		}
		want := "llvm-objcopy: error: --set-section-flags set multiple times for section '__CLANG_OFFLOAD_BUNDLE__" + c.section + "'\n" +
			"clang-offload-bundler: error: 'llvm-objcopy' tool failed\n"
		o := difftest.Run(t, bin, difftest.Case{Files: files, Args: args, Argv0: "clang-offload-bundler"})
		if _, ok := o.Files["fat.o"]; o.Code != 1 || o.Stderr != want || ok {
			t.Errorf("%s: exit %d, stderr %q, output written %v; want exit 1, %q", c.targets, o.Code, o.Stderr, ok, want)
		}
		if dry := difftest.Run(t, bin, difftest.Case{Files: files, Args: append(args, "-###"), Argv0: "clang-offload-bundler"}); dry.Code != 0 {
			t.Errorf("%s -###: exit %d, %q", c.targets, dry.Code, dry.Stderr)
		}
		if ref == "" {
			continue
		}
		l := difftest.Run(t, ref, difftest.Case{Files: files, Args: args, Argv0: "clang-offload-bundler"})
		if l.Code != o.Code || l.Stderr != want || len(l.Files["fat.o"]) != 0 {
			t.Errorf("%s: LLVM 22 exits %d with %q and a %d-byte output", c.targets, l.Code, l.Stderr, len(l.Files["fat.o"]))
		}
	}
}
