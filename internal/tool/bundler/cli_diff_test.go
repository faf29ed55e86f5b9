package bundler_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
)

// Output names that cannot be files: LLVM reports open(2)'s error on the
// name (an empty name, a trailing slash), never a failed rename.
func TestDiffOutputNames(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	b := refMake(t, ref, "-type=bc", "-targets="+host+","+gfx906, "-input=hb", "-input=b1")
	files := withFiles(map[string][]byte{"b.bc": b})
	var cases []difftest.Case
	for _, out := range []string{"", "nodir/", "sub/", "hb/", "."} {
		cases = append(cases,
			cs("-type=bc", "-targets="+host, "-input=hb", "-output="+out),
			cs("-type=i", "-targets="+host, "-input=h.txt", "-output="+out),
			cs("-type=bc", "-unbundle", "-targets="+gfx906, "-input=b.bc", "-output="+out),
			cs("-type=bc", "-unbundle", "-targets="+gfx906+","+host, "-input=b.bc", "-output=x", "-output="+out),
		)
	}
	cases = append(cases, cs("-type=bc", "-targets="+host, "-inputs=hb", "-outputs="))
	for i := range cases {
		cases[i].Files = files
	}
	compare(t, ref, ours, cases)
}

// LLVM's cl parser: -h groups (-hh, -hh=0), an empty boolean value is true,
// and the "Did you mean" line follows LLVM's option map order, leaves out
// -h and --color, drops an empty "=" and never gives --help a value.
func TestDiffOptionSpellings(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	var cases []difftest.Case
	for _, a := range []string{
		"-hh", "--hh", "-hh=0", "-hh=1", "-hh=", "-hh=x", "-hhh=0", "-hxh", "-hhx=1", "-hh=0h", "-hhelp", "-hlist",
		"-hel=x", "-help=", "-list=", "-unbundle=", "-heipjese", "-qqqq", "-l", "-x", "-xh", "-colo", "-color=x",
		"-ty=bc", "-=", "--=", "-=x", "-types=", "-versio=1", "-hel=", "--print-options=", "---list", "-compresion-level=3",
		"-zzzzzzzzzzzzzzzzzzzz", "-chek-input-archive", "-iunod-lpgy", "-ck-i#st-rive", "-al-smisigtndes", "-cmlssis-evl", "-pnp-lsthddss", "-tuyeptist-hde", "-nitcalvoxp#wqos", "-inpts=x", "-outpt=", "-target", "-bundle-alin=4",
	} {
		cases = append(cases, cs("-type=bc", "-list", "-input=hb", a), cs(a))
	}
	compare(t, ref, ours, cases)
}

// scratchRE matches the scratch folder a case runs in, which differs
// between the two runs.
var scratchRE = regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/[^/']+/[0-9]+`)

// hideScratch hides the scratch folder in messages that name it.
func hideScratch(o *difftest.Outcome) {
	o.Stderr = scratchRE.ReplaceAllString(o.Stderr, "DIR")
}

// Response files: quotes, empty tokens, byte order marks, UTF-16, NULs,
// names relative to the current folder, files that include themselves
// and folders (LLVM then prints why and runs with every option at its
// default).
func TestDiffResponseFiles(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	list := "-type=bc -list -input=hb"
	u16 := func(s string, be bool) []byte {
		b := []byte{0xff, 0xfe}
		if be {
			b = []byte{0xfe, 0xff}
		}
		for _, c := range []byte(s) {
			if be {
				b = append(b, 0, c)
			} else {
				b = append(b, c, 0)
			}
		}
		return b
	}
	files := withFiles(map[string][]byte{
		"r1":         []byte("-type=bc -targets=" + host + " -input=hb -output=o1\n"),
		"r2":         []byte(`"-type=bc" '-targets=` + host + `' -input=h\b -output="o 2"` + "\r\n"),
		"r3":         []byte("-type=bc @sub/inner"),
		"sub/inner":  []byte("-input=hb @inner2"),
		"inner2":     []byte("-list"),
		"sub/inner2": []byte("-unbundle"),
		"empty":      nil,
		"q1":         []byte(list + ` "" ""x`),
		"q2":         []byte(list + ` ""`),
		"q3":         []byte("-type=bc\v-list\f-input=hb"),
		"q4":         []byte("-type=bc\x00-list -input=hb"),
		"bom":        []byte("\xef\xbb\xbf" + list),
		"u16le":      u16(list, false),
		"u16be":      u16(list, true),
		"u16raw":     u16(list, false)[2:],
		"u16odd":     []byte("\xff\xfe-"),
		"self":       []byte("@sub/../self"),
		"ping":       []byte("-list @pong"),
		"pong":       []byte("@ping"),
		"twice":      []byte("@r1 @r1"),
		"dotdir":     []byte(list + " @"),
	})
	var cases []difftest.Case
	for _, args := range [][]string{
		{"@r1"}, {"@r2"}, {"@r3"}, {"@empty", "-type=bc", "-list", "-input=hb"}, {"@missing"}, {"@q1"}, {"@q2"},
		{"@q3"}, {"@q4"}, {"@bom"}, {"@u16le"}, {"@u16be"}, {"@u16raw"}, {"@u16odd"}, {"@self"}, {"@ping"},
		{"@twice"}, {"@dotdir"}, {"@"}, {"@sub"}, {"@sub/"}, {"-type=bc", "--help", "@ping"}, {"-type=bc", "-list", "-input=hb", "--", "@r1"},
	} {
		cases = append(cases, difftest.Case{Args: args, Files: files})
	}
	compare(t, ref, ours, cases, hideScratch)
}

// Outputs through symbolic links are written as LLVM writes them: the file
// the link names changes, the link stays; a dangling link gets its target
// created.
func TestDiffSymlinkedOutputs(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	run := func(bin string, args ...string) (string, map[string]string) {
		dir := t.TempDir()
		for name, data := range map[string]string{"hb": "HOSTDATA", "b1": "DEV1", "real": "old"} {
			os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
		}
		os.Symlink("real", filepath.Join(dir, "lnk"))
		os.Symlink("created", filepath.Join(dir, "dang"))
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		state := map[string]string{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if target, err := os.Readlink(p); err == nil {
				state[e.Name()] = "-> " + target
			} else {
				b, _ := os.ReadFile(p)
				state[e.Name()] = string(b)
			}
		}
		return string(out), state
	}
	for _, args := range [][]string{
		{"-type=bc", "-targets=" + host, "-input=hb", "-output=lnk"},
		{"-type=i", "-targets=" + host, "-input=hb", "-output=dang"},
		{"-type=bc", "-targets=" + host, "-input=lnk", "-output=lnk"},
	} {
		wantOut, want := run(ref, args...)
		gotOut, got := run(ours, args...)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%v: folder after LLVM %q, after ours %q (%s / %s)", args, want, got, wantOut, gotOut)
		}
	}
}

// The program name in messages and help follows argv[0] as LLVM reads it:
// its last component ("." after a trailing slash), no "<argv0>: " before
// "error:" when argv[0] is empty.
func TestDiffArgv0(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	// (An empty argv[0] is covered by llvmcl.TestProgName: difftest.Run
	// reads "" as "the tool's own name".)
	var cases []difftest.Case
	for _, argv0 := range []string{"x/", "/", "a b", "/some/where/mybundler"} {
		for _, args := range [][]string{
			{"--help"}, {"-typo"}, {"-type=bc", "-list", "-input=nope"},
			{"-type=bc", "-targets=" + host, "-inputs=hb", "-output=o"},
		} {
			cases = append(cases, difftest.Case{Name: fmt.Sprintf("argv0 %q %s", argv0, strings.Join(args, " ")), Args: args, Files: baseFiles, Argv0: argv0})
		}
	}
	difftest.Compare(t, ref, ours, cases)
}

// Help and version text that cannot be written (stdout is /dev/full) is
// LLVM's fatal "IO failure on output stream", exit 1.
func TestDiffHelpToFullStdout(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	run := func(bin string, args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Args[0] = "clang-offload-bundler"
		cmd.Stdout = full
		var stderr strings.Builder
		cmd.Stderr = &stderr
		cmd.Run()
		return cmd.ProcessState.ExitCode(), stderr.String()
	}
	for _, args := range [][]string{{"--help"}, {"--version"}, {"--help-list-hidden"}, {"-type=x", "-h"}} {
		wc, we := run(ref, args...)
		gc, ge := run(ours, args...)
		if wc != gc || we != ge {
			t.Errorf("%v: LLVM %d %q, ours %d %q", args, wc, we, gc, ge)
		}
	}
}

// LLVM reports a positional argument (the bundler takes none) where it
// meets it, among the other messages, and before --help or --version acts.
func TestDiffPositionalOrder(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	compare(t, ref, ours, []difftest.Case{
		cs("-type=i", "pos", "--bundle-align=-1"),
		cs("-", "---list", "--version"),
		cs("@nope", "-help"),
		cs("--outputs=o,p", "pos", "--type=", "--bundle-align=-1", "--bundle-align=x"),
		cs("-allow-missing-bundles", "@nope", "--bundle-align=x", "-xyz"),
		cs("-type=bc", "-list", "-input=hb", "--", "a", "-b", "--"),
	})
}
