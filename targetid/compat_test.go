package targetid

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Stored bundle IDs (as found in files) and requested command-line targets
// for the compatibility tests.
var (
	compatStored = []string{
		"hip-amdgcn-amd-amdhsa--gfx906",
		"hip-amdgcn-amd-amdhsa--gfx906:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx906:xnack-",
		"hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx906:xnack+:sramecc-",
		"hip-amdgcn-amd-amdhsa--gfx906:foo+",
		"hip-amdgcn-amd-amdhsa--gfx906:",
		"hip-amdgcn-amd-amdhsa--gfx908",
		"hip-amdgcn-amd-amdhsa--gfx940",
		"hip-amdgcn-amd-amdhsa--",
		"hip-amdgcn-amd-amdhsa--gfx1030",
		"hip-amdgcn-amd-amdhsa--gfx1030:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx900:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx900:sramecc+",
		"hip-amdgcn-amd-amdhsa--gfx9-4-generic:xnack+",
		"hip-amdgcn-amd-amdhsa--amdgcnspirv",
		"hip-amdgcn-amd-amdhsa-unknown-gfx906",
		"hip-amdgcn-amd-amdhsa-gnu-gfx906",
		"hip-amdgcn-unknown-amdhsa--gfx906",
		"hip-r600-amd-amdhsa--gfx906",
		"hipv4-amdgcn-amd-amdhsa--gfx906",
		"hipv4-amdgcn-amd-amdhsa--gfx906:xnack+",
		"HIP-amdgcn-amd-amdhsa--gfx906",
		"hipfoo-amdgcn-amd-amdhsa--gfx906",
		"openmp-amdgcn-amd-amdhsa--gfx906",
		"openmp-amdgcn-amd-amdhsa--gfx906:xnack-",
		"cuda-nvptx64-nvidia-cuda--sm_70",
		"hip-spirv64-amd-amdhsa--amdgcnspirv",
		"hip-nvptx64-nvidia-cuda--sm_70",
		"hip-nvptx64-nvidia-cuda-unknown-sm_70",
		"openmp-nvptx64-nvidia-cuda-unknown-sm_70",
		"host-x86_64-unknown-linux-gnu-",
		"host-x86_64-pc-linux-gnu-",
		"host-x86_64-unknown-linux-gnu-gfx906",
		"openmp-x86_64-unknown-linux-gnu-",
		"openmp-x86_64-unknown-linux-elf-",
		"openmp-x86_64-unknown-linux-gnuelf-",
		"openmp-x86_64-unknown-linux-coff-",
		"openmp-x86_64-w64-windows-gnu-",
		"openmp-x86_64-apple-darwin-unknown-",
		"openmp-x86_64-apple-darwin-macho-",
		"openmp-armv7-unknown-linux-gnueabi-",
		"openmp-thumbv7-unknown-linux-gnueabi-",
		"openmp-armv7a-unknown-linux-gnueabi-",
		"openmp-armv7r-unknown-linux-gnueabi-",
		"openmp-armv7ve-unknown-linux-gnueabi-",
		"openmp-xscale-unknown-linux-gnueabi-",
		"openmp-arma-unknown-linux-gnueabi-",
		"openmp-aarch64_lfi-unknown-linux-gnu-",
		"openmp-arm64-unknown-linux-gnu-",
		"openmp-kalimba3-unknown-linux-gnu-",
		"openmp-mipsisa32r6-unknown-linux-gnu-",
	}
	compatRequested = []string{
		"hip-amdgcn-amd-amdhsa--gfx906",
		"hip-amdgcn-amd-amdhsa--gfx906:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx906:xnack-",
		"hip-amdgcn-amd-amdhsa--gfx906:sramecc+",
		"hip-amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx906:xnack+:sramecc+",
		"hip-amdgcn-amd-amdhsa--gfx906:sramecc-:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx906:foo+",
		"hip-amdgcn-amd-amdhsa--gfx906:",
		"hip-amdgcn-amd-amdhsa-unknown-gfx906",
		"hip-amdgcn-amd-amdhsa--gfx908",
		"hip-amdgcn-amd-amdhsa--gfx940",
		"hip-amdgcn-amd-amdhsa--gfx1030",
		"hip-amdgcn-amd-amdhsa--gfx1030:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx900:xnack+",
		"hip-amdgcn-amd-amdhsa--gfx900:sramecc+",
		"hip-amdgcn-amd-amdhsa--gfx9-4-generic:xnack+",
		"hip-amdgcn-amd-amdhsa--amdgcnspirv",
		"hip-amdgcn--amdhsa--gfx906",
		"hip-r600-amd-amdhsa--gfx906",
		"hipv4-amdgcn-amd-amdhsa--gfx906",
		"hipv4-amdgcn-amd-amdhsa--gfx906:xnack+",
		"openmp-amdgcn-amd-amdhsa--gfx906",
		"openmp-amdgcn-amd-amdhsa--gfx906:xnack+",
		"openmp-amdgcn-amd-amdhsa--gfx906:xnack-",
		"hip-spirv64-amd-amdhsa--amdgcnspirv",
		"hip-nvptx64-nvidia-cuda--sm_70",
		"hip-nvptx64-nvidia-cuda--sm_70:xnack+",
		"openmp-nvptx64-nvidia-cuda--sm_70",
		"host-x86_64-unknown-linux-gnu",
		"host-x86_64-pc-linux-gnu",
		"host-x86_64-unknown-linux-gnu-gfx906",
		"openmp-x86_64-unknown-linux-gnu",
		"openmp-x86_64-unknown-linux-",
		"openmp-x86_64-pc-linux-gnu",
		"openmp-x86_64-pc-windows-gnu",
		"openmp-x86_64-w64-windows-gnu",
		"openmp-x86_64-apple-darwin-",
		"openmp-x86_64-apple-darwin-gnu",
		"openmp-armv7-unknown-linux-gnueabi",
		"openmp-thumbv7-unknown-linux-gnueabi",
		"openmp-armv5te-unknown-linux-gnueabi",
		"openmp-armv8-unknown-linux-gnueabi",
		"openmp-aarch64-unknown-linux-gnu",
		"openmp-kalimba4-unknown-linux-gnu",
		"openmp-mipsr6-unknown-linux-gnu",
		"openmp-mips-unknown-linux-gnu",
	}
)

// compatPairs returns every stored/requested combination, without and (when
// the kinds differ) with --hip-openmp-compatible.
func compatPairs() [][3]string {
	var p [][3]string
	for _, s := range compatStored {
		for _, r := range compatRequested {
			p = append(p, [3]string{s, r, "0"})
			sk, _, _ := strings.Cut(s, "-")
			rk, _, _ := strings.Cut(r, "-")
			if sk != rk {
				p = append(p, [3]string{s, r, "1"})
			}
		}
	}
	return p
}

// The golden table testdata/compat.txt is a matrix: a "requested" line
// lists the command-line targets, then one line per stored ID has one code
// per requested target: '-' not extracted, 'Y' extracted (with and without
// --hip-openmp-compatible), 'F' extracted only with the flag, 'X' only
// without it.
func compatCode(plain, flag bool) byte {
	switch {
	case plain && flag:
		return 'Y'
	case flag:
		return 'F'
	case plain:
		return 'X'
	}
	return '-'
}

func TestCompatibleGolden(t *testing.T) {
	recs := readTable(t, "compat.txt", 2)
	if recs[0][0] != "requested" {
		t.Fatal("testdata/compat.txt: first line is not the requested list")
	}
	requested := strings.Split(recs[0][1], " ")
	for _, r := range recs[1:] {
		stored, codes := r[0], r[1]
		if len(codes) != len(requested) {
			t.Fatalf("testdata/compat.txt: %q has %d codes for %d targets", stored, len(codes), len(requested))
		}
		for i, rq := range requested {
			req, _ := Parse(rq)
			std := req.Standard()
			got := compatCode(Compatible(stored, std, false), Compatible(stored, std, true))
			if got != codes[i] {
				t.Errorf("Compatible(%q, %q): code %c, LLVM %c", stored, std, got, codes[i])
			}
		}
	}
}

// writeBinaryBundle writes a one-entry binary bundle holding payload under id.
func writeBinaryBundle(t *testing.T, path, id string, payload []byte) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("__CLANG_OFFLOAD_BUNDLE__")
	u64 := func(v int) { binary.Write(&b, binary.LittleEndian, uint64(v)) }
	u64(1)
	u64(32 + 24 + len(id))
	u64(len(payload))
	u64(len(id))
	b.WriteString(id)
	b.Write(payload)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCompatibleLLVM unbundles one-entry binary bundles with the LLVM 22
// bundler (-allow-missing-bundles) and checks whether the requested output
// received the payload. Without -update it checks a random sample of the
// pairs (all of them are in the golden table).
func TestCompatibleLLVM(t *testing.T) {
	t.Parallel()
	b := needBundler(t)
	pairs := compatPairs()
	if !*update {
		r := rand.New(rand.NewPCG(uint64(len(pairs)), 5))
		r.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		pairs = pairs[:60]
	}
	files := map[string]string{}
	payload := []byte("PAYLOAD\n")
	results := map[[3]string]bool{}
	out := filepath.Join(b.dir, "out")
	for _, p := range pairs {
		stored, requested, flag := p[0], p[1], p[2]
		f, ok := files[stored]
		if !ok {
			f = filepath.Join(b.dir, fmt.Sprintf("s%d.bc", len(files)))
			writeBinaryBundle(t, f, stored, payload)
			files[stored] = f
		}
		args := []string{"-type=bc", "-unbundle", "-allow-missing-bundles", "-targets=" + requested,
			"-input=" + f, "-output=" + out}
		if flag == "1" {
			args = append(args, "-hip-openmp-compatible")
		}
		os.Remove(out)
		if _, msg, code := b.run(args...); code != 0 {
			t.Fatalf("%v: %s", args, msg)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want := bytes.Equal(got, payload)
		req, _ := Parse(requested)
		if c := Compatible(stored, req.Standard(), flag == "1"); c != want {
			t.Errorf("Compatible(%q, %q, hip-openmp=%s) = %v, LLVM says %v", stored, req.Standard(), flag, c, want)
		}
		results[p] = want
	}
	if *update && !t.Failed() {
		writeTable(t, "compat.txt", compatHeader, compatMatrix(results))
	}
}

const compatHeader = `stored ID -> requested target: extracted by clang-offload-bundler 22.1.8 -unbundle -allow-missing-bundles?
'-' no; 'Y' yes (with and without --hip-openmp-compatible); 'F' only with the flag; 'X' only without it.
The flag was tried only when the kinds differ.`

// compatMatrix turns the results of all pairs into the golden matrix.
func compatMatrix(results map[[3]string]bool) [][]string {
	recs := [][]string{{"requested", strings.Join(compatRequested, " ")}}
	for _, s := range compatStored {
		codes := make([]byte, len(compatRequested))
		for i, r := range compatRequested {
			plain := results[[3]string{s, r, "0"}]
			flag, tried := results[[3]string{s, r, "1"}]
			if !tried {
				flag = plain
			}
			codes[i] = compatCode(plain, flag)
		}
		recs = append(recs, []string{s, string(codes)})
	}
	return recs
}

// TestAMDGPUFeaturesLLVM checks the per-processor feature table: a stored
// bundle for processor P is extracted for a request "P:f+" exactly when P
// supports f. With -update every processor is probed, otherwise a sample.
func TestAMDGPUFeaturesLLVM(t *testing.T) {
	t.Parallel()
	b := needBundler(t)
	var procs []string
	for p := range amdgcnProcessors {
		procs = append(procs, p)
	}
	sort.Strings(procs)
	if !*update {
		var sample []string
		for i := 0; i < len(procs); i += 7 {
			sample = append(sample, procs[i])
		}
		procs = sample
	}
	payload := []byte("PAYLOAD\n")
	out := filepath.Join(b.dir, "out")
	for _, p := range procs {
		stored := "hip-amdgcn-amd-amdhsa--" + p
		f := filepath.Join(b.dir, "feat.bc")
		writeBinaryBundle(t, f, stored, payload)
		supported, _ := AMDGPUFeatures(p)
		for _, feat := range []string{"xnack", "sramecc"} {
			req := stored + ":" + feat + "+"
			os.Remove(out)
			if _, msg, code := b.run("-type=bc", "-unbundle", "-allow-missing-bundles", "-targets="+req, "-input="+f, "-output="+out); code != 0 {
				t.Fatalf("%s: %s", req, msg)
			}
			got, _ := os.ReadFile(out)
			llvm := bytes.Equal(got, payload)
			if slices.Contains(supported, feat) != llvm || Compatible(stored, req, false) != llvm {
				t.Errorf("%s supports %s: table %v, Compatible %v, LLVM %v", p, feat,
					slices.Contains(supported, feat), Compatible(stored, req, false), llvm)
			}
		}
	}
}

// IDs with a 3-field triple, which older releases wrote (ROCm 5's fat
// binaries name the host "host-x86_64-unknown-linux") and LLVM 22 rejects
// when it unbundles, with the standard form ParseStored reads them as: the
// ID LLVM 22 writes for "<kind>-<triple>-".
var oldTripleIDs = [][2]string{
	{"host-x86_64-unknown-linux", "host-x86_64-unknown-linux-unknown-"},
	{"host-x86_64-linux-gnu", "host-x86_64-unknown-linux-gnu-"},
	{"host-x86_64-pc-win32", "host-x86_64-pc-windows-msvc-"},
	{"hipv4-amdgcn-amd-amdhsa", "hipv4-amdgcn-amd-amdhsa--"},
	{"hip-amdgcn--amdhsa", "hip-amdgcn-unknown-amdhsa--"},
	{"openmp-nvptx64-nvidia-cuda", "openmp-nvptx64-nvidia-cuda-unknown-"},
	{"openmp-x86_64-unknown-linux", "openmp-x86_64-unknown-linux-unknown-"},
}

func TestParseStored(t *testing.T) {
	for _, c := range oldTripleIDs {
		id, ok := ParseStored(c[0])
		if !ok {
			t.Errorf("ParseStored(%q) failed", c[0])
			continue
		}
		if got := id.Standard(); got != c[1] || id.String()+"-" != c[1] {
			t.Errorf("ParseStored(%q) = %q (%q), want %q", c[0], id.String(), got, c[1])
		}
	}
	// 5 or 6 pieces: as Parse, never standardised (LLVM 22 uses them as
	// stored); other piece counts are refused.
	for _, s := range append(slices.Clone(compatStored), "hip-amdgcn-amd-amdhsa-gnu-gfx906:xnack+", "host-x86_64-linux-gnu-") {
		want, _ := Parse(s)
		if got, ok := ParseStored(s); !ok || got != want {
			t.Errorf("ParseStored(%q) = %+v, %v; want %+v as Parse", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "host", "host-x86_64", "host-x86_64-linux", "-x86_64-"} {
		if id, ok := ParseStored(s); ok {
			t.Errorf("ParseStored(%q) = %+v, want failure", s, id)
		}
	}
}

// TestCompatibleOldTriple: a stored ID with a 3-field triple is extracted
// for exactly the requests its standard form is extracted for (the golden
// compatibility matrix and TestCompatibleLLVM check those against LLVM).
// So ROCm 5's "host-x86_64-unknown-linux" goes to a request for
// "host-x86_64-unknown-linux-" (standardised with an unknown environment),
// not to one for "host-x86_64-unknown-linux-gnu".
func TestCompatibleOldTriple(t *testing.T) {
	requested := append(slices.Clone(compatRequested), "host-x86_64-unknown-linux-", "host-x86_64-unknown-linux-unknown",
		"host-x86_64--linux-", "openmp-nvptx64-nvidia-cuda-", "openmp-nvptx64-nvidia-cuda--sm_70", "hip-amdgcn-amd-amdhsa--gfx940")
	for _, c := range oldTripleIDs {
		for _, rq := range requested {
			r, _ := Parse(rq)
			std := r.Standard()
			for _, flag := range []bool{false, true} {
				if got, want := Compatible(c[0], std, flag), Compatible(c[1], std, flag); got != want {
					t.Errorf("Compatible(%q, %q, %v) = %v, but %v for %q", c[0], std, flag, got, want, c[1])
				}
			}
		}
	}
	for _, c := range []struct {
		stored, requested string
		want              bool
	}{
		{"host-x86_64-unknown-linux", "host-x86_64-unknown-linux-unknown-", true},
		{"host-x86_64-unknown-linux", "host-x86_64-unknown-linux-gnu-", false},
		{"host-x86_64-unknown-linux", "host-x86_64-pc-linux-unknown-", false},
		{"host-x86_64-linux-gnu", "host-x86_64-unknown-linux-gnu-", true},
		{"openmp-nvptx64-nvidia-cuda", "openmp-nvptx64-nvidia-cuda-unknown-", true},
		{"openmp-nvptx64-nvidia-cuda", "openmp-nvptx64-nvidia-cuda-unknown-sm_70", false},
		{"hipv4-amdgcn-amd-amdhsa", "hipv4-amdgcn-amd-amdhsa--", true},
		{"hipv4-amdgcn-amd-amdhsa", "hipv4-amdgcn-amd-amdhsa--gfx906", false},
		{"host-x86_64-linux", "host-x86_64-unknown-linux-unknown-", false},
	} {
		if got := Compatible(c.stored, c.requested, false); got != c.want {
			t.Errorf("Compatible(%q, %q) = %v, want %v", c.stored, c.requested, got, c.want)
		}
	}
}
