package e2e

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/bundle"
	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/format/objfmt"
	"github.com/goffload/goffload/internal/format/offloadbin"
	"github.com/goffload/goffload/internal/format/textfmt"
)

// TestSharedSentinels: the same damage gives an error that matches the
// same shared sentinel of package fmterr whichever package read it.
func TestSharedSentinels(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "inspect", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	half := func(b []byte) []byte { return b[:len(b)/2] }
	so, nd, ccob, lib := half(read("libmulti.so")), half(read("newdriver.o")), read("gfx90a-ccob.co")[:1000], half(read("librdc.a"))

	inspectErr := func(b []byte) error {
		l := inspect.Read(bytes.NewReader(b), int64(len(b)), "x", nil)
		if len(l.Errors) == 0 {
			return nil
		}
		return l.Errors[0]
	}
	_, bundleErr := bundle.Open(bytes.NewReader(ccob), int64(len(ccob)), nil)
	_, objErr := objfmt.ReadBundles(bytes.NewReader(so), int64(len(so)))
	_, offErr := offloadbin.Extract(bytes.NewReader(nd), int64(len(nd)), "newdriver.o")
	_, arErr := ar.NewReader(bytes.NewReader(lib[:100]), 100, "librdc.a")
	_, hdrErr := compress.ParseHeader(ccob[:10])
	var table bytes.Buffer
	binfmt.Write(&table, []binfmt.Source{{ID: "hip-amdgcn-amd-amdhsa--gfx90a", R: bytes.NewReader([]byte("x")), Size: 1}}, 8)
	cut := table.Bytes()[:40]
	_, binErr := binfmt.Scan(bytes.NewReader(cut), int64(len(cut)))
	_, textErr := textfmt.Scan(bytes.NewReader([]byte("\n// __CLANG_OFFLOAD_BUNDLE____START__ a\nx\n")), "", func(textfmt.Span) error { return nil })

	for _, tc := range []struct {
		name string
		err  error
		is   error
	}{
		{"inspect, a .so cut in half", inspectErr(so), fmterr.ErrTruncated},
		{"inspect, an archive cut in half", inspectErr(lib), fmterr.ErrMalformed},
		{"bundle.Open, a cut CCOB", bundleErr, fmterr.ErrMalformed},
		{"objfmt, a .so cut in half", objErr, fmterr.ErrTruncated},
		{"offloadbin, a new-driver object cut in half", offErr, fmterr.ErrMalformed},
		{"ar, a cut archive", arErr, fmterr.ErrMalformed},
		{"compress, a cut header", hdrErr, fmterr.ErrTruncated},
		{"binfmt, a cut table", binErr, fmterr.ErrTruncated},
		{"textfmt, no END marker", textErr, fmterr.ErrTruncated},
	} {
		if !errors.Is(tc.err, tc.is) {
			t.Errorf("%s: %v is not %v", tc.name, tc.err, tc.is)
		}
	}
}
