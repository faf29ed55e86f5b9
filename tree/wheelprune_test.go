package tree

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/prune"
)

// mkWheel writes a wheel: a deflated library, a stored one, Tensile files
// for gfx90a and gfx1030, a module, METADATA, WHEEL and RECORD.
func mkWheel(t *testing.T, path string) {
	t.Helper()
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	co := read("../testdata/inspect/gfx90a.co")
	members := []struct {
		name   string
		method uint16
		data   []byte
	}{
		{"pkg/__init__.py", zip.Deflate, []byte("x = 1\n")},
		{"pkg/lib/libmodes.so", zip.Deflate, read(targets + "/libmodes.so")},
		{"pkg/lib/libk2.so", zip.Store, read(targets + "/libk2.so")},
		{"pkg/lib/library/TensileLibrary_gfx90a.co", zip.Deflate, co},
		{"pkg/lib/library/TensileLibrary_gfx1030.co", zip.Deflate, co},
		{"pkg-1.0.dist-info/METADATA", zip.Deflate, []byte("Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n")},
		{"pkg-1.0.dist-info/WHEEL", zip.Deflate, []byte("Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: py3-none-any\n")},
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	var record strings.Builder
	for _, m := range members {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: m.method})
		w.Write(m.data)
		fmt.Fprintf(&record, "%s,%s,%d\n", m.name, digest(m.data), len(m.data))
	}
	record.WriteString("pkg-1.0.dist-info/RECORD,,\n")
	w, _ := zw.Create("pkg-1.0.dist-info/RECORD")
	w.Write([]byte(record.String()))
	zw.Close()
	f.Close()
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256=" + base64.RawURLEncoding.EncodeToString(h[:])
}

func TestPruneWheel(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "pkg-1.0-py3-none-any.whl"), filepath.Join(dir, "out", "pkg-1.0-py3-none-any.whl")
	os.Mkdir(filepath.Dir(out), 0o755)
	mkWheel(t, in)
	rep, err := PruneWheel(in, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx90a")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, kept, dropped := rep.Totals(); kept != 3 || dropped != 2 { // the gfx90a Tensile code object is one
		t.Errorf("%d kept, %d dropped", kept, dropped)
	}
	zi, _ := zip.OpenReader(in)
	defer zi.Close()
	zo, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zo.Close()
	orig := map[string]*zip.File{}
	for _, f := range zi.File {
		orig[f.Name] = f
	}
	content := map[string][]byte{}
	for _, f := range zo.File {
		rc, _ := f.Open()
		content[f.Name], _ = io.ReadAll(rc)
		rc.Close()
		if o := orig[f.Name]; o == nil || o.Method != f.Method {
			t.Errorf("%s: method %d, was %v", f.Name, f.Method, o)
		}
	}
	if _, ok := content["pkg/lib/library/TensileLibrary_gfx1030.co"]; ok {
		t.Error("gfx1030's Tensile file is still there")
	}
	for _, n := range []string{"pkg/__init__.py", "pkg/lib/library/TensileLibrary_gfx90a.co"} {
		if orig[n].CRC32 != crc(zo.File, n) {
			t.Errorf("%s changed", n)
		}
	}
	// RECORD: every line's hash and size match the member; the removed
	// member has no line.
	for _, line := range strings.Split(strings.TrimSpace(string(content["pkg-1.0.dist-info/RECORD"])), "\n") {
		f := strings.Split(line, ",")
		if f[0] == "pkg-1.0.dist-info/RECORD" {
			continue
		}
		data, ok := content[f[0]]
		if !ok {
			t.Errorf("RECORD names %s, not in the wheel", f[0])
			continue
		}
		if f[1] != digest(data) || f[2] != fmt.Sprint(len(data)) {
			t.Errorf("RECORD line %q does not match the member (%d bytes)", line, len(data))
		}
	}
	if len(content["pkg/lib/libmodes.so"]) >= len(mustRead(t, targets+"/libmodes.so")) {
		t.Error("libmodes.so did not get smaller")
	}
	// Keeping nothing anywhere writes nothing.
	none := filepath.Join(dir, "none.whl")
	if _, err := PruneWheel(in, none, TreeOptions{Options: prune.Options{Keep: gpus("gfx1100")}}); !errors.Is(err, prune.ErrEmpty) {
		t.Errorf("keep gfx1100: %v", err)
	}
	if _, err := os.Stat(none); err == nil {
		t.Error("keep gfx1100 wrote a wheel")
	}
	// pip installs the pruned wheel, checking it against RECORD.
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3: the pip install is not tried")
	}
	venv := filepath.Join(dir, "venv")
	if out, err := exec.Command(py, "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Skipf("python3 -m venv: %v %s", err, out)
	}
	cmd := exec.Command(filepath.Join(venv, "bin", "pip"), "install", "--no-index", "--no-cache-dir", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pip install: %v\n%s", err, b)
	}
	got, _ := filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages", "pkg", "lib", "libmodes.so"))
	if len(got) != 1 || !bytes.Equal(mustRead(t, got[0]), content["pkg/lib/libmodes.so"]) {
		t.Errorf("installed: %v", got)
	}
}

func crc(files []*zip.File, name string) uint32 {
	for _, f := range files {
		if f.Name == name {
			return f.CRC32
		}
	}
	return 0
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An installed package pruned in place: its files rewritten where they
// are, family files of dropped GPUs removed, RECORD true to the files (pip
// uninstalls it cleanly); hard links stay one file.
func TestPruneInPlace(t *testing.T) {
	dir := t.TempDir()
	whl := filepath.Join(dir, "pkg-1.0-py3-none-any.whl")
	mkWheel(t, whl)
	site := filepath.Join(dir, "site-packages")
	installWheel(t, whl, site)
	lib := filepath.Join(site, "pkg/lib/libmodes.so")
	os.Link(lib, filepath.Join(site, "pkg/lib/libmodes.so.1"))
	before, _ := os.ReadFile(lib)
	// Keeping nothing changes nothing.
	if _, err := PruneInPlace(site, TreeOptions{Options: prune.Options{Keep: gpus("gfx1100")}}); !errors.Is(err, prune.ErrEmpty) {
		t.Fatalf("keep gfx1100: %v", err)
	}
	if now, _ := os.ReadFile(lib); !bytes.Equal(now, before) {
		t.Fatal("keep gfx1100 changed the library")
	}
	rep, err := PruneInPlace(site, TreeOptions{Options: prune.Options{Keep: gpus("gfx90a")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, kept, dropped := rep.Totals(); kept != 3 || dropped != 2 { // the gfx90a Tensile code object is one
		t.Errorf("%d kept, %d dropped", kept, dropped)
	}
	after, _ := os.ReadFile(lib)
	if len(after) >= len(before) {
		t.Error("the library did not get smaller")
	}
	a, _ := os.Stat(lib)
	b, _ := os.Stat(filepath.Join(site, "pkg/lib/libmodes.so.1"))
	if !os.SameFile(a, b) {
		t.Error("the hard link was split")
	}
	if _, err := os.Stat(filepath.Join(site, "pkg/lib/library/TensileLibrary_gfx1030.co")); err == nil {
		t.Error("gfx1030's Tensile file is still there")
	}
	checkRecord(t, site)
}

// installWheel installs a wheel by hand, as pip lays it out: the members,
// RECORD as shipped (paths relative to site).
func installWheel(t *testing.T, whl, site string) {
	t.Helper()
	zr, err := zip.OpenReader(whl)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		rc, _ := f.Open()
		data, _ := io.ReadAll(rc)
		rc.Close()
		p := filepath.Join(site, f.Name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, data, 0o755)
	}
	zr.Close()
}

// checkRecord checks that every line of the package's RECORD under root
// names a file there with that hash and size.
func checkRecord(t *testing.T, root string) []byte {
	t.Helper()
	record, _ := os.ReadFile(filepath.Join(root, "pkg-1.0.dist-info/RECORD"))
	for _, line := range strings.Split(strings.TrimSpace(string(record)), "\n") {
		f := strings.Split(line, ",")
		if f[1] == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f[0]))
		if err != nil {
			t.Errorf("RECORD names %s: %v", f[0], err)
			continue
		}
		if f[1] != digest(data) || f[2] != fmt.Sprint(len(data)) {
			t.Errorf("RECORD line %q does not match the file", line)
		}
	}
	return record
}

// An installed package pruned into a new folder: its RECORD in the new
// folder is true to the files there.
func TestPruneTreeRecord(t *testing.T) {
	dir := t.TempDir()
	whl := filepath.Join(dir, "pkg-1.0-py3-none-any.whl")
	mkWheel(t, whl)
	site := filepath.Join(dir, "site-packages")
	installWheel(t, whl, site)
	out := filepath.Join(dir, "out")
	if _, err := PruneTree(site, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx90a")}}); err != nil {
		t.Fatal(err)
	}
	record := checkRecord(t, out)
	if strings.Contains(string(record), "gfx1030") {
		t.Error("RECORD still names the removed gfx1030 file")
	}
}
