package bitcode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/internal/format/bitcode/internal/bitstream"
)

// module is one MODULE block found at the top level.
type module struct {
	pos    int64  // stream bit position just after the block's ID
	strtab []byte // the first STRTAB blob after the module
	// begin and end are the stream byte offsets of the module as LLVM
	// cuts it out (BitcodeModule): from its IDENTIFICATION block, if
	// one comes right before, to the end of the MODULE block; ident is
	// the bit position after the IDENTIFICATION block's ID, or -1.
	begin, end int64
	ident      int64
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
// names. It checks what LLVM 22 checks, in its order, with its messages
// (learnt by probing llvm-ar 22): the file size is a multiple of 4; a
// wrapper header is complete and names a range inside the file (its offset
// may be anything, even inside the header); the stream holds at least 4
// bytes and starts with the magic number. The stream itself need not be a
// multiple of 4 bytes long.
func locate(r io.ReaderAt, size int64) (off, n int64, err error) {
	llvm := func(at int64, field, msg, llvmMsg string) (int64, int64, error) {
		return 0, 0, &FormatError{Offset: at, Field: field, Msg: msg, LLVM: llvmMsg, Err: ErrNotBitcode}
	}
	if size%4 != 0 {
		return llvm(0, "size", fmt.Sprintf("bitcode file of %d bytes is not a multiple of 4 bytes long", size), "Invalid bitcode signature")
	}
	var hdr [wrapperSize]byte
	k := min(size, wrapperSize)
	if got, err := r.ReadAt(hdr[:k], 0); got < int(k) {
		return 0, 0, readErr(0, err)
	}
	off, n = 0, size
	if size >= 4 && binary.LittleEndian.Uint32(hdr[:]) == wrapperMagic {
		if size < wrapperSize {
			return llvm(0, "wrapper header", fmt.Sprintf("invalid bitcode wrapper header: file of %d bytes is shorter than the %d-byte header", size, wrapperSize), "Invalid bitcode wrapper header")
		}
		off = int64(binary.LittleEndian.Uint32(hdr[8:]))
		n = int64(binary.LittleEndian.Uint32(hdr[12:]))
		if off+n > size {
			return llvm(8, "wrapper header", fmt.Sprintf("invalid bitcode wrapper header: bitcode at offset %d, size %d, in a file of %d bytes", off, n, size), "Invalid bitcode wrapper header")
		}
	}
	if n < 4 {
		return llvm(off, "size", fmt.Sprintf("bitcode stream of %d bytes is too small for the magic number", n), "file too small to contain bitcode header")
	}
	var magic [4]byte
	if got, err := r.ReadAt(magic[:], off); got < 4 {
		return 0, 0, readErr(off, err)
	}
	if string(magic[:]) != bitcodeMagic {
		return llvm(off, "magic", fmt.Sprintf("invalid bitcode signature % x", magic[:]), "file doesn't start with bitcode header")
	}
	return off, n, nil
}

func readErr(off int64, err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &FormatError{Offset: off, Msg: "reading: " + err.Error(), Err: err}
}

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
		// The top level uses 2-bit abbreviation IDs; END_BLOCK there is
		// LLVM's "Malformed block".
		pos := c.Pos()
		if id, err := c.Read(2); err == nil && id == bitstream.EndBlock {
			return nil, &FormatError{Offset: c.AbsBit(pos) / 8, Msg: "malformed block: END_BLOCK at the top level", LLVM: "Malformed block", Err: ErrMalformed}
		}
		if err := c.JumpTo(pos); err != nil {
			return nil, err
		}
		e, err := c.Advance()
		if err != nil {
			return nil, err
		}
		switch e.Kind {
		case bitstream.KindRecord:
			// LLVM skips records at the top level.
			if _, err := c.ReadRecord(e.ID); err != nil {
				return nil, err
			}
			continue
		}
		ident := int64(-1)
		if e.ID == blockIdentification {
			ident = c.Pos()
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
			f.mods = append(f.mods, module{pos: c.Pos(), begin: pos / 8, ident: ident})
			if err := c.SkipBlock(); err != nil {
				return nil, err
			}
			f.mods[len(f.mods)-1].end = c.Pos() / 8
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
	// No module is not an error here: LLVM's archive writer takes such a
	// file for an object without symbols; a single module is required
	// where one is read (EmbeddedObjects).
	return f, nil
}

// readBlobBlock enters a STRTAB or SYMTAB block and returns the blob of its
// blob record (the last one, if several).
func readBlobBlock(c *bitstream.Cursor, id uint64) ([]byte, error) {
	var blob []byte
	err := readBlock(c, id, func(rec bitstream.Record, _ int64) error {
		if rec.Code == strtabBlob && rec.HasBlob {
			blob = rec.Blob
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return blob, nil
}
