// Package fmterr states how goffload's format packages report malformed
// input, and holds the one way to reach the text LLVM 22 prints for an
// error.
//
// # The convention
//
// Each format package reports malformed input as a *FormatError of its own,
// as debug/elf, debug/macho and debug/pe each have theirs. They share one
// shape:
//
//	Offset int64  // where: the byte offset of the damage in the input
//	Field  string // which field ("magic", "entry 3", ...); "" when Msg names it
//	Msg    string // what was wrong, in our words, with the value seen
//	Err    error  // the package's sentinel, which Unwrap returns
//
// so that, through any wrapping a caller adds,
//
//	var fe *compress.FormatError
//	if errors.As(err, &fe) { ... fe.Offset, fe.Field ... }
//	if errors.Is(err, compress.ErrCorrupt) { ... }
//
// both work. Each package keeps its own type so that its Error text names
// the format ("compressed bundle at offset 0: ..."), and a caller matches
// the errors of the package it called. Every package's sentinels are made
// with Kind from the five shared ones (ErrMalformed, ErrTruncated,
// ErrLimit, ErrInsecurePath, ErrNoMatch), so that one errors.Is answers
// for any package: errors.Is(err, fmterr.ErrTruncated) holds for a
// truncation whichever reader met it (e2e's TestSharedSentinels checks
// it). The headers and section tables of ELF and COFF files are read by
// one internal layer whose errors wrap the shared sentinels directly. The
// types and the sentinels they wrap:
//
//	ar.FormatError          ErrNotArchive, ErrMalformed, ErrInsecurePath (and Path, the archive)
//	binfmt.FormatError      ErrTruncatedTable
//	bitcode.FormatError     ErrNotBitcode, ErrMalformed, ErrUnsupported
//	compress.FormatError    ErrNotCompressed, ErrHeaderTooSmall, ErrUnknownMethod,
//	                        ErrCorrupt, ErrSize, ErrTrailingData, ErrLimit
//	objfmt.FormatError      ErrMalformed (objfmt.LLVMError and LayoutError are ErrMalformed too)
//	offloadbin.FormatError  ErrInvalid, ErrTruncated
//	textfmt.FormatError     ErrNoEnd
//
// inspect.Error, the container layer's, has Offset, Field and Err too and
// adds the file and the path of containers to the damage; it wraps the
// format packages' errors. Package bundle, the format-independent layer
// over binfmt, textfmt, objfmt and compress, returns their errors as they
// are, and adds its own for what no format knows: bundle.TooLargeError
// (ErrTooLarge), bundle.InflateError (wrapping compress's error, with
// LLVM's text), targetid.NoMatchError and AmbiguousError (targetid.ErrNoMatch, ErrAmbiguous), and ErrUnknownType,
// ErrNotBundle, ErrNoHost, ErrNotELF.
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
// The FormatError types of ar, bitcode, compress and offloadbin keep that
// text in a field LLVM; offloadbin.BitcodeError gives LLVM's "Failed to
// create module"; errors whose text is LLVM's word for word return their
// text (objfmt.LLVMError, offloadbin.ObjectError, ar.MemberError, and
// Message, which hda and the bundler build when they word a failure). Callers never
// look for the text package by package: LLVMMessage, below, finds it
// anywhere in an error's tree, and gives the error's own text where LLVM
// has none.
package fmterr

import (
	"errors"
	"fmt"
)

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

// A Message is an error whose text is LLVM 22's for the failure, word for
// word, with its cause (Err), if any: the error the drop-in tools build
// when they word a failure themselves.
type Message struct {
	Msg string
	Err error
}

func (e *Message) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Message) Unwrap() error { return e.Err }

// LLVMMessage returns the error's text, which is LLVM's.
func (e *Message) LLVMMessage() string { return e.Msg }

// Messagef formats Msg as fmt.Errorf does; the error a %w verb names
// becomes Err.
func Messagef(format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	return &Message{Msg: err.Error(), Err: errors.Unwrap(err)}
}
