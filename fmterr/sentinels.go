package fmterr

import "errors"

// The shared sentinels. Every package's errors wrap one of them (through
// its own sentinels, which are these values or wrap them), so that one
// errors.Is answers for any package:
//
//	errors.Is(err, fmterr.ErrTruncated) // from ar, bundle, compress, inspect, offloadbin, ...
var (
	// ErrMalformed: the input breaks its format's rules.
	ErrMalformed = errors.New("malformed input")
	// ErrTruncated: the input ends before a structure it declares.
	ErrTruncated = errors.New("truncated input")
	// ErrLimit: the input asks for more than a limit allows (memory,
	// entries, inflated size, padding).
	ErrLimit = errors.New("over a limit")
	// ErrInsecurePath: a name in the input would reach outside its folder.
	ErrInsecurePath = errors.New("insecure path")
	// ErrNoMatch: nothing in the input matches what was asked for.
	ErrNoMatch = errors.New("no match")
)
