package e2e

// The harness: where the two sets of tools come from, how a job runs with
// each, and how outputs are compared. The jobs themselves are in
// hip_test.go and openmp_test.go.

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// ourTools are the programs goffload replaces. clang 22 runs the first two;
// clang-offload-packager is the old name of llvm-offload-binary.
var ourTools = []string{"clang-offload-bundler", "llvm-offload-binary", "clang-offload-packager"}

// ours is the folder handed to clang with -B, prepared once per test binary.
var ours struct {
	once    sync.Once
	dir     string
	from    string           // how dir was made, for messages
	missing map[string]error // tool → why it is not in dir
	cleanup string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if ours.cleanup != "" {
		os.RemoveAll(ours.cleanup)
	}
	os.Exit(code)
}

// prepareOurs fills ours: GOFFLOAD_E2E_OURS_DIR as given, a folder of
// symlinks to LLVM's tools for "@llvm", or else goffload's commands built
// from this module.
func prepareOurs() {
	ours.missing = map[string]error{}
	v := os.Getenv("GOFFLOAD_E2E_OURS_DIR")
	if v != "" && v != "@llvm" {
		dir, err := filepath.Abs(v)
		if err != nil {
			dir = v
		}
		ours.dir, ours.from = dir, "GOFFLOAD_E2E_OURS_DIR="+v
		for _, tool := range ourTools {
			if fi, err := os.Stat(filepath.Join(dir, tool)); err != nil || fi.IsDir() {
				ours.missing[tool] = fmt.Errorf("%s is not in %s (GOFFLOAD_E2E_OURS_DIR)", tool, dir)
			}
		}
		return
	}
	dir, err := os.MkdirTemp("", "goffload-e2e-tools-")
	if err != nil {
		for _, tool := range ourTools {
			ours.missing[tool] = err
		}
		return
	}
	ours.dir, ours.cleanup = dir, dir
	if v == "@llvm" {
		ours.from = "GOFFLOAD_E2E_OURS_DIR=@llvm (symlinks to LLVM's own tools: harness self-check)"
		// LLVM's bundler looks for llvm-objcopy next to the path it was
		// run as (the symlink), then in $PATH, which may hold another
		// LLVM version's objcopy; so the self-check folder holds one too.
		for _, tool := range append(ourTools, "llvm-objcopy") {
			target := llvmref.Path(tool)
			if target == "" {
				ours.missing[tool] = fmt.Errorf("LLVM's %s not found in %s", tool, llvmref.Dir())
				continue
			}
			if err := os.Symlink(target, filepath.Join(dir, tool)); err != nil {
				ours.missing[tool] = err
			}
		}
		return
	}
	ours.from = "built from this module with go build"
	root, err := difftest.ModuleRoot()
	if err != nil {
		for _, tool := range ourTools {
			ours.missing[tool] = err
		}
		return
	}
	// One go build per tool, at the same time: a tool that does not build
	// is missing on its own.
	errs := make([]error, len(ourTools))
	var wg sync.WaitGroup
	for i, tool := range ourTools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("go", "build", "-o", filepath.Join(dir, tool), "./cmd/"+tool)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("go build ./cmd/%s failed: %v\n%s", tool, err, out)
			}
		}()
	}
	wg.Wait()
	for i, tool := range ourTools {
		if errs[i] != nil {
			ours.missing[tool] = errs[i]
		}
	}
}

// oursDir returns the folder of our tools, failing the test (not skipping
// it) when one it needs is unavailable: clang would silently fall back to
// its own tool and the test would prove nothing.
func oursDir(t *testing.T, needs ...string) string {
	t.Helper()
	ours.once.Do(prepareOurs)
	for _, tool := range needs {
		if err := ours.missing[tool]; err != nil {
			t.Fatalf("goffload's %s is unavailable, so this job cannot run with it:\n%v", tool, err)
		}
	}
	return ours.dir
}

// TestToolsBuild fails when any of goffload's drop-in commands does not
// build. With GOFFLOAD_E2E_OURS_DIR it only reports what the folder lacks;
// the jobs needing a missing tool fail.
func TestToolsBuild(t *testing.T) {
	t.Parallel()
	needClang22(t) // the whole package needs clang 22
	ours.once.Do(prepareOurs)
	t.Logf("our tools: %s (%s)", ours.dir, ours.from)
	userDir := os.Getenv("GOFFLOAD_E2E_OURS_DIR") != "" && os.Getenv("GOFFLOAD_E2E_OURS_DIR") != "@llvm"
	for _, tool := range ourTools {
		if err := ours.missing[tool]; err != nil {
			if userDir {
				t.Logf("%s: %v", tool, err)
			} else {
				t.Errorf("%s: %v", tool, err)
			}
		}
	}
}

var clangVersion struct {
	once sync.Once
	line string
}

// needClang22 skips the test unless LLVM's folder holds clang 22.
func needClang22(t *testing.T) {
	t.Helper()
	clang := llvmref.Need(t, "clang")
	clangVersion.once.Do(func() {
		out, _ := exec.Command(clang, "--version").Output()
		clangVersion.line, _, _ = strings.Cut(string(out), "\n")
	})
	if !strings.Contains(clangVersion.line, "version 22.") {
		t.Skipf("%s is not clang 22 (%q); install clang-22 lld-22 llvm-22, or set GOFFLOAD_LLVM_DIR", clang, clangVersion.line)
	}
}

// A job is a command sequence run once with LLVM's tools and once with
// ours, in the same folder.
type job struct {
	// needs lists our tools the job must make clang run; the test fails if
	// clang's -### shows it never did.
	needs []string
	// setup runs once, with LLVM's tools, before both runs (stub libraries
	// and the like); its outputs are not compared.
	setup [][]string
	// steps run once per tool set. argv[0] is an LLVM 22 tool name; "clang"
	// gets -B <our folder> in our run.
	steps [][]string
	// outputs are the files the steps write, compared between the runs.
	outputs []string
	// compressed allows compressed offload bundles to differ in their
	// compressed bytes: they are compared by header fields and by the code
	// objects LLVM's bundler extracts from them (see compareCompressed).
	compressed bool
	// newFiles adds every other file the steps leave in the folder (the
	// intermediates of -save-temps) to outputs, except LTO's
	// *.resolution.txt, which name clang's randomly named temporary files;
	// and the files left in $TMPDIR, as tmp-<name without clang's random
	// -XXXXXX suffix>.
	newFiles bool
}

// run is what one tool set left behind.
type run struct {
	name   string            // "llvm" or "ours"
	dir    string            // where the outputs were moved to
	files  []string          // the outputs, sorted
	stderr []string          // per step
	used   map[string]string // our tool's base name → path clang ran it from
}

var sourceFiles = []string{"kernel.hip", "lib.hip", "omp.c", "stub.c"}

// runJob runs j with both tool sets and compares the outputs. It is called
// first thing by a test, which it makes parallel: each job works in a
// folder of its own, with its own $TMPDIR.
func runJob(t *testing.T, j job) {
	t.Helper()
	t.Parallel()
	needClang22(t)
	for _, tool := range []string{"clang-offload-bundler", "llvm-offload-binary", "llvm-ar", "lld"} {
		llvmref.Need(t, tool)
	}
	oursBin := oursDir(t, j.needs...)

	work := t.TempDir()
	for _, name := range sourceFiles {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(work, "tmp")
	env := []string{"TMPDIR=" + tmp, "LC_ALL=C"}
	for _, argv := range j.setup {
		os.MkdirAll(tmp, 0o755)
		if r := execStep(t, work, env, "", argv); r.Code != 0 {
			t.Fatalf("setup %s failed (exit %d):\n%s", strings.Join(argv, " "), r.Code, r.Stderr)
		}
	}

	llvm := runSteps(t, work, env, "llvm", "", j)
	if t.Failed() {
		return
	}
	got := runSteps(t, work, env, "ours", oursBin, j)
	keep(t, work)
	if t.Failed() {
		return
	}
	for _, tool := range j.needs {
		if _, ok := got.used[tool]; !ok {
			t.Errorf("clang never ran %s in this job, so it proves nothing about ours", tool)
		}
	}
	for i := range j.steps {
		if llvm.stderr[i] != got.stderr[i] {
			t.Errorf("step %d (%s) wrote different messages:\nLLVM: %q\nours: %q",
				i+1, strings.Join(j.steps[i], " "), llvm.stderr[i], got.stderr[i])
		}
	}
	for _, name := range got.files {
		if !slices.Contains(llvm.files, name) {
			t.Errorf("our run left %s, LLVM's did not", name)
		}
	}
	for _, name := range llvm.files {
		a, b := filepath.Join(llvm.dir, name), filepath.Join(got.dir, name)
		if !slices.Contains(got.files, name) {
			t.Errorf("LLVM's run left %s, ours did not", name)
			continue
		}
		if j.compressed {
			compareCompressed(t, work, name, a, b, oursBin)
		} else {
			compareFiles(t, name, a, b)
		}
	}
}

// runSteps runs j's steps with one tool set (binDir "" = LLVM's), then moves
// the outputs to work/.<name>/ so the next run starts from the same state.
func runSteps(t *testing.T, work string, env []string, name, binDir string, j job) run {
	t.Helper()
	r := run{name: name, dir: filepath.Join(work, "."+name), used: map[string]string{}}
	os.MkdirAll(r.dir, 0o755)
	tmp := filepath.Join(work, "tmp")
	before := topFiles(work)
	for i, argv := range j.steps {
		os.MkdirAll(tmp, 0o755)
		if argv[0] == "clang" {
			progs := plannedCommands(t, work, env, binDir, argv)
			var summary []string
			for _, p := range progs {
				summary = append(summary, summarize(p, work))
				base := filepath.Base(p[0])
				if !slices.Contains(ourTools, base) {
					continue
				}
				if binDir != "" && filepath.Dir(p[0]) != binDir {
					t.Errorf("step %d: clang would run %s, not ours from %s", i+1, p[0], binDir)
				}
				r.used[base] = p[0]
			}
			if name == "llvm" {
				t.Logf("step %d: %s\n\truns: %s", i+1, strings.Join(argv, " "), strings.Join(summary, "\n\t      "))
			}
		}
		// A fresh $TMPDIR: clang -### -save-temps leaves files there.
		os.RemoveAll(tmp)
		os.MkdirAll(tmp, 0o755)
		res := execStep(t, work, env, binDir, argv)
		r.stderr = append(r.stderr, string(res.Stderr))
		if j.newFiles {
			for _, f := range topFiles(tmp) {
				norm := "tmp-" + randomSuffix.ReplaceAllString(f, "$1")
				if slices.Contains(r.files, norm) {
					t.Fatalf("two temporary files are named %s once their random suffixes are dropped", norm)
				}
				if err := os.Rename(filepath.Join(tmp, f), filepath.Join(r.dir, norm)); err != nil {
					t.Fatal(err)
				}
				r.files = append(r.files, norm)
			}
		}
		if res.Code != 0 {
			if name == "llvm" {
				t.Fatalf("step %d with LLVM's own tools failed (exit %d), so the harness or the environment is broken:\n%s\n%s",
					i+1, res.Code, strings.Join(argv, " "), res.Stderr)
			}
			t.Errorf("step %d with our tools failed (exit %d) where LLVM's succeeded:\n%s\n%s",
				i+1, res.Code, strings.Join(argv, " "), res.Stderr)
			break
		}
	}
	outputs := j.outputs
	if j.newFiles {
		for _, f := range topFiles(work) {
			if !slices.Contains(before, f) && !slices.Contains(outputs, f) && !strings.HasSuffix(f, ".resolution.txt") {
				outputs = append(outputs, f)
			}
		}
	}
	for _, out := range outputs {
		src := filepath.Join(work, out)
		if _, err := os.Stat(src); err != nil {
			if name == "llvm" {
				t.Fatalf("LLVM's run did not write %s", out)
			}
			if !t.Failed() {
				t.Errorf("our run did not write %s", out)
			}
			continue
		}
		if err := os.Rename(src, filepath.Join(r.dir, out)); err != nil {
			t.Fatal(err)
		}
		r.files = append(r.files, out)
	}
	slices.Sort(r.files)
	return r
}

// randomSuffix matches the random part clang gives temporary file names
// (kernel-gfx906-1a2b3c.o).
var randomSuffix = regexp.MustCompile(`-[0-9a-f]{6}(\.[^.]*)?$`)

// topFiles lists the regular files directly in dir.
func topFiles(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names
}

// execStep runs one command; "clang" gets -B binDir when binDir is set.
func execStep(t *testing.T, work string, env []string, binDir string, argv []string) llvmref.Result {
	t.Helper()
	return llvmref.Run(t, work, env, nil, commandLine(t, binDir, argv)...)
}

func commandLine(t *testing.T, binDir string, argv []string) []string {
	t.Helper()
	prog := llvmref.Path(argv[0])
	if prog == "" {
		t.Fatalf("%s not found in %s", argv[0], llvmref.Dir())
	}
	cmd := []string{prog}
	if argv[0] == "clang" && binDir != "" {
		cmd = append(cmd, "-B", binDir)
	}
	return append(cmd, argv[1:]...)
}

// plannedCommands asks clang (-###) which programs the step will run,
// returning each command line, cc1 jobs excluded.
func plannedCommands(t *testing.T, work string, env []string, binDir string, argv []string) [][]string {
	t.Helper()
	cmd := commandLine(t, binDir, argv)
	cmd = append([]string{cmd[0], "-###"}, cmd[1:]...)
	res := llvmref.Run(t, work, env, nil, cmd...)
	var progs [][]string
	for _, line := range strings.Split(string(res.Stderr), "\n") {
		if !strings.HasPrefix(line, " \"") {
			continue
		}
		args := splitQuoted(line)
		if len(args) == 0 || slices.Contains(args, "-cc1") || slices.Contains(args, "-cc1as") {
			continue
		}
		progs = append(progs, args)
	}
	return progs
}

// splitQuoted splits a -### line: "prog" "arg" "arg" with \" and \\ escapes.
func splitQuoted(line string) []string {
	var args []string
	var cur strings.Builder
	in, esc := false, false
	for _, c := range line {
		switch {
		case esc:
			cur.WriteRune(c)
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			if in {
				args = append(args, cur.String())
				cur.Reset()
			}
			in = !in
		case in:
			cur.WriteRune(c)
		}
	}
	return args
}

// summarize shortens a planned command for the log: the program's base name
// and its options, without file names.
func summarize(argv []string, work string) string {
	parts := []string{filepath.Base(argv[0])}
	if !slices.Contains(ourTools, parts[0]) {
		return parts[0]
	}
	for _, a := range argv[1:] {
		switch {
		case strings.HasPrefix(a, "-input="), strings.HasPrefix(a, "-output="), strings.HasPrefix(a, "/"), strings.HasPrefix(a, work):
			continue
		case strings.HasPrefix(a, "--image=file="):
			if i := strings.IndexByte(a, ','); i >= 0 {
				a = "--image=" + a[i+1:]
			}
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// keep copies both runs' outputs to $GOFFLOAD_E2E_KEEP/<test>/ when set.
func keep(t *testing.T, work string) {
	dest := os.Getenv("GOFFLOAD_E2E_KEEP")
	if dest == "" {
		return
	}
	dest = filepath.Join(dest, strings.ReplaceAll(t.Name(), "/", "_"))
	for _, side := range []string{"llvm", "ours"} {
		src := filepath.Join(work, "."+side)
		entries, _ := os.ReadDir(src)
		os.MkdirAll(filepath.Join(dest, side), 0o755)
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join(src, e.Name())); err == nil {
				os.WriteFile(filepath.Join(dest, side, e.Name()), b, 0o644)
			}
		}
	}
	t.Logf("outputs kept in %s", dest)
}

// compareFiles requires byte-identical outputs and explains a difference.
func compareFiles(t *testing.T, name, llvmPath, oursPath string) {
	t.Helper()
	a, errA := os.ReadFile(llvmPath)
	b, errB := os.ReadFile(oursPath)
	if errA != nil || errB != nil {
		t.Errorf("%s: %v %v", name, errA, errB)
		return
	}
	if bytes.Equal(a, b) {
		t.Logf("%s: identical (%d bytes)", name, len(a))
		return
	}
	t.Errorf("%s differs: %s", name, describeDiff(a, b))
}

// describeDiff says where two outputs part: sizes, first differing offset,
// and for ELF files the sections whose contents differ.
func describeDiff(a, b []byte) string {
	msg := difftest.Describe(a, b)
	ea, errA := elf.NewFile(bytes.NewReader(a))
	eb, errB := elf.NewFile(bytes.NewReader(b))
	if errA != nil || errB != nil {
		return msg
	}
	var diffs []string
	for _, sa := range ea.Sections {
		sb := eb.Section(sa.Name)
		if sb == nil {
			diffs = append(diffs, sa.Name+" (missing in ours)")
			continue
		}
		da, _ := sa.Data()
		db, _ := sb.Data()
		if !bytes.Equal(da, db) || sa.SectionHeader != sb.SectionHeader {
			diffs = append(diffs, fmt.Sprintf("%s (LLVM %d bytes at %#x, ours %d bytes at %#x)", sa.Name, sa.Size, sa.Offset, sb.Size, sb.Offset))
		}
	}
	for _, sb := range eb.Sections {
		if ea.Section(sb.Name) == nil {
			diffs = append(diffs, sb.Name+" (only in ours)")
		}
	}
	if len(diffs) > 0 {
		msg += "; ELF sections that differ: " + strings.Join(diffs, ", ")
	}
	return msg
}

// compareCompressed compares outputs that may hold compressed offload
// bundles (CCOB), whose compressed bytes may legitimately differ: the
// whole-file or the .hip_fatbin section's CCOB headers must agree in every
// field but the total size, the code objects LLVM's bundler extracts from
// both must be identical, and everything else in an ELF file must be
// identical too. Outputs without a CCOB must simply be identical.
func compareCompressed(t *testing.T, work, name, llvmPath, oursPath, oursBin string) {
	t.Helper()
	a, errA := os.ReadFile(llvmPath)
	b, errB := os.ReadFile(oursPath)
	if errA != nil || errB != nil {
		t.Errorf("%s: %v %v", name, errA, errB)
		return
	}
	if bytes.Equal(a, b) {
		// Still take it apart below, so the comparison itself is exercised
		// by the harness self-check.
		t.Logf("%s: identical (%d bytes), compressed bytes included", name, len(a))
	}
	switch {
	case bytes.HasPrefix(a, []byte("CCOB")):
		compareBundles(t, work, name, a, b, oursBin)
	case bytes.HasPrefix(a, []byte(elf.ELFMAG)):
		fa, fb := fatbinSection(t, name, "LLVM", a), fatbinSection(t, name, "ours", b)
		if fa == nil || fb == nil {
			t.Errorf("%s differs: %s", name, describeDiff(a, b))
			return
		}
		compareELFExcept(t, name, a, b, ".hip_fatbin")
		compareBundles(t, work, name+" .hip_fatbin", fa, fb, oursBin)
	default:
		t.Errorf("%s differs and holds no compressed bundle: %s", name, describeDiff(a, b))
	}
}

func fatbinSection(t *testing.T, name, who string, data []byte) []byte {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Errorf("%s (%s): %v", name, who, err)
		return nil
	}
	s := f.Section(".hip_fatbin")
	if s == nil {
		t.Errorf("%s (%s): no .hip_fatbin section", name, who)
		return nil
	}
	b, err := s.Data()
	if err != nil {
		t.Errorf("%s (%s): .hip_fatbin: %v", name, who, err)
		return nil
	}
	return b
}

// compareELFExcept requires the same section headers (but offsets and the
// skipped section's size) and contents in both, apart from section skip.
func compareELFExcept(t *testing.T, name string, a, b []byte, skip string) {
	t.Helper()
	ea, err := elf.NewFile(bytes.NewReader(a))
	if err != nil {
		t.Errorf("%s (LLVM): %v", name, err)
		return
	}
	eb, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Errorf("%s (ours): %v", name, err)
		return
	}
	if ea.FileHeader != eb.FileHeader || len(ea.Sections) != len(eb.Sections) {
		t.Errorf("%s: ELF headers or section counts differ (LLVM %d sections, ours %d)", name, len(ea.Sections), len(eb.Sections))
		return
	}
	for i, sa := range ea.Sections {
		sb := eb.Sections[i]
		ha, hb := sa.SectionHeader, sb.SectionHeader
		ha.Offset, hb.Offset = 0, 0
		if sa.Name == skip {
			ha.Size, hb.Size, ha.FileSize, hb.FileSize = 0, 0, 0, 0
		}
		if ha != hb {
			t.Errorf("%s: section %d header differs:\nLLVM %+v\nours %+v", name, i, ha, hb)
			continue
		}
		if sa.Name == skip || sa.Type == elf.SHT_NOBITS {
			continue
		}
		da, _ := sa.Data()
		db, _ := sb.Data()
		if !bytes.Equal(da, db) {
			t.Errorf("%s: section %s contents differ", name, sa.Name)
		}
	}
	if !t.Failed() {
		t.Logf("%s: all sections but %s identical", name, skip)
	}
}

// ccobHeader is a compressed bundle's header without its total size.
type ccobHeader struct {
	version, method uint16
	rawSize         uint64
	hash            [8]byte
}

func parseCCOB(b []byte) (ccobHeader, error) {
	le := func(p []byte) uint64 {
		var v uint64
		for i := len(p) - 1; i >= 0; i-- {
			v = v<<8 | uint64(p[i])
		}
		return v
	}
	if len(b) < 8 || string(b[:4]) != "CCOB" {
		return ccobHeader{}, fmt.Errorf("not a compressed bundle (no CCOB magic)")
	}
	h := ccobHeader{version: uint16(le(b[4:6])), method: uint16(le(b[6:8]))}
	var sizeAt, hashAt, end int
	switch h.version {
	case 1:
		sizeAt, hashAt, end = 8, 12, 20
		h.rawSize = le(b[8:min(12, len(b))])
	case 2:
		sizeAt, hashAt, end = 12, 16, 24
	case 3:
		sizeAt, hashAt, end = 16, 24, 32
	default:
		return h, fmt.Errorf("unknown CCOB version %d", h.version)
	}
	if len(b) < end {
		return h, fmt.Errorf("CCOB v%d header truncated (%d bytes)", h.version, len(b))
	}
	if h.version == 3 {
		h.rawSize = le(b[sizeAt : sizeAt+8])
	} else {
		h.rawSize = le(b[sizeAt : sizeAt+4])
	}
	copy(h.hash[:], b[hashAt:hashAt+8])
	return h, nil
}

// compareBundles compares two (possibly compressed) bundles by their CCOB
// header fields and by what LLVM's bundler lists and extracts from each; when
// our bundler is available it must list and extract the same from both.
func compareBundles(t *testing.T, work, name string, a, b []byte, oursBin string) {
	t.Helper()
	ha, errA := parseCCOB(a)
	hb, errB := parseCCOB(b)
	switch {
	case errA != nil:
		t.Errorf("%s (LLVM): %v", name, errA)
		return
	case errB != nil:
		t.Errorf("%s (ours): %v; LLVM's is a CCOB v%d", name, errB, ha.version)
		return
	case ha != hb:
		t.Errorf("%s: CCOB headers differ (version, method, uncompressed size, hash):\nLLVM %+v\nours %+v", name, ha, hb)
	default:
		same := "identical"
		if !bytes.Equal(a, b) {
			same = fmt.Sprintf("differ (LLVM %d bytes, ours %d)", len(a), len(b))
		}
		t.Logf("%s: compressed bytes %s; CCOB headers agree: v%d, method %d, %d bytes uncompressed",
			name, same, ha.version, ha.method, ha.rawSize)
	}
	dir := filepath.Join(work, ".bundles", strings.NewReplacer(" ", "_", "/", "_").Replace(name))
	os.MkdirAll(dir, 0o755)
	files := map[string][]byte{"llvm.bundle": a, "ours.bundle": b}
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bundlers := []string{llvmref.Path("clang-offload-bundler")}
	if _, err := os.Stat(filepath.Join(oursBin, "clang-offload-bundler")); err == nil {
		bundlers = append(bundlers, filepath.Join(oursBin, "clang-offload-bundler"))
	}
	var ref map[string][]byte
	for _, bundler := range bundlers {
		for _, f := range []string{"llvm.bundle", "ours.bundle"} {
			got, err := extractAll(t, dir, bundler, f, bundleType(name))
			who := fmt.Sprintf("%s read by %s", strings.TrimSuffix(f, ".bundle"), bundler)
			if err != nil {
				t.Errorf("%s: %s: %v", name, who, err)
				continue
			}
			if ref == nil {
				ref = got
				var ids []string
				for id := range got {
					ids = append(ids, id)
				}
				slices.Sort(ids)
				t.Logf("%s: %d entries: %s", name, len(ids), strings.Join(ids, ", "))
				continue
			}
			if d := diffEntries(ref, got); d != "" {
				t.Errorf("%s: %s gives other code objects than LLVM's bundler on LLVM's output: %s", name, who, d)
			}
		}
	}
}

// extractAll lists a bundle with a bundler and extracts every entry.
func extractAll(t *testing.T, dir, bundler, file, typ string) (map[string][]byte, error) {
	t.Helper()
	res := llvmref.Run(t, dir, nil, nil, bundler, "-list", "-type="+typ, "-input="+file)
	if res.Code != 0 {
		return nil, fmt.Errorf("-list failed: %s", res.Stderr)
	}
	ids := strings.Fields(string(res.Stdout))
	if len(ids) == 0 {
		return nil, fmt.Errorf("-list printed no bundle IDs")
	}
	args := []string{bundler, "-unbundle", "-type=" + typ, "-input=" + file, "-targets=" + strings.Join(ids, ",")}
	for i := range ids {
		args = append(args, fmt.Sprintf("-output=%s.%d", file, i))
	}
	res = llvmref.Run(t, dir, nil, nil, args...)
	if res.Code != 0 {
		return nil, fmt.Errorf("-unbundle failed: %s", res.Stderr)
	}
	got := map[string][]byte{}
	for i, id := range ids {
		f, err := os.Open(filepath.Join(dir, fmt.Sprintf("%s.%d", file, i)))
		if err != nil {
			return nil, err
		}
		got[id], err = io.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return got, nil
}

func diffEntries(want, got map[string][]byte) string {
	var d []string
	for id, w := range want {
		g, ok := got[id]
		switch {
		case !ok:
			d = append(d, id+" missing")
		case !bytes.Equal(w, g):
			d = append(d, fmt.Sprintf("%s differs (%s)", id, difftest.Describe(w, g)))
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			d = append(d, id+" extra")
		}
	}
	slices.Sort(d)
	return strings.Join(d, "; ")
}

// bundleType is the bundler's -type for an output named name: a text type
// for a text bundle (-S, -S -emit-llvm, -E with --offload-compress: a CCOB
// of a text bundle), else o (a binary bundle, alone or in .hip_fatbin).
func bundleType(name string) string {
	switch ext := strings.TrimPrefix(filepath.Ext(strings.Fields(name)[0]), "."); ext {
	case "s", "ll", "hipi", "i", "ii":
		return ext
	}
	return "o"
}
