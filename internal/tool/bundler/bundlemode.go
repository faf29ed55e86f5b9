package bundler

import (
	"errors"
	"io"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/fault"
	"github.com/goffload/goffload/internal/format/bundle"
	"github.com/goffload/goffload/internal/llvm/llvmtool"
	"github.com/goffload/goffload/internal/llvm/oserr"
	"github.com/goffload/goffload/internal/tool/bundler/bigbuf"
)

// bundle writes one bundle of all inputs, one entry per target in
// command-line order under its standardised ID: a text bundle (textfmt) for
// -type=i, ii, cui, hipi, d, ll and s; a binary bundle (binfmt, entries
// aligned to -bundle-align) for bc, gch and ast, and for o when the
// reference input is not an object file; else, for o, the reference object
// with one bundle section per target appended, the host's holding a single
// NUL byte (bundleObject). The reference input is
// the host input (the last host target's), or the first input when every
// target is hip or hipv4. With -compress a text or binary container is
// built in memory and written as one CCOB; a fat object is not compressed
// (LLVM compresses its empty in-memory container, which llvm-objcopy then
// overwrites).
func (j *job) bundle() error {
	// LLVM reads every input before it looks at the type, so a missing
	// input is reported first.
	ins := make([]*input, len(j.inputs))
	defer func() {
		for _, in := range ins {
			if in != nil {
				in.close()
			}
		}
	}()
	for i, p := range j.inputs {
		in, err := j.openRaw(p)
		if err != nil {
			return err
		}
		ins[i] = in
	}
	kind := kindOf(j.Type)
	if kind == kindInvalid {
		return j.invalidType()
	}
	if kind == kindObject {
		ref := j.hostIndex
		if j.hipOnly {
			ref = 0
		}
		if ref >= 0 {
			if done, err := j.bundleObject(ins, ref); done || err != nil {
				return err
			}
		}
	}

	// Text types write a text bundle; the rest, and objects whose
	// reference input is no object, a binary bundle (bundle.Write's "").
	o := bundle.WriteOptions{Align: j.Align}
	if kind == kindText {
		o.Type = j.Type
	} else if j.Align == 0 {
		// LLVM 22 dies of a division by zero here.
		return fmterr.Messagef("invalid -bundle-align=0: the alignment must be at least 1")
	}
	src := make([]bundle.Source, len(ins))
	for i, in := range ins {
		src[i] = bundle.Source{ID: j.targets[i].std, R: in.r, Size: in.size}
	}
	write := func(w io.Writer) error { return bundle.Write(w, src, &o) }
	// The bundle's size, near enough: payloads, IDs, alignment.
	hint := int64(0)
	for i, in := range ins {
		hint += in.size + int64(len(j.targets[i].std)) + 64 + int64(max(j.Align, 0))
	}
	return j.writeOutput(write, hint)
}

// writeOutput writes the bundle to the single output, atomically,
// compressing it first when asked to (in memory, as LLVM does; sizeHint is
// about the bundle's size, to allocate its buffer once).
func (j *job) writeOutput(write func(io.Writer) error, sizeHint int64) error {
	path := j.outputs[0]
	if j.Compress {
		if sizeHint <= 0 || sizeHint >= 1<<40 {
			sizeHint = 0 // no estimate: grow with the data
		}
		buf := bigbuf.New(int(sizeHint))
		defer buf.Free()
		// The buffer maps the inputs it can (bigbuf): reading it faults
		// if one is truncated meanwhile, and one written meanwhile shows
		// through; either is an error naming it, before the output is
		// committed.
		var err error
		if ferr := fault.Catch(func() { err = write(buf) }); ferr != nil {
			err = ferr
		}
		if err == nil {
			if beforeCompress != nil {
				beforeCompress()
			}
			err = j.writeCompressed(path, buf.Bytes(), func() error {
				if name, changed := buf.Changed(); changed {
					return oserr.PathMessage(name, errChanged)
				}
				return nil
			})
		}
		if fe := (*fault.Error)(nil); errors.As(err, &fe) {
			if name, ok := buf.Source(fe.Addr); ok {
				return oserr.PathMessage(name, errTruncated)
			}
			return fmterr.Messagef("internal error: %v", fe)
		}
		return err
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return oserr.PathMessage(path, err)
	}
	defer f.Abort()
	tw := llvmtool.NewTrackWriter(f)
	if err := write(tw); err != nil {
		if tw.Err() != nil {
			return llvmtool.IOFailure(tw.Err())
		}
		return oserr.PathMessage(path, err)
	}
	if err := f.Commit(); err != nil {
		return llvmtool.IOFailure(err)
	}
	return nil
}

// beforeCompress, if set, runs between building a bundle in memory and
// compressing it (tests truncate an input there).
var beforeCompress func()

// errTruncated and errChanged are the errors of an input truncated or
// written while it was mapped.
var (
	errTruncated = errors.New("file truncated or unreadable while it was read")
	errChanged   = errors.New("file changed while it was read")
)

// writeCompressed compresses data into a CCOB at path. LLVM opens the
// output before it compresses, so an output it cannot create is reported
// without the verbose statistics. check runs once data has been read for
// the last time, before anything is written.
func (j *job) writeCompressed(path string, data []byte, check func() error) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return oserr.PathMessage(path, err)
	}
	defer f.Abort()
	// The CCOB goes straight to the temporary file (a copy in memory cost
	// a fresh page every 4 KiB of it); it becomes the output only once
	// check has passed. A failed write is reported after the -verbose
	// statistics and check, as it was when the CCOB was written after
	// them (and as LLVM reports it, when it closes the output).
	tw := llvmtool.NewDeferringWriter(f)
	if err := j.compress(tw, data); err != nil {
		return err
	}
	if err := check(); err != nil {
		return err
	}
	if tw.Err() != nil {
		return llvmtool.IOFailure(tw.Err())
	}
	if err := f.Commit(); err != nil {
		return llvmtool.IOFailure(err)
	}
	return nil
}
