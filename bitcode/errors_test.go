package bitcode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
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

func TestWrapperAroundStream(t *testing.T) {
	syms, err := os.ReadFile("testdata/syms.bc")
	if err != nil {
		t.Fatal(err)
	}
	h := make([]byte, 20)
	binary.LittleEndian.PutUint32(h, wrapperMagic)
	binary.LittleEndian.PutUint32(h[8:], 20)
	binary.LittleEndian.PutUint32(h[12:], uint32(len(syms)))
	// The whole file must be a multiple of 4 bytes long; the junk after the
	// wrapped stream is ignored.
	data := append(append(h, syms...), "trailing junk..."...)
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
func TestNoModule(t *testing.T) {
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
func TestLLVMMessages(t *testing.T) {
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
	if !errors.As(err, &fe) || fe.Off != 0 {
		t.Errorf("got %v, want a *FormatError at offset 0", err)
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
