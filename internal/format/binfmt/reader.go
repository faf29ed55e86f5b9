package binfmt

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/goffload/goffload/fmterr"

	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/llvm/llvmhash"
)

// Entry is one bundle entry: its ID as stored and where its payload is.
type Entry struct {
	ID           string
	Offset, Size int64
	// Outside is set, by ReadTable only, for an entry LLVM 22 accepts
	// although its payload lies outside the file: its offset plus size
	// wraps past 2^64, which LLVM's bounds check does not see. Such an
	// entry can be listed but not extracted (LLVM reads out of bounds);
	// Offset and Size are 0 and Outside says why.
	Outside error
}

// ErrTruncatedTable reports a header whose entry table stops early after at
// least one valid entry. LLVM 22 crashes on such files; we refuse them.
var ErrTruncatedTable = fmterr.Kind("truncated or inconsistent bundle entry table", fmterr.ErrMalformed)

// FormatError reports a bad entry of a bundle's table, in the shape package
// fmterr describes: the entry's Offset in the file, the Field ("entry 3"),
// what is wrong (Msg), wrapping ErrTruncatedTable. LLVM 22 has no message
// for these: it crashes or reads outside the file.
type FormatError struct {
	Offset int64
	Field  string
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%v: %s at offset %d: %s", e.Err, e.Field, e.Offset, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

// IsBundle reports whether the data starting at r begins with the magic.
func IsBundle(r io.ReaderAt, size int64) bool {
	if size < int64(len(magic.BundleMagic)) {
		return false
	}
	var b [len(magic.BundleMagic)]byte
	if _, err := r.ReadAt(b[:], 0); err != nil {
		return false
	}
	return string(b[:]) == magic.BundleMagic
}

// ReadEntries reads the entry table of a binary bundle of the given size.
// It returns no entries (and no error) for data that is not a bundle, for an
// empty table, and when the first entry is already invalid, as LLVM does.
// Entries are in file order and may repeat an ID. Every entry returned has
// its payload inside the data.
//
// An entry is invalid when the file ends inside it, its offset is 0 or its
// payload runs past the end of the data. When that happens after at least
// one valid entry, LLVM 22 crashes; ReadEntries returns an error wrapping
// ErrTruncatedTable that says which entry and why. An entry LLVM 22 accepts
// only because its bounds checks wrap around 2^64 (see ReadTable) is such an
// error too, wherever it is.
func ReadEntries(r io.ReaderAt, size int64) ([]Entry, error) {
	entries, err := ReadTable(r, size)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Outside != nil {
			return nil, e.Outside
		}
	}
	return entries, nil
}

// ReadTable reads the entry table as LLVM 22 reads it, for tools that must
// list what LLVM lists. It differs from ReadEntries where LLVM's bounds
// checks wrap around 2^64:
//
//   - an entry whose offset plus size wraps (a huge offset or size) is
//     accepted, as LLVM accepts it, with Outside set: it can be listed and
//     the other entries extracted, but reading it would read outside the
//     file (LLVM writes memory around its buffer, or fails with "Bad
//     address"), so it cannot be extracted;
//   - an ID length that wraps with a valid offset and size makes LLVM crash
//     (it hashes an ID of nearly 2^64 bytes): an error wrapping
//     ErrTruncatedTable, even for the first entry. With an invalid offset
//     LLVM stops reading there, as for any invalid entry.
//
// ReadTable and Scan read the table with the same decoder (tableReader);
// they differ only in what they accept.
func ReadTable(r io.ReaderAt, size int64) ([]Entry, error) {
	t, ok := newTableReader(io.NewSectionReader(r, 0, size), size)
	if !ok {
		return nil, nil
	}
	n, ok := t.count()
	if !ok {
		return nil, nil
	}
	var entries []Entry
	for i := uint64(0); i < n; i++ {
		pos := t.pos
		e, why, crash := t.llvmEntry()
		if why != "" {
			if len(entries) == 0 && !crash {
				return nil, nil
			}
			return nil, &FormatError{Offset: pos, Field: fmt.Sprintf("entry %d", i), Msg: why, Err: ErrTruncatedTable}
		}
		if e.Outside != nil {
			e.Outside = &FormatError{Offset: pos, Field: fmt.Sprintf("entry %d", i), Msg: e.Outside.Error(), Err: ErrTruncatedTable}
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// tableReader decodes a bundle's header and entry table from a stream
// holding the bundle from its first byte, size bytes in all: the one
// decoder of the layout under ReadTable (LLVM's rules) and Scan
// (lenient).
type tableReader struct {
	br   *bufio.Reader
	size int64
	pos  int64 // offset in the bundle of the next byte
}

// newTableReader reads the magic; false when src does not start with it.
func newTableReader(src io.Reader, size int64) (*tableReader, bool) {
	t := &tableReader{br: bufio.NewReaderSize(src, 4096), size: size}
	var m [len(magic.BundleMagic)]byte
	if size < int64(len(m)) {
		return t, false
	}
	if _, err := io.ReadFull(t.br, m[:]); err != nil || string(m[:]) != magic.BundleMagic {
		return t, false
	}
	t.pos = int64(len(m))
	return t, true
}

// u64 reads the next little-endian 64-bit field; false when the data ends
// inside it.
func (t *tableReader) u64() (uint64, bool) {
	if t.pos+8 > t.size {
		return 0, false
	}
	b, err := t.br.Peek(8) // no copy: a bundle's table is read field by field
	if err != nil {
		return 0, false
	}
	t.br.Discard(8)
	t.pos += 8
	return binary.LittleEndian.Uint64(b), true
}

// count reads the entry count.
func (t *tableReader) count() (uint64, bool) { return t.u64() }

// row reads an entry's offset, size and ID length fields.
func (t *tableReader) row() (off, size, idLen uint64, ok bool) {
	off, ok1 := t.u64()
	size, ok2 := t.u64()
	idLen, ok3 := t.u64()
	return off, size, idLen, ok1 && ok2 && ok3
}

// id reads an ID of n bytes, which the caller checked lie in the data.
func (t *tableReader) id(n uint64) (string, error) {
	if n <= uint64(t.br.Size()) {
		if b, err := t.br.Peek(int(n)); err == nil {
			t.br.Discard(int(n))
			t.pos += int64(n)
			return string(b), nil
		}
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(t.br, b); err != nil {
		return "", err
	}
	t.pos += int64(n)
	return string(b), nil
}

// llvmEntry reads the next entry with LLVM 22's checks. why is set for an
// entry LLVM stops at (or crashes on, when crash is set); an entry LLVM
// accepts although its payload is outside the file comes with Outside set.
func (t *tableReader) llvmEntry() (e Entry, why string, crash bool) {
	size := t.size
	off, sz, idLen, ok := t.row()
	if !ok {
		return Entry{}, "file ends inside the entry header", false
	}
	idStart := t.pos
	// LLVM checks idStart + idLen > size in 64 bits: a length that wraps
	// passes, and the check of the offset comes next.
	idWraps := idLen > ^uint64(0)-uint64(idStart)
	if idLen > uint64(size-idStart) && !idWraps {
		return Entry{}, fmt.Sprintf("ID length %d runs past the end of the file (%d bytes)", idLen, size), false
	}
	if off == 0 {
		return Entry{}, "payload offset is 0", false
	}
	// LLVM's check of the payload, offset + size > file size, wraps too.
	if off+sz > uint64(size) {
		return Entry{}, fmt.Sprintf("payload at offset %d with size %d runs past the end of the file (%d bytes)", off, sz, size), false
	}
	if idWraps {
		return Entry{}, fmt.Sprintf("ID length %d runs past the end of the file (%d bytes)", idLen, size), true
	}
	id, err := t.id(idLen)
	if err != nil {
		return Entry{}, "cannot read the ID: " + err.Error(), false
	}
	if off > uint64(size) || sz > uint64(size)-off {
		return Entry{ID: id, Outside: fmt.Errorf("payload of '%s' at offset %d with size %d lies outside the file (%d bytes)", id, off, sz, size)}, "", false
	}
	return Entry{ID: id, Offset: int64(off), Size: int64(sz)}, "", false
}

// MaxIDLen bounds the ID Scan takes: a longer one is damage, not a target.
const MaxIDLen = 4096

// A Row is one entry of a bundle's table as Scan read it.
type Row struct {
	Index int
	At    int64 // offset of the row (its offset field) in the bundle
	ID    string
	// Offset and Size place the payload in the bundle, as stored.
	Offset, Size uint64
	// Bad is set (a *FormatError) when the payload's place is impossible:
	// outside the data, or inside the header.
	Bad error
}

// Scan reads a bundle's header and entry table from src, a stream holding
// the bundle from its first byte, size bytes in all (a section's contents,
// or a CCOB's inflated size, whose stream cannot be read at offsets): the
// lenient reader, for tools that list what they can. A row whose payload
// lies outside the data comes with Bad set and the rows after it still
// come. The table stops at the first row whose fields cannot be read (cut
// short, an ID length past the data or over MaxIDLen): Scan then returns a
// *FormatError naming that row's field and offset, and no rows, since a
// damaged length makes the fields after it another row's bytes.
func Scan(src io.Reader, size int64) ([]Row, error) {
	t, ok := newTableReader(src, size)
	if !ok {
		return nil, &FormatError{Offset: 0, Field: "magic", Msg: "not a bundle", Err: fmterr.ErrMalformed}
	}
	count, ok := t.count()
	if !ok {
		return nil, &FormatError{Offset: countOff, Field: "entry count", Msg: fmt.Sprintf("the %d-byte data ends inside the header", size), Err: fmterr.ErrTruncated}
	}
	// Every entry takes at least 24 bytes of the table.
	if count > uint64(max(size-entriesOff, 0))/entryFixed {
		return nil, &FormatError{Offset: countOff, Field: "entry count", Msg: fmt.Sprintf("%d entries cannot fit in %d bytes", count, size), Err: fmterr.ErrTruncated}
	}
	var rows []Row
	for i := 0; uint64(i) < count; i++ {
		at := t.pos
		field := fmt.Sprintf("entry %d", i)
		off, sz, idLen, ok := t.row()
		if !ok {
			return nil, &FormatError{Offset: at, Field: field, Msg: "the data ends inside the entry", Err: fmterr.ErrTruncated}
		}
		if idLen > MaxIDLen || idLen > uint64(size-t.pos) {
			return nil, &FormatError{Offset: at + 16, Field: field + " ID length", Msg: fmt.Sprintf("%d bytes (limit %d, %d left in the data)", idLen, MaxIDLen, size-t.pos), Err: fmterr.ErrMalformed}
		}
		id, err := t.id(idLen)
		if err != nil {
			return nil, &FormatError{Offset: at + entryFixed, Field: field + " ID", Msg: "the data ends inside the ID", Err: fmterr.ErrTruncated}
		}
		r := Row{Index: i, At: at, ID: id, Offset: off, Size: sz}
		switch {
		case off > uint64(size) || sz > uint64(size)-off:
			r.Bad = &FormatError{Offset: at, Field: field, Msg: fmt.Sprintf("payload at offset %d with size %d runs past the bundle's %d bytes", off, sz, size), Err: fmterr.ErrTruncated}
		case off < entriesOff && sz > 0:
			r.Bad = &FormatError{Offset: at, Field: field, Msg: fmt.Sprintf("payload offset %d lies inside the bundle header", off), Err: fmterr.ErrMalformed}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// Dedup collapses repeated IDs the way LLVM's StringMap does: an ID keeps
// the position of its first occurrence and takes the offset and size of its
// last one.
func Dedup(entries []Entry) []Entry {
	idx := make(map[string]int, len(entries))
	var out []Entry
	for _, e := range entries {
		if i, ok := idx[e.ID]; ok {
			out[i] = e
			continue
		}
		idx[e.ID] = len(out)
		out = append(out, e)
	}
	return out
}

// Open returns a reader of the entry's payload.
func (e Entry) Open(r io.ReaderAt) *io.SectionReader {
	return io.NewSectionReader(r, e.Offset, e.Size)
}

// VisitOrder returns the entries the way LLVM 22 visits them when listing
// or unbundling: repeated IDs collapsed (Dedup), in StringMap order.
func VisitOrder(entries []Entry) []Entry {
	entries = Dedup(entries)
	byID := make(map[string]Entry, len(entries))
	ids := make([]string, len(entries))
	for i, e := range entries {
		byID[e.ID] = e
		ids[i] = e.ID
	}
	out := make([]Entry, 0, len(entries))
	for _, id := range llvmhash.StringMapOrder(ids) {
		out = append(out, byID[id])
	}
	return out
}
