package objfmt

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
)

// differential runs llvm-objcopy 22 and this package on the same input and
// compares the outputs byte for byte: adding the golden sections, and
// stripping bundles from the result and from the input.
func differential(t *testing.T, objcopy, dir, in string) {
	t.Helper()
	secs := goldenSections(t)
	var args []string
	for i, s := range secs {
		p := filepath.Join(dir, fmt.Sprintf("payload%d", i))
		b := make([]byte, s.Size)
		s.Data.ReadAt(b, 0)
		os.WriteFile(p, b, 0o666)
		args = append(args, "--add-section="+s.Name+"="+p, "--set-section-flags="+s.Name+"=readonly,exclude")
	}
	fat, stripped := in+".fat", in+".strip"
	run := func(args ...string) {
		t.Helper()
		if res := llvmref.Run(t, dir, nil, nil, append([]string{objcopy}, args...)...); res.Code != 0 {
			t.Fatalf("llvm-objcopy %v: %s", args, res.Stderr)
		}
	}
	run(append(args, "--", in, fat)...)
	run(stripArgs(fat, stripped)...)
	host := readFile(t, in)
	sameBytes(t, "AddSections", addSections(t, host, secs), readFile(t, fat))
	sameBytes(t, "StripBundles(fat)", strip(t, readFile(t, fat)), readFile(t, stripped))
	run(stripArgs(in, stripped)...)
	sameBytes(t, "StripBundles(host)", strip(t, host), readFile(t, stripped))
}

// stripArgs are the llvm-objcopy arguments StripBundles stands for.
func stripArgs(in, out string) []string {
	return []string{"--regex", "--remove-section=" + BundlePrefix + ".*", "--", in, out}
}

func TestDifferentialCompilers(t *testing.T) {
	t.Parallel()
	objcopy := llvmref.Need(t, "llvm-objcopy")
	clang := llvmref.Need(t, "clang")
	src := func(name string) string { p, _ := filepath.Abs("testdata/src/" + name); return p }
	type build struct {
		name string
		argv []string
	}
	var builds []build
	add := func(name string, argv ...string) { builds = append(builds, build{name, argv}) }
	a, b, st := src("a.c"), src("b.cpp"), src("st.c")
	add("clang-O2-addrsig", clang, "-c", "-O2", "-faddrsig", a)
	add("clang-g-function-sections", clang, "-c", "-g", "-ffunction-sections", "-fdata-sections", a)
	add("clang++-O1-g", clang, "-x", "c++", "-c", "-O1", "-g", b)
	add("clang-m32-g", clang, "-c", "-m32", "-g", a)
	add("clang-ppc64-g", clang, "-c", "-g", "--target=powerpc64-linux-gnu", a)
	add("clang-aarch64_be-O0", clang, "-c", "-O0", "--target=aarch64_be-linux-gnu", a)
	add("clang-riscv64", clang, "-c", "-O1", "--target=riscv64-linux-gnu", a)
	add("clang-shared", clang, "-shared", "-fPIC", "-O1", "-nostdlib", "-fuse-ld=lld", st)
	add("clang-pie", clang, "-O1", "-fPIE", "-pie", "-nostdlib", "-fuse-ld=lld", st)
	if gcc, err := exec.LookPath("gcc"); err == nil {
		add("gcc-O2-g", gcc, "-c", "-O2", "-g", a)
		add("gcc-function-sections", gcc, "-c", "-O1", "-ffunction-sections", a)
		add("g++-O0", gcc, "-x", "c++", "-c", "-O0", b)
		add("g++-ctor-groups", gcc, "-x", "c++", "-c", "-O0", src("ctor.cpp"))
		add("gcc-shared", gcc, "-shared", "-fPIC", "-O1", a)
	}
	for _, bd := range builds {
		t.Run(bd.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, bd.name+".o")
			cmd := exec.Command(bd.argv[0], append(bd.argv[1:], "-o", out)...)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Skipf("cannot build: %v\n%s", err, msg)
			}
			differential(t, objcopy, dir, out)
		})
	}
}

// TestDifferentialHIP compiles a real HIP fat object with clang 22 and checks
// ReadBundles and StripBundles on it.
func TestDifferentialHIP(t *testing.T) {
	t.Parallel()
	objcopy := llvmref.Need(t, "llvm-objcopy")
	clang := llvmref.Need(t, "clang")
	dir := t.TempDir()
	k, _ := filepath.Abs("testdata/src/k.hip")
	fat := filepath.Join(dir, "k.o")
	cmd := exec.Command(clang, "-x", "hip", "--offload-arch=gfx906", "-nogpulib", "-nogpuinc", "-fgpu-rdc", "-c", k, "-cuid=abc", "-o", fat)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot build HIP: %v\n%s", err, msg)
	}
	b := readFile(t, fat)
	bs, err := ReadBundles(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(bs) != 2 || bs[0].ID != "hip-amdgcn-amd-amdhsa--gfx906" || !bs[1].HostPlaceholder {
		t.Fatalf("ReadBundles = %+v, %v", bs, err)
	}
	ref := filepath.Join(dir, "k.strip")
	if res := llvmref.Run(t, dir, nil, nil, append([]string{objcopy}, stripArgs(fat, ref)...)...); res.Code != 0 {
		t.Fatalf("llvm-objcopy: %s", res.Stderr)
	}
	sameBytes(t, "StripBundles", strip(t, b), readFile(t, ref))
}

// TestDifferentialManySections covers extended section numbering
// (SHN_XINDEX, .symtab_shndx): more than 65280 sections, with bundles before
// the others so that stripping renumbers across the limit.
func TestDifferentialManySections(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("slow")
	}
	objcopy := llvmref.Need(t, "llvm-objcopy")
	mc := llvmref.Need(t, "llvm-mc")
	dir := t.TempDir()
	for _, n := range []int{65275} { // stripping drops .symtab_shndx; adding crosses 0xff00 again
		var s strings.Builder
		s.WriteString(".text\nret\n")
		for i := range 3 {
			fmt.Fprintf(&s, ".section %sb%d,\"\",@progbits\n.byte 0\n", BundlePrefix, i)
		}
		for i := range n {
			fmt.Fprintf(&s, ".section .s%d,\"a\",@progbits\n.globl l%d\nl%d: .byte 1\n", i, i, i)
		}
		asm, obj := filepath.Join(dir, "big.s"), filepath.Join(dir, fmt.Sprintf("big%d.o", n))
		os.WriteFile(asm, []byte(s.String()), 0o666)
		if res := llvmref.Run(t, dir, nil, nil, mc, "-filetype=obj", "-triple=x86_64-linux-gnu", asm, "-o", obj); res.Code != 0 {
			t.Fatalf("llvm-mc: %s", res.Stderr)
		}
		ref := obj + ".strip"
		if res := llvmref.Run(t, dir, nil, nil, append([]string{objcopy}, stripArgs(obj, ref)...)...); res.Code != 0 {
			t.Fatalf("llvm-objcopy: %s", res.Stderr)
		}
		sameBytes(t, fmt.Sprintf("StripBundles(%d sections)", n), strip(t, readFile(t, obj)), readFile(t, ref))
		sec := goldenSections(t)[:1]
		fat := obj + ".fat"
		p0 := filepath.Join(dir, "p0")
		os.WriteFile(p0, []byte{0}, 0o666)
		if res := llvmref.Run(t, dir, nil, nil, append([]string{objcopy}, "--add-section="+sec[0].Name+"="+p0, "--set-section-flags="+sec[0].Name+"=readonly,exclude", "--", ref, fat)...); res.Code != 0 {
			t.Fatalf("llvm-objcopy: %s", res.Stderr)
		}
		sameBytes(t, fmt.Sprintf("AddSections(%d sections)", n), addSections(t, readFile(t, ref), sec), readFile(t, fat))
	}
}

// TestDifferentialProgramHeaderOffset: a relocatable object without
// program headers keeps its e_phoff, and llvm-objcopy places the empty
// table after the ELF header at an offset congruent to it modulo an
// address's size, which moves a first section aligned to 1 by up to 7 bytes
// (3 for ELF32).
func TestDifferentialProgramHeaderOffset(t *testing.T) {
	t.Parallel()
	objcopy := llvmref.Need(t, "llvm-objcopy")
	dir := t.TempDir()
	for _, name := range []string{"clang-O1", "clang-i686"} {
		orig := readFile(t, "testdata/"+name+".fat.o")
		f, err := parseELF(bytes.NewReader(orig), int64(len(orig)))
		if err != nil {
			t.Fatal(err)
		}
		// The section laid out first gets alignment 1.
		first := 0
		for i := 1; i < len(f.secs); i++ {
			if s := f.secs[i]; s.size > 0 && s.typ != shtNobits && (first == 0 || s.off < f.secs[first].off) {
				first = i
			}
		}
		for _, phoff := range []uint64{0, 1, 3, 5, 8, 12, 100, 173} {
			in := bytes.Clone(orig)
			if f.is64 {
				f.bo.PutUint64(in[32:], phoff)
				f.bo.PutUint64(in[int(f.shoff)+64*first+48:], 1)
			} else {
				f.bo.PutUint32(in[28:], uint32(phoff))
				f.bo.PutUint32(in[int(f.shoff)+40*first+32:], 1)
			}
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.o", name, phoff))
			os.WriteFile(p, in, 0o666)
			if res := llvmref.Run(t, dir, nil, nil, append([]string{objcopy}, stripArgs(p, p+".strip")...)...); res.Code != 0 {
				t.Fatalf("llvm-objcopy: %s", res.Stderr)
			}
			sameBytes(t, fmt.Sprintf("%s e_phoff=%d", name, phoff), strip(t, in), readFile(t, p+".strip"))
		}
	}
}
