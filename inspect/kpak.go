package inspect

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/internal/format/kpak"
	"github.com/goffload/goffload/internal/objfile"
)

// KPAK archives (rocm-kpack) hold the code objects of kpack'd HIP binaries,
// whose .hipFatBinSegment wrappers carry the magic HIPK and point at a
// .rocm_kpack_ref section instead of a bundle. Package kpak reads both;
// this file walks them.

// A KpackRef is what a HIPK wrapper points to: the name under which the
// binary's code objects are filed in KPAK archives, and where to look.
// The table of contents files translation unit N (the wrapper's Reserved
// field) under KernelName + "#N"; a search path may hold @GFXARCH@, which
// the loader replaces with each GPU's processor.
type KpackRef struct {
	KernelName  string
	SearchPaths []string
}

// walkKPAK lists the code objects of the KPAK archive r[0:size].
func (w *walker) walkKPAK(r io.ReaderAt, size int64, p place) {
	a := kpak.Read(r, size, func(off int64, field string, err error) { w.fail(p, off, field, err) })
	if a == nil {
		return
	}
	step := "KPAK"
	for _, s := range []string{a.Group, a.Family} {
		if s != "" {
			step += " " + s
		}
	}
	q := p.child(step + " (" + a.Scheme + ")")
	for _, e := range a.Entries(func(off int64, field string, err error) { w.fail(q, off, field, err) }) {
		o := &Object{ID: e.Key, TargetID: e.Arch, Kind: "kpack", Container: "kpak entry"}
		if a.Scheme == kpak.None {
			w.leaf(o, r, e.Offset, e.Size, q)
			continue
		}
		eq := q
		eq.base = -1
		eq.comp = &Compression{Format: "KPAK", Version: 1, Method: "zstd", Offset: q.at(e.Offset), Size: e.FrameSize,
			UncompressedSize: e.Size}
		w.leaf(o, nil, 0, e.Size, eq)
		// leaf's opener would cut the decoded data at original_size;
		// this one also checks that the frame ends there.
		what := o.Where() + " for " + e.Arch
		o.open = func() (io.Reader, error) { return kpak.OpenFrame(r, &e, what) }
	}
}

// kpackRef reads the .rocm_kpack_ref a HIPK wrapper points to: the section
// holding address addr among refs or, in a relocatable object (where the
// address is set at link time), the first one's start. It is a msgpack map
// {kernel_name, kpack_search_paths}.
func (w *walker) kpackRef(f *elfFile, r io.ReaderAt, size int64, addr uint64, refs []*objfile.Section, p place) *KpackRef {
	var s *objfile.Section
	var rel uint64 // addr's offset in s
	switch {
	case len(refs) == 0:
		w.failOnce(p, hipSegmentOffset(f), secKpackRef, missingKpackRef(f, size))
		return nil
	case f.Type == etRel:
		s = refs[0]
	default:
		for _, c := range refs {
			if addr >= c.Addr && addr-c.Addr < c.Size {
				s, rel = c, addr-c.Addr
				break
			}
		}
		if s == nil {
			c := refs[0]
			w.failOnce(p, hipSegmentOffset(f), secHIPSegment, fmt.Errorf("%w: a HIPK wrapper points at %#x, outside %s (%#x, %d bytes)",
				ErrMalformed, addr, secKpackRef, c.Addr, c.Size))
			return nil
		}
	}
	// walkELF keeps only sections that lie inside the file.
	off := int64(s.Offset + rel)
	buf := make([]byte, min(s.Size-rel, kpak.MaxRef))
	if _, err := r.ReadAt(buf, off); err != nil {
		w.failOnce(p, off, secKpackRef, err)
		return nil
	}
	ref, err := kpak.ParseRef(buf, s.Size-rel > kpak.MaxRef)
	if err != nil {
		var re *kpak.RefError
		if !errors.As(err, &re) {
			re = &kpak.RefError{Err: err}
		}
		w.failOnce(p, off+re.Offset, strings.TrimSpace(secKpackRef+" "+re.Field), re.Err)
		return nil
	}
	return &KpackRef{KernelName: ref.KernelName, SearchPaths: ref.SearchPaths}
}

// missingKpackRef says why a file with HIPK wrappers has no usable
// .rocm_kpack_ref.
func missingKpackRef(f *elfFile, size int64) error {
	s := objfile.Lookup(f.secs, secKpackRef)
	switch {
	case s == nil:
		return fmt.Errorf("%w: HIPK wrappers but no %s section", ErrMalformed, secKpackRef)
	case s.Type == objfile.SHTNobits || s.Size == 0:
		return fmt.Errorf("%w: HIPK wrappers but %s holds no bytes", ErrMalformed, secKpackRef)
	}
	return fmt.Errorf("%w: %s at offset %d + size %d runs past the end of the file (%d bytes)", ErrTruncated, secKpackRef, s.Offset, s.Size, size)
}

// hipSegmentOffset is the file offset of .hipFatBinSegment, where errors
// about HIPK wrappers are reported.
func hipSegmentOffset(f *elfFile) int64 {
	if s := objfile.Lookup(f.secs, secHIPSegment); s != nil {
		return int64(s.Offset)
	}
	return 0
}

// failOnce reports an error unless the same one was reported already (every
// wrapper of a file points at the same .rocm_kpack_ref).
func (w *walker) failOnce(p place, off int64, field string, err error) {
	at := p.at(off)
	for _, e := range w.l.Errors {
		if e.Offset == at && e.Field == field && e.Err.Error() == err.Error() {
			return
		}
	}
	w.fail(p, off, field, err)
}
