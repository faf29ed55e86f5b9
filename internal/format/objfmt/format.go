package objfmt

import "github.com/goffload/goffload/internal/format/magic"

// BundlePrefix starts the name of every bundle section; the bundle ID is the
// rest of the name. It is the bundle magic, magic.BundleMagic.
const BundlePrefix = magic.BundleMagic

// ELF layout constants used by the reader and the writer.
const (
	elfData2LSB = 1

	ehdrSize32 = 52
	ehdrSize64 = 64
	shdrSize32 = 40
	shdrSize64 = 64
	phdrSize32 = 32
	phdrSize64 = 56
	sym32Size  = 16
	sym64Size  = 24

	shnUndef     = 0
	shnLoReserve = 0xff00
	shnXIndex    = 0xffff

	shtNull        = 0
	shtProgbits    = 1
	shtSymtab      = 2
	shtStrtab      = 3
	shtRela        = 4
	shtNobits      = 8
	shtRel         = 9
	shtDynsym      = 11
	shtGroup       = 17
	shtSymtabShndx = 18
	shtLLVMAddrsig = 0x6fff4c03

	grpComdat = 0x1

	shfAlloc    = 0x2
	shfInfoLink = 0x40
	shfTLS      = 0x400
	shfExclude  = 0x80000000

	stbLocal = 0

	emMIPS    = 8
	emX86_64  = 62
	emHexagon = 164
	emAMDGPU  = 224
)

// Limits on what the reader accepts before allocating anything.
const (
	// maxSections bounds the section count; it is also checked against the
	// file size, since each header takes 40 or 64 bytes.
	maxSections = 1 << 24
	// maxPadding bounds the alignment padding the writer adds in total
	// (llvm-objcopy pads without limit, up to what it can allocate).
	maxPadding = 1 << 30
	// maxZeroFill bounds the zeros written for an SHT_NOBITS section that
	// gets contents (see setAddedFlags).
	maxZeroFill = 1 << 30
)
