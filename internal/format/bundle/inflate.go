package bundle

import (
	"crypto/md5"
	"encoding/binary"
	"errors"
	"hash"
	"io"

	"github.com/goffload/goffload/internal/format/compress"
)

// Scratch is storage for one inflated bundle: written once, in order, from
// its start, and read at random meanwhile (a CCOB's decoder reads back its
// history) and afterwards. An empty *os.File is one, as is a file opened
// and unlinked by the caller.
type Scratch interface {
	io.Writer
	io.ReaderAt
}

// Inflated is a compressed bundle inflated: one container per CCOB.
type Inflated struct {
	// Parts are the inflated containers, one per CCOB, in order.
	Parts []*io.SectionReader
	// CCOBs describe the CCOBs read, one per part.
	CCOBs []CCOB
	// LLVM22 reports whether LLVM 22 reads the input as it was read here:
	// one CCOB, whose payload runs to the end of the input. Several CCOBs
	// back to back, or zero padding, are read as newer LLVM reads them.
	LLVM22 bool

	stores []Scratch
	heads  []*head
	total  int64 // bytes inflated, counted against Options.MaxTotal
}

// A CCOB is one compressed bundle read.
type CCOB struct {
	compress.Header
	// PayloadSize is the size of the compressed payload: LLVM 22's -verbose
	// "Size before decompression" (for the only CCOB it reads, every byte
	// after the header).
	PayloadSize int64
	// Sum is MD5[0:8] of the inflated data, in Header.HashValue's view,
	// computed only with Options.Hash (LLVM does not check the stored one).
	Sum uint64
}

// Inflate inflates the CCOB in r[0:size] as LLVM 22 reads it, or, where
// LLVM 22 fails, several CCOBs back to back separated by zero padding (as
// real fat binaries hold them), each into its own Scratch (or memory),
// capped at Options.MaxInflated each and Options.MaxTotal in all. One zstd CCOB whose payload is one frame
// is inflated with compress.DecompressTo, which reads its history back from
// the Scratch rather than keeping it in memory; anything else, and any
// failure there, goes through compress.NewLLVMReader for LLVM's reading and
// errors.
//
// A failure to inflate is an *InflateError with LLVM's reason; a bundle
// past the cap is a *TooLargeError (errors.Is ErrTooLarge), itself or as
// an *InflateError's reason where LLVM's reading of the CCOB met it.
func Inflate(r io.ReaderAt, size int64, o *Options) (*Inflated, error) {
	if err := checkSize(size); err != nil {
		return nil, err
	}
	c := o.config()
	if c.KeepHead <= 0 {
		if inf, err := c.inflateStream(r, size); inf != nil || err != nil {
			return inf, err
		}
	}
	inf, llvmErr := c.inflateLLVM(r, size)
	if llvmErr == nil {
		return inf, nil
	}
	// A CCOB past the cap fails at once: read as several, its first part
	// would only be inflated again up to the cap.
	if errors.Is(llvmErr, ErrTooLarge) || errors.Is(llvmErr, compress.ErrNotCompressed) || errors.Is(llvmErr, compress.ErrHeaderTooSmall) || errors.Is(llvmErr, compress.ErrUnknownMethod) {
		return nil, &InflateError{Err: llvmErr}
	}
	return c.inflateSequence(r, size, llvmErr)
}

// inflateStream inflates one clean single-frame zstd CCOB with its history
// in the Scratch (compress.DecompressTo). It returns nil, leaving nothing
// behind, for any other input and any failure but the cap, which the
// other ways would only meet again.
func (c config) inflateStream(r io.ReaderAt, size int64) (*Inflated, error) {
	s, err := c.scratch()
	if err != nil {
		return nil, nil
	}
	w := c.sink(s)
	h, err := compress.DecompressTo(w, s, r, size)
	if err != nil {
		closeScratch(s)
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		return nil, nil
	}
	inf := &Inflated{LLVM22: true}
	inf.add(s, w, CCOB{Header: h, PayloadSize: size - int64(h.Len())})
	return inf, nil
}

// inflateLLVM inflates the input as LLVM 22 reads it: one CCOB, its
// payload running to the end of the input.
func (c config) inflateLLVM(r io.ReaderAt, size int64) (*Inflated, error) {
	rd, h, err := compress.NewLLVMReader(r, size)
	if err != nil {
		return nil, err
	}
	s, w, err := c.drain(rd)
	if err != nil {
		return nil, err
	}
	inf := &Inflated{LLVM22: true}
	inf.add(s, w, CCOB{Header: h, PayloadSize: size - int64(h.Len())})
	return inf, nil
}

// inflateSequence inflates CCOBs back to back, with zero padding between
// them (compress.Reader), which LLVM 22 rejects; when that fails too, the
// error is LLVM's, llvmErr.
func (c config) inflateSequence(r io.ReaderAt, size int64, llvmErr error) (*Inflated, error) {
	inf := &Inflated{}
	cr := compress.NewReader(r, size)
	for {
		m, err := cr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			inf.Close()
			return nil, &InflateError{Err: llvmErr}
		}
		c.used = inf.total
		s, w, err := c.drain(cr)
		if err != nil {
			inf.Close()
			var tl *TooLargeError
			if errors.As(err, &tl) && tl.What == totalWhat {
				return nil, err
			}
			return nil, &InflateError{Err: llvmErr}
		}
		inf.add(s, w, CCOB{Header: m.Header, PayloadSize: m.PayloadSize})
		inf.LLVM22 = len(inf.CCOBs) == 1 && m.End() == size
	}
	if len(inf.Parts) == 0 {
		return nil, &InflateError{Err: llvmErr}
	}
	return inf, nil
}

// drain inflates one CCOB from r into new storage. A wrong stored hash is
// no error (LLVM does not check it).
func (c config) drain(r io.Reader) (Scratch, *sink, error) {
	s, err := c.scratch()
	if err != nil {
		return nil, nil, err
	}
	w := c.sink(s)
	if _, err := io.Copy(w, r); err != nil && !errors.Is(err, compress.ErrHashMismatch) {
		closeScratch(s)
		return nil, nil, err
	}
	return s, w, nil
}

// add appends one inflated container.
func (inf *Inflated) add(s Scratch, w *sink, cc CCOB) {
	cc.Sum = w.sum()
	inf.Parts = append(inf.Parts, io.NewSectionReader(s, 0, w.n))
	inf.CCOBs = append(inf.CCOBs, cc)
	inf.stores = append(inf.stores, s)
	if h, ok := s.(*head); ok {
		inf.heads = append(inf.heads, h)
	} else {
		inf.total += w.n
	}
}

// Bundle reads each inflated container as Read does (the type given or
// detected in each) and returns them as one bundle, whose Close closes
// inf. The first container that fails to read fails it; inf then stays
// open, for the caller to close.
func (inf *Inflated) Bundle(o *Options) (*Bundle, error) {
	c := o.config()
	c.used = inf.total
	b := &Bundle{Inflated: inf}
	for _, s := range inf.Parts {
		p, err := readPart(s, s.Size(), &c)
		if err != nil {
			return nil, err
		}
		b.parts = append(b.parts, p)
	}
	b.Format = b.parts[0].format
	return b, nil
}

// Short reports whether a read went past what Options.KeepHead kept of an
// inflated container: its entry table runs past it, and it is to be
// inflated again in full.
func (inf *Inflated) Short() bool {
	for _, h := range inf.heads {
		if h.short {
			return true
		}
	}
	return false
}

// Close closes the storage the containers were inflated into (each that is
// an io.Closer), and returns the first error.
func (inf *Inflated) Close() error {
	var first error
	for _, s := range inf.stores {
		if err := closeScratch(s); err != nil && first == nil {
			first = err
		}
	}
	inf.stores = nil
	return first
}

func closeScratch(s Scratch) error {
	if c, ok := s.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// scratch returns storage for one inflated container: a head keeper with
// KeepHead, else the caller's Scratch, else memory.
func (c config) scratch() (Scratch, error) {
	switch {
	case c.KeepHead > 0:
		return &head{max: c.KeepHead}, nil
	case c.Scratch != nil:
		return c.Scratch()
	}
	return &memory{}, nil
}

// sink writes to a Scratch, counting, capped (except for a head keeper,
// which stores only its head) and hashing with Options.Hash. The cap is
// Options.MaxInflated for this bundle, and Options.MaxTotal for it and
// the used bytes inflated before it.
type sink struct {
	s              Scratch
	n              int64
	max            int64
	used, maxTotal int64
	h              hash.Hash
}

// totalWhat is what a *TooLargeError past Options.MaxTotal names.
const totalWhat = "inflated total"

func (c config) sink(s Scratch) *sink {
	w := &sink{s: s, max: c.MaxInflated, used: c.used, maxTotal: c.MaxTotal}
	if _, ok := s.(*head); ok {
		w.max = -1
	}
	if c.Hash {
		w.h = md5.New()
	}
	return w
}

func (w *sink) Write(p []byte) (int, error) {
	if w.max >= 0 && int64(len(p)) > w.max-w.n {
		return 0, &TooLargeError{What: "inflated bundle", Max: w.max}
	}
	if w.max >= 0 && int64(len(p)) > w.maxTotal-w.used-w.n {
		return 0, &TooLargeError{What: totalWhat, Max: w.maxTotal}
	}
	n, err := w.s.Write(p)
	w.n += int64(n)
	if w.h != nil {
		w.h.Write(p[:n])
	}
	return n, err
}

// sum returns the hash in LLVM's view, 0 without Options.Hash.
func (w *sink) sum() uint64 {
	if w.h == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(w.h.Sum(nil))
}

// memory is Scratch in memory.
type memory struct{ b []byte }

func (m *memory) Write(p []byte) (int, error) {
	m.b = append(m.b, p...)
	return len(p), nil
}

func (m *memory) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("bundle: negative offset")
	}
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// head keeps the first max bytes written to it and counts the rest; a
// read past them fails with errBeyondHead and is remembered (short).
type head struct {
	memory
	max   int64
	total int64
	short bool
}

func (h *head) Write(p []byte) (int, error) {
	if room := h.max - int64(len(h.b)); room > 0 {
		h.b = append(h.b, p[:min(room, int64(len(p)))]...)
	}
	h.total += int64(len(p))
	return len(p), nil
}

func (h *head) ReadAt(p []byte, off int64) (int, error) {
	if off >= h.total {
		return 0, io.EOF
	}
	if off+int64(len(p)) > int64(len(h.b)) && int64(len(h.b)) < h.total {
		h.short = true
		return 0, errBeyondHead
	}
	return h.memory.ReadAt(p, off)
}
