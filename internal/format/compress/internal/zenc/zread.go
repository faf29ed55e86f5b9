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
}

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
type decTable struct {
	log   uint8
	cells []decCell
	ok    bool
}

type decCell struct {
	sym    uint8
	nbBits uint8
	base   uint16
}

// newDecTable builds the decoding table of a normalized distribution.
func newDecTable(norm []int16, log uint8) decTable {
	size := 1 << log
	cells := spread(norm, log)
	next := make([]int, len(norm))
	for s, c := range norm {
		next[s] = int(c)
		if c == -1 {
			next[s] = 1
		}
	}
	t := decTable{log: log, cells: make([]decCell, size), ok: true}
	for u, s := range cells {
		x := next[s]
		next[s]++
		nb := int(log) - (bits.Len(uint(x)) - 1)
		t.cells[u] = decCell{sym: s, nbBits: uint8(nb), base: uint16(x<<nb - size)}
	}
	return t
}

var (
	llDec = newDecTable(llDefault, 6)
	mlDec = newDecTable(mlDefault, 6)
	ofDec = newDecTable(ofDefault, 5)
)

// readNCount reads an FSE table description (RFC 8878, 4.1.1) of symbols up
// to maxSym and accuracy up to maxLog, and returns the table and the rest.
func readNCount(in []byte, maxSym int, maxLog uint8) (decTable, []byte, error) {
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
	norm := make([]int16, 0, maxSym+1)
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
	return newDecTable(norm, log), in[(pos+7)/8:], nil
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

func (v *frameReader) table(mode byte, in []byte, maxSym int, maxLog uint8, pre decTable, prev *decTable) ([]byte, error) {
	switch mode {
	case modePredefined:
		*prev = pre
	case modeRLE:
		if len(in) < 1 || int(in[0]) > maxSym {
			return nil, corrupt("RLE table")
		}
		*prev = decTable{log: 0, cells: []decCell{{sym: in[0]}}, ok: true}
		return in[1:], nil
	case modeFSE:
		t, rest, err := readNCount(in, maxSym, maxLog)
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
	if in, err = v.table(modes>>6, in, maxLLCode, maxLLLog, llDec, &v.ll); err != nil {
		return 0, nil, err
	}
	if in, err = v.table((modes>>4)&3, in, maxOFCode, maxOFLog, ofDec, &v.of); err != nil {
		return 0, nil, err
	}
	if in, err = v.table((modes>>2)&3, in, maxMLCode, maxMLLog, mlDec, &v.ml); err != nil {
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
	r, err := newBackReader(in)
	if err != nil {
		return err
	}
	// The loop keeps the bit reader, the repeat offsets and the tables in
	// locals: through r and v they were loads and stores each sequence,
	// a third of the loop's time.
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
	read := func(n uint8) uint32 {
		x := val << used >> 1 >> (63 - n)
		used += uint(n)
		return uint32(x)
	}
	// left is the number of bits not yet read: negative after reading past
	// the stream's start (which reads zeros).
	left := func() int { return 8*pos + 64 - int(used) }
	llCells, ofCells, mlCells := v.ll.cells, v.of.cells, v.ml.cells
	sLL := int(read(v.ll.log))
	sOF := int(read(v.of.log))
	refill()
	sML := int(read(v.ml.log))
	r0, r1, r2 := v.rep[0], v.rep[1], v.rep[2]
	lits := v.lits
	done := v.out.size() - v.blockStart // the block's bytes so far
	for i := range n {
		llc, ofc, mlc := llCells[sLL], ofCells[sOF], mlCells[sML]
		if ofc.sym > 31 || llc.sym > maxLLCode || mlc.sym > maxMLCode {
			return corrupt("sequence code out of range")
		}
		refill()
		ov := uint32(1)<<ofc.sym | read(ofc.sym)
		ml := mlBase[mlc.sym] + read(mlBits[mlc.sym])
		refill()
		ll := llBase[llc.sym] + read(llBits[llc.sym])
		if i != n-1 {
			sLL = int(llc.base) + int(read(llc.nbBits))
			sML = int(mlc.base) + int(read(mlc.nbBits))
			sOF = int(ofc.base) + int(read(ofc.nbBits))
		}
		if left() < 0 {
			return corrupt("sequence bitstream overread")
		}
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
	if k := left(); k != 0 {
		return corrupt("%d bits left in the sequence bitstream", k)
	}
	return v.out.literals(lits)
}
