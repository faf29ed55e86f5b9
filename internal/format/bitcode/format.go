// Package bitcode reads just enough of LLVM's bitcode format, in pure Go, for
// the offload tools: the symbols an archive symbol table lists for a bitcode
// member (Symbols) and the offloading images embedded in host bitcode
// (EmbeddedObjects).
//
// # File layout
//
// A bitcode file is an LLVM bitstream (see internal/bitstream) that starts
// with the bytes "BC" C0 DE, optionally inside a 20-byte wrapper header
// (little-endian words: magic 0x0B17C0DE, version, offset, size, CPU type)
// that says where the stream lies in the file. At the top level, a file
// written by LLVM 5 or later holds, per module, an IDENTIFICATION block (13)
// and a MODULE block (8), then a SYMTAB block (25) with one blob record (the
// "irsymtab") and a STRTAB block (23) with one blob record (the string table
// that module records and the irsymtab point into).
//
// # The irsymtab (version 3, as LLVM 22 writes and expects it)
//
// All integers are little-endian 32-bit words. A Str is {offset, size} into
// the string table; a Range is {offset, count} into the symtab blob itself.
//
//	0x00 Version              word (3)
//	0x04 Producer             Str  (LLVM's version string, "22.1.8")
//	0x0c Modules              Range of {Begin, End, UncBegin word}
//	0x14 Comdats              Range of {Name Str, SelectionKind word}
//	0x1c Symbols              Range of Symbol (24 bytes)
//	0x24 Uncommons            Range of {CommonSize, CommonAlign word,
//	                                    COFFWeakExternFallbackName, SectionName Str}
//	0x2c TargetTriple         Str
//	0x34 SourceFileName       Str
//	0x3c COFFLinkerOpts       Str
//	0x44 DependentLibraries   Range of Str
//
// A Symbol is {Name Str (the mangled name), IRName Str (empty for module
// asm symbols), ComdatIndex word (-1 for none), Flags word}. Each module's
// symbols are Symbols[Begin:End], in LLVM's module symbol-table order:
// functions, global variables, aliases, ifuncs, then symbols defined by
// module-level inline asm. Flag bits:
//
//	0-1 visibility  2 has uncommon  3 undefined  4 weak  5 common
//	6 indirect (alias)  7 used  8 thread-local  9 may omit  10 global
//	11 format-specific  12 unnamed_addr  13 executable
//
// The irsymtab holds local symbols too (without the global bit);
// private ones and names starting with "llvm." are format-specific.
//
// # Module records (for EmbeddedObjects and the IR fallback of Symbols)
//
// Version-2 modules (LLVM 5 and later) name global values by {offset, size}
// in the STRTAB blob. Records GLOBALVAR (7), FUNCTION (8), ALIAS (14) and
// IFUNC (18) give value IDs 0, 1, ... in record order; the module-level
// CONSTANTS block (11) continues the numbering, one ID per record except
// SETTYPE. A GLOBALVAR's initializer operand is the value ID + 1. Constant
// data arrays are STRING (8), CSTRING (9, a NUL is implied) or DATA (22)
// records, typed by the last SETTYPE (a TYPE block index; ARRAY is
// [count, element type]). In the module-level METADATA block (15), metadata
// IDs go to METADATA_STRINGS (35: a count, the size of a VBR6 bitstream of
// lengths, and a blob of lengths then characters), then to each node-like
// record in order; METADATA_VALUE (2) is [type, value ID], METADATA_NODE (3)
// lists metadata IDs + 1 (0 for null), and a METADATA_NAME (4) record is
// followed by METADATA_NAMED_NODE (10) listing metadata IDs.
//
// These facts were learnt from LLVM's public documentation and black-box runs
// of clang-22, llvm-bcanalyzer, llvm-dis, llvm-ar and llvm-offload-binary,
// not from LLVM's sources.
package bitcode

import (
	"errors"
	"fmt"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/bitcode/internal/bitstream"
	"github.com/goffload/goffload/internal/format/magic"
)

const (
	wrapperMagic = 0x0B17C0DE
	wrapperSize  = 20
	bitcodeMagic = magic.BitcodeMagic // "BC\xc0\xde"
)

// Top-level and module-level block IDs.
const (
	blockModule         = 8
	blockParamAttr      = 9
	blockParamAttrGroup = 10
	blockConstants      = 11
	blockFunction       = 12
	blockIdentification = 13
	blockValueSymtab    = 14
	blockMetadata       = 15
	blockMetadataAttach = 16
	blockType           = 17
	blockStrtab         = 23
	blockSymtab         = 25
)

// Blob record codes in the STRTAB and SYMTAB blocks.
const (
	strtabBlob = 1
	symtabBlob = 1
)

// irsymtab layout.
const (
	symtabVersion  = 3        // the version LLVM 22 writes and accepts
	symtabProducer = "22.1.8" // the producer LLVM 22.1.8 writes and trusts
	headerSize     = 0x4c
	hdrVersion     = 0x00
	hdrProducer    = 0x04
	hdrModules     = 0x0c
	hdrSymbols     = 0x1c
	moduleSize     = 12
	symbolSize     = 24
	symFlagsOff    = 20

	flagUndefined      = 1 << 3
	flagGlobal         = 1 << 10
	flagFormatSpecific = 1 << 11
)

// Sentinel errors, reachable with errors.Is from every error of this
// package that is about the input.
var (
	// ErrNotBitcode: the input is not a bitcode file: its size is not a
	// multiple of 4, its wrapper header is cut short or points outside
	// it, or the stream does not start with the magic number.
	ErrNotBitcode = fmterr.Kind("not a bitcode file", fmterr.ErrMalformed)
	// ErrMalformed: the bitstream or a record in it is malformed or cut
	// short. Errors of the bitstream layer, which are not *FormatError,
	// are ErrMalformed too.
	ErrMalformed = bitstream.ErrMalformed
	// ErrUnsupported: valid bitcode of a kind this package does not read
	// (modules without a string table, names in a value symbol table).
	ErrUnsupported = errors.New("unsupported bitcode")
)

// FormatError reports malformed bitcode, in the shape package fmterr
// describes: Offset is the byte offset in the input (of the stream, the
// structure or the field concerned), Field the structure when Msg does not
// name it, Err the sentinel above (or, for a failed read, the I/O error),
// and LLVM the text LLVM 22's bitcode reader gives for the same
// malformation, when it is known (llvm-ar and the offload bundler print it
// in a warning for an unreadable bitcode archive member): for what LLVM
// finds while locating the modules, a bad signature or wrapper header, a
// truncated file, a malformed top-level block. Errors of the bitstream
// layer underneath carry LLVM's text the same way (fmterr.LLVMMessage
// finds it).
type FormatError struct {
	Offset int64
	Field  string
	Msg    string
	LLVM   string
	Err    error
}

// LLVMMessage returns LLVM 22's message for the error, or "".
func (e *FormatError) LLVMMessage() string { return e.LLVM }

func (e *FormatError) Error() string {
	return fmt.Sprintf("bitcode: byte %d: %s", e.Offset, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

// errAt reports malformed bitcode at byte off.
func errAt(off int64, format string, args ...any) error {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...), Err: ErrMalformed}
}

// llvmErrAt is errAt with LLVM's text for the malformation.
func llvmErrAt(off int64, llvm, format string, args ...any) error {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...), LLVM: llvm, Err: ErrMalformed}
}

// unsupportedAt reports bitcode this package does not read, at byte off.
func unsupportedAt(off int64, format string, args ...any) error {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...), Err: ErrUnsupported}
}
