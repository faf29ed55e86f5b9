package bundle

import (
	"io"
	"strings"

	"github.com/goffload/goffload/magic"
	"github.com/goffload/goffload/offloadbin"
)

// isOffloadBinary reports whether r starts with an OffloadBinary's magic.
func isOffloadBinary(r io.ReaderAt, size int64) bool {
	var head [len(magic.OffloadBinaryMagic)]byte
	if size < int64(len(head)) {
		return false
	}
	if n, _ := r.ReadAt(head[:], 0); n != len(head) {
		return false
	}
	return string(head[:]) == magic.OffloadBinaryMagic
}

// readOffloadBinary lists the images of the OffloadBinaries in r[0:size]
// (offloadbin.ReadAll: versions 1 to 3, back to back) as entries, in file
// order, each under the bundle ID its metadata makes (offloadID). An image
// that is itself an OffloadBinary is one entry.
func readOffloadBinary(r io.ReaderAt, size int64) (*part, error) {
	bins, err := offloadbin.ReadAll(r, size)
	if err != nil {
		return nil, err
	}
	p := &part{format: OffloadBinary, r: r, size: size}
	for _, b := range bins {
		img := b.Image()
		p.entries = append(p.entries, &Entry{ID: offloadID(b), part: p, r: img, size: img.Size()})
	}
	return p, nil
}

// offloadID is the bundle ID of an image: "<kind>-<triple>-<arch>", the
// triple padded to four components as bundle IDs have it
// ("hip-amdgcn-amd-amdhsa--gfx90a").
func offloadID(b *offloadbin.Binary) string {
	t := strings.SplitN(b.Triple(), "-", 4)
	for len(t) < 4 {
		t = append(t, "")
	}
	return b.OffloadKind.String() + "-" + strings.Join(t, "-") + "-" + b.Arch()
}
