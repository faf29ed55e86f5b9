package editdist

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"gfx9O8", "gfx908", 1}, {"gfx90", "gfx900", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}, {"typ", "type", 1}} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
