package packager

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/format/offloadbin"
	"github.com/goffload/goffload/internal/llvm/llvmtool"
	"github.com/goffload/goffload/internal/llvm/oserr"
)

// Matches reports whether an image matches a filter: "file" always
// matches, "kind" compares offload kinds (unknown names meaning none), any
// other key must equal the image's string exactly (a missing key being "").
func Matches(b *offloadbin.Binary, filter ImageSpec) bool {
	for _, k := range filter.Keys {
		v := filter.Values[k]
		switch k {
		case "file":
		case "kind":
			if offloadbin.ParseOffloadKind(v) != b.OffloadKind {
				return false
			}
		default:
			if b.String(k) != v {
				return false
			}
		}
	}
	return true
}

// OutputName is the name an image matched by a filter without "file" is
// written to: <stem of input>-<triple>-<arch>.<index>.<extension>.
func OutputName(input string, b *offloadbin.Binary, index int) string {
	return fmt.Sprintf("%s-%s-%s.%d.%s", stem(input), b.Triple(), b.Arch(), index, b.ImageKind.Extension())
}

// checkDerivedName refuses an image whose triple or arch would make the
// name OutputName derives for it anything but a single file name in the
// current folder: a '/' (LLVM 22 writes "in-/../../x-gfx906.0.o" wherever
// that leads) or a control character (newlines in file names). index is the
// image's position among those filter matched, as in the name.
func checkDerivedName(input, filter string, f offloadbin.Found, index int) error {
	for _, field := range []struct{ key, value string }{{"triple", f.Triple()}, {"arch", f.Arch()}} {
		why := ""
		for _, c := range []byte(field.value) {
			if c == '/' {
				why = "contains '/'"
				break
			}
			if c < 0x20 || c == 0x7f {
				why = "contains control characters"
				break
			}
		}
		if why != "" {
			return fmt.Errorf("image %d matching '--image=%s' in '%s': its %s %q %s and cannot be part of the output file name %q; name the output with file=",
				index, filter, f.Container, field.key, field.value, why, OutputName(input, f.Binary, index))
		}
	}
	return nil
}

// extract is extract mode: find every image in the input, then handle the
// filters in order.
func (t *tool) extract(path string, filters []string, archive bool) error {
	var r io.ReaderAt
	var size int64
	name := path
	if path == "-" {
		name = "<stdin>"
		var src io.Reader = bytes.NewReader(nil)
		if t.Stdin != nil {
			src = t.Stdin
		}
		in, err := spoolInput(src)
		if err != nil {
			return fmt.Errorf("'%s': %s", path, oserr.Strerror(err))
		}
		defer in.f.Close()
		r, size = in.r, in.size
	} else {
		stdinUsed := true
		in, err := t.openInput(path, &stdinUsed)
		if err != nil {
			return fmt.Errorf("'%s': %s", path, oserr.Strerror(err))
		}
		if in.f != nil {
			defer in.f.Close()
		}
		r, size = in.r, in.size
	}
	found, err := offloadbin.Extract(r, size, name, offloadbin.V1Only())
	if err != nil {
		return errors.New(fmterr.LLVMMessage(err))
	}
	matches := make([][]offloadbin.Found, len(filters))
	for i, fv := range filters {
		filter := ParseImageSpec(fv)
		for _, f := range found {
			if Matches(f.Binary, filter) {
				matches[i] = append(matches[i], f)
			}
		}
		// Names derived from an image's metadata are checked before any
		// output is written.
		if !archive && !filter.Has("file") {
			for j, f := range matches[i] {
				if err := checkDerivedName(path, fv, f, j); err != nil {
					return err
				}
			}
		}
	}
	// Every output is written before any is put in place: a failure
	// leaves existing outputs as they were (LLVM 22 replaces the ones
	// before it).
	var pending []*atomicfile.File
	t.pending = &pending
	defer func() {
		t.pending = nil
		for _, f := range pending {
			f.Abort()
		}
	}()
	for i, fv := range filters {
		if archive && len(matches[i]) > 0 && !ParseImageSpec(fv).Has("file") {
			return errors.New("Image must have a 'file' argument.")
		}
	}
	for i, fv := range filters {
		filter := ParseImageSpec(fv)
		matched := matches[i]
		if len(matched) == 0 {
			continue
		}
		switch {
		case archive:
			if !filter.Has("file") {
				return errors.New("Image must have a 'file' argument.")
			}
			if err := t.writeArchive(filter.Values["file"], matched); err != nil {
				return err
			}
		case filter.Has("file"):
			out := filter.Values["file"]
			if len(matched) > 1 {
				t.warnf("Multiple inputs match to a single file, '%s'", out)
			}
			if err := t.writeImage(out, matched[len(matched)-1].Binary); err != nil {
				return err
			}
		default:
			for i, f := range matched {
				if err := t.writeImage(OutputName(path, f.Binary, i), f.Binary); err != nil {
					return err
				}
			}
		}
	}
	for _, f := range pending {
		if err := f.Commit(); err != nil {
			return errors.New(oserr.Strerror(err))
		}
	}
	return nil
}

func (t *tool) writeImage(path string, b *offloadbin.Binary) error {
	return t.writeOutput(path, true, func(w io.Writer) error {
		_, err := io.Copy(w, b.Image())
		return err
	})
}

// writeArchive writes the matched images as members of a GNU archive
// (named after the container each came from), with a symbol table, as
// llvm-offload-binary --archive does. "-" is a file here, not stdout.
func (t *tool) writeArchive(path string, matched []offloadbin.Found) error {
	members := make([]ar.NewMember, len(matched))
	for i, f := range matched {
		members[i] = ar.NewMember{Name: f.Container, Data: f.Image(), Size: f.ImageSize()}
	}
	// LLVM prints the archive writer's warnings uncolored.
	warn := func(err error) {
		fmt.Fprintf(t.Stderr, "warning: %s\n", err)
	}
	f, err := createArchiveFile(path)
	if err != nil {
		return errors.New(oserr.Strerror(err))
	}
	done := false
	defer func() {
		if !done {
			f.Abort()
		}
	}()
	w, tw := deviceWriter(path, f)
	if err := ar.WriteGNU(w, members, ar.WithWarnings(warn)); err != nil {
		var me *ar.MemberError
		if errors.As(err, &me) {
			return err
		}
		if tw != nil && tw.Err() != nil {
			return llvmtool.IOFailure(tw.Err())
		}
		return errors.New(oserr.Strerror(err))
	}
	done = true
	return t.finish(f)
}
