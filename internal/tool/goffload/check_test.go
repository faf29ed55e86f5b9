package goffloadcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func checkSchema(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile("../../../testdata/goffload-check.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, data).(map[string]any)
}

// check names the library a program loads that lacks the GPU's code,
// with the exit status as the contract says, in a table and in JSON.
func TestCheckCommand(t *testing.T) {
	app := "../../../testdata/targets/app"
	out, stderr, code := run(t, "check", "--gpu", "gfx90a", app)
	if code != 1 || !strings.Contains(out, "none") || !strings.Contains(out, "libk2.so") || !strings.Contains(out, "loaded by "+app) {
		t.Errorf("gfx90a: exit %d\n%s%s", code, out, stderr)
	}
	if _, stderr, code := run(t, "check", "--gpu", "gfx1030", app); code != 0 {
		t.Errorf("gfx1030: exit %d: %s", code, stderr)
	}
	out, _, code = run(t, "check", "--gpu", "gfx1031", app)
	if code != 1 || !strings.Contains(out, "HSA_OVERRIDE_GFX_VERSION=10.3.0 would run its gfx1030 code") {
		t.Errorf("gfx1031: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"check", "--gpu", "GFX90A", app},
		{"check", "--gpu", "gfx90a:xnack", app},
		{"check", "--gpu", "gfx90a", filepath.Join(t.TempDir(), "missing")},
		{"check", app},
	} {
		if _, stderr, code := run(t, args...); code != 2 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	// An empty folder: nothing lacks code, and the summary says why.
	out, _, code = run(t, "check", "--gpu", "gfx90a", t.TempDir())
	if code != 0 || !strings.Contains(out, "0 entries for gfx90a: no files found") {
		t.Errorf("empty folder: exit %d\n%s", code, out)
	}
	schema := checkSchema(t)
	for _, gpus := range []string{"gfx90a", "gfx90a,gfx1030"} {
		out, _, _ := run(t, "check", "--json", "--gpu", gpus, app, "../../../testdata/targets/generic.hipfb")
		doc := decode(t, []byte(out))
		if errs := validate(schema, doc); len(errs) > 0 {
			t.Fatalf("%s: schema violations:\n%s", gpus, strings.Join(errs, "\n"))
		}
		var got struct {
			Files []struct {
				File, Verdict string
				LoadedBy      string `json:"loaded_by"`
				Verdicts      map[string]struct{ Verdict string }
			}
		}
		json.Unmarshal([]byte(out), &got)
		found := false
		for _, f := range got.Files {
			if strings.HasSuffix(f.File, "libk2.so") {
				found = true
				if f.Verdict != "none" || (strings.Contains(gpus, ",") && f.Verdicts["gfx1030"].Verdict != "exact") {
					t.Errorf("%s: libk2.so %+v", gpus, f)
				}
			}
		}
		if !found {
			t.Errorf("%s: no entry for libk2.so:\n%s", gpus, out)
		}
	}
	// --gpu auto reads the KFD topology.
	sys := t.TempDir()
	d := filepath.Join(sys, "class/kfd/kfd/topology/nodes/1")
	os.MkdirAll(d, 0o755)
	os.WriteFile(filepath.Join(d, "properties"), []byte("gfx_target_version 100300\n"), 0o644)
	out, stderr, code = run(t, "check", "--gpu", "auto", "--sysfs", sys, app)
	if code != 0 || !strings.Contains(out, "GFX1030") {
		t.Errorf("--gpu auto: exit %d\n%s%s", code, out, stderr)
	}
}

// list of a folder: the files with device code, each once, and how many
// hold none.
func TestListFolder(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"libmodes.so", "generic.hipfb", "gen.sh"} {
		data, _ := os.ReadFile(filepath.Join("../../../testdata/targets", f))
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
	os.Symlink("libmodes.so", filepath.Join(dir, "libmodes.so.1"))
	out, stderr, code := run(t, "list", dir)
	if code != 0 || strings.Count(out, ": ELF shared object") != 1 || !strings.Contains(out, "1 file(s) without device code") {
		t.Errorf("exit %d\n%s%s", code, out, stderr)
	}
	out, _, _ = run(t, "list", "--json", dir)
	doc := decode(t, []byte(out))
	if errs := validate(loadSchema(t), doc); len(errs) > 0 {
		t.Fatalf("schema violations:\n%s", strings.Join(errs, "\n"))
	}
	if n := doc.(map[string]any)["summary"].(map[string]any)["files_without_device_code"]; n == nil || n.(json.Number).String() != "1" {
		t.Errorf("files_without_device_code: %v", n)
	}
}

// prune of a folder: a new folder mirroring it; misspelt names and
// existing outputs are usage errors; keeping nothing writes nothing.
func TestPruneFolder(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.MkdirAll(filepath.Join(in, "lib"), 0o755)
	for _, f := range []string{"libmodes.so", "libk2.so"} {
		data, _ := os.ReadFile(filepath.Join("../../../testdata/targets", f))
		os.WriteFile(filepath.Join(in, "lib", f), data, 0o755)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr, code := run(t, "prune", "--keep", "gfx90a", "-o", out, in)
	if code != 0 || !strings.Contains(stdout, "rewritten  lib/libmodes.so") || !strings.Contains(stdout, "host-only  lib/libk2.so") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"prune", "--keep", "gfx90a", "-o", out, in},
		{"prune", "--keep", "GFX90A", "-o", out + "2", in},
	} {
		if _, stderr, code := run(t, args...); code != 2 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if _, stderr, code := run(t, "prune", "--keep", "gfx1100", "-o", out+"3", in); code != 1 || !strings.Contains(stderr, "nothing written") {
		t.Errorf("keep gfx1100: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out + "3"); err == nil {
		t.Error("keep gfx1100 wrote the output")
	}
}

// list --duplicates finds code objects identical across files, and builds
// for several processors that share their machine code.
func TestListDuplicates(t *testing.T) {
	out, stderr, code := run(t, "list", "--json", "--duplicates", "../../../testdata/targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc := decode(t, []byte(out))
	if errs := validate(loadSchema(t), doc); len(errs) > 0 {
		t.Fatalf("schema violations:\n%s", strings.Join(errs, "\n"))
	}
	var got struct {
		Duplicates []struct {
			Identical bool
			Copies    []struct {
				File     string
				TargetID string `json:"target_id"`
			}
		}
	}
	json.Unmarshal([]byte(out), &got)
	identical, generic := false, false
	for _, d := range got.Duplicates {
		var ts []string
		for _, c := range d.Copies {
			ts = append(ts, c.TargetID)
		}
		s := strings.Join(ts, " ")
		identical = identical || d.Identical && strings.Count(s, "gfx1030") >= 2
		generic = generic || !d.Identical && strings.Contains(s, "gfx9-generic") && strings.Contains(s, "gfx906")
	}
	if !identical || !generic {
		t.Errorf("identical gfx1030 copies %v, gfx906 sharing gfx9-generic's code %v:\n%s", identical, generic, out)
	}
	if out, _, _ := run(t, "list", "--json", "../../../testdata/targets/app"); strings.Contains(out, "duplicates") {
		t.Error("duplicates listed without --duplicates")
	}
}

// check - reads standard input, like every command.
func TestCheckStdin(t *testing.T) {
	data, _ := os.ReadFile("../../../testdata/targets/libk2.so")
	out, stderr, code := runIn(t, data, "check", "--gpu", "gfx1030", "-")
	if code != 0 || !regexp.MustCompile(`(?m)^exact +- `).MatchString(out) {
		t.Errorf("exit %d\n%s%s", code, out, stderr)
	}
	if _, _, code := runIn(t, data, "check", "--gpu", "gfx90a", "-"); code != 1 {
		t.Errorf("gfx90a: exit %d", code)
	}
}
