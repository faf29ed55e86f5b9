package compress

import (
	"encoding/binary"
	"fmt"
	"io"
)

// zstd frame layout (RFC 8878), only what is needed to find frame and
// block boundaries without decoding, and to report errors the way libzstd's
// ZSTD_decompress does.
const (
	zstdMagic          = 0xFD2FB528
	zstdSkippableMask  = 0xFFFFFFF0
	zstdSkippableMagic = 0x184D2A50
	zstdBlockMax       = 128 << 10
	zstdWindowLogMax   = 31 // ZSTD_WINDOWLOG_MAX on 64-bit hosts
	zstdMinFrame       = 6 + 3
	zstdPrefix         = 5 // ZSTD_FRAMEHEADERSIZE_PREFIX

	blockRaw        = 0
	blockRLE        = 1
	blockCompressed = 2
	blockReserved   = 3
)

// A zframe is one frame found by scanZstd. Offsets are relative to the
// start of the scanned region.
type zframe struct {
	start     int64
	skippable bool
	hdrLen    int64
	fhd       byte
	fcs       int64 // -1 when the frame does not record its content size
	window    uint64
	checksum  bool
	// blocksEnd is the end of the last complete block we will feed the
	// decoder; end is the end of the frame (including the checksum) when
	// the frame is complete.
	blocksEnd int64
	end       int64
	complete  bool
	// maxOut bounds the frame's decoded size, from its block headers.
	maxOut uint64
	// oversized lists raw and RLE blocks above 128 KiB (offsets of their
	// headers). libzstd 1.5.4 decodes them; the Go decoder needs them cut.
	oversized []int64
}

// A zscan is the structure of a zstd payload: the frames in order and,
// when the payload is not entirely valid structurally, the error libzstd
// reports once decoding reaches that point (after the last frame listed,
// which may be incomplete).
type zscan struct {
	frames []zframe
	end    int64 // bytes consumed by complete frames
	err    *scanErr
}

type scanErr struct {
	pos    int64
	code   string // libzstd error name
	detail string
}

// scanZstd walks the zstd frames of r[0:n]. With all set, it applies
// ZSTD_decompress's rules: every byte must belong to a frame (skippable
// frames included). Otherwise it reads the run of frames (data or
// skippable, possibly none) that starts at 0 and stops before the first
// bytes that do not start a frame: zero padding, the next "CCOB", the end.
// That is the payload of a v1 CCOB, whose end is not recorded.
func scanZstd(r io.ReaderAt, n int64, all bool) zscan {
	var s zscan
	z := &zscanner{r: r, n: n}
	buf := z.buf[:]
	pos := int64(0)
	fail := func(e *scanErr) zscan {
		s.err = e
		return s
	}
	frames := 0
	for {
		rem := n - pos
		if !all {
			if rem < 4 || !z.read(pos, buf[:4]) {
				return s
			}
			if m := binary.LittleEndian.Uint32(buf[:4]); m != zstdMagic && m&zstdSkippableMask != zstdSkippableMagic {
				return s
			}
		}
		if all && rem < zstdPrefix {
			if rem != 0 {
				return fail(scanFail(pos, zstdSrcSizeWrong, "%d stray bytes after the last zstd frame at payload offset %d", rem, pos))
			}
			return s
		}
		if !all && rem < zstdPrefix {
			return fail(scanFail(pos, zstdSrcSizeWrong, "payload ends at offset %d before a zstd frame", pos))
		}
		if !z.read(pos, buf[:4]) {
			return fail(scanFail(pos, zstdSrcSizeWrong, "cannot read at payload offset %d", pos))
		}
		magic := binary.LittleEndian.Uint32(buf[:4])
		if magic&zstdSkippableMask == zstdSkippableMagic {
			f, err := z.skippableFrame(pos)
			if err != nil {
				return fail(err)
			}
			s.frames = append(s.frames, f)
			pos = f.end
			s.end = pos
			continue
		}
		f, err := z.frameHeader(pos, magic, frames > 0)
		if err != nil {
			return fail(err)
		}
		frames++
		s.frames = append(s.frames, f)
		cur := &s.frames[len(s.frames)-1]
		if err := z.blocks(cur); err != nil {
			return fail(err)
		}
		pos = cur.end
		s.end = pos
	}
}

// zscanner reads the region scanZstd scans, r[0:n], into one buffer.
type zscanner struct {
	r   io.ReaderAt
	n   int64
	buf [18]byte
}

// read fills b from offset at, reporting false when b does not lie within
// the region or cannot be read.
func (z *zscanner) read(at int64, b []byte) bool {
	if at < 0 || at+int64(len(b)) > z.n {
		return false
	}
	_, err := z.r.ReadAt(b, at)
	return err == nil
}

// scanFail is the error libzstd reports for the bytes at at.
func scanFail(at int64, code, format string, args ...any) *scanErr {
	return &scanErr{pos: at, code: code, detail: fmt.Sprintf(format, args...)}
}

// skippableFrame reads the skippable frame at pos.
func (z *zscanner) skippableFrame(pos int64) (zframe, *scanErr) {
	buf := z.buf[:]
	rem := z.n - pos
	if rem < 8 {
		return zframe{}, scanFail(pos, zstdSrcSizeWrong, "skippable frame at payload offset %d truncated", pos)
	}
	z.read(pos+4, buf[4:8])
	size := 8 + int64(binary.LittleEndian.Uint32(buf[4:8]))
	if size > rem {
		return zframe{}, scanFail(pos, zstdSrcSizeWrong, "skippable frame at payload offset %d needs %d bytes, %d left", pos, size, rem)
	}
	return zframe{start: pos, skippable: true, end: pos + size, complete: true}, nil
}

// frameHeader reads the header of the frame at pos, whose first four bytes
// are magic; afterFrame says a data frame came before it.
func (z *zscanner) frameHeader(pos int64, magic uint32, afterFrame bool) (zframe, *scanErr) {
	buf := z.buf[:]
	rem := z.n - pos
	if rem < zstdMinFrame {
		return zframe{}, scanFail(pos, zstdSrcSizeWrong, "%d bytes at payload offset %d are too few for a zstd frame", rem, pos)
	}
	z.read(pos+4, buf[4:5])
	fhd := buf[4]
	single := fhd&0x20 != 0
	fcsID := fhd >> 6
	hl := int64(5 + []int{0, 1, 2, 4}[fhd&3] + []int{0, 2, 4, 8}[fcsID])
	if !single {
		hl++
	}
	if single && fcsID == 0 {
		hl++
	}
	if rem < hl+3 {
		return zframe{}, scanFail(pos, zstdSrcSizeWrong, "zstd frame at payload offset %d truncated in its header", pos)
	}
	if magic != zstdMagic {
		if afterFrame {
			return zframe{}, scanFail(pos, zstdSrcSizeWrong, "bytes after the zstd frame ending at payload offset %d are not a frame (magic %#08x)", pos, magic)
		}
		return zframe{}, scanFail(pos, zstdPrefixUnknown, "no zstd frame at payload offset %d (magic %#08x)", pos, magic)
	}
	if fhd&0x08 != 0 {
		return zframe{}, scanFail(pos, zstdFrameParamUnsup, "zstd frame at payload offset %d sets a reserved header bit", pos)
	}
	z.read(pos, buf[:hl])
	f := zframe{start: pos, hdrLen: hl, fhd: fhd, fcs: -1, checksum: fhd&0x04 != 0}
	p := 5
	if !single {
		wd := buf[p]
		p++
		wlog := uint(wd>>3) + 10
		if wlog > zstdWindowLogMax {
			return zframe{}, scanFail(pos, zstdWindowTooLarge, "zstd frame at payload offset %d asks for a 2^%d window", pos, wlog)
		}
		w := uint64(1) << wlog
		f.window = w + (w/8)*uint64(wd&7)
	}
	var dictID uint32
	switch fhd & 3 {
	case 1:
		dictID = uint32(buf[p])
		p++
	case 2:
		dictID = uint32(binary.LittleEndian.Uint16(buf[p:]))
		p += 2
	case 3:
		dictID = binary.LittleEndian.Uint32(buf[p:])
		p += 4
	}
	switch fcsID {
	case 0:
		if single {
			f.fcs = int64(buf[p])
		}
	case 1:
		f.fcs = int64(binary.LittleEndian.Uint16(buf[p:])) + 256
	case 2:
		f.fcs = int64(binary.LittleEndian.Uint32(buf[p:]))
	case 3:
		v := binary.LittleEndian.Uint64(buf[p:])
		if v > 1<<62 {
			v = 1 << 62 // far beyond anything we accept; keeps int64 arithmetic safe
		}
		f.fcs = int64(v)
	}
	if single {
		f.window = uint64(f.fcs)
	}
	if dictID != 0 {
		return zframe{}, scanFail(pos, zstdDictionaryWrong, "zstd frame at payload offset %d needs dictionary %d", pos, dictID)
	}
	f.blocksEnd = pos + hl
	return f, nil
}

// blocks walks the blocks of frame f, whose header has been read, and its
// checksum, updating f as it goes: on an error f holds the blocks before it.
func (z *zscanner) blocks(f *zframe) *scanErr {
	buf := z.buf[:]
	n := z.n
	bp := f.start + f.hdrLen
	for {
		if n-bp < 3 {
			return scanFail(bp, zstdSrcSizeWrong, "zstd block header at payload offset %d truncated", bp)
		}
		z.read(bp, buf[:3])
		bh := uint32(buf[0]) | uint32(buf[1])<<8 | uint32(buf[2])<<16
		last := bh&1 != 0
		typ := (bh >> 1) & 3
		size := int64(bh >> 3)
		csize := size
		switch typ {
		case blockRLE:
			csize = 1
		case blockReserved:
			return scanFail(bp, zstdCorruption, "zstd block at payload offset %d has the reserved type", bp)
		}
		if csize > n-bp-3 {
			return scanFail(bp, zstdSrcSizeWrong, "zstd block at payload offset %d needs %d bytes, %d left", bp, csize, n-bp-3)
		}
		if typ == blockCompressed && size >= zstdBlockMax {
			return scanFail(bp, zstdSrcSizeWrong, "compressed zstd block at payload offset %d is %d bytes (limit %d)", bp, size, zstdBlockMax-1)
		}
		switch typ {
		case blockCompressed:
			f.maxOut += zstdBlockMax
		default:
			f.maxOut += uint64(size)
			if size > zstdBlockMax {
				f.oversized = append(f.oversized, bp)
			}
		}
		bp += 3 + csize
		f.blocksEnd = bp
		if last {
			break
		}
	}
	if f.checksum {
		if n-bp < 4 {
			return scanFail(bp, zstdChecksumWrong, "zstd frame checksum at payload offset %d truncated", bp)
		}
		bp += 4
	}
	f.end = bp
	f.complete = true
	return nil
}
