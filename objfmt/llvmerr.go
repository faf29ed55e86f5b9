package objfmt

import "fmt"

// LLVMError is malformed input that LLVM 22 rejects too; Msg is LLVM's
// message, word for word. The same defect reads differently depending on
// who meets it: the bundler's own object reader (listing, unbundling) prints
// "clang-offload-bundler: error: Msg", the llvm-objcopy it runs (bundling,
// making the host object) "llvm-objcopy: error: Msg". ReadBundles and
// ScanBundles errors are the former, AddSections and StripBundles errors the
// latter.
type LLVMError struct {
	Msg string
}

func (e *LLVMError) Error() string { return e.Msg }

// LLVMMessage returns the error's text, which is LLVM's.
func (e *LLVMError) LLVMMessage() string { return e.Msg }

// Is reports every LLVMError as ErrMalformed.
func (e *LLVMError) Is(target error) bool { return target == ErrMalformed }

func llvmErr(format string, args ...any) error {
	return &LLVMError{Msg: fmt.Sprintf(format, args...)}
}

// errUnexpectedEOF is the bundler's message for a bundle section whose
// contents lie past the end of the file.
var errUnexpectedEOF = &LLVMError{Msg: "The end of the file was unexpectedly encountered"}

func rangeErr(i int, off, size uint64, fileSize int64) error {
	if off+size < off {
		return llvmErr("section [index %d] has a sh_offset (0x%x) + sh_size (0x%x) that cannot be represented", i, off, size)
	}
	return llvmErr("section [index %d] has a sh_offset (0x%x) + sh_size (0x%x) that is greater than the file size (0x%x)", i, off, size, fileSize)
}
