// Package oserr turns Go's operating-system errors into the C library's
// messages, which LLVM's tools print ("No such file or directory", "Is a
// directory"): the drop-in commands must print the same words.
package oserr

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/goffload/goffload/fmterr"
)

// Strerror returns strerror's text for the errno behind err, or, when there
// is none, the innermost message without any path.
func Strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if s := errno.Error(); s != "" {
			return capitalize(s)
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// PathMessage words an I/O failure on a named file as LLVM does:
// '<path>': <strerror>.
func PathMessage(path string, err error) error {
	return &fmterr.Message{Msg: fmt.Sprintf("'%s': %s", path, Strerror(err)), Err: err}
}

// capitalize upper-cases the first letter: Go's errno texts are glibc's in
// lower case.
func capitalize(s string) string {
	if s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
