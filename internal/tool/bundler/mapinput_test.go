package bundler_test

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/goffload/goffload/internal/tool/bundler"
)

// With -compress the bundle is built in memory, its inputs mapped where
// they fall on page boundaries (-bundle-align=4096, as clang asks): what
// comes back out is what went in, and an input truncated by another
// process before it is compressed, or written there, is an error naming
// it, with no output and no crash.
func TestCompressMappedInputs(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(1))
	var inputs []string
	var contents [][]byte
	for i, size := range []int{300<<10 + 17, 1 << 20, 70 << 10} {
		data := make([]byte, size)
		for j := 0; j < size; j += 512 {
			r.Read(data[j : j+min(64, size-j)])
		}
		p := filepath.Join(dir, string(rune('a'+i)))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs, contents = append(inputs, p), append(contents, data)
	}
	targets := "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx906,hipv4-amdgcn-amd-amdhsa--gfx1030"
	bundle := func(out string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := bundler.Main([]string{"clang-offload-bundler", "-type=o", "-bundle-align=4096", targets,
			"-input=" + inputs[0], "-input=" + inputs[1], "-input=" + inputs[2], "-compress", "-output=" + out}, nil, &stdout, &stderr)
		return code, stderr.String()
	}
	out := filepath.Join(dir, "out")
	if code, stderr := bundle(out); code != 0 {
		t.Fatalf("bundle: exit %d, %s", code, stderr)
	}
	for i, target := range strings.Split(strings.TrimPrefix(targets, "-targets="), ",") {
		got := filepath.Join(dir, "got")
		var stdout, stderr bytes.Buffer
		if code := bundler.Main([]string{"clang-offload-bundler", "-type=o", "-unbundle", "-targets=" + target,
			"-input=" + out, "-output=" + got}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("unbundle %s: exit %d, %s", target, code, stderr.String())
		}
		if b, _ := os.ReadFile(got); !bytes.Equal(b, contents[i]) {
			t.Errorf("%s: unbundled %d bytes, not its input's %d", target, len(b), len(contents[i]))
		}
	}

	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" || os.Getpagesize() != 4096 {
		// Maybe read, not mapped: then what follows comes too late.
		t.Skipf("%s/%s, %d-byte pages: inputs may be read, not mapped", runtime.GOOS, runtime.GOARCH, os.Getpagesize())
	}
	// Times in the past, so that a write now changes them whatever the
	// clock's granularity.
	old := time.Now().Add(-time.Hour)
	for _, p := range inputs {
		os.Chtimes(p, old, old)
	}
	for _, c := range []struct {
		name, want string
		change     func(path string)
	}{
		// Pages past the new end fault.
		{"truncated", "file truncated or unreadable while it was read", func(p string) { os.Truncate(p, 4096) }},
		// Cut inside its last page: zeros, no fault.
		{"cut in its last page", "file changed while it was read", func(p string) { os.Truncate(p, int64(len(contents[1])-10)) }},
		// Rewritten in place: the new bytes show through.
		{"rewritten", "file changed while it was read", func(p string) {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err == nil {
				f.WriteAt([]byte("changed"), 100)
				f.Close()
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(inputs[1], contents[1], 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(inputs[1], old, old)
			defer bundler.SetBeforeCompress(func() { c.change(inputs[1]) })()
			out2 := filepath.Join(dir, "out2")
			code, stderr := bundle(out2)
			if _, err := os.Stat(out2); err == nil {
				t.Error("an output was written")
			}
			if want := "'" + inputs[1] + "': " + c.want; code != 1 || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
			}
		})
	}
}
