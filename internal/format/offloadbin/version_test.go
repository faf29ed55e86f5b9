package offloadbin

import (
	"bytes"
	"errors"
	"testing"

	"github.com/goffload/goffload/internal/test/offbintest"
)

type testImage struct {
	kind    ImageKind
	offload OffloadKind
	strs    []StringEntry
	data    string
}

// buildV2 lays out a version-2 or uncompressed version-3 binary
// (offbintest.BuildV2).
func buildV2(version uint32, imgs []testImage) []byte {
	var in []offbintest.Image
	for _, im := range imgs {
		x := offbintest.Image{Kind: uint16(im.kind), Offload: uint16(im.offload), Data: im.data}
		for _, s := range im.strs {
			x.Strings = append(x.Strings, [2]string{s.Key, s.Value})
		}
		in = append(in, x)
	}
	return offbintest.BuildV2(version, in)
}

func compressV3(t *testing.T, raw []byte, useZstd bool) []byte {
	return offbintest.CompressV3(raw, useZstd)
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
