package inspect

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Inputs of the shapes of LLVM's --offloading regression tests, made by
// testdata/llvmtests/gen.sh; internal/tool/goffload compares goffload with
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

// An image of the four OffloadBinary magic bytes only
// (nested-offload-binary-empty.test) is an image like any other: LLVM 22's
// objdump lists it and llvm-offload-binary extracts its 4 bytes.
func TestLLVMNestedEmpty(t *testing.T) {
	l := readLLVMTest(t, "nested-empty.bin")
	if len(l.Errors) != 0 || len(l.Objects) != 1 {
		t.Fatalf("objects %q, errors %v; want one image and no error", ids(l), l.Errors)
	}
	o := l.Objects[0]
	if o.ID != "openmp-x-y-z--none" || o.Size != 4 || o.Nested != 0 || len(l.Devices()) != 1 {
		t.Errorf("%s: size %d nested %d", o.Where(), o.Size, o.Nested)
	}
	if b := readAll(t, o); string(b) != "\x10\xff\x10\xad" {
		t.Errorf("image bytes % x", b)
	}
}

// The outer images of a nested OffloadBinary (nested-offload-binary.test)
// are listed, before and as the container of the images inside them, and
// open to their whole bytes (what llvm-offload-binary extracts); they are
// not code objects of their own.
func TestLLVMNested(t *testing.T) {
	l := readLLVMTest(t, "nested.bin")
	if len(l.Errors) != 0 {
		t.Fatal(l.Errors)
	}
	want := []string{"openmp-x-y-z--none", "openmp-x-y-z--arch1", "openmp-x-y-z--arch2",
		"openmp-a-b-c--none", "openmp-x-y-z--arch1", "openmp-x-y-z--arch2"}
	if got := ids(l); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("listed %q, want %q", got, want)
	}
	for i, o := range l.Objects {
		outer := i%3 == 0
		switch {
		case outer && (o.Nested != 2 || o.Outer != nil || o.Size != 272 || len(o.Path) != 1):
			t.Errorf("%s: nested %d, outer %v, size %d, path %q", o.Where(), o.Nested, o.Outer, o.Size, o.Path)
		case !outer && (o.Nested != 0 || o.Outer != l.Objects[i/3*3]):
			t.Errorf("%s: nested %d, outer %v", o.Where(), o.Nested, o.Outer)
		}
	}
	outer := readAll(t, l.Objects[3])
	if len(outer) != 272 || string(outer[:4]) != "\x10\xff\x10\xad" || string(readAll(t, l.Objects[0])) != string(outer) {
		t.Errorf("outer images: %d bytes, % x...", len(outer), outer[:min(8, len(outer))])
	}
	if n := len(l.Devices()); n != 4 {
		t.Errorf("%d devices, want the 4 inner images", n)
	}
}

// Escape leaves printable text alone and writes the rest as Go escapes.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+": "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
		"lib.so → .hip_fatbin › bundle 0 (7.5×)": "lib.so → .hip_fatbin › bundle 0 (7.5×)",
		"ux--\x00\x10\xd0\x0f\x1f":               `ux--\x00\x10\xd0\x0f\x1f`,
		"a\tb\nc\x7f":                            `a\x09b\x0ac\x7f`,
		"rtl\u202eevil\u0085":                    `rtl\u202eevil\u0085`,
		"\U000e0001tag":                          `\U000e0001tag`,
		"":                                       "",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
