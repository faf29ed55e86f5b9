// Package ar reads and writes Unix archives (".a" files) the way LLVM 22's
// archive library does.
//
// Reading covers GNU/SysV archives (a "/" or "/SYM64/" symbol table and a
// "//" long-name table), BSD archives ("#1/<len>" names, "__.SYMDEF" symbol
// tables) and thin archives ("!<thin>\n", whose members are files named
// relative to the archive's folder), and AIX big archives ("<bigaf>\n",
// members only: their symbol tables are not read). Only headers are parsed; member data is
// streamed through io.SectionReader on demand. Malformed archives give a
// *FormatError that names the archive, the offset and the field, and that
// carries LLVM 22's own message for the same malformation (see
// FormatError.LLVMMessage), so drivers can print exactly what llvm-ar,
// clang-offload-bundler and llvm-offload-binary print.
//
// Writing produces GNU archives byte for byte as
//
//	llvm-ar qcsD --format=gnu OUT m1 m2 ...
//
// does in LLVM 22 (deterministic headers, duplicate names kept, a "//" table
// for long names or names containing '/', and a "/" symbol table of the
// members' global defined symbols). Symbols of ELF members are computed here
// (ELFSymbols); symbols of LLVM bitcode members come from the BitcodeSymbols
// hook, which the bitcode package's users set.
package ar

import (
	"fmt"
	"github.com/goffload/goffload/fmterr"
	"io"
)

// Kind is an archive's flavour, as told by its magic and first members.
type Kind int

const (
	GNU    Kind = iota // "!<arch>\n" with GNU/SysV names ("name/", "/123", "/", "//")
	BSD                // "!<arch>\n" with BSD names ("#1/<len>", "__.SYMDEF")
	Thin               // "!<thin>\n": GNU names, member data in separate files
	BigAIX             // "<bigaf>\n": AIX big archive (read only)
)

func (k Kind) String() string {
	switch k {
	case GNU:
		return "GNU"
	case BSD:
		return "BSD"
	case Thin:
		return "thin"
	case BigAIX:
		return "AIX big"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Header is one member's header, with its name resolved.
type Header struct {
	Name string // as stored, after long-name resolution (thin: a path relative to the archive's folder, or absolute)
	Date int64  // seconds since the epoch; 0 when the field is blank or malformed
	UID  int    // 0 when blank or malformed
	GID  int    // 0 when blank or malformed
	Mode uint32 // octal field; 0 when blank or malformed

	// Size is the size field of the header (for BSD "#1/" members, minus
	// the name's length). For thin members the data is read from the file
	// on disk, whose current size may differ (LLVM uses the file's size).
	Size int64

	HeaderOffset int64 // offset of the 60-byte header in the archive
	Offset       int64 // offset of the data in the archive; -1 for thin members
}

// Sentinel errors, reachable with errors.Is from every *FormatError.
var (
	// ErrNotArchive: the input is too small to be an archive or does not
	// start with an archive magic.
	ErrNotArchive = fmterr.Kind("not an archive", fmterr.ErrMalformed)
	// ErrMalformed: a member header, name, long-name table or symbol
	// table is malformed or runs past the end of the archive.
	ErrMalformed = fmterr.Kind("malformed archive", fmterr.ErrMalformed)
	// ErrInsecurePath is returned (wrapped) for a thin-archive member
	// whose name is absolute or has a ".." component, when the reader was
	// asked to refuse such names with RejectEscapingPaths.
	ErrInsecurePath = fmterr.Kind("thin archive member path escapes the archive's folder", fmterr.ErrInsecurePath)
)

// ThinMemberError reports a thin-archive member whose file cannot be read.
// LLVM 22 names the member as stored: "'<Name>': <reason>".
type ThinMemberError struct {
	Archive string // the archive as named by the caller
	Name    string // the member name as stored
	Path    string // the file opened
	Err     error
}

func (e *ThinMemberError) Unwrap() error { return e.Err }

func (e *ThinMemberError) Error() string {
	return fmt.Sprintf("%s: thin member %q: %v", e.Archive, e.Name, e.Err)
}

// FormatError reports a malformed archive, in the shape package fmterr
// describes, with the archive's name.
type FormatError struct {
	Path   string // the archive (or member) as named by the caller
	Offset int64  // where the bad field is
	Field  string // which field: "magic", "header", "terminator", "size", "name", "long name", "symbol table", ...
	Msg    string // what is wrong, in our words

	// LLVM is the message LLVM 22's archive reader gives for the same
	// malformation (e.g. "truncated or malformed archive (remaining size of
	// archive too small for next archive member header at offset 8)"), or
	// "" when this package has no exact equivalent.
	LLVM string

	Err error // ErrNotArchive, ErrMalformed or ErrInsecurePath
}

func (e *FormatError) Unwrap() error { return e.Err }

// LLVMMessage returns LLVM's message for the error (LLVM), or "".
func (e *FormatError) LLVMMessage() string { return e.LLVM }

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: offset %d: %s: %s", e.Path, e.Offset, e.Field, e.Msg)
}

// IsArchive reports whether b starts with an archive magic ("!<arch>\n" or
// "!<thin>\n").
func IsArchive(b []byte) bool {
	if len(b) < magicLen {
		return false
	}
	s := string(b[:magicLen])
	return s == magicGNU || s == magicThin
}

// readFull reads len(b) bytes at off, turning a short read into
// io.ErrUnexpectedEOF.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}
