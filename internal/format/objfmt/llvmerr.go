package objfmt

import (
	"errors"
	"fmt"

	"github.com/goffload/goffload/internal/objfile"
)

// fromObjfile gives an error of the section layer this package's shape:
// an *LLVMError when LLVM has a text for it, else a *FormatError.
func fromObjfile(err error) error {
	var e *objfile.Error
	if !errors.As(err, &e) {
		return err
	}
	if e.LLVM != "" {
		return &LLVMError{Msg: e.LLVM, Offset: e.Offset, Field: e.Field, Err: e}
	}
	return &FormatError{Offset: e.Offset, Field: e.Field, Msg: e.Msg, Err: ErrMalformed}
}

// LLVMError is malformed input that LLVM 22 rejects too; Msg is LLVM's
// message, word for word. The same defect reads differently depending on
// who meets it: the bundler's own object reader (listing, unbundling) prints
// "clang-offload-bundler: error: Msg", the llvm-objcopy it runs (bundling,
// making the host object) "llvm-objcopy: error: Msg". ReadBundles and
// ScanBundles errors are the former, AddSections and StripBundles errors the
// latter.
//
// Errors of the headers and section tables, read through the one section
// layer, also say where: Offset and Field, and Unwrap gives the layer's
// error (errors.Is(err, fmterr.ErrTruncated) and the like).
type LLVMError struct {
	Msg    string
	Offset int64  // file offset of the field, when known
	Field  string // the field, when known
	Err    error  // the section layer's error, or nil
}

func (e *LLVMError) Error() string { return e.Msg }

// Unwrap returns the section layer's error, if any.
func (e *LLVMError) Unwrap() error { return e.Err }

// LLVMMessage returns the error's text, which is LLVM's.
func (e *LLVMError) LLVMMessage() string { return e.Msg }

// Is reports every LLVMError as ErrMalformed.
func (e *LLVMError) Is(target error) bool { return target == ErrMalformed }

func llvmErr(format string, args ...any) error {
	return &LLVMError{Msg: fmt.Sprintf(format, args...)}
}

// errUnexpectedEOF is the bundler's message for a bundle section whose
// contents lie past the end of the file.
var errUnexpectedEOF = &LLVMError{Msg: "The end of the file was unexpectedly encountered"}

func rangeErr(i int, off, size uint64, fileSize int64) error {
	if off+size < off {
		return llvmErr("section [index %d] has a sh_offset (0x%x) + sh_size (0x%x) that cannot be represented", i, off, size)
	}
	return llvmErr("section [index %d] has a sh_offset (0x%x) + sh_size (0x%x) that is greater than the file size (0x%x)", i, off, size, fileSize)
}
