package inspect

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
)

// KPAK archives (rocm-kpack) hold the code objects of kpack'd HIP binaries,
// whose .hipFatBinSegment wrappers carry the magic HIPK and point at a
// .rocm_kpack_ref section instead of a bundle.
//
// Header (16 bytes, little-endian): "KPAK", u32 version (1), u64 offset of
// the msgpack table of contents.
const kpakMagic = "KPAK"

// A KpackRef is what a HIPK wrapper points to: the name under which the
// binary's code objects are filed in KPAK archives, and where to look.
type KpackRef struct {
	KernelName  string
	SearchPaths []string
}

func isKPAK(r io.ReaderAt, size int64) bool {
	h := head(r, 0, size, 8)
	return len(h) == 8 && string(h[:4]) == kpakMagic && binary.LittleEndian.Uint32(h[4:]) == 1
}

var errKPAKNotYet = errors.New("KPAK archives are recognised but their table of contents is not read yet")

func (w *walker) walkKPAK(r io.ReaderAt, size int64, p place) {
	w.fail(p, 0, "KPAK", errKPAKNotYet)
}

// kpackRef reads the .rocm_kpack_ref a HIPK wrapper points to.
func (w *walker) kpackRef(f *elf.File, r io.ReaderAt, size int64, addr uint64, refs []*elf.Section, p place) *KpackRef {
	return nil
}
