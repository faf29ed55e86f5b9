package inspect

import (
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/objfile"
)

// walkPE lists the device code of a COFF object or PE image. Section names
// of images are cut to 8 characters: .hip_fatbin is ".hip_fat" there, and
// .hipFatBinSegment ".hipFatB".
func (w *walker) walkPE(r io.ReaderAt, size int64, p place) {
	c, err := objfile.NewCOFF(r, size)
	if err != nil {
		w.failLayer(p, err)
		return
	}
	for i := 1; i <= int(c.NumSections); i++ {
		s, err := c.Section(i)
		if err != nil {
			w.failLayer(p, err)
			return
		}
		name, err := c.SectionName(&s)
		if err != nil {
			w.failLayer(p, err) // the other sections are still looked into
			continue
		}
		off, n, in := c.Contents(&s)
		if n == 0 || off == 0 {
			continue
		}
		if !in {
			if isDeviceSectionName(name) {
				w.fail(p, off, fmt.Sprintf("section %d (%s)", i, name),
					fmt.Errorf("%w: offset %d + size %d past the end of the file (%d bytes)", ErrTruncated, off, n, size))
			}
			continue
		}
		sr := io.NewSectionReader(r, off, n)
		sp := p.sub(off, name)
		switch {
		case strings.HasPrefix(name, magic.BundleMagic) && len(name) > len(magic.BundleMagic):
			w.leaf(entryObject(strings.TrimPrefix(name, magic.BundleMagic), "bundle section"), r, off, n, p)
		case name == ".hip_fat" || strings.HasPrefix(name, secHIPFatbin):
			w.walkBundles(sr, n, sp, name)
		case strings.HasPrefix(name, ".llvm.offloading"), strings.HasPrefix(name, ".llvm.of"):
			w.walkOffloadBinaries(sr, n, sp)
		default:
			switch identifyAt(sr, 0, n) {
			case magic.OffloadBinary:
				w.walkOffloadBinaries(sr, n, sp)
			case magic.OffloadBundle, magic.CompressedBundle:
				w.walkBundles(sr, n, sp, name)
			}
		}
	}
}

func isDeviceSectionName(name string) bool {
	return strings.HasPrefix(name, magic.BundleMagic) || strings.HasPrefix(name, ".hip_fat") ||
		strings.HasPrefix(name, ".llvm.of")
}
