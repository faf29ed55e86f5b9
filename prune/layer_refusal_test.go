package prune

import (
	"bytes"
	"errors"
	"github.com/goffload/goffload/internal/test/elfbuild"
	"testing"
)

// TestLayerDamageIsRefusal: damage the section layer finds in tables prune
// reads (an empty symbol table placed past the end of the file, more
// wrappers than it reads, a .hipFatBinSegment without data) makes prune
// refuse the file, which a tree prune then keeps as it is, rather than
// fail the whole tree (found in review; each was a refusal before the
// section layer).
func TestLayerDamageIsRefusal(t *testing.T) {
	type adder = elfbuild.Adder
	many := uint64(1<<20+1) * 24
	for _, tc := range []struct {
		name  string
		extra func(add adder)
		tail  []byte
	}{
		{"empty symtab past EOF", func(add adder) { add(".symtab", 2, 0, 0, 0xffffffff, 0, 0, 24) }, nil},
		{"too many wrappers", func(add adder) { add(".hipFatBinSegment", 1, 3, 0x100000, ^uint64(0), many, 0, 0) }, make([]byte, many)},
		{"NOBITS .hipFatBinSegment", func(add adder) { add(".hipFatBinSegment", 8, 3, 0x100000, ^uint64(0), 48, 0, 0) }, make([]byte, 48)},
	} {
		file := elfbuild.HIP(tc.extra, tc.tail)
		_, err := Rewrite(&memOut{}, bytes.NewReader(file), int64(len(file)), "x.so", Options{Keep: targets("gfx1100"), AllowEmpty: true})
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v, want a refusal", tc.name, err)
		}
	}
}
