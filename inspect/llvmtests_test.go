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
