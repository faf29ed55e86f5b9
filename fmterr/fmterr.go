// Package fmterr states how goffload's format packages report malformed
// input, and holds the one way to reach the text LLVM 22 prints for an
// error.
//
// # The convention
//
// Each format package (ar, binfmt, bitcode, compress, objfmt, offloadbin,
// textfmt) reports malformed input as a *FormatError of its own, as
// debug/elf, debug/macho and debug/pe each have theirs. They share one
// shape:
//
//	Offset int64  // where: the byte offset of the damage in the input
//	Field  string // which field ("magic", "version", "entry 3", ...)
//	Msg    string // what was wrong, in our words, with the value seen
//	Err    error  // the package's sentinel (ErrTruncated, ErrBadMagic, ...)
//
// and Unwrap returns Err, so that
//
//	var fe *compress.FormatError
//	if errors.As(err, &fe) { ... fe.Offset, fe.Field ... }
//	if errors.Is(err, compress.ErrCorrupt) { ... }
//
// work through any wrapping a caller adds. A package adds fields where its
// format needs them (ar's Path names the archive or member). Each package
// keeps its own type so that its Error text names the format ("compressed
// bundle at offset 0: ..."), and a caller matches the errors of the package
// it called.
//
// # LLVM's words
//
// The drop-in tools (clang-offload-bundler, llvm-offload-binary) must print
// what LLVM 22 prints for the same failure, which is rarely what Error
// says. An error that knows LLVM's text has a method
//
//	LLVMMessage() string
//
// (the LLVMMessager interface), returning "" when LLVM has no text for it.
// The format packages' FormatError types have it where LLVM reads the same
// format, as do the few errors whose text is LLVM's word for word
// (objfmt.LLVMError, offloadbin.ObjectError). Callers never look for the
// text package by package: LLVMMessage, below, finds it anywhere in an
// error's tree, and gives the error's own text where LLVM has none.
package fmterr

// An LLVMMessager is an error that knows the text LLVM 22 prints for the
// same failure; LLVMMessage returns "" when LLVM has none.
type LLVMMessager interface {
	LLVMMessage() string
}

// LLVMMessage returns the text LLVM 22 prints for err: the first non-empty
// LLVMMessage of the errors in err's tree, visited as errors.As visits them
// (err first, then depth-first through Unwrap), else err.Error(), which is
// what the tools print for an error LLVM has no words for (or whose text is
// LLVM's already). It returns "" for a nil err.
func LLVMMessage(err error) string {
	if err == nil {
		return ""
	}
	if s := find(err); s != "" {
		return s
	}
	return err.Error()
}

// find returns the first non-empty LLVMMessage in err's tree, or "".
func find(err error) string {
	for err != nil {
		if m, ok := err.(LLVMMessager); ok {
			if s := m.LLVMMessage(); s != "" {
				return s
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if s := find(e); s != "" {
					return s
				}
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}
