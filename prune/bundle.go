package prune

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/format/textfmt"
)

// maxInflated bounds the bundle a CCOB may inflate to for a rewrite: the
// bundle is rebuilt in memory before it is compressed again.
const maxInflated = 1 << 30

// bundleAlign returns the alignment the entries of a bundle were written
// with: the largest power of two up to 4096 that every non-empty payload
// offset is a multiple of.
func bundleAlign(entries []binfmt.Entry) uint64 {
	a := uint64(4096)
	for _, e := range entries {
		if e.Size == 0 {
			continue
		}
		for a > 1 && uint64(e.Offset)%a != 0 {
			a /= 2
		}
	}
	return a
}

// rewriteBinary writes a binary bundle (r[0:n]) with the entries s keeps,
// in their order, aligned as they were. A bundle that loses nothing is
// copied as it was.
func (s *selector) rewriteBinary(w io.Writer, r io.ReaderAt, n int64, where string) error {
	entries, err := binfmt.ReadEntries(r, n)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if len(entries) == 0 {
		return refuse("%s: a bundle with no readable entry", where)
	}
	es := make([]entry, len(entries))
	for i, e := range entries {
		es[i] = s.bundleEntry(e.ID, e.Offset, func() io.Reader { return e.Open(r) })
	}
	actions, err := s.decide(where, es)
	if err != nil {
		return err
	}
	changed := changes(actions)
	var src []binfmt.Source
	for i, e := range entries {
		switch actions[i] {
		case Dropped:
			s.record(where, e.ID, e.Size, 0, actions[i])
			continue
		case Replaced:
			rep := s.opts.Replace
			src = append(src, binfmt.Source{ID: e.ID, R: io.NewSectionReader(rep.Data, 0, rep.Size), Size: rep.Size})
			s.record(where, e.ID, e.Size, rep.Size, actions[i])
			continue
		}
		src = append(src, binfmt.Source{ID: e.ID, R: e.Open(r), Size: e.Size})
		s.record(where, e.ID, e.Size, e.Size, actions[i])
	}
	if !changed {
		_, err := io.Copy(w, io.NewSectionReader(r, 0, n))
		return err
	}
	return binfmt.Write(w, src, bundleAlign(entries))
}

// rewriteCCOB writes the CCOB at r[0:n] again: its bundle rewritten and
// compressed with the same version and method. Only the entry table and
// the kept entries are held in memory: the rest of the data is inflated
// and dropped as it goes by. A CCOB that loses nothing is copied as it was,
// after inflating no more than its entry table.
func (s *selector) rewriteCCOB(w io.Writer, r io.ReaderAt, n int64, where string) (int64, error) {
	defer func(ccob int64) { s.ccob = ccob }(s.ccob)
	s.ccob = s.base
	if s.base < 0 {
		s.ccob = -2 // inside a CCOB, but not one of the input as it is
	}
	cr := compress.NewReader(r, n)
	cr.SkipHash()    // a wrong stored hash is ignored, as LLVM ignores it: no MD5 pass
	defer cr.Close() // a CCOB kept whole is inflated only as far as its table
	m, err := cr.Next()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", where, err)
	}
	if m.UncompressedSize > maxInflated {
		return 0, refuse("%s: the CCOB inflates to %d bytes, more than the %d this rewrite handles", where, m.UncompressedSize, int64(maxInflated))
	}
	defer s.reserve(int64(m.UncompressedSize))()
	src := io.LimitReader(cr, maxInflated+1)
	where = fmt.Sprintf("%s (CCOB v%d %s)", where, m.Version, m.Method)
	usize := int64(m.UncompressedSize)
	head := make([]byte, min(usize, tableWindow))
	k, err := io.ReadFull(src, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return 0, fmt.Errorf("%s: inflating: %w", where, err)
	}
	head = head[:k]
	if magic.Identify(head[:min(len(head), magic.Len)]) != magic.OffloadBundle {
		if textfmt.Sniff(head) {
			// A compressed text bundle (-type=s, ll, ii ...), found as
			// inspect finds one: rewritten whole.
			return s.rewriteCCOBWhole(w, r, n, where, m, head, src, true)
		}
		return 0, refuse("%s: the compressed payload is not a bundle", where)
	}
	entries, err := binfmt.ReadEntries(prefixAt(head), usize)
	if err != nil || len(entries) == 0 || m.PayloadSize < 0 || overlapping(entries) {
		// An entry table past the first MiB, entries that share bytes,
		// or a v1 zlib member (whose end is known only once inflated):
		// the whole bundle is inflated.
		return s.rewriteCCOBWhole(w, r, n, where, m, head, src, false)
	}
	end := m.End()
	es := make([]entry, len(entries))
	for i, e := range entries {
		var open func() io.Reader
		if e.Offset+e.Size <= int64(len(head)) {
			open = func() io.Reader { return bytes.NewReader(head[e.Offset : e.Offset+e.Size]) }
		}
		es[i] = s.bundleEntry(e.ID, e.Offset, open)
	}
	actions, err := s.decide(where, es)
	if err != nil {
		return 0, err
	}
	if !changes(actions) {
		for i, e := range entries {
			s.record(where, e.ID, e.Size, e.Size, actions[i])
		}
		_, err := io.Copy(w, io.NewSectionReader(r, 0, end))
		return end, err
	}
	// The kept entries, in file order, from the table's window and then
	// the stream.
	order := make([]int, 0, len(entries))
	for i := range entries {
		if actions[i] != Dropped && actions[i] != Replaced {
			order = append(order, i)
		}
	}
	sort.Slice(order, func(a, b int) bool { return entries[order[a]].Offset < entries[order[b]].Offset })
	data := make([][]byte, len(entries))
	pos := int64(len(head))
	for _, i := range order {
		e := entries[i]
		var b bytes.Buffer
		if e.Offset < int64(len(head)) {
			b.Write(head[e.Offset:min(e.Offset+e.Size, int64(len(head)))])
		}
		if rest := e.Size - int64(b.Len()); rest > 0 {
			if skip := e.Offset + int64(b.Len()) - pos; skip > 0 {
				if _, err := io.CopyN(io.Discard, src, skip); err != nil {
					return 0, fmt.Errorf("%s: inflating: %w", where, err)
				}
				pos += skip
			}
			if _, err := io.CopyN(&b, src, rest); err != nil {
				return 0, fmt.Errorf("%s: inflating entry %s: %w", where, e.ID, err)
			}
			pos += rest
		}
		data[i] = b.Bytes()
	}
	var sources []binfmt.Source
	for i, e := range entries {
		switch actions[i] {
		case Dropped:
			s.record(where, e.ID, e.Size, 0, actions[i])
		case Replaced:
			rep := s.opts.Replace
			sources = append(sources, binfmt.Source{ID: e.ID, R: io.NewSectionReader(rep.Data, 0, rep.Size), Size: rep.Size})
			s.record(where, e.ID, e.Size, rep.Size, actions[i])
		default:
			sources = append(sources, binfmt.Source{ID: e.ID, R: bytes.NewReader(data[i]), Size: e.Size})
			s.record(where, e.ID, e.Size, e.Size, actions[i])
		}
	}
	var out bytes.Buffer
	if err := binfmt.Write(&out, sources, bundleAlign(entries)); err != nil {
		return 0, err
	}
	return end, s.compressLike(w, out.Bytes(), m, where)
}

// tableWindow is how much of a CCOB's data is inflated to read its entry
// table.
const tableWindow = 1 << 20

// rewriteCCOBWhole is rewriteCCOB holding the whole inflated bundle, of
// which head was read from src already; text says it is a text bundle.
func (s *selector) rewriteCCOBWhole(w io.Writer, r io.ReaderAt, n int64, where string, m *compress.Member, head []byte, src io.Reader, text bool) (int64, error) {
	// The buffer is allocated for the size the header claims only when
	// that is plausible for the payload (real bundles inflate 2-60 times);
	// past that it grows with the data actually inflated.
	var raw bytes.Buffer
	raw.Grow(int(min(m.UncompressedSize, uint64(max(m.PayloadSize, 0))*64+1<<20, maxInflated)))
	raw.Write(head)
	if _, err := raw.ReadFrom(src); err != nil {
		return 0, fmt.Errorf("%s: inflating: %w", where, err)
	}
	if raw.Len() > maxInflated {
		return 0, refuse("%s: the CCOB inflates to more than %d bytes", where, int64(maxInflated))
	}
	end := m.End()
	data := raw.Bytes()
	var out bytes.Buffer
	before := len(s.report.Decisions)
	rewrite := func() error { return s.rewriteBinary(&out, bytes.NewReader(data), int64(len(data)), where) }
	if text {
		rewrite = func() error { return s.rewriteText(&out, data, where, where) }
	}
	if err := rewrite(); err != nil {
		return 0, err
	}
	if !changedSince(s.report.Decisions[before:]) {
		// Nothing dropped: the CCOB is copied as it was.
		_, err := io.Copy(w, io.NewSectionReader(r, 0, end))
		return end, err
	}
	return end, s.compressLike(w, out.Bytes(), m, where)
}

// compressLike compresses a rewritten bundle with the version and method
// of the CCOB it came from, at the chosen level.
func (s *selector) compressLike(w io.Writer, bundle []byte, m *compress.Member, where string) error {
	opt := compress.Options{Version: m.Version, Zlib: m.Method == compress.Zlib, Level: s.opts.Level}
	if opt.Zlib && opt.Level == 0 {
		opt.Level = compress.ZlibDefaultLevel
	}
	if _, err := compress.Compress(w, bundle, opt); err != nil {
		return fmt.Errorf("%s: compressing: %w", where, err)
	}
	return nil
}

// overlapping reports whether two non-empty entries share bytes.
func overlapping(entries []binfmt.Entry) bool {
	e := append([]binfmt.Entry(nil), entries...)
	sort.Slice(e, func(a, b int) bool { return e[a].Offset < e[b].Offset })
	for i := 1; i < len(e); i++ {
		if e[i-1].Size > 0 && e[i].Size > 0 && e[i-1].Offset+e[i-1].Size > e[i].Offset {
			return true
		}
	}
	return false
}

// prefixAt serves the first bytes of a stream as an io.ReaderAt: reads past
// them end early.
type prefixAt []byte

func (p prefixAt) ReadAt(b []byte, off int64) (int, error) {
	if off >= int64(len(p)) {
		return 0, io.EOF
	}
	n := copy(b, p[off:])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// rewriteText rewrites a text bundle held in data, whose entries it reads
// as inspect lists them (textfmt.Scan); an entry whose END marker names
// another, which list reports, is damage here too (as one without an END
// marker is). place is where its entries are, as list places them: ""
// for a text bundle that is the file itself (an archive member's path
// then, "text bundle entry" alone).
func (s *selector) rewriteText(w io.Writer, data []byte, where, place string) error {
	var es []entry
	var payloads [][]byte
	at := "offset" // where a text bundle that is a file (or a member) is
	if place != "" {
		at = "decompressed offset" // in a CCOB, as list says
	}
	comment, err := textfmt.Scan(bytes.NewReader(data), "", func(sp textfmt.Span) error {
		if len(es) == textfmt.MaxHeldEntries {
			return fmt.Errorf("%s %#x: START marker: %w: more than %d entries in a text bundle", at, sp.Start, fmterr.ErrLimit, textfmt.MaxHeldEntries)
		}
		if sp.EndID != sp.ID {
			return fmt.Errorf("%s %#x: END marker: %w: entry %q ends with the END marker of %q",
				at, sp.Offset+sp.Size+1, inspect.ErrMalformed, sp.ID, sp.EndID)
		}
		payload := data[sp.Offset : sp.Offset+sp.Size]
		// At the offset list gives it: replace --index finds it there.
		es = append(es, s.bundleEntry(sp.ID, sp.Offset, func() io.Reader { return bytes.NewReader(payload) }))
		payloads = append(payloads, payload)
		return nil
	})
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", where, err)
	case len(es) == 0:
		return refuse("%s: no text bundle marker", where)
	}
	actions, err := s.decide(where, es)
	if err != nil {
		return err
	}
	record := func(id string, size, newSize int64, action string) {
		if place == "" {
			s.recordIn("text bundle entry", id, size, newSize, action)
		} else {
			s.record(place, id, size, newSize, action)
		}
	}
	var src []textfmt.Source
	for i, e := range es {
		n := int64(len(payloads[i]))
		switch actions[i] {
		case Dropped:
			record(e.id, n, 0, actions[i])
			continue
		case Replaced:
			rep := s.opts.Replace
			src = append(src, textfmt.Source{ID: e.id, R: io.NewSectionReader(rep.Data, 0, rep.Size)})
			record(e.id, n, rep.Size, actions[i])
			continue
		}
		src = append(src, textfmt.Source{ID: e.id, R: bytes.NewReader(payloads[i])})
		record(e.id, n, n, actions[i])
	}
	return textfmt.Write(w, comment, src)
}

// changes reports whether actions drop or replace anything.
func changes(actions []string) bool {
	return slices.ContainsFunc(actions, func(a string) bool { return a == Dropped || a == Replaced })
}

func changedSince(ds []Decision) bool {
	for _, d := range ds {
		if d.Action == Dropped || d.Action == Replaced {
			return true
		}
	}
	return false
}
