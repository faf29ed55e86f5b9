//go:build unix

package goffloadcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A pipe or FIFO is read once, as list reads it: prune read 4 bytes of it
// to see whether it was a wheel (then found "no device code"), or opened a
// FIFO a second time and waited for ever; check called it unreadable.
func TestPipesAgree(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/targets/modes.hipfb")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"list", "--target", "gfx90a"},
		{"check", "--gpu", "gfx90a"},
		{"prune", "--keep", "gfx90a", "--dry-run"},
	} {
		fifo := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				f.Write(data)
				f.Close()
			}
		}()
		done := make(chan int, 1)
		var out, errOut string
		go func() {
			var code int
			out, errOut, code = run(t, append(args, fifo)...)
			done <- code
		}()
		select {
		case code := <-done:
			if code != 0 || strings.Contains(out+errOut, "unreadable") {
				t.Errorf("%v on a FIFO: exit %d\n%s%s", args, code, out, errOut)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%v on a FIFO: still running after 20 s", args)
		}
	}
}

// check on a FIFO holding a program or library: the libraries it needs
// are followed from the copy read, not by opening the FIFO again (which
// waited for a writer for ever).
func TestCheckFIFOLibrary(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/targets/libk2.so")
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Write(data)
			f.Close()
		}
	}()
	done := make(chan string, 1)
	go func() {
		out, _, code := run(t, "check", "--gpu", "gfx1030", fifo)
		done <- fmt.Sprintf("exit %d\n%s", code, out)
	}()
	select {
	case got := <-done:
		if !strings.HasPrefix(got, "exit 0") || !strings.Contains(got, "loaded by "+fifo) {
			t.Errorf("%s", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still running after 20 s")
	}
}
