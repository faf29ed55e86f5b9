package bundler_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
)

// Binary bundles whose bounds checks wrap past 2^64 in LLVM 22 (issue 14,
// item 3). LLVM accepts an entry whose offset + size wraps: it lists every
// ID and extracts the other entries, as we do. Extracting that entry reads
// outside LLVM's buffer ("IO failure on output stream: Bad address" after
// writing what follows the buffer, or bytes from before it), and an ID
// length that wraps with a valid offset crashes it (it hashes an ID of
// nearly 2^64 bytes): there we give a clear error and write nothing.
func TestDiffBinaryWrappedBounds(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	b := refMake(t, ref, "-type=bc", "-targets="+host+","+gfx906+","+gfx908, "-input=hb", "-input=b1", "-input=b2")
	le := binary.LittleEndian
	// Entry i's offset, size and ID length fields, in file order.
	var fields []int
	pos := 32
	for range 3 {
		fields = append(fields, pos)
		pos += 24 + int(le.Uint64(b[pos+16:]))
	}
	patch := func(entry, field int, v uint64) []byte {
		c := bytes.Clone(b)
		le.PutUint64(c[fields[entry]+8*field:], v)
		return c
	}
	firstOff := le.Uint64(b[fields[0]:])
	secondOff := le.Uint64(b[fields[1]:])
	files := withFiles(map[string][]byte{
		"sizewraps.bc":   patch(0, 1, -firstOff+4),
		"offwraps.bc":    patch(0, 0, ^uint64(0)-3),
		"sizemax.bc":     patch(0, 1, ^uint64(0)),
		"second.bc":      patch(1, 1, -secondOff),
		"idlen.bc":       patch(0, 2, 0xffffffffffffffe2),
		"idlenoff0.bc":   func() []byte { c := patch(0, 2, 0xffffffffffffffe2); le.PutUint64(c[fields[0]:], 0); return c }(),
		"idlensecond.bc": patch(1, 2, ^uint64(0)-79),
	})
	ids := []string{host, gfx906, gfx908}
	wrapped := map[string]string{"sizewraps.bc": host, "offwraps.bc": host, "sizemax.bc": host, "second.bc": gfx906}
	var same []difftest.Case
	for _, f := range []string{"sizewraps.bc", "offwraps.bc", "sizemax.bc", "second.bc"} {
		same = append(same, difftest.Case{Files: files, Args: []string{"-type=bc", "-list", "-input=" + f}})
		var others []string
		for _, id := range ids {
			if id != wrapped[f] {
				others = append(others, id)
				same = append(same, difftest.Case{Files: files, Args: []string{"-type=bc", "-unbundle", "-targets=" + id, "-input=" + f, "-output=o"}})
			}
		}
		same = append(same, difftest.Case{Files: files, Args: []string{"-type=bc", "-unbundle", "-targets=" + strings.Join(others, ","), "-input=" + f, "-output=o1", "-output=o2"}})
	}
	// An ID length that wraps with offset 0: LLVM stops at the offset
	// check, before it uses the ID, and sees no bundles.
	same = append(same,
		difftest.Case{Files: files, Args: []string{"-type=bc", "-list", "-input=idlenoff0.bc"}},
		difftest.Case{Files: files, Args: []string{"-type=bc", "-unbundle", "-targets=" + gfx906, "-input=idlenoff0.bc", "-output=o"}},
	)
	compare(t, ref, ours, same)

	// Where LLVM reads out of bounds or crashes: a clear error, no output.
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-unbundle", "-targets=" + host, "-input=sizewraps.bc", "-output=o"}, "payload of '" + host + "-' at offset"},
		{[]string{"-unbundle", "-targets=" + host, "-input=offwraps.bc", "-output=o"}, "lies outside the file"},
		{[]string{"-unbundle", "-targets=" + host, "-input=sizemax.bc", "-output=o"}, "with size 18446744073709551615 lies outside the file"},
		{[]string{"-unbundle", "-targets=" + host + "," + gfx906, "-input=second.bc", "-output=o1", "-output=o2"}, "payload of '" + gfx906 + "'"},
		{[]string{"-list", "-input=idlen.bc"}, "entry 0 at offset 32: ID length 18446744073709551586 runs past the end of the file"},
		{[]string{"-unbundle", "-targets=" + gfx906, "-input=idlen.bc", "-output=o"}, "ID length 18446744073709551586 runs past the end of the file"},
		{[]string{"-list", "-input=idlensecond.bc"}, "entry 1 at offset"},
	} {
		c := difftest.Case{Files: files, Args: append([]string{"-type=bc"}, tc.args...), Argv0: "clang-offload-bundler"}
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			want := difftest.Run(t, ref, c)
			got := difftest.Run(t, ours, c)
			t.Logf("LLVM 22: exit %d, stdout %q, stderr %.200q", want.Code, want.Stdout, want.Stderr)
			if got.Code != 1 || got.Stdout != "" || !strings.Contains(got.Stderr, "invalid bundle header: ") || !strings.Contains(got.Stderr, tc.msg) {
				t.Errorf("ours: exit %d, stdout %q, stderr %q; want exit 1 and %q", got.Code, got.Stdout, got.Stderr, tc.msg)
			}
			for name := range got.Files {
				if _, ok := files[name]; !ok {
					t.Errorf("ours left %s behind", name)
				}
			}
		})
	}
}
