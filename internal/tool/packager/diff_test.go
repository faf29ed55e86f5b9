package packager_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// ourTool is our llvm-offload-binary.
var ourTool = &difftest.Command{Pkg: "./cmd/llvm-offload-binary"}

// tools returns LLVM's llvm-offload-binary and ours (built once).
func tools(t *testing.T) (llvm, ours string) {
	t.Helper()
	if testing.Short() {
		t.Skip("differential test against LLVM 22: skipped under -short")
	}
	return llvmref.Need(t, "llvm-offload-binary"), ourTool.Path(t)
}

func TestMain(m *testing.M) {
	code := m.Run()
	ourTool.Cleanup()
	os.Exit(code)
}

func readDir(t *testing.T, dir string, names ...string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	return files
}

func merge(ms ...map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// compare runs every case with LLVM's llvm-offload-binary and ours
// (difftest.Compare: parallel subtests).
func compare(t *testing.T, cases []difftest.Case) {
	t.Helper()
	llvm, ours := tools(t)
	difftest.Compare(t, llvm, ours, cases)
}

var golden = filepath.Join("..", "..", "format", "offloadbin", "testdata", "golden")
var inputs = filepath.Join("..", "..", "format", "offloadbin", "testdata", "inputs")

func imageFiles(t *testing.T) map[string][]byte {
	return readDir(t, golden, "a.o", "b.bc", "empty.o", "bitcode.o", "r.cubin")
}

// Every golden packaging case, run by both tools.
func TestDiffPackageGolden(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join(golden, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []difftest.Case
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		cases = append(cases, difftest.Case{Name: fields[0], Files: imageFiles(t),
			Args: append([]string{"-o", "out.bin"}, fields[1:]...)})
	}
	compare(t, cases)
}

func TestDiffPackage(t *testing.T) {
	t.Parallel()
	img := imageFiles(t)
	withDir := merge(img, map[string][]byte{"d/x": nil})
	c := func(name string, args ...string) difftest.Case {
		return difftest.Case{Name: name, Files: img, Args: args}
	}
	rsp := merge(img, map[string][]byte{
		"args.rsp":  []byte("-o out.bin --image=file=a.o,triple=\"x y\",arch='q r' @inner.rsp # not a comment\n"),
		"inner.rsp": []byte("--image=file=b.bc,esc=a\\ b"),
	})
	cases := []difftest.Case{
		c("stdout", "-o", "-", "--image=file=a.o,triple=t"),
		{Name: "stdin", Files: img, Args: []string{"-o", "o.bin", "--image=file=-,triple=t", "--image=file=-,arch=a"}, Stdin: []byte("BC\xc0\xdestdin")},
		{Name: "stdin twice in one", Files: img, Args: []string{"-o", "o.bin", "--image=file=-,file=-"}, Stdin: []byte("xyz")},
		c("missing", "-o", "o.bin", "--image=file=missing.o"),
		c("missing keeps output", "-o", "a.o", "--image=file=missing.o"),
		{Name: "directory", Files: withDir, Args: []string{"-o", "o.bin", "--image=file=d"}},
		c("empty name", "-o", "o.bin", "--image=file="),
		c("no file", "-o", "o.bin", "--image=triple=x"),
		c("bare file", "-o", "o.bin", "--image=file,triple=x"),
		c("bare file and another", "-o", "o.bin", "--image=triple=x,file", "--image=file=a.o"),
		c("bare file twice", "-o", "o.bin", "--image=file,file"),
		c("no file second", "-o", "o.bin", "--image=file=a.o", "--image=triple=x"),
		c("no images", "-o", "o.bin"),
		c("empty -o", "-o", "", "--image=file=a.o"),
		{Name: "output is dir", Files: withDir, Args: []string{"-o", "d", "--image=file=a.o"}},
		c("output dir missing", "-o", "nodir/o.bin", "--image=file=a.o"),
		c("twice -o", "-o", "s6.bin", "-o", "s7.bin", "--image=file=a.o"),
		c("-o=", "-o=o.bin", "--image=file=a.o"),
		c("--o", "--o", "o.bin", "-image", "file=a.o"),
		c("--o=", "--o=o.bin", "-image=file=a.o"),
		c("-oF", "-oo.bin", "--image=file=a.o"),
		c("image no value", "-o", "o.bin", "--image"),
		c("extensions", "-o", "o.bin", "--image=file=a.o", "--image=file=./b.bc", "--image=file=r.cubin"),
		{Name: "ext table", Files: merge(img, map[string][]byte{
			"i.fatbin": []byte("1"), "i.s": []byte("2"), "i.ptx": []byte("3"), "i.spv": []byte("4"),
			"i.O": []byte("5"), "i.": []byte("6"), ".o": []byte("7"), "a.tar.bc": []byte("8"), "noext": []byte("9"),
			"dir.x/noext": []byte("10"),
		}), Args: []string{"-o", "o.bin", "--image=file=i.fatbin,file=i.s,file=i.ptx,file=i.spv,file=i.O,file=i.,file=.o,file=a.tar.bc,file=noext,file=dir.x/noext"}},
		c("kinds", "-o", "o.bin", "--image=file=a.o,kind=openmp", "--image=file=a.o,kind=OpenMP", "--image=file=a.o,kind=", "--image=file=a.o,kind=sycl"),
		{Name: "response file", Files: rsp, Args: []string{"@args.rsp"}},
		c("missing response file", "@missing.rsp"),
		c("both modes", "-o", "o.bin", "a.o"),
		c("color", "--color", "-o", "o.bin", "--image=triple=x"),
		c("color=0", "--color=0", "-o", "o.bin", "--image=triple=x"),
	}
	compare(t, cases)
}

func TestDiffCommandLine(t *testing.T) {
	t.Parallel()
	img := imageFiles(t)
	c := func(name string, args ...string) difftest.Case {
		return difftest.Case{Name: name, Files: img, Args: args}
	}
	cases := []difftest.Case{
		c("no args"),
		c("help", "--help"),
		c("-help", "-help"),
		c("help-list", "--help-list"),
		c("help-hidden", "--help-hidden"),
		c("help-list-hidden", "--help-list-hidden"),
		c("-h", "-h"),
		c("-h with work", "-h", "-o", "o.bin", "--image=file=a.o"),
		c("-h=0", "-h=0"),
		c("version", "--version"),
		c("version then junk", "--version", "--bogus"),
		c("junk then help", "--bogus", "--help"),
		c("help=1", "--help=1"),
		c("print-options", "--print-options"),
		c("print-options work", "--print-options", "-o", "o.bin", "--image=file=a.o"),
		c("unknown", "--bogus"),
		c("unknown -x", "-x"),
		c("did you mean value", "--imag=x"),
		c("hlp", "--hlp"),
		c("xyzzy", "--xyzzyxyzzy"),
		c("versio", "--versio"),
		c("archive=yes", "a.o", "--archive=yes"),
		c("archive=FALSE", "a.o", "--archive=FALSE"),
		c("too many", "a", "b"),
		c("dashdash", "--", "-o"),
		// Suggestion ties follow LLVM's option map order.
		c("tie o image", "-type=bc"),
		c("tie version help-list", "--x-exnrzhsltt"),
		c("tie version image", "--ivwoesxzym"),
		c("tie help-list-hidden image", "--itmdsiwestewldzxg"),
		c("tie help-list-hidden print-options", "--ptnydtsntqhdieptwt"),
		// -o after grouped -h letters.
		c("-ho", "-ho"),
		c("-hho", "-hho"),
		c("-ho=x", "-ho=x"),
		c("-ho x", "-ho", "x"),
		c("-hox", "-hox"),
		c("--ho-lrip", "--ho-lrip"),
		c("-hox=v", "-hox=v"),
		c("-hz=v", "-hz=v"),
		{Name: "deprecated name", Files: img, Args: []string{"-o", "o.bin", "--image=file=a.o"}, Argv0: "clang-offload-packager"},
		{Name: "deprecated help", Files: img, Argv0: "/usr/bin/clang-offload-packager"},
		{Name: "deprecated exe", Files: img, Args: []string{"--bogus"}, Argv0: "clang-offload-packager.exe"},
		{Name: "deprecated version", Files: img, Args: []string{"--version"}, Argv0: "my-clang-offload-packager"},
		{Name: "not deprecated", Files: img, Args: []string{"-o", "o.bin", "--image=file=a.o"}, Argv0: "clang-offload-packager-22"},
		{Name: "argv0 path", Files: img, Args: []string{"-o", "o.bin", "--image=triple=x"}, Argv0: "/some/where/llvm-offload-binary"},
	}
	compare(t, cases)
}

func inputFiles(t *testing.T) map[string][]byte {
	return readDir(t, inputs, "p2.bin", "knew.o", "omp.o", "omp_win.obj", "omp_big.obj", "reloc.o", "khost.bc", "libk.a",
		"libk_bsd.a", "libk_thin.a", "libmix.a", "libnest.a", "knew.so", "knew.exe", "inc_elf64.o", "inc_elf32.o",
		"inc_elf64be.o", "inc_elf32be.o", "inc_coff.obj", "inc_coff_arm64.obj", "inc_coff_i386.obj", "inc_macho.o", "k.hip")
}

func TestDiffExtract(t *testing.T) {
	t.Parallel()
	in := inputFiles(t)
	var cases []difftest.Case
	full := map[string]bool{"p2.bin": true, "knew.o": true, "libmix.a": true, "reloc.o": true}
	for name := range in {
		sets := [][]string{
			{"--image="},
			{"--image=kind=hip,file=lib.a", "--archive"},
		}
		if full[name] || !testing.Short() {
			sets = append(sets,
				[]string{"--image=arch=gfx906", "--image=kind=hip,arch=gfx90a:xnack+"},
				[]string{"--image=kind=openmp,file=omp.out"},
				[]string{"--image=arch=sm_70", "--image=kind=foo", "--image=arch="})
		}
		for _, filters := range sets {
			cases = append(cases, difftest.Case{Name: name + strings.Join(filters, " "), Files: in,
				Args: append([]string{name}, filters...)})
		}
	}
	c := func(name string, args ...string) difftest.Case {
		return difftest.Case{Name: name, Files: in, Args: args}
	}
	cases = append(cases,
		c("no filter", "p2.bin"),
		c("file= several", "knew.o", "--image=kind=hip,file=two.bc"),
		c("file stdout", "knew.o", "--image=arch=gfx906,file=-"),
		c("file comma", "knew.o", "--image=arch=gfx906,file=a,file=b"),
		c("archive no file", "knew.o", "--image=kind=hip", "--archive"),
		c("archive no match no file", "knew.o", "--image=kind=cuda", "--archive"),
		c("archive dash", "knew.o", "--image=file=-", "--archive"),
		c("archive long name", "../inputs/knew.o", "--image=file=l.a", "--archive"),
		c("archive mix", "libmix.a", "--image=file=mix.a", "--archive"),
		c("archive raw", "p2.bin", "--image=file=r.a", "--archive"),
		c("archive bitcode", "khost.bc", "--image=file=r.a", "--archive"),
		c("archive to dir", "p2.bin", "--image=file=.", "--archive"),
		c("archive missing dir", "p2.bin", "--image=file=no/r.a", "--archive"),
		c("missing input", "missing.o", "--image="),
		c("missing rsp input", "@missing.rsp"),
		c("dir input", ".", "--image="),
		c("output missing dir", "p2.bin", "--image=file=no/x"),
		c("member filter", "libk.a", "--image=member=knew.o"),
		c("repeated filter keys", "knew.o", "--image=arch=gfx906,arch=gfx90a:xnack+"),
		c("two filters same image", "knew.o", "--image=arch=gfx906", "--image=triple=amdgcn-amd-amdhsa"),
		c("slash in name", "p2.bin", "--image=arch=sm_70,file=sub/x"),
	)
	stdin, _ := os.ReadFile(filepath.Join(inputs, "knew.o"))
	cases = append(cases,
		difftest.Case{Name: "stdin", Files: in, Args: []string{"-", "--image="}, Stdin: stdin},
		difftest.Case{Name: "stdin archive", Files: in, Args: []string{"-", "--image=file=s.a", "--archive"}, Stdin: stdin},
	)
	compare(t, cases)
}

func le64(b []byte, off int, v uint64) []byte {
	out := bytes.Clone(b)
	binary.LittleEndian.PutUint64(out[off:], v)
	return out
}

// overreadThen sets a field LLVM 22 does not check in the first binary
// (64-bit at off, to past, beyond its end) and a field it does check in
// the second (32-bit at bad, to v).
func overreadThen(p2 []byte, off int, past uint64, bad int, v uint32) []byte {
	out := le64(p2, off, past)
	binary.LittleEndian.PutUint32(out[bad:], v)
	return out
}

// Hostile inputs: patched copies of p2.bin and knew.o, and junk. Left out
// are the two patches of p2.bin that crash LLVM 22 (a string count of 0x100,
// a key offset of 0x10000).
func TestDiffHostile(t *testing.T) {
	t.Parallel()
	p2, err := os.ReadFile(filepath.Join(inputs, "p2.bin"))
	if err != nil {
		t.Fatal(err)
	}
	v := func(version uint32) []byte {
		out := bytes.Clone(p2)
		binary.LittleEndian.PutUint32(out[4:], version)
		return out
	}
	first93 := le64(p2, 8, 0x93)[:0x93]
	rows := map[string][]byte{
		"v0": v(0), "v2": v(2), "v3": v(3),
		"size big":     le64(p2, 8, 0x1000),
		"size small":   le64(p2, 8, 0x10),
		"gap":          le64(p2, 8, 0x94),
		"entry off":    le64(p2, 0x10, 0x90),
		"entry size":   le64(p2, 0x18, 0x90),
		"entry size 0": le64(p2, 0x18, 0),
		"image off":    le64(p2, 0x38, 0x1000),
		"string off":   le64(p2, 0x28, 0x1000),
		"trunc 71":     p2[:71],
		"trunc 72":     p2[:72],
		"trunc 100":    p2[:100],
		"trailing 0s":  append(bytes.Clone(p2), make([]byte, 8)...),
		// LLVM 22 does not check an image against its binary's size (it
		// reads out of bounds later): the next binary's error is reported.
		"overread then v2":    overreadThen(p2, 0x40, 0x1000, 0x98+4, 2),
		"string past then v0": overreadThen(p2, 0x50, 0x98, 0x98+4, 0),
		"empty":               {},
		"3 bytes":             []byte("abc"),
		"text":                []byte("hello, world\n"),
		"zeros":               make([]byte, 100),
		"coff junk":           []byte("\x64\x86junkjunk"),
		"elf junk":            []byte("\x7fELFjunk"),
		"elf core":            append([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00"), make([]byte, 64)...),
		"unaligned":           append(first93, p2...),
		"bad bitcode":         []byte("BC\xc0\xde\x35\x14\x00\x00\x05\x00\x00\x00"),
		"bad archive":         []byte("!<arch>\nxyz"),
	}
	knew, _ := os.ReadFile(filepath.Join(inputs, "knew.o"))
	elfPatch := func(off int, b ...byte) []byte {
		out := bytes.Clone(knew)
		copy(out[off:], b)
		return out
	}
	rows["elf class"] = elfPatch(4, 3)
	rows["elf data"] = elfPatch(5, 3)
	rows["elf short"] = knew[:40]
	rows["elf shentsize"] = elfPatch(0x3a, 32)
	rows["elf shoff"] = elfPatch(0x28, 0x20, 0x44)
	rows["elf shoff 0"] = elfPatch(0x28, 0, 0, 0, 0, 0, 0, 0, 0)
	rows["elf shnum 0"] = elfPatch(0x3c, 0, 0)
	var cases []difftest.Case
	for name, data := range rows {
		cases = append(cases, difftest.Case{Name: name, Files: map[string][]byte{"in.bin": data},
			Args: []string{"in.bin", "--image="}})
	}
	compare(t, cases)
}
