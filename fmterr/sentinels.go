package fmterr

import "errors"

// The shared sentinels. Every package's sentinels are made with Kind from
// one of them, so that one errors.Is answers for any package:
//
//	errors.Is(err, fmterr.ErrTruncated) // from ar, bundle, compress, inspect, offloadbin, ...
//
// A truncated input is also malformed: errors.Is(err, ErrMalformed) holds
// for every ErrTruncated error.
var (
	// ErrMalformed: the input breaks its format's rules.
	ErrMalformed = errors.New("malformed input")
	// ErrTruncated: the input ends before a structure it declares.
	ErrTruncated = Kind("truncated input", ErrMalformed)
	// ErrLimit: the input asks for more than a limit allows (memory,
	// entries, inflated size, padding, nesting).
	ErrLimit = errors.New("over a limit")
	// ErrInsecurePath: a name in the input would reach outside its folder.
	ErrInsecurePath = errors.New("insecure path")
	// ErrNoMatch: nothing in the input matches what was asked for.
	ErrNoMatch = errors.New("no match")
)

// Kind returns a sentinel error whose text is text and which is also kind
// for errors.Is: how a package makes its own sentinels from the shared
// ones and keeps its own words.
func Kind(text string, kind error) error { return &kinded{text, kind} }

type kinded struct {
	text string
	kind error
}

func (e *kinded) Error() string { return e.text }
func (e *kinded) Unwrap() error { return e.kind }
