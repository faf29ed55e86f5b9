package bitcode

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func addSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.bc")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("BC\xc0\xde"))
	f.Add([]byte("\xde\xc0\x17\x0b\x00\x00\x00\x00\x14\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00BC\xc0\xde"))
}

func FuzzSymbols(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		Symbols(bytes.NewReader(data), int64(len(data)))
	})
}

func FuzzEmbeddedObjects(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		EmbeddedObjects(bytes.NewReader(data), int64(len(data)))
	})
}
