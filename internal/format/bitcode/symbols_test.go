package bitcode

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rebuildNeeded lists testdata files without a usable irsymtab.
var rebuildNeeded = map[string]bool{}

func readSyms(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			s = append(s, l)
		}
	}
	return s
}

func TestSymbolsGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.bc")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Symbols(bytes.NewReader(data), int64(len(data)))
			if rebuildNeeded[filepath.Base(f)] {
				if !errors.Is(err, ErrSymtabRebuild) {
					t.Fatalf("got %q, %v; want ErrSymtabRebuild", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := readSyms(t, strings.TrimSuffix(f, ".bc")+".syms")
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("Symbols:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestIRSymbolsGolden checks the IR-record fallback against the same golden
// files, for inputs it supports.
func TestIRSymbolsGolden(t *testing.T) {
	unsupported := map[string]bool{"syms.bc": true /* module asm */}
	files, _ := filepath.Glob("testdata/*.bc")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			bf, err := openFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := bf.irSymbols()
			if unsupported[filepath.Base(f)] {
				if !errors.Is(err, ErrSymtabRebuild) {
					t.Fatalf("got %q, %v; want ErrSymtabRebuild", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := readSyms(t, strings.TrimSuffix(f, ".bc")+".syms")
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("irSymbols:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestSymbolsOtherProducer checks files whose irsymtab another LLVM release
// wrote: the symbols come from the IR (tmpl.bc) or, where the IR has module
// asm, from the old table (syms.bc). llvm-ar 22 lists the same names.
func TestSymbolsOtherProducer(t *testing.T) {
	for _, name := range []string{"syms", "tmpl"} {
		data, err := os.ReadFile("testdata/" + name + ".bc")
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.LastIndex(data, []byte(symtabProducer))
		if i < 0 {
			t.Fatal("producer not found")
		}
		copy(data[i:], "21.1.0")
		got, err := Symbols(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		want := readSyms(t, "testdata/"+name+".syms")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: got %q\nwant %q", name, got, want)
		}
	}
}
