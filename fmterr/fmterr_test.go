package fmterr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/goffload/goffload/fmterr"
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

func ExampleLLVMMessage() {
	err := fmt.Errorf("reading lib.a: %w", &llvmErr{"offset 8: member header: size field \"x\" is not a number", "truncated or malformed archive (characters in size field in archive header are not all decimal numbers: 'x')"})
	fmt.Println(fmterr.LLVMMessage(err))
	// Output: truncated or malformed archive (characters in size field in archive header are not all decimal numbers: 'x')
}
