package bitcode_test

import (
	"fmt"
	"log"
	"os"

	"github.com/goffload/goffload/internal/format/bitcode"
)

func ExampleSymbols() {
	f, err := os.Open("testdata/mac-wrapper.bc")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	names, err := bitcode.Symbols(f, fi.Size())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(names)
	// Output: [_mac_func _mac_weak _use _mac_global]
}

func ExampleEmbeddedObjects() {
	f, err := os.Open("testdata/shapes.bc")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	objs, err := bitcode.EmbeddedObjects(f, fi.Size())
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range objs {
		fmt.Printf("%d bytes, magic % x\n", len(o), o[:4])
	}
	// Output:
	// 160 bytes, magic 10 ff 10 ad
	// 160 bytes, magic 10 ff 10 ad
	// 160 bytes, magic 10 ff 10 ad
	// 160 bytes, magic 10 ff 10 ad
}
