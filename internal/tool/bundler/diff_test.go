package bundler_test

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// ours is our bundler. Like LLVM's, it finds llvm-objcopy (needed only for
// non-ELF objects) next to itself.
var ours = &difftest.Command{Pkg: "./cmd/clang-offload-bundler", Beside: []string{"llvm-objcopy"}}

// tools returns LLVM's bundler and ours, skipping without the reference.
func tools(t *testing.T) (ref, bin string) {
	t.Helper()
	if testing.Short() {
		t.Skip("differential test against LLVM 22: skipped under -short")
	}
	return llvmref.Need(t, "clang-offload-bundler"), ours.Path(t)
}

func TestMain(m *testing.M) {
	code := m.Run()
	ours.Cleanup()
	os.Exit(code)
}

const (
	host   = "host-x86_64-unknown-linux-gnu"
	gfx906 = "hip-amdgcn-amd-amdhsa--gfx906"
	gfx908 = "hip-amdgcn-amd-amdhsa--gfx908"
	gfx90a = "hip-amdgcn-amd-amdhsa--gfx90a"
)

var baseFiles = map[string][]byte{
	"h.txt":   []byte("host content\n"),
	"d1.txt":  []byte("device A\n"),
	"d2.txt":  []byte("device B no newline"),
	"hb":      []byte("HOSTDATA"),
	"b1":      []byte("DEV1"),
	"b2":      []byte("DEV22"),
	"b3":      []byte("DEV333"),
	"empty":   {},
	"one.bc":  []byte("BC\xc0\xde0123456789"),
	"sub/x":   []byte("in a folder"),
	"nul":     {0},
	"crlf.i":  []byte("\n// __CLANG_OFFLOAD_BUNDLE____START__ " + host + "-\r\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ " + host + "-\n"),
	"nostart": []byte("// __CLANG_OFFLOAD_BUNDLE____START__ " + host + "-\nx\n// __CLANG_OFFLOAD_BUNDLE____END__ " + host + "-\n"),
}

func withFiles(extra map[string][]byte) map[string][]byte {
	m := map[string][]byte{}
	for k, v := range baseFiles {
		m[k] = v
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// sharedInputs are input files built once per test process (by the first
// test that needs them) and shared by the tests, which may run in
// parallel: each gets a copy of its own.
type sharedInputs struct {
	once  sync.Once
	files map[string][]byte
	logs  []string
	err   error
}

// get builds the files on first use, with build writing them into an
// empty folder, and returns a copy of every regular file in it. The
// messages build logs are repeated in every caller's log; its error fails
// every caller.
func (s *sharedInputs) get(t *testing.T, build func(dir string, logf func(string, ...any)) error) map[string][]byte {
	t.Helper()
	s.once.Do(func() {
		dir, err := os.MkdirTemp("", "goffload-bundle-inputs")
		if err != nil {
			s.err = err
			return
		}
		defer os.RemoveAll(dir)
		s.err = build(dir, func(format string, args ...any) { s.logs = append(s.logs, fmt.Sprintf(format, args...)) })
		s.files = difftest.ReadTree(dir)
	})
	for _, l := range s.logs {
		t.Log(l)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	files := make(map[string][]byte, len(s.files))
	for name, data := range s.files {
		files[name] = bytes.Clone(data)
	}
	return files
}

// refMake runs LLVM's bundler to make an input for a later case.
func refMake(t *testing.T, ref string, args ...string) []byte {
	t.Helper()
	out := difftest.Run(t, ref, difftest.Case{Files: baseFiles, Args: append(args, "-output=made")})
	if out.Code != 0 {
		t.Fatalf("making input with %v: %s", args, out.Stderr)
	}
	return out.Files["made"]
}

// compare runs every case with LLVM's bundler and ours (difftest.Compare:
// parallel subtests), in baseFiles unless the case has files of its own, and
// hides the timing-dependent speed of verbose statistics.
func compare(t *testing.T, ref, ours string, cases []difftest.Case, norm ...difftest.Normalizer) {
	t.Helper()
	cases = slices.Clone(cases)
	for i := range cases {
		if cases[i].Files == nil {
			cases[i].Files = baseFiles
		}
		cases[i].Argv0 = "clang-offload-bundler"
	}
	difftest.Compare(t, ref, ours, cases, append([]difftest.Normalizer{normalize}, norm...)...)
}

var speedRE = regexp.MustCompile(`speed: [-0-9.a-z]+ MB/s`)

// normalize hides the timing-dependent speed in verbose statistics.
func normalize(o *difftest.Outcome) {
	o.Stderr = speedRE.ReplaceAllString(o.Stderr, "speed: N MB/s")
}

func cs(args ...string) difftest.Case { return difftest.Case{Args: args} }

func TestDiffValidation(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	compare(t, ref, ours, []difftest.Case{
		cs(),
		cs("-type"),
		cs("-type=bc", "-list=yes"),
		cs("-type=bc", "x", "y"),
		cs("-type=bc", "--version=1"),
		cs("-type=bc", "-bundle-align=abc"),
		cs("-type=bc", "-bundle-align=+1"),
		cs("-type=bc", "-compression-level=abc"),
		cs("-type=bc", "-h"),
		cs("--help"),
		cs("--help-hidden"),
		cs("--help-list"),
		cs("--help-list-hidden"),
		cs("--version"),
		cs("-type=bc", "--color", "-list", "-input=nonexist"),
		cs("-type=bc", "--color=true", "-inputs=h.txt", "-output=o", "-targets="+host),
		cs("-type=bc", "--color=false", "-list", "-input=nonexist"),
		cs("-type=bc", "--color=maybe", "-list", "-input=nonexist"),
		cs("-type=bc", "-input=h.txt", "-inputs=h.txt"),
		cs("-type=bc", "-output=a", "-outputs=b"),
		cs("-type=bc", "-list", "-unbundle", "-input=h.txt"),
		cs("-type=bc", "-list"),
		cs("-type=bc", "-list", "-input=a", "-input=b"),
		cs("-type=bc", "-list", "-input=h.txt", "-output=x"),
		cs("-type=bc", "-list", "-input=h.txt", "-targets="+host),
		cs("-type=bc", "-check-input-archive", "-input=h.txt", "-output=o", "-targets="+host),
		cs("-type=bc", "-unbundle", "-check-input-archive", "-input=h.txt", "-output=o", "-targets="+host),
		cs("-type=bc", "-input=h.txt", "-targets="+host),
		cs("-type=bc", "-input=h.txt", "-output=o"),
		cs("-type=bc", "-unbundle", "-input=h.txt", "-input=d1.txt", "-output=o", "-targets="+host),
		cs("-type=bc", "-unbundle", "-input=h.txt", "-output=o", "-output=p", "-targets="+host),
		cs("-type=a", "-input=h.txt", "-output=o", "-targets="+host),
		cs("-type=bc", "-input=h.txt", "-output=o", "-output=p", "-targets="+host),
		cs("-type=bc", "-input=h.txt", "-input=d1.txt", "-output=o", "-targets="+host),
		cs("-type=bc", "-input=h.txt", "-input=d1.txt", "-output=o", "-targets="+host+","+host),
		cs("-type=bc", "-input=h.txt", "-output=o", "-targets=host-x86_64-unknown-linux"),
		cs("-type=bc", "-input=h.txt", "-output=o", "-targets=foo-bar-baz-qux-quux"),
		cs("-type=bc", "-input=h.txt", "-output=o", "-targets=cuda-nvptx64-nvidia-cuda-"),
		cs("-type=bc", "-input=h.txt", "-output=o", "-targets=host-X86_64-unknown-linux-gnu"),
		cs("-type=bc", "-input=h.txt", "-input=d1.txt", "-input=d2.txt", "-output=o", "-targets="+host+","+gfx906+","+gfx906+":xnack+"),
		cs("-type=bc", "-input=h.txt", "-input=d1.txt", "-input=d2.txt", "-output=o", "-targets="+host+","+gfx906+":xnack-,"+gfx906+":xnack+"),
		cs("-type=bc", "-input=h.txt", "-input=d1.txt", "-output=o", "-targets="+host+",openmp-x86_64-unknown-linux-gnu"),
		cs("-type=bc", "-input=h.txt", "-input=d1.txt", "-output=o", "-targets="+host+","+gfx906+":xnack"),
		cs("-type=bc", "-input=h.txt", "-input=d1.txt", "-input=d2.txt", "-output=o", "-targets="+host+",hip-amdgcn-amd-amdhsa--gfx900,"+gfx906+":xnack+:xnack-"),
		cs("-type=bc", "-unbundle", "-input=h.txt", "-output=o", "-output=p", "-allow-missing-bundles", "-targets="+gfx906+"::xnack+,"+gfx906+":sramecc+"),
		cs("-type=bc", "-input=h.txt", "-input=d1.txt", "-output=o", "-targets=openmp-x86_64-unknown-linux-gnu,"+host),
		cs("-type=bc", "-input=d1.txt", "-output=o", "-targets=openmp-x86_64-unknown-linux-gnu"),
		cs("-type=bc", "-input=h.txt", "-input=d1.txt", "-output=o", "-targets="+host+","+host+"-"),
		cs("-type=bc", "-unbundle", "-input=h.txt", "-output=o", "-output=p", "-targets="+host+",host-x86_64-pc-linux-gnu"),
		cs("-type=zz", "-input=h.txt", "-output=o", "-targets="+host),
		cs("-type=zz", "-input=nonexist", "-output=o", "-targets="+host),
		cs("-type=zz", "-list", "-input=h.txt"),
		cs("-type=zz", "-unbundle", "-input=h.txt", "-output=o", "-targets="+host),
		cs("-type=bc", "-input=nonexist", "-output=o", "-targets="+host),
		cs("-type=bc", "-input=", "-output=o", "-targets="+host),
		cs("-type=bc", "-input=sub", "-output=o", "-targets="+host),
		cs("-type=bc", "-list", "-input=nonexist"),
		cs("-type=bc", "-inputs=h.txt,d1.txt", "-outputs=o", "-targets="+host+","+gfx906),
		cs("-type=bc", "-inputs=", "-output=o", "-targets="+host),
		cs("-type=bc", "-input=h.txt", "-output=o", "-targets="),
		cs("-type=bc", "-input=h.txt", "-input=d1.txt", "-output=o", "-targets="+host+","),
	})
}

func TestDiffText(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	three := "-targets=" + host + "," + gfx906 + "," + gfx908
	var cases []difftest.Case
	for _, typ := range []string{"i", "ii", "cui", "hipi", "d", "ll", "s"} {
		cases = append(cases, cs("-type="+typ, three, "-input=h.txt", "-input=d1.txt", "-input=d2.txt", "-output=b"))
	}
	bi := refMake(t, ref, "-type=i", three, "-input=h.txt", "-input=d1.txt", "-input=d2.txt")
	files := withFiles(map[string][]byte{"b.i": bi, "bb.i": append(append([]byte("prefix"), bi...), bi...)})
	for _, c := range []difftest.Case{
		cs("-type=i", "-list", "-input=b.i"),
		cs("-type=ll", "-list", "-input=b.i"),
		cs("-type=i", "-list", "-input=bb.i"),
		cs("-type=i", "-list", "-input=crlf.i"),
		cs("-type=i", "-list", "-input=nostart"),
		cs("-type=i", "-list", "-input=h.txt"),
		cs("-type=i", "-list", "-input=empty"),
		cs("-type=i", "-unbundle", three, "-input=b.i", "-output=o1", "-output=o2", "-output=o3"),
		cs("-type=i", "-unbundle", "-targets="+gfx908+","+host, "-input=b.i", "-output=o1", "-output=o2"),
		cs("-type=i", "-unbundle", "-targets="+gfx90a, "-input=b.i", "-output=o1"),
		cs("-type=i", "-unbundle", "-targets="+gfx90a+","+host+",hip-amdgcn-amd-amdhsa--gfx1030", "-input=b.i", "-output=o1", "-output=o2", "-output=o3"),
		cs("-type=i", "-unbundle", "-allow-missing-bundles", "-targets="+gfx90a+","+host, "-input=b.i", "-output=o1", "-output=o2"),
		cs("-type=i", "-unbundle", "-allow-missing-bundles", "-targets="+gfx90a+","+host, "-input=h.txt", "-output=o1", "-output=o2"),
		cs("-type=i", "-unbundle", "-targets="+gfx90a+","+host, "-input=h.txt", "-output=o1", "-output=o2"),
		cs("-type=i", "-unbundle", "-targets="+gfx906, "-input=b.i", "-output=-"),
		cs("-type=i", "-unbundle", "-targets="+gfx906+",hip-amdgcn-amd-amdhsa-unknown-gfx906", "-input=b.i", "-output=ux", "-output=uy"),
		cs("-type=i", "-unbundle", "-targets="+gfx906+":xnack+", "-input=b.i", "-output=o1"),
		cs("-type=i", "-unbundle", "-targets=hipv4-amdgcn-amd-amdhsa--gfx906", "-input=b.i", "-output=o1"),
		cs("-type=i", "-unbundle", "-targets=openmp-amdgcn-amd-amdhsa--gfx906", "-input=b.i", "-output=o1"),
		cs("-type=i", "-unbundle", "-hip-openmp-compatible", "-targets=openmp-amdgcn-amd-amdhsa--gfx906", "-input=b.i", "-output=o1"),
		cs("-type=i", "-unbundle", "-targets="+host, "-input=b.i", "-output=b.i"),
		cs("-type=i", "-targets="+host, "-input=h.txt", "-output=h.txt"),
		cs("-type=i", "-targets="+host+","+gfx906, "-input=empty", "-input=-", "-output=-"),
		cs("-type=i", "-targets="+host, "-input=-", "-output=b", "-verbose"),
		cs("-type=i", "-list", "-input=b.i", "-verbose"),
	} {
		c.Files = files
		c.Stdin = []byte("from stdin\n")
		cases = append(cases, c)
	}
	compare(t, ref, ours, cases)
}

func TestDiffBinary(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	four := "-targets=" + host + "," + gfx906 + "," + gfx908 + "," + gfx90a
	ins := []string{"-input=hb", "-input=b1", "-input=b2", "-input=b3"}
	var cases []difftest.Case
	for _, typ := range []string{"bc", "gch", "ast", "o"} {
		cases = append(cases, cs(append([]string{"-type=" + typ, four, "-output=b"}, ins...)...))
	}
	cases = append(cases,
		cs("-type=i", "-targets="+host, "-input=h.txt", "-output=b", "-bundle-align=0"),
		cs("-type=bc", "-unbundle", "-targets="+host, "-input=h.txt", "-output=b", "-bundle-align=0", "-allow-missing-bundles"),
	)
	for _, al := range []string{"1", "3", "16", "4096", "0x10"} {
		cases = append(cases, cs(append([]string{"-type=bc", four, "-output=b", "-bundle-align=" + al}, ins...)...))
	}
	cases = append(cases,
		cs("-type=bc", "-targets="+host+","+gfx906, "-input=hb", "-input=empty", "-output=b", "-bundle-align=4096"),
		cs("-type=bc", "-targets="+host+","+gfx906+",hip-amdgcn-amd-amdhsa-unknown-gfx906", "-input=hb", "-input=b3", "-input=b1", "-output=dup"),
		cs("-type=bc", "-targets="+host, "-input=/dev/null", "-output=b"),
		cs("-type=bc", "-targets=host-x86_64-pc-win32-,hip-amdgcn-amd-amdhsa-gnu-gfx906:sramecc-:xnack+,openmp-nvptx64-nvidia-cuda--sm_70", "-input=hb", "-input=b1", "-input=b2", "-output=b"),
	)
	b := refMake(t, ref, append([]string{"-type=bc", four}, ins...)...)
	one := refMake(t, ref, "-type=bc", "-targets="+host+","+gfx906, "-input=hb", "-input=b1")
	files := withFiles(map[string][]byte{"b.bc": b, "one.bc": one, "trunc.bc": b[:200], "trunc2.bc": b[:260], "cat.bc": append(append([]byte{}, b...), one...)})
	for _, c := range []difftest.Case{
		cs("-type=bc", "-list", "-input=b.bc"),
		cs("-type=o", "-list", "-input=b.bc"),
		cs("-type=i", "-list", "-input=b.bc"),
		cs("-type=bc", "-list", "-input=trunc.bc"),
		cs("-type=bc", "-list", "-input=cat.bc"),
		cs("-type=bc", "-list", "-input=-"),
		cs("-type=bc", "-unbundle", four, "-input=b.bc", "-output=o1", "-output=o2", "-output=o3", "-output=o4"),
		cs("-type=bc", "-unbundle", "-targets="+gfx90a+","+gfx906, "-input=b.bc", "-output=o1", "-output=o2"),
		cs("-type=bc", "-unbundle", "-targets="+gfx906+":xnack-,"+gfx906+":xnack+", "-input=one.bc", "-output=xa", "-output=xb"),
		cs("-type=bc", "-unbundle", "-allow-missing-bundles", "-targets="+gfx906+":xnack-,"+gfx906+":xnack+", "-input=one.bc", "-output=xa", "-output=xb"),
		cs("-type=bc", "-unbundle", "-allow-missing-bundles", "-targets="+host+","+gfx1030(), "-input=one.bc", "-output=xa", "-output=xb"),
		cs("-type=bc", "-unbundle", "-allow-missing-bundles", "-targets="+gfx90a+","+gfx1030(), "-input=one.bc", "-output=xa", "-output=xb"),
		cs("-type=bc", "-unbundle", "-targets="+gfx90a+","+gfx1030()+","+gfx908+","+host, "-input=one.bc", "-output=a", "-output=b", "-output=c", "-output=d"),
		cs("-type=bc", "-unbundle", "-allow-missing-bundles", "-targets="+host+","+gfx906, "-input=h.txt", "-output=xa", "-output=xb"),
		cs("-type=bc", "-unbundle", "-targets="+host, "-input=-", "-output=-"),
		cs("-type=bc", "-unbundle", "-targets="+gfx906, "-input=b.bc", "-output=b.bc"),
		cs("-type=bc", "-unbundle", "-targets="+gfx906, "-input=b.bc", "-output=sub"),
		cs("-type=bc", "-unbundle", "-targets="+gfx906, "-input=b.bc", "-output=nodir/x"),
		cs("-type=bc", "-targets="+host, "-input=hb", "-output=nodir/x"),
		cs("-type=bc", "-targets="+host, "-input=hb", "-output=sub"),
		cs("-type=bc", "-targets="+host, "-input=hb", "-output=/dev/full"),
		cs("-type=bc", "-targets="+host, "-input=hb", "-output=/dev/null"),
		cs("-type=i", "-targets="+host, "-input=h.txt", "-output=/dev/full"),
		cs("-type=bc", "-unbundle", "-targets="+gfx906, "-input=b.bc", "-output=/dev/full"),
		cs("-type=bc", "-unbundle", "-targets="+gfx906, "-input=b.bc", "-output=/dev/null"),
	} {
		c.Files = files
		c.Stdin = one
		cases = append(cases, c)
	}
	compare(t, ref, ours, cases)
}

func gfx1030() string { return "hip-amdgcn-amd-amdhsa--gfx1030" }
