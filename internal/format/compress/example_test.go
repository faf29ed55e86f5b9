package compress_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/compress"
)

func Example() {
	bundle := []byte("__CLANG_OFFLOAD_BUNDLE__ ... a bundle ...")
	var buf bytes.Buffer
	h, err := compress.Compress(&buf, bundle, compress.Options{}) // LLVM 22's defaults: v3, zstd, level 3
	if err != nil {
		panic(err)
	}
	fmt.Println(h.Version, h.Method, h.UncompressedSize, compress.FormatHash(h.HashValue()))

	// Two members with padding, as in a linked fat binary.
	blob := append(buf.Bytes(), make([]byte, 100)...)
	blob = append(blob, buf.Bytes()...)
	r := compress.NewReader(bytes.NewReader(blob), int64(len(blob)))
	for {
		m, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		data, err := io.ReadAll(r)
		var hm *compress.HashMismatchError
		if errors.As(err, &hm) {
			fmt.Println("hash mismatch") // LLVM would go on
		} else if err != nil {
			panic(err)
		}
		fmt.Printf("member of %d bytes: %q\n", m.UncompressedSize, data[:24])
	}

	// LLVM 22 itself reads one CCOB only; fmterr.LLVMMessage gives its words.
	_, _, err = compress.DecompressLLVM(blob)
	fmt.Println(fmterr.LLVMMessage(err))
	// Output:
	// 3 zstd 41 0xa9ecd4bd5a014cd5
	// member of 41 bytes: "__CLANG_OFFLOAD_BUNDLE__"
	// member of 41 bytes: "__CLANG_OFFLOAD_BUNDLE__"
	// Could not decompress embedded file contents: Src size is incorrect
}
