package inspect

import (
	"bytes"
	"fmt"
	"github.com/goffload/goffload/internal/format/kpak"
	"github.com/goffload/goffload/internal/parallel"
	"github.com/goffload/goffload/internal/readerat"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/format/textfmt"
)

// A Listing is what a file holds: its code objects, the HIP fat-binary
// wrappers that point at them, and the problems met on the way.
type Listing struct {
	File string
	// Kind says what the file itself is ("ELF shared object", "archive",
	// "offload bundle", ...).
	Kind string
	// Objects are the code objects and host entries found, in file order.
	Objects []*Object
	// Wrappers are the .hipFatBinSegment entries of a HIP program.
	Wrappers []Wrapper
	// Errors are the damaged parts met; the objects found around them are
	// still listed.
	Errors []*Error

	closer io.Closer
	temps  []*os.File
	// closers are released with the listing (archive readers whose thin
	// members' files the objects read).
	closers []io.Closer
}

// Close releases the file opened by ReadFile and the temporary files of
// inflated zip members (Read makes those too: close its listings as well).
func (l *Listing) Close() error {
	for _, c := range l.closers {
		c.Close()
	}
	l.closers = nil
	for _, f := range l.temps {
		f.Close()
	}
	l.temps = nil
	if l.closer == nil {
		return nil
	}
	err := l.closer.Close()
	l.closer = nil
	return err
}

// Devices returns the objects that are not host entries, nor images that
// only hold other objects (Object.Nested).
func (l *Listing) Devices() []*Object {
	var out []*Object
	for _, o := range l.Objects {
		if !o.Host && o.Nested == 0 {
			out = append(out, o)
		}
	}
	return out
}

// Options tune a walk. The zero value is what goffload list does.
type Options struct {
	// SkipHeaders leaves Object.Code nil: no code object header is read
	// (listing then touches only container headers).
	SkipHeaders bool
	// MaxDepth bounds container nesting (default 16).
	MaxDepth int
}

// ReadFile walks the named file. The error is for a file that cannot be
// opened or read at all; damage inside it is in Listing.Errors. Close the
// listing when done with its objects' Open.
func ReadFile(name string, opts *Options) (*Listing, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file (%s); listing needs random access", name, fi.Mode().Type())
	}
	l := Read(f, fi.Size(), name, opts)
	l.closer = f
	return l, nil
}

// Read walks the size bytes of r, naming them name in paths and errors.
func Read(r io.ReaderAt, size int64, name string, opts *Options) *Listing {
	var objs []*Object
	l, _ := Walk(r, size, name, opts, func(_ *Listing, o *Object) error {
		objs = append(objs, o)
		return nil
	})
	l.Objects = objs
	return l
}

// Walk walks the size bytes of r as Read does, but hands each object to fn
// as soon as its facts are read, in file order, and keeps none: memory
// does not grow with the number of objects (at most two batches of
// headerBatch objects are held). The Listing fn is given, and Walk
// returns, is the file's: its Kind is set before the first object, and its
// Wrappers and Errors are complete when Walk returns; it has no Objects.
// Close it when done with the objects. An error from fn ends the walk and
// is returned.
func Walk(r io.ReaderAt, size int64, name string, opts *Options, fn func(*Listing, *Object) error) (*Listing, error) {
	w := &walker{l: &Listing{File: name}, file: r, size: size, bundleStarts: map[bundleKey]int{}, inflated: map[*Compression][]inflatedObject{}, emit: fn}
	if opts != nil {
		w.opts = *opts
	}
	if w.opts.MaxDepth <= 0 {
		w.opts.MaxDepth = 16
	}
	if f, ok := r.(*os.File); ok {
		w.fc = &fileCopier{f: f}
	}
	k, err := magic.IdentifyReader(r, size)
	if err != nil {
		w.fail(place{}, 0, "file", err)
		return w.l, nil
	}
	w.l.Kind = w.describe(r, size, k)
	w.walk(r, size, place{}.wholeFile(), k)
	w.flush()
	w.handOn()
	w.l.temps = w.temps
	w.l.closers = w.closers
	return w.l, w.stop
}

// headerBatch is how many objects the walk holds before their facts are
// read, on every CPU, while it goes on: walking a library's containers
// and reading its code objects' headers overlap (each took about half of
// listing 20,000 code objects one after the other).
const headerBatch = 1024

// A batch is objects whose facts are being read; done is closed when they
// all are.
type batch struct {
	objs []*Object
	done chan struct{}
}

// flush starts reading the facts of the objects added since the last
// flush, and hands on the previous batch once its facts are read.
func (w *walker) flush() {
	if len(w.pending) == 0 {
		return
	}
	b := &batch{objs: w.pending, done: make(chan struct{})}
	headers, inflated := w.headers, w.inflated
	w.pending, w.headers, w.inflated = nil, nil, map[*Compression][]inflatedObject{}
	go func() {
		defer close(b.done)
		readHeaders(w.file, headers)
		compressedHeaders(inflated)
	}()
	w.handOn()
	w.reading = b
}

// handOn waits for the batch being read and hands its objects to emit.
func (w *walker) handOn() {
	b := w.reading
	if b == nil {
		return
	}
	w.reading = nil
	<-b.done
	for _, o := range b.objs {
		if w.stop != nil {
			return
		}
		if o.Offset >= 0 {
			o.file = w.fc
		}
		w.stop = w.emit(w.l, o)
	}
}

// readHeaders reads at once, in a window of at most readWindow bytes,
// neighbouring objects of at most smallObject bytes (which ReadCodeObject
// reads whole anyway) at most maxGap bytes apart: no byte more than
// reading them one by one, bar the padding between them.
const (
	readWindow  = 1 << 20
	smallObject = 16 << 10
	maxGap      = 4 << 10
)

// windows hold the bytes readHeaders reads, one per worker at a time.
var windows = sync.Pool{New: func() any { b := make([]byte, readWindow); return &b }}

// readHeaders reads the objects' own headers on every CPU: listing a
// library of thousands of code objects spends its time there, in reads.
// Small objects whose bytes are the walked file's own and lie side by side
// (a bundle's code objects do) are read in windows of up to 1 MiB: one
// read for a window instead of one per object.
func readHeaders(file io.ReaderAt, objs []*Object) {
	type span struct {
		o   *Object
		off int64 // in file
	}
	var spans []span
	var direct []*Object
	for _, o := range objs {
		if fo, ok := readerat.OffsetIn(o.hdrR, file); ok && o.Size <= smallObject {
			spans = append(spans, span{o, fo + o.hdrOff})
		} else {
			direct = append(direct, o)
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].off < spans[j].off })
	var groups [][]span
	for i := 0; i < len(spans); {
		j, start, end := i+1, spans[i].off, spans[i].off+spans[i].o.Size
		for j < len(spans) && spans[j].off >= end && spans[j].off-end <= maxGap && spans[j].off+spans[j].o.Size-start <= readWindow {
			end = spans[j].off + spans[j].o.Size
			j++
		}
		groups = append(groups, spans[i:j])
		i = j
	}
	parallel.For(len(groups)+len(direct), 0, func(i int) {
		if i >= len(groups) {
			direct[i-len(groups)].Header()
			return
		}
		g := groups[i]
		start := g[0].off
		end := start
		for _, s := range g {
			end = max(end, s.off+s.o.Size)
		}
		bp := windows.Get().(*[]byte)
		defer windows.Put(bp)
		buf := (*bp)[:end-start]
		if n, err := file.ReadAt(buf, start); n < len(buf) && err != nil {
			for _, s := range g {
				s.o.Header() // read each alone, as before: its own error
			}
			return
		}
		for _, s := range g {
			if s.o.Code == nil {
				b := buf[s.off-start : s.off-start+s.o.Size]
				s.o.setCode(ReadCodeObject(bytes.NewReader(b), s.o.Size))
			}
		}
	})
}

// An inflatedObject is an object inside compressed data: open gives the
// container's decompressed bytes from the start; the object is
// [off, off+size) of them.
type inflatedObject struct {
	o         *Object
	open      func() (io.Reader, error)
	off, size int64
}

// maxFactsInMemory bounds an object inside compressed data read whole to
// find its facts; of a larger one only the ELF header is read (no kernel
// count).
const maxFactsInMemory = 8 << 20

// factBufs hold the objects factsOf reads whole, one per worker at a time.
var factBufs = sync.Pool{New: func() any { return new([]byte) }}

// compressedHeaders reads the facts of objects inside compressed
// containers: each container is decompressed once, as far as its last
// object, containers in parallel on every CPU.
//
// The largest containers go first: the CPUs end together (a library's two
// 93 MB bundles last would leave one CPU idle), and each CPU's decoder
// takes the largest window it needs at once instead of growing to it
// through discarded smaller ones (listing rocSPARSE's 111 bundles as CCOBs
// peaked at 300-430 MB that way, the windows themselves being 2 x 96 MiB).
func compressedHeaders(groups map[*Compression][]inflatedObject) {
	var all [][]inflatedObject
	for _, g := range groups {
		sort.Slice(g, func(i, j int) bool { return g[i].off < g[j].off })
		all = append(all, g)
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i][len(all[i])-1], all[j][len(all[j])-1]
		if a.off+a.size != b.off+b.size {
			return a.off+a.size > b.off+b.size // as far as the decoding goes
		}
		return all[i][0].o.Index < all[j][0].o.Index
	})
	parallel.For(len(all), 0, func(i int) { factsOf(all[i]) })
}

// factsOf reads the facts of one container's objects, sorted by offset.
func factsOf(g []inflatedObject) {
	src, err := g[0].open()
	if err != nil {
		return
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close() // its decoder serves the next container
	}
	pos := int64(0)
	// One buffer per CPU, reused from container to container: memory stays
	// at the largest object read whole, and no object's bytes are cleared
	// before they are written (a fresh buffer for every object cost a
	// seventh of the CPU time).
	bp := factBufs.Get().(*[]byte)
	defer factBufs.Put(bp)
	buf := *bp
	defer func() { *bp = buf[:0] }()
	for _, x := range g {
		if x.off < pos {
			continue // overlapping entries: left without facts
		}
		if _, err := io.CopyN(io.Discard, src, x.off-pos); err != nil {
			return
		}
		pos = x.off
		n := min(x.size, maxFactsInMemory)
		if int64(cap(buf)) < n {
			buf = make([]byte, n+n/8) // room for its slightly larger neighbours
		}
		buf = buf[:n]
		k, _ := io.ReadFull(src, buf)
		pos += int64(k)
		buf = buf[:k]
		var c *CodeObject
		if int64(k) == x.size {
			c = ReadCodeObject(bytes.NewReader(buf), x.size)
		} else {
			c = ReadCodeObject(bytes.NewReader(buf[:min(k, 4096)]), int64(min(k, 4096)))
			c.Kernels = -1
		}
		x.o.Code = c
		if x.o.TargetID == "" {
			x.o.TargetID = c.TargetID()
		}
	}
}

// place is where the walker is: the containers above it, and how the
// current reader's bytes map to the file.
type place struct {
	path []string
	// base is the file offset of the current reader's byte 0, or -1 when
	// the reader holds decompressed data.
	base  int64
	depth int
	// whole is set when the current reader is a whole file (the input
	// or an archive member), which may itself be a code object.
	whole bool
	// file names the innermost whole file (its path), and rel is the
	// current reader's byte 0 in it: where a bundle lies for that file's
	// own section headers, whether the file is the input, an archive
	// member or an inflated zip member.
	file string
	rel  int64
	// volatile is set where the reader is closed once the walk leaves it
	// (a thin archive's member files): headers are read at once there.
	volatile bool
	// comp is the compressed container above, with open, a way to get its
	// decompressed bytes from the start.
	comp *Compression
	open func() (io.Reader, error)
}

func (p place) child(step string) place {
	q := p
	q.path = append(append([]string(nil), p.path...), step)
	q.depth++
	q.whole = false
	return q
}

// at returns the file offset of offset off of the current reader, or -1.
func (p place) at(off int64) int64 {
	if p.base < 0 {
		return -1
	}
	return p.base + off
}

// sub returns the place of a part of the current reader starting at off.
func (p place) sub(off int64, step string) place {
	q := p.child(step)
	if p.base >= 0 {
		q.base = p.base + off
	}
	q.rel = p.rel + off
	return q
}

// wholeFile marks q as the place of a whole file of its own.
func (q place) wholeFile() place {
	q.whole = true
	q.file = strings.Join(q.path, "\x00")
	q.rel = 0
	return q
}

// A bundleKey is where a bundle starts: in which whole file, at which
// offset of it.
type bundleKey struct {
	file string
	off  int64
}

type walker struct {
	closers []io.Closer
	// zipInflated counts the bytes zip members were inflated to, and
	// textInflated those the compressed text bundles were scanned through.
	zipInflated, textInflated int64
	// inflated lists, per compressed container, the objects whose facts
	// are read by decompressing it once after the walk.
	inflated map[*Compression][]inflatedObject
	// pending are the objects added since the last flush, headers those
	// of them whose headers are to be read; reading is the batch whose
	// facts are being read, handed on to emit at the next flush. hold is
	// non-zero while a nested walk may still change pending objects.
	pending []*Object
	headers []*Object
	reading *batch
	hold    int
	emit    func(*Listing, *Object) error
	stop    error // from emit: the walk ends
	count   int   // objects added
	fc      *fileCopier
	// temps are the files inflated zip members were written to, closed
	// with the listing.
	temps []*os.File
	// bundleStarts maps where every bundle met starts to its number
	// within its section.
	bundleStarts map[bundleKey]int
	l            *Listing
	file         io.ReaderAt
	size         int64
	opts         Options
}

func (w *walker) fail(p place, off int64, field string, err error) {
	e := &Error{File: w.l.File, Path: p.path, Offset: p.at(off), InnerOffset: -1, Field: field, Err: err}
	if p.base < 0 {
		e.InnerOffset = off
		if p.comp != nil {
			e.InnerOffset += p.comp.InnerOffset
		}
	}
	w.l.Errors = append(w.l.Errors, e)
}

func (w *walker) add(o *Object) {
	o.File = w.l.File
	o.Index = w.count
	w.count++
	w.pending = append(w.pending, o)
	if w.hold == 0 && len(w.pending) >= headerBatch {
		w.flush()
	}
}

// describe names what the file is, for the listing's header.
func (w *walker) describe(r io.ReaderAt, size int64, k magic.Kind) string {
	if k == magic.Unknown {
		switch {
		case isTextBundle(r, size):
			return "text offload bundle"
		case kpak.Is(r, size):
			return "KPAK archive"
		case isZip(r, size):
			return "zip archive"
		case size == 0:
			return "empty file"
		}
		return "unknown"
	}
	return k.String()
}

// walk dispatches on what the bytes r[0:size] are.
func (w *walker) walk(r io.ReaderAt, size int64, p place, k magic.Kind) {
	if w.stop != nil {
		return // emit failed: nothing more is wanted
	}
	if p.depth > w.opts.MaxDepth {
		w.fail(p, 0, "", fmt.Errorf("%w (more than %d levels)", ErrTooDeep, w.opts.MaxDepth))
		return
	}
	switch {
	case k.IsELF():
		w.walkELF(r, size, p)
	case k == magic.COFFObject || k == magic.PEExecutable:
		w.walkPE(r, size, p)
	case k == magic.Archive:
		w.walkArchive(r, size, p)
	case k == magic.OffloadBundle || k == magic.CompressedBundle:
		w.walkBundles(r, size, p, "")
	case k == magic.OffloadBinary:
		w.walkOffloadBinaries(r, size, p)
	case k == magic.Bitcode:
		w.walkBitcode(r, size, p)
	case k == magic.Unknown && isTextBundle(r, size):
		w.walkText(r, size, p)
	case k == magic.Unknown && kpak.Is(r, size):
		w.walkKPAK(r, size, p)
	case k == magic.Unknown && isZip(r, size):
		w.walkZip(r, size, p)
	}
}

// leaf records an object whose bytes are r[off:off+size], filling in its
// place, its opener and, unless told not to, its header facts.
func (w *walker) leaf(o *Object, r io.ReaderAt, off, size int64, p place) {
	o.Path = p.path
	o.Size = size
	o.Offset = p.at(off)
	o.bundleOffset = p.at(0)
	if p.comp != nil {
		// The current reader starts p.comp.InnerOffset bytes into the
		// decompressed data (an image nested in a compressed binary).
		off := p.comp.InnerOffset + off
		c := *p.comp
		c.InnerOffset = off
		o.Compressed = &c
		open := p.open
		if !o.Host && !w.opts.SkipHeaders && o.Container != "kpak entry" {
			// Its facts come from one pass over its container's
			// decompressed bytes, with its neighbours' (compressedHeaders).
			w.inflated[p.comp] = append(w.inflated[p.comp], inflatedObject{o, open, off, size})
		}
		o.open = func() (io.Reader, error) {
			src, err := open()
			if err != nil {
				return nil, err
			}
			if _, err := io.CopyN(io.Discard, src, off); err != nil {
				if c, ok := src.(io.Closer); ok {
					c.Close() // its decoder serves the next reader
				}
				return nil, fmt.Errorf("%s: decompressing up to offset %d: %w", o.Where(), off, err)
			}
			e := &exactReader{r: io.LimitReader(src, size), left: size, what: o.Where()}
			e.done, _ = src.(io.Closer)
			return e, nil
		}
	} else {
		o.open = func() (io.Reader, error) { return io.NewSectionReader(r, off, size), nil }
		if !o.Host {
			o.readHeader = func() *CodeObject { return ReadCodeObject(io.NewSectionReader(r, off, size), size) }
			o.hdrR, o.hdrOff = r, off
			switch {
			case w.opts.SkipHeaders:
			case p.volatile:
				o.Header()
			default:
				w.headers = append(w.headers, o) // read with its batch (flush)
			}
		}
	}
	if o.TargetID == "" && o.Code != nil {
		o.TargetID = o.Code.TargetID()
	}
	w.add(o)
}

// exactReader fails when its source ends before size bytes. At its end
// or at an error it closes done, the decoder under it (which a reader
// stopping at an object's end, before its container's, would keep).
type exactReader struct {
	r    io.Reader
	left int64
	what string
	done io.Closer
	err  error // sticky: the source is closed after it
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		err = fmt.Errorf("%s: decompressed data ends %d bytes early: %w", e.what, e.left, io.ErrUnexpectedEOF)
	}
	if (err != nil || e.left == 0) && e.done != nil {
		e.done.Close()
		e.done = nil
	}
	e.err = err
	return n, err
}

// head reads up to n bytes at off.
func head(r io.ReaderAt, off, size int64, n int) []byte {
	if off >= size {
		return nil
	}
	b := make([]byte, min(int64(n), size-off))
	k, _ := r.ReadAt(b, off)
	return b[:k]
}

func identifyAt(r io.ReaderAt, off, size int64) magic.Kind {
	k, err := magic.IdentifyReader(io.NewSectionReader(r, off, size-off), size-off)
	if err != nil {
		return magic.Unknown
	}
	return k
}

// isTextBundle reports whether a START marker line shows up in the first
// 4 KiB (text bundles begin with an empty line and a START marker), by
// textfmt's rule.
func isTextBundle(r io.ReaderAt, size int64) bool {
	return textfmt.Sniff(head(r, 0, size, textfmt.SniffLen))
}
