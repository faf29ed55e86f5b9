package bitstream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/goffload/goffload/fmterr"
)

// Error is a malformed-stream error; Bit is the bit offset from the start of
// the underlying io.ReaderAt (not of the stream) at which it was found.
type Error struct {
	Bit int64
	Msg string
	Err error // an underlying I/O error, if any
	// LLVM is the text LLVM 22's BitstreamCursor gives for the same
	// condition, when it is known ("Unexpected end of file reading 40 of 40
	// bytes", "can't skip to bit 37536 from 320", "Blob ends too soon", ...).
	LLVM string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("bitstream: bit %d (byte %d): %s", e.Bit, e.Bit/8, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports every Error as ErrMalformed (package bitcode exports it).
func (e *Error) Is(target error) bool { return target == ErrMalformed }

// LLVMMessage returns LLVM's text for the condition, or "" (see package
// fmterr).
func (e *Error) LLVMMessage() string { return e.LLVM }

// ErrMalformed is what every Error is (errors.Is): a malformed or
// truncated stream. Package bitcode exports it as bitcode.ErrMalformed.
var ErrMalformed = fmterr.Kind("malformed bitcode", fmterr.ErrMalformed)

// Kind says what Advance found.
type Kind int

const (
	// KindRecord is a data record; Entry.ID is its abbreviation ID, to be
	// passed to ReadRecord or SkipRecord.
	KindRecord Kind = iota
	// KindSubBlock is the start of a nested block; Entry.ID is the block ID.
	// The caller must call EnterBlock, SkipBlock or ReadBlockInfoBlock next.
	KindSubBlock
	// KindEndBlock is the end of the current block, which has been left.
	KindEndBlock
)

// Entry is one item of a block.
type Entry struct {
	Kind Kind
	ID   uint64
}

// Record is one data record. For abbreviated records with a Blob operand,
// Blob holds its bytes; array and scalar operands are in Ops, in order.
type Record struct {
	Code uint64
	Ops  []uint64
	Blob []byte
	// HasBlob reports whether the abbreviation had a Blob operand.
	HasBlob bool
	// Bytes holds the operands instead of Ops, each cut to its low 8 bits,
	// for the records NarrowRecords named.
	Bytes []byte
}

type abbrevOp struct {
	lit   bool
	enc   uint8
	value uint64 // literal value or Fixed/VBR width
}

type abbrev struct {
	ops []abbrevOp
	// bad is why the abbreviation cannot be used (an array or blob
	// operand out of place): like LLVM, an error only for a record that
	// uses it, not where it is defined.
	bad string
}

type scope struct {
	width   uint
	abbrevs []*abbrev
	blockID uint64
}

// Cursor reads a bitstream from an io.ReaderAt.
type Cursor struct {
	r      io.ReaderAt
	base   int64 // byte offset of the stream in r
	size   int64 // stream length in bytes
	pos    int64 // bit position within the stream
	buf    []byte
	bufOff int64 // stream byte offset of buf[0]

	width   uint
	abbrevs []*abbrev
	blockID uint64
	stack   []scope

	narrow      map[[2]uint64]bool // {block ID, code} of records read as bytes
	info        map[uint64][]*abbrev
	inBlockInfo bool
	curBID      uint64
	haveBID     bool
}

// NewCursor returns a cursor over the size bytes of r starting at off, at the
// top level (abbreviation width 2).
func NewCursor(r io.ReaderAt, off, size int64) *Cursor {
	return &Cursor{r: r, base: off, size: size, width: 2, info: map[uint64][]*abbrev{}}
}

// NarrowRecords makes ReadRecord return the operands of records with the
// given codes in blocks with the given ID as bytes (Record.Bytes), each cut to
// its low 8 bits, instead of as uint64s: for large character or byte arrays.
func (c *Cursor) NarrowRecords(blockID uint64, codes ...uint64) {
	if c.narrow == nil {
		c.narrow = map[[2]uint64]bool{}
	}
	for _, code := range codes {
		c.narrow[[2]uint64{blockID, code}] = true
	}
}

// Pos returns the current bit position within the stream.
func (c *Cursor) Pos() int64 { return c.pos }

// AbsBit returns the bit offset of stream bit pos in the underlying reader.
func (c *Cursor) AbsBit(pos int64) int64 { return c.base*8 + pos }

// Size returns the stream size in bytes.
func (c *Cursor) Size() int64 { return c.size }

// BitsLeft returns the number of bits between the position and the end of
// the stream.
func (c *Cursor) BitsLeft() int64 { return c.size*8 - c.pos }

// JumpTo moves to a bit position within the stream, at the top level. Block
// state (entered blocks, local abbreviations) is discarded; BLOCKINFO
// abbreviations are kept.
func (c *Cursor) JumpTo(pos int64) error {
	if pos < 0 || pos > c.size*8 {
		return c.errf("seek to bit %d outside the stream (%d bits)", pos, c.size*8)
	}
	c.pos = pos
	c.stack = c.stack[:0]
	c.width, c.abbrevs, c.blockID, c.inBlockInfo = 2, nil, 0, false
	return nil
}

// JumpWithin moves to a bit position within the stream without leaving the
// current block (LLVM's JumpToBit): what is read there is read with the
// block's abbreviation width and abbreviations.
func (c *Cursor) JumpWithin(pos int64) error {
	if pos < 0 || pos > c.size*8 {
		return c.errf("seek to bit %d outside the stream (%d bits)", pos, c.size*8)
	}
	c.pos = pos
	return nil
}

func (c *Cursor) errf(format string, args ...any) error {
	return &Error{Bit: c.AbsBit(c.pos), Msg: fmt.Sprintf(format, args...)}
}

// llvmErrf is errf with LLVM's text for the condition.
func (c *Cursor) llvmErrf(llvm, format string, args ...any) error {
	return &Error{Bit: c.AbsBit(c.pos), Msg: fmt.Sprintf(format, args...), LLVM: llvm}
}

// errEOF is a read past the end of the stream. LLVM reads whole words, so it
// fails there too, having consumed every byte.
func (c *Cursor) errEOF(format string, args ...any) error {
	return c.llvmErrf(fmt.Sprintf("Unexpected end of file reading %d of %d bytes", c.size, c.size), format, args...)
}

const chunkSize = 64 << 10

// load returns up to 8 bytes at stream byte offset bp, little-endian, zero
// beyond the end of the stream.
func (c *Cursor) load(bp int64) (uint64, error) {
	if bp < c.bufOff || bp+8 > c.bufOff+int64(len(c.buf)) {
		if bp >= c.bufOff && c.bufOff+int64(len(c.buf)) == c.size {
			// buf already reaches the end of the stream
		} else {
			n := min(int64(chunkSize), c.size-bp)
			if cap(c.buf) < int(n) {
				c.buf = make([]byte, n)
			}
			c.buf = c.buf[:n]
			got, err := c.r.ReadAt(c.buf, c.base+bp)
			if got < int(n) {
				if err == nil || errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				c.buf = c.buf[:0]
				return 0, &Error{Bit: c.AbsBit(bp * 8), Msg: "reading stream", Err: err}
			}
			c.bufOff = bp
		}
	}
	i := int(bp - c.bufOff)
	if i+8 <= len(c.buf) {
		return binary.LittleEndian.Uint64(c.buf[i:]), nil
	}
	var v uint64
	for k := 0; k < 8 && i+k < len(c.buf); k++ {
		v |= uint64(c.buf[i+k]) << (8 * k)
	}
	return v, nil
}

// Read reads n ≤ 64 bits as a fixed-width field.
func (c *Cursor) Read(n uint) (uint64, error) {
	if n > 64 {
		return 0, c.errf("fixed field of %d bits is wider than 64", n)
	}
	if n == 0 {
		return 0, nil
	}
	if int64(n) > c.BitsLeft() {
		return 0, c.errEOF("unexpected end of stream reading %d bits (%d left)", n, c.BitsLeft())
	}
	if n > 56 {
		lo, err := c.Read(32)
		if err != nil {
			return 0, err
		}
		hi, err := c.Read(n - 32)
		return lo | hi<<32, err
	}
	w, err := c.load(c.pos / 8)
	if err != nil {
		return 0, err
	}
	v := (w >> (c.pos % 8)) & (1<<n - 1)
	c.pos += int64(n)
	return v, nil
}

// ReadVBR reads a variable-width integer made of n-bit chunks.
func (c *Cursor) ReadVBR(n uint) (uint64, error) {
	if n < 2 || n > maxChunk {
		return 0, c.errf("VBR chunk width %d out of range", n)
	}
	start := c.pos
	hi := uint64(1) << (n - 1)
	var v uint64
	for shift := uint(0); ; shift += n - 1 {
		chunk, err := c.Read(n)
		if err != nil {
			return 0, err
		}
		piece := chunk &^ hi
		if piece != 0 {
			if shift >= 64 || piece>>(64-shift) != 0 {
				return 0, &Error{Bit: c.AbsBit(start), Msg: "VBR value does not fit in 64 bits"}
			}
			v |= piece << shift
		}
		if chunk&hi == 0 {
			return v, nil
		}
		if shift > 64+maxChunk {
			return 0, &Error{Bit: c.AbsBit(start), Msg: "VBR value does not fit in 64 bits"}
		}
	}
}

// Align32 skips to the next multiple of 32 bits.
func (c *Cursor) align32() error {
	p := (c.pos + 31) &^ 31
	if p > c.size*8 {
		return c.errf("unexpected end of stream aligning to 32 bits")
	}
	c.pos = p
	return nil
}

// AtEnd reports whether the top-level walk should stop: at most 8 bytes
// remain. Like LLVM, this tolerates up to 8 bytes of padding or junk after
// the last block (a block takes at least 12).
func (c *Cursor) AtEnd() bool { return c.BitsLeft() <= 64 }

// Advance reads the next entry of the current block, handling abbreviation
// definitions itself.
func (c *Cursor) Advance() (Entry, error) {
	for {
		if c.BitsLeft() == 0 {
			// LLVM's advance() returns an error entry, which its callers
			// report as a malformed block.
			return Entry{}, c.llvmErrf("Malformed block", "end of stream inside block %d", c.blockID)
		}
		if c.BitsLeft() < int64(c.width) {
			return Entry{}, c.errEOF("unexpected end of stream inside block %d", c.blockID)
		}
		id, err := c.Read(c.width)
		if err != nil {
			return Entry{}, err
		}
		switch id {
		case EndBlock:
			if len(c.stack) == 0 {
				return Entry{}, c.llvmErrf("Malformed block", "END_BLOCK at the top level")
			}
			if err := c.align32(); err != nil {
				return Entry{}, err
			}
			bid := c.blockID
			top := c.stack[len(c.stack)-1]
			c.stack = c.stack[:len(c.stack)-1]
			c.width, c.abbrevs, c.blockID = top.width, top.abbrevs, top.blockID
			if bid == BlockInfoID {
				c.inBlockInfo = false
			}
			return Entry{Kind: KindEndBlock, ID: bid}, nil
		case EnterSubblock:
			bid, err := c.ReadVBR(8)
			if err != nil {
				return Entry{}, err
			}
			return Entry{Kind: KindSubBlock, ID: bid}, nil
		case DefineAbbrev:
			if err := c.readAbbrev(); err != nil {
				return Entry{}, err
			}
		default:
			return Entry{Kind: KindRecord, ID: id}, nil
		}
	}
}

// blockHeader reads the rest of an ENTER_SUBBLOCK: width, alignment, length.
// It returns the new width and the bit position of the block's end. Like
// LLVM, it fails when the length word ends the stream; what says "enter" or
// "skip" in LLVM's text. A block running past the end of the stream is only
// an error for skip (LLVM finds out while reading an entered block).
func (c *Cursor) blockHeader(what string) (uint, int64, error) {
	w, err := c.ReadVBR(4)
	if err != nil {
		return 0, 0, err
	}
	if err := c.align32(); err != nil {
		return 0, 0, err
	}
	words, err := c.Read(32)
	if err != nil {
		return 0, 0, err
	}
	end := c.pos + int64(words)*32
	if c.BitsLeft() == 0 {
		llvm := "can't skip block: already at end of stream"
		if what == "enter" {
			llvm = "can't enter sub block: already at end of stream"
		}
		return 0, 0, c.llvmErrf(llvm, "block header ends the stream")
	}
	if what == "skip" && end > c.size*8 {
		return 0, 0, c.llvmErrf(fmt.Sprintf("can't skip to bit %d from %d", end, c.pos),
			"block of %d words runs past the end of the stream (%d bits left)", words, c.BitsLeft())
	}
	if w > maxAbbrevWidth {
		return 0, 0, c.errf("abbreviation width %d too large", w)
	}
	return uint(w), end, nil
}

// EnterBlock enters the block whose ID Advance just returned.
func (c *Cursor) EnterBlock(id uint64) error {
	if len(c.stack) >= MaxDepth {
		return c.errf("blocks nested deeper than %d", MaxDepth)
	}
	w, _, err := c.blockHeader("enter")
	if err != nil {
		return err
	}
	if w == 0 {
		return c.errf("block %d has abbreviation width 0", id)
	}
	c.stack = append(c.stack, scope{width: c.width, abbrevs: c.abbrevs, blockID: c.blockID})
	inherited := c.info[id]
	c.width, c.abbrevs, c.blockID = w, inherited[:len(inherited):len(inherited)], id
	return nil
}

// SkipBlock skips the block whose ID Advance just returned, using its length.
func (c *Cursor) SkipBlock() error {
	_, end, err := c.blockHeader("skip")
	if err != nil {
		return err
	}
	c.pos = end
	return nil
}

// ReadBlockInfoBlock enters and reads the BLOCKINFO block whose ID Advance
// just returned, recording its abbreviations for later blocks.
func (c *Cursor) ReadBlockInfoBlock() error {
	if err := c.EnterBlock(BlockInfoID); err != nil {
		return err
	}
	c.inBlockInfo, c.haveBID = true, false
	for {
		e, err := c.Advance()
		if err != nil {
			return err
		}
		switch e.Kind {
		case KindEndBlock:
			return nil
		case KindSubBlock:
			if err := c.SkipBlock(); err != nil {
				return err
			}
		case KindRecord:
			rec, err := c.ReadRecord(e.ID)
			if err != nil {
				return err
			}
			if rec.Code == blockInfoSetBID {
				if len(rec.Ops) < 1 {
					return c.errf("SETBID record without a block ID")
				}
				c.curBID, c.haveBID = rec.Ops[0], true
			}
		}
	}
}

func (c *Cursor) readAbbrev() error {
	start := c.pos
	n, err := c.ReadVBR(5)
	if err != nil {
		return err
	}
	if n == 0 {
		return &Error{Bit: c.AbsBit(start), Msg: "abbreviation with 0 operands", LLVM: "Abbrev record with no operands"}
	}
	if int64(n) > c.BitsLeft() {
		return &Error{Bit: c.AbsBit(start), Msg: fmt.Sprintf("abbreviation with %d operands", n)}
	}
	a := &abbrev{}
	for i := uint64(0); i < n; i++ {
		lit, err := c.Read(1)
		if err != nil {
			return err
		}
		if lit == 1 {
			v, err := c.ReadVBR(8)
			if err != nil {
				return err
			}
			a.ops = append(a.ops, abbrevOp{lit: true, value: v})
			continue
		}
		enc, err := c.Read(3)
		if err != nil {
			return err
		}
		op := abbrevOp{enc: uint8(enc)}
		switch enc {
		case encFixed, encVBR:
			w, err := c.ReadVBR(5)
			if err != nil {
				return err
			}
			if w > maxChunk {
				return c.llvmErrf("Fixed or VBR abbrev record with size > MaxChunkData", "abbreviation operand width %d out of range", w)
			}
			if enc == encVBR && w == 1 {
				return c.errf("abbreviation operand width %d out of range", w)
			}
			if w == 0 {
				// A zero-width field always reads as zero: a literal.
				op = abbrevOp{lit: true}
			} else {
				op.value = w
			}
		case encArray, encChar6, encBlob:
		default:
			return c.llvmErrf("Invalid encoding", "unknown abbreviation operand encoding %d", enc)
		}
		a.ops = append(a.ops, op)
	}
	// Check the shape once, so reading records can rely on it.
shape:
	for i, op := range a.ops {
		if op.lit {
			continue
		}
		switch op.enc {
		case encArray:
			if i != len(a.ops)-2 {
				a.bad = "array operand is not second to last in its abbreviation"
				break shape
			}
			elt := a.ops[i+1]
			if elt.lit || elt.enc == encArray || elt.enc == encBlob {
				a.bad = "array element must be Fixed, VBR or Char6"
				break shape
			}
		case encBlob:
			if i != len(a.ops)-1 {
				a.bad = "blob operand is not last in its abbreviation"
				break shape
			}
		}
	}
	if c.inBlockInfo {
		if !c.haveBID {
			return &Error{Bit: c.AbsBit(start), Msg: "abbreviation in BLOCKINFO before SETBID"}
		}
		c.info[c.curBID] = append(c.info[c.curBID], a)
		return nil
	}
	c.abbrevs = append(c.abbrevs, a)
	return nil
}

func (c *Cursor) readScalar(op abbrevOp) (uint64, error) {
	if op.lit {
		return op.value, nil
	}
	switch op.enc {
	case encFixed:
		return c.Read(uint(op.value))
	case encVBR:
		return c.ReadVBR(uint(op.value))
	case encChar6:
		v, err := c.Read(6)
		return uint64(char6[v]), err
	}
	return 0, c.errf("operand encoding %d is not a scalar", op.enc)
}

// ReadRecord reads the record whose abbreviation ID Advance just returned.
func (c *Cursor) ReadRecord(abbrevID uint64) (Record, error) {
	return c.readRecord(abbrevID, true)
}

// SkipRecord reads past a record without keeping its operands or blob.
func (c *Cursor) SkipRecord(abbrevID uint64) error {
	_, err := c.readRecord(abbrevID, false)
	return err
}

func (c *Cursor) readRecord(abbrevID uint64, keep bool) (Record, error) {
	var rec Record
	start := c.pos
	if abbrevID == UnabbrevRecord {
		err := c.readUnabbrevRecord(&rec, start, keep)
		return rec, err
	}
	idx := abbrevID - firstAppAbbrev
	if abbrevID < firstAppAbbrev || idx >= uint64(len(c.abbrevs)) {
		return rec, &Error{Bit: c.AbsBit(start), Msg: fmt.Sprintf("undefined abbreviation ID %d in block %d", abbrevID, c.blockID), LLVM: "Invalid abbrev number"}
	}
	a := c.abbrevs[idx]
	if a.bad != "" {
		return rec, &Error{Bit: c.AbsBit(start), Msg: a.bad}
	}
	first := a.ops[0]
	if !first.lit && (first.enc == encArray || first.enc == encBlob) {
		return rec, &Error{Bit: c.AbsBit(start), Msg: "abbreviation starts with an array or a blob"}
	}
	code, err := c.readScalar(first)
	if err != nil {
		return rec, err
	}
	rec.Code = code
	narrow := keep && c.narrow[[2]uint64{c.blockID, code}]
	put := func(v uint64) {
		switch {
		case narrow:
			rec.Bytes = append(rec.Bytes, byte(v))
		case keep:
			rec.Ops = append(rec.Ops, v)
		}
	}
	for i := 1; i < len(a.ops); i++ {
		op := a.ops[i]
		if op.lit || (op.enc != encArray && op.enc != encBlob) {
			v, err := c.readScalar(op)
			if err != nil {
				return rec, err
			}
			put(v)
			continue
		}
		if op.enc == encArray {
			if err := c.readArray(&rec, a.ops[i+1], narrow, keep, put); err != nil {
				return rec, err
			}
			break // the element operand was consumed
		}
		if err := c.readBlob(&rec, keep); err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// readUnabbrevRecord reads the rest of an unabbreviated record, which
// started at bit start: its code, operand count and operands, each a VBR6.
func (c *Cursor) readUnabbrevRecord(rec *Record, start int64, keep bool) error {
	code, err := c.ReadVBR(6)
	if err != nil {
		return err
	}
	n, err := c.ReadVBR(6)
	if err != nil {
		return err
	}
	if n > uint64(c.BitsLeft()/6) {
		return &Error{Bit: c.AbsBit(start), Msg: fmt.Sprintf("record with %d operands is longer than the stream (%d bits left)", n, c.BitsLeft())}
	}
	rec.Code = code
	narrow := keep && c.narrow[[2]uint64{c.blockID, code}]
	switch {
	case narrow:
		rec.Bytes = make([]byte, 0, n)
	case keep:
		rec.Ops = make([]uint64, 0, n)
	}
	for i := uint64(0); i < n; i++ {
		v, err := c.ReadVBR(6)
		if err != nil {
			return err
		}
		switch {
		case narrow:
			rec.Bytes = append(rec.Bytes, byte(v))
		case keep:
			rec.Ops = append(rec.Ops, v)
		}
	}
	return nil
}

// readArray reads an array operand, whose elements are encoded as elt,
// passing each element to put.
func (c *Cursor) readArray(rec *Record, elt abbrevOp, narrow, keep bool, put func(uint64)) error {
	n, err := c.ReadVBR(6)
	if err != nil {
		return err
	}
	minBits := uint64(6)
	if elt.enc != encChar6 {
		minBits = elt.value
	}
	if n > uint64(c.BitsLeft())/minBits {
		return c.errf("array of %d elements is longer than the stream (%d bits left)", n, c.BitsLeft())
	}
	switch {
	case narrow:
		rec.Bytes = slices.Grow(rec.Bytes, int(n))
	case keep:
		rec.Ops = slices.Grow(rec.Ops, int(n))
	}
	for k := uint64(0); k < n; k++ {
		v, err := c.readScalar(elt)
		if err != nil {
			return err
		}
		put(v)
	}
	return nil
}

// readBlob reads a blob operand: its length, then its bytes between 32-bit
// alignments, kept in rec.Blob if keep is set.
func (c *Cursor) readBlob(rec *Record, keep bool) error {
	n, err := c.ReadVBR(6)
	if err != nil {
		return err
	}
	if err := c.align32(); err != nil {
		return err
	}
	if n > uint64(c.BitsLeft()/8) {
		return c.llvmErrf("Blob ends too soon", "blob of %d bytes is longer than the stream (%d bytes left)", n, c.BitsLeft()/8)
	}
	rec.HasBlob = true
	if keep {
		rec.Blob = make([]byte, n)
		if got, err := c.r.ReadAt(rec.Blob, c.base+c.pos/8); got < len(rec.Blob) {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return &Error{Bit: c.AbsBit(c.pos), Msg: "reading blob", Err: err}
		}
	}
	c.pos += int64(n) * 8
	return c.align32()
}
