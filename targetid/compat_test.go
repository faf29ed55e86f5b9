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
