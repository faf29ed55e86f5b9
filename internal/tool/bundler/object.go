package bundler

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/goffload/goffload/fmterr"
	"io"
	"os"

	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/format/bundle"
	"github.com/goffload/goffload/internal/format/objfmt"
	"github.com/goffload/goffload/internal/llvm/llvmtool"
	"github.com/goffload/goffload/internal/llvm/oserr"
	"github.com/goffload/goffload/internal/spool"
	"github.com/goffload/goffload/internal/tool/bundler/objcopy"
)

// extractHost writes the host object a fat object's one-NUL-byte host
// section stands for: the input with every bundle section removed, made
// as LLVM makes it, by llvm-objcopy on the input's path (our ELF writer
// for ELF files).
func (j *job) extractHost(w io.Writer, s *source, e *bundle.Entry) error {
	path := s.in.path
	if j.DryRun {
		j.printCommand(objcopy.StripArgs(path, objcopy.TempName()))
		return nil
	}
	obj, _, _ := e.Container().Outer()
	size := e.Container().Size()
	if s.inf != nil || s.in.file == nil {
		// LLVM runs objcopy on the input path, which reads the file
		// again: standard input and pipes have nothing left, and a
		// compressed input is a CCOB, not an object. Where LLVM 22 does
		// not read the input (several CCOBs), there is nothing to match,
		// and the host object is made from what we read.
		beyond := s.inf != nil && !s.inf.LLVM22 && path != "-"
		if !beyond {
			again, err := j.reread(path)
			if err != nil {
				return j.objcopyMessage(fmt.Sprintf("'%s': %s", path, oserr.Strerror(err)))
			}
			defer again.Close()
			if !objfmt.IsObject(again, again.Size) {
				return j.objcopyMessage(fmt.Sprintf("'%s': The file was not recognized as a valid object file", path))
			}
			obj, size = again, again.Size
		}
	}
	if !objfmt.IsELF(obj, size) {
		return j.runObjcopyStrip(w, path)
	}
	if err := objfmt.StripBundles(w, obj, size); err != nil {
		return j.objcopyFailed(path, err)
	}
	return nil
}

// reread reads an input again by path, as the llvm-objcopy LLVM runs does:
// "-" is what is left of standard input. The content goes to a temporary
// file, at most maxStreamInput bytes.
func (j *job) reread(path string) (*spool.File, error) {
	if path == "-" {
		return spool.Read(j.Stdin, maxStreamInput, "input")
	}
	return rereadFile(path)
}

// rereadFile reads the file at path (a pipe, a device) again into a
// temporary file, at most maxStreamInput bytes.
func rereadFile(path string) (*spool.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return spool.Read(f, maxStreamInput, "input")
}

// bundleObject bundles into a copy of the reference object. It returns
// false when the reference input is not an object file.
func (j *job) bundleObject(ins []*input, ref int) (bool, error) {
	host := ins[ref]
	if !objfmt.IsObject(host.r, host.size) {
		return false, nil
	}
	if j.hostIndex < 0 {
		// LLVM 22 crashes here (no host index for a HIP-only list).
		return true, fmterr.Messagef("expecting exactly one host target but got 0")
	}
	// LLVM first opens the output and writes its (empty) in-memory
	// container there, compressed when asked, then lets objcopy overwrite
	// it; the verbose statistics of that empty compression are all that
	// remains of it.
	f, err := atomicfile.Create(j.outputs[0])
	if err != nil {
		return true, oserr.PathMessage(j.outputs[0], err)
	}
	defer f.Abort()
	var empty bytes.Buffer // the container LLVM writes first
	if j.Compress {
		if err := j.compress(&empty, nil); err != nil {
			return true, err
		}
	}
	if j.DryRun {
		names, files := j.sectionFiles(objcopy.TempName())
		args := objcopy.BundleArgs(names, files, j.inputs[ref], j.outputs[0])
		j.printCommand(args)
		if _, err := f.Write(empty.Bytes()); err != nil {
			return true, llvmtool.IOFailure(err)
		}
		if err := f.Commit(); err != nil {
			return true, llvmtool.IOFailure(err)
		}
		return true, nil
	}
	if !objfmt.IsELF(host.r, host.size) {
		f.Abort() // objcopy writes the output
		return true, j.runObjcopyBundle(ref)
	}
	if _, t, ok := j.sameStandard(); ok {
		// LLVM 22 hands llvm-objcopy the section twice, and objcopy
		// refuses its arguments before it reads a file.
		return true, j.objcopyMessage(fmt.Sprintf("--set-section-flags set multiple times for section '%s'", objfmt.BundlePrefix+t.std))
	}
	src, spooled, err := j.objectSources(ins, ref)
	defer closeAll(spooled)
	if err != nil {
		return true, err
	}
	tw := llvmtool.NewTrackWriter(f)
	if err := bundle.Write(tw, src, &bundle.WriteOptions{Type: "o"}); err != nil {
		if tw.Err() != nil {
			// Writing the output failed (a full disk, a file size
			// limit): no llvm-objcopy ran, and the file to name is
			// the output, not our temporary file.
			return true, oserr.PathMessage(j.outputs[0], tw.Err())
		}
		return true, j.objcopyFailed(j.inputs[ref], err)
	}
	if j.outputs[0] == "-" && empty.Len() > 0 {
		// LLVM's buffered stdout is flushed at exit, after objcopy
		// has written the object there.
		if _, err := f.Write(empty.Bytes()); err != nil {
			return true, llvmtool.IOFailure(err)
		}
	}
	return true, f.Commit()
}

// objectSources returns the entries of a fat object as llvm-objcopy reads
// them: LLVM hands objcopy the paths, and objcopy reads the files to add
// first, then the host. An input we could only read once (standard input,
// a pipe) is what objcopy finds on reading it again: "-" is a file of that
// name to --add-section, and the rest of standard input (nothing) as the
// host. What was read again is in spooled, to close once written.
func (j *job) objectSources(ins []*input, ref int) (src []bundle.Source, spooled []*spool.File, err error) {
	src = make([]bundle.Source, len(ins))
	for i, in := range ins {
		src[i] = bundle.Source{ID: j.targets[i].std, R: in.r, Size: in.size}
		if i == j.hostIndex || in.file != nil {
			continue
		}
		data, err := rereadFile(j.inputs[i]) // "-" too: a file of that name
		if err != nil {
			return nil, spooled, j.objcopyMessage(fmt.Sprintf("'%s': %s", j.inputs[i], oserr.Strerror(err)))
		}
		spooled = append(spooled, data)
		src[i].R, src[i].Size = data, data.Size
	}
	if ins[ref].file == nil {
		data, err := j.reread(j.inputs[ref])
		if err != nil {
			return nil, spooled, j.objcopyMessage(fmt.Sprintf("'%s': %s", j.inputs[ref], oserr.Strerror(err)))
		}
		spooled = append(spooled, data)
		if !objfmt.IsELF(data, data.Size) {
			return nil, spooled, j.objcopyMessage(fmt.Sprintf("'%s': The file was not recognized as a valid object file", j.inputs[ref]))
		}
		src[ref].R, src[ref].Size = data, data.Size
	}
	return src, spooled, nil
}

func closeAll(files []*spool.File) {
	for _, f := range files {
		f.Close()
	}
}

// objcopyMessage fails as LLVM does when llvm-objcopy prints msg as its
// error.
func (j *job) objcopyMessage(msg string) error {
	fmt.Fprintf(j.Stderr, "%s: error: %s\n", objcopy.Name, msg)
	return fmterr.Messagef("'llvm-objcopy' tool failed")
}

// sectionFiles lists, per target, the section name and the file objcopy
// would add: the input, or for the host a temporary file holding one NUL
// byte.
func (j *job) sectionFiles(hostTemp string) (names, files []string) {
	for i, t := range j.targets {
		file := j.inputs[i]
		if i == j.hostIndex {
			file = hostTemp
		}
		names = append(names, objfmt.BundlePrefix+t.std)
		files = append(files, file)
	}
	return names, files
}

// runObjcopyBundle bundles into a non-ELF host object by running
// llvm-objcopy exactly as LLVM 22 does.
func (j *job) runObjcopyBundle(ref int) error {
	path, err := objcopy.Find(j.Argv0)
	if err != nil {
		return fmterr.Messagef("%w", err)
	}
	tmp, err := objcopy.CreateTemp()
	if err != nil {
		var pe *os.PathError
		if asPathError(err, &pe) {
			return oserr.PathMessage(pe.Path, pe.Err)
		}
		return fmterr.Messagef("%w", err)
	}
	defer os.Remove(tmp.Name())
	// The host bundle's placeholder, one NUL byte. A failed write would
	// leave the section empty: LLVM's raw_fd_ostream fails there.
	_, err = tmp.Write([]byte{0})
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return llvmtool.IOFailure(err)
	}
	names, files := j.sectionFiles(tmp.Name())
	args := objcopy.BundleArgs(names, files, j.inputs[ref], j.outputs[0])
	if err := objcopy.Run(path, args, j.Stdout, j.Stderr); err != nil {
		return fmterr.Messagef("'llvm-objcopy' tool failed")
	}
	return nil
}

func (j *job) printCommand(args []string) {
	path, err := objcopy.Find(j.Argv0)
	if err != nil {
		path = "llvm-objcopy"
	}
	fmt.Fprintln(j.Stderr, objcopy.FormatCommand(path, args))
}

// objcopyFailed reports an object our ELF writer refused — one llvm-objcopy
// refuses too — with objcopy's message when we know its words, else with
// our reason, and then LLVM's message.
func (j *job) objcopyFailed(path string, err error) error {
	var le *objfmt.LLVMError
	if errors.As(err, &le) {
		return j.objcopyMessage(le.Msg)
	}
	// Too large a layout: llvm-objcopy fails to allocate its output
	// where that is more than memory and swap together.
	var lay *objfmt.LayoutError
	if errors.As(err, &lay) && lay.Size > 0 && objcopy.CannotAllocate(lay.Size) {
		return j.objcopyMessage(objcopy.AllocMessage(path, lay.Size))
	}
	llvmtool.Error(j.Stderr, j.Argv0, j.Color, fmt.Sprintf("'%s': %v", path, err))
	return fmterr.Messagef("'llvm-objcopy' tool failed")
}

// runObjcopyStrip makes the host object of a non-ELF fat object at path
// with llvm-objcopy, as LLVM does, and copies the result to w.
func (j *job) runObjcopyStrip(w io.Writer, path string) error {
	tool, err := objcopy.Find(j.Argv0)
	if err != nil {
		return fmterr.Messagef("%w", err)
	}
	tmp, err := objcopy.CreateTemp()
	if err != nil {
		return fmterr.Messagef("%w", err)
	}
	name := tmp.Name()
	tmp.Close()
	defer os.Remove(name)
	if err := objcopy.Run(tool, objcopy.StripArgs(path, name), j.Stdout, j.Stderr); err != nil {
		return fmterr.Messagef("'llvm-objcopy' tool failed")
	}
	f, err := os.Open(name)
	if err != nil {
		return fmterr.Messagef("Failed to read back the modified object file")
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
