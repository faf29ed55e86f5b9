package inspect

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goffload/goffload/targetid"
)

// A Target is a GPU as a runtime sees it (targetid.GPU): a processor and
// the modes it runs in, in target-ID syntax ("gfx90a", "gfx90a:xnack+").
// Its Fit method says how well a code object serves it.
type Target = targetid.GPU

// ParseTarget parses a target ID (targetid.ParseGPU).
func ParseTarget(s string) (Target, error) { return targetid.ParseGPU(s) }

// ForTarget returns, for each container that holds code for several GPUs
// (a bundle, a set of offload images), the one code object a runtime on
// GPU t would load from it: the best Fit. reasons lists, when nothing fits,
// why each device object did not.
func (l *Listing) ForTarget(t Target) (picked []*Object, reasons []string) {
	type best struct {
		o     *Object
		score int
	}
	byContainer := map[string]*best{}
	var order []string
	for _, o := range l.Objects {
		if o.Host || o.Nested > 0 {
			continue
		}
		tid := o.TargetID
		if tid == "" {
			tid = o.Header().TargetID()
		}
		score, why := t.Fit(tid)
		if score == 0 {
			reasons = append(reasons, fmt.Sprintf("#%d %s: %s", o.Index, o.ID, why))
			continue
		}
		key := strings.Join(o.Path, "\x00")
		b := byContainer[key]
		if b == nil {
			byContainer[key] = &best{o, score}
			order = append(order, key)
		} else if score > b.score {
			b.o, b.score = o, score
		}
	}
	for _, k := range order {
		picked = append(picked, byContainer[k].o)
	}
	sort.Slice(picked, func(i, j int) bool { return picked[i].Index < picked[j].Index })
	if len(picked) > 0 {
		reasons = nil
	}
	return picked, reasons
}
