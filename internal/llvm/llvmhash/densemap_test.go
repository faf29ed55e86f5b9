package llvmhash

import (
	"slices"
	"testing"
)

// Ground truth from libLLVM.so.22.1's hash_value(StringRef), the hash of the
// DenseMap whose bucket order orders llvm-offload-binary's string entries.
func TestDenseMapHashVectors(t *testing.T) {
	seq := func(from, to int) string {
		b := make([]byte, 0, to-from)
		for i := from; i < to; i++ {
			b = append(b, byte(i))
		}
		return string(b)
	}
	x33 := string(slices.Repeat([]byte("x"), 33))
	tests := []struct {
		s      string
		hash   uint64
		bucket uint32
	}{
		{"", 0x65b0c5ecc2c5cc82, 2},
		{"a", 0xaeb6f9d5517c61f8, 56},
		{"ab", 0x7ab1edb96be496b4, 52},
		{"abc", 0xe38e60bf19c71a3f, 63},
		{"arch", 0x1499ea7cf386c709, 9},
		{"triple", 0x45f9d3270819b0d8, 24},
		{"file", 0x7d2d536ed4e6b353, 19},
		{"kind", 0xe421e5cbc8207aa5, 37},
		{"feature", 0x9bfd2475907be7c2, 2},
		{"amdgcn-amd-amdhsa", 0x9d6aeebe37d4b48f, 15},
		{x33, 0xcafd55b116a377cc, 12},
		{seq(0x30, 0x70), 0xc90525d57b5f39af, 47},
		{seq(0, 65), 0x04c33e42899fa233, 51},
		{seq(0, 200), 0xca394604fd1432c7, 7},
	}
	for _, tt := range tests {
		h := DenseMapHash([]byte(tt.s))
		if h != tt.hash {
			t.Errorf("DenseMapHash(%q) = %#x, want %#x", tt.s, h, tt.hash)
		}
		if b := uint32(h) & 63; b != tt.bucket {
			t.Errorf("bucket(%q) = %d, want %d", tt.s, b, tt.bucket)
		}
	}
}

func TestDenseMapOrder(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{[]string{"file", "triple", "arch", "kind"}, []string{"arch", "file", "triple", "kind"}},
		// "feature" and "" both start at bucket 2: insertion order decides.
		{[]string{"file", "feature", ""}, []string{"feature", "", "file"}},
		{[]string{"file", "", "feature"}, []string{"", "feature", "file"}},
		{[]string{"a", "a", "a"}, []string{"a"}},
		{nil, []string{}},
	}
	for _, tt := range tests {
		if got := DenseMapOrder(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("DenseMapOrder(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDenseMapGrowth(t *testing.T) {
	var m DenseMap
	if len(m.buckets) != 0 {
		t.Fatalf("empty map has %d buckets", len(m.buckets))
	}
	want := map[int]int{1: 64, 47: 64, 48: 128, 95: 128, 96: 256, 191: 256, 192: 512}
	for i := 1; i <= 192; i++ {
		m.Insert(string(rune('A'+i%26)) + string(rune('0'+i/26)))
		if w, ok := want[i]; ok && len(m.buckets) != w {
			t.Errorf("after %d keys: %d buckets, want %d", i, len(m.buckets), w)
		}
	}
	if got := len(m.Order()); got != 192 {
		t.Errorf("Order has %d keys, want 192", got)
	}
}

func FuzzDenseMapHash(f *testing.F) {
	f.Add([]byte("arch"))
	f.Add(make([]byte, 200))
	f.Fuzz(func(t *testing.T, b []byte) {
		if DenseMapHash(b) != DenseMapHash(slices.Clone(b)) {
			t.Fatal("hash not deterministic")
		}
	})
}
