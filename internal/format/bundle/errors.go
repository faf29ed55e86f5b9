package bundle

import (
	"fmt"
	"github.com/goffload/goffload/fmterr"
)

// ErrTooLarge is what every *TooLargeError is (errors.Is).
var ErrTooLarge = fmterr.Kind("bundle: too large", fmterr.ErrLimit)

// A TooLargeError is an inflated bundle or OffloadBinary past
// Options.MaxInflated, all inflated past Options.MaxTotal, or a text
// bundle past Options.MaxText.
type TooLargeError struct {
	What string // "inflated bundle", "inflated OffloadBinary", "inflated total" or "text bundle"
	Size int64  // the size met, when known (text bundles), else 0
	Max  int64  // the cap
}

// Error says what passed which cap.
func (e *TooLargeError) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("a %s of %d bytes is larger than the %d bytes read into memory", e.What, e.Size, e.Max)
	}
	return fmt.Sprintf("the %s is larger than %d bytes", e.What, e.Max)
}

// Is reports every TooLargeError as ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// An InflateError is a CCOB that does not inflate. Err is the failure of
// LLVM 22's reading of it (compress.NewLLVMReader), which LLVM's tools
// print after "Failed to decompress input: " (fmterr.LLVMMessage gives
// their text), or of the storage it was inflated into; where LLVM 22
// fails, several CCOBs back to back (or zero padding) were tried too.
type InflateError struct {
	Err error
}

// Error says that the CCOB does not inflate, and why.
func (e *InflateError) Error() string { return "bundle: cannot inflate: " + e.Err.Error() }

// Unwrap returns Err.
func (e *InflateError) Unwrap() error { return e.Err }

// errBeyondHead is a read past what Options.KeepHead kept of an inflated
// bundle.
var errBeyondHead = fmterr.Kind("bundle: read beyond the kept head of an inflated bundle", fmterr.ErrLimit)
