package targetid

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
)

// archCandidates are architecture pieces probed for validity.
func archCandidates() []string {
	c := []string{"", "unknown", "none", "X86_64", "x86_64_lfi", "amdgpu", "amdgpu9", "tcele64",
		"armv7", "armv7a", "armv8.2a", "armebv7", "armv7eb", "armv7ebx",
		"thumbv6m", "thumbv7m", "thumbv2", "thumbv3", "thumbv4t", "thumbebv7", "thumbv7eb",
		"arm64x", "armx", "armv", "armvx", "arm1", "armfoo", "thumbx", "aarch64x", "aarch64eb",
		"aarch64_bev8", "aarch64v8", "aarch64_be_x", "arm64v8", "arm64eb", "arm64ev8",
		"arm64_32v8", "aarch64_32v8", "armv6m", "armebv6m", "armv8r", "armv9a", "armebx",
		"bpf", "bpfel", "bpfeb", "bpf_le", "bpf_be", "bpfx", "kalimba", "kalimba3", "kalimbax",
		"spirv1.4", "spirv32v1.7", "spirvv1.0", "spirv64v1.7", "spirv64v1.0x", "dxilv2.0",
		"dxilv1.10", "dxilv1.9", "i1386", "i86", "x86", "ppc64be", "mipsallegrex", "riscv",
		"wasm", "amdgcn9", "nvptx32", "spir32", "r700", "xscalex", "xscaleebx", "thumb4",
		"arm64ec_x", "aarch64_lfi_x",
	}
	for n := range archNames {
		c = append(c, n)
	}
	sort.Strings(c)
	return slices.Compact(c)
}

// TestArchGolden checks ValidTriple against the architecture validity table
// recorded from clang-offload-bundler 22.1.8.
func TestArchGolden(t *testing.T) {
	for _, r := range readTable(t, "arch.txt", 2) {
		id := ID{Kind: "host", Arch: r[0], Vendor: "unknown", OS: "linux", Env: "gnu"}
		if got := fmt.Sprint(id.ValidTriple()); got != r[1] {
			t.Errorf("arch %q: valid %s, LLVM says %s", r[0], got, r[1])
		}
	}
}

func TestArchLLVM(t *testing.T) {
	t.Parallel()
	b := needBundler(t)
	valid := map[string]bool{}
	rest := archCandidates()
	// The bundler names the first invalid target; drop it and retry.
	for len(rest) > 0 {
		var targets []string
		for _, a := range rest {
			targets = append(targets, "host-"+a+"-unknown-linux-gnu")
		}
		_, msg, ok := b.standardize(targets)
		if ok {
			for _, a := range rest {
				valid[a] = true
			}
			break
		}
		i := slices.IndexFunc(targets, func(s string) bool {
			return strings.HasPrefix(msg, "invalid target 'openmp"+strings.TrimPrefix(s, "host")+"'")
		})
		if i < 0 || !strings.Contains(msg, "unknown target triple") {
			t.Fatalf("unexpected error %q", msg)
		}
		valid[rest[i]] = false
		rest = slices.Delete(rest, i, i+1)
	}
	var recs [][]string
	for _, a := range archCandidates() {
		id := ID{Kind: "host", Arch: a, Vendor: "unknown", OS: "linux", Env: "gnu"}
		if id.ValidTriple() != valid[a] {
			t.Errorf("arch %q: valid %v, LLVM says %v", a, id.ValidTriple(), valid[a])
		}
		recs = append(recs, []string{a, fmt.Sprint(valid[a])})
	}
	writeTable(t, "arch.txt", "architecture piece\tvalid for clang-offload-bundler 22.1.8", recs)
}

// Pieces drawn from to build triples.
var (
	validArchs = []string{"x86_64", "i686", "amdgcn", "nvptx64", "spirv64", "aarch64", "armv7",
		"thumbv7", "arm64", "riscv64", "dxil", "wasm32", "powerpc64le", "mips64el", "r600",
		"s390x", "sparcv9", "x86_64h", "amd64", "spirv64v1.6", "dxilv1.3", "arm64e", "bpf",
		"kalimba3", "armeb", "aarch64_be", "ppc"}
	vendorPieces = []string{"", "unknown", "pc", "amd", "apple", "nvidia", "suse", "w64", "PC",
		"ibm", "mesa", "none", "intel", "meta", "oe", "v1", "linux", "gnu", "elf", "amdhsa",
		"x86_64", "windows", "mingw32"}
	osPieces = []string{"", "unknown", "linux", "amdhsa", "amdhsa5.0", "amdpal", "cuda",
		"windows", "win32", "mingw32", "mingw64", "cygwin", "msys", "darwin", "darwin20",
		"macosx10.15", "macos", "ios17", "freebsd13", "none", "elf", "gnu", "android",
		"shadermodel6.3", "shadermodel", "wasi", "wasip1", "emscripten", "uefi", "aix", "zos",
		"vulkan1.3", "mesa3d", "hermit", "xros", "visionos", "amd", "pc", "suse", "nvcl",
		"x86_64", "firmware", "qurt", "opencl", "linuxfoo", "ps4", "elfiamcu"}
	envPieces = []string{"", "unknown", "gnu", "gnueabi", "gnueabihf", "musl", "android",
		"androideabi", "androideabi21", "android30", "msvc", "cygnus", "elf", "coff", "macho",
		"xcoff", "goff", "wasm", "spirv", "gnuelf", "msvccoff", "itanium", "simulator",
		"macabi", "compute", "opencl", "llvm", "eabi", "eabihf", "gnux32", "amdhsa", "linux",
		"windows", "mingw32", "pc", "apple", "amd", "none", "ohos", "foo", "x86_64",
		"dxcontainer", "library", "pixel"}
)

func pick(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

// specStandardRows are the rows of spec section 2.4.
var specStandardRows = [][2]string{
	{"hip-amdgcn-amd-amdhsa-unknown-gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
	{"hip-amdgcn-amd-amdhsa-gnu-gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
	{"hip-amdgcn-amd-amdhsa-elf-gfx906", "hip-amdgcn-amd-amdhsa--gfx906"},
	{"hip-spirv64-amd-amdhsa-unknown-amdgcnspirv", "hip-spirv64-amd-amdhsa--amdgcnspirv"},
	{"host-x86_64-amd-amdhsa-", "host-x86_64-amd-amdhsa--"},
	{"hip-amdgcn-amd-amdhsa5.0--gfx906", "hip-amdgcn-amd-amdhsa5.0--gfx906"},
	{"hip-amdgcn-unknown-amdhsa-unknown-gfx906", "hip-amdgcn-unknown-amdhsa--gfx906"},
	{"host-x86_64-unknown-linux-gnu", "host-x86_64-unknown-linux-gnu-"},
	{"host-x86_64-unknown-linux-", "host-x86_64-unknown-linux-unknown-"},
	{"host-x86_64--linux-gnu", "host-x86_64-unknown-linux-gnu-"},
	{"host-x86_64-linux-gnu-", "host-x86_64-unknown-linux-gnu-"},
	{"host-x86_64-linux-gnu-unknown", "host-x86_64-unknown-linux-gnu-"},
	{"host-x86_64---", "host-x86_64-unknown-unknown-unknown-"},
	{"host-x86_64-elf--", "host-x86_64-unknown-unknown-elf-"},
	{"host-x86_64-none-elf-", "host-x86_64-unknown-none-elf-"},
	{"host-x86_64-pc-win32-", "host-x86_64-pc-windows-msvc-"},
	{"host-x86_64-w64-mingw32-", "host-x86_64-w64-windows-gnu-"},
	{"host-x86_64-pc-cygwin-", "host-x86_64-pc-windows-cygnus-"},
	{"host-x86_64-unknown-linux-androideabi21", "host-x86_64-unknown-linux-android21-"},
	{"host-x86_64-suse-linux-gnueabi", "host-x86_64-suse-linux-gnueabihf-"},
	{"host-x86_64-apple-darwin-", "host-x86_64-apple-darwin-unknown-"},
	{"host-x86_64-PC-linux-gnu", "host-x86_64-PC-linux-gnu-"},
	{"host-aarch64-linux-gnu-", "host-aarch64-unknown-linux-gnu-"},
	{"hip-amdgcn-amd-amdpal--gfx906", "hip-amdgcn-amd-amdpal-unknown-gfx906"},
	{"hip-nvptx64-nvidia-cuda--sm_70", "hip-nvptx64-nvidia-cuda-unknown-sm_70"},
	{"hip-nvptx64-nvidia-cuda-gnu-sm_70", "hip-nvptx64-nvidia-cuda-gnu-sm_70"},
	{"hip-amdgcn-amd-unknown--gfx906", "hip-amdgcn-amd-unknown-unknown-gfx906"},
	{"hip-amdgcn--amdhsa--gfx906", "hip-amdgcn-unknown-amdhsa--gfx906"},
	{"hip-amdgcn-amdhsa-amd--gfx906", "hip-amdgcn-amd-amdhsa-unknown-gfx906"},
	{"host-x86_64-unknown-linux-gnu-sycldevice", "host-x86_64-unknown-linux-gnu-"},
	{"host-x86_64-unknown-linux-gnu-foo", "host-x86_64-unknown-linux-gnu-"},
	{"hip-amdgcn-amd-amdhsa--gfx940", "hip-amdgcn-amd-amdhsa--"},
	{"hip-amdgcn-amd-amdhsa-gfx906", "hip-amdgcn-amd-amdhsa--"},
	{"host-x86_64-unknown-linux-gnu-gfx906", "host-x86_64-unknown-linux-gnu-gfx906"},
	{"hip-amdgcn-amd-amdhsa--sm_70", "hip-amdgcn-amd-amdhsa--sm_70"},
	{"hip-amdgcn-amd-amdhsa--gfx9-4-generic", "hip-amdgcn-amd-amdhsa--gfx9-4-generic"},
	{"hip-amdgcn-amd-foo--gfx906", "hip-amdgcn-amd-foo-unknown-gfx906"},
	{"hip-amdgcn-zz-foo-bar-gfx906", "hip-amdgcn-zz-foo-bar-gfx906"},
	{"hip-amdgcn-amd-amdhsa--gfx906:sramecc-:xnack+", "hip-amdgcn-amd-amdhsa--gfx906:sramecc-:xnack+"},
	{"hip-amdgcn-amd-amdhsa-unknown-gfx906:XNACK+", "hip-amdgcn-amd-amdhsa--gfx906:XNACK+"},
}

func TestStandardSpecRows(t *testing.T) {
	for _, r := range specStandardRows {
		id, ok := Parse(r[0])
		if !ok {
			t.Fatalf("Parse(%q) failed", r[0])
		}
		if got := id.Standard(); got != r[1] {
			t.Errorf("Standard(%q) = %q, want %q", r[0], got, r[1])
		}
	}
}

// standardInputs returns the spec rows plus random combinations of pieces,
// without two inputs that differ only in their kind.
func standardInputs() []string {
	var in []string
	seen := map[string]bool{}
	add := func(s string) {
		_, rest, _ := strings.Cut(s, "-")
		if !seen[rest] {
			seen[rest] = true
			in = append(in, s)
		}
	}
	for _, r := range specStandardRows {
		add(r[0])
	}
	r := rand.New(rand.NewPCG(2, 2))
	kinds := []string{"host", "openmp", "hip", "hipv4"}
	tids := []string{"", "", "", "-gfx906", "-sm_70", "-gfx90a:xnack+", "-foo"}
	for len(in) < 700 {
		add(pick(r, kinds) + "-" + pick(r, validArchs) + "-" + pick(r, vendorPieces) + "-" +
			pick(r, osPieces) + "-" + pick(r, envPieces) + pick(r, tids))
	}
	return in
}

func TestStandardGolden(t *testing.T) {
	for _, r := range readTable(t, "standard.txt", 2) {
		id, ok := Parse(r[0])
		if !ok {
			t.Errorf("Parse(%q) failed", r[0])
			continue
		}
		if got := id.Standard(); got != r[1] {
			t.Errorf("Standard(%q) = %q, LLVM writes %q", r[0], got, r[1])
		}
	}
}

// TestStandardLLVM compares Standard with the IDs the LLVM 22 bundler
// writes, for the spec rows and many random triples.
func TestStandardLLVM(t *testing.T) {
	t.Parallel()
	b := needBundler(t)
	in := standardInputs()
	var recs [][]string
	for len(in) > 0 {
		n := min(len(in), 150)
		batch := in[:n]
		in = in[n:]
		std := b.standardizeAll(batch)
		for i, raw := range batch {
			id, _ := Parse(raw)
			if got := id.Standard(); got != std[i] {
				t.Errorf("Standard(%q) = %q, LLVM writes %q", raw, got, std[i])
			}
			recs = append(recs, []string{raw, std[i]})
		}
	}
	writeTable(t, "standard.txt", "command-line target\tID written by clang-offload-bundler 22.1.8", recs)
}

// normalizeInputs returns random triples of 1 to 6 components drawn from all
// piece lists, so components often sit in the wrong place.
func normalizeInputs() []string {
	r := rand.New(rand.NewPCG(3, 3))
	all := slices.Concat(validArchs, vendorPieces, osPieces, envPieces)
	seen := map[string]bool{}
	var in []string
	fixed := []string{"x86_64", "linux-gnu-x86_64", "pc-x86_64-linux", "amdhsa-amdgcn-amd",
		"gnu-linux", "x86_64-pc-windows-elf", "elf-x86_64-w64-mingw32", "i686-w64-mingw32-coff",
		"x86_64-pc-win32-macho", "x86_64-pc-windows-gnu-elf", "x86_64-pc-windows-msvc-coff",
		"arm-none-eabi", "armv7-none-linux-eabi", "x86_64-none--elf", "dxil-unknown-shadermodel6.3-library",
		"dxil-shadermodel6.5-compute", "dxil-pc-shadermodel-pixel", "dxil-unknown-shadermodel6.x-vertex",
		"dxilv1.1-unknown-shadermodel6.3-library", "armv7-linux-androideabi", "cygwin-x86_64",
		"x86_64-msys", "-x86_64-", "--", "dxil-pc-shadermodel6", "dxil-pc-shadermodel6.x",
		"dxil-pc-shadermodel5.0", "dxil-pc-shadermodel6.9", "dxil-pc-shadermodel6.2.1",
		"dxil-pc-shadermodel6.3foo", "dxil-pc-shadermodel7.1", "dxil-pc-shadermodel.3", "unknown-unknown-unknown", "mingw32", "suse-arm-gnueabi-linux"}
	for _, f := range fixed {
		seen[f] = true
		in = append(in, f)
	}
	for len(in) < 250 {
		n := 1 + r.IntN(6)
		c := make([]string, n)
		for i := range c {
			c[i] = pick(r, all)
		}
		s := strings.Join(c, "-")
		if s != "" && !seen[s] {
			seen[s] = true
			in = append(in, s)
		}
	}
	return in
}

func TestNormalizeGolden(t *testing.T) {
	for _, r := range readTable(t, "normalize.txt", 2) {
		in := strings.TrimPrefix(r[0], "=")
		want := strings.TrimPrefix(r[1], "=")
		if got := NormalizeTriple(in); got != want {
			t.Errorf("NormalizeTriple(%q) = %q, LLVM 22 says %q", in, got, want)
		}
	}
}

// TestNormalizeLLVM compares NormalizeTriple with the triple LLVM 22's opt
// prints after `-mtriple=` (which it normalises). opt refuses triples whose
// normalised architecture is unknown; those are skipped.
func TestNormalizeLLVM(t *testing.T) {
	t.Parallel()
	opt := llvmref.Need(t, "opt")
	dir := t.TempDir()
	var recs [][]string
	checked := 0
	inputs := normalizeInputs()
	if !*update {
		// A sample keeps the test fast; the golden table holds them all.
		inputs = inputs[:120]
	}
	for _, in := range inputs {
		res := llvmref.Run(t, dir, nil, []byte("\n"), opt, "-mtriple="+in, "-S")
		if res.Code != 0 {
			// opt refuses unknown architectures and aborts on object
			// formats the architecture does not support.
			if !strings.Contains(string(res.Stderr), "unrecognized architecture") &&
				!strings.Contains(string(res.Stderr), "unsupported object format") {
				t.Fatalf("opt -mtriple=%q: %s", in, res.Stderr)
			}
			continue
		}
		want := ""
		for _, l := range strings.Split(string(res.Stdout), "\n") {
			if s, ok := strings.CutPrefix(l, "target triple = \""); ok {
				want = strings.TrimSuffix(s, "\"")
			}
		}
		checked++
		if got := NormalizeTriple(in); got != want {
			t.Errorf("NormalizeTriple(%q) = %q, LLVM 22 says %q", in, got, want)
		}
		// '=' keeps empty fields visible in the table.
		recs = append(recs, []string{"=" + in, "=" + want})
	}
	if checked < 60 {
		t.Errorf("only %d triples checked", checked)
	}
	writeTable(t, "normalize.txt", "triple\tLLVM 22 Triple::normalize (opt -mtriple); '=' prefixes each field", recs)
}

// TestOffloadArchLLVM checks IsOffloadArch against the processors the LLVM
// 22 bundler keeps in an ID, for every known name and some near misses.
func TestOffloadArchLLVM(t *testing.T) {
	t.Parallel()
	names := []string{"gfx940", "gfx941", "sm_100f", "sm_70a", "tahiti", "stoney", "fiji",
		"GFX906", "compute_70", "pvc", "dg2", "unknown", "gfx9", "gfx1152x", "sm_", "Generic",
		"gfx9-4", "gfx12-5-generic", "gfx1154", "sm_122", "amdgcn"}
	for n := range offloadArchs {
		names = append(names, n)
	}
	sort.Strings(names)
	var targets []string
	for _, n := range names {
		targets = append(targets, "hip-amdgcn-amd-amdhsa--"+n)
	}
	b := needBundler(t)
	std := b.standardizeAll(targets)
	for i, n := range names {
		kept := std[i] == targets[i]
		if !kept && std[i] != "hip-amdgcn-amd-amdhsa--" {
			t.Fatalf("%s written as %s", targets[i], std[i])
		}
		if IsOffloadArch(n) != kept {
			t.Errorf("IsOffloadArch(%q) = %v, LLVM keeps it: %v", n, IsOffloadArch(n), kept)
		}
	}
}
