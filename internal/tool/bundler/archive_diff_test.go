package bundler_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/test/difftest"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// archiveFiles builds, with clang 22 and LLVM's own tools, a folder of
// heterogeneous device archives: ELF fat objects from a real HIP -fgpu-rdc
// compile, binary bundles, a compressed bundle, a plain object, GNU, thin,
// BSD and AIX big archives. They are built once per test process; each
// caller gets its own copy.
func archiveFiles(t *testing.T, ref string) map[string][]byte {
	t.Helper()
	clang := llvmref.Need(t, "clang")
	llvmar := llvmref.Need(t, "llvm-ar")
	return archiveInputs.get(t, func(dir string, logf func(string, ...any)) error {
		var err error
		run := func(env []string, argv ...string) {
			if err != nil {
				return
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), env...)
			if out, e := cmd.CombinedOutput(); e != nil {
				err = fmt.Errorf("%v: %v\n%s", argv, e, out)
			}
		}
		src, err := os.ReadFile("../../../testdata/example/kernel.hip")
		if err != nil {
			return err
		}
		os.WriteFile(filepath.Join(dir, "k.hip"), src, 0o644)
		os.WriteFile(filepath.Join(dir, "plain.c"), []byte("int plainfn(void){return 1;}\nint plainvar = 2;\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "d1"), []byte("DEV1 code"), 0o644)
		os.WriteFile(filepath.Join(dir, "d2"), []byte("DEV2 code!"), 0o644)
		os.WriteFile(filepath.Join(dir, "h"), []byte("HOST"), 0o644)
		run(nil, clang, "-x", "hip", "--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+", "-nogpulib", "-nogpuinc", "-fgpu-rdc", "-c", "k.hip", "-cuid=abc", "-o", "memA.o")
		run(nil, clang, "-c", "plain.c", "-o", "plain.o")
		run(nil, ref, "-type=bc", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906:xnack+,openmp-amdgcn-amd-amdhsa--gfx908", "-input=h", "-input=d1", "-input=d2", "-output=memB.o")
		run(nil, ref, "-type=bc", "-targets=hip-amdgcn-amd-amdhsa--gfx908,hipv4-amdgcn-amd-amdhsa--gfx1030", "-input=d1", "-input=d2", "-output=memC.o", "-compress")
		// The bundler refuses to write conflicting targets; write them directly.
		var conf bytes.Buffer
		binfmt.Write(&conf, []binfmt.Source{
			{ID: "hip-amdgcn-amd-amdhsa--gfx906", R: strings.NewReader("DEV1"), Size: 4},
			{ID: "hip-amdgcn-amd-amdhsa--gfx906:xnack+", R: strings.NewReader("DEV2"), Size: 4},
		}, 1)
		os.WriteFile(filepath.Join(dir, "conf.o"), conf.Bytes(), 0o644)
		run(nil, ref, "-type=bc", "-targets=hip-amdgcn-amd-amdhsa--gfx906", "-input=d2", "-output=noext")
		run(nil, ref, "-type=bc", "-targets=hip-nvptx64-nvidia-cuda--sm_70,hip-amdgcn-amd-amdhsa--gfx906", "-input=d1", "-input=d2", "-output=my.lib.o")
		os.Mkdir(filepath.Join(dir, "sub"), 0o755)
		run(nil, "cp", "memB.o", "sub/memA.o")
		run(nil, llvmar, "rcs", "libt.a", "memA.o", "memB.o", "memC.o", "plain.o", "noext", "my.lib.o")
		run(nil, llvmar, "qcs", "libdup.a", "memA.o", "sub/memA.o", "memA.o")
		run(nil, llvmar, "rcs", "libconf.a", "memA.o", "conf.o")
		run(nil, llvmar, "rcsT", "libthin.a", "memA.o", "sub/memA.o", "memB.o")
		run(nil, llvmar, "rcs", "--format=bsd", "libbsd.a", "memA.o", "memB.o", "memC.o")
		run(nil, llvmar, "rcs", "--format=bigarchive", "libbig.a", "memA.o", "memB.o", "memC.o")
		run(nil, llvmar, "rcs", "libplain.a", "plain.o")
		return err
	})
}

var archiveInputs sharedInputs

func TestDiffArchive(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	files := archiveFiles(t, ref)
	const (
		k906    = "hip-amdgcn-amd-amdhsa--gfx906"
		k906xp  = "hip-amdgcn-amd-amdhsa--gfx906:xnack+"
		k906xm  = "hip-amdgcn-amd-amdhsa--gfx906:xnack-"
		k90a    = "hip-amdgcn-amd-amdhsa--gfx90a"
		k90axp  = "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"
		k908    = "hip-amdgcn-amd-amdhsa--gfx908"
		k1030   = "hip-amdgcn-amd-amdhsa--gfx1030"
		omp906  = "openmp-amdgcn-amd-amdhsa--gfx906"
		omp908  = "openmp-amdgcn-amd-amdhsa--gfx908"
		hostpc  = "host-x86_64-pc-linux-gnu"
		host    = "host-x86_64-unknown-linux-gnu"
		sm70    = "hip-nvptx64-nvidia-cuda--sm_70"
		k906unk = "hip-amdgcn-amd-amdhsa-unknown-gfx906"
	)
	a := func(args ...string) difftest.Case {
		return difftest.Case{Files: files, Args: append([]string{"-type=a", "-unbundle"}, args...)}
	}
	var cases []difftest.Case
	for _, lib := range []string{"libt.a", "libdup.a", "libthin.a", "libbsd.a", "libbig.a"} {
		cases = append(cases,
			a("-input="+lib, "-allow-missing-bundles", "-targets="+k906xp+","+k90a+","+omp906+","+k908+","+k1030, "-output=o1.a", "-output=o2.a", "-output=o3.a", "-output=o4.a", "-output=o5.a"),
			a("-input="+lib, "-allow-missing-bundles", "-hip-openmp-compatible", "-targets="+k906xm+","+k90axp+","+omp908+","+hostpc+","+sm70, "-output=o1.a", "-output=o2.a", "-output=o3.a", "-output=o4.a", "-output=o5.a"),
		)
	}
	cases = append(cases,
		a("-input=libt.a", "-targets="+k906, "-output=o.a"),
		a("-input=libt.a", "-targets="+k906unk, "-output=o.a"),
		a("-input=libt.a", "-targets="+k1030+","+k906, "-output=o1.a", "-output=o2.a"),
		a("-input=libt.a", "-targets="+k906+","+k1030, "-output=o1.a", "-output=o2.a"),
		a("-input=libt.a", "-targets="+host, "-output=o.a"),
		a("-input=libt.a", "-targets="+hostpc, "-output=-"),
		a("-input=libplain.a", "-targets="+k906, "-output=o.a"),
		a("-input=libplain.a", "-allow-missing-bundles", "-targets="+k906, "-output=o.a"),
		a("-input=libconf.a", "-targets="+k906xp, "-output=o.a"),
		a("-input=libconf.a", "-check-input-archive", "-targets="+k906xp, "-output=o.a"),
		a("-input=libt.a", "-check-input-archive", "-targets="+k906xp, "-output=o.a"),
		a("-input=memA.o", "-targets="+k906, "-output=o.a"),
		a("-input=nonexist.a", "-targets="+k906, "-output=o.a"),
		a("-input=libt.a", "-targets="+k906, "-output=sub"),
		a("-input=libt.a", "-targets="+k906, "-output=nodir/o.a"),
		a("-input=libt.a", "-targets="+k906+","+k906xp, "-output=o1.a", "-output=o2.a"),
		difftest.Case{Files: files, Args: []string{"-type=a", "-list", "-input=libt.a"}},
		// LLVM's archive writer reads SYM64_THRESHOLD (decimal, else 1<<32),
		// whatever OFFLOAD_BUNDLER_IGNORE_ENV_VAR says.
		difftest.Case{Files: files, Env: []string{"SYM64_THRESHOLD=100"}, Args: []string{"-type=a", "-unbundle", "-input=libt.a", "-targets=" + k906 + "," + k90axp, "-output=o1.a", "-output=o2.a"}},
		difftest.Case{Files: files, Env: []string{"SYM64_THRESHOLD=0", "OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1"}, Args: []string{"-type=a", "-unbundle", "-input=libt.a", "-targets=" + k906, "-output=o.a"}},
		difftest.Case{Files: files, Env: []string{"SYM64_THRESHOLD=0x10"}, Args: []string{"-type=a", "-unbundle", "-input=libt.a", "-targets=" + k906, "-output=o.a"}},
		difftest.Case{Files: files, Args: []string{"-type=o", "-list", "-input=memA.o"}},
		difftest.Case{Files: files, Args: []string{"-type=o", "-unbundle", "-targets=" + hostpc + "," + k906 + "," + k90axp, "-input=memA.o", "-output=h.o", "-output=d906", "-output=d90a"}},
		difftest.Case{Files: files, Args: []string{"-type=o", "-unbundle", "-targets=" + k90a, "-input=memA.o", "-output=d90a"}},
		difftest.Case{Files: files, Args: []string{"-type=o", "-list", "-input=memC.o", "-verbose"}},
		difftest.Case{Files: files, Args: []string{"-type=bc", "-unbundle", "-targets=" + k908, "-input=memC.o", "-output=x"}},
	)
	compare(t, ref, ours, cases)
}

// TestDiffArchiveList: -type=a -list handles its input as -type=o does. An
// ELF fat object (clang -fgpu-rdc -c output, or the bundler's -type=o) lists
// its IDs in section order, a binary bundle, compressed or not, in
// StringMap order; an archive, a text bundle, a plain object or an empty
// file list nothing; a damaged section header is reported in LLVM's words.
func TestDiffArchiveList(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	files := archiveFiles(t, ref)
	made := func(args ...string) []byte {
		t.Helper()
		o := difftest.Run(t, ref, difftest.Case{Files: files, Args: append(args, "-output=made")})
		if o.Code != 0 {
			t.Fatalf("%v: %s", args, o.Stderr)
		}
		return o.Files["made"]
	}
	files["fat.o"] = made("-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx90a,host-x86_64-unknown-linux-gnu,openmp-x86_64-unknown-linux-gnu", "-input=d1", "-input=plain.o", "-input=d2")
	files["t.i"] = made("-type=i", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906", "-input=d1", "-input=d2")
	files["empty"] = nil
	p := elfPatcher{files["memA.o"]}
	files["badname.o"] = p.with(p.shnum()-1, 0, 4, 0xfffff)
	var cases []difftest.Case
	for _, in := range []string{"memA.o", "fat.o", "memB.o", "memC.o", "my.lib.o", "plain.o", "t.i", "empty", "libt.a", "libthin.a", "badname.o", "/dev/null", "nonexist"} {
		cases = append(cases,
			difftest.Case{Files: files, Args: []string{"-type=a", "-list", "-input=" + in}},
			difftest.Case{Files: files, Args: []string{"-type=a", "-list", "-input=" + in, "-verbose"}})
	}
	cases = append(cases, difftest.Case{Name: "memA.o on stdin", Files: files, Args: []string{"-type=a", "-list", "-input=-"}, Stdin: files["memA.o"]})
	compare(t, ref, ours, cases)
}

// TestDiffArchiveMemberNames: member names as LLVM reads them (GNU ar's
// thin-archive headers for 15-character names, names ending in '/', dot
// names) and the output member names built from them; a thin archive whose
// member file is missing or is a folder.
func TestDiffArchiveMemberNames(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	files := archiveFiles(t, ref)
	const k906 = "hip-amdgcn-amd-amdhsa--gfx906"
	var odd bytes.Buffer
	var ms []ar.NewMember
	for _, n := range []string{"dir/", "..", ".", ".hidden", "noext.", "a.b.c.o", "/<ECSYMBOLS>/", "x/y.o"} {
		ms = append(ms, ar.NewMember{Name: n, Data: bytes.NewReader(files["memB.o"]), Size: int64(len(files["memB.o"]))})
	}
	if err := ar.WriteGNU(&odd, ms); err != nil {
		t.Fatal(err)
	}
	files["libodd.a"] = odd.Bytes()
	cases := []difftest.Case{
		{Files: files, Args: []string{"-type=a", "-unbundle", "-targets=" + k906 + ":xnack+,host-x86_64-unknown-linux-gnu", "-input=libodd.a", "-output=o1.a", "-output=o2.a"}},
	}
	// GNU ar writes "/<offset>" over "<name>/" in thin archives, so a
	// 15-character name leaves "/10            /".
	if gnuAr, err := exec.LookPath("ar"); err == nil {
		if v, _ := exec.Command(gnuAr, "--version").Output(); bytes.Contains(v, []byte("GNU")) {
			dir := t.TempDir()
			for _, n := range []string{"memA.o", "fifteen_chars.o", "sixteen_chars.o"} {
				src := files["memB.o"]
				if n == "memA.o" {
					src = files["memA.o"]
				}
				os.WriteFile(filepath.Join(dir, n), src, 0o644)
			}
			cmd := exec.Command(gnuAr, "rcsT", "libgt.a", "memA.o", "fifteen_chars.o", "sixteen_chars.o")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("ar: %v\n%s", err, out)
			}
			gt := difftest.ReadTree(dir)
			if !bytes.Contains(gt["libgt.a"], []byte("            /")) {
				t.Logf("GNU ar no longer leaves '/' at the end of the name field")
			}
			cases = append(cases,
				difftest.Case{Files: gt, Args: []string{"-type=a", "-unbundle", "-targets=" + k906, "-input=libgt.a", "-output=o.a"}},
				difftest.Case{Files: gt, Args: []string{"-type=a", "-unbundle", "-check-input-archive", "-targets=" + k906, "-input=libgt.a", "-output=o.a"}})
		}
	}
	// Thin members that cannot be read are named as stored.
	missing := maps.Clone(files)
	delete(missing, "sub/memA.o")
	folder := maps.Clone(files)
	delete(folder, "memB.o")
	folder["memB.o/x"] = []byte("x")
	cases = append(cases,
		difftest.Case{Files: missing, Args: []string{"-type=a", "-unbundle", "-targets=" + k906, "-input=libthin.a", "-output=o.a"}},
		difftest.Case{Files: folder, Args: []string{"-type=a", "-unbundle", "-check-input-archive", "-targets=" + k906, "-input=libthin.a", "-output=o.a"}},
	)
	compare(t, ref, ours, cases)
}

// TestDiffArchiveUnreadableBitcode: device members that look like bitcode
// but cannot be read give LLVM's warnings (once per output archive) and
// no symbols; bitcode with nothing after the magic is an object without
// symbols (an empty symbol table).
func TestDiffArchiveUnreadableBitcode(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	clang := llvmref.Need(t, "clang")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.c"), []byte("int f(void) { return 1; }\nint g = 2;\n"), 0o644)
	cmd := exec.Command(clang, "--target=amdgcn-amd-amdhsa", "-mcpu=gfx906", "-c", "-emit-llvm", "f.c", "-o", "f.bc")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	bc, err := os.ReadFile(filepath.Join(dir, "f.bc"))
	if err != nil {
		t.Fatal(err)
	}
	payloads := map[string][]byte{
		"good.o":    bc,
		"magic.o":   []byte("BC\xc0\xde"),
		"odd.o":     append(bytes.Clone(bc), 'x'),
		"cut16.o":   bc[:16],
		"cut36.o":   bc[:36],
		"cut40.o":   bc[:40],
		"cut44.o":   bc[:44],
		"cutm4.o":   bc[:len(bc)-4],
		"cutm8.o":   bc[:len(bc)-8],
		"wrap0.o":   append([]byte("\xde\xc0\x17\x0b\x00\x00\x00\x00\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), "jjjj"...),
		"wrapbad.o": append([]byte("\xde\xc0\x17\x0b\x00\x00\x00\x00\x14\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00"), "XXXX"...),
	}
	var ms []ar.NewMember
	for _, name := range slices.Sorted(maps.Keys(payloads)) {
		var b bytes.Buffer
		binfmt.Write(&b, []binfmt.Source{
			{ID: "host-x86_64-unknown-linux-gnu", R: strings.NewReader(""), Size: 0},
			{ID: "hip-amdgcn-amd-amdhsa--gfx906", R: bytes.NewReader(payloads[name]), Size: int64(len(payloads[name]))},
		}, 1)
		ms = append(ms, ar.NewMember{Name: name, Data: bytes.NewReader(b.Bytes()), Size: int64(b.Len())})
	}
	var lib bytes.Buffer
	if err := ar.WriteGNU(&lib, ms); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"lib.a": lib.Bytes()}
	compare(t, ref, ours, []difftest.Case{
		{Files: files, Args: []string{"-type=a", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx906", "-input=lib.a", "-output=o.a"}},
		{Files: files, Args: []string{"-type=a", "-unbundle", "-targets=hip-amdgcn-amd-amdhsa--gfx906:xnack+,hip-amdgcn-amd-amdhsa--gfx906:xnack-", "-input=lib.a", "-output=o1.a", "-output=o2.a"}},
	})
}

// Damaged ELF fat objects in an archive: a bundle whose contents lie
// outside the member fails only if it is extracted; a malformed section
// header fails the member whatever is asked for; a host object that
// llvm-objcopy refuses to make fails with its words (e_phoff past the end);
// an odd e_phoff moves the host object's sections as objcopy moves them.
func TestDiffArchiveMalformedMember(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	files := archiveFiles(t, ref)
	p := elfPatcher{files["memA.o"]}
	const off, name = 24, 0
	dev := -1 // the gfx906 bundle section
	for i := 1; i < p.shnum(); i++ {
		if p.get(i, 32, 8) > 1 && p.get(i, 8, 8)&0x80000000 != 0 { // SHF_EXCLUDE, not the host placeholder
			dev = i
			break
		}
	}
	if dev < 0 {
		t.Fatal("no device bundle section")
	}
	phoff := func(v uint64) []byte {
		c := append([]byte(nil), p.b...)
		binary.LittleEndian.PutUint64(c[32:], v)
		return c
	}
	members := map[string][]byte{
		"trunc.o":   p.with(dev, off, 8, uint64(len(p.b))+100),
		"badname.o": p.with(dev, name, 4, 0xfffff),
		"phpast.o":  phoff(1 << 40),
		"phodd.o":   phoff(173),
	}
	llvmar := llvmref.Need(t, "llvm-ar")
	var cases []difftest.Case
	for _, m := range slices.Sorted(maps.Keys(members)) {
		in := map[string][]byte{m: members[m]}
		made := difftest.Run(t, llvmar, difftest.Case{Files: in, Args: []string{"rcs", "lib.a", m}})
		lib := map[string][]byte{"lib.a": made.Files["lib.a"]}
		for _, targets := range []string{
			"host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
			"hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
		} {
			args := []string{"-type=a", "-unbundle", "-input=lib.a", "-targets=" + targets, "-allow-missing-bundles"}
			for i := range strings.Split(targets, ",") {
				args = append(args, "-output=o"+string(rune('0'+i))+".a")
			}
			cases = append(cases, difftest.Case{Name: m + " " + targets, Files: lib, Args: args},
				difftest.Case{Name: m + " check " + targets, Files: lib, Args: append(args, "-check-input-archive")})
		}
	}
	compare(t, ref, ours, cases)
}

// TestArchiveSameStandardTargets: two -type=a targets that standardise to
// the same ID. LLVM 22 keys its outputs by standardised target, so it never
// writes the first output and puts every code object twice into the last,
// and exits 0. We refuse the command line instead (a deliberate difference:
// a silently missing output is worse than an error), once LLVM's own checks
// have passed.
func TestArchiveSameStandardTargets(t *testing.T) {
	t.Parallel()
	bin := ours.Path(t)
	var member bytes.Buffer
	binfmt.Write(&member, []binfmt.Source{
		{ID: "host-x86_64-unknown-linux-gnu-", R: strings.NewReader(""), Size: 0},
		{ID: "hip-amdgcn-amd-amdhsa--gfx906", R: strings.NewReader("DEV906"), Size: 6},
	}, 1)
	var lib bytes.Buffer
	if err := ar.WriteGNU(&lib, []ar.NewMember{
		{Name: "a.o", Data: bytes.NewReader(member.Bytes()), Size: int64(member.Len())},
		{Name: "b.o", Data: bytes.NewReader(member.Bytes()), Size: int64(member.Len())},
	}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"lib.a": lib.Bytes()}
	const (
		k906    = "hip-amdgcn-amd-amdhsa--gfx906"
		k906unk = "hip-amdgcn-amd-amdhsa-unknown-gfx906"
		k1030   = "hip-amdgcn-amd-amdhsa--gfx1030"
		ompgnu  = "openmp-x86_64-unknown-linux-gnu"
	)
	outs := func(n int) []string {
		var o []string
		for i := range n {
			o = append(o, fmt.Sprintf("-output=o%d.a", i))
		}
		return o
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{append([]string{"-input=lib.a", "-targets=" + k906 + "," + k906unk}, outs(2)...),
			"'" + k906 + "' and '" + k906unk + "' both standardise to '" + k906 + "'"},
		{append([]string{"-input=lib.a", "-targets=" + k906unk + "," + k1030 + "," + k906, "-allow-missing-bundles"}, outs(3)...),
			"'" + k906unk + "' and '" + k906 + "' both standardise to '" + k906 + "'"},
		{append([]string{"-input=lib.a", "-targets=" + ompgnu + ",openmp-x86_64--linux-gnu," + ompgnu + "-", "-allow-missing-bundles"}, outs(3)...),
			"'" + ompgnu + "' and 'openmp-x86_64--linux-gnu' both standardise to '" + ompgnu + "-'"},
		{append([]string{"-targets=" + k906 + "," + k906unk, "-check-input-archive", "-input=nonexist.a"}, outs(2)...),
			"'" + k906 + "' and '" + k906unk + "' both standardise to '" + k906 + "'"},
	} {
		args := append([]string{"-type=a", "-unbundle"}, c.args...)
		o := difftest.Run(t, bin, difftest.Case{Files: files, Args: args, Argv0: "clang-offload-bundler"})
		want := "clang-offload-bundler: error: Duplicate targets are not allowed: " + c.msg + "\n"
		if o.Code != 1 || o.Stderr != want || o.Stdout != "" || len(o.Files) != 1 {
			t.Errorf("%v: exit %d, stderr %q, %d files; want exit 1, %q, no output", args, o.Code, o.Stderr, len(o.Files)-1, want)
		}
	}
	ref := llvmref.Path("clang-offload-bundler")
	if ref == "" {
		return
	}
	// What we refuse: LLVM 22 writes o1.a only, each code object twice.
	o := difftest.Run(t, ref, difftest.Case{Files: files, Args: []string{"-type=a", "-unbundle", "-input=lib.a", "-targets=" + k906 + "," + k906unk, "-output=o0.a", "-output=o1.a"}})
	if _, ok := o.Files["o0.a"]; o.Code != 0 || ok || bytes.Count(o.Files["o1.a"], []byte("DEV906")) != 4 {
		t.Errorf("LLVM 22 no longer writes the last output alone with each code object twice: exit %d, %q, files %v", o.Code, o.Stderr, slices.Sorted(maps.Keys(o.Files)))
	}
	// LLVM's own checks of the targets come first.
	compare(t, ref, bin, []difftest.Case{
		{Files: files, Args: append([]string{"-type=a", "-unbundle", "-input=lib.a", "-targets=" + k906 + "," + k906unk + "," + k906 + ":xnack+"}, outs(3)...)},
		{Files: files, Args: append([]string{"-type=a", "-unbundle", "-input=lib.a", "-targets=host-x86_64-unknown-linux-gnu,host-x86_64--linux-gnu"}, outs(2)...)},
		{Files: files, Args: append([]string{"-type=a", "-unbundle", "-input=lib.a", "-targets=" + k906 + "," + k906}, outs(2)...)},
		{Files: files, Args: append([]string{"-type=a", "-unbundle", "-input=lib.a", "-targets=" + k906 + "," + k906unk}, outs(3)...)},
	})
}
