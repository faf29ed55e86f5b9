package fmterr_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/format/ar"
)

type llvmErr struct{ msg, llvm string }

func (e *llvmErr) Error() string       { return e.msg }
func (e *llvmErr) LLVMMessage() string { return e.llvm }

type joined struct{ errs []error }

func (e *joined) Error() string   { return "joined" }
func (e *joined) Unwrap() []error { return e.errs }

func TestLLVMMessage(t *testing.T) {
	plain := errors.New("plain")
	known := &llvmErr{"ours", "LLVM's"}
	unknown := &llvmErr{"ours", ""}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"plain", plain, "plain"},
		{"known", known, "LLVM's"},
		{"unknown", unknown, "ours"},
		{"wrapped", fmt.Errorf("context: %w", known), "LLVM's"},
		{"outermost wins", &llvmErr{"outer", "outer LLVM"}, "outer LLVM"},
		{"empty outer, known inner", fmt.Errorf("%w", &wrapLLVM{unknown: "", err: known}), "LLVM's"},
		{"tree", &joined{[]error{plain, unknown, known}}, "LLVM's"},
		{"tree without", &joined{[]error{plain, unknown}}, "joined"},
	} {
		if got := fmterr.LLVMMessage(tc.err); got != tc.want {
			t.Errorf("%s: LLVMMessage = %q, want %q", tc.name, got, tc.want)
		}
	}
}

type wrapLLVM struct {
	unknown string
	err     error
}

func (e *wrapLLVM) Error() string       { return "wrap: " + e.err.Error() }
func (e *wrapLLVM) LLVMMessage() string { return e.unknown }
func (e *wrapLLVM) Unwrap() error       { return e.err }

// TestLLVMMessageArchive: an archive member header's bad size field, as
// the drop-ins meet it: the error says where, matches the shared sentinel
// and gives LLVM's text.
func TestLLVMMessageArchive(t *testing.T) {
	lib := []byte("!<arch>\nk.o/            0           0     0     644     12x       `\n")
	_, err := ar.NewReader(bytes.NewReader(lib), int64(len(lib)), "lib.a")
	err = fmt.Errorf("reading: %w", err)
	var fe *ar.FormatError
	if !errors.As(err, &fe) || fe.Offset != 56 || fe.Field != "size" || !errors.Is(err, ar.ErrMalformed) || !errors.Is(err, fmterr.ErrMalformed) {
		t.Errorf("%v: not an ar.FormatError at 56, field size, ar.ErrMalformed and fmterr.ErrMalformed", err)
	}
	if got, want := fmterr.LLVMMessage(err), "truncated or malformed archive (characters in size field in archive member header are not all decimal numbers: '12x' for the archive member header at offset 8)"; got != want {
		t.Errorf("LLVMMessage = %q, want %q", got, want)
	}
}

// The shared sentinels answer for any package: a damaged archive listed by
// package inspect is fmterr.ErrMalformed, whichever reader found it.
func Example() {
	lib := []byte("!<arch>\nk.o/            0           0     0     644     12x       `\n")
	l := inspect.Read(bytes.NewReader(lib), int64(len(lib)), "lib.a", nil)
	for _, e := range l.Errors {
		fmt.Println(e)
		fmt.Println(errors.Is(e, fmterr.ErrMalformed), errors.Is(e, fmterr.ErrTruncated))
	}
	// Output:
	// lib.a: offset 0x38: archive header: size: size field "12x" is not a decimal number
	// true false
}

// TestMessagef: a Message keeps the %w error as its cause, and its text is
// what LLVMMessage finds even when wrapped.
func TestMessagef(t *testing.T) {
	cause := fmterr.ErrTruncated
	err := fmterr.Messagef("'%s': %w", "in.o", cause)
	if err.Error() != "'in.o': "+cause.Error() || !errors.Is(err, fmterr.ErrTruncated) {
		t.Errorf("Messagef: %q, Is(ErrTruncated) %v", err, errors.Is(err, fmterr.ErrTruncated))
	}
	if got := fmterr.LLVMMessage(fmt.Errorf("wrapped: %w", err)); got != err.Error() {
		t.Errorf("LLVMMessage through a wrapper: %q", got)
	}
}
