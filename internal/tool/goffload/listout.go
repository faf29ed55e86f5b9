package goffloadcmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/targetid"
	"github.com/goffload/goffload/tree"
)

// A sink writes listings as they come: one file after another, and each
// file's objects as the walk hands them on (inspect.Walk), so that no
// listing of a big library is held whole.
type sink interface {
	// object writes o's row, starting l's part of the output first.
	object(l *inspect.Listing, o *inspect.Object) error
	// end ends l's part, starting it when it had no rows. holds says
	// which targets l holds code for (shown when --target left no row).
	end(l *inspect.Listing, holds string) error
	// close writes the summary, unless quiet (nothing could be read: the
	// errors say why, and a table would only read as "no device code").
	close(noCode int, dups []tree.Duplicate, quiet bool) error
}

// A summary counts the code objects written, per target: the same counts
// for the table and the JSON.
type summary struct {
	per     map[string]jsonPerTarg
	objects int
	errors  int
	files   int
}

func (s *summary) add(o *inspect.Object) {
	if o.Host || o.Nested > 0 {
		return
	}
	t := targetOf(o)
	if t == "" {
		t = o.ID
	}
	if t == "" {
		t = "(unknown)"
	}
	if s.per == nil {
		s.per = map[string]jsonPerTarg{}
	}
	a := s.per[t]
	a.CodeObjects++
	a.Bytes += o.Size
	s.per[t] = a
	s.objects++
}

// sinkErr is the error a bufio.Writer has met, if any: a write to a
// closed pipe ends the walk instead of formatting rows nobody reads.
func sinkErr(b *bufio.Writer) error {
	_, err := b.Write(nil)
	return err
}

// tableChunk is how many rows the table holds before it writes them. A
// column is as wide as its widest cell so far: a listing of up to this
// many rows is aligned as one, a longer one widens a column where a later
// row needs it (it never narrows), and memory stays that of one chunk.
const tableChunk = 1024

var tableHeader = []string{"  #", "ID", "SIZE", "OFFSET", "CONTAINER", "CODE"}

// tableSink writes listings for people.
type tableSink struct {
	b      *bufio.Writer
	target *targetid.Target
	sum    summary
	cur    *inspect.Listing
	rows   int // rows of cur, written or held
	held   row // rows not written yet, cells one after another
	width  []int
	header bool // cur's header row is written
}

func newTableSink(w io.Writer, target *targetid.Target) *tableSink {
	return &tableSink{b: bufio.NewWriterSize(w, 64<<10), target: target, width: make([]int, len(tableHeader))}
}

func (t *tableSink) start(l *inspect.Listing) {
	if t.sum.files > 0 {
		t.b.WriteString("\n")
	}
	t.sum.files++
	fmt.Fprintf(t.b, "%s: %s\n", inspect.Escape(l.File), l.Kind)
	t.cur, t.rows, t.header = l, 0, false
	for j, h := range tableHeader {
		t.width[j] = utf8.RuneCountInString(h)
	}
}

func (t *tableSink) object(l *inspect.Listing, o *inspect.Object) error {
	if l != t.cur {
		t.start(l)
	}
	t.sum.add(o)
	objectRow(&t.held, o)
	t.rows++
	if len(t.held.ends) == tableChunk*len(tableHeader) {
		t.writeRows()
		return sinkErr(t.b)
	}
	return nil
}

// writeRows writes the rows held, as text/tabwriter would with padding 2
// (columns as wide as their widest cell in runes, plus two spaces; the
// last column unpadded), after the header row if it is not written yet.
func (t *tableSink) writeRows() {
	cols := len(tableHeader)
	for i := range t.held.ends {
		if j := i % cols; j < cols-1 {
			t.width[j] = max(t.width[j], utf8.RuneCount(t.held.cell(i)))
		}
	}
	cell := func(j int, c []byte) {
		t.b.Write(c)
		if j < cols-1 {
			for k := utf8.RuneCount(c); k < t.width[j]+2; k++ {
				t.b.WriteByte(' ')
			}
		} else {
			t.b.WriteByte('\n')
		}
	}
	if !t.header {
		for j, h := range tableHeader {
			cell(j, []byte(h))
		}
		t.header = true
	}
	for i := range t.held.ends {
		cell(i%cols, t.held.cell(i))
	}
	t.held.b, t.held.ends = t.held.b[:0], t.held.ends[:0]
}

func (t *tableSink) end(l *inspect.Listing, holds string) error {
	if l != t.cur {
		t.start(l)
	}
	switch {
	case t.rows > 0:
		t.writeRows()
	case t.target != nil:
		fmt.Fprintf(t.b, "  no code object for %s (in any mode it may run in); %s\n", t.target, holds)
	case len(l.Errors) > 0:
		t.b.WriteString("  no code object could be read (see the errors below)\n")
	default:
		t.b.WriteString("  no device code found\n")
	}
	var wb strings.Builder
	writeWrappers(&wb, l)
	t.b.WriteString(wb.String())
	t.sum.errors += len(l.Errors)
	t.cur = nil
	return sinkErr(t.b)
}

func (t *tableSink) close(noCode int, dups []tree.Duplicate, quiet bool) error {
	if quiet {
		return t.b.Flush()
	}
	s := t.sum
	targets := make([]string, 0, len(s.per))
	for k := range s.per {
		targets = append(targets, k)
	}
	sort.Strings(targets)
	files := "file"
	if s.files != 1 {
		files = "files"
	}
	fmt.Fprintf(t.b, "\n%d code object(s) for %d target(s) in %d %s", s.objects, len(targets), s.files, files)
	if s.errors > 0 {
		fmt.Fprintf(t.b, "; %d damaged part(s) reported", s.errors)
	}
	t.b.WriteString("\n")
	tw := tabwriter.NewWriter(t.b, 0, 0, 2, ' ', 0)
	for _, k := range targets {
		a := s.per[k]
		fmt.Fprintf(tw, "  %s\t%d object(s)\t%s bytes\n", inspect.Escape(k), a.CodeObjects, sizeString(a.Bytes))
	}
	tw.Flush()
	if noCode >= 0 {
		fmt.Fprintf(t.b, "%d file(s) without device code\n", noCode)
	}
	if dups != nil {
		if err := writeDuplicates(t.b, dups); err != nil {
			return err
		}
	}
	return t.b.Flush()
}

// uriSink writes llvm-readobj --offloading's lines, for the objects that
// lie in their file as they are.
type uriSink struct{ b *bufio.Writer }

func newURISink(w io.Writer) *uriSink { return &uriSink{b: bufio.NewWriterSize(w, 64<<10)} }

func (u *uriSink) object(l *inspect.Listing, o *inspect.Object) error {
	if o.Offset < 0 {
		return nil
	}
	fmt.Fprintf(u.b, "%s\tfile://%s#offset=%d&size=%d\n", inspect.Escape(o.ID), inspect.Escape(l.File), o.Offset, o.Size)
	return sinkErr(u.b)
}

func (u *uriSink) end(*inspect.Listing, string) error { return sinkErr(u.b) }

func (u *uriSink) close(int, []tree.Duplicate, bool) error { return u.b.Flush() }

// jsonSink writes listings as JSON (testdata/goffload-list.schema.json),
// each object as it comes.
type jsonSink struct {
	b   *bufio.Writer
	sum summary
	cur *inspect.Listing
	n   int    // objects of cur written
	buf []byte // an object's JSON, reused
}

func newJSONSink(w io.Writer) *jsonSink {
	j := &jsonSink{b: bufio.NewWriterSize(w, 64<<10)}
	j.b.WriteString("{\n  \"files\": [")
	return j
}

func (j *jsonSink) put(v any, prefix string) {
	data, _ := json.MarshalIndent(v, prefix, "  ")
	j.b.Write(data)
}

func (j *jsonSink) start(l *inspect.Listing) {
	if j.sum.files > 0 {
		j.b.WriteString(",")
	}
	j.sum.files++
	j.b.WriteString("\n    {\n")
	fmt.Fprintf(j.b, "      \"file\": %s,\n      \"kind\": %s,\n", jsonString(l.File), jsonString(l.Kind))
	j.b.WriteString("      \"objects\": [")
	j.cur, j.n = l, 0
}

func (j *jsonSink) object(l *inspect.Listing, o *inspect.Object) error {
	if l != j.cur {
		j.start(l)
	}
	j.sum.add(o)
	if j.n > 0 {
		j.b.WriteString(",")
	}
	j.b.WriteString("\n        ")
	jo := jsonObjectOf(o)
	j.buf = appendJSONObject(j.buf[:0], &jo, "        ")
	j.b.Write(j.buf)
	j.n++
	return sinkErr(j.b)
}

// list writes a file's array of n items, its last field when last.
func (j *jsonSink) list(name string, n int, item func(i int) any, last bool) {
	fmt.Fprintf(j.b, "      %q: [", name)
	for i := range n {
		if i > 0 {
			j.b.WriteString(",")
		}
		j.b.WriteString("\n        ")
		j.put(item(i), "        ")
	}
	if n == 0 {
		j.b.WriteString("]")
	} else {
		j.b.WriteString("\n      ]")
	}
	if !last {
		j.b.WriteString(",")
	}
	j.b.WriteString("\n")
}

func (j *jsonSink) end(l *inspect.Listing, _ string) error {
	if l != j.cur {
		j.start(l)
	}
	if j.n == 0 {
		j.b.WriteString("]")
	} else {
		j.b.WriteString("\n      ]")
	}
	j.b.WriteString(",\n")
	j.list("wrappers", len(l.Wrappers), func(i int) any { return jsonWrapperOf(l.Wrappers[i]) }, false)
	j.list("errors", len(l.Errors), func(i int) any { return jsonErrorOf(l.Errors[i]) }, true)
	j.sum.errors += len(l.Errors)
	j.b.WriteString("    }")
	j.cur = nil
	return sinkErr(j.b)
}

func (j *jsonSink) close(noCode int, dups []tree.Duplicate, _ bool) error {
	if j.sum.files == 0 {
		j.b.WriteString("]")
	} else {
		j.b.WriteString("\n  ]")
	}
	sum := jsonSummary{CodeObjects: j.sum.objects, Errors: j.sum.errors, Targets: map[string]jsonPerTarg{}}
	for k, v := range j.sum.per {
		sum.Targets[k] = v
	}
	if noCode >= 0 {
		sum.NoCode = &noCode
	}
	j.b.WriteString(",\n  \"summary\": ")
	j.put(sum, "  ")
	if dups != nil {
		js := []jsonDuplicate{}
		for _, d := range dups {
			jd := jsonDuplicate{Identical: d.Identical}
			for _, c := range d.Copies {
				jd.Copies = append(jd.Copies, jsonDupCopy(c))
			}
			js = append(js, jd)
		}
		j.b.WriteString(",\n  \"duplicates\": ")
		j.put(js, "  ")
	}
	j.b.WriteString("\n}\n")
	return j.b.Flush()
}
