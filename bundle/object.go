package bundle

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/llvmcl"
	"github.com/goffload/goffload/objfmt"
)

// objectWalker returns a walker over the bundle sections of an object file,
// or false when the input is not an object file (then the binary format
// applies, as in LLVM).
func (j *job) objectWalker(in *input) (walker, bool, error) {
	if !objfmt.IsObject(in.r, in.size) {
		return nil, false, nil
	}
	bundles, err := objfmt.ReadBundles(in.r, in.size)
	if errors.Is(err, objfmt.ErrUnsupportedFormat) {
		// Mach-O, Wasm, ...: LLVM finds no bundles it can read either way;
		// report plainly rather than guess.
		return nil, true, errorf("'%s': reading bundles from this object format is not supported", in.path)
	}
	if err != nil {
		return nil, true, errorf("'%s': %v", in.path, err)
	}
	return &objectWalker{j: j, in: in, bundles: bundles, i: -1}, true, nil
}

type objectWalker struct {
	j       *job
	in      *input
	bundles []objfmt.Bundle
	i       int
}

func (o *objectWalker) next() (string, bool, error) {
	o.i++
	if o.i >= len(o.bundles) {
		return "", false, nil
	}
	return o.bundles[o.i].ID, true, nil
}

func (o *objectWalker) extract(w io.Writer) error {
	b := o.bundles[o.i]
	if !b.HostPlaceholder {
		return copyRange(w, o.in.r, b.Offset, b.Size)
	}
	// The one-NUL-byte placeholder stands for the host object: the input
	// with every bundle section removed.
	if o.j.DryRun {
		o.j.printCommand(objfmt.StripCommandArgs(o.in.path, tempName()))
		return nil
	}
	if !objfmt.IsELF(o.in.r, o.in.size) {
		return o.j.runObjcopyStrip(w, o.in)
	}
	if err := objfmt.StripBundles(w, o.in.r, o.in.size); err != nil {
		return o.j.objcopyFailed(o.in.path, err)
	}
	return nil
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
		return true, errorf("expecting exactly one host target but got 0")
	}
	// LLVM first writes its (empty) in-memory container to the output,
	// compressed when asked, then lets objcopy overwrite it; the verbose
	// statistics of that empty compression are all that remains of it.
	var empty bytes.Buffer // the container LLVM writes first
	if j.Compress {
		if err := j.compress(&empty, nil); err != nil {
			return true, err
		}
	}
	if j.DryRun {
		names, files := j.sectionFiles(tempName())
		args := objfmt.BundleCommandArgs(names, files, j.inputs[ref], j.outputs[0])
		j.printCommand(args)
		return true, writeBytes(j.outputs[0], empty.Bytes())
	}
	if !objfmt.IsELF(host.r, host.size) {
		return true, j.runObjcopyBundle(ref)
	}
	secs := make([]objfmt.Section, len(ins))
	for i, in := range ins {
		name := objfmt.BundlePrefix + j.targets[i].std
		if i == j.hostIndex {
			secs[i] = objfmt.Section{Name: name, Data: oneNUL{}, Size: 1}
			continue
		}
		secs[i] = objfmt.Section{Name: name, Data: in.r, Size: in.size}
	}
	f, err := atomicfile.Create(j.outputs[0])
	if err != nil {
		return true, pathError(j.outputs[0], err)
	}
	defer f.Abort()
	if err := objfmt.AddSections(f, host.r, host.size, secs); err != nil {
		return true, j.objcopyFailed(j.inputs[ref], err)
	}
	return true, f.Commit()
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

type oneNUL struct{}

func (oneNUL) ReadAt(p []byte, off int64) (int, error) {
	if off != 0 || len(p) == 0 {
		return 0, io.EOF
	}
	p[0] = 0
	if len(p) > 1 {
		return 1, io.EOF
	}
	return 1, nil
}

// runObjcopyBundle bundles into a non-ELF host object by running
// llvm-objcopy exactly as LLVM 22 does.
func (j *job) runObjcopyBundle(ref int) error {
	path, err := objfmt.FindObjcopy(j.Argv0)
	if err != nil {
		return errorf("%v", err)
	}
	tmp, err := objfmt.CreateTemp()
	if err != nil {
		var pe *os.PathError
		if asPathError(err, &pe) {
			return pathError(pe.Path, pe.Err)
		}
		return errorf("%v", err)
	}
	defer os.Remove(tmp.Name())
	tmp.Write([]byte{0})
	tmp.Close()
	names, files := j.sectionFiles(tmp.Name())
	args := objfmt.BundleCommandArgs(names, files, j.inputs[ref], j.outputs[0])
	cmd := exec.Command(path, args...)
	cmd.Args[0] = "llvm-objcopy"
	cmd.Stdout, cmd.Stderr = j.Stdout, j.Stderr
	if err := cmd.Run(); err != nil {
		return errorf("'llvm-objcopy' tool failed")
	}
	return nil
}

func (j *job) printCommand(args []string) {
	path, err := objfmt.FindObjcopy(j.Argv0)
	if err != nil {
		path = "llvm-objcopy"
	}
	fmt.Fprintln(j.Stderr, objfmt.FormatCommand(path, args))
}

// tempName is a name like the ones LLVM gives its temporary files.
func tempName() string {
	var b [3]byte
	rand.Read(b[:])
	return filepath.Join(objfmt.TempDir(), "clang-offload-bundler-"+hex.EncodeToString(b[:])+".tmp")
}

// objcopyFailed reports an object our ELF writer refused — one llvm-objcopy
// refuses too — with our reason first and then LLVM's message.
func (j *job) objcopyFailed(path string, err error) error {
	fmt.Fprintln(j.Stderr, llvmcl.Tagged(j.Argv0, tag("error: ", j.Color), fmt.Sprintf("'%s': %v", path, err)))
	return errorf("'llvm-objcopy' tool failed")
}

// runObjcopyStrip makes the host object of a non-ELF fat object with
// llvm-objcopy, as LLVM does, and copies the result to w.
func (j *job) runObjcopyStrip(w io.Writer, in *input) error {
	path, err := objfmt.FindObjcopy(j.Argv0)
	if err != nil {
		return errorf("%v", err)
	}
	tmp, err := objfmt.CreateTemp()
	if err != nil {
		return errorf("%v", err)
	}
	name := tmp.Name()
	tmp.Close()
	defer os.Remove(name)
	cmd := exec.Command(path, objfmt.StripCommandArgs(in.path, name)...)
	cmd.Args[0] = "llvm-objcopy"
	cmd.Stdout, cmd.Stderr = j.Stdout, j.Stderr
	if err := cmd.Run(); err != nil {
		return errorf("'llvm-objcopy' tool failed")
	}
	f, err := os.Open(name)
	if err != nil {
		return errorf("Failed to read back the modified object file")
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
