package zenc

import (
	"bytes"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

var decoder, _ = zstd.NewReader(nil, zstd.WithDecoderMaxWindow(1<<30), zstd.WithDecoderMaxMemory(1<<34), zstd.WithDecoderConcurrency(1))

func decode(t testing.TB, enc []byte) []byte {
	t.Helper()
	got, err := decoder.DecodeAll(enc, nil)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return got
}

// inputs are data of the shapes the encoder meets: repeats near and far,
// runs, text, random bytes, and sizes around block boundaries.
func inputs() map[string][]byte {
	r := rand.New(rand.NewSource(1))
	in := map[string][]byte{
		"empty":      nil,
		"one":        {7},
		"fifteen":    []byte("fifteen bytes.."),
		"zeros":      make([]byte, 300000),
		"block":      bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, blockMax/9+1)[:blockMax],
		"block+1":    bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz"), blockMax/26+2)[:blockMax+1],
		"two blocks": bytes.Repeat([]byte("0123456789"), 2*blockMax/10+1)[:2*blockMax],
	}
	rnd := make([]byte, 300000)
	r.Read(rnd)
	in["random"] = rnd
	in["text"] = bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog; "), 5000)
	mixed := make([]byte, 0, 3<<20)
	for len(mixed) < 3<<20 {
		switch r.Intn(5) {
		case 0:
			mixed = append(mixed, rnd[:r.Intn(500)]...)
		case 1, 2:
			if len(mixed) > 0 {
				s := r.Intn(len(mixed))
				mixed = append(mixed, mixed[s:s+r.Intn(len(mixed)-s)%3000]...)
			}
		case 3:
			mixed = append(mixed, bytes.Repeat([]byte{byte(r.Intn(256))}, r.Intn(300))...)
		default:
			for range r.Intn(100) {
				mixed = append(mixed, byte(r.Intn(4)))
			}
		}
	}
	in["mixed"] = mixed
	// Short repeats everywhere, block boundaries included.
	words := make([][]byte, 64)
	for i := range words {
		words[i] = rnd[i*7 : i*7+4+r.Intn(6)]
	}
	short := make([]byte, 0, 3*blockMax)
	for len(short) < 3*blockMax {
		short = append(short, words[r.Intn(len(words))]...)
		short = append(short, byte(r.Intn(256)))
	}
	in["short repeats"] = short
	// A far repeat: random data twice, 1.5 MiB apart.
	far := make([]byte, 3<<20)
	r.Read(far[:3<<19])
	copy(far[3<<19:], far[:3<<19])
	in["far repeat"] = far
	if b, err := os.ReadFile("../../testdata/bundle.bin"); err == nil {
		in["bundle.bin"] = b
	}
	return in
}

// smallSegments cuts inputs into segments of 256 KiB at every level, so
// that tests meet several on small inputs, until the returned func runs.
func smallSegments() func() {
	m, f, o, r := minSegment, fastSegment, optSegment, rowWhole
	minSegment, fastSegment, optSegment, rowWhole = 256<<10, 256<<10, 256<<10, 0
	return func() { minSegment, fastSegment, optSegment, rowWhole = m, f, o, r }
}

func TestRoundTrip(t *testing.T) {
	defer smallSegments()()
	for name, src := range inputs() {
		for _, level := range []int{-5, 3, 9, 12, 16, 19, 22} {
			for _, workers := range []int{1, 3} {
				enc := Encode(nil, src, level, workers)
				if got := decode(t, enc); !bytes.Equal(got, src) {
					t.Fatalf("%s level %d workers %d: round trip differs", name, level, workers)
				}
			}
		}
	}
}

// TestDeterministic: the output depends on the input and level only, not
// on the number of workers (nor on the run), so builds are reproducible on
// any machine.
func TestDeterministic(t *testing.T) {
	defer smallSegments()()
	src := inputs()["mixed"]
	for _, level := range []int{3, 9, 19} {
		want := Encode(nil, src, level, 1)
		for _, workers := range []int{1, 2, 3, 8} {
			if got := Encode(nil, src, level, workers); !bytes.Equal(got, want) {
				t.Errorf("level %d: %d workers give other bytes than 1", level, workers)
			}
		}
	}
}

// TestCompresses: repeats are found near and far, and random data does not
// grow beyond its block headers.
func TestCompresses(t *testing.T) {
	in := inputs()
	for name, max := range map[string]int{"zeros": 64, "text": 200, "far repeat": 3<<19 + 3<<10, "random": 300000 + 3*3 + 16} {
		for _, level := range []int{-5, 3, 6, 9, 15, 19} {
			if n := len(Encode(nil, in[name], level, 1)); n > max {
				t.Errorf("%s level %d: %d bytes, want at most %d", name, level, n, max)
			}
		}
	}
}

// TestLibzstdReads decodes our frames with the zstd command (libzstd),
// the library LLVM uses; skipped where it is not installed.
func TestLibzstdReads(t *testing.T) {
	zstdCmd, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("zstd command not installed")
	}
	dir := t.TempDir()
	for name, src := range inputs() {
		for _, level := range []int{1, 9, 12, 16, 19, 22} {
			f := filepath.Join(dir, "f.zst")
			os.WriteFile(f, Encode(nil, src, level, 2), 0o666)
			out, err := exec.Command(zstdCmd, "-d", "-c", "-q", "--long=31", f).Output()
			if err != nil || !bytes.Equal(out, src) {
				t.Errorf("%s level %d: libzstd: %v (%d bytes, want %d)", name, level, err, len(out), len(src))
			}
		}
	}
}

func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "a", "abcabcabcabcabcabc", "hello hello hello world world world"} {
		f.Add([]byte(s), int8(3))
	}
	if b, err := os.ReadFile("../../testdata/bundle.bin"); err == nil {
		f.Add(b[:4096], int8(1))
		f.Add(b[:20000], int8(19))
		f.Add(b, int8(12))
		f.Add(b[:30000], int8(22))
	}
	f.Fuzz(func(t *testing.T, src []byte, level int8) {
		enc := Encode(nil, src, int(level), 1)
		if got := decode(t, enc); !bytes.Equal(got, src) {
			t.Fatalf("level %d: round trip differs", level)
		}
		// The settings the level takes on large inputs (the row parser at
		// 10-15 among them), their tables cut to this input.
		enc = encode(nil, src, levelParams(int(level), 1<<30), 1)
		if got := decode(t, enc); !bytes.Equal(got, src) {
			t.Fatalf("level %d, large-input settings: round trip differs", level)
		}
	})
}

// TestFarRepeat: a repeat of incompressible bytes 5 MiB back, beyond the
// hash chains, is found at every level (by the long-distance matches, as
// libzstd's LDM finds it for LLVM, or parseFast's sparse 8-byte table),
// with one worker and with segments; but at 9-10, which take no
// long-distance matches (they cost R2, R5 and corpus D 10-40% of the
// encoder's CPU time there for 0.1-1%): their rows hold a hash's 12
// latest positions, and find such a repeat 3 MiB back at 9 and 4 MiB at
// 10 (not 4 and 5); in code, whose matches are not indexed inside, they
// reach farther (compress/NOTES.md).
func TestFarRepeat(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, c := range []struct{ back, level, workers int }{
		{5 << 20, -5, 2}, {5 << 20, 3, 1}, {5 << 20, 3, 2}, {5 << 20, 8, 2}, {5 << 20, 12, 2}, {5 << 20, 15, 2}, {5 << 20, 19, 2},
		{3 << 20, 9, 2}, {4 << 20, 10, 1},
	} {
		back, level, workers := c.back, c.level, c.workers
		src := make([]byte, 2*back)
		rand.New(rand.NewSource(3)).Read(src[:back])
		copy(src[back:], src[:back])
		enc := Encode(nil, src, level, workers)
		if len(enc) > back+64<<10 {
			t.Errorf("level %d workers %d: %d bytes: the repeat %d bytes back was not found", level, workers, len(enc), back)
		}
		if level == 9 && !bytes.Equal(decode(t, enc), src) {
			t.Errorf("level %d workers %d: round trip differs", level, workers)
		}
	}
}

func TestMatchBack(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for range 2000 {
		src := make([]byte, 64)
		for i := range src {
			src[i] = byte(r.Intn(2))
		}
		b := 1 + r.Intn(63)
		a := r.Intn(b)
		stop := r.Intn(b + 1)
		want := 0
		for b-want > stop && a-want > 0 && src[a-want-1] == src[b-want-1] {
			want++
		}
		if a < stop || a-(b-stop) < 0 {
			continue // callers keep a-(b-stop) >= 0
		}
		if got := matchBack(src, a, b, stop); got != want {
			t.Fatalf("matchBack(%d, %d, %d) = %d, want %d", a, b, stop, got, want)
		}
	}
}

// TestMatchLen against a byte-by-byte count: every length from 0 to past
// 8-byte words, limits at and short of the end, b at limit.
func TestMatchLen(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for range 5000 {
		src := make([]byte, 1+r.Intn(80))
		for i := range src {
			src[i] = byte(r.Intn(2))
		}
		if r.Intn(2) == 0 { // long runs, for the 8-byte loop
			clear(src[r.Intn(len(src)):])
		}
		b := r.Intn(len(src) + 1)
		if b == 0 {
			continue
		}
		a := r.Intn(b)
		limit := b + r.Intn(len(src)-b+1)
		want := 0
		for b+want < limit && src[a+want] == src[b+want] {
			want++
		}
		if got := matchLen(src, a, b, limit); got != want {
			t.Fatalf("matchLen(%d, %d, %d) of %d bytes = %d, want %d", a, b, limit, len(src), got, want)
		}
	}
}

// TestLooksText: text bundles take the text settings, code objects and
// mixed data do not.
func TestLooksText(t *testing.T) {
	text := bytes.Repeat([]byte("int main(void) {\n\treturn 0;\n}\n"), 1<<15)
	if !looksText(text) || !looksText(text[:100]) {
		t.Error("C source not taken for text")
	}
	bin := bytes.Clone(text)
	for i := 0; i < len(bin); i += 17 {
		bin[i] = byte(i)
	}
	if looksText(bin) || looksText(nil) {
		t.Error("binary data taken for text")
	}
	for _, in := range inputs() {
		_ = looksText(in) // any input, no panic
	}
	// Levels 5-15 of text of 1 MiB or more take textParams, whatever
	// parser their level takes for code (parseFast to 8, rows at 9-15).
	words := strings.Fields("int float return if else for while struct static const void char unsigned __global__ threadIdx blockDim x y z sum acc tmp")
	r := rand.New(rand.NewSource(9))
	text = text[:0]
	for len(text) < 3<<19 {
		text = append(text, words[r.Intn(len(words))]...)
		text = append(text, " ;\n"[r.Intn(3)])
	}
	for _, level := range []int{5, 6, 7, 8, 9, 10, 13, 15} {
		if got, want := Encode(nil, text, level, 1), encode(nil, text, textParams(level), 1); !bytes.Equal(got, want) {
			t.Errorf("level %d: text not encoded with textParams", level)
		}
	}
}
