package targetid

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// invalidInputs seed FuzzParse: command-line targets, most of which LLVM
// 22's bundler rejects (its messages: internal/tool/bundler/testdata/invalid-targets.txt).
var invalidInputs = []string{
	"foo-bar-baz-qux-quux",
	"cuda-nvptx64-nvidia-cuda--sm_70",
	"sycl-spir64-unknown-unknown-",
	"HIP-amdgcn-amd-amdhsa--gfx906",
	"hip-amdgpu-amd-amdhsa--gfx906",
	"host-X86_64-unknown-linux-gnu",
	"host-x86_64_lfi-unknown-linux-gnu",
	"-x86_64-unknown-linux-gnu",
	"host--unknown-linux-gnu",
	"--unknown-linux-gnu",
	"-----",
	"openmp-tcele64-unknown-linux-gnu-foo",
	"hipv5-amdgcn-amd-amdhsa--gfx906:xnack+",
	"hip-amdgcn-amd-amdhsa--gfx906",
	"hipv4-amdgcn-amd-amdhsa--gfx940",
	"host-x86_64-unknown-linux-gnu",
	"hip-amdgcn-amd-amdhsa-gfx906",
	"hip-x-y-z-w-gfx9-4-generic",
}

// conflictTIDs are target IDs combined into sets for the conflict check.
var conflictTIDs = []string{"", "gfx906", "gfx906:xnack+", "gfx906:xnack-", "gfx906:sramecc+",
	"gfx906:sramecc-", "gfx906:sramecc+:xnack+", "gfx906:xnack+:sramecc+", "gfx906:sramecc-:xnack-",
	"gfx906:foo+", "gfx906:+", "gfx906:", "gfx908", "gfx908:xnack+", "gfx90a:sramecc+",
	"gfx90a:xnack-", "sm_70", "gfx906:xnack+:", "gfx900", "gfx900:sramecc+",
	// Malformed: LLVM 22 reads an unset processor for these (see ConflictingPair).
	"gfx906:xnack", "gfx906::xnack+", "gfx906:xnack+:xnack-", "gfx906:zz:xnack+", "gfx906:xnack-:zz",
	"gfx906:-:+"}

func conflictSets() [][]string {
	r := rand.New(rand.NewPCG(7, 7))
	var sets [][]string
	for i := 0; i < 60; i++ {
		n := 2 + r.IntN(3)
		var s []string
		for len(s) < n {
			if tid := pick(r, conflictTIDs); !slices.Contains(s, tid) {
				s = append(s, tid)
			}
		}
		sets = append(sets, s)
	}
	return sets
}

func TestConflictingPair(t *testing.T) {
	for _, c := range []struct {
		ids  []string
		a, b string
	}{
		{[]string{"gfx906:xnack+", "gfx906"}, "gfx906", "gfx906:xnack+"},
		{[]string{"gfx906:xnack+", "gfx906:sramecc+"}, "gfx906:sramecc+", "gfx906:xnack+"},
		{[]string{"gfx906:xnack+", "gfx906:xnack-"}, "", ""},
		{[]string{"gfx906:xnack+", "gfx906:sramecc+:xnack+"}, "", ""},
		{[]string{"gfx906", "gfx908:xnack+", ""}, "", ""},
	} {
		a, b, ok := ConflictingPair(c.ids)
		if a != c.a || b != c.b || ok != (c.a != "") {
			t.Errorf("ConflictingPair(%q) = %q, %q, %v; want %q, %q", c.ids, a, b, ok, c.a, c.b)
		}
	}
	for _, s := range []string{"gfx906:xnack", "gfx906::xnack+", "gfx906:xnack+:xnack-", ":xnack+"} {
		if m, ok := FirstMalformed([]string{"gfx906", s}); !ok || m != s {
			t.Errorf("FirstMalformed did not find %q", s)
		}
	}
	for _, r := range readTable(t, "conflict.txt", 2) {
		set := strings.Split(strings.TrimPrefix(r[0], "="), ",")
		a, b, ok := ConflictingPair(set)
		got := ""
		if ok {
			got = a + "," + b
		}
		if got != strings.TrimPrefix(r[1], "=") {
			t.Errorf("ConflictingPair(%q) = %q, LLVM says %q", set, got, r[1])
		}
	}
}

// TestConflictingPairLLVM bundles hip targets of one key with the LLVM 22
// bundler and compares its conflict report with ConflictingPair.
func TestConflictingPairLLVM(t *testing.T) {
	t.Parallel()
	b := needBundler(t)
	const key = "hip-amdgcn-amd-amdhsa-"
	var recs [][]string
	sets := conflictSets()
	if !*update {
		// A sample keeps the test fast; the golden table holds them all.
		sets = sets[:20]
	}
	// LLVM 22 reads an unset value for a malformed target ID (the result
	// of a failed parse): the Debian 22.1.8 build answered on the machine
	// the table was made on, and crashes on others. Where it crashes, the
	// table's answer stands.
	golden := map[string]string{}
	for _, r := range readTable(t, "conflict.txt", 2) {
		golden[r[0]] = r[1]
	}
	for _, set := range sets {
		args := []string{"-type=i", "-output=" + filepath.Join(b.dir, "c.i")}
		var targets []string
		for _, tid := range set {
			targets = append(targets, key+"-"+tid)
			args = append(args, "-input="+b.in)
		}
		args = append(args, "-targets="+strings.Join(targets, ","))
		_, msg, code := b.run(args...)
		want := ""
		switch {
		case code < 0:
			g, ok := golden["="+strings.Join(set, ",")]
			if !ok {
				t.Fatalf("%q: LLVM crashed (exit %d) and testdata/conflict.txt has no answer: %.300s", set, code, msg)
			}
			t.Logf("%q: LLVM crashed; the table's answer is %q", set, g)
			want = strings.TrimPrefix(g, "=")
		case code == 0:
		case strings.HasPrefix(msg, "Cannot bundle inputs with conflicting targets: '"):
			var x, y string
			if _, err := fmt.Sscanf(strings.TrimPrefix(msg, "Cannot bundle inputs with conflicting targets: "), "%s and %s", &x, &y); err != nil {
				t.Fatalf("parsing %q: %v", msg, err)
			}
			x = strings.TrimPrefix(strings.Trim(x, "'"), key+"-")
			y = strings.TrimPrefix(strings.Trim(y, "'"), key+"-")
			want = x + "," + y
		default:
			t.Fatalf("%q: unexpected failure (exit %d): %.300s", set, code, msg)
		}
		a, bb, ok := ConflictingPair(set)
		got := ""
		if ok {
			got = a + "," + bb
		}
		if got != want {
			t.Errorf("ConflictingPair(%q) = %q, LLVM says %q", set, got, want)
		}
		recs = append(recs, []string{"=" + strings.Join(set, ","), "=" + want})
	}
	writeTable(t, "conflict.txt", "target IDs of one key\tconflicting pair reported by clang-offload-bundler 22.1.8 ('=' prefixes each field)", recs)
}

func TestCommandLineConflictLLVM(t *testing.T) {
	t.Parallel()
	cases := [][]string{
		{"hipv4-amdgcn-amd-amdhsa--gfx906:xnack+", "hip-amdgcn-amd-amdhsa--gfx906", "hipv4-amdgcn-amd-amdhsa--gfx906:sramecc+", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"},
		{"hip-amdgcn-amd-amdhsa-unknown-gfx906:xnack+", "hip-amdgcn-amd-amdhsa--gfx906"},
		{"hip-amdgcn-amd-amdhsa--gfx906:xnack+", "hip-amdgcn-amd-amdhsa--gfx906:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx908", "hipv4-amdgcn-amd-amdhsa--gfx908:xnack-"},
		{"hip-amdgcn-amd-amdhsa--gfx940:xnack+", "hip-amdgcn-amd-amdhsa--"},
	}
	want := []string{
		"Cannot bundle inputs with conflicting targets: 'hip-amdgcn-amd-amdhsa--gfx906' and 'hip-amdgcn-amd-amdhsa--gfx906:xnack+'",
		"",
		"Cannot bundle inputs with conflicting targets: 'hipv4-amdgcn-amd-amdhsa--gfx908' and 'hipv4-amdgcn-amd-amdhsa--gfx908:xnack-'",
		"",
	}
	check := func(i int, got string) {
		if got != want[i] {
			t.Errorf("case %d: got %q, want %q", i, got, want[i])
		}
	}
	for i, c := range cases {
		var ids []ID
		for _, s := range c {
			id, _ := Parse(s)
			ids = append(ids, id)
		}
		got := ""
		if a, b, ok := CommandLineConflict(ids); ok {
			got = "Cannot bundle inputs with conflicting targets: '" + a + "' and '" + b + "'"
		}
		check(i, got)
	}
	b := needBundler(t)
	for i, c := range cases {
		args := []string{"-type=i", "-output=" + filepath.Join(b.dir, "c.i"), "-targets=" + strings.Join(c, ",")}
		for range c {
			args = append(args, "-input="+b.in)
		}
		_, msg, code := b.run(args...)
		if code == 0 {
			msg = ""
		}
		if msg != want[i] {
			t.Errorf("case %d: LLVM says %q, test expects %q", i, msg, want[i])
		}
	}
}
