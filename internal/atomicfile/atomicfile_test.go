package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCommitReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("old"), 0o444)
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Error("target changed before commit")
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("after commit: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temp files left: %v", ents)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	f.Abort()
	f.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestDirectoryAndMissingParent(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(dir); err == nil {
		t.Error("directory accepted")
	}
	if _, err := Create(filepath.Join(dir, "no", "x")); err == nil {
		t.Error("missing parent accepted")
	}
}

// Devices are written in place, never replaced.
func TestDeviceWrittenInPlace(t *testing.T) {
	f, err := Create("/dev/null")
	if err != nil {
		t.Skip(err)
	}
	f.WriteString("x")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat("/dev/null")
	if err != nil || fi.Mode().IsRegular() {
		t.Fatalf("/dev/null replaced: %v %v", fi.Mode(), err)
	}
}
