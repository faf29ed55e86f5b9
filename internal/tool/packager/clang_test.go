package packager_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// clang-22 run with -B pointing at our llvm-offload-binary produces the same
// object as with LLVM's tool.
func TestClangUsesOurTool(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs clang")
	}
	clang := llvmref.Need(t, "clang")
	_, ours := tools(t)
	llvm := llvmref.Need(t, "llvm-offload-binary")
	// The same -B folder holds LLVM's tool for the reference build and ours
	// for the other, so that both clang command lines are identical. COFF
	// objects carry the time unless -mno-incremental-linker-compatible.
	bdir := t.TempDir()
	tool := filepath.Join(bdir, "llvm-offload-binary")
	use := func(bin string) {
		t.Helper()
		os.Remove(tool)
		if err := os.Symlink(bin, tool); err != nil {
			t.Fatal(err)
		}
	}
	work := t.TempDir()
	for _, src := range []string{"k.hip", "omp.c"} {
		b, err := os.ReadFile(filepath.Join(inputs, src))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(work, src), b, 0o644)
	}
	builds := []struct {
		name string
		args []string
	}{
		{"hip", []string{"-x", "hip", "--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+", "-nogpulib", "-nogpuinc",
			"--offload-new-driver", "-fgpu-rdc", "-cuid=abc", "-c", "k.hip"}},
		{"openmp", []string{"-fopenmp", "--offload-arch=gfx906", "-nogpulib", "-c", "omp.c"}},
		{"openmp-coff", []string{"-fopenmp", "--target=x86_64-pc-windows-msvc", "-mno-incremental-linker-compatible", "--offload-arch=gfx906", "-nogpulib", "-nogpuinc", "-c", "omp.c"}},
	}
	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			use(ours)
			dry := llvmref.Run(t, work, nil, nil, append([]string{clang, "-###", "-B", bdir, "-o", "x.o"}, b.args...)...)
			if !strings.Contains(string(dry.Stderr), tool) {
				t.Fatalf("clang does not run our tool:\n%s", dry.Stderr)
			}
			got := llvmref.Run(t, work, nil, nil, append([]string{clang, "-B", bdir, "-o", "ours.o"}, b.args...)...)
			use(llvm)
			ref := llvmref.Run(t, work, nil, nil, append([]string{clang, "-B", bdir, "-o", "ref.o"}, b.args...)...)
			if ref.Code != 0 || got.Code != 0 {
				t.Fatalf("clang failed: %d %s / %d %s", ref.Code, ref.Stderr, got.Code, got.Stderr)
			}
			r, _ := os.ReadFile(filepath.Join(work, "ref.o"))
			o, _ := os.ReadFile(filepath.Join(work, "ours.o"))
			if !bytes.Equal(r, o) {
				t.Errorf("objects differ: %s", difftest.Describe(r, o))
			}
		})
	}
}
