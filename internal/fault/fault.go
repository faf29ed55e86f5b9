// Package fault turns a memory fault on mapped input into an error.
//
// A file mapped into memory (the bundler maps its inputs into the bundle it
// compresses) faults when another process truncates it: the pages past the
// new end are gone, and reading them raises SIGBUS, which the Go runtime
// treats as a crash unless the goroutine asked for a panic instead
// (runtime/debug.SetPanicOnFault). Code that reads such memory runs under
// Catch; goroutines it starts for the work catch their own faults and hand
// them back (Keep, Raise), so that the work ends and the caller gets an
// error.
package fault

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// An Error is a memory fault at Addr.
type Error struct {
	Addr uintptr
}

func (e *Error) Error() string {
	return fmt.Sprintf("memory fault at %#x reading a mapped file (was it truncated while it was read?)", e.Addr)
}

// Catch calls f with faults turned into panics (on this goroutine) and
// returns a fault in f as an *Error; other panics go on. Goroutines f
// starts are not covered: they use Keep.
func Catch(f func()) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			e := asFault(r)
			if e == nil {
				panic(r)
			}
			err = e
		}
	}()
	f()
	return nil
}

// asFault returns the *Error for a panic value that is a memory fault, or
// nil. The runtime's fault panics are runtime.Errors with the faulting
// address (an Addr method); so is an *Error raised again.
func asFault(r any) *Error {
	switch v := r.(type) {
	case *Error:
		return v
	case interface {
		error
		Addr() uintptr
	}:
		return &Error{Addr: v.Addr()}
	}
	return nil
}

// A First keeps the first fault that goroutines doing one piece of work
// ran into. The zero value is ready.
type First struct {
	mu  sync.Mutex
	err *Error
}

// Keep calls f as Catch does and keeps its fault, if it is the first.
// It reports whether f ran to its end.
func (k *First) Keep(f func()) bool {
	err := Catch(f)
	if err == nil {
		return true
	}
	k.mu.Lock()
	if k.err == nil {
		k.err = err.(*Error)
	}
	k.mu.Unlock()
	return false
}

// Failed reports whether a fault was kept.
func (k *First) Failed() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err != nil
}

// Raise panics with the fault kept, if any, for the caller's Catch: call it
// once the goroutines are done.
func (k *First) Raise() {
	k.mu.Lock()
	err := k.err
	k.mu.Unlock()
	if err != nil {
		panic(err)
	}
}
