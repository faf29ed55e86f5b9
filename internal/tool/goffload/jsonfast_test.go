package goffloadcmd

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/inspect"
)

// agree checks that appendJSONObject writes what json.MarshalIndent does.
func agree(t *testing.T, j jsonObject) {
	t.Helper()
	want, err := json.MarshalIndent(j, "        ", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if got := appendJSONObject(nil, &j, "        "); !bytes.Equal(got, want) {
		t.Fatalf("jsonWriter:\n%s\nMarshalIndent:\n%s", got, want)
	}
}

// TestJSONWriterAgrees: every object of every file under testdata, and
// objects with every optional field and awkward strings, written by the
// jsonWriter as json.MarshalIndent writes them.
func TestJSONWriterAgrees(t *testing.T) {
	n := 0
	filepath.WalkDir("../../../testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		l, err := inspect.ReadFile(path, nil)
		if err != nil {
			return nil
		}
		defer l.Close()
		for _, o := range l.Objects {
			agree(t, jsonObjectOf(o))
			n++
		}
		return nil
	})
	if n < 100 {
		t.Fatalf("only %d objects under testdata", n)
	}
	k, outer, off := 3, 7, int64(-5)
	for _, s := range []string{"", "a<b>&c", "quote\" back\\slash", "tab\tnl\n\x01\x7f", "é ü 日本", "\xff\xfe bad utf-8", "\u2028\u2029", "gfx90a:xnack+"} {
		agree(t, jsonObject{Index: 1, Path: []string{s, "x"}, Container: s, ID: s, Host: true, Kind: s, Triple: s, TargetID: s, Offset: &off,
			Size: 1 << 40, ImageKind: s, Strings: map[string]string{s: s, "b": "2", "a": s}, Nested: 2, Outer: &outer,
			Compressed: &jsonCompressed{Format: s, Version: 3, Method: s, Offset: 1, Size: 2, UncompressedSize: 3, InnerOffset: 4, Ratio: 3.25},
			Code:       &jsonCode{Format: s, Machine: s, Processor: s, Xnack: s, SRAMECC: s, CodeObjectVersion: 5, Kernels: &k}})
	}
	for _, r := range []float64{0, 1, 1.0 / 3, 1e-7, 2.5e-6, 1e20, 1e21, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		agree(t, jsonObject{Path: []string{}, Compressed: &jsonCompressed{Ratio: r}, Code: &jsonCode{}})
	}
}

// FuzzJSONWriter: any strings and numbers, written alike.
func FuzzJSONWriter(f *testing.F) {
	f.Add("hipv4-amdgcn-amd-amdhsa--gfx90a", "bundle 0", 3.25, int64(4096))
	f.Add("a<\x00\xff", "\u2028", 1e-9, int64(-1))
	f.Fuzz(func(t *testing.T, s, p string, r float64, n int64) {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return // json.Marshal refuses them; Ratio is never either
		}
		k := int(n)
		agree(t, jsonObject{Index: k, Path: []string{p, s}, ID: s, Kind: p, Offset: &n, Size: n, ImageKind: s,
			Strings: map[string]string{s: p, p: s}, Outer: &k, Nested: k,
			Compressed: &jsonCompressed{Format: s, Method: p, Ratio: r}, Code: &jsonCode{Processor: s, Kernels: &k}})
	})
}
