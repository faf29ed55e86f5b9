package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func TestCommitReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("old"), 0o644)
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

// Names that can never be files fail at Create, with open(2)'s errors, not
// later at the rename.
func TestImpossibleNames(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	for name, want := range map[string]syscall.Errno{
		"":                                syscall.ENOENT,
		filepath.Join(dir, "nodir") + "/": syscall.EISDIR,
		dir + "/":                         syscall.EISDIR,
		filepath.Join(dir, "file") + "/":  syscall.EISDIR, // Linux, with O_CREAT
	} {
		_, err := Create(name)
		if !errors.Is(err, want) {
			t.Errorf("Create(%q): %v, want %v", name, err, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// Without a temp file beside it (a read-only folder), an existing target
// is written in place, as LLVM opens it.
func TestReadOnlyFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes read-only folders")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("old"), 0o644)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("after commit: %q", b)
	}
	if _, err := Create(filepath.Join(dir, "new")); !errors.Is(err, syscall.EACCES) {
		t.Errorf("new file in a read-only folder: %v", err)
	}
	os.Chmod(p, 0o444)
	if _, err := Create(p); !errors.Is(err, syscall.EACCES) {
		t.Errorf("read-only file: %v", err)
	}
}

// A symbolic link is written through, as LLVM opens it: the file it names
// is replaced and the link stays; a dangling link creates its target.
func TestSymlinkWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	link := filepath.Join(dir, "link")
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink("real", link)
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("created", dangling)
	for _, p := range []string{link, dangling} {
		f, err := Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("new")
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link", p)
		}
	}
	for _, p := range []string{real, filepath.Join(dir, "created")} {
		if b, _ := os.ReadFile(p); string(b) != "new" {
			t.Errorf("%s: %q", p, b)
		}
	}
}

// /dev/stdout names the caller's open file: it is written in place, never
// replaced (which would replace /dev/stdout itself when stdout is a file).
func TestDevStdoutToFile(t *testing.T) {
	if _, err := os.Lstat("/dev/stdout"); err != nil {
		t.Skip(err)
	}
	p := filepath.Join(t.TempDir(), "out")
	g, _ := os.Create(p)
	defer g.Close()
	name := fmt.Sprintf("/dev/fd/%d", g.Fd())
	f, err := Create(name)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("through")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "through" {
		t.Errorf("%s: %q", p, b)
	}
	if fi, err := os.Lstat("/dev/fd"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("/dev/fd changed: %v", err)
	}
}

// CreateFile replaces what the name holds, as LLVM's FileOutputBuffer and
// archive writer do: a symbolic link becomes a file, a read-only file is
// replaced.
func TestCreateFileReplaces(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "real"), []byte("old"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink("real", link)
	ro := filepath.Join(dir, "ro")
	os.WriteFile(ro, []byte("old"), 0o444)
	for _, p := range []string{link, ro} {
		f, err := CreateFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("new")
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s not replaced by a file", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "real")); string(b) != "old" {
		t.Errorf("link target changed: %q", b)
	}
}

// An output being written has no name in its folder until Commit (Linux
// O_TMPFILE), so a process killed while writing leaves no temporary file;
// a real kill -9 of a child writing a large output checks it.
func TestNoDebrisAfterKill(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("unnamed temporary files are Linux-only; elsewhere a killed writer leaves its temporary file")
	}
	if os.Getenv("ATOMICFILE_CHILD") != "" {
		f, err := Create(os.Getenv("ATOMICFILE_CHILD"))
		if err != nil {
			os.Exit(3)
		}
		f.Write(make([]byte, 1<<20))
		os.Stdout.WriteString("written\n")
		time.Sleep(time.Minute) // killed here
		os.Exit(4)
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "out")
	os.WriteFile(target, []byte("old"), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoDebrisAfterKill$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD="+target)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if _, err := io.ReadFull(stdout, buf); err != nil || string(buf) != "written\n" {
		t.Fatalf("child: %q %v", buf, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("after kill -9 the folder holds %q", names)
	}
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Errorf("target changed: %q", b)
	}
	// And a committed output appears whole, with the usual mode.
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(target)
	if b, _ := os.ReadFile(target); string(b) != "new" || fi.Mode().Perm() != 0o666&^umask() {
		t.Errorf("committed %q mode %v", b, fi.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("commit left %d entries", len(entries))
	}
}

// TestPark: a parked file is closed, leaves the target alone, and is
// renamed by Commit or removed by Abort.
func TestPark(t *testing.T) {
	dir := t.TempDir()
	var fs []*File
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("out%d", i))
		os.WriteFile(p, []byte("old"), 0o644)
		f, err := CreateFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "new%d", i)
		if err := f.Park(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("x")); err == nil {
			t.Error("a parked file takes writes")
		}
		if b, _ := os.ReadFile(p); string(b) != "old" {
			t.Errorf("%s changed when parked: %q", p, b)
		}
		fs = append(fs, f)
	}
	if err := fs[0].Commit(); err != nil {
		t.Fatal(err)
	}
	fs[1].Abort()
	if err := fs[2].Commit(); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"new0", "old", "new2"} {
		if b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out%d", i))); string(b) != want {
			t.Errorf("out%d: %q, want %q", i, b, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("temp files left: %v", ents)
	}
}
