package objfmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/objfile"
)

// Sentinel errors, reachable with errors.Is.
var (
	// ErrMalformed: the input is a malformed object file. Every
	// *FormatError, *LLVMError and *LayoutError is ErrMalformed.
	ErrMalformed = fmterr.Kind("malformed object file", fmterr.ErrMalformed)
	// ErrUnsupported: AddSections or StripBundles cannot lay out this
	// input as llvm-objcopy 22 would (a section inside a segment that
	// would change size, MIPS64 relocations to renumber).
	ErrUnsupported = errors.New("objfmt: unsupported input")
)

// FormatError reports malformed input in the shape package fmterr
// describes: at which file offset, what is wrong (Msg names the field),
// wrapping ErrMalformed. LLVM 22's tools word the same defects differently
// or not at all; where this package knows their words it returns an
// *LLVMError instead.
type FormatError struct {
	Offset int64  // file offset of the offending field or data
	Field  string // the field, when Msg does not name it
	Msg    string // what is wrong
	Err    error  // ErrMalformed
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("objfmt: malformed ELF at offset %#x: %s", e.Offset, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(off int64, format string, args ...any) error {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...), Err: ErrMalformed}
}

// A Bundle is one bundle section of a fat object.
type Bundle struct {
	ID string // the section name without BundlePrefix
	// Offset and Size locate the section contents in the file.
	Offset, Size int64
	// HostPlaceholder is set when the contents are exactly one 0x00 byte: the
	// bundler then stands the whole object minus its bundle sections (see
	// StripBundles) in for the payload.
	HostPlaceholder bool
	// Truncated is set when the contents lie outside the file (Offset and
	// Size are then 0); reading them is an error (ErrTruncated).
	Truncated bool
}

// ReadBundles lists the bundle sections of an object file in section-header
// order. ELF, COFF (objects and PE images) and WebAssembly custom sections
// are read; other object formats have none. A bundle whose
// contents lie outside the file is an error; see ScanBundles for reading
// such files as LLVM's bundler does.
func ReadBundles(r io.ReaderAt, size int64) ([]Bundle, error) {
	bs, err := ScanBundles(r, size)
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		if b.Truncated {
			return nil, errUnexpectedEOF
		}
	}
	return bs, nil
}

// ScanBundles is ReadBundles as clang-offload-bundler reads an object:
// section by section, so that on a malformed section it returns the bundles
// before it together with the error (an *LLVMError with LLVM's words for
// it), and a bundle whose contents lie outside the file is only marked
// Truncated (an error once someone reads it: see ErrTruncated).
func ScanBundles(r io.ReaderAt, size int64) ([]Bundle, error) {
	if k, err := magic.IdentifyReader(r, size); err == nil && !k.IsELF() && IsObject(r, size) {
		switch k {
		case magic.COFFObject, magic.PEExecutable:
			return readCOFFBundles(r, size)
		case magic.Wasm:
			return readWasmBundles(r, size)
		}
		// Mach-O, XCOFF and DXContainer section names are too short
		// (16, 8 and 4 bytes) to hold BundlePrefix: no bundles.
		return nil, nil
	}
	f, err := parseELF(r, size)
	if err != nil {
		return nil, err
	}
	var out []Bundle
	for i := range f.secs {
		if i == f.badName {
			return out, f.nameErr(i)
		}
		s := &f.secs[i]
		id, ok := bundleID(s.name)
		if !ok || i == 0 {
			continue
		}
		b := Bundle{ID: id, Offset: int64(s.off), Size: int64(s.size)}
		if s.typ == shtNobits {
			b.Offset, b.Size = 0, 0
		} else if s.off > uint64(size) || s.size > uint64(size)-s.off {
			b.Offset, b.Size, b.Truncated = 0, 0, true
		}
		if b.Size == 1 {
			var c [1]byte
			if _, err := r.ReadAt(c[:], b.Offset); err != nil {
				return nil, fmt.Errorf("objfmt: reading section %d (%s): %w", i, s.name, err)
			}
			b.HostPlaceholder = c[0] == 0
		}
		out = append(out, b)
	}
	return out, nil
}

// ErrTruncated is LLVM's error for reading a bundle marked Truncated.
var ErrTruncated error = errUnexpectedEOF

// bundleID returns the bundle ID of a section name. As in LLVM 22 (which
// asks identify_magic, and that wants at least one byte after the prefix), a
// section named exactly BundlePrefix, with an empty ID, is no bundle: it is
// not listed or extracted, but it is removed from the host object like every
// name the prefix starts (see StripBundles).
func bundleID(name string) (string, bool) {
	id, ok := cutPrefix(name, BundlePrefix)
	return id, ok && id != ""
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

// elfFile is the parsed header and section table of an ELF file.
type elfFile struct {
	r    io.ReaderAt
	size int64
	is64 bool
	bo   binary.ByteOrder

	ident     [16]byte
	typ       uint16
	machine   uint16
	version   uint32
	entry     uint64
	phoff     uint64
	shoff     uint64
	flags     uint32
	phentsize int
	phnum     int
	shstrndx  int

	elf      *objfile.ELF
	objSecs  []objfile.Section // the section table as read
	secs     []elfSection
	badName  int    // first section whose name is out of range, or -1
	noShdrs  bool   // no section header table: the output gets none either
	outPhoff uint64 // offset of the program header table in the output (set by layout)
}

type elfSection struct {
	nameOff uint32
	name    string
	typ     uint32
	flags   uint64
	addr    uint64
	off     uint64
	size    uint64
	link    uint32
	info    uint32
	align   uint64
	entsize uint64
}

// The sizes of the file's class, as package objfile reads it.
func (f *elfFile) ehdrSize() int    { return f.elf.HeaderSize() }
func (f *elfFile) shdrSize() int    { return f.elf.ShdrSize() }
func (f *elfFile) wordSize() uint64 { return uint64(f.elf.WordSize()) }

// readAt reads n bytes at off after checking them against the file size.
func (f *elfFile) readAt(off, n uint64, what string) ([]byte, error) {
	if off > uint64(f.size) || n > uint64(f.size)-off {
		return nil, formatErr(int64(min(off, uint64(f.size))), "%s (offset %#x, size %#x) goes past the end of the file (%#x bytes)", what, off, n, f.size)
	}
	b := make([]byte, n)
	if _, err := f.r.ReadAt(b, int64(off)); err != nil {
		return nil, fmt.Errorf("objfmt: reading %s at offset %#x: %w", what, off, err)
	}
	return b, nil
}

// parseELF reads the ELF header, the section header table and the section
// names through package objfile, with LLVM 22's checks and texts.
func parseELF(r io.ReaderAt, size int64) (*elfFile, error) {
	o, err := objfile.NewELF(r, size)
	if err != nil {
		return nil, fromObjfile(err)
	}
	f := &elfFile{r: r, size: size, is64: o.Is64, bo: o.ByteOrder, ident: o.Ident, badName: -1,
		typ: o.Type, machine: o.Machine, version: o.Version, entry: o.Entry, phoff: o.Phoff, shoff: o.Shoff,
		flags: o.Flags, phentsize: o.Phentsize, phnum: o.Phnum, shstrndx: o.Shstrndx, elf: o}
	if f.shoff == 0 {
		return f, nil
	}
	secs, err := o.Sections()
	if err != nil {
		return nil, fromObjfile(err)
	}
	if len(secs) == 0 {
		return f, nil
	}
	f.shstrndx = o.StringTableIndex(secs)
	if f.badName, err = o.NameSections(secs); err != nil {
		return nil, fromObjfile(err)
	}
	f.secs = make([]elfSection, len(secs))
	for i, x := range secs {
		f.secs[i] = elfSection{nameOff: x.NameOff, name: x.Name, typ: x.Type, flags: x.Flags, addr: x.Addr,
			off: x.Offset, size: x.Size, link: x.Link, info: x.Info, align: x.Align, entsize: x.EntSize}
	}
	f.objSecs = secs
	return f, nil
}

// nameErr is LLVM's message for the out-of-range name of section i.
func (f *elfFile) nameErr(i int) error { return fromObjfile(f.elf.NameError(f.objSecs, i)) }

func (f *elfFile) shdrOff(i int) int64 { return int64(f.shoff) + int64(i)*int64(f.shdrSize()) }

// checkSections verifies that every section with file contents lies within
// the file.
func (f *elfFile) checkSections() error {
	for i := 1; i < len(f.secs); i++ {
		s := &f.secs[i]
		if s.typ == shtNobits || s.typ == shtNull {
			continue
		}
		if s.off > uint64(f.size) || s.size > uint64(f.size)-s.off {
			return formatErr(f.shdrOff(i), "section %d has sh_offset %#x + sh_size %#x past the end of the file (%#x bytes)", i, s.off, s.size, f.size)
		}
	}
	return nil
}
