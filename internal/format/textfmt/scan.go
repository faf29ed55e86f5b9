package textfmt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/fmterr"
)

// A Span is one entry of a text bundle as Scan found it.
type Span struct {
	ID string
	// Start is the offset of the START marker (its leading newline).
	Start int64
	// Offset and Size place the payload: from the byte after the START
	// line up to the newline that begins the END marker.
	Offset, Size int64
	// EndID is the ID the END marker names. LLVM ends a payload at the
	// next END marker whatever its ID; one that differs from ID is damage
	// a lister may report.
	EndID string
}

// MaxIDLen bounds the ID of a START line Scan takes.
const MaxIDLen = 4096

// MaxHeldEntries bounds the entries goffload's readers hold of one text
// bundle (inspect inside compressed data, where a few kilobytes inflate
// to millions of empty entries; prune, which holds every entry it
// rewrites): real text bundles hold one per target. The drop-in bundler,
// as LLVM's, takes any number.
const MaxHeldEntries = 1 << 16

// Scan reads the entries of a text bundle from src as LLVM 22's bundler
// lists them, streaming, so that memory does not grow with the file: a
// START marker is "\n" C " __CLANG_OFFLOAD_BUNDLE____START__ " ID "\n";
// the payload ends at the next "\n" C " __CLANG_OFFLOAD_BUNDLE____END__ "
// (whatever ID follows), and the search for the next START resumes after
// that END line. With comment "" the comment is the one of the first START
// marker of "//", "#" or ";" (Detect's rule); Scan returns the comment
// used. It calls fn for each entry in file order. An entry without an END
// marker, or a START line whose ID is longer than MaxIDLen (where Reader,
// holding the file in memory, takes any length), is a *FormatError (the
// entries before it have been given to fn).
//
// Reader (in memory) and Scan give the same entries; a test holds them to
// it.
func Scan(src io.Reader, comment string, fn func(Span) error) (string, error) {
	br := bufio.NewReaderSize(src, 64<<10)
	var (
		pos       int64 // offset of the line being read
		from      int64 // a marker's leading newline must lie at or after this
		lineStart = true
		open      bool
		inID      bool // a START line's ID continues past the buffer
		cur       Span
		idBuf     []byte
	)
	// startPayload ends a START line whose ID is in idBuf; end is the
	// offset after its newline.
	startPayload := func(end int64) {
		cur.ID = string(bytes.TrimSuffix(idBuf, []byte("\n")))
		cur.Offset = end
		open, inID = true, false
	}
	for {
		line, err := br.ReadSlice('\n')
		atStart := lineStart
		lineStart = err == nil
		switch {
		case inID:
			// The rest of a long START line: more ID.
			idBuf = append(idBuf, line...)
			if len(idBuf) > MaxIDLen+1 {
				return comment, &FormatError{Offset: cur.Start, Field: "START marker", Msg: fmt.Sprintf("ID longer than %d bytes", MaxIDLen), Err: fmterr.ErrLimit}
			}
			if err == nil {
				startPayload(pos + int64(len(line)))
			}
		case atStart && !open && pos > from:
			if c, rest, ok := startOf(line, comment); ok {
				comment = c
				cur = Span{Start: pos - 1}
				idBuf = append(idBuf[:0], rest...)
				if len(bytes.TrimSuffix(idBuf, []byte("\n"))) > MaxIDLen {
					return comment, &FormatError{Offset: cur.Start, Field: "START marker", Msg: fmt.Sprintf("ID longer than %d bytes", MaxIDLen), Err: fmterr.ErrLimit}
				}
				switch err {
				case nil:
					startPayload(pos + int64(len(line)))
				case bufio.ErrBufferFull:
					inID = true
				}
			}
		case atStart && open && pos > cur.Offset:
			if rest, ok := bytes.CutPrefix(line, []byte(endMarker(comment)[1:])); ok {
				cur.Size = pos - 1 - cur.Offset
				cur.EndID = string(bytes.TrimSuffix(rest, []byte("\n")))
				// The END line is skipped whole, however long.
				for err == bufio.ErrBufferFull {
					pos += int64(len(line))
					line, err = br.ReadSlice('\n')
				}
				lineStart = err == nil
				open = false
				from = pos + int64(len(line))
				if ferr := fn(cur); ferr != nil {
					return comment, ferr
				}
			}
		}
		pos += int64(len(line))
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return comment, err
			}
			break
		}
	}
	if open {
		return comment, &FormatError{Offset: cur.Offset, Field: "END marker", Msg: fmt.Sprintf("bundle entry %q starting at offset %d has no END marker", cur.ID, cur.Offset), Err: ErrNoEnd}
	}
	return comment, nil
}

// startOf reports whether line is a START line (without its leading
// newline) for comment, or for any of the comments when comment is "",
// and returns the comment and the rest of the line (the ID and newline).
func startOf(line []byte, comment string) (string, []byte, bool) {
	if comment != "" {
		rest, ok := bytes.CutPrefix(line, []byte(startMarker(comment)[1:]))
		return comment, rest, ok
	}
	for _, c := range comments {
		if rest, ok := bytes.CutPrefix(line, []byte(startMarker(c)[1:])); ok {
			return c, rest, true
		}
	}
	return "", nil, false
}
