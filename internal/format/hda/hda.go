// Package hda unbundles heterogeneous device archives: static libraries whose
// members are offload bundles (ELF fat objects, binary bundles, compressed
// bundles). For each requested target, Unbundle returns the members of one
// archive holding every compatible code object, named and ordered exactly as
// LLVM 22's clang-offload-bundler -type=a -unbundle does, and
// Output.WriteArchive writes it to an io.Writer with LLVM's symbol table.
// Where the archives go (files, temporary names, renames) is the caller's
// business: the bundler's command line (internal/tool/bundler) writes them all
// before it puts any in place.
//
// Device payloads are not held in memory: the members returned read ELF
// bundle sections and binary bundle entries straight from the input
// archive, or from where Options.Decompress put a compressed member (the
// bundler: a temporary file), which must stay readable until the outputs
// are written. Host objects are the exception: each is stripped of its
// bundle sections into memory, so unbundling the host target of an archive
// costs about as much memory as its host objects' total size. Besides that,
// memory grows with the number of members (names, symbol tables), not with
// their size.
package hda

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/format/bundle"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/format/objfmt"
	"github.com/goffload/goffload/internal/llvm/oserr"
	"github.com/goffload/goffload/internal/spool"
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
	// order: Unbundle returns an Output for each.
	Targets []string

	AllowMissing bool // an empty Output for a target with no code object, instead of an error
	HipOpenMP    bool // hip/hipv4 and openmp kinds are compatible
	CheckInput   bool // -check-input-archive: reject members with conflicting target IDs

	// Decompress is called for members that start with "CCOB" (nil: each
	// is inflated into a temporary file, MaxInflated bytes at most):
	// it decodes the member (size bytes read from r, with LLVM 22's reader
	// semantics) and returns the decompressed member to read at random,
	// which must stay readable until the outputs are written. The bundler
	// decodes it as a stream into a temporary file, capped: a
	// *spool.TooLargeError is reported naming the archive and member.
	Decompress func(r io.ReaderAt, size int64) (io.ReaderAt, int64, error)
	// Uncompressed is called for members of at least 8 bytes that are not
	// compressed (the bundler prints "Uncompressed bundle." in verbose mode).
	Uncompressed func()
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

// An Output is one output archive: the code objects a target gets, in
// LLVM's order, each named as LLVM names it.
type Output struct {
	Target  string
	Members []ar.NewMember
}

// A Result is what Unbundle found: an Output per target. The members read
// the input archive, the files of a thin archive's members (which Close
// closes) and what Options.Decompress returned: write them before Close.
type Result struct {
	Outputs []Output // in the order of Options.Targets
	rd      *ar.Reader
}

// Close closes the files a thin archive's members were read from.
func (r *Result) Close() error {
	if r == nil || r.rd == nil {
		return nil
	}
	return r.rd.Close()
}

// Unbundle reads the archive and returns an Output for each target, in
// the order of o.Targets. A target without code objects is an error
// (naming the archive, in LLVM's words) unless o.AllowMissing; the error
// comes after every member was read, as every other error before it.
func Unbundle(o Options) (*Result, error) {
	if o.Archive == nil {
		return nil, errors.New("hda: Options.Archive is nil")
	}
	var head [8]byte
	if n, _ := o.Archive.ReadAt(head[:], 0); magic.Identify(head[:n]) != magic.Archive {
		// LLVM says this of every input that is not an archive (GNU, BSD,
		// thin or AIX big).
		return nil, &fmterr.Message{Msg: "file too small to be an archive", Err: ar.ErrNotArchive}
	}
	rd, err := ar.NewReader(o.Archive, o.ArchiveSize, o.ArchiveName)
	if err != nil {
		return nil, archiveError(err)
	}
	res, err := o.read(rd)
	if err != nil {
		rd.Close()
		return nil, err
	}
	return res, nil
}

// read reads every member (after a first pass checking them, with
// CheckInput) and checks that every target got code objects.
func (o Options) read(rd *ar.Reader) (*Result, error) {
	if o.CheckInput {
		// A first pass over every member, as in LLVM.
		members, err := rd.Members()
		if err != nil {
			return nil, archiveError(err)
		}
		if err := checkMembers(o, members); err != nil {
			return nil, err
		}
	}
	outs, err := o.extractAll(rd)
	if err != nil {
		return nil, err
	}
	for _, out := range outs {
		if len(out.Members) == 0 && !o.AllowMissing {
			return nil, fmterr.Messagef("no compatible code object found for the target '%s' in heterogeneous archive library: %s", out.Target, o.ArchiveName)
		}
	}
	return &Result{Outputs: outs, rd: rd}, nil
}

// extractAll reads the members one at a time, so that an error in a
// member comes before a malformed header or name further on, as in LLVM.
func (o Options) extractAll(rd *ar.Reader) ([]Output, error) {
	o.memo = map[string][]int{}
	outs := make([]Output, len(o.Targets))
	for i, t := range o.Targets {
		outs[i].Target = t
	}
	for {
		m, err := rd.Next()
		if err == io.EOF {
			return outs, nil
		}
		if err != nil {
			return nil, archiveError(err)
		}
		if err := o.extractMember(m, outs); err != nil {
			return nil, err
		}
	}
}

// WriteArchive writes the output as LLVM 22 writes it: a GNU archive with
// LLVM's symbol table (opts: ar.WithSym64Threshold, as LLVM's writer reads
// SYM64_THRESHOLD; ar.WithWarnings for the members whose symbols cannot be
// read, which then contribute none, as in LLVM). An empty output is
// "!<arch>\n".
func (out Output) WriteArchive(w io.Writer, opts ...ar.WriteOption) error {
	if err := ar.WriteGNU(w, out.Members, opts...); err != nil {
		return fmterr.Messagef("%w", err)
	}
	return nil
}

// archiveError gives LLVM's text for a malformed archive when there is one.
func archiveError(err error) error {
	return &fmterr.Message{Msg: fmterr.LLVMMessage(err), Err: err}
}

// openError gives LLVM's text for a member that cannot be opened: a thin
// member's file is named as stored in the archive ("'sub/x.o': No such
// file or directory").
func openError(err error) error {
	var te *ar.ThinMemberError
	if errors.As(err, &te) {
		return &fmterr.Message{Msg: fmt.Sprintf("'%s': %s", te.Name, oserr.Strerror(te.Err)), Err: err}
	}
	return fmterr.Messagef("%w", err)
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
		return nil, 0, fmterr.Messagef("%s: %w", m.Name, err)
	}
	if magic.Identify(head[:]) != magic.CompressedBundle {
		if o.Uncompressed != nil {
			o.Uncompressed()
		}
		return sr, size, nil
	}
	decompress := o.Decompress
	if decompress == nil {
		decompress = inflate
	}
	out, n, err := decompress(sr, size)
	var tl *spool.TooLargeError
	var btl *bundle.TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, 0, fmterr.Messagef("'%s(%s)': %w", o.ArchiveName, m.Name, tl)
	case errors.As(err, &btl):
		return nil, 0, fmterr.Messagef("'%s(%s)': %w", o.ArchiveName, m.Name, btl)
	}
	if err != nil {
		var ie *bundle.InflateError
		if errors.As(err, &ie) {
			err = ie.Err // LLVM's reason, or why the temporary file failed
		}
		return nil, 0, fmterr.Messagef("Failed to decompress code object: %s", fmterr.LLVMMessage(err))
	}
	return out, n, nil
}

// memberError reports a member's bundles as unreadable: in LLVM's words
// alone where LLVM 22 reports the damage (object files), else naming the
// archive and member (binary bundles, whose damage crashes LLVM 22).
func (o Options) memberError(m *ar.Member, err error) error {
	var le *objfmt.LLVMError
	if errors.As(err, &le) {
		return &fmterr.Message{Msg: le.Msg, Err: err}
	}
	return fmterr.Messagef("%s(%s): %w", o.ArchiveName, m.Name, err)
}

// entriesOf reads a member as LLVM dispatches it, as -type=o (package
// bundle): the object handler when it is an object file, else the binary
// format. Text bundles, plain objects and anything else have no entries. A
// malformed section header fails the member, a bundle whose contents lie
// outside the member only once it is extracted.
func entriesOf(r io.ReaderAt, size int64) ([]*bundle.Entry, error) {
	b, err := bundle.Read(r, size, &bundle.Options{Type: "o"})
	if err != nil {
		return nil, err
	}
	return b.Entries()
}

func (o Options) extractMember(m *ar.Member, outs []Output) error {
	r, size, err := o.memberData(m)
	if err != nil {
		return err
	}
	entries, err := entriesOf(r, size)
	if err != nil {
		return o.memberError(m, err)
	}
	stem, ext := splitExt(filename(m.Name))
	for _, e := range entries {
		// A 3-field triple, which LLVM 22 rejects, is read in its
		// standard form (see targetid.ParseStored).
		id, ok := e.ParseID()
		if !ok {
			return fmterr.Messagef("Invalid bundle id read from code object")
		}
		hits := o.compatible(e.ID)
		if len(hits) == 0 {
			continue
		}
		data, err := o.codeObject(m, r, size, e)
		if err != nil {
			return err
		}
		data.Name = memberName(stem, ext, e.ID, id.TargetID)
		for _, i := range hits {
			outs[i].Members = append(outs[i].Members, data)
		}
	}
	return nil
}

// codeObject returns an entry's code object: its bytes, or for a fat
// object's host placeholder the object without its bundle sections (made
// in memory; with DryRun, empty).
func (o Options) codeObject(m *ar.Member, r io.ReaderAt, size int64, e *bundle.Entry) (ar.NewMember, error) {
	sr, err := e.Open()
	if err != nil {
		return ar.NewMember{}, o.memberError(m, err)
	}
	switch {
	case !e.HostPlaceholder:
		return ar.NewMember{Data: sr, Size: sr.Size()}, nil
	case o.DryRun != nil:
		o.DryRun()
		return ar.NewMember{Data: bytes.NewReader(nil)}, nil
	}
	var buf bytes.Buffer
	if err := objfmt.StripBundles(&buf, r, size); err != nil {
		if o.ObjcopyFailed != nil {
			return ar.NewMember{}, o.ObjcopyFailed(err)
		}
		return ar.NewMember{}, fmterr.Messagef("%s(%s): %w", o.ArchiveName, m.Name, err)
	}
	return ar.NewMember{Data: bytes.NewReader(buf.Bytes()), Size: int64(buf.Len())}, nil
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
		entries, err := entriesOf(sr, sr.Size())
		if err != nil {
			return o.memberError(m, err)
		}
		set := map[string]bool{}
		for _, e := range entries {
			set[e.ID] = true
		}
		ids := make([]string, 0, len(set))
		for id := range set {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if a, b, ok := targetid.ConflictingPair(ids); ok {
			return fmterr.Messagef("conflicting TargetIDs [%s, %s] found in %s of %s", a, b, m.Name, o.ArchiveName)
		}
	}
	return nil
}

// MaxInflated bounds a compressed member the default Decompress inflates
// (into an unnamed temporary file).
const MaxInflated = 1 << 30

// inflate is the default Decompress: the member inflated as any compressed
// bundle is (bundle.Inflate), its bundles one after another into an
// unnamed temporary file of MaxInflated bytes at most, which stays open
// until the process ends.
func inflate(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	f, err := spool.New()
	if err != nil {
		return nil, 0, err
	}
	_, err = bundle.Inflate(r, size, &bundle.Options{
		MaxInflated: math.MaxInt64, // the cap is the member's
		MaxTotal:    MaxInflated,
		Scratch:     func() (bundle.Scratch, error) { return f.Tail(), nil },
	})
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f.File, f.Size, nil
}
