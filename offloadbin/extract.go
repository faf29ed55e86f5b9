package offloadbin

import (
	"bytes"
	"fmt"
	"io"
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
const IdentifyLen = 28

// Identify classifies a file by its first bytes as LLVM 22 does for the
// offload tools: OffloadBinary magic, bitcode (raw or wrapped), archives
// (GNU/BSD "!<arch>\n", thin "!<thin>\n", AIX big "<bigaf>\n"), ELF
// relocatable, executable or shared objects (not core files), and COFF
// objects by machine type, including the unknown machine 0 ("00 00" not
// followed by "FF FF"), and COFF bigobj objects. Anything shorter than 4
// bytes is unknown.
func Identify(head []byte) FileType {
	if len(head) < 4 {
		return TypeUnknown
	}
	switch {
	case [4]byte(head[:4]) == Magic:
		return TypeOffloadBinary
	case IsBitcode(head):
		return TypeBitcode
	case len(head) >= 8 && (string(head[:8]) == "!<arch>\n" || string(head[:8]) == "!<thin>\n" || string(head[:8]) == "<bigaf>\n"):
		return TypeArchive
	case string(head[:4]) == "\x7fELF":
		if len(head) < 18 {
			return TypeUnknown
		}
		hi, lo := head[17], head[16]
		if head[5] == 2 {
			hi, lo = lo, hi
		}
		if hi == 0 && lo >= 1 && lo <= 3 {
			return TypeELF
		}
		return TypeUnknown
	}
	if isCOFFMachine(head[0], head[1]) || head[0] == 0 && head[1] == 0 && !(head[2] == 0xff && head[3] == 0xff) {
		return TypeCOFF
	}
	if isBigObj(head) {
		return TypeCOFF
	}
	// Other "00 00 FF FF" files are import libraries (or /GL objects):
	// nothing to extract.
	return TypeUnknown
}

// bigObjMagic is the class ID of a COFF "bigobj" object (more than 65279
// sections), at offset 12 of its 56-byte header.
var bigObjMagic = [16]byte{0xc7, 0xa1, 0xba, 0xd1, 0xee, 0xba, 0xa9, 0x4b, 0xaf, 0x20, 0xfa, 0xf6, 0x6a, 0xa4, 0xdc, 0xb8}

func isBigObj(head []byte) bool {
	return len(head) >= 28 && head[0] == 0 && head[1] == 0 && head[2] == 0xff && head[3] == 0xff &&
		[16]byte(head[12:28]) == bigObjMagic
}

// isCOFFMachine reports whether the first two bytes are a COFF machine type
// that LLVM 22 recognises as an object file (established by probing the
// 22.1.8 binary).
func isCOFFMachine(b0, b1 byte) bool {
	switch b0 {
	case 0x4c, 0x50, 0x66, 0x83, 0x84, 0xc4, 0xf0: // i386, mc68k?, MIPS R4000, Alpha, Alpha64, ARMNT, PowerPC
		return b1 == 0x01 || b1 == 0x02
	case 0x68, 0x90:
		return b1 == 0x02
	case 0x64: // x86-64, ARM64
		return b1 == 0x86 || b1 == 0xaa
	case 0x41, 0x4e: // ARM64EC, ARM64X
		return b1 == 0xa6
	}
	return false
}

// Found is one image found in an input.
type Found struct {
	*Binary
	// Container is LLVM's identifier of the buffer the image was found in:
	// the input's name as given, or the stored name of the archive member
	// holding it. llvm-offload-binary --archive names members after it.
	Container string
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
	err := cfg.readAll(r, size, func(b *Binary) { out = append(out, Found{b, name}) })
	return out, err
}
