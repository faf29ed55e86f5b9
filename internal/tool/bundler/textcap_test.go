package bundler_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/tool/bundler"
)

// Text bundles are searched in memory: one larger than the cap, plain or
// inflated from a small compressed file, is refused with a clear error and
// no output (issue 14, item 2), instead of read whole.
func TestTextBundleCap(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "dev.i")
	hostF := filepath.Join(dir, "host.i")
	os.WriteFile(dev, bytes.Repeat([]byte("int x;\n"), 1<<17), 0o644) // 896 KiB
	os.WriteFile(hostF, []byte("int y;\n"), 0o644)
	run := func(args ...string) (string, int) {
		var stdout, stderr bytes.Buffer
		code := bundler.Main(append([]string{"clang-offload-bundler"}, args...), strings.NewReader(""), &stdout, &stderr)
		return stderr.String(), code
	}
	targets := "-targets=host-x86_64-unknown-linux-gnu," + "hip-amdgcn-amd-amdhsa--gfx906"
	plain, packed := filepath.Join(dir, "b.i"), filepath.Join(dir, "c.i")
	for _, out := range []struct {
		name  string
		extra []string
	}{{plain, nil}, {packed, []string{"-compress"}}} {
		if msg, code := run(append([]string{"-type=i", targets, "-input=" + hostF, "-input=" + dev, "-output=" + out.name}, out.extra...)...); code != 0 {
			t.Fatalf("bundling: %s", msg)
		}
	}
	defer bundler.SetMaxTextBundle(512 << 10)()
	for _, in := range []string{plain, packed} {
		o1, o2 := filepath.Join(dir, "o1"), filepath.Join(dir, "o2")
		for _, args := range [][]string{
			{"-type=i", "-list", "-input=" + in},
			{"-type=i", "-unbundle", targets, "-input=" + in, "-output=" + o1, "-output=" + o2},
		} {
			msg, code := run(args...)
			if code != 1 || !strings.Contains(msg, "larger than the 524288 bytes goffload reads into memory") {
				t.Errorf("%v: exit %d, %q", args, code, msg)
			}
			for _, o := range []string{o1, o2} {
				if _, err := os.Stat(o); err == nil {
					t.Errorf("%v: %s written", args, o)
				}
			}
		}
	}
}
