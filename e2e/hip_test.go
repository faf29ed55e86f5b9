package e2e

import "testing"

// hip compiles kernel.hip for three GPUs, one plain and two with target-ID
// features, without HIP headers or device libraries. The fixed -cuid keeps
// clang's output reproducible.
func hip(extra ...string) []string {
	args := []string{"clang", "-x", "hip", "-nogpulib", "-nogpuinc", "-cuid=e2e-kernel",
		"--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+", "--offload-arch=gfx942:sramecc+:xnack-"}
	return append(args, extra...)
}

const bundler, packager = "clang-offload-bundler", "llvm-offload-binary"

// HIP -c (the default, non-RDC compile). clang links each GPU's code object
// with lld, then runs
//
//	clang-offload-bundler -type=o -bundle-align=4096
//	  -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx906,…
//	  -input=/dev/null -input=<gfx906.out> … -output=<tmp>.hipfb
//
// /dev/null is not an object, so this writes a binary bundle (4096-aligned
// entries, an empty host entry), which the host compile embeds as the
// .hip_fatbin section of the output object.
func TestHIPCompile(t *testing.T) {
	runJob(t, job{
		needs:   []string{bundler},
		steps:   [][]string{hip("-c", "kernel.hip", "-o", "kernel.o")},
		outputs: []string{"kernel.o"},
	})
}

// HIP -c -fgpu-rdc: one bundler run,
//
//	clang-offload-bundler -type=o
//	  -targets=hip-amdgcn-amd-amdhsa-unknown-gfx906,…,host-x86_64-pc-linux-gnu
//	  -output=kernel.o -input=<gfx906.bc> … -input=<host.o>
//
// which makes an ELF fat object: the host object plus one
// __CLANG_OFFLOAD_BUNDLE__<id> section per GPU holding its bitcode (LLVM's
// bundler runs llvm-objcopy for this; ours writes the ELF itself).
func TestHIPCompileRDC(t *testing.T) {
	runJob(t, job{
		needs:   []string{bundler},
		steps:   [][]string{hip("-c", "-fgpu-rdc", "kernel.hip", "-o", "kernel.o")},
		outputs: []string{"kernel.o"},
	})
}

// HIP -S: clang-offload-bundler -type=s bundles the GPU and host assembly
// into one text bundle (__CLANG_OFFLOAD_BUNDLE____START__/__END__ comments
// with "#").
func TestHIPAssembly(t *testing.T) {
	runJob(t, job{
		needs:   []string{bundler},
		steps:   [][]string{hip("-S", "kernel.hip", "-o", "kernel.s")},
		outputs: []string{"kernel.s"},
	})
}

// HIP -S -emit-llvm: clang-offload-bundler -type=ll, a text bundle of LLVM
// IR (";" comments).
func TestHIPLLVMIR(t *testing.T) {
	runJob(t, job{
		needs:   []string{bundler},
		steps:   [][]string{hip("-S", "-emit-llvm", "kernel.hip", "-o", "kernel.ll")},
		outputs: []string{"kernel.ll"},
	})
}

// HIP -c -emit-llvm: clang-offload-bundler -type=bc, a binary bundle
// (__CLANG_OFFLOAD_BUNDLE__ magic, entries in command-line order) of the
// GPU and host bitcode.
func TestHIPBitcode(t *testing.T) {
	runJob(t, job{
		needs:   []string{bundler},
		steps:   [][]string{hip("-c", "-emit-llvm", "kernel.hip", "-o", "kernel.bc")},
		outputs: []string{"kernel.bc"},
	})
}

// HIP -E: clang-offload-bundler -type=hipi, a text bundle of the
// preprocessed sources ("//" comments).
func TestHIPPreprocess(t *testing.T) {
	runJob(t, job{
		needs:   []string{bundler},
		steps:   [][]string{hip("-E", "kernel.hip", "-o", "kernel.hipi")},
		outputs: []string{"kernel.hipi"},
	})
}

// HIP -c --offload-compress: as TestHIPCompile, with --compress added to the
// bundler, so .hip_fatbin holds a CCOB (zstd) of the binary bundle. The
// compressed bytes may differ (libzstd versus pure Go); the CCOB header
// fields (version, method, uncompressed size, MD5 prefix), the code objects
// LLVM's bundler extracts, and every other section of the object must not.
func TestHIPCompress(t *testing.T) {
	runJob(t, job{
		needs:      []string{bundler},
		steps:      [][]string{hip("-c", "--offload-compress", "kernel.hip", "-o", "kernel.o")},
		outputs:    []string{"kernel.o"},
		compressed: true,
	})
}

// HIP -c -fgpu-rdc --offload-compress: the -type=o bundling of
// TestHIPCompileRDC with --compress. LLVM's object handler ignores the
// compression (the sections are added uncompressed by llvm-objcopy), so the
// fat object must be identical.
func TestHIPCompressRDC(t *testing.T) {
	runJob(t, job{
		needs:   []string{bundler},
		steps:   [][]string{hip("-c", "-fgpu-rdc", "--offload-compress", "kernel.hip", "-o", "kernel.o")},
		outputs: []string{"kernel.o"},
	})
}

// HIP -c -emit-llvm --offload-compress: clang-offload-bundler -type=bc
// --compress, a whole-file CCOB, compared as in TestHIPCompress.
func TestHIPCompressBitcode(t *testing.T) {
	runJob(t, job{
		needs:      []string{bundler},
		steps:      [][]string{hip("-c", "-emit-llvm", "--offload-compress", "kernel.hip", "-o", "kernel.bc")},
		outputs:    []string{"kernel.bc"},
		compressed: true,
	})
}

// HIP -S --offload-compress: clang-offload-bundler -type=s -compress, a
// whole-file CCOB of the text bundle, compared as in TestHIPCompress (its
// entries listed and extracted with -type=s).
func TestHIPCompressAssembly(t *testing.T) {
	runJob(t, job{
		needs:      []string{bundler},
		steps:      [][]string{hip("-S", "--offload-compress", "kernel.hip", "-o", "kernel.s")},
		outputs:    []string{"kernel.s"},
		compressed: true,
	})
}

// HIP --offload-new-driver -fgpu-rdc -c: no bundler; clang runs
//
//	llvm-offload-binary -o <tmp>.out
//	  --image=file=<gfx906.bc>,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip …
//
// and the host compile embeds the OffloadBinary as .llvm.offloading.
func TestHIPNewDriver(t *testing.T) {
	runJob(t, job{
		needs:   []string{packager},
		steps:   [][]string{hip("--offload-new-driver", "-fgpu-rdc", "-c", "kernel.hip", "-o", "kernel.o")},
		outputs: []string{"kernel.o"},
	})
}

// HIP -fgpu-rdc --hip-link of an object and a static library into an
// executable. The steps: kernel.o and lib.o as in TestHIPCompileRDC (bundler
// -type=o bundling), libe2e.a by llvm-ar, then the link, where clang runs
//
//	clang-offload-bundler -type=o -unbundle -allow-missing-bundles
//	  -targets=host-x86_64-pc-linux-gnu,hip-…-gfx906,… -input=kernel.o
//	  (twice, alike: for the host link and for the device links; each
//	  writes the host object stripped of its bundle sections and the
//	  per-GPU bitcode)
//	clang-offload-bundler -unbundle -type=a -input=libe2e.a
//	  -targets=hip-amdgcn-amd-amdhsa-unknown-gfx906 -allow-missing-bundles
//	  -hip-openmp-compatible   (once per GPU: a device archive for lld)
//	lld (per GPU), then clang-offload-bundler -type=o -bundle-align=4096
//	  -input=/dev/null … (the fat binary, as in TestHIPCompile)
//	clang -x assembler (embeds it) and ld with the stripped host object.
//
// A stub libamdhip64.so (testdata/stub.c) satisfies the host link;
// --build-id=none keeps the executable reproducible.
func TestHIPLink(t *testing.T) {
	runJob(t, job{
		needs: []string{bundler},
		setup: [][]string{
			{"clang", "-shared", "-fPIC", "-Wl,--build-id=none", "stub.c", "-o", "libamdhip64.so"},
		},
		steps: [][]string{
			hip("-fgpu-rdc", "-c", "kernel.hip", "-o", "kernel.o"),
			{"clang", "-x", "hip", "-nogpulib", "-nogpuinc", "-cuid=e2e-lib",
				"--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+", "--offload-arch=gfx942:sramecc+:xnack-",
				"-fgpu-rdc", "-c", "lib.hip", "-o", "lib.o"},
			{"llvm-ar", "rcs", "libe2e.a", "lib.o"},
			{"clang", "--hip-link", "-fgpu-rdc",
				"--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+", "--offload-arch=gfx942:sramecc+:xnack-",
				"kernel.o", "libe2e.a", "-L.", "-lamdhip64", "-Wl,--build-id=none", "-o", "app"},
		},
		outputs: []string{"kernel.o", "lib.o", "libe2e.a", "app"},
	})
}

// The link of TestHIPLink alone (kernel.o, lib.o and libe2e.a are made
// once, with LLVM's tools), with -save-temps, which keeps what our tools
// wrote on the way to the executable: the host object unbundled (and
// stripped) from kernel.o, the per-GPU bitcode unbundled from it, the
// per-GPU device archives unbundled from libe2e.a (left in $TMPDIR under
// random names), and the fat binary (.hipfb) bundled from the linked GPU code
// objects. When the executable differs, this test says which step made the
// difference.
func TestHIPLinkSaveTemps(t *testing.T) {
	runJob(t, job{
		needs: []string{bundler},
		setup: [][]string{
			{"clang", "-shared", "-fPIC", "-Wl,--build-id=none", "stub.c", "-o", "libamdhip64.so"},
			hip("-fgpu-rdc", "-c", "kernel.hip", "-o", "kernel.o"),
			{"clang", "-x", "hip", "-nogpulib", "-nogpuinc", "-cuid=e2e-lib",
				"--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+", "--offload-arch=gfx942:sramecc+:xnack-",
				"-fgpu-rdc", "-c", "lib.hip", "-o", "lib.o"},
			{"llvm-ar", "rcs", "libe2e.a", "lib.o"},
		},
		steps: [][]string{
			{"clang", "-save-temps", "--hip-link", "-fgpu-rdc",
				"--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+", "--offload-arch=gfx942:sramecc+:xnack-",
				"kernel.o", "libe2e.a", "-L.", "-lamdhip64", "-Wl,--build-id=none", "-o", "app"},
		},
		outputs:  []string{"app"},
		newFiles: true,
	})
}
