package offloadbin_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/goffload/goffload/internal/format/offloadbin"
)

func Example() {
	// Package one image as llvm-offload-binary 22 would.
	var buf bytes.Buffer
	err := offloadbin.Write(&buf, offloadbin.Image{
		ImageKind:   offloadbin.ImageObject,
		OffloadKind: offloadbin.OffloadHIP,
		Strings: []offloadbin.StringEntry{
			{Key: "arch", Value: "gfx906"},
			{Key: "triple", Value: "amdgcn-amd-amdhsa"},
		},
		Data: strings.NewReader("ABC"),
		Size: 3,
	})
	if err != nil {
		panic(err)
	}

	// Read it back.
	bins, err := offloadbin.ReadAll(bytes.NewReader(buf.Bytes()), int64(buf.Len()), offloadbin.V1Only())
	if err != nil {
		panic(err)
	}
	for _, b := range bins {
		fmt.Printf("%d bytes, %s image for %s %s (%s), %d-byte payload\n",
			b.Size, b.ImageKind, b.Triple(), b.Arch(), b.OffloadKind, b.ImageSize())
	}
	// Output:
	// 152 bytes, elf image for amdgcn-amd-amdhsa gfx906 (hip), 3-byte payload
}
