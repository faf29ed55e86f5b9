package compress

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/test/llvmref"
	"github.com/klauspost/compress/zstd"
)

const bundleTargets = "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx906,hipv4-amdgcn-amd-amdhsa--gfx90a"

// unbundle runs LLVM's unbundler on in and returns the three outputs
// concatenated with separators, or the error text.
func unbundle(t *testing.T, bundler, dir, in string) (string, error) {
	t.Helper()
	outs := []string{filepath.Join(dir, "host"), filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	res := llvmref.Run(t, dir, nil, nil, bundler, "-type=bc", "-unbundle", bundleTargets, "-input="+in,
		"-output="+outs[0], "-output="+outs[1], "-output="+outs[2])
	if res.Code != 0 {
		return "", fmt.Errorf("%s", res.Stderr)
	}
	var sb strings.Builder
	for _, o := range outs {
		b, err := os.ReadFile(o)
		if err != nil {
			t.Fatal(err)
		}
		sb.Write(b)
		sb.WriteString("\x00--\x00")
	}
	return sb.String(), nil
}

// Our CCOBs, in every variant we write, unbundle with LLVM 22 to the same
// bytes as the uncompressed bundle.
func TestLLVMReadsOurs(t *testing.T) {
	bundler := llvmref.Need(t, "clang-offload-bundler")
	dir := t.TempDir()
	bundle := readTestdata(t, "bundle.bin")
	plain := filepath.Join(dir, "bundle.bin")
	os.WriteFile(plain, bundle, 0o666)
	want, err := unbundle(t, bundler, dir, plain)
	if err != nil {
		t.Fatal(err)
	}
	for i, opt := range []Options{
		{}, {Version: 2}, {Level: 1}, {Level: 19}, {Level: -3},
		{Zlib: true, Level: ZlibDefaultLevel}, {Zlib: true, Version: 2, Level: 1},
		{Version: 1}, {Version: 1, Zlib: true, Level: 9},
	} {
		var buf bytes.Buffer
		if _, err := Compress(&buf, bundle, opt); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("ours%d.cbc", i))
		os.WriteFile(p, buf.Bytes(), 0o666)
		got, err := unbundle(t, bundler, dir, p)
		if err != nil || got != want {
			t.Errorf("%+v: LLVM unbundle of our CCOB differs (%v)", opt, err)
		}
	}
}

// mutations of LLVM's own v3 file, and of zlib and checksummed variants,
// with the outcome LLVM gives for each.
func corruptInputs(t *testing.T) map[string][]byte {
	good := readTestdata(t, "v3-default.cbc")
	bundle := readTestdata(t, "bundle.bin")
	cases := map[string][]byte{}
	with := func(name string, f func(b []byte) []byte) { cases[name] = f(bytes.Clone(good)) }
	put64 := func(off int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[off:], v); return b }
	}
	for _, n := range []int{1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 100, 2000, len(good) - 33, len(good) - 32} {
		cases[fmt.Sprintf("truncated-%d", n)] = good[:len(good)-n]
	}
	with("trailing-nul", func(b []byte) []byte { return append(b, 0) })
	with("trailing-4-nul", func(b []byte) []byte { return append(b, 0, 0, 0, 0) })
	with("trailing-page", func(b []byte) []byte { return append(b, make([]byte, 4096)...) })
	with("concatenated", func(b []byte) []byte { return append(b, good...) })
	with("size-smaller", put64(16, uint64(len(bundle)-1)))
	with("size-half", put64(16, uint64(len(bundle)/2)))
	with("size-zero", put64(16, 0))
	with("size-bigger", put64(16, uint64(len(bundle)+1)))
	with("total-zero", put64(8, 0))
	with("total-huge", put64(8, 1<<40))
	with("hash-wrong", put64(24, 1))
	with("version-1", func(b []byte) []byte { b[4] = 1; return b })
	with("version-2", func(b []byte) []byte { b[4] = 2; return b })
	with("method-zlib", func(b []byte) []byte { b[6] = 0; return b })
	with("empty-payload", func(b []byte) []byte { return b[:32] })
	with("empty-payload-size0", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16:], 0); return b[:32] })
	for _, off := range []int{32, 35, 36, 37, 38, 40, 41, 42, 43, 44, 50, 200, 1000, 3000, len(good) - 1} {
		off := off
		with(fmt.Sprintf("flip-%d", off), func(b []byte) []byte { b[off] ^= 0x5a; return b })
	}
	with("reserved-bit", func(b []byte) []byte { b[36] |= 0x08; return b })
	with("dict-id", func(b []byte) []byte { b[36] |= 0x01; return b })
	rng := rand.New(rand.NewSource(1))
	for i := range 30 {
		b := bytes.Clone(good)
		off := 32 + rng.Intn(len(good)-32)
		b[off] = byte(rng.Intn(256))
		cases[fmt.Sprintf("random-%d-at-%d", i, off)] = b
	}
	// A frame with a checksum, and broken checksums.
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	frame := enc.EncodeAll(bundle, nil)
	ck := append(bytes.Clone(good[:32]), frame...)
	binary.LittleEndian.PutUint64(ck[8:], uint64(len(ck)))
	cases["checksum-ok"] = ck
	bad := bytes.Clone(ck)
	bad[len(bad)-1] ^= 1
	cases["checksum-bad"] = bad
	cases["checksum-truncated"] = ck[:len(ck)-2]
	cases["checksum-missing"] = ck[:len(ck)-4]
	// Two frames, a skippable frame holding "CCOB", a lying content size.
	two := append(bytes.Clone(good[:32]), enc.EncodeAll(bundle[:100], nil)...)
	two = append(two, enc.EncodeAll(bundle[100:], nil)...)
	cases["two-frames"] = two
	skip := append(bytes.Clone(good[:32]), 0x50, 0x2a, 0x4d, 0x18, 8, 0, 0, 0, 'C', 'C', 'O', 'B', 3, 0, 1, 0)
	cases["skippable-ccob"] = append(skip, good[32:]...)
	cases["skippable-truncated"] = append(bytes.Clone(good), 0x50, 0x2a, 0x4d, 0x18, 8, 0, 0, 0, 'C')
	// Hand-made frames: tiny payloads, a window too large, a raw block
	// above the 128 KiB block limit, RLE blocks, an empty raw block.
	hdr := func(size int, payload ...byte) []byte {
		b := Header{Version: 3, Method: Zstd, TotalSize: uint64(32 + len(payload)), UncompressedSize: uint64(size)}.AppendHeader(nil)
		return append(b, payload...)
	}
	magic := []byte{0x28, 0xB5, 0x2F, 0xFD}
	cases["payload-4"] = hdr(10, magic...)
	cases["payload-magic-fhd"] = hdr(10, append(bytes.Clone(magic), 0x20)...)
	cases["payload-8"] = hdr(10, append(bytes.Clone(magic), 0x20, 0x0a, 0x01, 0x00)...)
	cases["payload-garbage-8"] = hdr(10, 1, 2, 3, 4, 5, 6, 7, 8)
	cases["payload-garbage-20"] = hdr(10, bytes.Repeat([]byte{7}, 20)...)
	cases["window-2^32"] = hdr(3, append(bytes.Clone(magic), 0x00, 0xB0, 0x19, 0, 0, 'a', 'b', 'c')...)
	cases["window-2^31"] = hdr(3, append(bytes.Clone(magic), 0x00, 0xA8, 0x19, 0, 0, 'a', 'b', 'c')...)
	big := 200 << 10
	raw := append(bytes.Clone(magic), 0x00, 0x58) // window 8 MiB
	bh := uint32(big)<<3 | 0<<1 | 1
	raw = append(raw, byte(bh), byte(bh>>8), byte(bh>>16))
	raw = append(raw, make([]byte, big)...)
	cases["raw-block-200k"] = hdr(big, raw...)
	rle := append(bytes.Clone(magic), 0x00, 0x58)
	bh = uint32(big)<<3 | 1<<1 | 1
	cases["rle-block-200k"] = hdr(big, append(rle, byte(bh), byte(bh>>8), byte(bh>>16), 'x')...)
	rle = append(bytes.Clone(magic), 0x00, 0x58)
	bh = uint32(1000)<<3 | 1<<1 | 1
	cases["rle-block-too-big"] = hdr(999, append(rle, byte(bh), byte(bh>>8), byte(bh>>16), 'x')...)
	cases["raw-empty-blocks"] = hdr(3, append(bytes.Clone(magic), 0x00, 0x58, 0, 0, 0, 0, 0, 0, 0x19, 0, 0, 'a', 'b', 'c')...)
	cases["fcs-small"] = hdr(100, append(bytes.Clone(magic), 0x20, 2, 0x19, 0, 0, 'a', 'b', 'c')...)
	cases["fcs-large"] = hdr(100, append(bytes.Clone(magic), 0x20, 9, 0x19, 0, 0, 'a', 'b', 'c')...)
	// zlib payloads.
	var zb bytes.Buffer
	Compress(&zb, bundle, Options{Zlib: true, Level: ZlibDefaultLevel})
	z := zb.Bytes()
	cases["zlib-ok"] = z
	cases["zlib-truncated"] = z[:len(z)-10]
	cases["zlib-trailing"] = append(bytes.Clone(z), good...)
	zs := bytes.Clone(z)
	binary.LittleEndian.PutUint64(zs[16:], uint64(len(bundle)-1))
	cases["zlib-size-smaller"] = zs
	zs = bytes.Clone(z)
	binary.LittleEndian.PutUint64(zs[16:], 0)
	cases["zlib-size-zero"] = zs
	zc := bytes.Clone(z)
	zc[len(zc)-2] ^= 0xff
	cases["zlib-adler"] = zc
	zf := bytes.Clone(z)
	zf[500] ^= 0xff
	cases["zlib-flip"] = zf
	cases["zlib-empty"] = z[:32]
	zh := bytes.Clone(z)
	zh[32] = 0x79
	cases["zlib-header"] = zh
	return cases
}

// fmterr.LLVMMessage(DecompressLLVM(x)) is LLVM's error for each corrupt input, and
// DecompressLLVM succeeds exactly when LLVM does.
func TestLLVMErrors(t *testing.T) {
	bundler := llvmref.Need(t, "clang-offload-bundler")
	dir := t.TempDir()
	cases := corruptInputs(t)
	llvmSays := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan bool, 4) // the runs are mostly process start-up
	for name, blob := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, blob, 0o666)
		sem <- true
		wg.Go(func() {
			defer func() { <-sem }()
			res := llvmref.Run(t, dir, nil, nil, bundler, "-type=bc", "-list", "-input="+p)
			msg := ""
			if res.Code != 0 {
				s := strings.TrimSpace(string(res.Stderr))
				_, msg, _ = strings.Cut(s, "error: Failed to decompress input: ")
				if msg == "" {
					// Decompression worked; the bundle inside was bad.
					msg = "(decompressed; " + s + ")"
				}
			}
			mu.Lock()
			llvmSays[name] = msg
			mu.Unlock()
		})
	}
	wg.Wait()
	for name, blob := range cases {
		llvmMsg := llvmSays[name]
		_, _, err := DecompressLLVM(blob)
		ours := ""
		if err != nil {
			ours = fmterr.LLVMMessage(err)
		}
		if strings.HasPrefix(llvmMsg, "(decompressed") {
			if err != nil {
				t.Errorf("%s: LLVM decompressed it, we say %v", name, err)
			}
			continue
		}
		if ours != llvmMsg && llvmMsg == "" && err != nil && strings.Contains(err.Error(), "stream overrun") {
			// libzstd tolerates a sequence bitstream read past its end
			// (and produces garbage, which LLVM does not check); the Go
			// decoder rejects it. A known, accepted difference.
			t.Logf("%s: LLVM decodes garbage, we reject it: %v", name, err)
			continue
		}
		if ours != llvmMsg && knownDifferences[name] != "" {
			t.Logf("%s: known difference (%s): LLVM says %q, we say %q", name, knownDifferences[name], llvmMsg, ours)
			continue
		}
		if ours != llvmMsg {
			t.Errorf("%s: LLVM says %q, we say %q (%v)", name, llvmMsg, ours, err)
		}
	}
}

// knownDifferences lists corrupt inputs on which our error text differs
// from LLVM's, and why.
var knownDifferences = map[string]string{
	// The literals-size field shrunk by the flip: libzstd 1.5.4 decodes
	// literals into the output buffer and runs out of room while
	// executing sequences (dstSize_tooSmall); the Go decoder finds the
	// block inconsistent (corruption). Not reproducible without decoding
	// as libzstd does.
	"flip-43": "literals and sequences disagree",
}

// Inputs larger than the Go encoder's default window (8 MiB) with a repeat
// 6 MiB back: LLVM's long-distance matching finds it, so must we, and each
// side must read the other's frames (window beyond 8 MiB).
func TestLLVMLongRange(t *testing.T) {
	bundler := llvmref.Need(t, "clang-offload-bundler")
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	half := make([]byte, 6<<20)
	rand.New(rand.NewSource(7)).Read(half)
	host := filepath.Join(dir, "host")
	dev := filepath.Join(dir, "dev")
	os.WriteFile(host, half, 0o666)
	os.WriteFile(dev, half, 0o666)
	theirs := filepath.Join(dir, "theirs.cbc")
	res := llvmref.Run(t, dir, nil, nil, bundler, "-type=bc", "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx906",
		"-input="+host, "-input="+dev, "-output="+theirs, "-compress")
	if res.Code != 0 {
		t.Fatalf("bundler: %s", res.Stderr)
	}
	blob, _ := os.ReadFile(theirs)
	if len(blob) > 7<<20 {
		t.Fatalf("LLVM did not find the long repeat: %d bytes", len(blob))
	}
	bundle, h, err := DecompressLLVM(blob)
	if err != nil || HashOf(bundle) != h.HashValue() {
		t.Fatalf("reading LLVM's: %v", err)
	}
	ours := mustCompress(t, bundle, Options{Level: -5})
	if len(ours) > 7<<20 {
		t.Errorf("our CCOB is %d bytes: the window does not reach the repeat", len(ours))
	}
	p := filepath.Join(dir, "ours.cbc")
	os.WriteFile(p, ours, 0o666)
	out := filepath.Join(dir, "out")
	res = llvmref.Run(t, dir, nil, nil, bundler, "-type=bc", "-unbundle", "-targets=hipv4-amdgcn-amd-amdhsa--gfx906", "-input="+p, "-output="+out)
	got, _ := os.ReadFile(out)
	if res.Code != 0 || !bytes.Equal(got, half) {
		t.Errorf("LLVM unbundle of ours: %s", res.Stderr)
	}
}
