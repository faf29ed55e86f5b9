package prune

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
	"github.com/goffload/goffload/targetid"
)

// TestPackagingPipeline: what distributions and packagers do to a linked
// file after it is built (GNU strip and objcopy, Debian's dh_strip,
// elfutils, llvm-strip and llvm-objcopy, patchelf) works on a pruned
// program as it works on the original. Every program kind TestPruneLinked
// runs is built once (with host debug information, as packages are built
// before dh_strip), pruned to gfx90a, and each post-processor is run on
// the pruned file and, as a control, on the original; the result is run
// with the recording runtime: the runtime must be handed exactly the kept
// (control: all the original) code objects, byte for byte, the program's
// output must not change, and the tool must print no warning.
func TestPackagingPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and post-processes 11 programs: skipped under -short")
	}
	tc := tools(t)
	for _, k := range pipeKinds() {
		t.Run(k.name, func(t *testing.T) {
			in := k.build(t, tc)
			if k.lib {
				tc.host(t)
			}
			argv := func(f string) []string {
				if k.lib {
					return []string{filepath.Join(tc.dir, "host"), f}
				}
				return []string{f}
			}
			regs, out0 := tc.record(t, argv(in)...)
			if len(regs) != 2 {
				t.Fatalf("the original registers %d fat binaries, want 2", len(regs))
			}
			if k.lib && !strings.Contains(out0, "caught: thrown across the library") {
				t.Fatalf("the original prints %q", out0)
			}
			var all, keep []map[string][]byte
			for _, r := range regs {
				e := entries(t, r)
				all = append(all, e)
				m := map[string][]byte{}
				for id, b := range e {
					if kept(id) {
						m[id] = b
					}
				}
				if len(m) == len(e) || len(m) < 2 {
					t.Fatalf("pruning to gfx90a keeps %d of %d entries: nothing to test", len(m), len(e))
				}
				keep = append(keep, m)
			}
			pruned := in + ".pruned"
			if _, err := rewriteFile(t, in, pruned, Options{Keep: targets("gfx90a")}); err != nil {
				t.Fatal(err)
			}
			// Grown: gfx90a's code replaced by 256 KiB, more than
			// .hip_fatbin holds: the bundles move to a new segment.
			big := bytes.Repeat([]byte("not a code object, but larger "), 256<<10/30)
			grown, grownWant := in+".grown", []map[string][]byte{}
			if _, err := rewriteFile(t, in, grown, Options{Replace: &Replacement{Target: targetid.MustParseTarget("gfx90a:xnack+"),
				Data: bytes.NewReader(big), Size: int64(len(big)), Force: true}}); err != nil {
				t.Fatal(err)
			}
			for _, e := range all {
				m := map[string][]byte{}
				for id, b := range e {
					m[id] = b
					if strings.Contains(id, "gfx90a") {
						m[id] = big
					}
				}
				grownWant = append(grownWant, m)
			}
			base := "prog"
			if k.lib {
				base = "libpipe.so"
			}
			for _, s := range pipeSteps() {
				t.Run(s.name, func(t *testing.T) {
					paths := pipeTools(t, s)
					t.Run("original", func(t *testing.T) {
						res := pipeRun(t, paths, s, in, base)
						pipeCheckQuiet(t, s, res, nil)
						if s.load != "" {
							f := filepath.Join(res.dir, strings.ReplaceAll(s.load, "@", base))
							pipeCheckDone(t, tc, s, f)
							pipeCheckLoad(t, tc, argv(f), all, out0)
						}
					})
					for _, v := range []struct {
						name, file string
						want       []map[string][]byte
					}{{"grown", grown, grownWant}, {"pruned", pruned, keep}} {
						t.Run(v.name, func(t *testing.T) {
							var control *pipeResult
							if s.talks {
								c := pipeRun(t, paths, s, in, base)
								control = &c
							}
							res := pipeRun(t, paths, s, v.file, base)
							pipeCheckQuiet(t, s, res, control)
							if s.load != "" {
								f := filepath.Join(res.dir, strings.ReplaceAll(s.load, "@", base))
								pipeCheckDone(t, tc, s, f)
								pipeCheckLoad(t, tc, argv(f), v.want, out0)
							}
						})
					}
				})
			}
		})
	}
}

type pipeKind struct {
	name  string
	lib   bool // run through host.cpp (dlopen + exception)
	build func(t *testing.T, tc *toolchain) string
}

// pipeObject compiles testdata's src.hip with host debug information
// (-Xarch_host -g: the device code is built as TestPruneLinked builds it).
func pipeObject(t *testing.T, tc *toolchain, src string, pic, compress bool) string {
	t.Helper()
	obj, flags := "pipe-"+src+"-nopic", []string{"-fno-pic"}
	if pic {
		obj, flags = "pipe-"+src+"-pic", []string{"-fPIC"}
	}
	if compress {
		obj += "-z"
		flags = append(flags, "--offload-compress")
	}
	return tc.compile(t, src+".hip", obj+".o", append(flags, "-Xarch_host", "-g")...)
}

// pipeKinds are the shared libraries and executables of TestPruneLinked
// (without its RDC libraries).
func pipeKinds() []pipeKind {
	lib := func(out, ld string, z bool, flags ...string) func(*testing.T, *toolchain) string {
		return func(t *testing.T, tc *toolchain) string {
			return tc.link(t, out, append([]string{"-shared", "-fuse-ld=" + ld, pipeObject(t, tc, "k1", true, z), pipeObject(t, tc, "throw", true, z)}, flags...)...)
		}
	}
	rdc := func(out, ld string) func(*testing.T, *toolchain) string {
		return func(t *testing.T, tc *toolchain) string {
			k1 := tc.compile(t, "k1.hip", "pipe-k1-pic-rdc.o", "-fPIC", "-fgpu-rdc", "-Xarch_host", "-g")
			return tc.link(t, out, append([]string{"-shared", "-fuse-ld=" + ld, "--hip-link", "-fgpu-rdc", pipeObject(t, tc, "throw", true, false), k1}, archs...)...)
		}
	}
	exe := func(out, ld string, pie bool) func(*testing.T, *toolchain) string {
		return func(t *testing.T, tc *toolchain) string {
			mode := "-no-pie"
			if pie {
				mode = "-pie"
			}
			return tc.link(t, out, "-fuse-ld="+ld, mode, pipeObject(t, tc, "main", pie, false), pipeObject(t, tc, "k2", pie, false))
		}
	}
	return []pipeKind{
		{"shared lld", true, lib("pipe-lib-lld.so", "lld", false)},
		{"shared GNU ld", true, lib("pipe-lib-bfd.so", "bfd", false)},
		{"shared lld compressed", true, lib("pipe-lib-lld-z.so", "lld", true)},
		{"shared lld RELR", true, lib("pipe-lib-lld-relr.so", "lld", false, "-Wl,-z,pack-relative-relocs")},
		{"shared GNU ld RELR", true, lib("pipe-lib-bfd-relr.so", "bfd", false, "-Wl,-z,pack-relative-relocs")},
		{"shared lld RDC", true, rdc("pipe-lib-lld-rdc.so", "lld")},
		{"shared GNU ld RDC", true, rdc("pipe-lib-bfd-rdc.so", "bfd")},
		{"PIE lld", false, exe("pipe-exe-pie-lld", "lld", true)},
		{"non-PIE lld", false, exe("pipe-exe-nopie-lld", "lld", false)},
		{"PIE GNU ld", false, exe("pipe-exe-pie-bfd", "bfd", true)},
		{"non-PIE GNU ld", false, exe("pipe-exe-nopie-bfd", "bfd", false)},
	}
}

// A pipeStep is a sequence of commands run in a fresh folder holding the
// file under test as base name; "@" in an argument stands for that name.
// The file named by load (after "@" is replaced) is then run, unless load
// is "".
type pipeStep struct {
	name  string
	cmds  [][]string
	load  string
	talks bool // the tool always prints a report: compare with the control's
	// expect: llvm-readelf with expect[0] lists expect[1] for the loaded
	// file (the tool did its job).
	expect []string
}

func pipeSteps() []pipeStep {
	c := func(args ...string) []string { return args }
	debuglink := []string{"-S", ".gnu_debuglink"}
	expect := func(s pipeStep, flag, what string) pipeStep {
		s.expect = []string{flag, what}
		return s
	}
	one := func(name string, args ...string) pipeStep {
		return pipeStep{name: name, cmds: [][]string{args}, load: "@"}
	}
	return []pipeStep{
		{name: "none", load: "@"}, // the file as it is: checks the harness
		one("strip", "strip", "@"),
		one("strip --strip-unneeded", "strip", "--strip-unneeded", "@"),
		one("strip --strip-debug", "strip", "--strip-debug", "@"),
		one("objcopy --strip-unneeded", "objcopy", "--strip-unneeded", "@"),
		{name: "objcopy --only-keep-debug", cmds: [][]string{
			c("objcopy", "--only-keep-debug", "@", "@.dbg"),
		}},
		{name: "objcopy --only-keep-debug + --add-gnu-debuglink", cmds: [][]string{
			c("objcopy", "--only-keep-debug", "@", "@.dbg"),
			c("objcopy", "--strip-debug", "@"),
			c("objcopy", "--add-gnu-debuglink=@.dbg", "@"),
		}, load: "@", expect: debuglink},
		one("objcopy --remove-section=.comment", "objcopy", "--remove-section=.comment", "@"),
		one("objcopy --compress-debug-sections", "objcopy", "--compress-debug-sections", "@"),
		{name: "dh_strip", cmds: [][]string{
			c("objcopy", "--only-keep-debug", "--compress-debug-sections", "@", "@.dbg"),
			c("strip", "--remove-section=.comment", "--remove-section=.note", "--strip-unneeded", "@"),
			c("objcopy", "--add-gnu-debuglink", "@.dbg", "@"),
		}, load: "@", expect: debuglink},
		{name: "eu-strip", cmds: [][]string{
			c("eu-strip", "-f", "@.debug", "-o", "@.out", "@"),
		}, load: "@.out"},
		{name: "eu-elflint --gnu-ld", cmds: [][]string{
			c("eu-elflint", "--gnu-ld", "@"),
		}, talks: true},
		one("llvm-strip", "llvm-strip", "@"),
		one("llvm-objcopy --strip-unneeded", "llvm-objcopy", "--strip-unneeded", "@"),
		expect(one("patchelf --set-rpath", "patchelf", "--set-rpath", "/opt/x:$ORIGIN", "@"), "-d", "[/opt/x:$ORIGIN]"),
		expect(one("patchelf --add-needed", "patchelf", "--add-needed", "libm.so.6", "@"), "-d", "[libm.so.6]"),
		expect(one("patchelf --replace-needed", "patchelf", "--replace-needed", "libamdhip64.so", "libamdhip64.so", "@"), "-d", "[libamdhip64.so]"),
	}
}

// pipeTools finds the step's tools (LLVM's in llvmref.Dir, the others on
// PATH) or skips the test naming the missing one.
func pipeTools(t *testing.T, s pipeStep) map[string]string {
	t.Helper()
	paths := map[string]string{}
	for _, c := range s.cmds {
		name := c[0]
		if _, ok := paths[name]; ok {
			continue
		}
		if strings.HasPrefix(name, "llvm-") {
			p := llvmref.Path(name)
			if p == "" {
				t.Skipf("LLVM 22 tool %s not found in %s", name, llvmref.Dir())
			}
			paths[name] = p
			continue
		}
		p, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("%s not installed (%s)", name, pipePackage[name])
		}
		paths[name] = p
	}
	return paths
}

var pipePackage = map[string]string{
	"strip": "GNU binutils", "objcopy": "GNU binutils",
	"eu-strip": "elfutils", "eu-elflint": "elfutils",
	"patchelf": "patchelf",
}

// pipeResult is what the commands of a step printed, with the folder's
// path replaced by "DIR".
type pipeResult struct {
	dir  string
	runs []pipeOutput
}

type pipeOutput struct {
	argv           []string
	stdout, stderr string
	code           int
}

// pipeRun copies in to a new folder as base and runs the step's commands
// there, failing the test when a command cannot be started or, unless the
// step talks, exits non-zero.
func pipeRun(t *testing.T, paths map[string]string, s pipeStep, in, base string) pipeResult {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, base), data, 0o755); err != nil {
		t.Fatal(err)
	}
	res := pipeResult{dir: dir}
	for _, c := range s.cmds {
		argv := []string{paths[c[0]]}
		for _, a := range c[1:] {
			argv = append(argv, strings.ReplaceAll(a, "@", base))
		}
		r := llvmref.Run(t, dir, nil, nil, argv...)
		norm := func(b []byte) string { return strings.ReplaceAll(string(b), dir, "DIR") }
		o := pipeOutput{argv: append([]string{c[0]}, argv[1:]...), stdout: norm(r.Stdout), stderr: norm(r.Stderr), code: r.Code}
		res.runs = append(res.runs, o)
		if !s.talks && o.code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", strings.Join(o.argv, " "), o.code, o.stdout, o.stderr)
		}
	}
	return res
}

// pipeCheckQuiet: a step that does not talk printed nothing on stderr; one
// that talks printed no line (of stdout or stderr) its control did not, and
// exited as the control did.
func pipeCheckQuiet(t *testing.T, s pipeStep, res pipeResult, control *pipeResult) {
	t.Helper()
	for i, o := range res.runs {
		cmd := strings.Join(o.argv, " ")
		if !s.talks {
			if o.stderr != "" {
				t.Errorf("%s warns:\n%s", cmd, o.stderr)
			}
			continue
		}
		if control == nil {
			t.Logf("%s: exit %d\n%s%s", cmd, o.code, o.stdout, o.stderr)
			continue
		}
		c := control.runs[i]
		if o.code != c.code {
			t.Errorf("%s: exit %d, the original's %d", cmd, o.code, c.code)
		}
		old := strings.Split(c.stdout+c.stderr, "\n")
		var added []string
		for _, l := range strings.Split(o.stdout+o.stderr, "\n") {
			if l != "" && !slices.Contains(old, l) {
				added = append(added, l)
			}
		}
		if len(added) > 0 {
			t.Errorf("%s says of the pruned file, not of the original:\n%s", cmd, strings.Join(added, "\n"))
		}
	}
}

// pipeCheckLoad runs argv with the recording runtime: it must register
// exactly want (ID → code object, per fat binary, in order) and print out.
func pipeCheckLoad(t *testing.T, tc *toolchain, argv []string, want []map[string][]byte, out string) {
	t.Helper()
	regs, got := tc.record(t, argv...)
	if got != out {
		t.Errorf("output %q, the original's %q", got, out)
	}
	if len(regs) != len(want) {
		t.Fatalf("%d fat binaries registered, want %d", len(regs), len(want))
	}
	for i := range regs {
		e := entries(t, regs[i])
		var ids []string
		for id := range e {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			w, ok := want[i][id]
			if !ok {
				t.Errorf("fat binary %d: %s registered, not expected", i, id)
			} else if !bytes.Equal(e[id], w) {
				t.Errorf("fat binary %d: %s differs (%d bytes, want %d)", i, id, len(e[id]), len(w))
			}
		}
		for id := range want[i] {
			if _, ok := e[id]; !ok {
				t.Errorf("fat binary %d: %s missing", i, id)
			}
		}
	}
}

// pipeCheckDone: llvm-readelf finds what the step was to add.
func pipeCheckDone(t *testing.T, tc *toolchain, s pipeStep, file string) {
	t.Helper()
	if s.expect == nil || tc.readelf == "" {
		return
	}
	res := llvmref.Run(t, filepath.Dir(file), nil, nil, tc.readelf, s.expect[0], file)
	if res.Code != 0 || !bytes.Contains(res.Stdout, []byte(s.expect[1])) {
		t.Errorf("llvm-readelf %s %s: exit %d, does not list %s\n%s", s.expect[0], filepath.Base(file), res.Code, s.expect[1], res.Stderr)
	}
}
