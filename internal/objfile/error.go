package objfile

import (
	"fmt"

	"github.com/goffload/goffload/fmterr"
)

// An Error reports malformed or truncated headers, in package fmterr's
// shape: where (Offset, Field), what (Msg, in our words), LLVM's text for
// the same defect (LLVMMessage), and a shared sentinel (fmterr.ErrMalformed
// or fmterr.ErrTruncated) that Unwrap returns.
type Error struct {
	Format string // "ELF" or "COFF"
	Offset int64  // file offset of the field or data
	Field  string // the field, such as "e_shentsize" or "section 3 sh_name"
	Msg    string // what is wrong, with the value seen
	LLVM   string // LLVM 22's text for the defect, "" when it has none
	Err    error  // fmterr.ErrMalformed or fmterr.ErrTruncated
}

func (e *Error) Error() string {
	return fmt.Sprintf("objfile: %s at offset %#x: %s: %s", e.Format, e.Offset, e.Field, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }

// LLVMMessage returns LLVM 22's text for the defect.
func (e *Error) LLVMMessage() string { return e.LLVM }

func malformed(format string, off int64, field, llvm, msg string, args ...any) *Error {
	return &Error{Format: format, Offset: off, Field: field, Msg: fmt.Sprintf(msg, args...), LLVM: llvm, Err: fmterr.ErrMalformed}
}

func truncated(format string, off int64, field, llvm, msg string, args ...any) *Error {
	e := malformed(format, off, field, llvm, msg, args...)
	e.Err = fmterr.ErrTruncated
	return e
}

// llvmEOF is LLVM's text for a read past the end of a buffer.
const llvmEOF = "The end of the file was unexpectedly encountered"
