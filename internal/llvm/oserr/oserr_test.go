package oserr

import (
	"errors"
	"os"
	"testing"
)

func TestStrerror(t *testing.T) {
	_, err := os.Open("/nonexistent/x")
	if got := Strerror(err); got != "No such file or directory" {
		t.Errorf("ENOENT: %q", got)
	}
	_, err = os.ReadFile("/")
	if got := Strerror(err); got != "Is a directory" {
		t.Errorf("EISDIR: %q", got)
	}
	if got := Strerror(errors.New("plain")); got != "plain" {
		t.Errorf("plain: %q", got)
	}
}

func TestPathMessage(t *testing.T) {
	_, err := os.Open("/nonexistent/x")
	m := PathMessage("x.o", err)
	if m.Error() != "'x.o': No such file or directory" || !errors.Is(m, os.ErrNotExist) {
		t.Errorf("PathMessage: %q, Is(ErrNotExist) %v", m, errors.Is(m, os.ErrNotExist))
	}
}
