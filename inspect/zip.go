package inspect

import (
	"archive/zip"
	"fmt"
	"github.com/goffload/goffload/internal/format/kpak"
	"io"
	"os"
	"strings"

	"github.com/goffload/goffload/internal/format/magic"
)

// Zip archives (Python wheels, JARs of native libraries) are walked member
// by member. A stored member is read in place; a compressed one that starts
// like something holding device code (an ELF file, an archive, a bundle, a
// CCOB, an OffloadBinary) is inflated into a temporary file, removed when
// the listing is closed, since ELF files need random access. Other members
// are skipped after their first bytes.

const zipMagic = "PK\x03\x04"

func isZip(r io.ReaderAt, size int64) bool {
	return string(head(r, 0, size, 4)) == zipMagic
}

// maxZipMember and maxZipInflated bound what a zip walk inflates into
// temporary files: per member (the largest real wheel members, torch's
// libraries, are about 1.4 GB) and in all. Variables for tests.
var (
	maxZipMember   int64 = 4 << 30
	maxZipInflated int64 = 16 << 30
)

// maxZipMembers bounds the members one zip walk looks at.
const maxZipMembers = 1 << 20

func (w *walker) walkZip(r io.ReaderAt, size int64, p place) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		w.fail(p, 0, "zip directory", err)
		return
	}
	if len(zr.File) > maxZipMembers {
		w.fail(p, 0, "zip directory", fmt.Errorf("%w: %d members", ErrLimit, len(zr.File)))
		return
	}
	for _, f := range zr.File {
		if w.stop != nil {
			return
		}
		if strings.HasSuffix(f.Name, "/") || f.UncompressedSize64 == 0 {
			continue
		}
		step := "member " + f.Name
		if f.Method == zip.Store {
			off, err := f.DataOffset()
			if err != nil || off < 0 || f.CompressedSize64 > uint64(size-off) {
				w.fail(p, 0, step, fmt.Errorf("%w: stored member past the end of the file", ErrTruncated))
				continue
			}
			n := int64(f.CompressedSize64)
			q := p.sub(off, step)
			q = q.wholeFile()
			sr := io.NewSectionReader(r, off, n)
			w.walk(sr, n, q, identifyAt(sr, 0, n))
			continue
		}
		w.zipMember(f, p, step)
	}
}

// zipMember inflates a compressed member worth reading into a temporary
// file and walks it.
func (w *walker) zipMember(f *zip.File, p place, step string) {
	rc, err := f.Open()
	if err != nil {
		w.fail(p, 0, step, err)
		return
	}
	defer rc.Close()
	var head [magic.Len]byte
	n, _ := io.ReadFull(rc, head[:])
	k := magic.Identify(head[:n])
	if !k.IsELF() && k != magic.Archive && k != magic.OffloadBundle && k != magic.CompressedBundle &&
		k != magic.OffloadBinary && k != magic.COFFObject && k != magic.PEExecutable && string(head[:min(n, 4)]) != kpak.Magic {
		return
	}
	tmp, err := os.CreateTemp("", "goffload-zip-*")
	if err != nil {
		w.fail(p, 0, step, err)
		return
	}
	os.Remove(tmp.Name()) // unlinked: gone with the descriptor
	w.temps = append(w.temps, tmp)
	// Capped, member by member and in all: a zip bomb fills no disk.
	limit := min(maxZipMember, maxZipInflated-w.zipInflated)
	written, err := io.Copy(tmp, io.LimitReader(io.MultiReader(strings.NewReader(string(head[:n])), rc), limit+1))
	w.zipInflated += written
	if err == nil && written > limit {
		err = fmt.Errorf("%w: it inflates to more than %d bytes (%d for a member, %d for all members)", ErrLimit, limit, maxZipMember, maxZipInflated)
	}
	if err != nil {
		w.fail(p, 0, step, fmt.Errorf("inflating: %w", err))
		return
	}
	q := p.child(step + " (inflated)")
	q.base = -1
	q = q.wholeFile()
	w.walk(tmp, written, q, k)
}
