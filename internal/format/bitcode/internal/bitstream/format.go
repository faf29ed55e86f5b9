// Package bitstream reads LLVM's generic bitstream container, the layer under
// LLVM bitcode, as described in LLVM's public "LLVM Bitcode File Format"
// document.
//
// A stream is a sequence of bits packed little-endian into 32-bit words.
// Inside a block, every entry starts with an abbreviation ID of the block's
// width:
//
//	0  END_BLOCK       then align to 32 bits
//	1  ENTER_SUBBLOCK  block ID vbr8, new abbrev width vbr4, align 32,
//	                   block length in 32-bit words (fixed 32)
//	2  DEFINE_ABBREV   op count vbr5, then per op: literal flag (1 bit) and
//	                   either the value (vbr8) or the encoding (fixed 3) and,
//	                   for Fixed and VBR, the width (vbr5)
//	3  UNABBREV_RECORD code vbr6, op count vbr6, each op vbr6
//	4+ a record laid out by the abbreviation with that ID
//
// The top level has abbreviation width 2. Block 0 (BLOCKINFO) holds records
// SETBID (1), BLOCKNAME (2), SETRECORDNAME (3) and abbreviations that apply to
// every block with the ID last named by SETBID; such abbreviations come before
// a block's own ones in its ID numbering.
//
// The reader works over an io.ReaderAt, checks every length against the bits
// left in the stream, bounds the block nesting depth, and reports errors with
// the bit offset at which they were found. It never panics on bad input.
package bitstream

// Reserved abbreviation IDs.
const (
	EndBlock       = 0
	EnterSubblock  = 1
	DefineAbbrev   = 2
	UnabbrevRecord = 3
	firstAppAbbrev = 4
)

// BlockInfoID is the ID of the BLOCKINFO block.
const BlockInfoID = 0

// BLOCKINFO record codes.
const (
	blockInfoSetBID = 1
)

// Abbreviation operand encodings.
const (
	encFixed = 1
	encVBR   = 2
	encArray = 3
	encChar6 = 4
	encBlob  = 5
)

const (
	// MaxDepth bounds the nesting of blocks; LLVM's writers never go past a
	// handful of levels.
	MaxDepth = 64
	// maxChunk is the widest Fixed or VBR chunk an abbreviation may declare.
	maxChunk = 32
	// maxAbbrevWidth is the widest abbreviation-ID width a block may declare.
	maxAbbrevWidth = 32
)

const char6 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"
