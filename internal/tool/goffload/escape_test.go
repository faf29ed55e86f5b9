package goffloadcmd

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// printsRaw reports a byte a terminal should not be handed: a control
// character other than newline, a non-printing character, or invalid UTF-8.
func printsRaw(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r != '\n' && !unicode.IsPrint(r) {
			return true
		}
		i += n
	}
	return false
}

// Strings from a file (bundle IDs here) reach the terminal escaped: in
// list's table and summary, in --uri lines, in errors that quote them, and
// in extract's explanations. JSON keeps them as stored (it escapes them).
func TestFileStringsEscaped(t *testing.T) {
	id0 := "hipv4-amdgcn-amd-amdhsa--gfx906\x1b[31m\xff\u202e"
	id1 := "hip-\x07bell"
	le := binary.LittleEndian
	var b bytes.Buffer
	b.WriteString("__CLANG_OFFLOAD_BUNDLE__")
	binary.Write(&b, le, uint64(2))
	payload := 32 + 24 + len(id0) + 24 + len(id1)
	for _, e := range []struct {
		id        string
		off, size uint64
	}{{id0, uint64(payload), 4}, {id1, 1 << 40, 4}} {
		binary.Write(&b, le, e.off)
		binary.Write(&b, le, e.size)
		binary.Write(&b, le, uint64(len(e.id)))
		b.WriteString(e.id)
	}
	b.WriteString("code")
	input := filepath.Join(t.TempDir(), "odd.bundle")
	if err := os.WriteFile(input, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, code := run(t, "list", input)
	if code != 1 || printsRaw(stdout) || printsRaw(stderr) {
		t.Errorf("list: exit %d, raw bytes printed:\n%q\n%q", code, stdout, stderr)
	}
	esc0 := `hipv4-amdgcn-amd-amdhsa--gfx906\x1b[31m\xff\u202e`
	if !strings.Contains(stdout, esc0) || !strings.Contains(stderr, `entry 1 (hip-\x07bell)`) {
		t.Errorf("list: IDs not escaped as expected:\n%s%s", stdout, stderr)
	}
	stdout, _, _ = run(t, "list", "--uri", input)
	if printsRaw(strings.ReplaceAll(stdout, "\t", " ")) || !strings.Contains(stdout, esc0) {
		t.Errorf("list --uri: %q", stdout)
	}
	js, _, _ := run(t, "list", "--json", input)
	if !strings.Contains(js, `"id": "hipv4-amdgcn-amd-amdhsa--gfx906\u001b[31m\ufffd`) {
		t.Errorf("list --json changed the ID's escaping:\n%s", js)
	}
	_, stderr, code = run(t, "extract", "--target", "gfx1100", "-o", t.TempDir(), input)
	if code != 1 || printsRaw(stderr) || !strings.Contains(stderr, esc0) {
		t.Errorf("extract --target gfx1100: exit %d, %q", code, stderr)
	}
}
