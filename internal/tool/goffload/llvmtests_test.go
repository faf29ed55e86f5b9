package goffloadcmd

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// The inputs of testdata/llvmtests have the shapes of LLVM's regression
// tests for llvm-objdump --offloading and llvm-readobj --offloading; its
// gen.sh saved what LLVM 22's tools say about each. These tests hold
// goffload to the same answers: LLVM 22's live tools when they are
// installed, the saved outputs otherwise.
const llvmTestsDir = "../../../testdata/llvmtests"

func llvmTestInputs(t *testing.T) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(llvmTestsDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range all {
		switch filepath.Ext(f) {
		case ".readobj", ".objdump", ".offload-binary", ".sh", ".md":
			continue
		}
		out = append(out, f)
	}
	if len(out) < 15 {
		t.Fatalf("only %d inputs in %s", len(out), llvmTestsDir)
	}
	return out
}

// refRun is what one LLVM tool said: exit status, stdout and stderr (the
// input's path written FILE, the tools' folder left out), and for objdump
// the files it extracted (name, size, SHA-256 or "unreliable").
type refRun struct {
	code           int
	stdout, stderr string
	files          [][3]string
}

// parseRef reads a saved .readobj or .objdump file of gen.sh.
func parseRef(t *testing.T, name string) (refRun, bool) {
	t.Helper()
	data, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return refRun{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	var r refRun
	head, rest, _ := strings.Cut(s, "-- stdout\n")
	if _, err := fmt.Sscanf(head, "exit %d", &r.code); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	r.stdout, rest, _ = strings.Cut(rest, "-- stderr\n")
	r.stderr, rest, _ = strings.Cut(rest, "-- files\n")
	for _, line := range strings.Split(strings.TrimSpace(rest), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			r.files = append(r.files, [3]string{f[0], f[1], f[2]})
		}
	}
	return r, true
}

// liveRef runs an LLVM 22 tool as gen.sh did, on a copy of input named
// FILE in an empty folder; ok is false when the tool is not installed.
func liveRef(t *testing.T, tool, input string, unreliable bool) (refRun, bool) {
	t.Helper()
	p := llvmref.Path(tool)
	if p == "" {
		return refRun{}, false
	}
	dir := t.TempDir()
	data, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "FILE"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := llvmref.Run(t, dir, nil, nil, p, "--offloading", "FILE")
	clean := func(b []byte) string {
		return strings.ReplaceAll(string(b), llvmref.Dir()+"/", "")
	}
	r := refRun{code: res.Code, stdout: clean(res.Stdout), stderr: clean(res.Stderr)}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() == "FILE" {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		sum := sha256.Sum256(b)
		h := hex.EncodeToString(sum[:])
		if unreliable {
			h = "unreliable"
		}
		r.files = append(r.files, [3]string{e.Name(), strconv.Itoa(len(b)), h})
	}
	return r, true
}

// reference returns LLVM 22's answer for input: live when the tool is
// installed (checking that the saved one still agrees), saved otherwise.
func reference(t *testing.T, tool, input, suffix string) (refRun, bool) {
	t.Helper()
	saved, haveSaved := parseRef(t, input+suffix)
	if !haveSaved {
		return refRun{}, false
	}
	live, ok := liveRef(t, tool, input, strings.Contains(input, "compress"))
	if !ok {
		t.Logf("%s: %s not found in %s; comparing with the saved %s", filepath.Base(input), tool, llvmref.Dir(), suffix)
		return saved, true
	}
	if live.code != saved.code || live.stdout != saved.stdout || !slices.Equal(live.files, saved.files) {
		t.Errorf("%s: %s now says otherwise than the saved %s (run testdata/llvmtests/gen.sh):\nlive  %+v\nsaved %+v",
			filepath.Base(input), tool, suffix, live, saved)
	}
	return live, true
}

// objdumpImages reads objdump's "OFFLOADING IMAGE [i]:" blocks as
// kind/arch/triple/producer lines.
func objdumpImages(stdout string) []string {
	var out []string
	var cur map[string]string
	flush := func() {
		if cur != nil {
			out = append(out, fmt.Sprintf("kind=%s arch=%s triple=%s producer=%s", cur["kind"], cur["arch"], cur["triple"], cur["producer"]))
		}
		cur = nil
	}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "OFFLOADING IMAGE ["):
			flush()
			cur = map[string]string{}
		case cur != nil && line == "":
			flush()
		case cur != nil:
			k, v, _ := strings.Cut(line, "  ")
			cur[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	flush()
	return out
}

// topImages are the OffloadBinary images goffload lists directly in their
// section or file: not those inside an image that is itself an
// OffloadBinary.
func topImages(l *inspect.Listing) []*inspect.Object {
	var out []*inspect.Object
	for _, o := range l.Objects {
		if o.Container != "offload image" {
			continue
		}
		n := 0
		for _, s := range o.Path {
			if strings.HasPrefix(s, "offload binary ") {
				n++
			}
		}
		if n == 1 {
			out = append(out, o)
		}
	}
	return out
}

func readFileListing(t *testing.T, input string) *inspect.Listing {
	t.Helper()
	l, err := inspect.ReadFile(input, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func hasControl(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r != '\n' && r != '\t' && !unicode.IsPrint(r) {
			return true
		}
		i += n
	}
	return false
}

// goffload list agrees with llvm-objdump --offloading on every input: the
// same OffloadBinary images in the same order, the same bundle entries with
// the same bytes, and a failure where LLVM fails (COFF bundles aside, which
// LLVM 22's objdump does not read).
func TestLLVMShapesObjdump(t *testing.T) {
	for _, input := range llvmTestInputs(t) {
		base := filepath.Base(input)
		t.Run(base, func(t *testing.T) {
			ref, ok := reference(t, "llvm-objdump", input, ".objdump")
			if !ok {
				t.Fatalf("no saved llvm-objdump output for %s (run gen.sh)", base)
			}
			l := readFileListing(t, input)
			stdout, stderr, code := run(t, "list", input)
			if hasControl(stdout) || hasControl(stderr) {
				t.Errorf("list prints raw control bytes or invalid UTF-8:\n%q\n%q", stdout, stderr)
			}
			unsupported := strings.Contains(ref.stderr, "COFF object files not supported")
			switch {
			case ref.code != 0 && !unsupported:
				if code != 1 {
					t.Errorf("llvm-objdump fails (%s), goffload list exits %d:\n%s%s", strings.TrimSpace(ref.stderr), code, stdout, stderr)
				}
			case strings.Contains(ref.stderr, "only supported for COFF and ELF"):
				if code != 0 || len(l.Objects) != 0 {
					t.Errorf("list exits %d with %d objects, want 0 and none:\n%s%s", code, len(l.Objects), stdout, stderr)
				}
			default:
				if code != 0 {
					t.Errorf("llvm-objdump reads it, goffload list exits %d:\n%s%s", code, stdout, stderr)
				}
			}
			if ref.code == 0 {
				want := objdumpImages(ref.stdout)
				var got []string
				for _, o := range topImages(l) {
					got = append(got, fmt.Sprintf("kind=%s arch=%s triple=%s producer=%s", o.ImageKind, o.TargetID, o.Triple, o.Kind))
				}
				if !slices.Equal(got, want) {
					t.Errorf("OffloadBinary images:\n got %q\nwant %q", got, want)
				}
			}
			// Extracted bundle entries: FILE.<n>.<ID>, all in bundle 0 here.
			for _, f := range ref.files {
				name, size, sum := f[0], f[1], f[2]
				id := strings.TrimPrefix(name, "FILE.0.")
				out, errs, code := run(t, "extract", "--id", id, "-o", "-", input)
				if code != 0 {
					t.Errorf("extract --id %s: exit %d: %s", id, code, errs)
					continue
				}
				got := sha256.Sum256([]byte(out))
				if strconv.Itoa(len(out)) != size || sum != "unreliable" && hex.EncodeToString(got[:]) != sum {
					t.Errorf("extract --id %s: %d bytes %x, llvm-objdump wrote %s bytes %s", id, len(out), got, size, sum)
				}
			}
		})
	}
}

// goffload lists, in .hip_fatbin, what llvm-readobj --offloading lists
// (offsets of compressed entries are inside the inflated bundle there, a
// known LLVM defect), and fails where it warns.
func TestLLVMShapesReadobj(t *testing.T) {
	n := 0
	for _, input := range llvmTestInputs(t) {
		base := filepath.Base(input)
		ref, ok := reference(t, "llvm-readobj", input, ".readobj")
		if !ok {
			continue
		}
		n++
		t.Run(base, func(t *testing.T) {
			var want []string
			for _, line := range strings.Split(ref.stdout, "\n") {
				id, uri, ok := strings.Cut(line, "\tfile://FILE#")
				if ok {
					want = append(want, id+" "+uri)
				}
			}
			l := readFileListing(t, input)
			var got []string
			for _, o := range l.Objects {
				if len(o.Path) == 0 || o.Path[0] != ".hip_fatbin" || !strings.HasPrefix(l.Kind, "ELF") {
					continue
				}
				off := o.Offset
				if o.Compressed != nil {
					off = o.Compressed.InnerOffset
				}
				got = append(got, fmt.Sprintf("%s offset=%d&size=%d", o.ID, off, o.Size))
			}
			if !slices.Equal(got, want) {
				t.Errorf(".hip_fatbin entries:\n got %q\nwant %q", got, want)
			}
			if strings.Contains(ref.stderr, "warning:") && !strings.Contains(ref.stderr, "not supported") && len(l.Errors) == 0 {
				t.Errorf("llvm-readobj warns (%s), goffload reports nothing", strings.TrimSpace(ref.stderr))
			}
		})
	}
	if n < 10 {
		t.Fatalf("only %d inputs with saved llvm-readobj output", n)
	}
}

// goffload extract --triple T --arch A takes the same bytes as
// llvm-offload-binary FILE --image=triple=T,arch=A: for nested
// OffloadBinaries, the outer image whole.
func TestLLVMShapesOffloadBinary(t *testing.T) {
	saved, _ := filepath.Glob(filepath.Join(llvmTestsDir, "*.offload-binary"))
	if len(saved) < 4 {
		t.Fatalf("only %d .offload-binary files", len(saved))
	}
	packager := llvmref.Path("llvm-offload-binary")
	if packager == "" {
		t.Logf("llvm-offload-binary not found in %s; comparing with the saved outputs", llvmref.Dir())
	}
	for _, sf := range saved {
		input := strings.TrimSuffix(sf, ".offload-binary")
		data, err := os.ReadFile(sf)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			f := strings.Fields(line) // triple arch exit N size sha | triple arch exit N none
			if len(f) < 5 {
				t.Fatalf("%s: bad line %q", sf, line)
			}
			triple, arch := f[0], f[1]
			wantSize, wantSum := "", ""
			if len(f) == 6 {
				wantSize, wantSum = f[4], f[5]
			}
			if packager != "" {
				dir := t.TempDir()
				llvmref.Run(t, dir, nil, nil, packager, input, "--image=triple="+triple+",arch="+arch+",file=x.out")
				if b, err := os.ReadFile(filepath.Join(dir, "x.out")); err == nil {
					sum := sha256.Sum256(b)
					if live := hex.EncodeToString(sum[:]); live != wantSum {
						t.Errorf("%s: llvm-offload-binary now extracts %s (saved %s); run gen.sh", line, live, wantSum)
					}
				}
			}
			out, errs, code := run(t, "extract", "--triple", triple, "--arch", arch, "-o", "-", input)
			if wantSum == "" {
				if code == 0 {
					t.Errorf("%s: llvm-offload-binary extracts nothing, goffload extract does", line)
				}
				continue
			}
			sum := sha256.Sum256([]byte(out))
			if code != 0 || strconv.Itoa(len(out)) != wantSize || hex.EncodeToString(sum[:]) != wantSum {
				t.Errorf("%s: goffload extract --triple %s --arch %s: exit %d, %d bytes %x; want %s bytes %s\n%s",
					filepath.Base(input), triple, arch, code, len(out), sum, wantSize, wantSum, errs)
			}
		}
	}
}
