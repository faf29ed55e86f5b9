package offloadbin

import (
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/internal/objfile"
)

// Minimal ELF and COFF section walkers: just enough to find offloading
// sections the way LLVM 22's object readers do, with their checks and
// messages. Only headers and section tables are read.

const (
	coffSectionPrefix = ".llvm.offloading"
)

// ObjectError is a container-level error whose text is exactly LLVM's.
type ObjectError struct{ Msg string }

func (e *ObjectError) Error() string { return e.Msg }

// LLVMMessage returns the error's text, which is LLVM's.
func (e *ObjectError) LLVMMessage() string { return e.Msg }

func objErr(format string, a ...any) error { return &ObjectError{fmt.Sprintf(format, a...)} }

// section is a byte range of the input holding OffloadBinaries.
type section struct{ off, size int64 }

func truncated(where string, format string, a ...any) error {
	return formatError(0, where, ErrTruncated, format, a...)
}

// elfOffloadSections returns the SHT_LLVM_OFFLOADING sections of an ELF
// file in section-header order, read through package objfile with LLVM
// 22's checks and texts.
func elfOffloadSections(r io.ReaderAt, size int64) ([]section, error) {
	f, err := objfile.NewELF(r, size)
	if err != nil {
		return nil, err
	}
	secs, err := f.Sections()
	if err != nil {
		return nil, err
	}
	var out []section
	for i := range secs {
		if secs[i].Type != objfile.SHTLLVMOffloading {
			continue
		}
		off, n, err := f.Contents(&secs[i])
		if err != nil {
			return nil, err
		}
		out = append(out, section{off, n})
	}
	return out, nil
}

// coffOffloadSections returns the sections of a COFF object or PE image
// whose name starts with ".llvm.offloading", in section-table order.
func coffOffloadSections(r io.ReaderAt, size int64) ([]section, error) {
	c, err := objfile.NewCOFF(r, size)
	if err != nil {
		return nil, err
	}
	var out []section
	for i := 1; i <= int(c.NumSections); i++ {
		s, err := c.Section(i)
		if err != nil {
			return nil, err
		}
		name, err := c.SectionName(&s)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(name, coffSectionPrefix) {
			continue
		}
		off, n, in := c.Contents(&s)
		if !in {
			return nil, truncated(fmt.Sprintf("COFF section %d (%s)", i, name), "contents at %#x, %d bytes, past the end of the file (%d bytes)", off, n, size)
		}
		out = append(out, section{off, n})
	}
	return out, nil
}
