package magic_test

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/goffload/goffload/internal/format/magic"
)

func ExampleIdentify() {
	// A COFF file header: machine (x86-64 here), section count, ...
	coff := make([]byte, 20)
	binary.LittleEndian.PutUint16(coff, 0x8664)
	k := magic.Identify(coff)
	fmt.Println(k, k.IsObject())

	// ARM (0x1c0) is a machine Microsoft defines but LLVM 22 does not
	// take for a COFF object.
	binary.LittleEndian.PutUint16(coff, 0x1c0)
	fmt.Println(magic.Identify(coff))

	fmt.Println(magic.Identify([]byte("!<arch>\n")))
	// Output:
	// COFF object true
	// unknown
	// archive
}

func ExampleIdentifyReader() {
	// An MS-DOS stub whose PE signature lies past the first magic.Len
	// bytes: Identify on a prefix cannot see it, IdentifyReader follows
	// the pointer at 0x3c.
	image := make([]byte, 0x104)
	copy(image, "MZ")
	binary.LittleEndian.PutUint32(image[0x3c:], 0x100)
	copy(image[0x100:], "PE\x00\x00")

	fmt.Println(magic.Identify(image[:magic.Len]))
	k, err := magic.IdentifyReader(bytes.NewReader(image), int64(len(image)))
	fmt.Println(k, k.IsObject(), err)
	// Output:
	// unknown
	// PE executable true <nil>
}
