package inspect

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/magic"
)

const (
	startTag = " " + magic.BundleMagic + "__START__ "
	endTag   = " " + magic.BundleMagic + "__END__ "
)

// walkText lists a text bundle (.s, .ll, .hipi, ...): entries between
// "<comment> __CLANG_OFFLOAD_BUNDLE____START__ <id>" and the matching END
// line. It reads line by line, so memory does not grow with the file.
func (w *walker) walkText(r io.ReaderAt, size int64, p place) {
	br := bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10)
	var (
		pos       int64 // offset of the line being read
		lineStart = true
		open      bool // inside an entry
		id        string
		comment   []byte
		startOff  int64 // payload start
		startLine int64
	)
	for {
		line, err := br.ReadSlice('\n')
		whole := lineStart
		lineStart = err == nil
		if whole && len(line) > 0 {
			body := bytes.TrimRight(line, "\r\n")
			switch {
			case !open:
				if i := bytes.Index(body, []byte(startTag)); i > 0 && err != bufio.ErrBufferFull {
					open, comment, id = true, append([]byte(nil), body[:i]...), string(body[i+len(startTag):])
					startLine, startOff = pos, pos+int64(len(line))
				}
			default:
				if bytes.HasPrefix(body, comment) && bytes.HasPrefix(body[len(comment):], []byte(endTag)) {
					end := pos - 1 // the newline before the END line belongs to the marker
					if end < startOff {
						end = startOff
					}
					o := entryObject(id, "text bundle entry")
					w.leaf(o, r, startOff, end-startOff, p)
					if got := string(body[len(comment)+len(endTag):]); got != id {
						w.fail(p, pos, "END marker", fmt.Errorf("%w: entry %q ends with the END marker of %q", ErrMalformed, id, got))
					}
					open = false
				}
			}
		}
		pos += int64(len(line))
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				w.fail(p, pos, "text", err)
			}
			break
		}
	}
	if open {
		w.fail(p, startLine, fmt.Sprintf("entry %q", id), fmt.Errorf("%w: no END marker before the end of the file", ErrTruncated))
	}
}
