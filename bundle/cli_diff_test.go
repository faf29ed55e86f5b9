package bundle_test

import (
	"testing"

	"github.com/goffload/goffload/internal/difftest"
)

// Output names that cannot be files: LLVM reports open(2)'s error on the
// name (an empty name, a trailing slash), never a failed rename.
func TestDiffOutputNames(t *testing.T) {
	ref, ours := tools(t)
	b := refMake(t, ref, "-type=bc", "-targets="+host+","+gfx906, "-input=hb", "-input=b1")
	files := withFiles(map[string][]byte{"b.bc": b})
	var cases []difftest.Case
	for _, out := range []string{"", "nodir/", "sub/", "hb/", "."} {
		cases = append(cases,
			cs("-type=bc", "-targets="+host, "-input=hb", "-output="+out),
			cs("-type=i", "-targets="+host, "-input=h.txt", "-output="+out),
			cs("-type=bc", "-unbundle", "-targets="+gfx906, "-input=b.bc", "-output="+out),
			cs("-type=bc", "-unbundle", "-targets="+gfx906+","+host, "-input=b.bc", "-output=x", "-output="+out),
		)
	}
	cases = append(cases, cs("-type=bc", "-targets="+host, "-inputs=hb", "-outputs="))
	for i := range cases {
		cases[i].Files = files
	}
	compare(t, ref, ours, cases)
}
