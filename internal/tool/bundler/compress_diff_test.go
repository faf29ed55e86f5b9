package bundler_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
)

// Compressed bytes differ from libzstd's by design; what must agree is
// everything else: LLVM reads ours back to the same bundle, and the verbose
// lines that do not depend on the compressor.
func TestDiffCompress(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	four := "-targets=" + host + "," + gfx906 + "," + gfx908 + "," + gfx90a
	for _, tc := range []struct {
		name string
		args []string
		env  []string
	}{
		{"bc default", []string{"-type=bc", four, "-input=hb", "-input=b1", "-input=b2", "-input=b3", "-compress"}, nil},
		{"bc level 9 v2", []string{"-type=bc", four, "-input=hb", "-input=b1", "-input=b2", "-input=b3", "-compress", "-compression-level=9"}, []string{"COMPRESSED_BUNDLE_FORMAT_VERSION=2"}},
		{"bc level 19 env", []string{"-type=bc", four, "-input=hb", "-input=b1", "-input=b2", "-input=b3"}, []string{"OFFLOAD_BUNDLER_COMPRESS=1", "OFFLOAD_BUNDLER_COMPRESSION_LEVEL=19"}},
		{"text level 1", []string{"-type=i", "-targets=" + host + "," + gfx906, "-input=h.txt", "-input=d1.txt", "-compress", "-compression-level=1"}, nil},
		{"empty", []string{"-type=bc", "-targets=" + host, "-input=empty", "-compress"}, nil},
		{"-compress= is true", []string{"-type=bc", four, "-input=hb", "-input=b1", "-input=b2", "-input=b3", "-compress="}, nil},
		{"zlib", []string{"-type=bc", four, "-input=hb", "-input=b1", "-input=b2", "-input=b3", "-compress"}, []string{"GOFFLOAD_COMPRESSION_METHOD=zlib"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{}, tc.args...), "-output=c", "-verbose")
			env := append([]string{}, tc.env...)
			want := difftest.Run(t, ref, difftest.Case{Files: baseFiles, Args: args, Env: env, Argv0: "clang-offload-bundler"})
			got := difftest.Run(t, ours, difftest.Case{Files: baseFiles, Args: args, Env: env, Argv0: "clang-offload-bundler"})
			if want.Code != 0 || got.Code != 0 {
				t.Fatalf("exit LLVM %d ours %d: %s / %s", want.Code, got.Code, want.Stderr, got.Stderr)
			}
			if !strings.Contains(strings.Join(tc.env, " "), "zlib") {
				stable := func(s string) string {
					var keep []string
					for _, l := range strings.Split(s, "\n") {
						for _, p := range []string{"Compressed bundle format version", "Compression method used", "Compression level", "Binary size before compression", "Truncated MD5 hash"} {
							if strings.HasPrefix(l, p) {
								keep = append(keep, l)
							}
						}
					}
					return strings.Join(keep, "\n")
				}
				if w, g := stable(want.Stderr), stable(got.Stderr); w != g {
					t.Errorf("verbose lines differ:\nLLVM:\n%s\nours:\n%s", w, g)
				}
				if !bytes.Equal(want.Files["c"][:8], got.Files["c"][:8]) {
					t.Errorf("CCOB header start differs: LLVM %x ours %x", want.Files["c"][:8], got.Files["c"][:8])
				}
			}
			// LLVM decompresses ours to what it would have bundled without
			// compression.
			typ := tc.args[0]
			plain := difftest.Run(t, ref, difftest.Case{Files: baseFiles, Args: append(append([]string{}, tc.args...), "-output=p", "-compress=false"), Env: []string{"OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1"}})
			files := map[string][]byte{"c": got.Files["c"]}
			l1 := difftest.Run(t, ref, difftest.Case{Files: files, Args: []string{typ, "-list", "-input=c"}})
			l2 := difftest.Run(t, ref, difftest.Case{Files: map[string][]byte{"p": plain.Files["p"]}, Args: []string{typ, "-list", "-input=p"}})
			if l1.Code != 0 || l1.Stdout != l2.Stdout {
				t.Errorf("LLVM lists ours as %q (%s), its own as %q", l1.Stdout, l1.Stderr, l2.Stdout)
			}
		})
	}
}

// TestDiffCompressFull: a compressed output that cannot be written fails
// as LLVM's does, after the -verbose statistics (the CCOB is written as it
// is compressed, and the failure reported after them).
func TestDiffCompressFull(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	for _, verbose := range []bool{false, true} {
		args := []string{"-type=bc", "-targets=" + host + "," + gfx906, "-input=hb", "-input=b1", "-compress", "-output=/dev/full"}
		if verbose {
			args = append(args, "-verbose")
		}
		want := difftest.Run(t, ref, difftest.Case{Files: baseFiles, Args: args, Argv0: "clang-offload-bundler"})
		got := difftest.Run(t, ours, difftest.Case{Files: baseFiles, Args: args, Argv0: "clang-offload-bundler"})
		lines := func(s string) (first, last string) {
			l := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
			return l[0], l[len(l)-1]
		}
		wf, wl := lines(want.Stderr)
		gf, gl := lines(got.Stderr)
		if want.Code == 0 || got.Code != want.Code || gl != wl || gf != wf || strings.Count(got.Stderr, "\n") != strings.Count(want.Stderr, "\n") {
			t.Errorf("verbose %v: LLVM exit %d %q, ours exit %d %q", verbose, want.Code, want.Stderr, got.Code, got.Stderr)
		}
	}
}

func TestDiffEnv(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	b := refMake(t, ref, "-type=bc", "-targets="+host+","+gfx906, "-input=hb", "-input=b1", "-compress")
	files := withFiles(map[string][]byte{"c.bc": b})
	var cases []difftest.Case
	for _, env := range [][]string{
		{"OFFLOAD_BUNDLER_COMPRESSION_LEVEL=x", "COMPRESSED_BUNDLE_FORMAT_VERSION=y"},
		{"OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1", "OFFLOAD_BUNDLER_COMPRESSION_LEVEL=x", "COMPRESSED_BUNDLE_FORMAT_VERSION=y"},
		{"COMPRESSED_BUNDLE_FORMAT_VERSION=7"},
		{"COMPRESSED_BUNDLE_FORMAT_VERSION=02"},
		{"COMPRESSED_BUNDLE_FORMAT_VERSION=65538"},
		{"COMPRESSED_BUNDLE_FORMAT_VERSION="},
		{"OFFLOAD_BUNDLER_COMPRESSION_LEVEL=+3"},
		{"OFFLOAD_BUNDLER_VERBOSE=1"},
		{"OFFLOAD_BUNDLER_VERBOSE=true"},
	} {
		cases = append(cases,
			difftest.Case{Files: files, Env: env, Args: []string{"-type=bc", "-list", "-input=c.bc"}},
			difftest.Case{Files: files, Env: env, Args: []string{"-type=bc", "-list", "-input=one.bc"}},
			difftest.Case{Files: files, Env: env, Args: []string{"-type=bc", "-unbundle", "-targets=" + gfx906, "-input=c.bc", "-output=o"}},
		)
	}
	for i := range cases {
		cases[i].Name = strings.Join(cases[i].Env, " ") + " " + strings.Join(cases[i].Args, " ")
	}
	compare(t, ref, ours, cases)
}
