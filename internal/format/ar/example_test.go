package ar_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/goffload/goffload/internal/format/ar"
)

func Example() {
	// Write an archive as llvm-ar qcsD --format=gnu would.
	members := []ar.NewMember{
		{Name: "hello.txt", Data: strings.NewReader("hello\n"), Size: 6},
		{Name: "a-rather-long-member-name.txt", Data: strings.NewReader("odd"), Size: 3},
		{Name: "hello.txt", Data: strings.NewReader("again\n"), Size: 6}, // duplicates are kept
	}
	var buf bytes.Buffer
	if err := ar.WriteGNU(&buf, members); err != nil {
		log.Fatal(err)
	}

	// Read it back, streaming each member's data.
	r, err := ar.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "example.a")
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for {
		m, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		sr, err := m.Open()
		if err != nil {
			log.Fatal(err)
		}
		data, _ := io.ReadAll(sr)
		fmt.Printf("%s %o %q\n", m.Name, m.Mode, data)
	}
	// Output:
	// hello.txt 644 "hello\n"
	// a-rather-long-member-name.txt 644 "odd"
	// hello.txt 644 "again\n"
}

func ExampleFormatError() {
	bad := []byte("!<arch>\nabc")
	r, err := ar.NewReader(bytes.NewReader(bad), int64(len(bad)), "bad.a")
	if err == nil {
		_, err = r.Next()
	}
	var fe *ar.FormatError
	if errors.As(err, &fe) {
		fmt.Println(fe)
		fmt.Println(fe.LLVM) // what llvm-ar and llvm-offload-binary print
	}
	// Output:
	// bad.a: offset 8: header: only 3 bytes left for a 60-byte member header
	// truncated or malformed archive (remaining size of archive too small for next archive member header at offset 8)
}
