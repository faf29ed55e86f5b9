package ar

import (
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/bitcode"
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
// import libraries, Mach-O, wasm, XCOFF, GOFF, ...), since their symbols
// cannot be computed.
var ErrUnsupportedObject = errors.New("ar: object format not supported for the symbol table")

// objKind is what LLVM's identify_magic makes of a member, reduced to what
// the archive writer needs.
type objKind int

const (
	objNone    objKind = iota // not a symbolic file: contributes nothing
	objELF                    // ELF: parsed here
	objBitcode                // LLVM bitcode (raw or wrapper)
	objCOFF                   // COFF object (also bigobj)
	objOther                  // another object format LLVM reads (unsupported here)
)

// classify looks at a member's first bytes as LLVM 22's identify_magic does,
// for the symbolic file types its archive writer reads.
func classify(b []byte) (objKind, string) {
	n := len(b)
	if n < 4 {
		return objNone, ""
	}
	switch {
	case b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F':
		if n >= 18 {
			return objELF, "ELF"
		}
		return objNone, ""
	case b[0] == 'B' && b[1] == 'C' && b[2] == 0xc0 && b[3] == 0xde,
		b[0] == 0xde && b[1] == 0xc0 && b[2] == 0x17 && b[3] == 0x0b:
		return objBitcode, "bitcode"
	case isBigObj(b):
		return objCOFF, "COFF bigobj"
	case b[0] == 0 && b[1] == 0 && b[2] == 0xff && b[3] == 0xff:
		return objOther, "COFF import library"
	case b[0] == 0 && b[1] == 0:
		return objCOFF, "COFF (unknown machine)"
	case b[0] == 0 && b[1] == 'a' && b[2] == 's' && b[3] == 'm':
		return objOther, "wasm"
	case b[0] == 0xfe && b[1] == 0xed && b[2] == 0xfa && (b[3] == 0xce || b[3] == 0xcf),
		(b[0] == 0xce || b[0] == 0xcf) && b[1] == 0xfa && b[2] == 0xed && b[3] == 0xfe:
		return objOther, "Mach-O"
	case b[0] == 0x01 && (b[1] == 0xdf || b[1] == 0xf7):
		return objOther, "XCOFF"
	case b[0] == 0x03 && b[1] == 0xf0:
		return objOther, "GOFF"
	}
	// COFF objects of known machines: IMAGE_FILE_MACHINE_* in little-endian.
	switch uint16(b[0]) | uint16(b[1])<<8 {
	case 0x8664, 0x14c, 0xaa64, 0x1c4, 0x1c2, 0x1c0, 0xa641, 0xa64e, 0x200, 0x166, 0x169, 0x266, 0x366, 0x466, 0x1f0, 0x1f1, 0x1a2, 0x1a3, 0x1a6, 0x1a8, 0x5032, 0x5064, 0x5128, 0xebc, 0x9041, 0xc0ee, 0x284, 0x3a64:
		return objCOFF, "COFF"
	}
	return objNone, ""
}

// MemberSymbols returns the symbols LLVM 22's archive writer records for
// one member, and whether the member counts as an object file (any object
// file, even one without symbols, makes the writer emit a symbol table).
// warn receives LLVM's warning for unreadable bitcode; it may be nil.
func MemberSymbols(name string, r io.ReaderAt, size int64, warn func(error)) (syms []string, isObject bool, err error) {
	var head [28]byte
	n, _ := r.ReadAt(head[:min(int64(len(head)), size)], 0)
	kind, what := classify(head[:n])
	switch kind {
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
	}
	return nil, false, &MemberError{Name: name, Err: fmt.Errorf("%w: %s", ErrUnsupportedObject, what)}
}

// MemberError is an error about one member being written; its text is
// LLVM's: "'<name>': <error>".
type MemberError struct {
	Name string
	Err  error
}

func (e *MemberError) Error() string {
	// Errors that know LLVM's wording for the same problem (bitcode) give it.
	var lm interface{ LLVMMessage() string }
	if errors.As(e.Err, &lm) && lm.LLVMMessage() != "" {
		return fmt.Sprintf("'%s': %s", e.Name, lm.LLVMMessage())
	}
	return fmt.Sprintf("'%s': %v", e.Name, e.Err)
}
func (e *MemberError) Unwrap() error { return e.Err }

// errCOFFEOF is LLVM's message for a COFF file cut short.
var errCOFFEOF = errors.New("The end of the file was unexpectedly encountered")
