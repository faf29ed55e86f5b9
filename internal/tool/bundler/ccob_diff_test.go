package bundler_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/test/difftest"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// hideDry hides what may differ in the llvm-objcopy command line that -###
// prints: the temporary file's random name, and objcopy's path, which LLVM
// finds from its own location.
func hideDry(o *difftest.Outcome) {
	o.Stderr = objcopyRE.ReplaceAllString(tmpRE.ReplaceAllString(o.Stderr, "TMP"), `"OBJCOPY"`)
}

// A compressed ELF fat object: LLVM lists it and extracts device code from
// it, but makes the host object by running llvm-objcopy on the input path,
// which holds the CCOB, so objcopy fails. The same happens with standard
// input, which LLVM has read to its end before objcopy reads it.
func TestDiffCompressedFatObject(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	files := objectFiles(t)
	const targets = "-targets=" + host + "," + gfx906
	fat := difftest.Run(t, ref, difftest.Case{Files: files, Args: []string{"-type=o", targets, "-input=clang.o", "-input=d1", "-output=fat.o"}})
	if fat.Code != 0 {
		t.Fatal(fat.Stderr)
	}
	files["fat.o"] = fat.Files["fat.o"]
	for name, opt := range map[string]compress.Options{"c3.o": {}, "c1.o": {Version: 1}, "cz.o": {Zlib: true, Level: compress.ZlibDefaultLevel}} {
		var b bytes.Buffer
		if _, err := compress.Compress(&b, fat.Files["fat.o"], opt); err != nil {
			t.Fatal(err)
		}
		files[name] = b.Bytes()
	}
	var cases []difftest.Case
	for _, in := range []string{"c3.o", "c1.o", "cz.o"} {
		for _, args := range [][]string{
			{"-type=o", "-list", "-input=" + in},
			{"-type=o", "-unbundle", "-targets=" + gfx906, "-input=" + in, "-output=d"},
			{"-type=o", "-unbundle", targets, "-input=" + in, "-output=h", "-output=d"},
			{"-type=o", "-unbundle", targets, "-input=" + in, "-output=h", "-output=d", "-allow-missing-bundles", "-verbose"},
			{"-type=o", "-unbundle", targets, "-input=" + in, "-output=h", "-output=d", "-###"},
			{"-type=bc", "-unbundle", targets, "-input=" + in, "-output=h", "-output=d"},
		} {
			cases = append(cases, difftest.Case{Files: files, Args: args})
		}
	}
	for _, in := range []string{"fat.o", "c3.o"} {
		for _, args := range [][]string{
			{"-type=o", "-list", "-input=-"},
			{"-type=o", "-unbundle", "-targets=" + gfx906, "-input=-", "-output=d"},
			{"-type=o", "-unbundle", targets, "-input=-", "-output=h", "-output=d"},
			{"-type=o", "-unbundle", targets, "-input=-", "-output=h", "-output=d", "-###"},
		} {
			cases = append(cases, difftest.Case{Name: in + " on stdin " + strings.Join(args, " "), Files: files, Args: args, Stdin: files[in]})
		}
	}
	compare(t, ref, ours, cases, hideDry)
}

// LLVM opens the output before it compresses: an output it cannot create
// is reported without the verbose statistics of the compression.
func TestDiffCompressOutputFails(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	files := objectFiles(t)
	for k, v := range baseFiles {
		files[k] = v
	}
	var cases []difftest.Case
	for _, in := range [][]string{
		{"-type=bc", "-input=hb"},
		{"-type=i", "-input=h.txt"},
		{"-type=o", "-input=h.txt"},
		{"-type=o", "-input=clang.o"},
	} {
		for _, out := range []string{"-output=nodir/x", "-output=sub"} {
			for _, extra := range [][]string{{"-verbose"}, {"-verbose", "-###"}} {
				args := append(append(append([]string{}, in...), "-targets="+host+","+gfx906, "-input=b1", out, "-compress"), extra...)
				cases = append(cases, difftest.Case{Files: files, Args: args})
			}
		}
	}
	// The one success whose output is LLVM's own bytes: objcopy replaces
	// the compressed empty container.
	cases = append(cases, difftest.Case{Files: files, Args: []string{"-type=o", "-input=clang.o", "-targets=" + host + "," + gfx906, "-input=b1", "-output=x", "-compress", "-verbose"}})
	compare(t, ref, ours, cases, hideDry)
}

// A CCOB followed by zero padding (LLVM 22 rejects it; we read it): the
// verbose "Size before decompression" is the member's payload, not the
// padding, and the host object of a padded compressed fat object is made
// in process since LLVM has no answer to match.
func TestPaddedCCOBVerbose(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	a := refMake(t, ref, "-type=bc", "-targets="+host+","+gfx906, "-input=hb", "-input=b1", "-compress")
	h, err := compress.ParseHeader(a)
	if err != nil {
		t.Fatal(err)
	}
	padded := append(append([]byte(nil), a...), make([]byte, 4096)...)
	out := difftest.Run(t, ours, difftest.Case{Files: withFiles(map[string][]byte{"p": padded}), Args: []string{"-type=bc", "-list", "-verbose", "-input=p"}})
	want := "Size before decompression: " + commas(h.TotalSize-uint64(h.Len())) + " bytes\n"
	if out.Code != 0 || !strings.Contains(out.Stderr, want) {
		t.Errorf("want %q in:\n%s", want, out.Stderr)
	}

	files := objectFiles(t)
	fat := difftest.Run(t, ref, difftest.Case{Files: files, Args: []string{"-type=o", "-targets=" + host + "," + gfx906, "-input=clang.o", "-input=d1", "-output=fat.o"}})
	var b bytes.Buffer
	if _, err := compress.Compress(&b, fat.Files["fat.o"], compress.Options{}); err != nil {
		t.Fatal(err)
	}
	files["fat.o"] = fat.Files["fat.o"]
	files["p.o"] = append(b.Bytes(), make([]byte, 100)...)
	args := func(in string) []string {
		return []string{"-type=o", "-unbundle", "-targets=" + host + "," + gfx906, "-input=" + in, "-output=h", "-output=d"}
	}
	plain := difftest.Run(t, ref, difftest.Case{Files: files, Args: args("fat.o")})
	got := difftest.Run(t, ours, difftest.Case{Files: files, Args: args("p.o")})
	if got.Code != 0 || !bytes.Equal(got.Files["h"], plain.Files["h"]) || !bytes.Equal(got.Files["d"], plain.Files["d"]) {
		t.Errorf("padded compressed fat object: %d %s", got.Code, got.Stderr)
	}
}

// -### on an archive: LLVM prints the llvm-objcopy command it would run for
// each member's host object (a compressed fat object's too) and the host
// code objects it archives are empty.
func TestDiffArchiveDryRun(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	files := archiveFiles(t, ref)
	var b bytes.Buffer
	if _, err := compress.Compress(&b, files["memA.o"], compress.Options{}); err != nil {
		t.Fatal(err)
	}
	files["cmemA.o"] = b.Bytes()
	made := difftest.Run(t, llvmref.Need(t, "llvm-ar"), difftest.Case{Files: files, Args: []string{"rcs", "libc.a", "cmemA.o", "memA.o", "memB.o"}})
	files["libc.a"] = made.Files["libc.a"]
	var cases []difftest.Case
	for _, extra := range [][]string{{"-###"}, {"-###", "-verbose"}, {"-verbose"}} {
		args := append([]string{"-type=a", "-unbundle", "-input=libc.a", "-targets=host-x86_64-pc-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906", "-output=h.a", "-output=d.a", "-allow-missing-bundles"}, extra...)
		cases = append(cases, difftest.Case{Files: files, Args: args})
	}
	compare(t, ref, ours, cases, hideDry)
}

// commas writes n with thousands separators, as LLVM's -verbose does.
func commas(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
