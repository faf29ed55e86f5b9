package offloadbin

import (
	"bytes"
	"strings"
	"testing"
)

func TestStringTable(t *testing.T) {
	// The table of r2.bin, which llvm-offload-binary 22.1.8 wrote for
	// --image=file=a.o,triple=x,noeq,=emptykey,weird=a=b,arch=gfx906,arch2=906:
	// tail merging ("906" inside "gfx906"), an empty key and an empty value.
	strs := []string{"", "emptykey", "arch", "gfx906", "triple", "x", "arch2", "906", "noeq", "", "weird", "a=b"}
	table, off := buildStringTable(strs)
	want := "\x00emptykey\x00x\x00noeq\x00arch\x00triple\x00weird\x00a=b\x00gfx906\x00arch2\x00"
	if string(table) != want {
		t.Errorf("table = %q, want %q", table, want)
	}
	if off[""] != 0 {
		t.Errorf("empty string at %d", off[""])
	}
	if g := off["gfx906"]; off["906"] != g+3 {
		t.Errorf("906 at %d, gfx906 at %d: not tail-merged", off["906"], g)
	}
	if table, _ := buildStringTable(nil); string(table) != "\x00" {
		t.Errorf("empty table = %q", table)
	}
}

func TestWriteP1(t *testing.T) {
	img := Image{
		ImageKind: ImageObject, OffloadKind: OffloadHIP,
		Strings: []StringEntry{{"arch", "gfx906"}, {"triple", "amdgcn-amd-amdhsa"}},
		Data:    strings.NewReader("ABC"), Size: 3,
	}
	var buf bytes.Buffer
	if err := Write(&buf, img); err != nil {
		t.Fatal(err)
	}
	if want := readGolden(t, "p1.bin"); !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("got\n% x\nwant\n% x", buf.Bytes(), want)
	}
}

func TestWriteShortData(t *testing.T) {
	img := Image{Data: strings.NewReader("AB"), Size: 3}
	if err := WriteImage(&bytes.Buffer{}, img); err == nil {
		t.Error("short image data accepted")
	}
}
