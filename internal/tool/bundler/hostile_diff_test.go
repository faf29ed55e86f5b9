package bundler_test

import (
	"encoding/binary"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
)

// Damaged compressed bundles get LLVM's messages.
func TestDiffHostileCCOB(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	good := refMake(t, ref, "-type=bc", "-targets="+host+","+gfx906, "-input=hb", "-input=b1", "-compress")
	patch := func(off int, b ...byte) []byte {
		c := append([]byte(nil), good...)
		copy(c[off:], b)
		return c
	}
	le64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	files := withFiles(map[string][]byte{
		"good":      good,
		"trunc":     good[:len(good)-5],
		"hdronly":   good[:32],
		"short":     good[:20],
		"v4":        patch(4, 4, 0),
		"v0":        patch(4, 0, 0),
		"method2":   patch(6, 2, 0),
		"badhash":   patch(24, 1, 2, 3),
		"total0":    patch(8, le64(0)...),
		"totalhuge": patch(8, le64(1<<40)...),
		"usize1":    patch(16, le64(1)...),
		"trailnul":  append(append([]byte(nil), good...), 0),
		"corrupt":   patch(40, 0xff, 0xff, 0xff, 0xff),
	})
	var cases []difftest.Case
	for _, f := range []string{"good", "trunc", "hdronly", "short", "v4", "v0", "method2", "badhash", "total0", "totalhuge", "usize1", "corrupt"} {
		cases = append(cases,
			difftest.Case{Files: files, Args: []string{"-type=bc", "-list", "-input=" + f}},
			difftest.Case{Files: files, Args: []string{"-type=bc", "-list", "-verbose", "-input=" + f}},
			difftest.Case{Files: files, Args: []string{"-type=bc", "-unbundle", "-targets=" + gfx906, "-input=" + f, "-output=o"}},
		)
	}
	compare(t, ref, ours, cases)
}

// Where LLVM 22 fails on valid real-world input — a CCOB followed by zero
// padding, several CCOBs back to back — we read it (as newer LLVM does).
func TestConcatenatedCCOB(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	a := refMake(t, ref, "-type=bc", "-targets="+host+","+gfx906, "-input=hb", "-input=b1", "-compress")
	b := refMake(t, ref, "-type=bc", "-targets="+gfx908+","+gfx90a, "-input=b2", "-input=b3", "-compress")
	pad := make([]byte, 4096-len(a)%4096)
	cat := append(append(append([]byte(nil), a...), pad...), b...)
	files := withFiles(map[string][]byte{"cat": cat, "trail": append(append([]byte(nil), a...), 0, 0, 0, 0)})
	out := difftest.Run(t, ours, difftest.Case{Files: files, Args: []string{"-type=bc", "-list", "-input=cat"}})
	if out.Code != 0 || out.Stdout != gfx906+"\n"+host+"-\n"+gfx908+"\n"+gfx90a+"\n" {
		t.Errorf("list of concatenated CCOBs: %d %q %q", out.Code, out.Stdout, out.Stderr)
	}
	out = difftest.Run(t, ours, difftest.Case{Files: files, Args: []string{"-type=bc", "-unbundle", "-targets=" + gfx906 + "," + gfx90a, "-input=cat", "-output=x", "-output=y"}})
	if out.Code != 0 || string(out.Files["x"]) != "DEV1" || string(out.Files["y"]) != "DEV333" {
		t.Errorf("unbundle of concatenated CCOBs: %d %q %q %q", out.Code, out.Stderr, out.Files["x"], out.Files["y"])
	}
	out = difftest.Run(t, ours, difftest.Case{Files: files, Args: []string{"-type=bc", "-list", "-input=trail"}})
	if out.Code != 0 || out.Stdout != gfx906+"\n"+host+"-\n" {
		t.Errorf("list of padded CCOB: %d %q %q", out.Code, out.Stdout, out.Stderr)
	}
}
