package tree

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/format/kpak"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/spool"
	"github.com/goffload/goffload/prune"
	"github.com/goffload/goffload/targetid"
)

// maxMember caps a wheel member inflated to be rewritten (the largest
// real ones, libtorch_hip.so, are 1.4 GB): a zip bomb fills no disk.
const maxMember = 4 << 30

// PruneWheel prunes the members of a wheel (any zip) into the new wheel
// out: members with device code rewritten by package prune and stored with
// their compression method, family files of GPUs not kept left out, every
// other member copied as it is (its compressed bytes untouched), and each
// *.dist-info/RECORD line of a changed or removed member updated (sha256,
// size) or removed. out is written through a temporary file and renamed; a
// Keep that keeps no code object of the whole wheel is an error wrapping
// prune.ErrEmpty, unless AllowEmpty. With DryRun nothing is written.
func PruneWheel(in, out string, o TreeOptions) (*TreeReport, error) {
	zr, err := zip.OpenReader(in)
	if err != nil {
		return nil, fmt.Errorf("tree: %s: %w", in, err)
	}
	defer zr.Close()
	allowEmpty := o.AllowEmpty
	o.AllowEmpty = true
	var zw *zip.Writer
	var af *atomicfile.File
	if !o.DryRun {
		if af, err = atomicfile.CreateFile(out); err != nil {
			return nil, err
		}
		defer af.Abort()
		zw = zip.NewWriter(af)
	}
	rep := &TreeReport{}
	changed := map[string]string{} // member -> "sha256=...,size", "" when removed
	used := make([]int, len(o.Keep)+len(o.Drop))
	var records []*zip.File
	for _, f := range zr.File {
		if path.Base(f.Name) == "RECORD" && strings.HasSuffix(path.Dir(f.Name), ".dist-info") {
			records = append(records, f)
			continue
		}
		fr, unmatched, err := pruneMember(f, zw, o, changed)
		if err != nil {
			return rep, fmt.Errorf("%s!%s: %w", in, f.Name, err)
		}
		rep.Files = append(rep.Files, fr)
		for k, t := range append(append([]targetid.Target(nil), o.Keep...), o.Drop...) {
			if !containsTarget(unmatched, t) {
				used[k]++
			}
		}
	}
	for _, f := range records {
		if err := writeRecord(f, zw, changed); err != nil {
			return rep, fmt.Errorf("%s!%s: %w", in, f.Name, err)
		}
		rep.Files = append(rep.Files, FileReport{Path: f.Name, Action: Unchanged, SizeBefore: int64(f.UncompressedSize64), SizeAf: int64(f.UncompressedSize64), Note: "RECORD updated"})
	}
	for k, t := range append(append([]targetid.Target(nil), o.Keep...), o.Drop...) {
		if used[k] == 0 {
			rep.Unmatched = append(rep.Unmatched, t)
		}
	}
	if err := rep.keptNothing(in, o.Keep, allowEmpty); err != nil {
		return rep, err
	}
	if o.DryRun {
		return rep, nil
	}
	if err := zw.Close(); err != nil {
		return rep, err
	}
	return rep, af.Commit()
}

// pruneMember writes one member into zw (nil: a dry run), rewritten when
// it holds device code, and notes in changed what RECORD must say of it.
func pruneMember(f *zip.File, zw *zip.Writer, o TreeOptions, changed map[string]string) (FileReport, []targetid.Target, error) {
	all := append(append([]targetid.Target(nil), o.Keep...), o.Drop...)
	fr := FileReport{Path: f.Name, Action: Copied, SizeBefore: int64(f.UncompressedSize64), SizeAf: int64(f.UncompressedSize64)}
	if kind, ok := familyLeftOut(f.Name, o.Options); ok {
		fr.Action, fr.SizeAf, fr.Note = Removed, 0, kind
		changed[f.Name] = ""
		return fr, all, nil
	}
	if f.FileInfo().IsDir() || !mayHoldCode(f) {
		return fr, all, copyRaw(f, zw)
	}
	// The member's bytes, at random: in place when stored, else inflated
	// into an unnamed temporary file (capped).
	rc, err := f.Open()
	if err != nil {
		return fr, nil, err
	}
	data, err := spool.Read(rc, maxMember, "wheel member")
	rc.Close()
	if err != nil {
		return fr, nil, err
	}
	defer data.Close()
	tmp, err := spool.New()
	if err != nil {
		return fr, nil, err
	}
	defer tmp.Close()
	r, err := prune.Rewrite(tmp.File, data, data.Size, f.Name, o.Options)
	if err := fr.outcome(r, err); err != nil {
		return fr, nil, err
	}
	switch fr.Action {
	case Copied, Refused:
		return fr, all, copyRaw(f, zw)
	case Removed:
		changed[f.Name] = ""
		return fr, r.Unmatched, nil
	}
	if !r.Changed() {
		return fr, r.Unmatched, copyRaw(f, zw)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(tmp.File, 0, r.SizeAft)); err != nil {
		return fr, nil, err
	}
	changed[f.Name] = recordEntry(h.Sum(nil), r.SizeAft)
	if zw == nil {
		return fr, r.Unmatched, nil
	}
	hdr := f.FileHeader // name, method, times, attributes as they were
	hdr.CompressedSize64, hdr.UncompressedSize64, hdr.CRC32 = 0, 0, 0
	w, err := zw.CreateHeader(&hdr)
	if err != nil {
		return fr, nil, err
	}
	_, err = io.Copy(w, io.NewSectionReader(tmp.File, 0, r.SizeAft))
	return fr, r.Unmatched, err
}

// mayHoldCode reports whether a member starts like something holding
// device code.
func mayHoldCode(f *zip.File) bool {
	rc, err := f.Open()
	if err != nil {
		return true // let the rewrite say what is wrong
	}
	defer rc.Close()
	head := make([]byte, max(magic.Len, 8))
	n, _ := io.ReadFull(rc, head)
	switch k := magic.Identify(head[:n]); {
	case k.IsELF(), k == magic.Archive, k == magic.OffloadBundle, k == magic.CompressedBundle, k == magic.OffloadBinary:
		return true
	}
	return kpak.Is(bytes.NewReader(head[:n]), int64(n))
}

// copyRaw copies a member as it is, compressed bytes and all.
func copyRaw(f *zip.File, zw *zip.Writer) error {
	if zw == nil {
		return nil
	}
	return zw.Copy(f)
}

// writeRecord writes a RECORD member with the lines of changed members
// updated and those of removed members left out.
func writeRecord(f *zip.File, zw *zip.Writer, changed map[string]string) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(rc, 1<<30))
	rc.Close()
	if err != nil {
		return err
	}
	// RECORD's paths are relative to the wheel's root, as members are.
	out, _, err := rewriteRecord(data, func(p string) string { return p }, changed)
	if err != nil {
		return fmt.Errorf("RECORD: %w", err)
	}
	if zw == nil {
		return nil
	}
	hdr := f.FileHeader
	hdr.CompressedSize64, hdr.UncompressedSize64, hdr.CRC32 = 0, 0, 0
	w, err := zw.CreateHeader(&hdr)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}
