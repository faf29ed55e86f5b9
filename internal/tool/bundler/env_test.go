package bundler

import "testing"

// TestSym64ThresholdFromEnv: values as LLVM 22's writer reads them (checked
// against the offload bundler with each value).
func TestSym64ThresholdFromEnv(t *testing.T) {
	for _, c := range []struct {
		v    string
		set  bool
		want uint64
	}{
		{"", false, 1 << 32}, {"", true, 1 << 32}, {"100", true, 100}, {"0", true, 0},
		{"abc", true, 1 << 32}, {"0x10", true, 1 << 32}, {" 5", true, 1 << 32}, {"+5", true, 1 << 32},
		{"18446744073709551615", true, 1<<64 - 1}, {"99999999999999999999", true, 1 << 32},
	} {
		if got := sym64ThresholdFromEnv(c.v, c.set); got != c.want {
			t.Errorf("%q (set %v): %d, want %d", c.v, c.set, got, c.want)
		}
	}
}
