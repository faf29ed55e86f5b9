package zenc

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestDecode: frames of ours, klauspost's and libzstd's decode to their
// input, including matches further back than the in-memory history
// (read back from the output file).
func TestDecode(t *testing.T) {
	in := inputs()
	far := make([]byte, 3<<historyLog)
	copy(far, in["mixed"])
	copy(far[len(far)-len(in["mixed"]):], in["mixed"])
	in["beyond history"] = far
	for name, src := range in {
		frames := map[string][]byte{"ours 3": Encode(nil, src, 3, 1), "ours 19": Encode(nil, src, 19, 1)}
		e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderCRC(true), zstd.WithWindowSize(1<<24))
		frames["klauspost"] = e.EncodeAll(src, nil)
		if zstdCmd, err := exec.LookPath("zstd"); err == nil {
			cmd := exec.Command(zstdCmd, "-q", "-c", "-3", "--long=27")
			cmd.Stdin = bytes.NewReader(src)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			frames["libzstd"] = out
		}
		for fname, frame := range frames {
			f, err := os.CreateTemp(t.TempDir(), "out")
			if err != nil {
				t.Fatal(err)
			}
			n, err := Decode(f, f, bytes.NewReader(frame))
			got, _ := os.ReadFile(f.Name())
			f.Close()
			if err != nil || n != int64(len(src)) || !bytes.Equal(got, src) {
				t.Errorf("%s, %s: %d bytes, %v", name, fname, n, err)
			}
		}
	}
	// Without the file, a far match is an error, not a wrong output.
	var buf bytes.Buffer
	if _, err := Decode(&buf, nil, bytes.NewReader(Encode(nil, far, 19, 1))); !errors.Is(err, ErrNoHistory) {
		t.Errorf("far match without history: %v", err)
	}
}

// TestDecodeOneFrame: Decode reads one frame and not a byte more, so a
// frame followed by another decodes to the first's content only, with
// the second left unread (DecompressTo then refuses the input as data
// after the frame). The fuzzer found the test's own oracle disagreeing
// here: an empty frame followed by one of 35 bytes.
func TestDecodeOneFrame(t *testing.T) {
	second := Encode(nil, []byte("thirty-five bytes of frame content!"), 3, 1)
	for _, first := range [][]byte{Encode(nil, nil, 3, 1), Encode(nil, []byte("abc"), 19, 1)} {
		two := append(bytes.Clone(first), second...)
		r := bytes.NewReader(two)
		var out memFile
		n, err := Decode(&out, &out, r)
		want, _ := zstd.NewReader(nil)
		content, derr := want.DecodeAll(first, nil)
		if err != nil || derr != nil || n != int64(len(content)) || !bytes.Equal(out.b, content) {
			t.Errorf("first frame of %d bytes: %d bytes %q, %v (klauspost %q, %v)", len(first), n, out.b, err, content, derr)
		}
		if r.Len() != len(second) {
			t.Errorf("first frame of %d bytes: %d bytes left unread, want %d", len(first), r.Len(), len(second))
		}
	}
}

// TestDecodeRingEdges: a frame made of chosen sequences (the coder's, not
// the parser's) where short sequences, which the decoder copies 16 bytes
// at a time over the ring's oldest bytes, are followed by matches reaching
// 1 to 40 bytes short of the ring's 4 MiB, and by overlapping and
// wrapping ones. Each must decode to its content.
func TestDecodeRingEdges(t *testing.T) {
	const ring = 1 << historyLog
	x := uint32(7)
	rnd := func() uint32 { x = x*1103515245 + 12345; return x >> 8 }
	var src []byte
	add := func(ll, off, ml int) seq {
		for range ll {
			src = append(src, byte(rnd()))
		}
		for range ml {
			src = append(src, src[len(src)-off])
		}
		return seq{litLen: uint32(ll), off: uint32(off), matchLen: uint32(ml)}
	}
	frame := appendFrameHeader(nil, ring+blockMax)
	c := newCoder()
	var block []seq
	start := 0
	for len(src) < ring+blockMax-200 {
		switch {
		case len(src) >= ring && rnd()%4 == 0:
			// Far: 1-40 bytes short of the ring, right after a short
			// sequence.
			block = append(block, add(int(rnd()%3), ring-1-int(rnd()%40), 20))
		case rnd()%16 == 0:
			block = append(block, add(int(rnd()%20), 1+int(rnd()%8), 3+int(rnd()%40))) // overlapping
		case len(src) > 5000:
			block = append(block, add(int(rnd()%17), 16+int(rnd()%4000), 3+int(rnd()%14)))
		default:
			block = append(block, add(8, 1, 3))
		}
		if len(src)-start > blockMax-300 || len(src) >= ring+blockMax-200 {
			frame = c.encodeBlock(frame, src[start:], block, false)
			block, start = block[:0], len(src)
		}
	}
	src = append(src, make([]byte, ring+blockMax-len(src))...)
	frame = appendRaw(frame, src[start:], 1)
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := Decode(f, f, bytes.NewReader(frame))
	got, _ := os.ReadFile(f.Name())
	if err != nil || n != int64(len(src)) || !bytes.Equal(got, src) {
		t.Fatalf("%d of %d bytes, %v", n, len(src), err)
	}
	if err := Verify(frame, src); err != nil {
		t.Fatal(err)
	}
}
