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

// LLVM's cl parser: -h groups (-hh, -hh=0), an empty boolean value is true,
// and the "Did you mean" line follows LLVM's option map order, leaves out
// -h and --color, drops an empty "=" and never gives --help a value.
func TestDiffOptionSpellings(t *testing.T) {
	ref, ours := tools(t)
	var cases []difftest.Case
	for _, a := range []string{
		"-hh", "--hh", "-hh=0", "-hh=1", "-hh=", "-hh=x", "-hhh=0", "-hxh", "-hhx=1", "-hh=0h", "-hhelp", "-hlist",
		"-hel=x", "-help=", "-list=", "-unbundle=", "-heipjese", "-qqqq", "-l", "-x", "-xh", "-colo", "-color=x",
		"-ty=bc", "-=", "--=", "-=x", "-types=", "-versio=1", "-hel=", "--print-options=", "---list", "-compresion-level=3",
		"-zzzzzzzzzzzzzzzzzzzz", "-chek-input-archive", "-iunod-lpgy", "-ck-i#st-rive", "-al-smisigtndes", "-cmlssis-evl", "-pnp-lsthddss", "-tuyeptist-hde", "-nitcalvoxp#wqos", "-inpts=x", "-outpt=", "-target", "-bundle-alin=4",
	} {
		cases = append(cases, cs("-type=bc", "-list", "-input=hb", a), cs(a))
	}
	compare(t, ref, ours, cases)
}
