package bitcode

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/goffload/goffload/internal/bitstream"
)

// module is one MODULE block found at the top level.
type module struct {
	pos    int64  // stream bit position just after the block's ID
	strtab []byte // the first STRTAB blob after the module
}

// file is the top-level view of a bitcode file.
type file struct {
	r      io.ReaderAt
	off    int64 // byte offset of the bitstream in r
	size   int64 // bitstream size in bytes
	mods   []module
	symtab []byte // the last SYMTAB blob
	// symStrtab is the first STRTAB blob after the SYMTAB block; the
	// irsymtab's strings point into it.
	symStrtab  []byte
	haveSymtab bool
}

// locate finds the bitstream: the whole input, or the part a wrapper header
// names. It checks the sizes and the magic number in LLVM's order.
func locate(r io.ReaderAt, size int64) (off, n int64, err error) {
	var hdr [wrapperSize]byte
	if size < 4 {
		return 0, 0, llvmErrAt(0, "Invalid bitcode signature", "file of %d bytes is too small for bitcode", size)
	}
	if size%4 != 0 {
		// LLVM checks the size of the whole file, wrapper or not.
		return 0, 0, llvmErrAt(0, "Invalid bitcode signature", "bitcode file of %d bytes is not a multiple of 4 bytes long", size)
	}
	k := min(size, wrapperSize)
	if got, err := r.ReadAt(hdr[:k], 0); got < int(k) {
		return 0, 0, readErr(0, err)
	}
	off, n = 0, size
	if binary.LittleEndian.Uint32(hdr[:]) == wrapperMagic {
		if size < wrapperSize {
			return 0, 0, llvmErrAt(0, "Invalid bitcode wrapper header", "invalid bitcode wrapper header: file of %d bytes is shorter than the %d-byte header", size, wrapperSize)
		}
		o := int64(binary.LittleEndian.Uint32(hdr[8:]))
		s := int64(binary.LittleEndian.Uint32(hdr[12:]))
		if o+s > size {
			return 0, 0, llvmErrAt(8, "Invalid bitcode wrapper header", "invalid bitcode wrapper header: bitcode at offset %d, size %d, in a file of %d bytes", o, s, size)
		}
		// LLVM neither requires the bitcode to follow the header nor its
		// size to be a multiple of 4.
		off, n = o, s
		if n < 4 {
			return 0, 0, llvmErrAt(off, "file too small to contain bitcode header", "invalid bitcode signature: %d bytes of bitcode", n)
		}
		if got, err := r.ReadAt(hdr[:4], off); got < 4 {
			return 0, 0, readErr(off, err)
		}
	}
	if string(hdr[:4]) != bitcodeMagic {
		return 0, 0, llvmErrAt(off, "file doesn't start with bitcode header", "invalid bitcode signature % x", hdr[:4])
	}
	return off, n, nil
}

func readErr(off int64, err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &FormatError{Off: off, Msg: "reading: " + err.Error()}
}

// errNoModule is openFile's error for a file without modules, which LLVM
// reads without complaint (a symbolic file with no symbols).
var errNoModule = &FormatError{Msg: "no module in the bitcode file"}

// openFile walks the top-level blocks.
func openFile(r io.ReaderAt, size int64) (*file, error) {
	off, n, err := locate(r, size)
	if err != nil {
		return nil, err
	}
	f := &file{r: r, off: off, size: n}
	c := bitstream.NewCursor(r, off, n)
	if err := c.JumpTo(32); err != nil {
		return nil, err
	}
	pendingStrtab := 0         // modules from here on still lack a STRTAB
	symtabWantsStrtab := false // a SYMTAB was seen and no STRTAB after it
	for !c.AtEnd() {
		e, err := c.Advance()
		if err != nil {
			return nil, err
		}
		if e.Kind != bitstream.KindSubBlock {
			// LLVM skips records at the top level.
			if err := c.SkipRecord(e.ID); err != nil {
				return nil, err
			}
			continue
		}
		if e.ID == blockIdentification {
			// An IDENTIFICATION block must be followed by a MODULE block.
			if err := c.SkipBlock(); err != nil {
				return nil, err
			}
			if e, err = c.Advance(); err != nil {
				return nil, err
			}
			if e.Kind != bitstream.KindSubBlock || e.ID != blockModule {
				return nil, llvmErrAt(c.AbsBit(c.Pos())/8, "Malformed block", "malformed block: an IDENTIFICATION block not followed by a MODULE block")
			}
		}
		switch e.ID {
		case blockModule:
			f.mods = append(f.mods, module{pos: c.Pos()})
			if err := c.SkipBlock(); err != nil {
				return nil, err
			}
		case blockStrtab, blockSymtab:
			blob, err := readBlobBlock(c, e.ID)
			if err != nil {
				return nil, err
			}
			if e.ID == blockSymtab {
				f.symtab, f.haveSymtab, symtabWantsStrtab = blob, true, true
				f.symStrtab = nil
				continue
			}
			for i := pendingStrtab; i < len(f.mods); i++ {
				f.mods[i].strtab = blob
			}
			pendingStrtab = len(f.mods)
			if symtabWantsStrtab {
				f.symStrtab, symtabWantsStrtab = blob, false
			}
		case bitstream.BlockInfoID:
			if err := c.ReadBlockInfoBlock(); err != nil {
				return nil, err
			}
		default:
			if err := c.SkipBlock(); err != nil {
				return nil, err
			}
		}
	}
	if len(f.mods) == 0 {
		return nil, errNoModule
	}
	return f, nil
}

// readBlobBlock enters a STRTAB or SYMTAB block and returns the blob of its
// blob record (the last one, if several).
func readBlobBlock(c *bitstream.Cursor, id uint64) ([]byte, error) {
	if err := c.EnterBlock(id); err != nil {
		return nil, err
	}
	var blob []byte
	for {
		e, err := c.Advance()
		if err != nil {
			return nil, err
		}
		switch e.Kind {
		case bitstream.KindEndBlock:
			return blob, nil
		case bitstream.KindSubBlock:
			if err := c.SkipBlock(); err != nil {
				return nil, err
			}
		case bitstream.KindRecord:
			rec, err := c.ReadRecord(e.ID)
			if err != nil {
				return nil, err
			}
			if rec.Code == strtabBlob && rec.HasBlob {
				blob = rec.Blob
			}
		}
	}
}
