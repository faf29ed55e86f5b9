package objfmt

import (
	"debug/pe"
	"fmt"
	"io"
)

// readCOFFBundles lists the bundle sections of a COFF object or PE image.
// Long section names ("/123") are resolved through the string table. The
// contents are SizeOfRawData bytes in an object, and at most VirtualSize
// bytes (when set) in an image, as LLVM's COFF reader takes them.
func readCOFFBundles(r io.ReaderAt, size int64) ([]Bundle, error) {
	f, err := pe.NewFile(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, fmt.Errorf("objfmt: reading COFF file: %w", err)
	}
	defer f.Close()
	image := f.OptionalHeader != nil
	var out []Bundle
	for i, s := range f.Sections {
		id, ok := cutPrefix(s.Name, BundlePrefix)
		if !ok {
			continue
		}
		n := int64(s.Size)
		if image && s.VirtualSize != 0 && int64(s.VirtualSize) < n {
			n = int64(s.VirtualSize)
		}
		off := int64(s.Offset)
		if n == 0 {
			off = 0
		}
		if off > size || n > size-off {
			return nil, formatErr(int64(s.Offset), "COFF bundle section %d (%s): contents at %#x, %#x bytes, go past the end of the file (%#x bytes)", i+1, s.Name, off, n, size)
		}
		b := Bundle{ID: id, Offset: off, Size: n}
		if n == 1 {
			var c [1]byte
			if _, err := r.ReadAt(c[:], off); err != nil {
				return nil, fmt.Errorf("objfmt: reading COFF section %d (%s): %w", i+1, s.Name, err)
			}
			b.HostPlaceholder = c[0] == 0
		}
		out = append(out, b)
	}
	return out, nil
}
