package zenc

import (
	"os"
	"testing"
)

func TestStatsTmp(t *testing.T) {
	src, err := os.ReadFile(os.Getenv("ZENC_SAMPLE"))
	if err != nil {
		t.Skip()
	}
	p := presets[os.Getenv("ZENC_PRESET")]
	m := newMatcher(src, p, 0, len(src))
	var seqs []seq
	for b := 0; b < len(src); b += blockMax {
		if p.fast {
			seqs = m.parseFast(b, min(b+blockMax, len(src)), seqs)
		} else {
			seqs = m.parse(b, min(b+blockMax, len(src)), seqs)
		}
	}
	lit, ml := 0, 0
	hist := map[int]int{}
	var same, zero int
	var prevOff uint32
	for _, s := range seqs {
		lit += int(s.litLen)
		ml += int(s.matchLen)
		k := 0
		for v := int(s.matchLen); v > 1; v >>= 1 {
			k++
		}
		hist[k]++
		if s.off == prevOff {
			same++
		}
		if s.litLen == 0 {
			zero++
		}
		prevOff = s.off
	}
	t.Logf("same-off-as-prev %d zero-lit %d", same, zero)
	t.Logf("seqs %d lit %d match %d hist %v", len(seqs), lit, ml, hist)
}
