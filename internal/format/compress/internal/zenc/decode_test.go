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
