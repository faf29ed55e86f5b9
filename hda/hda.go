// Package hda unbundles heterogeneous device archives: static libraries whose
// members are offload bundles (ELF fat objects, binary bundles, compressed
// bundles). For each requested target it writes one archive holding every
// compatible code object, named and ordered exactly as LLVM 22's
// clang-offload-bundler -type=a -unbundle does, with LLVM's symbol table.
//
// Device payloads are not held in memory: ELF bundle sections and binary
// bundle entries are written straight from the input archive, or from
// where Options.Decompress put a compressed member (the bundler: a
// temporary file). Host objects are the exception: each is stripped of its
// bundle sections into memory, and all of them stay there until the
// outputs are written, so unbundling the host target of an archive costs
// about as much memory as its host objects' total size. Besides that,
// memory grows with the number of members (names, symbol tables), not
// with their size.
package hda

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/goffload/goffload/ar"
	"github.com/goffload/goffload/binfmt"
	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/oserr"
	"github.com/goffload/goffload/internal/spool"
	"github.com/goffload/goffload/magic"
	"github.com/goffload/goffload/objfmt"
	"github.com/goffload/goffload/targetid"
)

// Options describes one archive unbundling.
type Options struct {
	// Archive is the input, with its name as given (used in messages and to
	// find thin archives' members).
	Archive     io.ReaderAt
	ArchiveSize int64
	ArchiveName string

	// Targets are the requested bundle IDs, standardised, in command-line
	// order, and Outputs the archive written for each.
	Targets []string
	Outputs []string

	AllowMissing bool // write an empty archive for a target with no code object
	HipOpenMP    bool // hip/hipv4 and openmp kinds are compatible
	CheckInput   bool // -check-input-archive: reject members with conflicting target IDs

	// Decompress, when set, is called for members that start with "CCOB":
	// it decodes the member (size bytes read from r, with LLVM 22's reader
	// semantics) and returns the decompressed member to read at random,
	// which must stay readable until Unbundle returns. The bundler decodes
	// it as a stream into a temporary file, capped: a *spool.TooLargeError
	// is reported naming the archive and member.
	Decompress func(r io.ReaderAt, size int64) (io.ReaderAt, int64, error)
	// Uncompressed is called for members of at least 8 bytes that are not
	// compressed (the bundler prints "Uncompressed bundle." in verbose mode).
	Uncompressed func()
	// WriteOptions are passed to the archive writer (the bundler sets
	// ar.WithSym64Threshold from SYM64_THRESHOLD, as LLVM's writer does).
	WriteOptions []ar.WriteOption

	// Warn, when set, receives LLVM's warnings about output members, in
	// LLVM's words: "'<member>': <reason>" for a bitcode member whose
	// symbols cannot be read (it then contributes none, as in LLVM).
	Warn func(msg string)
	// DryRun, when set, stands for the bundler's -###: a host object is
	// not made from its member; DryRun is called instead (to print the
	// llvm-objcopy command LLVM would run) and the host code object is
	// empty, as LLVM's is.
	DryRun func()
	// ObjcopyFailed, when set, reports a member from which no host object
	// can be made (LLVM 22 runs llvm-objcopy there, which prints its
	// reason) and returns the error to stop with. Without it the error
	// names the archive and member.
	ObjcopyFailed func(err error) error

	memo map[string][]int // stored ID -> compatible target indexes
}

// Error is a failure with LLVM's message text (Msg), and its cause, if any
// (Err: an *ar.FormatError, an *objfmt.LLVMError, an I/O error, ...).
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) Unwrap() error { return e.Err }

// LLVMMessage returns the error's text, which is LLVM's.
func (e *Error) LLVMMessage() string { return e.Msg }

// errorf formats Msg as fmt.Errorf does; the error a %w verb names becomes
// Err.
func errorf(format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	return &Error{Msg: err.Error(), Err: errors.Unwrap(err)}
}

// osError is LLVM's text for a failed system call: the C library's.
func osError(err error) error { return &Error{Msg: oserr.Strerror(err), Err: err} }

// codeObject is one extracted member of an output archive.
type codeObject struct {
	name string
	data io.ReaderAt
	size int64
}

// Unbundle performs the unbundling and writes every output, atomically:
// an error before they are committed (renamed into place, together at the
// end) leaves every output as it was.
func Unbundle(o Options) error {
	var head [8]byte
	if n, _ := o.Archive.ReadAt(head[:], 0); magic.Identify(head[:n]) != magic.Archive {
		// LLVM says this of every input that is not an archive (GNU, BSD,
		// thin or AIX big).
		return &Error{Msg: "file too small to be an archive", Err: ar.ErrNotArchive}
	}
	rd, err := ar.NewReader(o.Archive, o.ArchiveSize, o.ArchiveName)
	if err != nil {
		return archiveError(err)
	}
	defer rd.Close()
	if o.CheckInput {
		// A first pass over every member, as in LLVM.
		members, err := rd.Members()
		if err != nil {
			return archiveError(err)
		}
		if err := checkMembers(o, members); err != nil {
			return err
		}
	}
	// Members are read one at a time, so that an error in a member comes
	// before a malformed header or name further on, as in LLVM.
	o.memo = map[string][]int{}
	lists := make([][]codeObject, len(o.Targets))
	for {
		m, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return archiveError(err)
		}
		if err := o.extractMember(m, lists); err != nil {
			return err
		}
	}
	// A target without code objects stops the run before any output is
	// touched (LLVM 22 first writes the archives of the targets before it,
	// replacing existing files). The outputs are written in command-line
	// order and committed together at the end, so that a failure writing
	// one leaves every output as it was.
	for i, t := range o.Targets {
		if len(lists[i]) == 0 && !o.AllowMissing {
			return errorf("no compatible code object found for the target '%s' in heterogeneous archive library: %s", t, o.ArchiveName)
		}
	}
	files := make([]*atomicfile.File, 0, len(o.Targets))
	defer func() {
		for _, f := range files {
			f.Abort()
		}
	}()
	for i := range o.Targets {
		f, err := writeArchive(o.Outputs[i], lists[i], o.Warn, o.WriteOptions)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	for _, f := range files {
		if err := f.Commit(); err != nil {
			return osError(err)
		}
	}
	return nil
}

// archiveError gives LLVM's text for a malformed archive when there is one.
func archiveError(err error) error {
	return &Error{Msg: fmterr.LLVMMessage(err), Err: err}
}

// openError gives LLVM's text for a member that cannot be opened: a thin
// member's file is named as stored in the archive ("'sub/x.o': No such
// file or directory").
func openError(err error) error {
	var te *ar.ThinMemberError
	if errors.As(err, &te) {
		return &Error{Msg: fmt.Sprintf("'%s': %s", te.Name, oserr.Strerror(te.Err)), Err: err}
	}
	return errorf("%w", err)
}

// memberData opens a member's content, decompressing a CCOB.
func (o Options) memberData(m *ar.Member) (io.ReaderAt, int64, error) {
	sr, err := m.Open()
	if err != nil {
		return nil, 0, openError(err)
	}
	size := sr.Size()
	if size < 8 {
		return sr, size, nil
	}
	var head [4]byte
	if _, err := sr.ReadAt(head[:], 0); err != nil {
		return nil, 0, errorf("%s: %w", m.Name, err)
	}
	if magic.Identify(head[:]) != magic.CompressedBundle {
		if o.Uncompressed != nil {
			o.Uncompressed()
		}
		return sr, size, nil
	}
	if o.Decompress == nil {
		return sr, size, nil
	}
	out, n, err := o.Decompress(sr, size)
	var tl *spool.TooLargeError
	if errors.As(err, &tl) {
		return nil, 0, errorf("'%s(%s)': %w", o.ArchiveName, m.Name, err)
	}
	if err != nil {
		return nil, 0, errorf("Failed to decompress code object: %w", err)
	}
	return out, n, nil
}

// memberError reports a member's bundles as unreadable: in LLVM's words
// alone where LLVM 22 reports the damage (object files), else naming the
// archive and member (binary bundles, whose damage crashes LLVM 22).
func (o Options) memberError(m *ar.Member, err error) error {
	var le *objfmt.LLVMError
	if errors.As(err, &le) {
		return &Error{Msg: le.Msg, Err: err}
	}
	return errorf("%s(%s): %w", o.ArchiveName, m.Name, err)
}

// bundle is one entry of a member, in the order LLVM visits them.
type bundle struct {
	id          string
	off, size   int64
	placeholder bool  // a one-NUL-byte host section: the stripped object
	truncated   bool  // contents outside the member: an error if extracted
	outside     error // a binary entry LLVM accepts whose payload is outside the member: an error if extracted
}

// bundlesOf dispatches a member as LLVM does: the object handler when it is
// an object file, else the binary format. Text bundles, plain objects and
// anything else have no bundles.
func bundlesOf(r io.ReaderAt, size int64) ([]bundle, bool, error) {
	if objfmt.IsObject(r, size) {
		// As LLVM: a malformed section header fails the member, a
		// bundle whose contents lie outside the file only once it is
		// extracted.
		bs, err := objfmt.ScanBundles(r, size)
		if err != nil {
			return nil, true, err
		}
		out := make([]bundle, len(bs))
		for i, b := range bs {
			out[i] = bundle{id: b.ID, off: b.Offset, size: b.Size, placeholder: b.HostPlaceholder, truncated: b.Truncated}
		}
		return out, true, nil
	}
	entries, err := binfmt.ReadTable(r, size)
	if err != nil {
		return nil, false, err
	}
	var out []bundle
	for _, e := range binfmt.VisitOrder(entries) {
		out = append(out, bundle{id: e.ID, off: e.Offset, size: e.Size, outside: e.Outside})
	}
	return out, false, nil
}

func (o Options) extractMember(m *ar.Member, lists [][]codeObject) error {
	r, size, err := o.memberData(m)
	if err != nil {
		return err
	}
	bundles, isObj, err := bundlesOf(r, size)
	if err != nil {
		return o.memberError(m, err)
	}
	stem, ext := splitExt(filename(m.Name))
	for _, b := range bundles {
		// A 3-field triple, which LLVM 22 rejects, is read in its
		// standard form (see targetid.ParseStored).
		id, ok := targetid.ParseStored(b.id)
		if !ok {
			return errorf("Invalid bundle id read from code object")
		}
		hits := o.compatible(b.id)
		if len(hits) == 0 {
			continue
		}
		if b.truncated {
			return o.memberError(m, objfmt.ErrTruncated)
		}
		if b.outside != nil {
			return o.memberError(m, b.outside)
		}
		co := codeObject{name: memberName(stem, ext, b.id, id.TargetID), data: r, size: b.size}
		if b.placeholder && isObj && o.DryRun != nil {
			o.DryRun()
			co.data, co.size = bytes.NewReader(nil), 0
		} else if b.placeholder && isObj {
			var buf bytes.Buffer
			if err := objfmt.StripBundles(&buf, r, size); err != nil {
				if o.ObjcopyFailed != nil {
					return o.ObjcopyFailed(err)
				}
				return errorf("%s(%s): %w", o.ArchiveName, m.Name, err)
			}
			co.data, co.size = bytes.NewReader(buf.Bytes()), int64(buf.Len())
		} else {
			co.data = io.NewSectionReader(r, b.off, b.size)
		}
		for _, i := range hits {
			lists[i] = append(lists[i], co)
		}
	}
	return nil
}

// memberName builds LLVM's name for an extracted code object:
// <stem>-<storedID><stem><ext>, every ':' replaced by '_', where ext is .bc
// for AMD GPU code, .cubin for NVIDIA code, else the member's own extension.
func memberName(stem, ext, storedID, targetID string) string {
	switch {
	case strings.Contains(targetID, "gfx"):
		ext = ".bc"
	case strings.Contains(targetID, "sm_"):
		ext = ".cubin"
	}
	return strings.ReplaceAll(stem+"-"+storedID+stem+ext, ":", "_")
}

// filename is LLVM's sys::path::filename for a '/'-separated member name:
// the last component, "." when the name ends in '/' (so a member named
// "/<ECSYMBOLS>/" or "dir/" becomes "."), and "/" for a name of slashes.
func filename(name string) string {
	switch {
	case name == "":
		return ""
	case strings.Trim(name, "/") == "":
		return "/"
	case strings.HasSuffix(name, "/"):
		return "."
	}
	return name[strings.LastIndexByte(name, '/')+1:]
}

// splitExt splits a file name into LLVM's sys::path::stem and extension:
// "my.lib.o" into "my.lib" and ".o", ".hidden" into "" and ".hidden"; "."
// and ".." have no extension.
func splitExt(name string) (string, string) {
	if name == "." || name == ".." {
		return name, ""
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i], name[i:]
	}
	return name, ""
}

// compatible returns the indexes of the requested targets a stored bundle
// ID can go to, in command-line order. Archives repeat the same few IDs in
// every member, so the answers are remembered.
func (o Options) compatible(stored string) []int {
	if hits, ok := o.memo[stored]; ok {
		return hits
	}
	var hits []int
	for i, t := range o.Targets {
		if targetid.Compatible(stored, t, o.HipOpenMP) {
			hits = append(hits, i)
		}
	}
	o.memo[stored] = hits
	return hits
}

// checkMembers applies the target-ID conflict rule to each member's bundle
// IDs (raw, not decompressed: compressed members always pass).
func checkMembers(o Options, members []*ar.Member) error {
	for _, m := range members {
		sr, err := m.Open()
		if err != nil {
			return openError(err)
		}
		bundles, _, err := bundlesOf(sr, sr.Size())
		if err != nil {
			return o.memberError(m, err)
		}
		set := map[string]bool{}
		for _, b := range bundles {
			set[b.id] = true
		}
		ids := make([]string, 0, len(set))
		for id := range set {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if a, b, ok := targetid.ConflictingPair(ids); ok {
			return errorf("conflicting TargetIDs [%s, %s] found in %s of %s", a, b, m.Name, o.ArchiveName)
		}
	}
	return nil
}

// writeArchive writes one output archive, to be committed (renamed into
// place) by the caller, or aborted. "-" is a file named "-" here, as in
// LLVM. Write errors carry no path, as in LLVM.
func writeArchive(name string, objs []codeObject, warn func(string), opts []ar.WriteOption) (*atomicfile.File, error) {
	f, err := atomicfile.CreateFile(name)
	if err != nil {
		return nil, osError(err)
	}
	members := make([]ar.NewMember, len(objs))
	for i, c := range objs {
		members[i] = ar.NewMember{Name: c.name, Data: c.data, Size: c.size}
	}
	if warn != nil {
		opts = append(opts, ar.WithWarnings(func(err error) { warn(err.Error()) }))
	}
	if err := ar.WriteGNU(f, members, opts...); err != nil {
		f.Abort()
		return nil, errorf("%w", err)
	}
	return f, nil
}
