package ar

import (
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/bitcode"
	"github.com/goffload/goffload/internal/format/magic"
)

// BitcodeSymbols returns the archive-visible symbol names of an LLVM bitcode
// file in LLVM's order; it is bitcode.Symbols unless replaced (tests may
// swap it). When it is nil, writing an archive with a bitcode member fails
// with ErrNoBitcodeReader.
//
// An error from it is treated as LLVM treats a bitcode file it cannot read:
// a warning ("'<member>': <error>") and no symbols from that member.
var BitcodeSymbols func(r io.ReaderAt, size int64) ([]string, error) = bitcode.Symbols

// ErrNoBitcodeReader is returned (wrapped) when a bitcode member needs its
// symbols and BitcodeSymbols is nil.
var ErrNoBitcodeReader = errors.New("ar: no bitcode symbol reader (BitcodeSymbols is nil)")

// ErrUnsupportedObject is returned (wrapped) for members that LLVM would read
// as an object file of a format this package does not implement (COFF
// import libraries, PE images, Mach-O, wasm, XCOFF, DXContainer), since
// their symbols cannot be computed.
var ErrUnsupportedObject = errors.New("ar: object format not supported for the symbol table")

// errNotObject is LLVM's message for a member that identify_magic calls a
// symbolic file but that LLVM 22 cannot read as one (GOFF).
var errNotObject = errors.New("The file was not recognized as a valid object file")

// objKind is what LLVM's identify_magic makes of a member, reduced to what
// the archive writer needs.
type objKind int

const (
	objNone       objKind = iota // not a symbolic file: contributes nothing
	objELF                       // ELF: parsed here
	objBitcode                   // LLVM bitcode (raw or wrapper)
	objCOFF                      // COFF object (also bigobj)
	objOther                     // another object format LLVM reads (unsupported here)
	objUnreadable                // a symbolic file type LLVM 22 has no reader for
)

// classify reduces what package magic (LLVM 22's identify_magic) makes of a
// member to the symbolic file types LLVM's archive writer reads
// (SymbolicFile::isSymbolicFile).
func classify(k magic.Kind) objKind {
	switch {
	case k.IsELF():
		return objELF
	case k == magic.Bitcode:
		return objBitcode
	case k == magic.COFFObject:
		return objCOFF
	case k == magic.GOFF:
		return objUnreadable
	case k.IsObject(), k == magic.COFFImportLibrary:
		return objOther
	}
	return objNone
}

// MemberSymbols returns the symbols LLVM 22's archive writer records for
// one member, and whether the member counts as an object file (any object
// file, even one without symbols, makes the writer emit a symbol table).
// warn receives LLVM's warning for unreadable bitcode; it may be nil.
func MemberSymbols(name string, r io.ReaderAt, size int64, warn func(error)) (syms []string, isObject bool, err error) {
	k, err := magic.IdentifyReader(r, size)
	if err != nil {
		return nil, false, &MemberError{Name: name, Err: err}
	}
	switch classify(k) {
	case objNone:
		return nil, false, nil
	case objELF:
		syms, err := ELFSymbols(r, size)
		if err != nil {
			return nil, false, &MemberError{Name: name, Err: err}
		}
		return syms, true, nil
	case objBitcode:
		if BitcodeSymbols == nil {
			return nil, false, &MemberError{Name: name, Err: ErrNoBitcodeReader}
		}
		syms, err := BitcodeSymbols(r, size)
		if err != nil {
			if warn != nil {
				warn(&MemberError{Name: name, Err: err})
			}
			return nil, false, nil
		}
		return syms, true, nil
	case objCOFF:
		syms, err := coffSymbols(r, size)
		if err != nil {
			return nil, false, &MemberError{Name: name, Err: err}
		}
		return syms, true, nil
	case objUnreadable:
		return nil, false, &MemberError{Name: name, Err: errNotObject}
	}
	return nil, false, &MemberError{Name: name, Err: fmt.Errorf("%w: %s", ErrUnsupportedObject, k)}
}

// MemberError is an error about one member being written; its text is
// LLVM's: "'<name>': <error>", where errors that know LLVM's wording for
// the same problem (bitcode) give it (fmterr.LLVMMessage).
type MemberError struct {
	Name string
	Err  error
}

func (e *MemberError) Error() string {
	return fmt.Sprintf("'%s': %s", e.Name, fmterr.LLVMMessage(e.Err))
}

func (e *MemberError) Unwrap() error { return e.Err }

// LLVMMessage returns the error's text, which is LLVM's.
func (e *MemberError) LLVMMessage() string { return e.Error() }
