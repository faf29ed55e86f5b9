package goffloadcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/format/offloadbin"
)

const realDir = "../../../testdata/inspect"

// realFiles are the clang 22 outputs of testdata/inspect (see its gen.sh).
func realFiles(t *testing.T) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(realDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range all {
		base := filepath.Base(f)
		if fi, err := os.Stat(f); err != nil || fi.IsDir() || strings.Contains(base, ".readobj") || strings.HasSuffix(base, ".md") || strings.HasSuffix(base, ".sh") {
			continue
		}
		out = append(out, f)
	}
	if len(out) < 15 {
		t.Fatalf("only %d files in %s", len(out), realDir)
	}
	return out
}

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(append([]string{"goffload"}, args...), strings.NewReader(""), &o, &e)
	return o.String(), e.String(), code
}

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile("../../../testdata/goffload-list.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, data).(map[string]any)
}

func decode(t *testing.T, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return v
}

// list --json on every real file, and on damaged input, follows the schema
// in testdata; the validator itself rejects what breaks the schema.
func TestListJSONSchema(t *testing.T) {
	schema := loadSchema(t)
	files := realFiles(t)
	out, stderr, code := run(t, append([]string{"list", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc := decode(t, []byte(out))
	if errs := validate(schema, doc); len(errs) > 0 {
		t.Fatalf("schema violations:\n%s", strings.Join(errs, "\n"))
	}
	m := doc.(map[string]any)
	if n, _ := m["summary"].(map[string]any)["code_objects"].(json.Number).Int64(); n < 50 {
		t.Errorf("summary counts %d code objects", n)
	}

	// Damaged input: errors in the JSON, exit 1, still valid.
	bad := filepath.Join(t.TempDir(), "bad.bin")
	data, _ := os.ReadFile(filepath.Join(realDir, "libmulti-ccob.so"))
	data = bytes.Clone(data)
	copy(data[0x2008:], "\xff\xff\xff\xff\xff\xff\xff\x7f") // second CCOB's total size
	os.WriteFile(bad, data, 0o644)
	out, _, code = run(t, "list", "--json", bad)
	if code != 1 {
		t.Errorf("damaged input: exit %d", code)
	}
	doc = decode(t, []byte(out))
	if errs := validate(schema, doc); len(errs) > 0 {
		t.Fatalf("schema violations:\n%s", strings.Join(errs, "\n"))
	}
	if e := doc.(map[string]any)["files"].([]any)[0].(map[string]any)["errors"].([]any); len(e) == 0 {
		t.Error("no error in the JSON")
	}

	// The validator is not a rubber stamp.
	for _, mutate := range []func(map[string]any){
		func(m map[string]any) { delete(m, "summary") },
		func(m map[string]any) { m["extra"] = true },
		func(m map[string]any) {
			m["files"].([]any)[0].(map[string]any)["objects"].([]any)[0].(map[string]any)["size"] = json.Number("-1")
		},
		func(m map[string]any) {
			m["files"].([]any)[0].(map[string]any)["objects"].([]any)[0].(map[string]any)["container"] = "box"
		},
	} {
		v := decode(t, []byte(out)).(map[string]any)
		if len(v["files"].([]any)[0].(map[string]any)["objects"].([]any)) == 0 {
			t.Fatal("no object to mutate")
		}
		mutate(v)
		if len(validate(schema, v)) == 0 {
			t.Error("validator accepted a document that breaks the schema")
		}
	}
}

// The table: one row per object, wrappers, a summary per target; a file
// without device code says so.
func TestListTable(t *testing.T) {
	out, stderr, code := run(t, "list", filepath.Join(realDir, "libmulti-ccob.so"), filepath.Join(realDir, "src", "hip.h"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"libmulti-ccob.so: ELF shared object",
		"  #   ID",
		"hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
		"ccob@0x2000+0x1000",
		".hip_fatbin › bundle 2 (CCOB v3 zstd)",
		".hipFatBinSegment: 3 HIPF wrapper(s), each pointing at a bundle start",
		"hip.h: unknown\n  no device code found",
		"9 code object(s) for 3 target(s) in 2 files",
		"gfx90a:xnack+",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// An empty host entry reads "-" in a CCOB as in a plain bundle.
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "host-x86_64-unknown-linux-gnu-") && !strings.HasSuffix(line, "  -") {
			t.Errorf("host entry in a CCOB: %q, want its CODE column \"-\"", line)
		}
	}
	out, _, _ = run(t, "list", filepath.Join(realDir, "libmulti.so"))
	if !strings.Contains(out, "gfx906 v6 xnack:any sramecc:any") {
		t.Errorf("no header facts:\n%s", out)
	}
}

// --uri prints llvm-readobj --offloading's lines for uncompressed entries.
func TestListURI(t *testing.T) {
	t.Chdir(realDir)
	for _, f := range []string{"libmulti.so", "hip-nonrdc.o", "exe-pie", "exe-nopie-bfd", "newdriver-exe"} {
		out, _, code := run(t, "list", "--uri", f)
		want, err := os.ReadFile(f + ".readobj")
		if err != nil || code != 0 {
			t.Fatal(err, code)
		}
		var wantLines []string
		for _, l := range strings.Split(string(want), "\n") {
			if strings.Contains(l, "\tfile://") {
				wantLines = append(wantLines, l)
			}
		}
		if got := strings.Split(strings.TrimSpace(out), "\n"); !slices.Equal(got, wantLines) {
			t.Errorf("%s:\n got %q\nwant %q", f, got, wantLines)
		}
	}
}

// --target answers "does this file hold code for my GPU?" by exit status.
func TestListTarget(t *testing.T) {
	lib := filepath.Join(realDir, "libmulti.so")
	out, _, code := run(t, "list", "--target", "gfx942", lib)
	if code != 0 || strings.Count(out, "gfx942 v6 xnack:off sramecc:on") != 3 {
		t.Errorf("gfx942: exit %d\n%s", code, out)
	}
	out, stderr, code := run(t, "list", "--target", "gfx1100", lib)
	if code != 1 || strings.Count(out+stderr, "no code object for gfx1100") != 1 ||
		!strings.Contains(out, "it holds code for gfx906, gfx90a:xnack+, gfx942:sramecc+:xnack-") {
		t.Errorf("gfx1100: exit %d, %s%s", code, out, stderr)
	}
	_, _, code = run(t, "list", "--target", "gfx90a:xnack", lib)
	if code != 2 {
		t.Errorf("malformed target: exit %d", code)
	}
}

func objects(t *testing.T, file string) *inspect.Listing {
	t.Helper()
	l, err := inspect.ReadFile(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func bytesOf(t *testing.T, o *inspect.Object) []byte {
	t.Helper()
	r, err := o.Open()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// extract writes what list shows, by every way of choosing.
func TestExtract(t *testing.T) {
	lib := filepath.Join(realDir, "libmulti-ccob.so")
	l := objects(t, lib)
	dir := t.TempDir()
	out, stderr, code := run(t, "extract", "--target", "gfx90a:xnack+", "-o", dir, lib)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	files := strings.Fields(out)
	if len(files) != 3 {
		t.Fatalf("wrote %q", files)
	}
	for i, f := range files {
		got, _ := os.ReadFile(f)
		o := l.Objects[2+4*i]
		if !bytes.Equal(got, bytesOf(t, o)) || !strings.HasSuffix(f, ".co") || !strings.Contains(f, "gfx90a_xnack+") {
			t.Errorf("%s is not %s", f, o.Where())
		}
	}

	// -o - writes one object; by index, ID, URI, arch/kind.
	one := func(want []byte, args ...string) {
		t.Helper()
		out, stderr, code := run(t, append([]string{"extract", "-o", "-"}, args...)...)
		if code != 0 || out != string(want) {
			t.Errorf("%v: exit %d, %d bytes, %s", args, code, len(out), stderr)
		}
	}
	one(bytesOf(t, l.Objects[5]), "--index", "5", lib)
	plain := filepath.Join(realDir, "hip-nonrdc.o")
	pl := objects(t, plain)
	one(bytesOf(t, pl.Objects[1]), "--id", "hipv4-amdgcn-amd-amdhsa--gfx906", plain)
	one(bytesOf(t, pl.Objects[3]), "--uri", "file://hip-nonrdc.o#offset=24576&size=7032", plain)
	pk := filepath.Join(realDir, "packaged.bin")
	one(bytesOf(t, objects(t, pk).Objects[1]), "--arch", "gfx942:sramecc+:xnack-", "--kind", "hip", pk)

	// Usage errors and empty choices.
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"extract", "-o", "-", "--all", lib}, 2, "-o - writes one object, but 9 match"},
		{[]string{"extract", "-o", dir, lib}, 2, "exactly one of"},
		{[]string{"extract", "-o", dir, "--all", "--index", "1", lib}, 2, "exactly one of"},
		{[]string{"extract", "-o", dir, "--target", "gfx1100", lib}, 1, "no code object in"},
		{[]string{"extract", "-o", dir, "--index", "99", lib}, 1, "no object #99"},
		{[]string{"extract", "-o", dir, "--id", "nope", lib}, 1, "nothing in"},
		{[]string{"extract", "-o", dir, "--all", filepath.Join(realDir, "src", "hip.h")}, 1, "holds no device code"},
	} {
		_, stderr, code := run(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
}

// Names made from hostile metadata never leave the output folder and are
// single plain components.
func TestExtractNamesStayInFolder(t *testing.T) {
	data := []byte("\x7fELF code")
	var buf bytes.Buffer
	err := offloadbin.Write(&buf, offloadbin.Image{ImageKind: 1, OffloadKind: 3,
		Strings: []offloadbin.StringEntry{{Key: "triple", Value: "../../../../tmp/x"}, {Key: "arch", Value: "/etc/passwd\n\x1b[31m"}},
		Data:    bytes.NewReader(data), Size: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	top := t.TempDir()
	in := filepath.Join(top, "..evil..bin")
	os.WriteFile(in, buf.Bytes(), 0o644)
	out := filepath.Join(top, "out")
	stdout, stderr, code := run(t, "extract", "--all", "-o", out, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 {
		t.Fatalf("folder holds %v", entries)
	}
	name := entries[0].Name()
	if strings.ContainsAny(name, "/\n\x1b") || strings.HasPrefix(name, ".") || strings.TrimSpace(stdout) != filepath.Join(out, name) {
		t.Errorf("unsafe name %q (printed %q)", name, stdout)
	}
	all, _ := filepath.Glob(filepath.Join(top, "*"))
	if len(all) != 2 {
		t.Errorf("files outside the folder: %v", all)
	}
}

// A failure while extracting leaves no output and keeps existing files.
func TestExtractNoPartialOutput(t *testing.T) {
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i * i >> 9)
	}
	var bundle bytes.Buffer
	writeBundle(t, &bundle, big)
	var c bytes.Buffer
	if _, err := compress.Compress(&c, bundle.Bytes(), compress.Options{Level: 1}); err != nil {
		t.Fatal(err)
	}
	data := c.Bytes()
	data[len(data)-30] ^= 0x55 // damage late in the payload: the second object fails
	dir := t.TempDir()
	in := filepath.Join(dir, "in.co")
	os.WriteFile(in, data, 0o644)
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	keep := filepath.Join(out, "in.co-1-hipv4-amdgcn-amd-amdhsa--gfx906.co")
	os.WriteFile(keep, []byte("old"), 0o644)
	_, stderr, code := run(t, "extract", "--all", "-o", out, in)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 {
		t.Errorf("left %v", entries)
	}
	if b, _ := os.ReadFile(keep); string(b) != "old" {
		t.Error("existing output changed")
	}
}

func writeBundle(t *testing.T, w *bytes.Buffer, big []byte) {
	t.Helper()
	ids := []string{"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx90a"}
	payloads := [][]byte{{}, []byte("\x7fELF small"), big}
	le := func(v uint64) []byte { b := make([]byte, 8); putLE(b, v); return b }
	hdr := []byte("__CLANG_OFFLOAD_BUNDLE__")
	hdr = append(hdr, le(uint64(len(ids)))...)
	off := uint64(32)
	for _, id := range ids {
		off += 24 + uint64(len(id))
	}
	for i, id := range ids {
		hdr = append(hdr, le(off)...)
		hdr = append(hdr, le(uint64(len(payloads[i])))...)
		hdr = append(hdr, le(uint64(len(id)))...)
		hdr = append(hdr, id...)
		off += uint64(len(payloads[i]))
	}
	w.Write(hdr)
	for _, p := range payloads {
		w.Write(p)
	}
}

func putLE(b []byte, v uint64) {
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
}

// A file that cannot be read is an error on stderr; with nothing else
// named, no empty table follows it to read as "no device code".
func TestListUnreadable(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.o")
	out, errOut, code := run(t, "list", missing)
	if code != 2 || out != "" || !strings.Contains(errOut, "missing.o") {
		t.Errorf("list of a missing file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = run(t, "list", missing, "../../format/hda/testdata/libt.a")
	if code != 2 || !strings.Contains(out, "gfx90a:xnack+") || !strings.Contains(errOut, "missing.o") {
		t.Errorf("list of a missing and a good file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
