package inspect

import (
	"bytes"
	"testing"

	"github.com/goffload/goffload/internal/format/offloadbin"
	"github.com/goffload/goffload/internal/test/offbintest"
	"github.com/goffload/goffload/targetid"
)

// The images of one v2 binary are one unit, as a v1 run's binaries are
// one each: a GPU loads one of them. ForTarget picked each.
func TestUnitOfV2Images(t *testing.T) {
	hip := uint16(offloadbin.ParseOffloadKind("hip"))
	obj := uint16(offloadbin.ImageKindFromExtension("o"))
	img := func(arch string) offbintest.Image {
		return offbintest.Image{Kind: obj, Offload: hip, Strings: [][2]string{{"triple", "amdgcn-amd-amdhsa"}, {"arch", arch}}, Data: "code for " + arch}
	}
	b := offbintest.BuildV2(2, []offbintest.Image{img("gfx90a"), img("gfx90a:xnack+")})
	l := Read(bytes.NewReader(b), int64(len(b)), "v2.bin", &Options{SkipHeaders: true})
	if len(l.Errors) > 0 || len(l.Objects) != 2 || l.Objects[0].Unit() != l.Objects[1].Unit() {
		t.Fatalf("%v: %d objects", l.Errors, len(l.Objects))
	}
	picked, err := l.ForTarget(targetid.MustParseTarget("gfx90a:xnack+"))
	if err != nil || len(picked) != 1 || picked[0].TargetID != "gfx90a:xnack+" {
		t.Errorf("%v: %d picked", err, len(picked))
	}
}
