package compress

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

var decoderPool = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(maxDecodeWindow),
		zstd.WithDecoderMaxMemory(1<<62),
		zstd.IgnoreChecksum(true))
	if err != nil {
		panic(err) // options are constant
	}
	return d
}}

// zstdReader decodes the frames of a scanned zstd payload, one frame at a
// time, never more than cap bytes in all. Errors carry the libzstd name
// LLVM would print, in the order ZSTD_decompress would meet them.
type zstdReader struct {
	r      io.ReaderAt
	base   int64 // offset of the payload in r
	member int64 // offset of the CCOB, for errors
	scan   zscan
	cap    uint64

	i        int // next frame
	dec      *zstd.Decoder
	cur      *zframe
	frameOut uint64
	xxh      *xxh64 // of the frame's output, when it has a checksum
	total    uint64
	err      error
}

func newZstdReader(r io.ReaderAt, base, member int64, scan zscan, cap uint64) *zstdReader {
	return &zstdReader{r: r, base: base, member: member, scan: scan, cap: cap}
}

func (z *zstdReader) fail(code, format string, args ...any) error {
	z.err = payloadError(z.member, code, fmt.Sprintf(format, args...))
	z.close()
	return z.err
}

func (z *zstdReader) structural() error {
	e := z.scan.err
	return z.fail(e.code, "%s", e.detail)
}

func (z *zstdReader) close() {
	if z.dec != nil {
		z.dec.Reset(nil)
		decoderPool.Put(z.dec)
		z.dec = nil
	}
}

// start sets the decoder on frame f. The decoder sees a rewritten frame
// header: no content size (we check it), no single-segment flag, and a
// window no larger than the frame can produce, the output can hold, or
// maxDecodeWindow. libzstd's one-shot decoder needs no window at all, so a
// frame whose back-references exceed its declared window still decodes
// there; here it decodes as long as they stay within that bound.
func (z *zstdReader) start(f *zframe) error {
	w := f.window
	if f.maxOut < w {
		w = f.maxOut
	}
	if rest := z.cap - z.total; rest < w {
		w = rest + 1 // room for one byte too many, to report the overflow
	}
	if w > maxDecodeWindow {
		w = maxDecodeWindow
	}
	hdr := []byte{0x28, 0xB5, 0x2F, 0xFD, 0, windowDescriptor(w)}
	body := z.blocks(f)
	if z.dec == nil {
		z.dec = decoderPool.Get().(*zstd.Decoder)
	}
	if err := z.dec.Reset(io.MultiReader(bytes.NewReader(hdr), body)); err != nil {
		return z.fail(zstdCorruption, "zstd frame at payload offset %d: %v", f.start, err)
	}
	z.cur, z.frameOut = f, 0
	z.xxh = nil
	if f.checksum {
		z.xxh = newXXH64()
	}
	return nil
}

// windowDescriptor returns the smallest zstd window descriptor of at least
// one full block (128 KiB) that holds w bytes, up to 2^27 + 7/8 of it: an
// exponent and eighths of it (RFC 8878, 3.1.1.1.2), so that a decoder's
// history is at most an eighth larger than the data needs (a 93 MB
// bundle's 96 MiB, where powers of two took 128 MiB).
func windowDescriptor(w uint64) byte {
	for wlog := uint64(17); ; wlog++ {
		base := uint64(1) << wlog
		for m := uint64(0); m < 8; m++ {
			if base+base/8*m >= w || wlog == 27 && m == 7 {
				return byte(wlog-10)<<3 | byte(m)
			}
		}
	}
}

// blocks returns the frame's blocks for the decoder, with raw and RLE
// blocks above 128 KiB cut into blocks of at most 128 KiB (the same
// output).
func (z *zstdReader) blocks(f *zframe) io.Reader {
	pos := f.start + f.hdrLen
	var parts []io.Reader
	section := func(from, to int64) io.Reader { return io.NewSectionReader(z.r, z.base+from, to-from) }
	for _, bp := range f.oversized {
		parts = append(parts, section(pos, bp))
		var b [4]byte
		if _, err := z.r.ReadAt(b[:], z.base+bp); err != nil {
			return io.MultiReader(append(parts, errReader{err})...)
		}
		bh := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		last, typ, size := bh&1, (bh>>1)&3, int64(bh>>3)
		for off := int64(0); off < size; off += zstdBlockMax {
			n := min(size-off, zstdBlockMax)
			h := uint32(n)<<3 | typ<<1
			if off+n == size {
				h |= last
			}
			parts = append(parts, bytes.NewReader([]byte{byte(h), byte(h >> 8), byte(h >> 16)}))
			if typ == blockRLE {
				parts = append(parts, bytes.NewReader(b[3:4]))
			} else {
				parts = append(parts, section(bp+3+off, bp+3+off+n))
			}
		}
		pos = bp + 3 + 1
		if typ == blockRaw {
			pos = bp + 3 + size
		}
	}
	return io.MultiReader(append(parts, section(pos, f.blocksEnd))...)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func (z *zstdReader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	for idle := 0; ; idle++ {
		if idle > 1000 {
			return 0, z.fail(zstdCorruption, "zstd decoder makes no progress")
		}
		if z.cur == nil {
			for z.i < len(z.scan.frames) && z.scan.frames[z.i].skippable {
				z.i++
			}
			if z.i == len(z.scan.frames) {
				if z.scan.err != nil {
					return 0, z.structural()
				}
				z.close()
				z.err = io.EOF
				return 0, io.EOF
			}
			f := &z.scan.frames[z.i]
			z.i++
			if err := z.start(f); err != nil {
				return 0, err
			}
		}
		n, err := z.dec.Read(p)
		if z.xxh != nil {
			z.xxh.Write(p[:n])
		}
		z.frameOut += uint64(n)
		z.total += uint64(n)
		if z.total > z.cap {
			return 0, z.fail(zstdDstTooSmall, "data exceeds the header's uncompressed size %d", z.cap)
		}
		f := z.cur
		switch {
		case err == nil:
			if n > 0 || len(p) == 0 {
				return n, nil
			}
			continue
		case err == io.EOF || !f.complete && errors.Is(err, io.ErrUnexpectedEOF):
			// The decoder saw every block we gave it. A frame cut short
			// in its blocks fails there; the others pass the content-size
			// and then the checksum checks, in libzstd's order.
			if !f.complete && z.scan.err.code != zstdChecksumWrong {
				return n, z.structural()
			}
			if f.fcs >= 0 && z.frameOut != uint64(f.fcs) {
				return n, z.fail(zstdCorruption, "zstd frame at payload offset %d decodes to %d bytes, its header says %d", f.start, z.frameOut, f.fcs)
			}
			if !f.complete {
				return n, z.structural()
			}
			if f.checksum {
				var ck [4]byte
				if _, err := z.r.ReadAt(ck[:], z.base+f.blocksEnd); err != nil {
					return n, z.fail(zstdChecksumWrong, "zstd frame at payload offset %d: reading checksum: %v", f.start, err)
				}
				if got, want := uint32(z.xxh.Sum64()), binary.LittleEndian.Uint32(ck[:]); got != want {
					return n, z.fail(zstdChecksumWrong, "zstd frame at payload offset %d: checksum %#08x, data has %#08x", f.start, want, got)
				}
			}
			z.cur = nil
			if n > 0 {
				return n, nil
			}
		default:
			return n, z.fail(zstdCorruption, "zstd frame at payload offset %d: %v", f.start, err)
		}
	}
}

// zlibReader decodes one zlib stream, never more than cap bytes, and
// counts the compressed bytes it consumed.
type zlibReader struct {
	src    *countReader
	zr     io.ReadCloser
	member int64
	cap    uint64
	total  uint64
	err    error
}

type countReader struct {
	br *bufio.Reader
	n  int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.br.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countReader) ReadByte() (byte, error) {
	b, err := c.br.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

func newZlibReader(r io.ReaderAt, base, n, member int64, cap uint64) *zlibReader {
	return &zlibReader{src: &countReader{br: bufio.NewReaderSize(io.NewSectionReader(r, base, n), 32<<10)}, member: member, cap: cap}
}

func (z *zlibReader) fail(code, format string, args ...any) error {
	z.err = payloadError(z.member, code, fmt.Sprintf(format, args...))
	return z.err
}

func (z *zlibReader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.zr == nil {
		zr, err := zlib.NewReader(z.src)
		if err != nil {
			return 0, z.fail(zlibDataError, "zlib stream header at payload offset 0: %v", err)
		}
		z.zr = zr
	}
	n, err := z.zr.Read(p)
	z.total += uint64(n)
	if z.total > z.cap {
		// zlib's uncompress() reports an overflow as Z_BUF_ERROR, except
		// into a 0-byte buffer, where it says Z_DATA_ERROR.
		code := zlibBufError
		if z.cap == 0 {
			code = zlibDataError
		}
		return 0, z.fail(code, "data exceeds the header's uncompressed size %d", z.cap)
	}
	switch {
	case err == nil || n > 0 && err == io.EOF:
		if err == io.EOF {
			z.err = io.EOF
		}
		return n, err
	case err == io.EOF:
		z.err = io.EOF
		return 0, io.EOF
	default:
		return n, z.fail(zlibDataError, "zlib stream near payload offset %d: %v", z.src.n, err)
	}
}

// consumed is the number of payload bytes the zlib stream used.
func (z *zlibReader) consumed() int64 { return z.src.n }
