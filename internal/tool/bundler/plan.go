package bundler

import (
	"io"

	"github.com/goffload/goffload/internal/format/bundle"
	"github.com/goffload/goffload/targetid"
)

// missingTargets walks the IDs of b as unbundle's extracting walk does and
// returns the standardised targets that no bundle matches; ok is
// false when the walk met an error (left to the extracting walk to report
// in its place).
func (j *job) missingTargets(b *bundle.Bundle) (missing []string, ok bool) {
	left := j.workList() // built as unbundle builds its own, for the same order
	w := b.Walk()
	for left.Len() > 0 {
		e, err := w.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
		if _, valid := e.ParseID(); !valid {
			return nil, false
		}
		for _, t := range left.Keys() {
			if targetid.Compatible(e.ID, t, j.HipOpenMP) {
				left.Erase(t)
				break
			}
		}
	}
	return left.Keys(), true
}
