package difftest

import (
	"os/exec"
	"strings"
	"testing"
)

// The tools run in a scrubbed environment: a variable of the caller's that
// changes only one of them (GOFFLOAD_COMPRESSION_METHOD, OFFLOAD_BUNDLER_*)
// must not reach either; PATH and the case's own variables do.
func TestRunScrubsEnvironment(t *testing.T) {
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env command")
	}
	t.Setenv("GOFFLOAD_COMPRESSION_METHOD", "zlib")
	t.Setenv("OFFLOAD_BUNDLER_COMPRESS", "1")
	out := Run(t, env, Case{Env: []string{"OFFLOAD_BUNDLER_VERBOSE=1"}})
	if out.Code != 0 {
		t.Fatalf("env: exit %d: %s", out.Code, out.Stderr)
	}
	vars := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out.Stdout), "\n") {
		k, _, _ := strings.Cut(l, "=")
		vars[k] = true
	}
	for _, k := range []string{"GOFFLOAD_COMPRESSION_METHOD", "OFFLOAD_BUNDLER_COMPRESS"} {
		if vars[k] {
			t.Errorf("%s reached the tool", k)
		}
	}
	for _, k := range []string{"PATH", "OFFLOAD_BUNDLER_VERBOSE"} {
		if !vars[k] {
			t.Errorf("%s did not reach the tool", k)
		}
	}
}
