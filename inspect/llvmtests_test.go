package inspect

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Inputs of the shapes of LLVM's --offloading regression tests, made by
// testdata/llvmtests/gen.sh; internal/goffloadcmd compares goffload with
// what LLVM 22's tools say about all of them.
const llvmTestsDir = "../testdata/llvmtests"

func readLLVMTest(t *testing.T, name string) *Listing {
	t.Helper()
	l, err := ReadFile(filepath.Join(llvmTestsDir, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// A zero-size .llvm.offloading section whose offset lies past the end of
// the file (content-failure.test) is damage, as LLVM 22 reports it.
func TestLLVMContentFailure(t *testing.T) {
	l := readLLVMTest(t, "content-failure.elf")
	if len(l.Objects) != 0 || len(l.Errors) != 1 {
		t.Fatalf("%d objects, errors %v; want none and one", len(l.Objects), l.Errors)
	}
	e := l.Errors[0]
	if !errors.Is(e, ErrTruncated) || e.Offset != 0x77777 || !strings.Contains(e.Field, ".llvm.offloading") {
		t.Errorf("error %q (offset %#x, field %q): want ErrTruncated at 0x77777 naming .llvm.offloading", e, e.Offset, e.Field)
	}
}

// A bundle header that does not hold its entry table (offloading-fail.test:
// an ID that claims more bytes than there are before the next entry, so
// the table runs into the payload) is damage: reported with the file, the
// container, the file offset and the field, and no entry is listed from it,
// not even the one read before the damage (its "ID" holds the next entry's
// fields).
func TestLLVMOffloadingFail(t *testing.T) {
	l := readLLVMTest(t, "offloading-fail.elf")
	if len(l.Objects) != 0 {
		t.Errorf("listed %q from a damaged table", ids(l))
	}
	if len(l.Errors) != 1 {
		t.Fatalf("errors %v, want one", l.Errors)
	}
	e := l.Errors[0]
	// .hip_fatbin at 0x1000; the second entry's ID length field is at
	// 32 + 24 + 30 + 16 in the bundle.
	if !errors.Is(e, ErrMalformed) || e.Offset != 0x1000+32+24+30+16 || e.Field != "entry 1 ID length" ||
		strings.Join(e.Path, "/") != ".hip_fatbin/bundle 0" || !strings.HasPrefix(e.Error(), filepath.Join(llvmTestsDir, "offloading-fail.elf")) {
		t.Errorf("error %q: path %q offset %#x field %q", e, e.Path, e.Offset, e.Field)
	}
}
