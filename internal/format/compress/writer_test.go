package compress

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/goffload/goffload/fmterr"
)

func TestCompressEmptyMatchesLLVM(t *testing.T) {
	var buf bytes.Buffer
	h, err := Compress(&buf, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := readTestdata(t, "empty.cbc"); !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("Compress(nothing) = %x, want LLVM's %x", buf.Bytes(), want)
	}
	if h.TotalSize != 41 || h.Version != 3 || h.Method != Zstd {
		t.Errorf("header %+v", h)
	}
}

func TestCompressRoundTrip(t *testing.T) {
	bundle := readTestdata(t, "bundle.bin")
	golden, _ := ParseHeader(readTestdata(t, "v3-default.cbc"))
	for _, opt := range []Options{
		{}, {Version: 2}, {Version: 1}, {Level: 1}, {Level: 19}, {Level: -5}, {Level: 30},
		{Zlib: true, Level: ZlibDefaultLevel}, {Zlib: true, Level: 9, Version: 2}, {Zlib: true, Level: 0, Version: 1}, {Zlib: true, Level: ZlibStore},
	} {
		var buf bytes.Buffer
		h, err := Compress(&buf, bundle, opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		b := buf.Bytes()
		ph, err := ParseHeader(b)
		if err != nil || ph != h {
			t.Fatalf("%+v: header %+v, parsed %+v, %v", opt, h, ph, err)
		}
		if h.Hash != golden.Hash || h.UncompressedSize != golden.UncompressedSize {
			t.Errorf("%+v: hash/size %x/%d, LLVM's %x/%d", opt, h.Hash, h.UncompressedSize, golden.Hash, golden.UncompressedSize)
		}
		if h.Version >= 2 && h.TotalSize != uint64(len(b)) {
			t.Errorf("%+v: total size %d, file %d", opt, h.TotalSize, len(b))
		}
		out, _, err := DecompressLLVM(b)
		if err != nil || !bytes.Equal(out, bundle) {
			t.Errorf("%+v: DecompressLLVM: %d bytes, %v", opt, len(out), err)
		}
		r := NewReader(bytes.NewReader(b), int64(len(b)))
		if _, err := r.Next(); err != nil {
			t.Fatalf("%+v: Next: %v", opt, err)
		}
		if out, err := io.ReadAll(r); err != nil || !bytes.Equal(out, bundle) {
			t.Errorf("%+v: Reader: %d bytes, %v", opt, len(out), err)
		}
	}
}

func TestCompressOptionErrors(t *testing.T) {
	if _, err := Compress(io.Discard, []byte("x"), Options{Version: 4}); err == nil {
		t.Error("version 4 accepted")
	}
	if _, err := Compress(io.Discard, []byte("x"), Options{Zlib: true, Level: 10}); err == nil {
		t.Error("zlib level 10 accepted")
	}
	err := checkV2(2, 1<<32, 0)
	if !errors.Is(err, ErrLimit) || fmterr.LLVMMessage(err) != "Uncompressed size exceeds version 2 limit" {
		t.Errorf("v2 uncompressed limit: %v", err)
	}
	err = checkV2(2, 1<<32-1, 1<<32)
	if !errors.Is(err, ErrLimit) || fmterr.LLVMMessage(err) != "Total file size exceeds version 2 limit" {
		t.Errorf("v2 total limit: %v", err)
	}
	if checkV2(3, 1<<40, 1<<40) != nil || checkV2(2, 1<<32-1, 1<<32-1) != nil {
		t.Error("limits too strict")
	}
}

func TestVerifyZstd(t *testing.T) {
	src := readTestdata(t, "bundle.bin")
	payload, err := compressZstd(src, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !verifyZstd(payload, src) {
		t.Fatal("a payload of ours does not verify")
	}
	other := bytes.Clone(src)
	other[len(other)/2] ^= 1
	for name, c := range map[string]struct {
		payload, want []byte
	}{
		"other data":   {payload, other},
		"shorter data": {payload, src[:len(src)-1]},
		"longer data":  {payload, append(bytes.Clone(src), 0)},
		"truncated":    {payload[:len(payload)-1], src},
		"empty":        {nil, src},
		"garbage":      {[]byte("not zstd at all"), src},
	} {
		if verifyZstd(c.payload, c.want) {
			t.Errorf("%s: verified", name)
		}
	}
}

// TestEncoderFallback: a payload that does not decode to its input is
// never written; klauspost's encoder takes over.
func TestEncoderFallback(t *testing.T) {
	defer func(e func([]byte, []byte, int, int) []byte) { encodeZstd = e }(encodeZstd)
	encodeZstd = func(dst, src []byte, level, workers int) []byte {
		return append(dst, "broken"...)
	}
	src := readTestdata(t, "bundle.bin")
	var buf bytes.Buffer
	if _, err := Compress(&buf, src, Options{}); err != nil {
		t.Fatal(err)
	}
	out, _, err := DecompressLLVM(buf.Bytes())
	if err != nil || !bytes.Equal(out, src) {
		t.Fatalf("fallback payload: %v", err)
	}
}

// TestZlibZeroValue: Options{Zlib: true} compresses at zlib's default
// level; ZlibStore stores.
func TestZlibZeroValue(t *testing.T) {
	src := readTestdata(t, "bundle.bin")
	def := mustCompress(t, src, Options{Zlib: true})
	six := mustCompress(t, src, Options{Zlib: true, Level: ZlibDefaultLevel})
	store := mustCompress(t, src, Options{Zlib: true, Level: ZlibStore})
	if !bytes.Equal(def, six) || len(def) > len(src)/4 {
		t.Errorf("Options{Zlib: true}: %d bytes, ZlibDefaultLevel %d, input %d", len(def), len(six), len(src))
	}
	if len(store) < len(src) {
		t.Errorf("ZlibStore: %d bytes for %d", len(store), len(src))
	}
}

// TestCompressZstdOneBuffer: a payload of a sixth of its input (R5
// compresses 3.1 times, the least of the fat binaries measured) is written
// into the buffer it started in, not copied to larger ones as it grows.
func TestCompressZstdOneBuffer(t *testing.T) {
	src := make([]byte, 3<<20)
	x := uint32(1)
	for i := range src {
		x = x*1103515245 + 12345
		if i%6 == 0 {
			src[i] = byte(x >> 24)
		} else {
			src[i] = byte(i / 6 % 7)
		}
	}
	out, err := compressZstd(src, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < len(src)/8 || len(out) > len(src)/4 {
		t.Fatalf("payload of %d bytes from %d: not the ratio this test needs", len(out), len(src))
	}
	if cap(out) != len(src)/2+64 {
		t.Errorf("payload of %d bytes in a buffer of %d: copied as it grew", len(out), cap(out))
	}
}
