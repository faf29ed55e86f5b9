package llvmhash

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
)

var update = flag.Bool("update", false, "rewrite testdata golden files from the LLVM 22 tools")

const stringMapGolden = "testdata/stringmap_order.txt"

// stringMapCase is one insertion sequence and the order LLVM 22 lists it in.
type stringMapCase struct {
	in, out []string
}

// readStringMapGolden parses cases written as lines "in <key>" (insertion
// order) followed by "out <key>" (LLVM's iteration order), separated by
// blank lines.
func readStringMapGolden(t *testing.T) []stringMapCase {
	t.Helper()
	f, err := os.Open(stringMapGolden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []stringMapCase
	cur := stringMapCase{}
	flush := func() {
		if len(cur.in) > 0 || len(cur.out) > 0 {
			cases = append(cases, cur)
		}
		cur = stringMapCase{}
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "in "):
			cur.in = append(cur.in, line[3:])
		case strings.HasPrefix(line, "out "):
			cur.out = append(cur.out, line[4:])
		case strings.HasPrefix(line, "#"):
		default:
			t.Fatalf("%s: bad line %q", stringMapGolden, line)
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestStringMapOrderGolden(t *testing.T) {
	cases := readStringMapGolden(t)
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	for i, c := range cases {
		if got := StringMapOrder(c.in); !slices.Equal(got, c.out) {
			t.Errorf("case %d (%d keys): order\n got %q\nwant %q", i, len(c.in), got, c.out)
		}
	}
}

func TestStringMapSpecExample(t *testing.T) {
	in := []string{"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx906",
		"hip-amdgcn-amd-amdhsa--gfx908", "hip-amdgcn-amd-amdhsa--gfx90a"}
	want := []string{"hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx908",
		"hip-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-unknown-linux-gnu-"}
	if got := StringMapOrder(in); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Spec appendix A: xnack+ comes first in hash order.
	got := StringMapOrder([]string{"hip-amdgcn-amd-amdhsa--gfx906:xnack-", "hip-amdgcn-amd-amdhsa--gfx906:xnack+"})
	if got[0] != "hip-amdgcn-amd-amdhsa--gfx906:xnack+" {
		t.Errorf("got %q, want xnack+ first", got)
	}
}

func TestStringMapOps(t *testing.T) {
	var m StringMap[int]
	if m.Len() != 0 || len(m.buckets) != 0 || len(m.Keys()) != 0 {
		t.Fatal("zero map not empty")
	}
	keys := make([]string, 40)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%d", i)
		if !m.Insert(keys[i], i) {
			t.Fatalf("Insert(%q) reported existing", keys[i])
		}
	}
	if m.Len() != 40 || len(m.buckets) != 64 {
		t.Fatalf("Len %d NumBuckets %d, want 40 and 64", m.Len(), len(m.buckets))
	}
	order := m.Keys()
	if !slices.Equal(order, StringMapOrder(keys)) {
		t.Fatal("Keys differs from StringMapOrder")
	}
	// A repeated key keeps its bucket; Insert keeps the value, Set replaces it.
	if m.Insert(keys[3], 100) {
		t.Fatal("Insert of existing key reported new")
	}
	if v, _ := m.Get(keys[3]); v != 3 {
		t.Fatalf("Insert replaced the value: %d", v)
	}
	m.Set(keys[3], 100)
	if v, _ := m.Get(keys[3]); v != 100 {
		t.Fatalf("Set did not replace the value: %d", v)
	}
	if !slices.Equal(m.Keys(), order) {
		t.Fatal("order changed by re-insert")
	}
	// Erase leaves the order of the others alone.
	for i := 0; i < 40; i += 3 {
		if !m.Erase(keys[i]) {
			t.Fatalf("Erase(%q) = false", keys[i])
		}
	}
	if m.Erase(keys[0]) || m.Erase("absent") {
		t.Fatal("Erase of absent key reported true")
	}
	var want []string
	for _, k := range order {
		var n int
		fmt.Sscanf(k, "key-%d", &n)
		if n%3 != 0 {
			want = append(want, k)
		}
	}
	if got := m.Keys(); !slices.Equal(got, want) {
		t.Fatalf("after erase got %q, want %q", got, want)
	}
	if _, ok := m.Get(keys[0]); ok {
		t.Fatal("erased key still found")
	}
	// Reinserting an erased key reuses a tombstone or an empty bucket; the
	// map stays consistent.
	m.Set(keys[0], 7)
	if v, ok := m.Get(keys[0]); !ok || v != 7 || m.Len() != len(want)+1 {
		t.Fatal("reinsert after erase failed")
	}
}

// TestStringMapTombstoneRehash fills a map with inserts and erases so that
// same-size rehashes happen, checking against a naive reference model.
func TestStringMapTombstoneRehash(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var m StringMap[int]
	live := map[string]bool{}
	for i := 0; i < 2000; i++ {
		k := fmt.Sprintf("k%d", r.IntN(60))
		if r.IntN(3) == 0 {
			if m.Erase(k) != live[k] {
				t.Fatalf("Erase(%q) disagrees with reference", k)
			}
			delete(live, k)
		} else {
			if m.Insert(k, i) == live[k] {
				t.Fatalf("Insert(%q) disagrees with reference", k)
			}
			live[k] = true
		}
		if m.Len() != len(live) {
			t.Fatalf("Len %d, want %d", m.Len(), len(live))
		}
		if m.tombstones+m.items >= len(m.buckets) {
			t.Fatal("no empty bucket left")
		}
	}
	got := m.Keys()
	slices.Sort(got)
	var want []string
	for k := range live {
		want = append(want, k)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("keys %q, want %q", got, want)
	}
}

// randomIDs makes n distinct bundle IDs, each already in the standard form
// clang-offload-bundler writes, so the file holds exactly these strings: one
// host ID first, then openmp and hip IDs with random vendor names of random
// length (vendors are not validated and not normalised when unknown).
func randomIDs(r *rand.Rand, n int) []string {
	const alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	seen := map[string]bool{}
	ids := []string{"host-x86_64-unknown-linux-gnu-"}
	seen[ids[0]] = true
	for len(ids) < n {
		l := 1 + r.IntN(12)
		if r.IntN(8) == 0 {
			l = 20 + r.IntN(250)
		}
		v := make([]byte, l)
		for i := range v {
			v[i] = alnum[r.IntN(len(alnum))]
		}
		var id string
		if r.IntN(2) == 0 {
			id = "openmp-x86_64-v" + string(v) + "-linux-gnu-"
		} else {
			id = "hip-amdgcn-v" + string(v) + "-amdhsa--gfx906"
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids
}

// cliTarget turns a standard ID back into a command-line target (the bundler
// appends the trailing '-' itself).
func cliTarget(id string) string {
	return strings.TrimSuffix(id, "-")
}

// llvmListOrder bundles ids in order with the LLVM 22 bundler (binary format)
// and returns what -list prints.
func llvmListOrder(t *testing.T, bundler, dir string, ids []string) []string {
	t.Helper()
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	targets := make([]string, len(ids))
	args := []string{bundler, "-type=bc"}
	for i, id := range ids {
		targets[i] = cliTarget(id)
		args = append(args, "-input="+in)
	}
	out := filepath.Join(dir, "b.bc")
	args = append(args, "-targets="+strings.Join(targets, ","), "-output="+out)
	if res := llvmref.Run(t, dir, nil, nil, args...); res.Code != 0 {
		t.Fatalf("bundling %d ids: exit %d: %s", len(ids), res.Code, res.Stderr)
	}
	res := llvmref.Run(t, dir, nil, nil, bundler, "-type=bc", "-list", "-input="+out)
	if res.Code != 0 {
		t.Fatalf("listing: exit %d: %s", res.Code, res.Stderr)
	}
	return strings.Split(strings.TrimSuffix(string(res.Stdout), "\n"), "\n")
}

// TestStringMapOrderLLVM compares StringMapOrder with the list order of the
// LLVM 22 bundler for random ID sets, including sets large enough to grow the
// table several times. With -update it rewrites the golden file from a few of
// the trials.
func TestStringMapOrderLLVM(t *testing.T) {
	bundler := llvmref.Need(t, "clang-offload-bundler")
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(22, 1))
	sizes := []int{1, 2, 3, 5, 8, 12, 13, 16, 24, 25, 31, 48, 49, 70, 97, 150}
	var golden strings.Builder
	golden.WriteString("# StringMap iteration order of LLVM 22 clang-offload-bundler -list (binary bundles).\n")
	golden.WriteString("# 'in' lines: IDs in file (insertion) order; 'out' lines: -list output.\n")
	for i, n := range sizes {
		ids := randomIDs(r, n)
		got := StringMapOrder(ids)
		want := llvmListOrder(t, bundler, dir, ids)
		if !slices.Equal(got, want) {
			t.Errorf("%d ids: order\n got %q\nwant %q", n, got, want)
		}
		if i%3 == 0 && n < 100 {
			golden.WriteString("\n")
			for _, id := range ids {
				golden.WriteString("in " + id + "\n")
			}
			for _, id := range want {
				golden.WriteString("out " + id + "\n")
			}
		}
	}
	if *update && !t.Failed() {
		if err := os.WriteFile(stringMapGolden, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzStringMap(f *testing.F) {
	f.Add([]byte("a\x00b\x01a\x00c"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		// Each op byte selects insert/erase (low bit) of key "k<byte>>1".
		var m StringMap[int]
		live := map[string]bool{}
		for i, op := range ops {
			k := fmt.Sprintf("k%d", op>>1)
			if op&1 == 1 {
				m.Erase(k)
				delete(live, k)
			} else {
				m.Insert(k, i)
				live[k] = true
			}
		}
		if m.Len() != len(live) || len(m.Keys()) != len(live) {
			t.Fatalf("Len %d, Keys %d, want %d", m.Len(), len(m.Keys()), len(live))
		}
	})
}
