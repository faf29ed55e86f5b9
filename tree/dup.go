package tree

import (
	"crypto/sha256"
	"io"
	"sort"
	"strings"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/spool"

	"github.com/goffload/goffload/internal/objfile"
)

// A Copy is one code object of a group of duplicates.
type Copy struct {
	File     string // the file (for a wheel member, WHEEL!member)
	Index    int    // its index in the file's listing
	ID       string
	TargetID string
	Size     int64
}

// A Duplicate is a set of code objects that are the same: byte for byte
// (Identical), or in their machine code only (the .text sections are the
// same while the headers and metadata differ: builds for several
// processors of one family, which a generic build would serve).
type Duplicate struct {
	Identical bool
	Copies    []Copy
}

// maxDupObject bounds a compressed code object spooled to be compared.
const maxDupObject = 4 << 30

// Duplicates reads every device code object of the named paths (every
// byte: it is not cheap) and returns the groups of two or more that are
// the same, largest first. Objects identical byte for byte form one
// group; objects of different bytes but the same .text form another.
func Duplicates(paths []string) ([]Duplicate, error) {
	files, err := Walk(paths, &Options{SkipHeaders: true})
	if err != nil {
		return nil, err
	}
	type key [sha256.Size]byte
	byBytes := map[key][]Copy{}
	byText := map[key]map[key]bool{} // text hash -> byte hashes
	var order []key
	seen := map[string]bool{}
	for _, f := range files {
		if f.Listing == nil || len(f.Devices()) == 0 {
			continue
		}
		path, _, _ := strings.Cut(f.Path, "!") // a wheel member: the wheel
		if seen[path] {
			continue
		}
		seen[path] = true
		l, err := inspect.ReadFile(path, &inspect.Options{SkipHeaders: true})
		if err != nil {
			continue
		}
		for _, m := range SplitMembers(l) {
			for _, o := range m.Devices() {
				whole, text, err := hashObject(o)
				if err != nil {
					continue
				}
				if byBytes[whole] == nil {
					order = append(order, whole)
				}
				byBytes[whole] = append(byBytes[whole], Copy{File: m.File, Index: o.Index, ID: o.ID, TargetID: o.Target().TargetID, Size: o.Size})
				if text != (key{}) {
					if byText[text] == nil {
						byText[text] = map[key]bool{}
					}
					byText[text][whole] = true
				}
			}
		}
		l.Close()
	}
	out := []Duplicate{}
	for _, k := range order {
		if len(byBytes[k]) > 1 {
			out = append(out, Duplicate{Identical: true, Copies: byBytes[k]})
		}
	}
	for _, wholes := range byText {
		if len(wholes) < 2 {
			continue
		}
		d := Duplicate{}
		for _, k := range order {
			if wholes[k] {
				d.Copies = append(d.Copies, byBytes[k][0])
			}
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Copies[0].Size*int64(len(out[i].Copies)) > out[j].Copies[0].Size*int64(len(out[j].Copies))
	})
	return out, nil
}

// hashObject returns the sha256 of a code object's bytes and of its .text
// section (zero when it has none).
func hashObject(o *inspect.Object) (whole, text [sha256.Size]byte, err error) {
	r, err := o.Open()
	if err != nil {
		return whole, text, err
	}
	ra, ok := r.(io.ReaderAt)
	size := o.Size
	if !ok {
		s, err := spool.Read(r, maxDupObject, "code object")
		if err != nil {
			return whole, text, err
		}
		defer s.Close()
		ra, size = s.File, s.Size
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(ra, 0, size)); err != nil {
		return whole, text, err
	}
	copy(whole[:], h.Sum(nil))
	if f, err := objfile.NewELF(ra, size); err == nil {
		if secs, err := f.Sections(); err == nil {
			if _, err := f.NameSections(secs); err == nil {
				if s := objfile.Lookup(secs, ".text"); s != nil && s.Type != objfile.SHTNobits {
					if off, n, err := f.Contents(s); err == nil {
						h.Reset()
						if _, err := io.Copy(h, io.NewSectionReader(ra, off, n)); err == nil {
							copy(text[:], h.Sum(nil))
						}
					}
				}
			}
		}
	}
	return whole, text, nil
}
