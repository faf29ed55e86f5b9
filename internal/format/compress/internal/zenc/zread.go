package zenc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/klauspost/compress/huff0"
)

// A zstd frame reader (RFC 8878), written from the format: it parses a
// frame and hands what it means to a sink, as literals to append and
// matches to copy. Verify's sink compares them with the expected content;
// Decode's writes them out. Literals are decoded by klauspost/compress's
// Huffman decoder, the sequences by the code below, not from the
// encoder's tables. Dictionaries are not supported.

var errCorrupt = errors.New("zstd frame does not decode to its input")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
}

// A sink receives a frame's content.
type sink interface {
	literals(b []byte) error
	// sequence takes lits, then copies n bytes from off (>= 1) back.
	sequence(lits []byte, off, n int) error
	repeat(c byte, n int) error
	endBlock() error
	size() int64    // bytes received so far
	expect(n int64) // the content size the frame records (-1: none), before any content
}

// A source yields a frame's bytes in pieces.
type source interface {
	// take returns the next n bytes, valid until the next call.
	take(n int) ([]byte, error)
}

type bytesSource struct{ b []byte }

func (s *bytesSource) take(n int) ([]byte, error) {
	if n > len(s.b) {
		return nil, corrupt("truncated frame")
	}
	b := s.b[:n]
	s.b = s.b[n:]
	return b, nil
}

type readerSource struct {
	r   io.Reader
	buf []byte
}

func (s *readerSource) take(n int) ([]byte, error) {
	if cap(s.buf) < n {
		s.buf = make([]byte, n, max(n, blockMax+3))
	}
	b := s.buf[:n]
	if _, err := io.ReadFull(s.r, b); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, corrupt("truncated frame")
		}
		return nil, err
	}
	return b, nil
}

type frameReader struct {
	src source
	out sink
	rep [3]uint32

	huff       *huff0.Scratch
	huffKnown  bool
	ll, ml, of decTable // the previous block's tables (for Repeat mode)
	lits       []byte   // the block's literals (in the block, or in litBuf)
	blockStart int64    // out.size() when the block began
	litBuf     []byte
	codes      []seqCode // the block's sequences as decoded, before the repeat offsets
	// The cells of the tables read from blocks, by kind: a table read
	// replaces the one before it (Repeat mode's), so each kind needs one.
	tables [3][1 << maxTableLog]decCell
}

// seqCode is a sequence as its bitstream gives it: the literal and match
// lengths and the Offset_Value.
type seqCode struct{ ll, ml, ov uint32 }

// readFrame reads one frame from src into out. The content size, when
// the frame records it, must be what out received.
func readFrame(src source, out sink) error {
	v := frameReader{src: src, out: out, rep: [3]uint32{1, 4, 8}}
	return v.frame()
}

// header reads a frame header and returns the content size it records
// (-1: none) and whether a checksum follows the blocks.
func (v *frameReader) header() (fcs int64, checksum bool, err error) {
	hdr, err := v.src.take(5)
	if err != nil {
		return 0, false, err
	}
	if binary.LittleEndian.Uint32(hdr) != magic {
		return 0, false, corrupt("no frame header")
	}
	fhd := hdr[4]
	fcsFlag, single, dictFlag := fhd>>6, fhd&0x20 != 0, fhd&3
	checksum = fhd&4 != 0
	if fhd&8 != 0 {
		return 0, false, corrupt("reserved bit set")
	}
	if dictFlag != 0 {
		return 0, false, corrupt("dictionary frames are not supported")
	}
	if !single {
		// The window descriptor: matches are taken from the sink, whatever
		// their distance.
		if _, err := v.src.take(1); err != nil {
			return 0, false, err
		}
	}
	fcsLen := [4]int{0, 2, 4, 8}[fcsFlag]
	if fcsFlag == 0 && single {
		fcsLen = 1
	}
	fcs = -1
	if fcsLen > 0 {
		b, err := v.src.take(fcsLen)
		if err != nil {
			return 0, false, err
		}
		switch fcsLen {
		case 1:
			fcs = int64(b[0])
		case 2:
			fcs = int64(binary.LittleEndian.Uint16(b)) + 256
		case 4:
			fcs = int64(binary.LittleEndian.Uint32(b))
		case 8:
			u := binary.LittleEndian.Uint64(b)
			if u > 1<<62 {
				return 0, false, corrupt("content size %d", u)
			}
			fcs = int64(u)
		}
	}
	return fcs, checksum, nil
}

func (v *frameReader) frame() error {
	fcs, checksum, err := v.header()
	if err != nil {
		return err
	}
	v.out.expect(fcs)
	for {
		bh, err := v.src.take(3)
		if err != nil {
			return err
		}
		h := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
		last, typ, size := h&1 != 0, (h>>1)&3, int(h>>3)
		if size > blockMax {
			return corrupt("block of %d bytes", size)
		}
		if fcs >= 0 && v.out.size() > fcs {
			return corrupt("more than the %d bytes of content recorded", fcs)
		}
		switch typ {
		case blockRaw:
			b, err := v.src.take(size)
			if err != nil {
				return err
			}
			if err := v.out.literals(b); err != nil {
				return err
			}
		case blockRLE:
			b, err := v.src.take(1)
			if err != nil {
				return err
			}
			if err := v.out.repeat(b[0], size); err != nil {
				return err
			}
		case blockCompressed:
			b, err := v.src.take(size)
			if err != nil {
				return err
			}
			if err := v.block(b); err != nil {
				return err
			}
		default:
			return corrupt("reserved block type")
		}
		if err := v.out.endBlock(); err != nil {
			return err
		}
		if last {
			break
		}
	}
	if checksum {
		if _, err := v.src.take(4); err != nil {
			return err
		}
	}
	if fcs >= 0 && v.out.size() != fcs {
		return corrupt("%d bytes decoded, the frame records %d", v.out.size(), fcs)
	}
	return nil
}

func (v *frameReader) block(in []byte) error {
	start := v.out.size()
	v.blockStart = start
	in, err := v.literals(in)
	if err != nil {
		return err
	}
	if err := v.sequences(in); err != nil {
		return err
	}
	if n := v.out.size() - start; n > blockMax {
		return corrupt("block decodes to %d bytes", n)
	}
	return nil
}

// literals decodes the literals section into v.lits and returns the rest.
func (v *frameReader) literals(in []byte) ([]byte, error) {
	if len(in) < 1 {
		return nil, corrupt("no literals section")
	}
	typ, sf := in[0]&3, (in[0]>>2)&3
	if typ == litRaw || typ == litRLE {
		return v.plainLiterals(in, typ, sf)
	}
	nb, hl, streams := 10, 3, 4
	switch sf {
	case 0:
		streams = 1
	case 2:
		nb, hl = 14, 4
	case 3:
		nb, hl = 18, 5
	}
	if len(in) < hl {
		return nil, corrupt("truncated literals header")
	}
	var h uint64
	for i := range hl {
		h |= uint64(in[i]) << (8 * i)
	}
	regen, comp := int(h>>4)&(1<<nb-1), int(h>>(4+nb))&(1<<nb-1)
	in = in[hl:]
	if regen > blockMax || len(in) < comp {
		return nil, corrupt("literals of %d bytes in %d", regen, comp)
	}
	data, rest := in[:comp], in[comp:]
	if v.huff == nil {
		v.huff = &huff0.Scratch{}
	}
	if typ == litCompressed {
		s, remain, err := huff0.ReadTable(data, v.huff)
		if err != nil {
			return nil, corrupt("Huffman table: %v", err)
		}
		v.huff, data, v.huffKnown = s, remain, true
	} else if !v.huffKnown {
		return nil, corrupt("treeless literals without a table")
	}
	v.huff.MaxDecodedSize = blockMax
	var out []byte
	var err error
	if cap(v.litBuf) < regen {
		v.litBuf = make([]byte, 0, blockMax)
	}
	if streams == 1 {
		out, err = v.huff.Decoder().Decompress1X(v.litBuf[:0:regen], data)
	} else {
		out, err = v.huff.Decoder().Decompress4X(v.litBuf[:0:regen], data)
	}
	if err != nil || len(out) != regen {
		return nil, corrupt("Huffman literals: %v", err)
	}
	v.lits = out
	return rest, nil
}

// plainLiterals reads a raw or RLE literals section.
func (v *frameReader) plainLiterals(in []byte, typ, sf byte) ([]byte, error) {
	var n, hl int
	switch sf {
	case 0, 2:
		n, hl = int(in[0]>>3), 1
	case 1:
		if len(in) < 2 {
			return nil, corrupt("truncated literals header")
		}
		n, hl = int(in[0]>>4)|int(in[1])<<4, 2
	default:
		if len(in) < 3 {
			return nil, corrupt("truncated literals header")
		}
		n, hl = int(in[0]>>4)|int(in[1])<<4|int(in[2])<<12, 3
	}
	in = in[hl:]
	if n > blockMax {
		return nil, corrupt("%d literals", n)
	}
	if typ == litRaw {
		if len(in) < n {
			return nil, corrupt("truncated literals")
		}
		v.lits = in[:n]
		return in[n:], nil
	}
	if len(in) < 1 {
		return nil, corrupt("truncated RLE literals")
	}
	v.lits = v.litBuf[:0]
	for range n {
		v.lits = append(v.lits, in[0])
	}
	v.litBuf = v.lits
	return in[1:], nil
}

// A decTable is an FSE decoding table: per state, the symbol, the bits to
// read and the base the next state adds them to.
// decTable is a decoding table of at most 1<<maxTableLog cells: an array,
// so that the sequences loop indexes it with a mask and no bounds check
// (its states are below its size by construction).
type decTable struct {
	log   uint8
	cells *[1 << maxTableLog]decCell
	ok    bool
}

// decCell is a decoding table's cell packed in one word, as one load: the
// next state's base (bits 0-15) and its number of bits (16-23), then the
// symbol's value as a code stands for it: its extra bits (24-31) and its
// baseline (32-63), to which they add.
type decCell uint64

func (c decCell) stateBase() int   { return int(uint16(c)) }
func (c decCell) stateBits() uint8 { return uint8(c >> 16) }
func (c decCell) extraBits() uint8 { return uint8(c >> 24) }
func (c decCell) baseline() uint32 { return uint32(c >> 32) }

// codeKind says what a table's symbols stand for: literal lengths, match
// lengths, or offsets (code c: 2^c plus c extra bits).
type codeKind uint8

const (
	llKind codeKind = iota
	mlKind
	ofKind
)

// value returns the baseline and extra bits of code sym of kind k.
func (k codeKind) value(sym uint8) (uint32, uint8) {
	switch k {
	case llKind:
		return llBase[sym], llBits[sym]
	case mlKind:
		return mlBase[sym], mlBits[sym]
	}
	return 1 << sym, sym
}

// limits returns the largest code of kind k, the largest accuracy of its
// tables, and its predefined table.
func (k codeKind) limits() (maxSym int, maxLog uint8, pre decTable) {
	switch k {
	case llKind:
		return maxLLCode, maxLLLog, llDec
	case mlKind:
		return maxMLCode, maxMLLog, mlDec
	}
	return maxOFCode, maxOFLog, ofDec
}

func packCell(stateBase int, stateBits uint8, k codeKind, sym uint8) decCell {
	base, bits := k.value(sym)
	return decCell(uint64(uint16(stateBase)) | uint64(stateBits)<<16 | uint64(bits)<<24 | uint64(base)<<32)
}

// newDecTable builds the decoding table of a normalized distribution of
// codes of kind k into cells (each block's tables go into its reader's
// own three, so that decoding allocates nothing a block).
func newDecTable(norm []int16, log uint8, k codeKind, into *[1 << maxTableLog]decCell) decTable {
	size := 1 << log
	var spreadBuf [1 << maxTableLog]uint8
	cells := spread(norm, log, &spreadBuf)
	var next [maxMLCode + 1]int
	for s, c := range norm {
		next[s] = int(c)
		if c == -1 {
			next[s] = 1
		}
	}
	t := decTable{log: log, cells: into, ok: true}
	for u, s := range cells {
		x := next[s]
		next[s]++
		nb := int(log) - (bits.Len(uint(x)) - 1)
		t.cells[u] = packCell(x<<nb-size, uint8(nb), k, s)
	}
	return t
}

var (
	llDec = newDecTable(llDefault, 6, llKind, new([1 << maxTableLog]decCell))
	mlDec = newDecTable(mlDefault, 6, mlKind, new([1 << maxTableLog]decCell))
	ofDec = newDecTable(ofDefault, 5, ofKind, new([1 << maxTableLog]decCell))
)

// readNCount reads an FSE table description (RFC 8878, 4.1.1) of codes of
// kind k (up to its largest code and accuracy), builds the table into into,
// and returns it and the rest.
func readNCount(in []byte, k codeKind, into *[1 << maxTableLog]decCell) (decTable, []byte, error) {
	maxSym, maxLog, _ := k.limits()
	pos := 0 // in bits
	read := func(n int) (int, bool) {
		if pos+n > 8*len(in) {
			return 0, false
		}
		var x uint64
		for i := range (pos%8 + n + 7) / 8 {
			x |= uint64(in[pos/8+i]) << (8 * i)
		}
		return int(x>>(pos%8)) & (1<<n - 1), true
	}
	b, ok := read(4)
	if !ok {
		return decTable{}, nil, corrupt("truncated FSE table")
	}
	pos += 4
	log := uint8(b) + 5
	if log > maxLog {
		return decTable{}, nil, corrupt("FSE accuracy %d", log)
	}
	size := 1 << log
	remaining, threshold, nbBits := size+1, size, int(log)+1
	var normBuf [maxMLCode + 1]int16 // maxSym is at most maxMLCode
	norm := normBuf[: 0 : maxSym+1]
	for remaining > 1 {
		if len(norm) > maxSym {
			return decTable{}, nil, corrupt("FSE table has too many symbols")
		}
		maxV := 2*threshold - 1 - remaining
		x, ok := read(nbBits)
		if !ok {
			// The last value may sit in fewer bits than nbBits at the
			// end of the input.
			x, ok = read(nbBits - 1)
			if !ok {
				return decTable{}, nil, corrupt("truncated FSE table")
			}
		}
		var val int
		if low := x & (threshold - 1); low < maxV {
			val = low
			pos += nbBits - 1
		} else {
			val = x & (2*threshold - 1)
			if val >= threshold {
				val -= maxV
			}
			pos += nbBits
		}
		count := val - 1
		if count < 0 {
			remaining--
		} else {
			remaining -= count
		}
		norm = append(norm, int16(count))
		if count == 0 {
			for {
				r, ok := read(2)
				if !ok {
					return decTable{}, nil, corrupt("truncated FSE table")
				}
				pos += 2
				for range r {
					norm = append(norm, 0)
				}
				if r != 3 {
					break
				}
			}
		}
		for remaining < threshold && threshold > 1 {
			nbBits--
			threshold >>= 1
		}
	}
	if remaining != 1 || len(norm) > maxSym+1 || pos > 8*len(in) {
		return decTable{}, nil, corrupt("FSE table does not sum to %d", size)
	}
	return newDecTable(norm, log, k, into), in[(pos+7)/8:], nil
}

// backReader is the start of a zstd backward bitstream, read from the last
// byte to the first after the final byte's marker bit: value holds eight
// bytes of the stream, in[off:off+8] as a little-endian number (zeros
// before in's start when it is shorter), of which the top used bits have
// been read. The sequences loop reads on from it in local variables.
type backReader struct {
	value uint64
	used  uint
	off   int
}

func newBackReader(in []byte) (backReader, error) {
	n := len(in)
	if n == 0 || in[n-1] == 0 {
		return backReader{}, corrupt("sequence bitstream without end mark")
	}
	// used skips the zero bits above the marker, and the marker.
	r := backReader{used: 9 - uint(bits.Len8(in[n-1])), off: n - 8}
	if n >= 8 {
		r.value = binary.LittleEndian.Uint64(in[n-8:])
		return r, nil
	}
	for i, c := range in {
		r.value |= uint64(c) << (8 * (i + 8 - n))
	}
	return r, nil
}

func (v *frameReader) table(mode byte, in []byte, k codeKind, prev *decTable) ([]byte, error) {
	maxSym, _, pre := k.limits()
	switch mode {
	case modePredefined:
		*prev = pre
	case modeRLE:
		if len(in) < 1 || int(in[0]) > maxSym {
			return nil, corrupt("RLE table")
		}
		own := &v.tables[k]
		own[0] = packCell(0, 0, k, in[0])
		*prev = decTable{log: 0, cells: own, ok: true}
		return in[1:], nil
	case modeFSE:
		t, rest, err := readNCount(in, k, &v.tables[k])
		if err != nil {
			return nil, err
		}
		*prev = t
		return rest, nil
	case modeRepeat:
		if !prev.ok {
			return nil, corrupt("repeated table without a previous one")
		}
	}
	return in, nil
}

// sequencesHeader reads the number of sequences and the three tables,
// and returns the count and the bitstream that follows.
func (v *frameReader) sequencesHeader(in []byte) (int, []byte, error) {
	if len(in) < 1 {
		return 0, nil, corrupt("no sequences section")
	}
	n := int(in[0])
	switch {
	case n < 128:
		in = in[1:]
	case n < 255:
		if len(in) < 2 {
			return 0, nil, corrupt("truncated sequences header")
		}
		n, in = (n-128)<<8|int(in[1]), in[2:]
	default:
		if len(in) < 3 {
			return 0, nil, corrupt("truncated sequences header")
		}
		n, in = int(in[1])|int(in[2])<<8+0x7F00, in[3:]
	}
	if n == 0 {
		return 0, in, nil
	}
	if len(in) < 1 {
		return 0, nil, corrupt("truncated sequences header")
	}
	modes := in[0]
	if modes&3 != 0 {
		return 0, nil, corrupt("reserved sequence mode bits")
	}
	in = in[1:]
	var err error
	if in, err = v.table(modes>>6, in, llKind, &v.ll); err != nil {
		return 0, nil, err
	}
	if in, err = v.table((modes>>4)&3, in, ofKind, &v.of); err != nil {
		return 0, nil, err
	}
	if in, err = v.table((modes>>2)&3, in, mlKind, &v.ml); err != nil {
		return 0, nil, err
	}
	return n, in, nil
}

func (v *frameReader) sequences(in []byte) error {
	n, in, err := v.sequencesHeader(in)
	if err != nil {
		return err
	}
	if n == 0 {
		if len(in) != 0 {
			return corrupt("bytes after an empty sequences section")
		}
		return v.out.literals(v.lits)
	}
	// Each sequence decodes to 3 bytes or more, so a block holds at most
	// blockMax/3 of them; the codes' slice is no larger.
	if n > blockMax/3 {
		return corrupt("%d sequences in a block", n)
	}
	if cap(v.codes) < n {
		v.codes = make([]seqCode, n, max(n, 1024))
	}
	codes := v.codes[:n]
	if err := decodeCodes(in, codes, &v.ll, &v.of, &v.ml); err != nil {
		return err
	}
	// Then the repeat offsets and the sink, in a loop of its own: with
	// the bit reader's and the tables' variables beside these, the single
	// loop kept half of them on the stack.
	r0, r1, r2 := v.rep[0], v.rep[1], v.rep[2]
	lits := v.lits
	done := v.out.size() - v.blockStart // the block's bytes so far
	for _, c := range codes {
		ll, ml, ov := c.ll, c.ml, c.ov
		var off uint32
		if ov > 3 {
			off = ov - 3
			r0, r1, r2 = off, r0, r1
		} else {
			if ll == 0 {
				ov++
			}
			switch ov {
			case 1:
				off = r0
			case 2:
				off = r1
				r0, r1 = off, r0
			case 3:
				off = r2
				r0, r1, r2 = off, r0, r1
			default:
				off = r0 - 1
				if off == 0 {
					return corrupt("repeat offset 0")
				}
				r0, r1, r2 = off, r0, r1
			}
		}
		if int(ll) > len(lits) {
			return corrupt("sequence takes more literals than decoded")
		}
		if done += int64(ll) + int64(ml); done > blockMax {
			return corrupt("block decodes to more than %d bytes", blockMax)
		}
		if err := v.out.sequence(lits[:ll], int(off), int(ml)); err != nil {
			return err
		}
		lits = lits[ll:]
	}
	v.rep = [3]uint32{r0, r1, r2}
	return v.out.literals(lits)
}

// tableMask bounds a state to its table's array.
const tableMask = 1<<maxTableLog - 1

// decodeCodes reads len(codes) sequences from the bitstream in with the
// three tables, and checks that it reads the stream exactly to its start.
func decodeCodes(in []byte, codes []seqCode, llT, ofT, mlT *decTable) error {
	r, err := newBackReader(in)
	if err != nil {
		return err
	}
	// The loop keeps the bit reader and the tables in locals: through r
	// and v they were loads and stores each sequence, a third of the
	// loop's time.
	val, used, pos := r.value, r.used, r.off
	// refill moves whole bytes into val until fewer than 8 bits of it
	// are read: 56 or more bits, enough for an offset and a match length
	// (at most 31 + 16), or for a literal length and the three states'
	// bits (16 + 26). Near the stream's start it goes a byte at a time.
	refill := func() {
		if pos >= 8 {
			pos -= int(used >> 3)
			used &= 7
			val = binary.LittleEndian.Uint64(in[pos:])
			return
		}
		for used >= 8 && pos > 0 {
			pos--
			val = val<<8 | uint64(in[pos])
			used -= 8
		}
	}
	// read's shifts are masked, so that Go need not check them for 64 or
	// more: past the stream's start (used beyond 63) it reads garbage of
	// at most n bits, and the check after the loop rejects the block.
	read := func(n uint8) uint32 {
		x := val << (used & 63) >> 1 >> ((63 - n) & 63)
		used += uint(n)
		return uint32(x)
	}
	// Each cell holds its code's baseline and extra bits (newDecTable,
	// from codes that readNCount and table checked), and the states stay
	// within their tables (a state's base and bits stay below its table's
	// size): the mask only spares the bounds checks. A cell in one word,
	// one load: as a struct of three fields, Go loaded each field apart
	// and kept their addresses on the stack.
	llCells, ofCells, mlCells := llT.cells, ofT.cells, mlT.cells
	sLL := int(read(llT.log))
	sOF := int(read(ofT.log))
	refill()
	sML := int(read(mlT.log))
	last := len(codes) - 1
	for i := range codes {
		llc, ofc, mlc := llCells[sLL&tableMask], ofCells[sOF&tableMask], mlCells[sML&tableMask]
		refill()
		ov := ofc.baseline() + read(ofc.extraBits())
		ml := mlc.baseline() + read(mlc.extraBits())
		refill()
		ll := llc.baseline() + read(llc.extraBits())
		if i != last {
			sLL = llc.stateBase() + int(read(llc.stateBits()))
			sML = mlc.stateBase() + int(read(mlc.stateBits()))
			sOF = ofc.stateBase() + int(read(ofc.stateBits()))
		}
		codes[i] = seqCode{ll: ll, ml: ml, ov: ov}
	}
	// left is the number of bits not yet read: negative after reading past
	// the stream's start.
	if k := 8*pos + 64 - int(used); k != 0 {
		if k < 0 {
			return corrupt("sequence bitstream overread")
		}
		return corrupt("%d bits left in the sequence bitstream", k)
	}
	return nil
}
