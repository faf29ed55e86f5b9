package textfmt_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/goffload/goffload/internal/format/textfmt"
)

// Bundle the host and device halves of an LLVM IR file (-type=ll), then
// read the bundle back: list its IDs and take one entry's payload.
func Example() {
	c, _ := textfmt.Comment("ll") // ";"
	var buf bytes.Buffer
	err := textfmt.Write(&buf, c, []textfmt.Source{
		{ID: "host-x86_64-unknown-linux-gnu-", R: strings.NewReader("define i32 @main() {\n  ret i32 0\n}\n")},
		{ID: "hip-amdgcn-amd-amdhsa--gfx906", R: strings.NewReader("define void @kernel() {\n  ret void\n}\n")},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(buf.String()) // starts with an empty line
	fmt.Println("---")

	fmt.Println(textfmt.List(buf.Bytes(), c))
	r := textfmt.NewReader(buf.Bytes(), c)
	for {
		id, ok := r.Next()
		if !ok {
			break
		}
		if !strings.HasSuffix(id, "gfx906") {
			continue // not wanted: the next search starts after its START line
		}
		p, err := r.Payload()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%q\n", p)
	}
	// Output:
	// ; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-
	// define i32 @main() {
	//   ret i32 0
	// }
	//
	// ; __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-
	//
	// ; __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906
	// define void @kernel() {
	//   ret void
	// }
	//
	// ; __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx906
	// ---
	// [host-x86_64-unknown-linux-gnu- hip-amdgcn-amd-amdhsa--gfx906]
	// "define void @kernel() {\n  ret void\n}\n"
}
