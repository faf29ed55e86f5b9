package targetid

import "testing"

func TestGPUFit(t *testing.T) {
	for _, c := range []struct {
		gpu, have string
		score     int
	}{
		{"gfx90a", "gfx90a", 100},
		{"gfx90a:xnack+", "gfx90a", 100},
		{"gfx90a:xnack+", "gfx90a:xnack+", 110},
		{"gfx90a:xnack+", "gfx90a:xnack-", 0},
		{"gfx90a", "gfx90a:xnack-", 100},
		{"gfx906", "gfx9-generic", 50},
		{"gfx906", "gfx90a", 0},
		{"gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack-", 120},
	} {
		g, err := ParseGPU(c.gpu)
		if err != nil {
			t.Fatal(err)
		}
		if got, why := g.Fit(c.have); got != c.score {
			t.Errorf("%s.Fit(%s) = %d (%s), want %d", c.gpu, c.have, got, why, c.score)
		}
	}
	for _, bad := range []string{"", ":xnack+", "gfx90a:xnack", "gfx90a:xnack+:xnack-"} {
		if _, err := ParseGPU(bad); err == nil {
			t.Errorf("ParseGPU(%q) accepted", bad)
		}
	}
	if g, _ := ParseGPU("gfx942:xnack-:sramecc+"); g.String() != "gfx942:sramecc+:xnack-" {
		t.Errorf("String = %s", g)
	}
}
