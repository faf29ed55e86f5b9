package bundler_test

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/test/difftest"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// oldIDs are bundle IDs with a 3-field triple, as older releases wrote them
// (ROCm 5's fat binaries name the host "host-x86_64-unknown-linux"), each
// with the ID LLVM 22 writes for the same triple today.
var oldIDs = [][2]string{
	{"host-x86_64-unknown-linux", "host-x86_64-unknown-linux-unknown-"},
	{"openmp-nvptx64-nvidia-cuda", "openmp-nvptx64-nvidia-cuda-unknown-"},
}

// oldIDFiles builds the same set of bundles twice, with the given host and
// openmp IDs: a binary bundle laid out as ROCm 5's fat binaries (an empty
// host entry first, 4096-byte alignment), compressed and not; an ELF fat
// object whose host section comes first, compressed and not; a text
// bundle; and an archive of the uncompressed ones.
func oldIDFiles(t *testing.T, hostID, ompID string) map[string][]byte {
	t.Helper()
	clang := llvmref.Need(t, "clang")
	objcopy := llvmref.Need(t, "llvm-objcopy")
	llvmar := llvmref.Need(t, "llvm-ar")
	run := func(bin string, in map[string][]byte, args ...string) map[string][]byte {
		t.Helper()
		o := difftest.Run(t, bin, difftest.Case{Files: in, Args: args})
		if o.Code != 0 {
			t.Fatalf("%s %v: %s", filepath.Base(bin), args, o.Stderr)
		}
		return o.Files
	}
	files := map[string][]byte{}
	var bin bytes.Buffer
	if err := binfmt.Write(&bin, []binfmt.Source{
		{ID: hostID, R: strings.NewReader(""), Size: 0},
		{ID: "hipv4-amdgcn-amd-amdhsa--gfx906", R: strings.NewReader("DEV906"), Size: 6},
		{ID: "hipv4-amdgcn-amd-amdhsa--gfx1100", R: strings.NewReader("DEV1100"), Size: 7},
		{ID: ompID, R: strings.NewReader("OMPNV"), Size: 5},
	}, 4096); err != nil {
		t.Fatal(err)
	}
	files["bin.bc"] = bin.Bytes()
	host := run(clang, map[string][]byte{"h.c": []byte("int hf(int x) { return x + 1; }\nint hv = 3;\n")}, "-c", "-O1", "h.c", "-o", "h.o")["h.o"]
	const sec = "__CLANG_OFFLOAD_BUNDLE__"
	add := func(id string) []string {
		return []string{"--add-section=" + sec + id + "=" + id, "--set-section-flags=" + sec + id + "=readonly,exclude"}
	}
	in := map[string][]byte{"h.o": host, hostID: {0}, "hipv4-amdgcn-amd-amdhsa--gfx906": []byte("DEV906")}
	args := append(append(add(hostID), add("hipv4-amdgcn-amd-amdhsa--gfx906")...), "--", "h.o", "fat.o")
	files["fat.o"] = run(objcopy, in, args...)["fat.o"]
	for _, n := range []string{"bin.bc", "fat.o"} {
		var c bytes.Buffer
		if _, err := compress.Compress(&c, files[n], compress.Options{}); err != nil {
			t.Fatal(err)
		}
		files["c"+n] = c.Bytes()
	}
	text := ""
	for _, e := range [][2]string{{hostID, "host text\n"}, {"hip-amdgcn-amd-amdhsa--gfx906", "dev text\n"}} {
		text += "\n// __CLANG_OFFLOAD_BUNDLE____START__ " + e[0] + "\n" + e[1] + "\n// __CLANG_OFFLOAD_BUNDLE____END__ " + e[0] + "\n"
	}
	files["t.i"] = []byte(text)
	files["lib.a"] = run(llvmar, maps.Clone(files), "rcs", "lib.a", "fat.o", "bin.bc")["lib.a"]
	return files
}

// outputsOf keeps the files a run wrote (not its inputs), with archives
// replaced by a listing of their members (names with the IDs of std
// replaced by the old ones, sizes and contents).
func outputsOf(t *testing.T, o difftest.Outcome, inputs map[string][]byte, std bool) difftest.Outcome {
	t.Helper()
	files := map[string][]byte{}
	for name, data := range o.Files {
		if _, ok := inputs[name]; ok {
			continue
		}
		if !ar.IsArchive(data) {
			files[name] = data
			continue
		}
		rd, err := ar.NewReader(bytes.NewReader(data), int64(len(data)), name)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := rd.Members()
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, m := range ms {
			sr, err := m.Open()
			if err != nil {
				t.Fatal(err)
			}
			content := make([]byte, sr.Size())
			sr.ReadAt(content, 0)
			n := m.Name
			if std {
				for _, id := range oldIDs {
					n = strings.ReplaceAll(n, id[1], id[0])
				}
			}
			fmt.Fprintf(&b, "%s %d %x\n", n, len(content), content)
		}
		rd.Close()
		files[name] = []byte(b.String())
	}
	o.Files = files
	return o
}

var objcopyRE = regexp.MustCompile(`(?m)^"[^"]*llvm-objcopy"`)

// TestDiffOldTripleIDs: IDs with a 3-field triple. LLVM 22 lists them, but
// fails to unbundle ("invalid bundle id read from the bundle", "Invalid
// bundle id read from code object") as soon as it meets one before its work
// is done. Where LLVM succeeds we must do exactly what it does; where it
// fails we must do what it does with a twin input holding the standard
// form of the IDs (the form LLVM 22 writes for such a triple).
func TestDiffOldTripleIDs(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	old := oldIDFiles(t, oldIDs[0][0], oldIDs[1][0])
	twin := oldIDFiles(t, oldIDs[0][1], oldIDs[1][1])
	const (
		k906  = "hip-amdgcn-amd-amdhsa--gfx906"
		k1100 = "hip-amdgcn-amd-amdhsa--gfx1100"
		omp   = "openmp-nvptx64-nvidia-cuda-"
		hostU = "host-x86_64-unknown-linux-" // standardised: host-x86_64-unknown-linux-unknown-
	)
	var argvs [][]string
	for _, in := range []string{"bin.bc", "cbin.bc"} {
		for _, typ := range []string{"-type=bc", "-type=o"} {
			for _, targets := range []string{
				k906, k1100, hostU, host, omp,
				hostU + "," + k906 + "," + k1100,
				"hipv4-amdgcn-amd-amdhsa-unknown-gfx1100,openmp-nvptx64-nvidia-cuda-unknown",
			} {
				argvs = append(argvs, []string{typ, "-unbundle", "-input=" + in, "-targets=" + targets})
			}
			argvs = append(argvs, []string{typ, "-list", "-input=" + in})
		}
	}
	for _, in := range []string{"fat.o", "cfat.o"} {
		argvs = append(argvs, []string{"-type=o", "-list", "-input=" + in})
		for _, targets := range []string{k906, hostU, host, hostU + "," + k906, "host-x86_64--linux-," + k906} {
			argvs = append(argvs, []string{"-type=o", "-unbundle", "-input=" + in, "-targets=" + targets})
		}
	}
	argvs = append(argvs,
		[]string{"-type=o", "-unbundle", "-input=fat.o", "-targets=" + host + "," + k906, "-allow-missing-bundles"},
		[]string{"-type=o", "-unbundle", "-input=fat.o", "-targets=" + hostU + "," + k906, "-###"},
		[]string{"-type=i", "-list", "-input=t.i"},
		[]string{"-type=i", "-unbundle", "-input=t.i", "-targets=" + k906},
		[]string{"-type=i", "-unbundle", "-input=t.i", "-targets=" + hostU + "," + k906},
		[]string{"-type=a", "-unbundle", "-input=lib.a", "-targets=" + k906},
		[]string{"-type=a", "-unbundle", "-input=lib.a", "-targets=" + hostU + "," + k906 + ",hip-amdgcn-amd-amdhsa--gfx1100:xnack+," + omp},
		[]string{"-type=a", "-unbundle", "-input=lib.a", "-targets=" + hostU + "," + k906, "-check-input-archive"},
		[]string{"-type=a", "-unbundle", "-input=lib.a", "-targets=" + host, "-allow-missing-bundles"},
		[]string{"-type=a", "-unbundle", "-input=lib.a", "-targets=" + host},
		// The command line still refuses a 3-field triple, as LLVM does.
		[]string{"-type=bc", "-unbundle", "-input=bin.bc", "-targets=host-x86_64-unknown-linux"},
	)
	for _, argv := range argvs {
		if slices.Contains(argv, "-unbundle") {
			for i := range strings.Split(strings.TrimPrefix(argv[3], "-targets="), ",") {
				argv = append(argv, fmt.Sprintf("-output=o%d", i))
			}
		}
		t.Run(strings.Join(argv, " "), func(t *testing.T) {
			t.Parallel()
			c := difftest.Case{Files: old, Args: argv, Argv0: "clang-offload-bundler"}
			run := func(bin string) difftest.Outcome {
				o := difftest.Run(t, bin, c)
				o.Stderr = objcopyRE.ReplaceAllString(tmpRE.ReplaceAllString(o.Stderr, "TMP"), `"OBJCOPY"`)
				return o
			}
			want, got := run(ref), run(ours)
			if !strings.Contains(want.Stderr, "nvalid bundle id read from ") {
				if d := difftest.Diff(want, got); d != "" {
					t.Errorf("LLVM 22 does not stop at the ID here, so we must do what it does:\n%s", d)
				}
				return
			}
			c.Files = twin
			want = outputsOf(t, run(ref), twin, true)
			if d := difftest.Diff(want, outputsOf(t, got, old, false)); d != "" {
				t.Errorf("LLVM 22 fails (%s); we must do what it does with the standard IDs:\n%s", strings.TrimSpace(want.Stderr), d)
			}
		})
	}
}
