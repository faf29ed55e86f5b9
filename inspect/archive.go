package inspect

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/goffload/goffload/internal/format/ar"
)

// maxMembers bounds how many archive members one walk visits.
const maxMembers = 1 << 20

// walkArchive lists every member of an archive (GNU, BSD, thin or AIX
// big), recursively. A damaged member header ends the walk of that archive
// (nothing after it can be located); a damaged member does not.
func (w *walker) walkArchive(r io.ReaderAt, size int64, p place) {
	// Thin members are read only below the archive's folder: a name
	// with ".." or an absolute one is damage, not a file to open.
	a, err := ar.NewReader(r, size, w.archivePath(p), ar.RejectEscapingPaths())
	if err != nil {
		w.failArchive(p, 0, "archive header", err)
		return
	}
	// A thin archive's members are files of their own, which the
	// objects' readers read until the listing is closed.
	w.closers = append(w.closers, a)
	for i := 0; w.stop == nil; i++ {
		if i >= maxMembers {
			w.fail(p, 0, "members", fmt.Errorf("%w: more than %d members", ErrLimit, maxMembers))
			return
		}
		m, err := a.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			var fe *ar.FormatError
			off := int64(0)
			if errors.As(err, &fe) {
				off = fe.Offset
			}
			w.failArchive(p, off, fmt.Sprintf("member %d header", i), err)
			return
		}
		step := "member " + m.Name
		if thin := m.Path(); thin != "" {
			// A thin member names a file elsewhere: read it only if it is
			// a regular file (a FIFO or a device could block or never end).
			fi, err := os.Stat(thin)
			if err == nil && !fi.Mode().IsRegular() {
				err = fmt.Errorf("%w: thin member %s is not a regular file (%s)", ErrMalformed, thin, fi.Mode().Type())
			}
			if err != nil {
				w.failArchive(p, m.HeaderOffset, step, err)
				continue
			}
		}
		sr, err := m.Open()
		if err != nil {
			w.failArchive(p, m.HeaderOffset, step, err)
			continue
		}
		q := p.sub(m.Offset, step)
		if m.Path() != "" {
			// A thin member's bytes are in a file of their own.
			q.base = -1
			q.volatile = true
			q.path[len(q.path)-1] = fmt.Sprintf("member %s (thin: %s)", m.Name, m.Path())
		}
		q = q.wholeFile()
		n := sr.Size()
		w.walk(sr, n, q, identifyAt(sr, 0, n))
	}
}

// archivePath is the name thin members are resolved against: the input
// file's name for a top-level archive.
func (w *walker) archivePath(p place) string {
	if len(p.path) == 0 {
		return w.l.File
	}
	return ""
}

// failArchive reports an archive error at the offset package ar names,
// with its field after ours ("member 1 header: size"), said once; else at
// off and field.
func (w *walker) failArchive(p place, off int64, field string, err error) {
	var fe *ar.FormatError
	if errors.As(err, &fe) {
		if fe.Field != "" {
			field += ": " + fe.Field
		}
		w.fail(p, fe.Offset, field, &bareError{fe.Msg, err})
		return
	}
	w.fail(p, off, field, err)
}
