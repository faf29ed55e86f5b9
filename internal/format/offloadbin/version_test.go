package offloadbin

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/klauspost/compress/zstd"
)

type testImage struct {
	kind    ImageKind
	offload OffloadKind
	strs    []StringEntry
	data    string
}

// buildV2 lays out a version-2 or uncompressed version-3 binary as newer
// LLVM describes it: header, all entries, all 24-byte string entries, one
// string table, the images concatenated.
func buildV2(version uint32, imgs []testImage) []byte {
	le := binary.LittleEndian
	hsize := 32
	if version >= 3 {
		hsize = 40
	}
	nstr := 0
	for _, im := range imgs {
		nstr += len(im.strs)
	}
	tabOff := hsize + 40*len(imgs) + 24*nstr
	var tab []byte
	strOff := map[string]int{}
	add := func(s string) int {
		if o, ok := strOff[s]; ok {
			return o
		}
		strOff[s] = tabOff + len(tab)
		tab = append(append(tab, s...), 0)
		return strOff[s]
	}
	var ents, sents []byte
	imgOff := 0
	for _, im := range imgs {
		for _, s := range im.strs {
			add(s.Key)
			add(s.Value)
		}
	}
	dataOff := alignUp(int64(tabOff + len(tab)))
	seOff := hsize + 40*len(imgs)
	for _, im := range imgs {
		e := make([]byte, 40)
		le.PutUint16(e[0:], uint16(im.kind))
		le.PutUint16(e[2:], uint16(im.offload))
		le.PutUint64(e[8:], uint64(seOff))
		le.PutUint64(e[16:], uint64(len(im.strs)))
		le.PutUint64(e[24:], uint64(dataOff)+uint64(imgOff))
		le.PutUint64(e[32:], uint64(len(im.data)))
		ents = append(ents, e...)
		for _, s := range im.strs {
			se := make([]byte, 24)
			le.PutUint64(se[0:], uint64(strOff[s.Key]))
			le.PutUint64(se[8:], uint64(strOff[s.Value]))
			le.PutUint64(se[16:], uint64(len(s.Value)))
			sents = append(sents, se...)
			seOff += 24
		}
		imgOff += len(im.data)
	}
	out := make([]byte, hsize)
	copy(out, Magic)
	le.PutUint32(out[4:], version)
	le.PutUint64(out[16:], uint64(hsize))
	le.PutUint64(out[24:], uint64(len(imgs)))
	out = append(append(append(out, ents...), sents...), tab...)
	out = append(out, make([]byte, int(dataOff)-len(out))...)
	for _, im := range imgs {
		out = append(out, im.data...)
	}
	out = append(out, make([]byte, int(alignUp(int64(len(out))))-len(out))...)
	le.PutUint64(out[8:], uint64(len(out)))
	return out
}

func compressV3(t *testing.T, raw []byte, useZstd bool) []byte {
	var body bytes.Buffer
	if useZstd {
		zw, _ := zstd.NewWriter(&body)
		zw.Write(raw[40:])
		zw.Close()
	} else {
		zw := zlib.NewWriter(&body)
		zw.Write(raw[40:])
		zw.Close()
	}
	out := append(bytes.Clone(raw[:40]), body.Bytes()...)
	binary.LittleEndian.PutUint64(out[8:], uint64(len(out)))
	binary.LittleEndian.PutUint64(out[32:], uint64(len(raw)))
	return append(out, make([]byte, int(alignUp(int64(len(out))))-len(out))...)
}

var v2Images = []testImage{
	{ImageBitcode, OffloadHIP, []StringEntry{{"triple", "amdgcn-amd-amdhsa"}, {"arch", "gfx906"}}, "first image"},
	{ImageObject, OffloadOpenMP, []StringEntry{{"triple", "nvptx64-nvidia-cuda"}, {"arch", "sm_70"}, {"k", ""}}, "second"},
}

func checkV2(t *testing.T, name string, data []byte, version uint32) {
	t.Helper()
	bins, err := ReadAll(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(bins) != 2 {
		t.Fatalf("%s: %d binaries, want 2", name, len(bins))
	}
	for i, b := range bins {
		want := v2Images[i]
		img := make([]byte, b.ImageSize())
		b.Image().ReadAt(img, 0)
		if b.Version != version || b.Index != i || b.ImageKind != want.kind || b.OffloadKind != want.offload ||
			string(img) != want.data || len(b.Strings) != len(want.strs) {
			t.Errorf("%s: binary %d = %+v image %q", name, i, b, img)
			continue
		}
		for j := range want.strs {
			if b.Strings[j] != want.strs[j] {
				t.Errorf("%s: binary %d string %d = %q, want %q", name, i, j, b.Strings[j], want.strs[j])
			}
		}
	}
	// LLVM 22 rejects every version but 1.
	if _, err := ReadAll(bytes.NewReader(data), int64(len(data)), V1Only()); !errors.Is(err, ErrInvalid) {
		t.Errorf("%s: V1Only error %v, want ErrInvalid", name, err)
	}
}

func TestReadV2V3(t *testing.T) {
	v2 := buildV2(2, v2Images)
	checkV2(t, "v2", v2, 2)
	v3 := buildV2(3, v2Images)
	checkV2(t, "v3", v3, 3)
	checkV2(t, "v3 zlib", compressV3(t, v3, false), 3)
	checkV2(t, "v3 zstd", compressV3(t, v3, true), 3)

	// Two compressed binaries back to back, each padded to 8.
	z := compressV3(t, v3, false)
	both := append(bytes.Clone(z), z...)
	bins, err := ReadAll(bytes.NewReader(both), int64(len(both)))
	if err != nil || len(bins) != 4 {
		t.Errorf("two compressed binaries: %d images, err %v", len(bins), err)
	}

	// A corrupt compressed body is an error, not a panic.
	bad := bytes.Clone(z)
	for i := 48; i < len(bad)-8; i++ {
		bad[i] ^= 0x5a
	}
	if _, err := ReadAll(bytes.NewReader(bad), int64(len(bad))); err == nil {
		t.Error("corrupt compressed body accepted")
	}
	// An inflated size beyond the limit is refused before decompressing.
	big := patch(z, 32, 1<<40, 8)
	if _, err := ReadAll(bytes.NewReader(big), int64(len(big))); !errors.Is(err, ErrInvalid) {
		t.Errorf("huge inflated size: %v", err)
	}
}
