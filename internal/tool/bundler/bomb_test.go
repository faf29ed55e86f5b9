//go:build unix

package bundler_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
)

// bombCCOB returns a CCOB (v3, zstd) of a binary bundle with an empty host
// entry and a device entry of size zero bytes, made of RLE blocks: 4 bytes
// per 128 KiB, so a few KB declare gigabytes. The frame's window is 128 KiB.
func bombCCOB(size uint64) []byte {
	le := binary.LittleEndian
	ids := []string{host + "-", gfx906}
	hdrLen := 24 + 8
	for _, id := range ids {
		hdrLen += 24 + len(id)
	}
	b := []byte("__CLANG_OFFLOAD_BUNDLE__")
	b = le.AppendUint64(b, 2)
	b = le.AppendUint64(b, uint64(hdrLen))
	b = le.AppendUint64(b, 0)
	b = le.AppendUint64(b, uint64(len(ids[0])))
	b = append(b, ids[0]...)
	b = le.AppendUint64(b, uint64(hdrLen))
	b = le.AppendUint64(b, size)
	b = le.AppendUint64(b, uint64(len(ids[1])))
	b = append(b, ids[1]...)
	total := uint64(len(b)) + size
	z := []byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x38} // no content size, 128 KiB window
	block := func(last bool, typ, n int) {
		v := uint32(n)<<3 | uint32(typ)<<1
		if last {
			v |= 1
		}
		z = append(z, byte(v), byte(v>>8), byte(v>>16))
	}
	block(size == 0, 0, len(b)) // raw: the bundle's header
	z = append(z, b...)
	for rest := size; rest > 0; {
		n := min(rest, 128<<10)
		rest -= n
		block(rest == 0, 1, int(n)) // RLE: n zeros
		z = append(z, 0)
	}
	c := []byte("CCOB")
	c = le.AppendUint16(c, 3)
	c = le.AppendUint16(c, 1)
	c = le.AppendUint64(c, uint64(32+len(z)))
	c = le.AppendUint64(c, total)
	c = le.AppendUint64(c, 0)
	return append(c, z...)
}

// runRSS runs bin in dir and returns its output, exit code and peak RSS in
// KB.
func runRSS(t *testing.T, dir, bin string, args ...string) (string, int, int64) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("%s did not run", bin)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		t.Skip("no rusage")
	}
	return out.String(), cmd.ProcessState.ExitCode(), int64(ru.Maxrss)
}

// A compressed bundle decompressing to a gigabyte is decompressed as a
// stream: -list keeps only the bundle's start, -unbundle goes through a
// temporary file, so that peak memory stays that of the decoder's window
// (issue 14, item 2). Before, the whole bundle was held in memory (and
// more while it grew): about 2 GB here, and a 121 KB CCOB declaring 3.5 GB
// died of "fatal error: out of memory" under a 4 GB address-space limit.
// LLVM 22 lists and unbundles it (given the memory: 3.5 GB and 7 GB for
// the 3.5 GB bomb), as we do.
func TestDecompressionBomb(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("decompresses a gigabyte")
	}
	bin := ours.Path(t)
	const size = 1 << 30
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bomb.cbc"), bombCCOB(size), 0o644); err != nil {
		t.Fatal(err)
	}
	maxKB := int64(100 << 10)
	if raceEnabled {
		maxKB *= 3 // the race detector's shadow memory
	}
	out, code, rss := runRSS(t, dir, bin, "-type=bc", "-list", "-input=bomb.cbc")
	want := gfx906 + "\n" + host + "-\n"
	if code != 0 || out != want {
		t.Errorf("-list: exit %d, output %q, want %q", code, out, want)
	}
	if rss > maxKB {
		t.Errorf("-list: peak RSS %d KB, want at most %d KB", rss, maxKB)
	}
	out, code, rss = runRSS(t, dir, bin, "-type=bc", "-unbundle", "-input=bomb.cbc",
		"-targets="+host+","+gfx906, "-output=h", "-output=d")
	if code != 0 {
		t.Errorf("-unbundle: exit %d: %s", code, out)
	}
	if rss > maxKB {
		t.Errorf("-unbundle: peak RSS %d KB, want at most %d KB", rss, maxKB)
	}
	fi, err := os.Stat(filepath.Join(dir, "d"))
	if err != nil || fi.Size() != size {
		t.Errorf("-unbundle: device output %v, %v; want %d bytes", fi, err, size)
	}
	os.Remove(filepath.Join(dir, "d"))
	if ref := llvmref.Path("clang-offload-bundler"); ref != "" {
		got, code, _ := runRSS(t, dir, ref, "-type=bc", "-list", "-input=bomb.cbc")
		if code != 0 || got != want {
			t.Errorf("LLVM 22 -list: exit %d, %q; want %q", code, got, want)
		}
	}
	// A damaged end is still found, with LLVM's message: the whole
	// payload is decoded, only not kept.
	bad := bombCCOB(size)
	bad = bad[:len(bad)-2]
	binary.LittleEndian.PutUint64(bad[8:], uint64(len(bad)))
	os.WriteFile(filepath.Join(dir, "bad.cbc"), bad, 0o644)
	out, code, _ = runRSS(t, dir, bin, "-type=bc", "-list", "-input=bad.cbc")
	if code == 0 || !strings.Contains(out, "Failed to decompress input") {
		t.Errorf("-list of a truncated CCOB: exit %d, %q", code, out)
	}
	if ref := llvmref.Path("clang-offload-bundler"); ref != "" {
		got, rcode, _ := runRSS(t, dir, ref, "-type=bc", "-list", "-input=bad.cbc")
		if rcode != code || strings.TrimPrefix(got, ref) != strings.TrimPrefix(out, bin) {
			t.Errorf("truncated CCOB: LLVM 22 exit %d %q, ours exit %d %q", rcode, got, code, out)
		}
	}
}
