package compress

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/compress/internal/zenc"
	"io"
	"math/rand"
	"runtime"
	"strings"
	"testing"
)

func TestDecompressGolden(t *testing.T) {
	bundle := readTestdata(t, "bundle.bin")
	for _, g := range append(goldens, struct {
		file    string
		version uint16
		total   uint64
		hash    uint64
	}{"empty.cbc", 3, 41, 0x04b2008fd98c1dd4}) {
		b := readTestdata(t, g.file)
		want := bundle
		if g.file == "empty.cbc" {
			want = nil
		}
		out, h, err := DecompressLLVM(b)
		if err != nil || !bytes.Equal(out, want) || h.Version != g.version {
			t.Errorf("DecompressLLVM(%s): %d bytes, v%d, %v", g.file, len(out), h.Version, err)
		}
		res, err := Decompress(b)
		if err != nil || len(res) != 1 || !bytes.Equal(res[0].Data, want) || res[0].Computed() != g.hash || res[0].PayloadSize != int64(len(b)-h.Len()) {
			t.Errorf("Decompress(%s): %+v, %v", g.file, res, err)
		}
		r := NewReader(bytes.NewReader(b), int64(len(b)))
		m, err := r.Next()
		if err != nil {
			t.Fatalf("%s: Next: %v", g.file, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want) || m.Offset != 0 || m.End() != int64(len(b)) {
			t.Errorf("Reader(%s): %d bytes, member %+v, %v", g.file, len(got), m, err)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("Reader(%s): second Next: %v", g.file, err)
		}
	}
}

// v1 builds a version 1 CCOB by hand from the documented layout.
func v1(method Method, payload, data []byte) []byte {
	h := Header{Version: 1, Method: method, UncompressedSize: uint64(len(data))}
	sum := md5.Sum(data)
	copy(h.Hash[:], sum[:8])
	return append(h.AppendHeader(nil), payload...)
}

func mustCompress(t testing.TB, data []byte, opt Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := Compress(&buf, data, opt); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pad(b []byte) []byte {
	for len(b)%Alignment != 0 {
		b = append(b, 0)
	}
	return b
}

func readAll(t *testing.T, blob []byte) ([]*Member, [][]byte, error) {
	t.Helper()
	r := NewReader(bytes.NewReader(blob), int64(len(blob)))
	var ms []*Member
	var data [][]byte
	for {
		m, err := r.Next()
		if err == io.EOF {
			return ms, data, nil
		}
		if err != nil {
			return ms, data, err
		}
		d, err := io.ReadAll(r)
		if err != nil {
			return ms, data, err
		}
		ms = append(ms, m)
		data = append(data, d)
	}
}

func TestReaderSequence(t *testing.T) {
	bundle := readTestdata(t, "bundle.bin")
	a, b, c := bundle[:20000], bundle[20000:], []byte("third member")
	zl := mustCompress(t, a, Options{Zlib: true, Level: 6})[headerLenV3:]
	zs := mustCompress(t, b, Options{})[headerLenV3:]
	var blob []byte
	blob = append(blob, pad(mustCompress(t, a, Options{}))...)
	blob = append(blob, mustCompress(t, b, Options{Version: 2})...) // no padding
	blob = append(blob, pad(v1(Zstd, zs, b))...)
	blob = append(blob, v1(Zlib, zl, a)...)
	blob = append(blob, v1(Zstd, zs, b)...)
	blob = append(blob, make([]byte, 100)...)
	blob = append(blob, readTestdata(t, "empty.cbc")...)
	blob = append(blob, mustCompress(t, c, Options{Zlib: true, Version: 2, Level: 1})...)
	blob = append(blob, make([]byte, 5000)...)
	want := [][]byte{a, b, b, a, b, nil, c}
	ms, data, err := readAll(t, blob)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != len(want) {
		t.Fatalf("%d members, want %d", len(data), len(want))
	}
	for i := range want {
		if !bytes.Equal(data[i], want[i]) {
			t.Errorf("member %d: %d bytes, want %d", i, len(data[i]), len(want[i]))
		}
		if ms[i].PayloadSize < 0 || ms[i].End() > int64(len(blob)) {
			t.Errorf("member %d: bad extent %+v", i, ms[i])
		}
	}
	if ms[1].Offset != Alignment || ms[2].Offset != ms[1].End() {
		t.Errorf("offsets %d %d %d", ms[1].Offset, ms[2].Offset, ms[3].Offset)
	}
	// LLVM 22 rejects this; Decompress reads it through the Reader.
	if _, _, err := DecompressLLVM(blob); fmterr.LLVMMessage(err) != "Could not decompress embedded file contents: Src size is incorrect" {
		t.Errorf("DecompressLLVM: %v", err)
	}
	res, err := Decompress(blob)
	if err != nil || len(res) != len(want) {
		t.Fatalf("Decompress: %d results, %v", len(res), err)
	}
	for i := range want {
		if !bytes.Equal(res[i].Data, want[i]) || res[i].Computed() != res[i].HashValue() {
			t.Errorf("Decompress member %d wrong", i)
		}
	}
	// Skipping members without reading them works too, including v1 zlib.
	r := NewReader(bytes.NewReader(blob), int64(len(blob)))
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(want) {
		t.Errorf("skipping: %d members", n)
	}
}

// A v1 member's payload is its whole run of zstd frames: several data
// frames (as older writers cut them), trailing
// skippable frames (one here hides a planted CCOB), or none at all for an
// empty member.
func TestReaderV1FrameRuns(t *testing.T) {
	bundle := readTestdata(t, "bundle.bin")
	var frames []byte
	for _, part := range [][]byte{bundle[:5000], bundle[5000:30000], bundle[30000:]} {
		frames = zenc.Encode(frames, part, 3, 1)
	}
	multi := v1(Zstd, frames, bundle)
	v3 := mustCompress(t, bundle, Options{})
	skip := binary.LittleEndian.AppendUint32(nil, 0x184D2A50)
	skip = binary.LittleEndian.AppendUint32(skip, uint32(len(v3)))
	skip = append(skip, v3...)
	withSkip := append(mustCompress(t, bundle, Options{Version: 1}), skip...)
	empty := v1(Zstd, nil, nil)
	for name, tc := range map[string]struct {
		blob []byte
		want [][]byte
	}{
		"multi-frame v1":           {multi, [][]byte{bundle}},
		"multi-frame v1, pad, v3":  {append(pad(bytes.Clone(multi)), v3...), [][]byte{bundle, bundle}},
		"multi-frame v1, v3":       {append(bytes.Clone(multi), v3...), [][]byte{bundle, bundle}},
		"v1 + skippable, pad, v3":  {append(append(bytes.Clone(withSkip), 0, 0, 0), v3...), [][]byte{bundle, bundle}},
		"empty v1, pad, v3":        {append(append(bytes.Clone(empty), make([]byte, 64)...), v3...), [][]byte{nil, bundle}},
		"empty v1, v3":             {append(bytes.Clone(empty), v3...), [][]byte{nil, bundle}},
		"v3, multi-frame v1, pad ": {append(append(bytes.Clone(v3), multi...), make([]byte, 10)...), [][]byte{bundle, bundle}},
	} {
		_, data, err := readAll(t, tc.blob)
		if err != nil || len(data) != len(tc.want) {
			t.Errorf("%s: %d members, %v", name, len(data), err)
			continue
		}
		for i := range data {
			if !bytes.Equal(data[i], tc.want[i]) {
				t.Errorf("%s: member %d has %d bytes, want %d", name, i, len(data[i]), len(tc.want[i]))
			}
		}
		res, err := Decompress(tc.blob)
		if err != nil || len(res) != len(tc.want) {
			t.Errorf("%s: Decompress: %d results, %v", name, len(res), err)
		}
	}
	// A v1 header followed by bytes that start no frame is still corrupt.
	if _, _, err := readAll(t, v1(Zstd, []byte("garbage!"), []byte("x"))); !errors.Is(err, ErrCorrupt) {
		t.Errorf("v1 without a frame: %v", err)
	}
}

// "CCOB" inside compressed data (here in a skippable frame, which zstd
// decoders ignore) must not be taken for a member.
func TestReaderPlantedMagic(t *testing.T) {
	bundle := readTestdata(t, "bundle.bin")
	fake := mustCompress(t, []byte("fake"), Options{})
	skip := binary.LittleEndian.AppendUint32(nil, 0x184D2A5A)
	skip = binary.LittleEndian.AppendUint32(skip, uint32(len(fake)))
	skip = append(skip, fake...)
	frame := mustCompress(t, bundle, Options{})[headerLenV3:]
	for _, version := range []uint16{1, 3} {
		h := Header{Version: version, Method: Zstd, UncompressedSize: uint64(len(bundle))}
		sum := md5.Sum(bundle)
		copy(h.Hash[:], sum[:8])
		payload := append(bytes.Clone(skip), frame...)
		if version == 3 {
			h.TotalSize = uint64(h.Len() + len(payload))
		}
		blob := append(h.AppendHeader(nil), payload...)
		ms, data, err := readAll(t, blob)
		if err != nil || len(data) != 1 || !bytes.Equal(data[0], bundle) || ms[0].End() != int64(len(blob)) {
			t.Errorf("v%d: %d members, %v", version, len(data), err)
		}
		out, _, err := DecompressLLVM(blob)
		if err != nil || !bytes.Equal(out, bundle) {
			t.Errorf("v%d: DecompressLLVM: %v", version, err)
		}
	}
}

func TestReaderHashMismatch(t *testing.T) {
	b := bytes.Clone(readTestdata(t, "v3-default.cbc"))
	b[24] ^= 0xff
	r := NewReader(bytes.NewReader(b), int64(len(b)))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	var hm *HashMismatchError
	if !errors.As(err, &hm) || hm.Stored != 0x5f9372749e0260f0^0xff || hm.Computed != 0x5f9372749e0260f0 {
		t.Fatalf("err = %v", err)
	}
	if !bytes.Equal(data, readTestdata(t, "bundle.bin")) {
		t.Error("data not delivered before the hash error")
	}
	// LLVM ignores it, and so does Decompress.
	res, err := Decompress(b)
	if err != nil || res[0].Computed() == res[0].HashValue() {
		t.Errorf("Decompress: %v", err)
	}
}

// Lying, truncated and malformed inputs give clear errors without large
// allocations.
func TestReaderBadInputs(t *testing.T) {
	good := readTestdata(t, "v3-default.cbc")
	set := func(off int, v uint64) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint64(b[off:], v)
		return b
	}
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"total too small", set(8, 10), ErrSize},
		{"total past end", set(8, uint64(len(good)+1)), ErrSize},
		{"total huge", set(8, 1<<62), ErrSize},
		{"total short of the frame", set(8, uint64(len(good)-1)), ErrCorrupt},
		{"size 1 TiB", set(16, 1<<40+1), ErrSize},
		{"size beyond ratio", set(16, 1<<39), ErrSize},
		{"size smaller", set(16, 1000), ErrCorrupt},
		{"size larger", set(16, 50000), ErrSize},
		{"truncated", good[:len(good)-1], ErrSize},
		{"trailing garbage", append(bytes.Clone(good), 1, 2, 3), ErrTrailingData},
		{"trailing short CCOB", append(bytes.Clone(good), 'C', 'C', 'O', 'B'), ErrTrailingData},
		{"trailing bad header", append(bytes.Clone(good), good[:20]...), ErrHeaderTooSmall},
		{"payload flipped", func() []byte { b := bytes.Clone(good); b[40] ^= 0x55; return b }(), ErrCorrupt},
		{"v1 without frame", v1(Zstd, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, nil), ErrCorrupt},
		{"v1 zlib garbage", v1(Zlib, []byte{1, 2, 3}, []byte("x")), ErrCorrupt},
	}
	for _, tt := range tests {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		_, _, err := readAll(t, tt.in)
		runtime.ReadMemStats(&ms)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), "offset") {
			t.Errorf("%s: error does not say where: %v", tt.name, err)
		}
		if grew := ms.TotalAlloc - before; grew > 64<<20 {
			t.Errorf("%s: allocated %d bytes", tt.name, grew)
		}
	}
}

// A frame header whose window or content size lies must not make the
// decoder allocate it.
func TestLyingFrameHeader(t *testing.T) {
	// Single-segment frame claiming 2^40 bytes, then one 3-byte raw block.
	frame := []byte{0x28, 0xB5, 0x2F, 0xFD, 0xE0}
	frame = binary.LittleEndian.AppendUint64(frame, 1<<40)
	frame = append(frame, 0x19, 0, 0, 'a', 'b', 'c') // raw, last, size 3
	blob := append(Header{Version: 3, Method: Zstd, TotalSize: uint64(32 + len(frame)), UncompressedSize: 3}.AppendHeader(nil), frame...)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	_, _, err := DecompressLLVM(blob)
	runtime.ReadMemStats(&ms)
	if fmterr.LLVMMessage(err) != "Could not decompress embedded file contents: Data corruption detected" {
		t.Errorf("err = %v", err)
	}
	if grew := ms.TotalAlloc - before; grew > 16<<20 {
		t.Errorf("allocated %d bytes", grew)
	}
	// Window descriptor 2^31 (the most libzstd accepts) and 2^32 (too large).
	for wd, want := range map[byte]string{0xA8: "", 0xB0: "Could not decompress embedded file contents: Frame requires too much memory for decoding"} {
		f := []byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, wd, 0x19, 0, 0, 'a', 'b', 'c'}
		blob := append(Header{Version: 3, Method: Zstd, UncompressedSize: 3}.AppendHeader(nil), f...)
		out, _, err := DecompressLLVM(blob)
		got := ""
		if err != nil {
			got = fmterr.LLVMMessage(err)
		}
		if got != want || err == nil && string(out) != "abc" {
			t.Errorf("window %#x: %q, %v", wd, out, err)
		}
	}
}

// A header announcing 2^64-1 bytes must not shrink the decoder's window.
func TestHugeDeclaredSize(t *testing.T) {
	blob := bytes.Clone(readTestdata(t, "v3-default.cbc"))
	binary.LittleEndian.PutUint64(blob[16:], ^uint64(0))
	out, _, err := DecompressLLVM(blob)
	if err != nil || !bytes.Equal(out, readTestdata(t, "bundle.bin")) {
		t.Errorf("%d bytes, %v", len(out), err)
	}
}

// TestDecodeWhole: decoding a one-frame payload in one step gives what the
// streaming reader gives, output or error, on LLVM's files and on damaged
// copies of them.
func TestDecodeWhole(t *testing.T) {
	both := func(blob []byte) (whole, streamed string) {
		run := func() string {
			out, _, err := DecompressLLVM(blob)
			if err != nil {
				return "error: " + fmterr.LLVMMessage(err)
			}
			return fmt.Sprintf("%d bytes, md5 %x", len(out), md5.Sum(out))
		}
		defer func() { decodeWholeFrames = true }()
		whole = run()
		decodeWholeFrames = false
		return whole, run()
	}
	// Zeros compress far beyond any bundle: no buffer of their size is
	// allocated before decoding, the streaming reader takes them.
	zeros := make([]byte, 8<<20)
	blob := mustCompress(t, zeros, Options{})
	if _, ok := decodeWhole(blob[headerLenV3:], uint64(len(zeros))); ok {
		t.Error("decodeWhole took an implausible ratio")
	}
	if out, _, err := DecompressLLVM(blob); err != nil || !bytes.Equal(out, zeros) {
		t.Errorf("zeros: %v", err)
	}
	r := rand.New(rand.NewSource(7))
	for _, name := range []string{"v3-default.cbc", "v2-default.cbc", "v3-level19.cbc", "empty.cbc"} {
		blob := readTestdata(t, name)
		if w, s := both(blob); w != s || strings.HasPrefix(w, "error") {
			t.Fatalf("%s: whole %s, streamed %s", name, w, s)
		}
		h, err := ParseHeader(blob)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := decodeWhole(blob[h.Len():], h.UncompressedSize); !ok && h.UncompressedSize > 0 {
			t.Fatalf("%s: not decoded in one step", name)
		}
		for i := range 300 {
			bad := bytes.Clone(blob)
			switch i % 3 {
			case 0: // a flipped bit anywhere in the payload
				at := h.Len() + r.Intn(len(bad)-h.Len())
				bad[at] ^= 1 << r.Intn(8)
			case 1: // cut short
				bad = bad[:h.Len()+r.Intn(len(bad)-h.Len())]
			case 2: // a frame header byte changed (content size, flags)
				at := h.Len() + 4 + r.Intn(min(10, len(bad)-h.Len()-4))
				bad[at] = byte(r.Intn(256))
			}
			if w, s := both(bad); w != s {
				t.Fatalf("%s, damage %d: whole %s, streamed %s", name, i, w, s)
			}
		}
	}
}

// LimitOutput: a member decodes its first bytes with a small window, and
// fails past the limit; v1 zlib members are not limited.
func TestLimitOutput(t *testing.T) {
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(i*7 + i>>12)
	}
	for _, opt := range []Options{{Version: 3}, {Version: 2, Zlib: true}, {Version: 1}, {Version: 1, Zlib: true}} {
		var buf bytes.Buffer
		if _, err := Compress(&buf, data, opt); err != nil {
			t.Fatal(err)
		}
		r := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		r.LimitOutput(1 << 20)
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 1<<20)
		if _, err := io.ReadFull(r, head); err != nil || !bytes.Equal(head, data[:1<<20]) {
			t.Fatalf("%+v: first MiB: %v", opt, err)
		}
		_, err := io.Copy(io.Discard, r)
		if limited := !(opt.Zlib && opt.Version == 1); limited == (err == nil) {
			t.Errorf("%+v: reading past the limit: %v", opt, err)
		}
	}
}
