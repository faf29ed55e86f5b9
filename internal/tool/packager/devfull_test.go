package packager_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
)

// A failed write to a device output (/dev/full) is LLVM's fatal "IO
// failure on output stream" at once; a failed write to stdout is the same
// error, reported at exit after everything else ran. (Never --archive to a
// device here: LLVM 22 renames its temporary archive over the device.)
func TestDiffDevFull(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	in := inputFiles(t)
	c := func(name string, args ...string) difftest.Case {
		return difftest.Case{Name: name, Files: in, Args: args}
	}
	compare(t, []difftest.Case{
		c("package", "-o", "/dev/full", "--image=file=p2.bin"),
		c("extract", "knew.o", "--image=arch=gfx906,file=y", "--image=kind=hip,file=/dev/full", "--image=kind=hip,file=x"),
	})

	llvm, ours := tools(t)
	for _, args := range [][]string{
		{"-o", "-", "--image=file=p2.bin"},
		{"knew.o", "--image=arch=gfx906,file=-", "--image=kind=hip,file=x"},
		{"knew.o", "--image=arch=gfx906,file=-", "--image=arch=gfx906,file=nodir/x"},
		{"--help"},
		{"--version"},
		{},
	} {
		run := func(bin string) (string, int, []string) {
			dir := t.TempDir()
			for name, data := range in {
				os.WriteFile(filepath.Join(dir, name), data, 0o644)
			}
			full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer full.Close()
			cmd := exec.Command(bin, args...)
			cmd.Args[0] = "llvm-offload-binary"
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = full, &stderr
			cmd.Run()
			var names []string
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if _, ok := in[e.Name()]; !ok {
					names = append(names, e.Name())
				}
			}
			return stderr.String(), cmd.ProcessState.ExitCode(), names
		}
		we, wc, wf := run(llvm)
		ge, gc, gf := run(ours)
		if we != ge || wc != gc || len(wf) != len(gf) {
			t.Errorf("%v, stdout /dev/full:\nLLVM: %d %q %v\nours: %d %q %v", args, wc, we, wf, gc, ge, gf)
		}
	}
}
