package offloadbin

import (
	"bytes"
	"fmt"
	"io"

	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/readerat"
)

// FileType is what LLVM 22's identify_magic makes of an input, reduced to
// the types the offload tools read.
type FileType int

const (
	TypeUnknown FileType = iota // ignored: nothing is extracted
	TypeOffloadBinary
	TypeBitcode
	TypeArchive
	TypeELF
	TypeCOFF
)

func (t FileType) String() string {
	switch t {
	case TypeOffloadBinary:
		return "offload binary"
	case TypeBitcode:
		return "bitcode"
	case TypeArchive:
		return "archive"
	case TypeELF:
		return "ELF"
	case TypeCOFF:
		return "COFF"
	}
	return "unknown"
}

// IdentifyLen is how many leading bytes Identify needs at most.
const IdentifyLen = magic.Len

// Identify classifies a file by its first bytes as LLVM 22's
// extractOffloadBinaries does, through identify_magic (package magic):
// OffloadBinary magic, bitcode (raw or wrapped), archives (GNU/BSD
// "!<arch>\n", thin "!<thin>\n", AIX big "<bigaf>\n"), ELF relocatable,
// executable or shared objects (not core files nor other types), and COFF
// objects (not PE images, import libraries or /GL objects). Anything else,
// and anything shorter than 4 bytes, is unknown.
func Identify(head []byte) FileType {
	switch k := magic.Identify(head); k {
	case magic.OffloadBinary:
		return TypeOffloadBinary
	case magic.Bitcode:
		return TypeBitcode
	case magic.Archive:
		return TypeArchive
	case magic.ELFRelocatable, magic.ELFExecutable, magic.ELFShared:
		return TypeELF
	case magic.COFFObject:
		return TypeCOFF
	}
	return TypeUnknown
}

// Found is one image found in an input.
type Found struct {
	*Binary
	// Container is LLVM's identifier of the buffer the image was found in:
	// the input's name as given, or the stored name of the archive member
	// holding it. llvm-offload-binary --archive names members after it.
	Container string
	// FileOffset is where the binary's header lies in the input given to
	// Extract, and ImageOffset where the image's bytes do: the file
	// offsets package inspect reports. They are -1 when the bytes are not
	// the input's own (a compressed v3 binary's image, host bitcode's
	// embedded objects, a thin archive's member files).
	FileOffset, ImageOffset int64
}

// Extract finds every OffloadBinary image in an input, as LLVM 22's
// extractOffloadBinaries does: a raw stream of binaries, the
// SHT_LLVM_OFFLOADING sections of an ELF object, the ".llvm.offloading*"
// sections of a COFF object, the llvm.embedded.objects of host bitcode,
// and, recursively, the members of an archive. Images come in discovery
// order. Inputs of other types give no images and no error. name is the
// buffer identifier reported in Found.Container (and, for thin archives,
// the path their members are resolved against).
func Extract(r io.ReaderAt, size int64, name string, opts ...ReadOption) ([]Found, error) {
	cfg := newConfig(opts)
	out, err := extract(r, size, name, cfg, 0)
	if err = cfg.result(err); err != nil {
		return nil, err
	}
	for i := range out {
		f := &out[i]
		f.FileOffset, f.ImageOffset = -1, -1
		if o, ok := readerat.OffsetIn(f.buf, r); ok {
			f.FileOffset = o + f.at
		}
		if o, ok := readerat.OffsetIn(f.image, r); ok {
			f.ImageOffset = o
		}
	}
	return out, nil
}

const maxArchiveDepth = 64

func extract(r io.ReaderAt, size int64, name string, cfg *readConfig, depth int) ([]Found, error) {
	head := make([]byte, min(size, IdentifyLen))
	if _, err := readFull(r, head, 0); err != nil {
		return nil, err
	}
	var sections []section
	switch Identify(head) {
	case TypeOffloadBinary:
		sections = []section{{0, size}}
	case TypeELF:
		s, err := elfOffloadSections(r, size)
		if err != nil {
			return nil, err
		}
		sections = s
	case TypeCOFF:
		s, err := coffOffloadSections(r, size)
		if err != nil {
			return nil, err
		}
		sections = s
	case TypeBitcode:
		objs, err := bitcodeEmbeddedObjects(r, size)
		if err != nil {
			return nil, err
		}
		var out []Found
		for _, o := range objs {
			f, err := cfg.walk(bytes.NewReader(o), int64(len(o)), name)
			if err != nil {
				return nil, err
			}
			out = append(out, f...)
		}
		return out, nil
	case TypeArchive:
		if depth >= maxArchiveDepth {
			return nil, fmt.Errorf("%s: archives nested more than %d deep", name, maxArchiveDepth)
		}
		return extractArchive(r, size, name, cfg, depth)
	default:
		return nil, nil
	}
	var out []Found
	for _, s := range sections {
		f, err := cfg.walk(io.NewSectionReader(r, s.off, s.size), s.size, name)
		if err != nil {
			return nil, err
		}
		out = append(out, f...)
	}
	return out, nil
}

func (cfg *readConfig) walk(r io.ReaderAt, size int64, name string) ([]Found, error) {
	var out []Found
	err := cfg.readAll(r, size, func(b *Binary) { out = append(out, Found{Binary: b, Container: name}) })
	return out, err
}
