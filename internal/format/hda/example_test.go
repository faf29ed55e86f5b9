package hda_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/format/hda"
)

// Split a heterogeneous device archive into one archive per GPU, as
// clang-offload-bundler -type=a -unbundle does. testdata/libt.a holds an ELF
// fat object (memA.o), a binary bundle (memB.o), a compressed bundle and a
// plain object. A code object stored for plain gfx906 goes to the
// gfx906:xnack+ archive too, and member names follow LLVM's pattern
// <stem>-<stored ID><stem><ext>, ':' replaced by '_'. Each archive is
// written to an io.Writer: here memory, compared with LLVM 22's.
func Example() {
	in, err := os.Open("testdata/libt.a")
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		log.Fatal(err)
	}
	res, err := hda.Unbundle(hda.Options{
		Archive: in, ArchiveSize: fi.Size(), ArchiveName: "libt.a",
		Targets: []string{"hip-amdgcn-amd-amdhsa--gfx906:xnack+", "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"},
		// Decompress is left nil: compressed members are inflated into
		// temporary files.
	})
	if err != nil {
		log.Fatal(err)
	}
	defer res.Close()
	outs := res.Outputs
	for i, name := range []string{"gfx906xp.a", "gfx90axp.a"} {
		var got bytes.Buffer
		if err := outs[i].WriteArchive(&got); err != nil {
			log.Fatal(err)
		}
		llvm, err := os.ReadFile(filepath.Join("testdata", name)) // LLVM 22's output
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(outs[i].Target, "same as LLVM 22's:", bytes.Equal(got.Bytes(), llvm))
		r, err := ar.NewReader(bytes.NewReader(got.Bytes()), int64(got.Len()), name)
		if err != nil {
			log.Fatal(err)
		}
		for {
			m, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println("  ", m.Name, m.Size)
		}
		r.Close()
	}
	// Output:
	// hip-amdgcn-amd-amdhsa--gfx906:xnack+ same as LLVM 22's: true
	//    memA-hip-amdgcn-amd-amdhsa--gfx906memA.bc 3276
	//    memB-hip-amdgcn-amd-amdhsa--gfx906_xnack+memB.bc 9
	// hip-amdgcn-amd-amdhsa--gfx90a:xnack+ same as LLVM 22's: true
	//    memA-hip-amdgcn-amd-amdhsa--gfx90a_xnack+memA.bc 3532
}
