package bundle_test

import (
	"testing"

	"github.com/goffload/goffload/bundle"
	"github.com/goffload/goffload/targetid"
)

// TestZeroBundle: a Bundle not made by Open fails with an error, never a
// panic.
func TestZeroBundle(t *testing.T) {
	var b bundle.Bundle
	if _, err := b.Entries(); err == nil {
		t.Error("Entries of a zero Bundle: no error")
	}
	if _, err := b.Select(targetid.MustParseTarget("gfx90a")); err == nil {
		t.Error("Select of a zero Bundle: no error")
	}
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	var nb *bundle.Bundle
	if _, err := nb.Entries(); err == nil {
		t.Error("Entries of a nil Bundle: no error")
	}
}
