package e2e

import "testing"

func openmp(extra ...string) []string {
	return append([]string{"clang", "-fopenmp", "--offload-arch=gfx906", "-nogpulib"}, extra...)
}

// OpenMP target offloading, compile only. OpenMP always uses the new
// offload driver; clang runs
//
//	llvm-offload-binary -o <tmp>.out
//	  --image=file=<gfx906.bc>,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=openmp
//
// and embeds the OffloadBinary in the host object's .llvm.offloading
// section.
func TestOpenMPCompile(t *testing.T) {
	runJob(t, job{
		needs:   []string{packager},
		steps:   [][]string{openmp("-c", "omp.c", "-o", "omp.o")},
		outputs: []string{"omp.o"},
	})
}

// OpenMP compile and link into an executable. The compile is as in
// TestOpenMPCompile; the link runs clang-linker-wrapper (LLVM's, always),
// which reads the .llvm.offloading section our llvm-offload-binary wrote,
// links the GPU image (clang → lld), wraps it with registration code and
// runs the host linker. None of our tools runs at link time, so the link
// proves that LLVM's own consumer accepts our OffloadBinary and derives
// the same executable from it. Stub libomp.so and libomptarget.so
// (testdata/stub.c) satisfy the host link; the GPU link ignores the
// unresolved device runtime calls, as no device runtime is installed.
func TestOpenMPLink(t *testing.T) {
	stub := []string{"clang", "-shared", "-fPIC", "-Wl,--build-id=none", "stub.c", "-o"}
	runJob(t, job{
		needs: []string{packager},
		setup: [][]string{
			append(stub, "libomp.so"),
			append(stub, "libomptarget.so"),
		},
		steps: [][]string{
			openmp("-c", "omp.c", "-o", "omp.o"),
			openmp("omp.o", "-L.", "-Wl,--build-id=none",
				"-Xoffload-linker", "--unresolved-symbols=ignore-all", "-o", "omp"),
		},
		outputs: []string{"omp.o", "omp"},
	})
}
