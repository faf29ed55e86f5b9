package binfmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/internal/llvmhash"
	"github.com/goffload/goffload/magic"
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
var ErrTruncatedTable = errors.New("truncated or inconsistent bundle entry table")

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
func ReadTable(r io.ReaderAt, size int64) ([]Entry, error) {
	if !IsBundle(r, size) {
		return nil, nil
	}
	var n uint64
	if v, ok := readU64(r, size, countOff); ok {
		n = v
	} else {
		return nil, nil
	}
	var entries []Entry
	pos := int64(entriesOff)
	for i := uint64(0); i < n; i++ {
		e, next, why, crash := readEntry(r, size, pos)
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
		pos = next
	}
	return entries, nil
}

// readEntry reads the entry at pos. why is set for an entry LLVM stops at
// (or crashes on, when crash is set); an entry LLVM accepts although its
// payload is outside the file comes with Outside set.
func readEntry(r io.ReaderAt, size, pos int64) (e Entry, next int64, why string, crash bool) {
	off, ok1 := readU64(r, size, pos)
	sz, ok2 := readU64(r, size, pos+8)
	idLen, ok3 := readU64(r, size, pos+16)
	if !ok1 || !ok2 || !ok3 {
		return Entry{}, 0, "file ends inside the entry header", false
	}
	idStart := pos + entryFixed
	// LLVM checks idStart + idLen > size in 64 bits: a length that wraps
	// passes, and the check of the offset comes next.
	idWraps := idLen > ^uint64(0)-uint64(idStart)
	if idLen > uint64(size-idStart) && !idWraps {
		return Entry{}, 0, fmt.Sprintf("ID length %d runs past the end of the file (%d bytes)", idLen, size), false
	}
	if off == 0 {
		return Entry{}, 0, "payload offset is 0", false
	}
	// LLVM's check of the payload, offset + size > file size, wraps too.
	if off+sz > uint64(size) {
		return Entry{}, 0, fmt.Sprintf("payload at offset %d with size %d runs past the end of the file (%d bytes)", off, sz, size), false
	}
	if idWraps {
		return Entry{}, 0, fmt.Sprintf("ID length %d runs past the end of the file (%d bytes)", idLen, size), true
	}
	id := make([]byte, idLen)
	if _, err := r.ReadAt(id, idStart); err != nil {
		return Entry{}, 0, "cannot read the ID: " + err.Error(), false
	}
	next = idStart + int64(idLen)
	if off > uint64(size) || sz > uint64(size)-off {
		return Entry{ID: string(id), Outside: fmt.Errorf("payload of '%s' at offset %d with size %d lies outside the file (%d bytes)", id, off, sz, size)}, next, "", false
	}
	return Entry{ID: string(id), Offset: int64(off), Size: int64(sz)}, next, "", false
}

func readU64(r io.ReaderAt, size, pos int64) (uint64, bool) {
	if pos < 0 || pos+8 > size {
		return 0, false
	}
	var b [8]byte
	if _, err := r.ReadAt(b[:], pos); err != nil {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b[:]), true
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
