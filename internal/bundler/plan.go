package bundler

import (
	"github.com/goffload/goffload/internal/llvmhash"
	"github.com/goffload/goffload/targetid"
)

func (t *textWalker) reset()   { t.r.Reset() }
func (b *binaryWalker) reset() { b.i = -1 }
func (o *objectWalker) reset() { o.i = -1 }

func (c *chainWalker) reset() {
	for _, w := range c.ws {
		w.reset()
	}
	c.i = 0
}

// missingTargets walks the IDs of w as unbundle's extracting walk does and
// returns the standardised targets that no bundle matches; ok is
// false when the walk met an error (left to the extracting walk to report
// in its place).
func (j *job) missingTargets(w walker) (missing []string, ok bool) {
	// Built as unbundle builds its work list, for the same order.
	var left llvmhash.StringMap[string]
	for i, t := range j.targets {
		left.Set(t.std, j.outputs[i])
	}
	for left.Len() > 0 {
		id, more, err := w.next()
		if err != nil {
			return nil, false
		}
		if !more {
			break
		}
		if _, valid := targetid.ParseStored(id); !valid {
			return nil, false
		}
		for _, t := range left.Keys() {
			if targetid.Compatible(id, t, j.HipOpenMP) {
				left.Erase(t)
				break
			}
		}
	}
	return left.Keys(), true
}
