package bitcode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/goffload/goffload/fmterr"
)

func TestMalformed(t *testing.T) {
	syms, err := os.ReadFile("testdata/syms.bc")
	if err != nil {
		t.Fatal(err)
	}
	wrapper := func(off, size uint32, body []byte) []byte {
		h := make([]byte, 20)
		binary.LittleEndian.PutUint32(h, wrapperMagic)
		binary.LittleEndian.PutUint32(h[8:], off)
		binary.LittleEndian.PutUint32(h[12:], size)
		return append(h, body...)
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too small"},
		{"bad magic", []byte("BC\xc0\xdf\x00\x00\x00\x00"), "invalid bitcode signature"},
		{"not multiple of 4", append(append([]byte{}, syms...), 0), "not a multiple of 4"},
		{"truncated", syms[:len(syms)/2&^3], "past the end"},
		{"wrapper past end", wrapper(20, uint32(len(syms)+4), syms), "invalid bitcode wrapper header"},
		{"wrapper too short", wrapper(20, 0, nil)[:12], "invalid bitcode wrapper header"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for fn, call := range map[string]func() error{
				"Symbols": func() error {
					_, err := Symbols(bytes.NewReader(tc.data), int64(len(tc.data)))
					return err
				},
				"EmbeddedObjects": func() error {
					_, err := EmbeddedObjects(bytes.NewReader(tc.data), int64(len(tc.data)))
					return err
				},
			} {
				err := call()
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: got %v, want an error containing %q", fn, err, tc.want)
				}
			}
		})
	}
}

// TestNoModule: LLVM reads bitcode that ends (but for up to 8 bytes) right
// after the magic as a file without symbols; it has no embedded objects
// either way.
func TestNoModule(t *testing.T) {
	wrapped := make([]byte, 20)
	binary.LittleEndian.PutUint32(wrapped, wrapperMagic)
	binary.LittleEndian.PutUint32(wrapped[8:], 20)
	binary.LittleEndian.PutUint32(wrapped[12:], 5)
	wrapped = append(wrapped, "BC\xc0\xde\x00jjj"...)
	for _, data := range [][]byte{[]byte("BC\xc0\xde"), []byte("BC\xc0\xde\xff\xff\xff\xff"), []byte("BC\xc0\xde\x00\x00\x00\x00\x00\x00\x00\x00"), wrapped} {
		syms, err := Symbols(bytes.NewReader(data), int64(len(data)))
		if err != nil || syms != nil {
			t.Errorf("%q: Symbols: %q, %v; want no symbols and no error", data, syms, err)
		}
		if _, err := EmbeddedObjects(bytes.NewReader(data), int64(len(data))); err == nil || !strings.Contains(err.Error(), "single module") {
			t.Errorf("%q: EmbeddedObjects: %v, want a no-module error", data, err)
		}
	}
}

func TestWrapperAroundStream(t *testing.T) {
	syms, err := os.ReadFile("testdata/syms.bc")
	if err != nil {
		t.Fatal(err)
	}
	h := make([]byte, 20)
	binary.LittleEndian.PutUint32(h, wrapperMagic)
	binary.LittleEndian.PutUint32(h[8:], 20)
	binary.LittleEndian.PutUint32(h[12:], uint32(len(syms)))
	data := append(append(h, syms...), "trailing jun"...) // the file stays a multiple of 4 bytes
	got, err := Symbols(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := readSyms(t, "testdata/syms.syms")
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A stream without a module (the magic number alone, or with at most 8
// bytes after it) is, for LLVM 22's archive writer, an object without
// symbols (no warning); a module is needed to read embedded objects.
func TestNoModuleStream(t *testing.T) {
	for _, data := range [][]byte{[]byte("BC\xc0\xde"), []byte("BC\xc0\xde\x01\x02\x03\x04garb")} {
		syms, err := Symbols(bytes.NewReader(data), int64(len(data)))
		if err != nil || syms != nil {
			t.Errorf("%q: Symbols: %q, %v; want none and no error", data, syms, err)
		}
		if _, err := EmbeddedObjects(bytes.NewReader(data), int64(len(data))); err == nil || !strings.Contains(err.Error(), "single module") {
			t.Errorf("%q: EmbeddedObjects: %v", data, err)
		}
	}
}

// LLVM 22's messages for streams it cannot open (printed by llvm-ar and
// llvm-offload-binary --archive in a warning).
func TestLLVMMessagesWrapper(t *testing.T) {
	wrap := func(off, size uint32, body string) []byte {
		h := make([]byte, 20)
		binary.LittleEndian.PutUint32(h, wrapperMagic)
		binary.LittleEndian.PutUint32(h[8:], off)
		binary.LittleEndian.PutUint32(h[12:], size)
		return append(h, body...)
	}
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{[]byte("BC\xc0\xde\x00\x00\x00\x00\x00"), "Invalid bitcode signature"},
		{wrap(20, 4, "")[:16], "Invalid bitcode wrapper header"},
		{wrap(20, 8, "BC\xc0\xde"), "Invalid bitcode wrapper header"},
		{wrap(20, 3, "BC\xc0\xde"), "file too small to contain bitcode header"},
		{wrap(4, 8, ""), "file doesn't start with bitcode header"},
		{append([]byte("BC\xc0\xde"), make([]byte, 12)...), "Malformed block"},
	} {
		_, err := Symbols(bytes.NewReader(tc.data), int64(len(tc.data)))
		var fe *FormatError
		if !errors.As(err, &fe) || fe.LLVMMessage() != tc.want {
			t.Errorf("% x: %v, want LLVM's %q", tc.data, err, tc.want)
		}
	}
	// A wrapped stream of any length: 1 byte after the magic is no module.
	if syms, err := Symbols(bytes.NewReader(wrap(20, 5, "BC\xc0\xde\x00\x00\x00\x00")), 28); err != nil || syms != nil {
		t.Errorf("wrapped 5-byte stream: %q, %v", syms, err)
	}
}

func TestNoEmbeddedObjects(t *testing.T) {
	data, err := os.ReadFile("testdata/tmpl.bc")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := EmbeddedObjects(bytes.NewReader(data), int64(len(data)))
	if err != nil || objs != nil {
		t.Errorf("got %d objects, %v; want none and no error", len(objs), err)
	}
}

func TestFormatErrorType(t *testing.T) {
	_, err := Symbols(bytes.NewReader([]byte("BC\xc0\xdf")), 4)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != 0 || fe.Field != "magic" || !errors.Is(err, ErrNotBitcode) {
		t.Errorf("got %v, want a *FormatError at offset 0 in the magic, wrapping ErrNotBitcode", err)
	}
}

// TestTrailingBytes: llvm-ar 22 reads bitcode followed by up to 8 zero bytes
// and reports "Malformed block" for 12 or more.
func TestTrailingBytes(t *testing.T) {
	syms, err := os.ReadFile("testdata/syms.bc")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{4, 8, 12, 16} {
		data := append(append([]byte{}, syms...), make([]byte, n)...)
		_, err := Symbols(bytes.NewReader(data), int64(len(data)))
		if (err == nil) != (n <= 8) {
			t.Errorf("%d trailing bytes: error %v", n, err)
		}
	}
}

// TestLLVMMessages: the texts llvm-ar 22 prints ("warning: '<member>':
// <text>") for these damaged copies of testdata/syms.bc, and with it the
// offload bundler for a device member of an output archive.
func TestLLVMMessages(t *testing.T) {
	syms, err := os.ReadFile("testdata/syms.bc")
	if err != nil {
		t.Fatal(err)
	}
	wrapper := func(off, size uint32, body string) []byte {
		h := make([]byte, 20)
		binary.LittleEndian.PutUint32(h, wrapperMagic)
		binary.LittleEndian.PutUint32(h[8:], off)
		binary.LittleEndian.PutUint32(h[12:], size)
		return append(h, body...)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"odd size", append(bytes.Clone(syms), 'j'), "Invalid bitcode signature"},
		{"cut in IDENTIFICATION", syms[:16], "can't skip to bit 256 from 96"},
		{"cut after IDENTIFICATION", syms[:32], "Malformed block"},
		{"cut in MODULE header", syms[:36], "Unexpected end of file reading 36 of 36 bytes"},
		{"cut after MODULE length", syms[:40], "can't skip block: already at end of stream"},
		{"cut in MODULE", syms[:44], "can't skip to bit 25472 from 320"},
		{"cut before last END_BLOCK", syms[:len(syms)-4], "Malformed block"},
		{"cut in STRTAB blob", syms[:len(syms)-8], "Blob ends too soon"},
		{"wrapper, no bitcode", wrapper(20, 0, ""), "file too small to contain bitcode header"},
		{"wrapper, 2 bytes", wrapper(20, 2, "BCjj"), "file too small to contain bitcode header"},
		{"wrapper, bad magic", wrapper(20, 4, "XXXX"), "file doesn't start with bitcode header"},
		{"wrapper past end", wrapper(20, uint32(len(syms)+4), string(syms)), "Invalid bitcode wrapper header"},
		{"wrapper too short", wrapper(20, 0, "")[:12], "Invalid bitcode wrapper header"},
	} {
		_, err := Symbols(bytes.NewReader(c.data), int64(len(c.data)))
		if got := fmterr.LLVMMessage(err); got != c.want {
			t.Errorf("%s: LLVM text %q (%v), want %q", c.name, got, err, c.want)
		}
	}
}

// TestDamagedSymtab: LLVM reads the symbols from the IR, so a damaged
// irsymtab does not change them where the IR can be read.
func TestDamagedSymtab(t *testing.T) {
	data, err := os.ReadFile("testdata/linkages.bc")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Symbols(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := openFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, f.symtab)
	if at < 0 || len(f.symtab) < headerSize {
		t.Fatal("irsymtab not found")
	}
	bad := bytes.Clone(data)
	binary.LittleEndian.PutUint32(bad[at+hdrSymbols+4:], 1<<20) // symbol count
	if _, _, err := (&file{symtab: bad[at : at+len(f.symtab)], symStrtab: f.symStrtab, haveSymtab: true, mods: f.mods}).symbols(); err == nil {
		t.Fatal("the damaged irsymtab reads without error")
	}
	got, err := Symbols(bytes.NewReader(bad), int64(len(bad)))
	if err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}
