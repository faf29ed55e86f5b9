package ar

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
)

// file is a member for tests: a name and bytes.
type file struct {
	name string
	data []byte
}

func newMembers(fs []file) []NewMember {
	ms := make([]NewMember, len(fs))
	for i, f := range fs {
		ms[i] = NewMember{Name: f.name, Data: bytes.NewReader(f.data), Size: int64(len(f.data))}
	}
	return ms
}

// llvmAr writes fs into separate folders (so duplicates are possible) and
// runs llvm-ar qcsD --format=gnu on them, returning the archive or the
// error output.
func llvmAr(t *testing.T, fs []file, env ...string) ([]byte, string) {
	t.Helper()
	tool := llvmref.Need(t, "llvm-ar")
	dir := t.TempDir()
	args := []string{tool, "qcsD", "--format=gnu", filepath.Join(dir, "out.a")}
	for i, f := range fs {
		d := filepath.Join(dir, fmt.Sprint(i))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, f.name)
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	res := llvmref.Run(t, dir, env, nil, args...)
	if res.Code != 0 {
		return nil, string(res.Stderr)
	}
	out, err := os.ReadFile(filepath.Join(dir, "out.a"))
	if err != nil {
		t.Fatal(err)
	}
	return out, string(res.Stderr)
}

func writeGNU(t *testing.T, fs []file, opts ...WriteOption) ([]byte, error) {
	t.Helper()
	var b bytes.Buffer
	err := WriteGNU(&b, newMembers(fs), opts...)
	return b.Bytes(), err
}

// TestRandomELFSymbolsAgainstLLVM compares the symbol tables of archives of
// random ELF files (every binding, type, visibility, special section index,
// mapping-symbol name, several machines, ELF32/64, LE/BE) with llvm-ar's.
func TestRandomELFSymbolsAgainstLLVM(t *testing.T) {
	llvmref.Need(t, "llvm-ar")
	rng := rand.New(rand.NewSource(1))
	for batch := 0; batch < 6; batch++ {
		var fs []file
		for i := 0; i < 40; i++ {
			fs = append(fs, file{fmt.Sprintf("m%d.o", i), randomELF(rng).bytes()})
		}
		want, stderr := llvmAr(t, fs)
		got, err := writeGNU(t, fs)
		if want == nil {
			// Find the member llvm-ar refused and check that we refuse it too.
			for _, f := range fs {
				w, se := llvmAr(t, []file{f})
				g, err := writeGNU(t, []file{f})
				if (w == nil) != (err != nil) {
					t.Errorf("member %s: llvm-ar: %q; WriteGNU: %v", f.name, se, err)
				} else if w != nil && !bytes.Equal(w, g) {
					t.Errorf("member %s: archives differ\nllvm-ar:  %q\nWriteGNU: %q", f.name, w, g)
				}
			}
			continue
		}
		if err != nil {
			t.Fatalf("batch %d: WriteGNU: %v (llvm-ar succeeded, stderr %q)", batch, err, stderr)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("batch %d: archives differ", batch)
			for _, f := range fs {
				w, _ := llvmAr(t, []file{f})
				g, _ := writeGNU(t, []file{f})
				if !bytes.Equal(w, g) {
					e, _ := newELF(bytes.NewReader(f.data), int64(len(f.data)))
					t.Errorf("member %s (machine %d, 64-bit %v): \nllvm-ar:  %q\nWriteGNU: %q", f.name, e.Machine, e.Is64, symNames(t, w), symNames(t, g))
				}
			}
		}
	}
}

func symNames(t *testing.T, a []byte) string {
	r, err := NewReader(bytes.NewReader(a), int64(len(a)), "x.a")
	if err != nil {
		return "error: " + err.Error()
	}
	syms, err := r.Symbols()
	if err != nil {
		return "error: " + err.Error()
	}
	var s []string
	for _, y := range syms {
		s = append(s, fmt.Sprintf("%s@%d", y.Name, y.MemberOffset))
	}
	return strings.Join(s, " ")
}

// TestCorruptELFAgainstLLVM flips bytes of random ELF files and checks that
// WriteGNU fails exactly when llvm-ar does, and otherwise writes the same
// archive.
func TestCorruptELFAgainstLLVM(t *testing.T) {
	llvmref.Need(t, "llvm-ar")
	rng := rand.New(rand.NewSource(2))
	n := 30 // one llvm-ar run each; GOFFLOAD_AR_CORRUPT=N runs more
	if v, err := strconv.Atoi(os.Getenv("GOFFLOAD_AR_CORRUPT")); err == nil {
		n = v
	}
	if testing.Short() {
		n = 10
	}
	for i := 0; i < n; i++ {
		b := randomELF(rng).bytes()
		switch rng.Intn(4) {
		case 0: // truncate
			b = b[:rng.Intn(len(b))]
		default:
			for k := rng.Intn(3) + 1; k > 0; k-- {
				b[4+rng.Intn(len(b)-4)] = byte(rng.Intn(256))
			}
		}
		f := file{"c.o", b}
		w, se := llvmAr(t, []file{f})
		g, err := writeGNU(t, []file{f})
		if (w == nil) != (err != nil) {
			t.Errorf("case %d: llvm-ar: %q; WriteGNU: %v\n%x", i, se, err, b)
		} else if w != nil && !bytes.Equal(w, g) {
			t.Errorf("case %d: archives differ\nllvm-ar:  %q\nWriteGNU: %q", i, symNames(t, w), symNames(t, g))
		} else if w == nil && !strings.Contains(se, err.Error()) && !strings.Contains(se, "LLVM ERROR: "+strings.TrimPrefix(err.Error(), "'c.o': ")) {
			t.Errorf("case %d: messages differ: llvm-ar: %s   WriteGNU: %v", i, strings.SplitN(strings.TrimSpace(se), "\n", 2)[0], err)
		} else if w == nil {
			t.Logf("both fail: llvm-ar: %s   WriteGNU: %v", strings.SplitN(strings.TrimSpace(se), "\n", 2)[0], err)
		}
	}
}

// TestNonELFMembersAgainstLLVM covers members that are not ELF: COFF-like
// blobs (which LLVM reads as COFF), COFF headers of many machines, text,
// empty files, nested archives, GOFF, Mach-O-like headers and malformed ELF
// headers.
func TestNonELFMembersAgainstLLVM(t *testing.T) {
	llvmref.Need(t, "llvm-ar")
	coff := func(machine, nsec uint16, symPtr, nsym uint32, opt uint16, extra int) []byte {
		b := make([]byte, 20+extra)
		b[0], b[1] = byte(machine), byte(machine>>8)
		b[2], b[3] = byte(nsec), byte(nsec>>8)
		binary.LittleEndian.PutUint32(b[8:], symPtr)
		binary.LittleEndian.PutUint32(b[12:], nsym)
		b[16], b[17] = byte(opt), byte(opt>>8)
		return b
	}
	cases := []file{
		{"zeros100", make([]byte, 100)},
		{"zeros20", make([]byte, 20)},
		{"zeros19", make([]byte, 19)},
		{"zeros4", make([]byte, 4)},
		{"zeros3", make([]byte, 3)},
		{"coff-section", coff(0, 1, 0, 0, 0, 40)},
		{"coff-section-cut", coff(0, 1, 0, 0, 0, 39)},
		{"coff-opt-cut", coff(0, 0, 0, 0, 8, 4)},
		{"coff-x64", coff(0x8664, 0, 0, 0, 0, 0)},
		{"zero-junk", []byte("\x00\x00junkjunkjunkjunkjunkjunkjunk")},
		{"text", []byte("hello\n")},
		{"empty", nil},
		{"elf-short", []byte("\x7fELF\x02\x01\x01")},
		{"elf-17", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")},
		{"elf-badclass", []byte("\x7fELF\x05\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")},
		{"elf-baddata", []byte("\x7fELF\x02\x07\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")},
		{"elf-header-cut", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 30)...)},
		{"nested", []byte("!<arch>\n")},
		// LLVM 22 identifies GOFF as a symbolic file but reads none.
		{"goff", append([]byte("\x03\xf0\x00"), make([]byte, 77)...)},
		// Mach-O of file type 0 and a Java-class-like universal header are
		// not symbolic files to LLVM 22.
		{"macho-type0", append([]byte("\xcf\xfa\xed\xfe"), make([]byte, 28)...)},
		{"universal-0x80", append([]byte("\xca\xfe\xba\xbe\x00\x00\x00\x80"), make([]byte, 40)...)},
	}
	// COFF headers of every machine LLVM 22's identify_magic takes for an
	// object, and of machines Microsoft defines that it does not: only the
	// former make llvm-ar write a symbol table.
	for _, m := range []uint16{0x14c, 0x24c, 0x1c4, 0x2c4, 0x1f0, 0x2f0, 0x183, 0x283, 0x184, 0x284, 0x166, 0x266,
		0x150, 0x250, 0x290, 0x268, 0x8664, 0xaa64, 0xa641, 0xa64e,
		0x1c0, 0x1c2, 0x200, 0x169, 0x366, 0x466, 0x1f1, 0x1a2, 0x1a3, 0x1a6, 0x1a8, 0x5032, 0x5064, 0x5128,
		0xebc, 0x9041, 0xc0ee, 0x3a64, 0x190, 0x168, 0x14d, 0x8664 ^ 0x0100} {
		cases = append(cases, file{fmt.Sprintf("coff-%04x", m), coff(m, 0, 0, 0, 0, 0)})
	}
	for _, c := range cases {
		w, se := llvmAr(t, []file{c})
		g, err := writeGNU(t, []file{c})
		switch {
		case (w == nil) != (err != nil):
			t.Errorf("%s: llvm-ar: %q; WriteGNU: %v", c.name, se, err)
		case w != nil && !bytes.Equal(w, g):
			t.Errorf("%s: archives differ\nllvm-ar:  %q\nWriteGNU: %q", c.name, w, g)
		case w == nil && !strings.HasSuffix(strings.TrimSpace(se), err.Error()):
			t.Errorf("%s: llvm-ar says %q, WriteGNU %q", c.name, se, err)
		}
	}
}

const freshSource = `
int g1 = 1;
int g2;
static int s1 = 3;
__attribute__((weak)) int w1 = 4;
__attribute__((visibility("hidden"))) int h1 = 5;
__attribute__((visibility("protected"))) int p1 = 6;
extern int undef1;
__thread int tls1 = 7;
int func(void) { return undef1 + s1; }
static int sfunc(void) { return 2; }
__attribute__((weak)) int wfunc(void) { return sfunc(); }
extern __attribute__((weak)) int wundef(void);
int uses(void) { return wundef ? wundef() : 0; }
__attribute__((section(".custom"))) int in_custom = 8;
asm(".globl asm_abs\n.set asm_abs, 0x1234");
`

// TestFreshObjectsAgainstLLVM compiles members with clang-22 (several
// targets, object and bitcode) and gcc, and compares WriteGNU with llvm-ar.
func TestFreshObjectsAgainstLLVM(t *testing.T) {
	clang := llvmref.Need(t, "clang")
	llvmref.Need(t, "llvm-ar")
	dir := t.TempDir()
	src := filepath.Join(dir, "a.c")
	if err := os.WriteFile(src, []byte(freshSource), 0o644); err != nil {
		t.Fatal(err)
	}
	builds := map[string][]string{
		"x86_64.o":  {clang, "-c", "-fcommon"},
		"i386.o":    {clang, "-c", "--target=i386-linux-gnu", "-ffunction-sections", "-fdata-sections"},
		"aarch64.o": {clang, "-c", "--target=aarch64-linux-gnu"},
		"ppc64.o":   {clang, "-c", "--target=powerpc64-linux-gnu"},
		"armv7.o":   {clang, "-c", "--target=armv7-linux-gnueabihf", "-mthumb"},
		"riscv.o":   {clang, "-c", "--target=riscv64-linux-gnu"},
		"module.bc": {clang, "-c", "-emit-llvm", "-fcommon"},
	}
	if gcc, err := exec.LookPath("gcc"); err == nil {
		builds["gcc.o"] = []string{gcc, "-c", "-fcommon", "-O1"}
	}
	var fs []file
	for _, name := range []string{"x86_64.o", "i386.o", "aarch64.o", "ppc64.o", "armv7.o", "riscv.o", "module.bc", "gcc.o"} {
		argv, ok := builds[name]
		if !ok {
			continue
		}
		out := filepath.Join(dir, name)
		res := llvmref.Run(t, dir, nil, nil, append(argv, src, "-o", out)...)
		if res.Code != 0 {
			t.Logf("skipping %s: %s", name, res.Stderr)
			continue
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, file{name, data})
	}
	want, stderr := llvmAr(t, fs)
	if want == nil {
		t.Fatalf("llvm-ar: %s", stderr)
	}
	got, err := writeGNU(t, fs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("archives differ\nllvm-ar:  %s\nWriteGNU: %s", symNames(t, want), symNames(t, got))
	}
	t.Logf("%d members; symbols: %s", len(fs), symNames(t, got))
}
