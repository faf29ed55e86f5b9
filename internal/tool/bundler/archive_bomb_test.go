//go:build unix

package bundler_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/tool/bundler"
)

// bombArchive writes an archive whose members are a small plain member and
// a CCOB (see bombCCOB) decompressing to a bundle with a device entry of
// size zero bytes.
func bombArchive(t *testing.T, path string, size uint64) {
	t.Helper()
	c := bombCCOB(size)
	plain := []byte("plain member")
	var b bytes.Buffer
	err := ar.WriteGNU(&b, []ar.NewMember{
		{Name: "plain.txt", Data: bytes.NewReader(plain), Size: int64(len(plain))},
		{Name: "bomb.o", Data: bytes.NewReader(c), Size: int64(len(c))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A compressed member of a heterogeneous archive is decompressed as a
// stream into a temporary file (issue 14): peak memory stays bounded
// whatever the member decompresses to. Before, the member was decompressed
// in memory: 1.5 GB peak RSS for this 512 MiB member, against 6 MB after
// (24 MB under -race).
func TestArchiveDecompressionBomb(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("decompresses 512 MiB")
	}
	bin := ours.Path(t)
	const size = 512 << 20
	dir := t.TempDir()
	bombArchive(t, filepath.Join(dir, "lib.a"), size)
	maxKB := int64(150 << 10)
	if raceEnabled {
		maxKB *= 3 // the race detector's shadow memory
	}
	out, code, rss := runRSS(t, dir, bin, "-type=a", "-unbundle", "-input=lib.a",
		"-targets="+gfx906, "-output=d.a")
	t.Logf("-type=a -unbundle of a %d MiB CCOB member: peak RSS %d KB", size>>20, rss)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if rss > maxKB {
		t.Errorf("peak RSS %d KB, want at most %d KB", rss, maxKB)
	}
	f, err := os.Open(filepath.Join(dir, "d.a"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	rd, err := ar.NewReader(f, fi.Size(), "d.a")
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	ms, err := rd.Members()
	if err != nil || len(ms) != 1 {
		t.Fatalf("output archive: %d members, %v; want 1", len(ms), err)
	}
	if ms[0].Size != size {
		t.Errorf("output member %s: %d bytes, want %d", ms[0].Name, ms[0].Size, size)
	}
}

// A member decompressing to more than the cap is a clear error naming the
// archive and member, with no output written.
func TestArchiveDecompressedCap(t *testing.T) {
	const limit = 1 << 20
	defer bundler.SetMaxDecompressed(limit)()
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.a")
	bombArchive(t, lib, 4*limit)
	out := filepath.Join(dir, "d.a")
	var stdout, stderr bytes.Buffer
	code := bundler.Main([]string{"clang-offload-bundler", "-type=a", "-unbundle", "-input=" + lib,
		"-targets=" + gfx906, "-output=" + out}, strings.NewReader(""), &stdout, &stderr)
	want := fmt.Sprintf("'%s(bomb.o)': the decompressed bundle is larger than %d bytes", lib, limit)
	if code == 0 || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q; want an error saying %q", code, stderr.String(), want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
	// Under the cap, the same archive unbundles.
	defer bundler.SetMaxDecompressed(8 * limit)()
	stderr.Reset()
	if code := bundler.Main([]string{"clang-offload-bundler", "-type=a", "-unbundle", "-input=" + lib,
		"-targets=" + gfx906, "-output=" + out}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Errorf("under the cap: exit %d: %s", code, stderr.String())
	}
}

// The cap is the member's, however many CCOBs it holds back to back: a
// small one then one past the cap is reported as too large, as one CCOB
// past it is, not as damage.
func TestArchiveDecompressedCapBackToBack(t *testing.T) {
	const limit = 1 << 20
	defer bundler.SetMaxDecompressed(limit)()
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.a")
	member := append(bombCCOB(64), bombCCOB(4*limit)...)
	var b bytes.Buffer
	if err := ar.WriteGNU(&b, []ar.NewMember{{Name: "two.o", Data: bytes.NewReader(member), Size: int64(len(member))}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := bundler.Main([]string{"clang-offload-bundler", "-type=a", "-unbundle", "-input=" + lib,
		"-targets=" + gfx906, "-output=" + filepath.Join(dir, "d.a")}, strings.NewReader(""), &stdout, &stderr)
	want := fmt.Sprintf("'%s(two.o)': the decompressed bundle is larger than %d bytes", lib, limit)
	if code == 0 || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q; want an error saying %q", code, stderr.String(), want)
	}
}
