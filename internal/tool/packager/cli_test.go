package packager

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/goffload/goffload/internal/format/offloadbin"
)

var golden = filepath.Join("..", "..", "format", "offloadbin", "testdata", "golden")

// The golden binaries made by LLVM 22 (testdata/golden/gen.sh) are
// reproduced byte for byte by Main, without needing LLVM.
func TestPackageGolden(t *testing.T) {
	abs, err := filepath.Abs(golden)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(golden, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	out := filepath.Join(t.TempDir(), "out.bin")
	n := 0
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		args := []string{"llvm-offload-binary", "-o", out}
		for _, a := range fields[1:] {
			// Point file= at the golden folder; paths are not stored.
			pieces := strings.Split(strings.TrimPrefix(a, "--image="), ",")
			for i, p := range pieces {
				if v, ok := strings.CutPrefix(p, "file="); ok {
					pieces[i] = "file=" + filepath.Join(abs, v)
				}
			}
			args = append(args, "--image="+strings.Join(pieces, ","))
		}
		var stderr bytes.Buffer
		if code := Main(args, Env{Stdout: &bytes.Buffer{}, Stderr: &stderr}); code != 0 {
			t.Errorf("%s: exit %d: %s", fields[0], code, stderr.String())
			continue
		}
		got, _ := os.ReadFile(out)
		want, _ := os.ReadFile(filepath.Join(golden, fields[0]+".bin"))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: output differs from LLVM 22's", fields[0])
		}
		n++
	}
	if n < 20 {
		t.Errorf("only %d golden cases", n)
	}
}

func TestParseImageSpec(t *testing.T) {
	s := ParseImageSpec("file=a.o,triple=x,noeq,=emptykey,weird=a=b,arch=g1,arch=g2,,")
	wantKeys := []string{"file", "triple", "noeq", "", "weird", "arch"}
	if strings.Join(s.Keys, "|") != strings.Join(wantKeys, "|") {
		t.Errorf("keys %q, want %q", s.Keys, wantKeys)
	}
	if s.Values["arch"] != "g1,g2" || s.Values["weird"] != "a=b" || s.Values[""] != "emptykey,," || s.Values["noeq"] != "" {
		t.Errorf("values %q", s.Values)
	}
	got := s.StringEntries()
	want := []offloadbin.StringEntry{{Key: "", Value: "emptykey,,"}, {Key: "arch", Value: "g1,g2"}, {Key: "triple", Value: "x"}, {Key: "noeq"}, {Key: "weird", Value: "a=b"}}
	if len(got) != len(want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestPathHelpers(t *testing.T) {
	for _, tt := range []struct{ path, stem, ext string }{
		{"p2.bin", "p2", "bin"},
		{"dir.x/a.b.c", "a.b", "c"},
		{".hidden", "", "hidden"},
		{"-", "-", ""},
		{".", ".", ""},
		{"..", "..", ""},
		{"x.", "x", ""},
		{".o", "", "o"},
		{"noext", "noext", ""},
	} {
		if s := stem(tt.path); s != tt.stem {
			t.Errorf("stem(%q) = %q, want %q", tt.path, s, tt.stem)
		}
		if e := extension(tt.path); e != tt.ext {
			t.Errorf("extension(%q) = %q, want %q", tt.path, e, tt.ext)
		}
	}
	if k := ImageKindOf("x.txt", []byte("\xde\xc0\x17\x0b")); k != offloadbin.ImageBitcode {
		t.Errorf("wrapper magic gives kind %d", k)
	}
	if k := ImageKindOf("x.s", nil); k != offloadbin.ImagePTX {
		t.Errorf(".s gives kind %d", k)
	}
}

func TestDeprecatedName(t *testing.T) {
	for name, want := range map[string]bool{
		"clang-offload-packager":           true,
		"/usr/bin/clang-offload-packager":  true,
		"clang-offload-packager.exe":       true,
		"my-clang-offload-packager":        true,
		"clang-offload-packager-22":        false,
		"llvm-offload-binary":              false,
		"foo":                              false,
		"clang-offload-packager.d/foo.exe": false,
	} {
		if got := IsDeprecatedName(name); got != want {
			t.Errorf("IsDeprecatedName(%q) = %v", name, got)
		}
	}
}

func TestColor(t *testing.T) {
	var stderr bytes.Buffer
	code := Main([]string{"tool", "--color", "-o", "x", "--image=triple=x"}, Env{Stdout: &bytes.Buffer{}, Stderr: &stderr})
	want := "tool: \x1b[0;1;31merror: \x1b[0m'file' is a required image arguments\n"
	if code != 1 || stderr.String() != want {
		t.Errorf("got %d %q, want %q", code, stderr.String(), want)
	}
}

// Out-of-range string offsets crash LLVM 22; we fail cleanly with the
// truncation message.
func TestExtractCrashCases(t *testing.T) {
	p2, err := os.ReadFile(filepath.Join(golden, "p2.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for name, off := range map[string]int{"num strings": 0x30, "key offset": 0x48} {
		data := bytes.Clone(p2)
		data[off+1] = 0x10
		var stderr bytes.Buffer
		code := Main([]string{"tool", "-", "--image="}, Env{Stdin: bytes.NewReader(data), Stdout: &bytes.Buffer{}, Stderr: &stderr})
		if code != 1 || stderr.String() != "tool: error: The end of the file was unexpectedly encountered\n" {
			t.Errorf("%s: %d %q", name, code, stderr.String())
		}
	}
}

type fullWriter struct{}

func (fullWriter) Write(p []byte) (int, error) { return 0, syscall.ENOSPC }

// A failed write to stdout is LLVM's fatal error, printed at exit after
// the run's other messages, exit status 1.
func TestStdoutWriteFailure(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "a.o")
	os.WriteFile(img, []byte("ABC"), 0o644)
	for _, args := range [][]string{
		{"--version"},
		{"--help"},
		{"-o", "-", "--image=file=" + img},
	} {
		var stderr bytes.Buffer
		code := Main(append([]string{"llvm-offload-binary"}, args...), Env{Stdout: fullWriter{}, Stderr: &stderr})
		want := "LLVM ERROR: IO failure on output stream: No space left on device\n"
		if code != 1 || !strings.HasSuffix(stderr.String(), want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q at the end", args, code, stderr.String(), want)
		}
	}
}

// A character device is refused at once (issue 19); /dev/zero never ends.
func TestDeviceInputRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"llvm-offload-binary", "/dev/zero", "--image=arch=gfx90a"},
		{"llvm-offload-binary", "-o", out, "--image=file=/dev/urandom,triple=amdgcn-amd-amdhsa,arch=gfx90a"},
	} {
		var stderr bytes.Buffer
		code := Main(args, Env{Stdin: bytes.NewReader(nil), Stdout: &bytes.Buffer{}, Stderr: &stderr})
		if code != 1 || !strings.Contains(stderr.String(), "a character device, not a file") {
			t.Errorf("%v: exit %d, %q", args, code, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote the output", args)
		}
	}
}
