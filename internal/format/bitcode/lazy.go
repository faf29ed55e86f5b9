package bitcode

import (
	"github.com/goffload/goffload/internal/format/bitcode/internal/bitstream"
)

// More block IDs and record codes the lazy module loader cares about.
const (
	blockOperandBundleTags = 21
	blockMetadataKind      = 22
	blockSyncScopeNames    = 26

	modVSTOffset = 13
)

// checkLazy walks module i as LLVM 22's archive writer reads it (through
// IRObjectFile, BitcodeModule::getLazyModule with lazily loaded metadata)
// and fails where that fails on the bitstream's structure. LLVM reads the
// module as a stream of its own, from its IDENTIFICATION block (if any) to
// the end of the MODULE block, so bit positions count from there and no
// block may be skipped past the module's end. In the MODULE block it enters
// and reads the blocks it parses (attributes, types, constants, metadata
// kinds, operand bundle tags, sync scope names, and an old-style value
// symbol table), skipping by their length the blocks nested in them; it
// skips METADATA blocks and blocks it does not know by their length; at the
// first FUNCTION block, when a VSTOFFSET record gave the value symbol
// table's place, it reads that table there, skips the function by its
// length and stops, else it skips each function and goes on.
//
// Only the structure is checked: a block length that takes a skip past the
// module's end (LLVM's "can't skip to bit N from M"), or one that lands the
// walk on bits that do not decode (an undefined abbreviation, a malformed
// block). What LLVM checks in the records' contents is not.
func (f *file) checkLazy(i int) error {
	m := f.mods[i]
	c := bitstream.NewCursor(f.r, f.off+m.begin, m.end-m.begin)
	base := m.begin * 8
	if m.ident >= 0 {
		if err := c.JumpTo(m.ident - base); err != nil {
			return err
		}
		if err := c.EnterBlock(blockIdentification); err != nil {
			return err
		}
		for done := false; !done; {
			e, err := c.Advance()
			if err != nil {
				return err
			}
			switch e.Kind {
			case bitstream.KindEndBlock:
				done = true
			case bitstream.KindSubBlock:
				return llvmErrAt(c.AbsBit(c.Pos())/8, "Malformed block", "malformed block: a block inside the IDENTIFICATION block")
			case bitstream.KindRecord:
				if err := c.SkipRecord(e.ID); err != nil {
					return err
				}
			}
		}
	}
	if err := c.JumpTo(m.pos - base); err != nil {
		return err
	}
	if err := c.EnterBlock(blockModule); err != nil {
		return err
	}
	var vstOffset uint64
	seenVST := false
	for {
		e, err := c.Advance()
		if err != nil {
			return err
		}
		switch e.Kind {
		case bitstream.KindEndBlock:
			return nil
		case bitstream.KindRecord:
			rec, err := c.ReadRecord(e.ID)
			if err != nil {
				return err
			}
			if rec.Code == modVSTOffset && len(rec.Ops) > 0 {
				vstOffset = rec.Ops[0] - 1 // counted from a word before the module
			}
			continue
		}
		switch e.ID {
		case bitstream.BlockInfoID:
			err = c.ReadBlockInfoBlock()
		case blockParamAttr, blockParamAttrGroup, blockType, blockConstants,
			blockMetadataKind, blockOperandBundleTags, blockSyncScopeNames:
			err = readBlock(c, e.ID, nil)
		case blockValueSymtab:
			if seenVST {
				err = c.SkipBlock()
			} else {
				err = readBlock(c, e.ID, nil)
				seenVST = true
			}
		case blockFunction:
			if vstOffset > 0 && !seenVST {
				if err := readVSTAt(c, vstOffset); err != nil {
					return err
				}
				seenVST = true
			}
			if err := c.SkipBlock(); err != nil {
				return err
			}
			if seenVST {
				return nil // LLVM stops at the function bodies
			}
		default: // METADATA (loaded lazily) and blocks LLVM skips
			err = c.SkipBlock()
		}
		if err != nil {
			return err
		}
	}
}

// readVSTAt reads the value symbol table at word offset off of the module
// stream, from inside the MODULE block, and comes back.
func readVSTAt(c *bitstream.Cursor, off uint64) error {
	back := c.Pos()
	if off > uint64(c.Size())/4 {
		return errAt(c.AbsBit(back)/8, "VSTOFFSET record points past the end of the module (word %d)", off)
	}
	if err := c.JumpWithin(int64(off) * 32); err != nil {
		return err
	}
	e, err := c.Advance()
	if err != nil {
		return err
	}
	if e.Kind != bitstream.KindSubBlock || e.ID != blockValueSymtab {
		return llvmErrAt(c.AbsBit(c.Pos())/8, "Expected value symbol table subblock", "VSTOFFSET record does not point at a value symbol table")
	}
	if err := readBlock(c, blockValueSymtab, nil); err != nil {
		return err
	}
	return c.JumpWithin(back)
}
