package inspect

import (
	"fmt"
	"github.com/goffload/goffload/fmterr"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/goffload/goffload/internal/format/offloadbin"
)

// An Object is one code object (or host entry) found in a file: where it
// sits, what the container says it is, and what its own header says.
type Object struct {
	// Index is the object's position in the listing, from 0.
	Index int
	// File is the name of the input file.
	File string
	// Path lists the containers from the file down to the object, one
	// step each: ".hip_fatbin", "bundle 3 (CCOB v3 zstd)",
	// "lib.a(k.o)", "offload binary 0", ... The object itself is not a
	// step.
	Path []string
	// Container says how the object is stored: "bundle entry",
	// "bundle section" (an ELF __CLANG_OFFLOAD_BUNDLE__ section),
	// "offload image" (an OffloadBinary entry), "text bundle entry",
	// or "file" (the input is a code object).
	Container string

	// ID is the bundle entry ID as stored (hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+),
	// or, for an OffloadBinary image, the bundle ID its metadata makes
	// (offloadbin.Binary.BundleID: "hip-amdgcn-amd-amdhsa--gfx90a"), the
	// same spelling package bundle lists it under.
	ID string
	// Host is set for bundle entries of kind "host".
	Host bool
	// Kind is the offload kind (hip, hipv4, openmp, cuda, sycl, host).
	Kind string
	// Triple is the target triple, as stored.
	Triple string
	// TargetID is the processor and its features (gfx90a:xnack+), from the
	// bundle ID or the image's arch, else from the code object's header.
	TargetID string

	// Offset and Size locate the object's bytes in the file. Offset is -1
	// when the bytes exist only inside compressed data (see Compressed).
	Offset, Size int64
	// Compressed describes the compressed container holding the object,
	// or is nil.
	Compressed *Compression
	// ImageKind is an OffloadBinary image's kind (elf, bc, ...), else "".
	ImageKind string
	// Strings holds an OffloadBinary image's metadata, in stored order.
	Strings []offloadbin.StringEntry
	// Code holds what the object's own header says, when it was read.
	Code *CodeObject
	// Nested is, for an OffloadBinary image that is itself an
	// OffloadBinary, the number of objects listed directly inside it
	// (after it, with Outer pointing back). Such an image is their
	// container: Listing.Devices and ForTarget leave it out, but it can
	// be opened and extracted whole like any object.
	Nested int
	// Outer is the image, listed before, that the object lies in when
	// that image is itself an OffloadBinary, or nil.
	Outer *Object

	open func() (io.Reader, error)
	// bundleOffset is the file offset of the bundle holding the object,
	// or -1.
	bundleOffset int64
	// file is the listing's file when the object's bytes lie in it as
	// they are (Offset >= 0), for WriteTo's file-to-file copy.
	file *fileCopier
	// readHeader reads Code on demand.
	readHeader func() *CodeObject
	// hdrR and hdrOff are where readHeader reads: the object's bytes at
	// hdrOff of hdrR (readHeaders reads neighbours in one window).
	hdrR   io.ReaderAt
	hdrOff int64
}

// A Compression describes the compressed container an object sits in.
type Compression struct {
	// Format is "CCOB" or "OffloadBinary".
	Format  string
	Version int
	Method  string // "zstd" or "zlib"
	// Offset and Size are the compressed container's place in the file.
	Offset, Size int64
	// UncompressedSize is the size of the whole decompressed container.
	UncompressedSize int64
	// InnerOffset is where the object starts in the decompressed data.
	InnerOffset int64
}

// Ratio is the container's compression ratio (uncompressed / compressed).
func (c *Compression) Ratio() float64 {
	if c == nil || c.Size <= 0 {
		return 0
	}
	return float64(c.UncompressedSize) / float64(c.Size)
}

// A CodeObject is what a code object's own header says about it.
type CodeObject struct {
	// Format is "ELF", "LLVM bitcode", "SPIR-V", "PTX", "text" or "unknown".
	Format string
	// Machine is the ELF machine: "AMDGPU", "CUDA", "x86-64", ..., or "".
	Machine string
	// Processor is the GPU processor from the header (gfx90a, sm_80), or "".
	Processor string
	// Xnack and SRAMECC are the header's feature modes: "on", "off",
	// "any", "unsupported", or "" when the header does not say.
	Xnack, SRAMECC string
	// CodeObjectVersion is the AMDGPU code object version (from the ELF
	// ABI version), or 0.
	CodeObjectVersion int
	// Kernels is the number of kernels (symbols ending in ".kd"), or -1
	// when they were not counted.
	Kernels int
}

// TargetID returns the processor with the header's explicit feature
// modes, in target-ID syntax (gfx90a:xnack+), or "" without a processor.
func (c *CodeObject) TargetID() string {
	if c == nil || c.Processor == "" {
		return ""
	}
	s := c.Processor
	if m := modeSuffix(c.SRAMECC); m != "" {
		s += ":sramecc" + m
	}
	if m := modeSuffix(c.Xnack); m != "" {
		s += ":xnack" + m
	}
	return s
}

func modeSuffix(m string) string {
	switch m {
	case "on":
		return "+"
	case "off":
		return "-"
	}
	return ""
}

// Header returns what the object's own header says: Code, read now if the
// listing skipped it (Options.SkipHeaders). It is nil for objects inside
// compressed data.
func (o *Object) Header() *CodeObject {
	if o.Code == nil && o.readHeader != nil {
		o.setCode(o.readHeader())
	}
	return o.Code
}

func (o *Object) setCode(c *CodeObject) {
	o.Code = c
	if o.TargetID == "" {
		o.TargetID = c.TargetID()
	}
}

// Place names the container the object is in, inside its file, as list's
// CONTAINER column shows it (escaped there) and prune's reports name it:
// the steps of its path joined by " › ", or the kind of container when it
// is in the file itself ("bundle section", "text bundle entry", "file").
func (o *Object) Place() string {
	if len(o.Path) == 0 {
		return o.Container
	}
	return strings.Join(o.Path, " › ")
}

// Where returns the object's container path and ID as one line:
// "lib.so → .hip_fatbin → bundle 3 → hipv4-amdgcn-amd-amdhsa--gfx90a",
// with what would not print escaped (Escape).
func (o *Object) Where() string {
	parts := append([]string{o.File}, o.Path...)
	return Escape(strings.Join(append(parts, o.ID), " → "))
}

// Open returns a reader of the object's bytes. For an object inside
// compressed data it decompresses the container as far as the object's end,
// streaming: memory does not grow with the container's size.
func (o *Object) Open() (io.Reader, error) {
	if o.open == nil {
		return nil, fmt.Errorf("%s: object not obtained from a listing", o.Where())
	}
	return o.open()
}

// WriteTo writes the object's bytes to w. When they lie in the listing's
// file as they are and w is a file, the kernel copies them file to file
// (copy_file_range on Linux).
func (o *Object) WriteTo(w io.Writer) (int64, error) {
	if o.file != nil && o.Offset >= 0 && o.Compressed == nil {
		return o.file.copy(w, o.Offset, o.Size)
	}
	r, err := o.Open()
	if err != nil {
		return 0, err
	}
	return io.Copy(w, r)
}

// fileCopier copies ranges of one open file, one at a time: the copy goes
// through the file's offset, which io.Copy's file-to-file path needs.
type fileCopier struct {
	mu sync.Mutex
	f  *os.File
}

func (c *fileCopier) copy(w io.Writer, off, n int64) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.f.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	got, err := io.Copy(w, io.LimitReader(c.f, n))
	if err == nil && got < n {
		err = io.ErrUnexpectedEOF
	}
	return got, err
}

// An Error is a problem found while walking a file: which file, which
// container inside it, where, which field, and what was wrong. Listing goes
// on after it with the next container where it can.
type Error struct {
	File string
	Path []string
	// Offset is the file offset of the damage, or -1 when it lies inside
	// compressed data (then InnerOffset is the offset there).
	Offset, InnerOffset int64
	Field               string
	Err                 error
}

// Error gives the file, container path, offset, field and problem on one
// line, with what would not print escaped (Escape).
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	for _, p := range e.Path {
		b.WriteString(" → ")
		b.WriteString(p)
	}
	switch {
	case e.Offset >= 0:
		fmt.Fprintf(&b, ": offset %#x", e.Offset)
	case e.InnerOffset >= 0:
		fmt.Fprintf(&b, ": decompressed offset %#x", e.InnerOffset)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	// Paths, fields and messages quote names and IDs from the file.
	return Escape(b.String())
}

func (e *Error) Unwrap() error { return e.Err }

// Errors reported (wrapped) for damage. They are the shared sentinels of
// package fmterr, which the format packages' errors wrap too: errors.Is(err,
// ErrTruncated) holds for a truncation whichever reader found it.
var (
	ErrTruncated = fmterr.ErrTruncated
	ErrMalformed = fmterr.ErrMalformed
	ErrLimit     = fmterr.ErrLimit
	ErrTooDeep   = fmterr.Kind("containers nested too deep", fmterr.ErrLimit)
)
