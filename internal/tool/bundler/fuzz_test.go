package bundler

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDriver runs list and unbundle of every handler over arbitrary input:
// whatever the bytes, the bundler reports an error or succeeds, never
// panics, and leaves no output behind on error.
func FuzzDriver(f *testing.F) {
	for _, p := range []string{"../../format/binfmt/testdata/four.bc", "../../format/textfmt/testdata/three.i", "../../format/hda/testdata/libt.a", "../../format/objfmt/testdata"} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			f.Add(b)
		}
	}
	if files, _ := filepath.Glob("../../format/objfmt/testdata/*.o"); len(files) > 0 {
		b, _ := os.ReadFile(files[0])
		f.Add(b)
	}
	// Small caps keep a mutated CCOB that claims (and decodes to)
	// gigabytes from spending seconds filling a temporary file: the caps'
	// errors are tested elsewhere; here they let the fuzzer explore.
	maxDecompressed, maxStreamInput = 4<<20, 4<<20
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in")
		os.WriteFile(in, data, 0o644)
		for _, typ := range []string{"bc", "o", "i", "a"} {
			Main([]string{"bundler", "-type=" + typ, "-list", "-input=" + in}, nil, io.Discard, io.Discard)
			out1, out2 := filepath.Join(dir, "o1"), filepath.Join(dir, "o2")
			var stderr bytes.Buffer
			code := Main([]string{"bundler", "-type=" + typ, "-unbundle", "-allow-missing-bundles",
				"-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906",
				"-input=" + in, "-output=" + out1, "-output=" + out2}, nil, io.Discard, &stderr)
			if code != 0 {
				for _, o := range []string{out1, out2} {
					if _, err := os.Stat(o); err == nil {
						t.Fatalf("-type=%s: output %s left after error %q", typ, o, stderr.String())
					}
				}
			}
			os.Remove(out1)
			os.Remove(out2)
		}
	})
}
