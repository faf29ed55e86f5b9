package inspect_test

import (
	"bytes"
	"encoding/binary"

	"testing"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/test/elfbuild"
)

// TestWrappersBesideBadRelocations: a relocation section lying outside the
// file hides no wrapper (it sets nothing), as before the shared wrapper
// reader (found in review).
func TestWrappersBesideBadRelocations(t *testing.T) {
	w := make([]byte, 24)
	binary.LittleEndian.PutUint32(w, 0x48495046)
	binary.LittleEndian.PutUint32(w[4:], 1)
	binary.LittleEndian.PutUint64(w[8:], 0x1000)
	file := elfbuild.HIP(func(add elfbuild.Adder) {
		add(".hipFatBinSegment", 1, 3, 0x200000, ^uint64(0), 24, 0, 0)
		add(".rela.dyn", 4, 2, 0, 0xffffff00, 24, 0, 24)
	}, w)
	l := inspect.Read(bytes.NewReader(file), int64(len(file)), "x.so", nil)
	if len(l.Wrappers) != 1 || l.Wrappers[0].Bundle != 0 || len(l.Objects) != 1 {
		t.Errorf("%d objects, wrappers %+v, errors %v", len(l.Objects), l.Wrappers, l.Errors)
	}
}
