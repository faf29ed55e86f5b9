package prune

import (
	"bytes"
	"errors"
	"github.com/goffload/goffload/targetid"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// These tests build HIP programs with clang 22 (no ROCm: -nogpulib), link
// them with lld and GNU ld against a recording stand-in for the HIP runtime
// (testdata/src/record.c), prune or replace their device code, and run
// them: the runtime must be handed exactly the kept code objects, byte for
// byte, and the host code must still run, exceptions included.

var archs = []string{"--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+", "--offload-arch=gfx942:sramecc+:xnack-"}

type toolchain struct {
	clang, readelf, readobj, dir string

	mu       sync.Mutex
	compiled map[string]string // object in dir → the arguments that made it
}

var (
	buildOnce sync.Once
	built     *toolchain
	buildErr  string
)

func tools(t *testing.T) *toolchain {
	t.Helper()
	clang := llvmref.Need(t, "clang")
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no system C compiler (cc) to build the recording HIP runtime")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "goffload-prune-test-")
		if err != nil {
			buildErr = err.Error()
			return
		}
		built = &toolchain{clang: clang, readelf: llvmref.Path("llvm-readelf"), readobj: llvmref.Path("llvm-readobj"), dir: dir}
		src, _ := filepath.Abs("testdata/src")
		out, err := exec.Command("cc", "-shared", "-fPIC", "-O1", filepath.Join(src, "record.c"), "-o", filepath.Join(dir, "libamdhip64.so")).CombinedOutput()
		if err != nil {
			buildErr = "building the recording runtime: " + string(out)
		}
	})
	if buildErr != "" {
		t.Fatal(buildErr)
	}
	return built
}

func (tc *toolchain) run(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = tc.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// srcPath finds a source: this package's testdata/src (the recording
// runtime, the throwing library, the dlopen host), else the HIP sources
// of testdata/inspect/src, which hip.h is found beside.
func srcPath(name string) string {
	if _, err := os.Stat(filepath.Join("testdata/src", name)); err == nil {
		abs, _ := filepath.Abs(filepath.Join("testdata/src", name))
		return abs
	}
	abs, _ := filepath.Abs(filepath.Join(realDir, "src", name))
	return abs
}

// includeHIP is the flag that finds hip.h for every source.
func includeHIP() string {
	abs, _ := filepath.Abs(filepath.Join(realDir, "src"))
	return "-I" + abs
}

// compile compiles a HIP source (see srcPath) to an object in tc.dir, once
// per test process: the tests share the objects, as they share tc.dir.
func (tc *toolchain) compile(t *testing.T, src, obj string, extra ...string) string {
	t.Helper()
	args := append(append([]string{"-x", "hip", "-nogpulib", "-nogpuinc", includeHIP(), "-O1", "-cuid=" + obj, "-c", srcPath(src), "-o", obj}, archs...), extra...)
	return tc.once(t, obj, tc.clang, args...)
}

// once runs name with args to make out in tc.dir, unless it made out with
// the same arguments before, and returns out's path.
func (tc *toolchain) once(t *testing.T, out, name string, args ...string) string {
	t.Helper()
	key := name + "\x00" + strings.Join(args, "\x00")
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.compiled == nil {
		tc.compiled = map[string]string{}
	}
	if prev, ok := tc.compiled[out]; ok {
		if prev != key {
			t.Fatalf("%s was made by another command line", out)
		}
		return filepath.Join(tc.dir, out)
	}
	tc.run(t, name, args...)
	tc.compiled[out] = key
	return filepath.Join(tc.dir, out)
}

// host builds the program that dlopens a library and calls into it
// (testdata/src/host.cpp), once per test process.
func (tc *toolchain) host(t *testing.T) string {
	t.Helper()
	hostSrc, _ := filepath.Abs("testdata/src/host.cpp")
	return tc.once(t, "host", tc.clang+"++", hostSrc, "-o", "host", "-ldl")
}

func (tc *toolchain) link(t *testing.T, out string, args ...string) string {
	t.Helper()
	if slices.Contains(args, "-fuse-ld=bfd") {
		if _, err := exec.LookPath("ld.bfd"); err != nil {
			t.Skip("GNU ld (ld.bfd) not installed")
		}
	}
	tc.run(t, tc.clang, append(append([]string{"-o", out}, args...), "-L.", "-lamdhip64", "-Wl,-rpath,"+tc.dir)...)
	return filepath.Join(tc.dir, out)
}

// record runs argv with the recording runtime and returns what each
// __hipRegisterFatBinary was handed, in order, and the program's stdout.
func (tc *toolchain) record(t *testing.T, argv ...string) ([][]byte, string) {
	t.Helper()
	rec := t.TempDir()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "HIP_RECORD_DIR="+rec, "LD_LIBRARY_PATH="+tc.dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\n%s%s", argv, err, stdout.String(), stderr.String())
	}
	var regs [][]byte
	for i := 0; ; i++ {
		b, err := os.ReadFile(filepath.Join(rec, strings.Repeat("", 0)+itoa(i)+".bin"))
		if err != nil {
			break
		}
		if bytes.HasPrefix(b, []byte("BAD")) {
			t.Fatalf("%v: the runtime was handed %s", argv, b)
		}
		regs = append(regs, b)
	}
	return regs, stdout.String()
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// entries returns "ID=bytes" for every entry of a registered bundle.
func entries(t *testing.T, reg []byte) map[string][]byte {
	t.Helper()
	l := inspect.Read(bytes.NewReader(reg), int64(len(reg)), "registered", nil)
	if len(l.Errors) > 0 {
		t.Fatalf("registered bundle: %v", l.Errors)
	}
	m := map[string][]byte{}
	for _, o := range l.Objects {
		r, err := o.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		m[o.ID] = b
	}
	return m
}

func rewriteFile(t *testing.T, in, out string, opts Options) (*Report, error) {
	t.Helper()
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	o, err := os.OpenFile(out, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	return Rewrite(o, f, fi.Size(), in, opts)
}

// checkLLVM: llvm-readelf and llvm-readobj read the file without warnings,
// and llvm-readobj --offloading lists exactly ids.
func (tc *toolchain) checkLLVM(t *testing.T, file string, wantIDs []string) {
	t.Helper()
	if tc.readelf == "" || tc.readobj == "" {
		return
	}
	res := llvmref.Run(t, tc.dir, nil, nil, tc.readelf, "-lS", "--dyn-relocations", file)
	if res.Code != 0 || len(res.Stderr) > 0 {
		t.Errorf("llvm-readelf %s: exit %d: %s", file, res.Code, res.Stderr)
	}
	res = llvmref.Run(t, tc.dir, nil, nil, tc.readobj, "--offloading", file)
	if res.Code != 0 || len(res.Stderr) > 0 {
		t.Errorf("llvm-readobj --offloading %s: exit %d: %s", file, res.Code, res.Stderr)
	}
	var got []string
	for _, l := range strings.Split(string(res.Stdout), "\n") {
		if id, _, ok := strings.Cut(l, "\tfile://"); ok {
			got = append(got, id)
		}
	}
	if wantIDs != nil && !slices.Equal(got, wantIDs) {
		t.Errorf("llvm-readobj --offloading %s lists %q, want %q", file, got, wantIDs)
	}
}

func kept(id string) bool {
	return strings.HasPrefix(id, "host-") || strings.Contains(id, "gfx90a")
}

// TestPruneLinked prunes shared libraries and executables linked by lld
// and GNU ld, PIE and not, plain and compressed, and runs them.
func TestPruneLinked(t *testing.T) {
	tc := tools(t)
	pic := func(name string, extra ...string) string {
		return tc.compile(t, name+".hip", name+"-pic"+strings.Join(extra, "")+".o", append([]string{"-fPIC"}, extra...)...)
	}
	nopic := func(name string) string { return tc.compile(t, name+".hip", name+"-nopic.o", "-fno-pic") }
	for _, c := range []struct {
		name       string
		build      func() string
		lib        bool // run through host.cpp (dlopen + exception)
		compressed bool
	}{
		{"shared lld", func() string {
			return tc.link(t, "lib-lld.so", "-shared", "-fuse-ld=lld", pic("k1"), pic("throw"))
		}, true, false},
		{"shared GNU ld", func() string {
			return tc.link(t, "lib-bfd.so", "-shared", "-fuse-ld=bfd", pic("k1"), pic("throw"))
		}, true, false},
		// Packed relative relocations (DT_RELR): the wrappers hold
		// their bundle's address in place, .relr.dyn lists them.
		{"shared lld RELR", func() string {
			return tc.link(t, "lib-lld-relr.so", "-shared", "-fuse-ld=lld", "-Wl,-z,pack-relative-relocs", pic("k1"), pic("throw"))
		}, true, false},
		{"shared GNU ld RELR", func() string {
			return tc.link(t, "lib-bfd-relr.so", "-shared", "-fuse-ld=bfd", "-Wl,-z,pack-relative-relocs", pic("k1"), pic("throw"))
		}, true, false},
		{"PIE lld RELR", func() string {
			return tc.link(t, "exe-pie-lld-relr", "-fuse-ld=lld", "-pie", "-Wl,-z,pack-relative-relocs", pic("main"), pic("k2"))
		}, false, false},
		{"shared lld compressed", func() string {
			return tc.link(t, "lib-lld-z.so", "-shared", "-fuse-ld=lld", pic("k1", "--offload-compress"), pic("throw", "--offload-compress"))
		}, true, true},
		// -fgpu-rdc: the wrappers of the device-linked code point at it
		// through R_X86_64_64 relocations against the exported
		// __hip_fatbin_<id> symbols, after another object's bundle.
		{"shared lld RDC", func() string {
			return tc.link(t, "lib-lld-rdc.so", append([]string{"-shared", "-fuse-ld=lld", "--hip-link", "-fgpu-rdc", pic("throw"), pic("k1", "-fgpu-rdc")}, archs...)...)
		}, true, false},
		{"shared GNU ld RDC", func() string {
			return tc.link(t, "lib-bfd-rdc.so", append([]string{"-shared", "-fuse-ld=bfd", "--hip-link", "-fgpu-rdc", pic("throw"), pic("k1", "-fgpu-rdc")}, archs...)...)
		}, true, false},
		{"PIE lld", func() string {
			return tc.link(t, "exe-pie-lld", "-fuse-ld=lld", "-pie", pic("main"), pic("k2"))
		}, false, false},
		{"non-PIE lld", func() string {
			return tc.link(t, "exe-nopie-lld", "-fuse-ld=lld", "-no-pie", nopic("main"), nopic("k2"))
		}, false, false},
		{"PIE GNU ld", func() string {
			return tc.link(t, "exe-pie-bfd", "-fuse-ld=bfd", "-pie", pic("main"), pic("k2"))
		}, false, false},
		{"non-PIE GNU ld", func() string {
			return tc.link(t, "exe-nopie-bfd", "-fuse-ld=bfd", "-no-pie", nopic("main"), nopic("k2"))
		}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := c.build()
			argv := func(f string) []string {
				if c.lib {
					return []string{filepath.Join(tc.dir, "host"), f}
				}
				return []string{f}
			}
			if c.lib {
				tc.host(t)
			}
			before, out0 := tc.record(t, argv(in)...)
			if len(before) != 2 {
				t.Fatalf("the original registers %d fat binaries, want 2", len(before))
			}
			pruned := in + ".pruned"
			rep, err := rewriteFile(t, in, pruned, Options{Keep: targets("gfx90a")})
			if err != nil {
				t.Fatal(err)
			}
			after, out1 := tc.record(t, argv(pruned)...)
			if out1 != out0 || c.lib && !strings.Contains(out1, "caught: thrown across the library") {
				t.Errorf("host output changed: %q, was %q", out1, out0)
			}
			if len(after) != len(before) {
				t.Fatalf("the pruned file registers %d fat binaries, want %d", len(after), len(before))
			}
			var wantIDs []string
			for i := range before {
				b, a := entries(t, before[i]), entries(t, after[i])
				var want []string
				for id := range b {
					if kept(id) {
						want = append(want, id)
					}
				}
				for id, data := range a {
					if !kept(id) {
						t.Errorf("bundle %d: %s registered after pruning", i, id)
					} else if !bytes.Equal(data, b[id]) {
						t.Errorf("bundle %d: %s differs from the original (%d vs %d bytes)", i, id, len(data), len(b[id]))
					}
				}
				if len(a) != len(want) {
					t.Errorf("bundle %d: %d entries registered, want %d", i, len(a), len(want))
				}
				l := inspect.Read(bytes.NewReader(after[i]), int64(len(after[i])), "", nil)
				for _, o := range l.Objects {
					wantIDs = append(wantIDs, o.ID)
				}
			}
			if c.compressed {
				wantIDs = nil // llvm-readobj lists CCOB entries too, but in its own order
			}
			tc.checkLLVM(t, pruned, wantIDs)
			fi0, _ := os.Stat(in)
			fi1, _ := os.Stat(pruned)
			if !c.compressed && fi1.Size() >= fi0.Size() {
				t.Errorf("pruned file is %d bytes, original %d", fi1.Size(), fi0.Size())
			}
			if rep.SizeAft != fi1.Size() {
				t.Errorf("report says %d bytes, file has %d", rep.SizeAft, fi1.Size())
			}
			l, err := inspect.ReadFile(pruned, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if len(l.Errors) > 0 {
				t.Errorf("listing the pruned file: %v", l.Errors)
			}
			for _, o := range l.Devices() {
				if !kept(o.ID) {
					t.Errorf("listed after pruning: %s", o.Where())
				}
			}
			for _, w := range l.Wrappers {
				if w.Bundle < 0 {
					t.Errorf("wrapper does not point at a bundle: %+v", w)
				}
			}
			l0, err := inspect.ReadFile(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer l0.Close()
			for _, w := range l0.Wrappers {
				if w.Bundle < 0 {
					t.Errorf("original: wrapper does not point at a bundle: %+v", w)
				}
			}

			// Replace: the gfx90a code object of every bundle by gfx906's
			// of the first bundle (another size).
			var repl []byte
			for id, data := range entries(t, before[0]) {
				if strings.Contains(id, "gfx906") {
					repl = data
				}
			}
			if c.compressed {
				// Compressed bundles have no slack: a smaller object.
				repl = repl[:1000]
			}
			replaced := in + ".replaced"
			gfx90a := targetid.MustParseTarget("gfx90a:xnack+")
			_, err = rewriteFile(t, in, replaced, Options{Replace: &Replacement{Target: gfx90a, Data: bytes.NewReader(repl), Size: int64(len(repl))}})
			if !errors.Is(err, ErrMismatch) {
				t.Errorf("gfx906 code in gfx90a's place: %v, want ErrMismatch", err)
			}
			_, err = rewriteFile(t, in, replaced, Options{Replace: &Replacement{Target: gfx90a, Data: bytes.NewReader(repl), Size: int64(len(repl)), Force: true}})
			if err != nil {
				t.Fatal(err)
			}
			regs, out2 := tc.record(t, argv(replaced)...)
			if out2 != out0 || len(regs) != len(before) {
				t.Fatalf("replaced: output %q, %d registrations", out2, len(regs))
			}
			for i := range regs {
				a, b := entries(t, regs[i]), entries(t, before[i])
				for id, data := range b {
					want := data
					if strings.Contains(id, "gfx90a") {
						want = repl
					}
					if !bytes.Equal(a[id], want) {
						t.Errorf("replaced: bundle %d: %s is %d bytes, want %d", i, id, len(a[id]), len(want))
					}
				}
			}
			tc.checkLLVM(t, replaced, nil)

			// A code object larger than .hip_fatbin: the bundles move to
			// a new segment at the end, and the program still loads
			// them.
			huge := make([]byte, 1<<20)
			for i, x := 0, uint32(1); i < len(huge); i++ {
				x = x*1664525 + 1013904223
				huge[i] = byte(x >> 24) // incompressible
			}
			grown := in + ".grown"
			if _, err = rewriteFile(t, in, grown, Options{Replace: &Replacement{Target: gfx90a, Data: bytes.NewReader(huge), Size: int64(len(huge)), Force: true}}); err != nil {
				t.Fatalf("a 1 MiB replacement: %v", err)
			}
			regs, out3 := tc.record(t, argv(grown)...)
			if out3 != out0 || len(regs) != len(before) {
				t.Fatalf("grown: output %q, %d registrations", out3, len(regs))
			}
			for i := range regs {
				a, b := entries(t, regs[i]), entries(t, before[i])
				for id, data := range b {
					want := data
					if strings.Contains(id, "gfx90a") {
						want = huge
					}
					if !bytes.Equal(a[id], want) {
						t.Errorf("grown: bundle %d: %s is %d bytes, want %d", i, id, len(a[id]), len(want))
					}
				}
			}
			tc.checkLLVM(t, grown, nil)
		})
	}
}

// Layouts that cannot be rewritten safely are refused, and nothing is
// produced but the error.
func TestPruneRefused(t *testing.T) {
	tc := tools(t)
	objcopy := llvmref.Need(t, "llvm-objcopy")
	k1 := tc.compile(t, "k1.hip", "k1-pic.o", "-fPIC")
	th := tc.compile(t, "throw.hip", "throw-pic.o", "-fPIC")
	base := tc.link(t, "lib-base.so", "-shared", "-fuse-ld=lld", k1, th)
	for _, c := range []struct {
		name string
		make func() string
		want string
	}{
		{"device code also in bundle sections", func() string {
			rdc := tc.compile(t, "k1.hip", "k1-pic-rdc.o", "-fPIC", "-fgpu-rdc")
			tc.run(t, tc.clang, "-fuse-ld=lld", "-nostdlib", "-r", "-o", "mixed.o", rdc, th)
			return filepath.Join(tc.dir, "mixed.o")
		}, "both in .hip_fatbin and in __CLANG_OFFLOAD_BUNDLE__"},
		{"stripped section headers", func() string {
			out := filepath.Join(tc.dir, "lib-nosh.so")
			tc.run(t, objcopy, "--strip-sections", base, out)
			return out
		}, "no section headers"},
		{"no .hipFatBinSegment", func() string {
			out := filepath.Join(tc.dir, "lib-noseg.so")
			tc.run(t, objcopy, "--rename-section=.hipFatBinSegment=.hipOther", base, out)
			return out
		}, "no (single) .hipFatBinSegment"},
		{"wrapper pointing outside .hip_fatbin", func() string {
			data, _ := os.ReadFile(base)
			f, err := parseELF(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			// Point the first wrapper's relocation somewhere else.
			_, seg := f.section(".hipFatBinSegment")
			_, rela := f.section(".rela.dyn")
			for j := rela.off; j+24 <= rela.off+rela.size; j += 24 {
				if le.Uint64(data[j:]) == seg.addr+8 {
					le.PutUint64(data[j+16:], 0x40)
				}
			}
			out := filepath.Join(tc.dir, "lib-outside.so")
			os.WriteFile(out, data, 0o755)
			return out
		}, "does not point at a bundle start"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := c.make()
			_, err := rewriteFile(t, in, filepath.Join(t.TempDir(), "out"), Options{Keep: targets("gfx90a")})
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want a refusal about %q", err, c.want)
			}
		})
	}
}

// TestPruneEmitRelocs: the static relocations that --emit-relocs keeps in a
// linked file (against .hip_fatbin's section symbol, the addend an offset
// into the section) follow the bundles they point at.
func TestPruneEmitRelocs(t *testing.T) {
	tc := tools(t)
	k1 := tc.compile(t, "k1.hip", "k1-pic.o", "-fPIC")
	th := tc.compile(t, "throw.hip", "throw-pic.o", "-fPIC")
	tc.host(t)
	for _, ld := range []string{"lld", "bfd"} {
		t.Run(ld, func(t *testing.T) {
			in := tc.link(t, "lib-emit-"+ld+".so", "-shared", "-fuse-ld="+ld, "-Wl,--emit-relocs", k1, th)
			out := in + ".pruned"
			if _, err := rewriteFile(t, in, out, Options{Keep: targets("gfx90a")}); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parseELF(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			fatIdx, fat := f.section(".hip_fatbin")
			n := 0
			for _, s := range f.shdrs {
				if s.typ != shtRela || s.flags&2 != 0 {
					continue
				}
				syms := f.shdrs[s.link]
				for j := s.off; j+24 <= s.off+s.size; j += 24 {
					e := data[syms.off+(le.Uint64(data[j+8:])>>32)*24:]
					if int(le.Uint16(e[6:])) != fatIdx || e[4]&0xf != 3 {
						continue
					}
					n++
					a := le.Uint64(data[j+16:])
					if a >= fat.size || !bytes.HasPrefix(data[fat.off+a:], []byte("__CLANG_OFFLOAD_BUNDLE__")) {
						t.Errorf("%s: relocation at %#x points at .hip_fatbin%+d, not at a bundle", s.name, le.Uint64(data[j:]), a)
					}
				}
			}
			if n != 2 {
				t.Errorf("%d static relocations against .hip_fatbin, want 2", n)
			}
			regs, _ := tc.record(t, filepath.Join(tc.dir, "host"), out)
			if len(regs) != 2 {
				t.Errorf("%d registrations, want 2", len(regs))
			}
		})
	}
}

// A pruned new-driver object (.llvm.offloading) still links: clang's
// linker wrapper finds its kept image and links it with the other objects'.
func TestPruneNewDriverLinks(t *testing.T) {
	tc := tools(t)
	nd := []string{"--offload-new-driver", "-fgpu-rdc", "-fPIC"}
	one := []string{"--offload-arch=gfx90a:xnack+"}
	compile := func(src, obj string) string {
		tc.run(t, tc.clang, append(append([]string{"-x", "hip", "-nogpulib", "-nogpuinc", includeHIP(), "-cuid=" + obj, "-c", srcPath(src), "-o", obj}, nd...), one...)...)
		return filepath.Join(tc.dir, obj)
	}
	main, k2 := compile("main.hip", "nd-main.o"), compile("k2.hip", "nd-k2.o")
	in, _ := filepath.Abs(filepath.Join(realDir, "newdriver.o")) // k1.hip for three GPUs
	pruned := filepath.Join(tc.dir, "nd-k1.pruned.o")
	if _, err := rewriteFile(t, in, pruned, Options{Keep: targets("gfx90a:xnack+")}); err != nil {
		t.Fatal(err)
	}
	exe := tc.link(t, "nd-exe", append(append([]string{"--hip-link", "-fuse-ld=lld"}, append(nd, one...)...), main, pruned, k2)...)
	regs, _ := tc.record(t, exe)
	if len(regs) != 1 {
		t.Fatalf("%d registrations", len(regs))
	}
	l := inspect.Read(bytes.NewReader(regs[0]), int64(len(regs[0])), "registered", nil)
	devs := l.Devices()
	if len(devs) != 1 || devs[0].TargetID != "gfx90a:xnack+" || devs[0].Header().Kernels != 3 {
		t.Fatalf("registered %q", idsOf(l))
	}
}

// AArch64 (R_AARCH64_RELATIVE wrappers), checked without running: no
// AArch64 machine here. 4 KiB pages, so that the segment splits.
func TestPruneAArch64(t *testing.T) {
	tc := tools(t)
	lld := llvmref.Need(t, "ld.lld")
	var objs []string
	for _, src := range []string{"k1.hip", "k2.hip"} {
		obj := "a64-" + src + ".o"
		tc.run(t, tc.clang, append([]string{"--target=aarch64-linux-gnu", "-x", "hip", "-nogpulib", "-nogpuinc", includeHIP(), "-fPIC", "-cuid=" + obj, "-c", srcPath(src), "-o", obj}, archs...)...)
		objs = append(objs, obj)
	}
	tc.run(t, lld, append([]string{"-shared", "-z", "max-page-size=4096", "-o", "liba64.so"}, objs...)...)
	in := filepath.Join(tc.dir, "liba64.so")
	out := in + ".pruned"
	if _, err := rewriteFile(t, in, out, Options{Keep: targets("gfx90a")}); err != nil {
		t.Fatal(err)
	}
	tc.checkLLVM(t, out, nil)
	l0, _ := inspect.ReadFile(in, nil)
	defer l0.Close()
	l1, _ := inspect.ReadFile(out, nil)
	defer l1.Close()
	fi0, _ := os.Stat(in)
	fi1, _ := os.Stat(out)
	if len(l1.Errors) > 0 || len(l1.Wrappers) != 2 || fi1.Size() >= fi0.Size() {
		t.Fatalf("errors %v, %d wrappers, %d -> %d bytes", l1.Errors, len(l1.Wrappers), fi0.Size(), fi1.Size())
	}
	for _, w := range l1.Wrappers {
		if w.Bundle < 0 {
			t.Errorf("wrapper %+v", w)
		}
	}
	want := objectBytes(t, l0)
	for id, objs := range objectBytes(t, l1) {
		if !kept(id) || len(objs) != len(want[id]) {
			t.Errorf("%s: %d after pruning", id, len(objs))
			continue
		}
		for i := range objs {
			if !bytes.Equal(objs[i], want[id][i]) {
				t.Errorf("%s #%d differs", id, i)
			}
		}
	}
}
