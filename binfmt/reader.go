package binfmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/internal/llvmhash"
)

// Entry is one bundle entry: its ID as stored and where its payload is.
type Entry struct {
	ID           string
	Offset, Size int64
}

// ErrTruncatedTable reports a header whose entry table stops early after at
// least one valid entry. LLVM 22 crashes on such files; we refuse them.
var ErrTruncatedTable = errors.New("truncated or inconsistent bundle entry table")

// IsBundle reports whether the data starting at r begins with the magic.
func IsBundle(r io.ReaderAt, size int64) bool {
	if size < int64(len(Magic)) {
		return false
	}
	var b [len(Magic)]byte
	if _, err := r.ReadAt(b[:], 0); err != nil {
		return false
	}
	return string(b[:]) == Magic
}

// ReadEntries reads the entry table of a binary bundle of the given size.
// It returns no entries (and no error) for data that is not a bundle, for an
// empty table, and when the first entry is already invalid, as LLVM does.
// Entries are in file order and may repeat an ID.
//
// An entry is invalid when the file ends inside it, its offset is 0 or its
// payload runs past the end of the data. When that happens after at least
// one valid entry, LLVM 22 crashes; ReadEntries returns an error wrapping
// ErrTruncatedTable that says which entry and why.
func ReadEntries(r io.ReaderAt, size int64) ([]Entry, error) {
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
		e, next, why := readEntry(r, size, pos)
		if why != "" {
			if len(entries) == 0 {
				return nil, nil
			}
			return nil, fmt.Errorf("%w: entry %d at offset %d: %s", ErrTruncatedTable, i, pos, why)
		}
		entries = append(entries, e)
		pos = next
	}
	return entries, nil
}

func readEntry(r io.ReaderAt, size, pos int64) (Entry, int64, string) {
	off, ok1 := readU64(r, size, pos)
	sz, ok2 := readU64(r, size, pos+8)
	idLen, ok3 := readU64(r, size, pos+16)
	if !ok1 || !ok2 || !ok3 {
		return Entry{}, 0, "file ends inside the entry header"
	}
	idStart := pos + entryFixed
	if idLen > uint64(size-idStart) {
		return Entry{}, 0, fmt.Sprintf("ID length %d runs past the end of the file (%d bytes)", idLen, size)
	}
	if off == 0 {
		return Entry{}, 0, "payload offset is 0"
	}
	if off > uint64(size) || sz > uint64(size)-off {
		return Entry{}, 0, fmt.Sprintf("payload at offset %d with size %d runs past the end of the file (%d bytes)", off, sz, size)
	}
	id := make([]byte, idLen)
	if _, err := r.ReadAt(id, idStart); err != nil {
		return Entry{}, 0, "cannot read the ID: " + err.Error()
	}
	return Entry{ID: string(id), Offset: int64(off), Size: int64(sz)}, idStart + int64(idLen), ""
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
