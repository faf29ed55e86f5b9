// Package bundle reads and writes clang-offload-bundler's offload bundles
// whatever their format: binary bundles, text bundles, fat objects and
// compressed bundles (CCOBs) holding any of them.
//
// Open reads a bundle over an io.ReaderAt, inflating a CCOB first (into
// memory, or into storage the caller supplies: Options.Scratch), and
// Bundle.Entries returns its entries in the order clang-offload-bundler 22
// -list prints them: file order for text bundles, section order for fat
// objects, LLVM's StringMap order for binary bundles. Each Entry has its
// bundle ID as stored, parsed (Kind, Triple, TargetID, Processor), its file
// offset, and opens as an io.SectionReader. Bundle.Select picks the entry a
// GPU would load, by the one target rule of package targetid
// (targetid.Target.Choose). Write writes a bundle of any format from
// Sources of one shape: ID, io.ReaderAt, size.
//
// OffloadBinaries (magic 0x10FF10AD, the new offload driver's container)
// are not offload bundles, but Open lists their images as entries too when
// no type is given, under the bundle ID their metadata makes
// ("hip-amdgcn-amd-amdhsa--gfx90a"); package inspect lists both kinds, with
// all their metadata, and every container holding them (shared libraries,
// archives), in one walk.
//
// The steps Open takes one by one, as goffload's clang-offload-bundler needs
// them to report each failure in LLVM's words (inflating, reading one
// container, visiting entries as LLVM's unbundler does), are internal: this
// package is the reader's and writer's API.
package bundle

import (
	"errors"
	"io"

	ib "github.com/goffload/goffload/internal/format/bundle"
	"github.com/goffload/goffload/targetid"
)

// An Entry is one entry of a bundle: its ID and where its bytes are.
//
//	e.ID              the bundle ID as stored ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+")
//	e.HostPlaceholder a fat object's one-NUL host section, which stands for the object
//	e.Kind()          the offload kind ("host", "hip", "hipv4", "openmp", ...)
//	e.Triple()        the target triple as stored ("amdgcn-amd-amdhsa-")
//	e.TargetID()      the target ID ("gfx90a:xnack+"); e.Processor() its processor
//	e.IsHost()        whether it is the host's entry
//	e.ParseID()       the ID parsed by the one grammar (targetid.ParseStored)
//	e.Size()          the size of its bytes, -1 when they cannot be read
//	e.Offset()        their file offset in Open's input, -1 inside a CCOB
//	e.Open()          an *io.SectionReader of its bytes, or why not
//	e.Container()     the uncompressed container it was read from
type Entry = ib.Entry

// Format is the format of a bundle's container.
type Format = ib.Format

// The formats.
const (
	Binary        = ib.Binary
	Text          = ib.Text
	Object        = ib.Object
	OffloadBinary = ib.OffloadBinary
)

// A CCOB describes one compressed bundle read: its header, the size of its
// compressed payload, and (with Options.Hash) the hash of what it inflated
// to.
type CCOB = ib.CCOB

// Scratch is storage for one inflated bundle (Options.Scratch).
type Scratch = ib.Scratch

// A Source is one entry to write: its ID and size bytes of R.
type Source = ib.Source

// WriteOptions control Write (Type: the file type as clang-offload-bundler's
// -type names it; Align: payload alignment). nil writes a binary bundle with
// payloads unaligned.
type WriteOptions = ib.WriteOptions

// TooLargeError is a bundle past a cap of Options (ErrTooLarge).
type TooLargeError = ib.TooLargeError

// InflateError is a CCOB that does not inflate; its LLVMMessage is what
// LLVM 22's tools print.
type InflateError = ib.InflateError

// Errors, reachable with errors.Is (each is also one of package fmterr's
// shared sentinels).
var (
	ErrUnknownType = ib.ErrUnknownType
	ErrNotBundle   = ib.ErrNotBundle
	ErrNoHost      = ib.ErrNoHost
	ErrBadID       = ib.ErrBadID
	ErrNotELF      = ib.ErrNotELF
	ErrTooLarge    = ib.ErrTooLarge
)

// Options control how Open reads a bundle. nil detects the format and
// inflates CCOBs in memory, up to 1 GiB each and 1 GiB in all.
type Options struct {
	// Type names the file type as clang-offload-bundler's -type does:
	// "i", "ii", "cui", "hipi" (text bundles commented "//"), "d", "s"
	// ("#"), "ll" (";"); "bc", "gch", "ast" (binary bundles); "o" (a fat
	// object). "" detects the format.
	Type string
	// Scratch, when set, returns empty storage for one inflated bundle
	// (one per CCOB); nil keeps inflated bundles in memory. Storage that
	// is an io.Closer is closed by Bundle.Close.
	Scratch func() (Scratch, error)
	// MaxInflated caps each inflated bundle (a *TooLargeError past it);
	// 0 means 1 GiB.
	MaxInflated int64
	// MaxTotal caps all that one Open inflates; 0 means 1 GiB, or
	// MaxInflated when that is larger.
	MaxTotal int64
	// Hash computes, for each CCOB inflated, the hash LLVM's -verbose
	// prints (CCOB.Sum).
	Hash bool
	// MaxText caps text bundles, which are read into memory; 0 means
	// 1 GiB.
	MaxText int64
}

// A Bundle is one bundle read by Open.
type Bundle struct {
	// Format is the format of the (first) container.
	Format Format
	// CCOBs describes the compressed bundles the bundle was inflated
	// from, nil when it was not compressed.
	CCOBs []CCOB

	b *ib.Bundle
}

// errZero is the error of a Bundle not made by Open.
var errZero = errors.New("bundle: the Bundle was not made by Open")

// Open reads the bundle in the size bytes of r, whatever its format: a
// binary or text bundle, a fat object, an OffloadBinary, or any of them
// compressed in one or more CCOBs back to back (inflated first). An object
// file without bundle sections is ErrNotBundle: its device code, if any,
// is in .hip_fatbin or .llvm.offloading, which package inspect reads.
func Open(r io.ReaderAt, size int64, o *Options) (*Bundle, error) {
	var opts *ib.Options
	if o != nil {
		opts = &ib.Options{Type: o.Type, Scratch: o.Scratch, MaxInflated: o.MaxInflated,
			MaxTotal: o.MaxTotal, Hash: o.Hash, MaxText: o.MaxText}
	}
	b, err := ib.Open(r, size, opts)
	if err != nil {
		return nil, err
	}
	out := &Bundle{Format: b.Format, b: b}
	if b.Inflated != nil {
		out.CCOBs = b.Inflated.CCOBs
	}
	return out, nil
}

// Entries returns the entries in the order clang-offload-bundler 22 -list
// prints them, with the damage met reading them (the entries before it
// come with it).
func (b *Bundle) Entries() ([]*Entry, error) {
	if b == nil || b.b == nil {
		return nil, errZero
	}
	return b.b.Entries()
}

// Select returns the entry a GPU would load, by the one target rule
// (targetid.Target.Choose): a *targetid.NoMatchError or AmbiguousError
// says why none.
func (b *Bundle) Select(t targetid.Target) (*Entry, error) {
	if b == nil || b.b == nil {
		return nil, errZero
	}
	return b.b.Select(t)
}

// Close releases what Open inflated (storage from Options.Scratch that is
// an io.Closer is closed).
func (b *Bundle) Close() error {
	if b == nil || b.b == nil {
		return nil
	}
	return b.b.Close()
}

// Write writes a bundle of the entries of src, in order: a binary bundle,
// or as opts says a text bundle or a fat object. The IDs must have an
// entry's shape (ErrBadID); the same ID twice is written twice, as LLVM
// 22's bundler does.
func Write(w io.Writer, src []Source, opts *WriteOptions) error {
	return ib.Write(w, src, opts)
}
