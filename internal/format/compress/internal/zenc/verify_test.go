package zenc

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestVerify: every frame the encoder writes verifies against its input,
// at every level class, and not against a changed input.
func TestVerify(t *testing.T) {
	for name, src := range inputs() {
		for _, level := range []int{-5, 1, 3, 6, 9, 12, 19} {
			enc := Encode(nil, src, level, 2)
			if err := Verify(enc, src); err != nil {
				t.Fatalf("%s level %d: %v", name, level, err)
			}
			if len(src) > 0 {
				bad := bytes.Clone(src)
				bad[len(bad)/2]++
				if Verify(enc, bad) == nil {
					t.Fatalf("%s level %d: verifies against a changed input", name, level)
				}
				if Verify(enc, src[:len(src)-1]) == nil {
					t.Fatalf("%s level %d: verifies against a shorter input", name, level)
				}
			}
		}
	}
}

// TestVerifyEveryByte: changing any one byte of the input fails
// verification, on an input of short literal runs and matches (words of a
// small vocabulary), where the verifier compares most of them as words:
// its masks must cover every byte of a run or match of up to 16 bytes and
// none beyond.
func TestVerifyEveryByte(t *testing.T) {
	words := []string{"v_add", "s_mov", " v0, ", "v1", ", 0x", "s[4:5]", "\n", "global_load ", "12", "ff", "; kernel "}
	var src []byte
	x := uint32(1)
	for len(src) < 6<<10 {
		x = x*1103515245 + 12345
		src = append(src, words[x>>16%uint32(len(words))]...)
		if x>>8&7 == 0 {
			src = append(src, byte(x>>24))
		}
	}
	for _, level := range []int{1, 12, 19} {
		enc := Encode(nil, src, level, 1)
		if err := Verify(enc, src); err != nil {
			t.Fatalf("level %d: %v", level, err)
		}
		bad := bytes.Clone(src)
		for i := range bad {
			bad[i] ^= 0x20
			if Verify(enc, bad) == nil {
				t.Fatalf("level %d: verifies with byte %d of %d changed", level, i, len(src))
			}
			bad[i] ^= 0x20
		}
	}
}

// TestVerifyOtherEncoders: frames of klauspost/compress's encoder and of
// libzstd (the zstd command, when installed) verify too: the reader
// follows the format, not our encoder's habits.
func TestVerifyOtherEncoders(t *testing.T) {
	for name, src := range inputs() {
		for _, l := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedBetterCompression} {
			e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderCRC(true))
			enc := e.EncodeAll(src, nil)
			if err := Verify(enc, src); err != nil {
				t.Errorf("%s klauspost %v: %v", name, l, err)
			}
		}
		zstdCmd, err := exec.LookPath("zstd")
		if err != nil {
			continue
		}
		for _, l := range []string{"-1", "-12", "--long=27"} {
			cmd := exec.Command(zstdCmd, "-q", "-c", l)
			cmd.Stdin = bytes.NewReader(src)
			enc, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(enc, src); err != nil {
				t.Errorf("%s zstd %s: %v", name, l, err)
			}
		}
	}
}

// FuzzVerify: a damaged frame is never accepted unless it still decodes
// to the input.
func FuzzVerify(f *testing.F) {
	// A small input with literals, repeats and far matches, so that
	// frames are small and the fuzzer fast.
	src := make([]byte, 0, 24<<10)
	for i := 0; len(src) < 8<<10; i++ {
		src = append(src, byte(i*7), byte(i>>3), 'x', byte(i%13))
	}
	src = append(src, src[100:5000]...)
	src = append(src, src[:9000]...)
	for _, level := range []int{1, 9, 19} {
		f.Add(Encode(nil, src, level, 1), uint32(0), byte(0))
	}
	// An empty frame, then another: Decode reads the first only.
	f.Add(append(Encode(nil, nil, 3, 1), Encode(nil, src[:35], 3, 1)...), uint32(0), byte(0))
	d, _ := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(1<<28))
	f.Fuzz(func(t *testing.T, frame []byte, at uint32, x byte) {
		if len(frame) > 0 {
			frame = bytes.Clone(frame)
			frame[int(at)%len(frame)] ^= x
		}
		var out memFile
		r := bytes.NewReader(frame)
		n, derr := Decode(&out, &out, r)
		if derr == nil {
			// Decode reads one frame and stops; klauspost's DecodeAll
			// goes on to any frames after it, so it gets only the first.
			first := frame[:len(frame)-r.Len()]
			want, err := d.DecodeAll(first, nil)
			if err == nil && (!bytes.Equal(out.b, want) || n != int64(len(want))) {
				t.Fatalf("Decode gives %d bytes, klauspost %d", n, len(want))
			}
		}
		if Verify(frame, src) != nil {
			return
		}
		if derr != nil || !bytes.Equal(out.b, src) {
			t.Fatalf("Verify accepts a frame Decode fails on: %v", derr)
		}
		got, err := d.DecodeAll(frame, nil)
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("Verify accepts a frame that decodes to %d other bytes (%v)", len(got), err)
		}
	})
}

// sampleFrame returns $ZENC_SAMPLE and its level-3 frame, and counts the
// sample's bytes per operation (the benchmark is skipped without one).
func sampleFrame(b *testing.B) (src, enc []byte) {
	src, err := os.ReadFile(os.Getenv("ZENC_SAMPLE"))
	if err != nil {
		b.Skip("set ZENC_SAMPLE")
	}
	b.SetBytes(int64(len(src)))
	return src, Encode(nil, src, 3, 0)
}

// BenchmarkVerify verifies level 3's frame of $ZENC_SAMPLE.
func BenchmarkVerify(b *testing.B) {
	src, enc := sampleFrame(b)
	for b.Loop() {
		if err := Verify(enc, src); err != nil {
			b.Fatal(err)
		}
	}
}

// memFile is an in-memory output with ReadAt, for Decode.
type memFile struct{ b []byte }

func (m *memFile) Write(p []byte) (int, error) { m.b = append(m.b, p...); return len(p), nil }

func (m *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > int64(len(m.b)) {
		return 0, io.ErrUnexpectedEOF
	}
	return copy(p, m.b[off:]), nil
}

// BenchmarkDecode decodes $ZENC_SAMPLE's level-3 frame (Decode into
// memory): the decoder's speed on a real bundle's sequences.
func BenchmarkDecode(b *testing.B) {
	src, enc := sampleFrame(b)
	out := &memFile{b: make([]byte, 0, len(src))}
	for b.Loop() {
		out.b = out.b[:0]
		if _, err := Decode(out, out, bytes.NewReader(enc)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTooManySequences: a block that claims more sequences than its
// 128 KiB could hold (each decodes to 3 bytes or more) is damage, found
// before anything is sized by the count.
func TestTooManySequences(t *testing.T) {
	const n = 50000 // 0xFF, then n-0x7F00 little-endian
	c := n - 0x7F00
	body := []byte{0x00, 0xFF, byte(c), byte(c >> 8), 0x00, 0x01}
	frame := []byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00}
	h := uint32(len(body))<<3 | 2<<1 | 1 // last, compressed
	frame = append(frame, byte(h), byte(h>>8), byte(h>>16))
	frame = append(frame, body...)
	err := Verify(frame, nil)
	if err == nil || !strings.Contains(err.Error(), "50000 sequences in a block") {
		t.Fatalf("Verify: %v, want 50000 sequences in a block", err)
	}
	var out memFile
	if _, err := Decode(&out, &out, bytes.NewReader(frame)); err == nil || !strings.Contains(err.Error(), "50000 sequences") {
		t.Fatalf("Decode: %v", err)
	}
}
