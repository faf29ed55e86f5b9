package ar

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/goffload/goffload/internal/format/magic"
)

// AIX big archives ("<bigaf>\n", llvm-ar --format=bigarchive): a 128-byte
// fixed-length header of decimal fields, then members chained by offsets.
//
//	fixed header      member header (112 bytes, then the name)
//	  0  8 magic        0  20 size
//	  8 20 member table 20 20 next member's offset
//	 28 20 symtab (32)  40 20 previous member's offset
//	 48 20 symtab (64)  60 12 date, 72 12 uid, 84 12 gid, 96 12 mode (octal)
//	 68 20 first member 108 4 name length
//	 88 20 last member  112    name, padded to even length, then "`\n", data
//	108 20 free list
//
// The symbol tables and the member table are stored as members too, outside
// the chain from the first to the last member.
const (
	magicBig        = magic.BigArchiveMagic
	bigFixedLen     = 128
	bigHeaderLen    = 112
	bigSymtabHeader = bigHeaderLen + 2 // header, empty name, terminator
)

// bigState is the reader's position in a big archive's member chain.
type bigState struct {
	last  int64 // offset of the last member's header
	empty bool  // no first member
	done  bool
	seen  map[int64]bool // member offsets visited: a chain may loop
}

// bigField parses a space-padded decimal field; ok is false for a blank or
// malformed one.
func bigField(b []byte) (int64, bool) {
	s := strings.TrimRight(string(b), " ")
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil && isDecimal(s)
}

func (r *Reader) bigMalformed(off int64, field, llvm string) error {
	return r.malformed(off, field, llvm, llvm)
}

// initBig reads the fixed-length header and checks the symbol tables' extent
// as LLVM 22 does when it opens the archive.
func (r *Reader) initBig() error {
	if r.size < bigFixedLen {
		return r.bigMalformed(0, "header", fmt.Sprintf("malformed AIX big archive: incomplete fixed length header, the archive is only%d byte(s)", r.size))
	}
	var fh [bigFixedLen]byte
	if err := readFull(r.ra, fh[:], 0); err != nil {
		return err
	}
	for _, t := range []struct {
		bits int
		off  int
	}{{32, 28}, {64, 48}} {
		off, ok := bigField(fh[t.off : t.off+20])
		if !ok || off == 0 {
			continue
		}
		if off > r.size-bigSymtabHeader {
			return r.bigMalformed(off, "symbol table", fmt.Sprintf("%d-bit global symbol table header at offset 0x%x and size 0x%x goes past the end of file", t.bits, off, bigSymtabHeader))
		}
		var sz [20]byte
		if err := readFull(r.ra, sz[:], off); err != nil {
			return err
		}
		n, ok := bigField(sz[:])
		if !ok {
			return r.bigMalformed(off, "symbol table", fmt.Sprintf("%d-bit global symbol table size %q is not a number", t.bits, strings.TrimRight(string(sz[:]), " ")))
		}
		if start := off + bigSymtabHeader; n > r.size-start {
			return r.bigMalformed(start, "symbol table", fmt.Sprintf("%d-bit global symbol table content at offset 0x%x and size 0x%x goes past the end of file", t.bits, start, n))
		}
	}
	first, ok := bigField(fh[68:88])
	if !ok || first == 0 {
		r.big.empty, r.big.done = true, true
		r.firstRegular, r.next = r.size, r.size
		return nil
	}
	if first > r.size-bigHeaderLen {
		return r.bigMalformed(first, "header", "malformed AIX big archive: remaining buffer is unable to contain next archive member")
	}
	r.big.last, _ = bigField(fh[88:108])
	r.firstRegular, r.next = first, first
	return nil
}

// nextBig returns the member at r.next and moves along the chain: to the
// next member's offset, whatever it is, unless this was the last member.
func (r *Reader) nextBig() (*Member, error) {
	if r.big.done {
		return nil, io.EOF
	}
	off := r.next
	if r.big.seen[off] {
		// LLVM 22 loops forever here.
		return nil, r.bigMalformed(off, "next member", fmt.Sprintf("malformed AIX big archive: the member chain comes back to the member at offset %d", off))
	}
	if r.big.seen == nil {
		r.big.seen = map[int64]bool{}
	}
	r.big.seen[off] = true
	var h [bigHeaderLen]byte
	n, _ := r.ra.ReadAt(h[:], off)
	if int64(n) > r.size-off {
		n = int(max(0, r.size-off))
	}
	if n < bigHeaderLen {
		return nil, r.bigMalformed(off, "header", "malformed AIX big archive: remaining buffer is unable to contain next archive member")
	}
	size, ok := bigField(h[0:20])
	if !ok {
		return nil, r.bigMalformed(off, "size", fmt.Sprintf("characters in size field in archive member header are not all decimal numbers: '%s' for the archive member header at offset %d", strings.TrimRight(string(h[0:20]), " "), off))
	}
	nameLen, ok := bigField(h[108:112])
	if !ok {
		return nil, r.bigMalformed(off, "name", fmt.Sprintf("characters in NameLen field in archive member header are not all decimal numbers: '%s' for the archive member header at offset %d", strings.TrimRight(string(h[108:112]), " "), off))
	}
	term := off + bigHeaderLen + nameLen + nameLen&1
	var t [2]byte
	if term > r.size-2 || readFull(r.ra, t[:], term) != nil || string(t[:]) != terminator {
		return nil, r.bigMalformed(term, "terminator", fmt.Sprintf("name does not have name terminator \"`\\n\" for archive memberheader at offset %d", term))
	}
	name := make([]byte, nameLen)
	if err := readFull(r.ra, name, off+bigHeaderLen); err != nil {
		return nil, err
	}
	data := term + 2
	if size > r.size-data {
		// LLVM 22 reads past the end of the file here.
		return nil, r.malformed(off, "size", fmt.Sprintf("member %q of %d bytes at offset %d runs past the end of the archive (%d bytes)", name, size, data, r.size),
			"offset to next archive member past the end of the archive after member "+string(name))
	}
	m := &Member{r: r, Header: Header{
		Name:         string(name),
		Size:         size,
		HeaderOffset: off,
		Offset:       data,
	}}
	m.Date, _ = bigField(h[60:72])
	uid, _ := bigField(h[72:84])
	gid, _ := bigField(h[84:96])
	m.UID, m.GID = int(uid), int(gid)
	m.Mode = uint32(parseNum(h[96:108], 8))
	if off == r.big.last {
		r.big.done = true
		return m, nil
	}
	next, ok := bigField(h[20:40])
	if !ok {
		r.big.done = true
		r.err = r.bigMalformed(off+20, "next member", fmt.Sprintf("characters in NextOffset field in archive member header are not all decimal numbers: '%s' for the archive member header at offset %d", strings.TrimRight(string(h[20:40]), " "), off))
		return m, nil
	}
	if next > r.size {
		r.big.done = true
		msg := "offset to next archive member past the end of the archive after member " + string(name)
		r.err = r.malformed(off+20, "next member", msg, msg)
		return m, nil
	}
	r.next = next
	return m, nil
}
