package bitcode

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/bitcode/internal/bitstream"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// TestDiffBlockLengthFlips flips single bits in the length words of the
// blocks of a module. llvm-ar 22 reads each module lazily: it skips
// METADATA and FUNCTION blocks by their length (a length past the module's
// end is "can't skip to bit N from M", one inside it lands on bits that do
// not decode), and reads the other blocks to their END_BLOCK, ignoring
// their length. Where it warns, Symbols fails with its message; where it
// does not, Symbols gives its symbols.
func TestDiffBlockLengthFlips(t *testing.T) {
	clang := llvmref.Need(t, "clang")
	ar := llvmref.Need(t, "llvm-ar")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.c"), []byte("int f(void) { return 1; }\nint h(int x) { return x * 3; }\nint g = 2;\n"), 0o644)
	if r := llvmref.Run(t, dir, nil, nil, clang, "--target=amdgcn-amd-amdhsa", "-mcpu=gfx906", "-nogpulib", "-c", "-emit-llvm", "f.c", "-o", "f.bc"); r.Code != 0 {
		t.Fatalf("clang: %s", r.Stderr)
	}
	bc, err := os.ReadFile(filepath.Join(dir, "f.bc"))
	if err != nil {
		t.Fatal(err)
	}
	// The byte offset of the length word of each block in the module.
	f, err := openFile(bytes.NewReader(bc), int64(len(bc)))
	if err != nil {
		t.Fatal(err)
	}
	c := bitstream.NewCursor(bytes.NewReader(bc), f.off, f.size)
	if err := c.JumpTo(f.mods[0].pos); err != nil {
		t.Fatal(err)
	}
	if err := c.EnterBlock(blockModule); err != nil {
		t.Fatal(err)
	}
	type block struct {
		id      uint64
		lenWord int64
	}
	var blocks []block
	for {
		e, err := c.Advance()
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == bitstream.KindEndBlock {
			break
		}
		if e.Kind == bitstream.KindRecord {
			if err := c.SkipRecord(e.ID); err != nil {
				t.Fatal(err)
			}
			continue
		}
		// The abbreviation width (VBR4: each chunk's high bit says
		// another follows), then the length, 32-bit aligned.
		bitAt := func(p int64) byte { return bc[f.off+p/8] >> (p % 8) & 1 }
		p := c.Pos()
		for bitAt(p+3) == 1 {
			p += 4
		}
		p += 4
		blocks = append(blocks, block{e.ID, f.off + (p+31)/32*4})
		if e.ID == bitstream.BlockInfoID {
			err = c.ReadBlockInfoBlock()
		} else {
			err = c.SkipBlock()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var ids []uint64
	for _, b := range blocks {
		ids = append(ids, b.id)
	}
	for _, want := range []uint64{blockType, blockConstants, blockMetadata, blockFunction} {
		if !slices.Contains(ids, want) {
			t.Fatalf("no block %d in the module (blocks %v)", want, ids)
		}
	}
	warned := map[uint64]int{}
	for _, b := range blocks {
		for _, bit := range []int{0, 1, 3, 7, 12, 20, 31} {
			name := fmt.Sprintf("block%d-bit%d", b.id, bit)
			t.Run(name, func(t *testing.T) {
				m := bytes.Clone(bc)
				m[b.lenWord+int64(bit/8)] ^= 1 << (bit % 8)
				os.WriteFile(filepath.Join(dir, "m.bc"), m, 0o644)
				os.Remove(filepath.Join(dir, "x.a"))
				r := llvmref.Run(t, dir, nil, nil, ar, "qcs", "--format=gnu", "x.a", "m.bc")
				if r.Code != 0 {
					t.Fatalf("llvm-ar: %s", r.Stderr)
				}
				warning := strings.TrimPrefix(strings.TrimSpace(string(r.Stderr)), "warning: 'm.bc': ")
				got, err := Symbols(bytes.NewReader(m), int64(len(m)))
				if warning != "" {
					warned[b.id]++
					if err == nil || fmterr.LLVMMessage(err) != warning {
						t.Errorf("llvm-ar warns %q; Symbols gives %v, %v", warning, got, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("llvm-ar reads it; Symbols: %v", err)
				}
				a, err := os.ReadFile(filepath.Join(dir, "x.a"))
				if err != nil {
					t.Fatal(err)
				}
				if want := arSymbols(t, a); !slices.Equal(got, want) {
					t.Errorf("symbols %q, llvm-ar %q", got, want)
				}
			})
		}
	}
	if warned[blockMetadata] == 0 || warned[blockFunction] == 0 {
		t.Errorf("llvm-ar warned for %v flips by block: the cases do not test what they should", warned)
	}
}
