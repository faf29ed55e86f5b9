package ar

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
)

type malformedCase struct {
	name string
	data []byte
	// llvm is LLVM 22's message (as llvm-ar t and llvm-offload-binary print
	// it), checked against llvm-ar when it is installed; "" means LLVM
	// reads the archive without complaint.
	llvm string
	// names, when set for an accepted archive, are the member names LLVM
	// reads (checked against llvm-ar t when it is installed).
	names []string
}

func malformedCases(t *testing.T) []malformedCase {
	t.Helper()
	ln, err := os.ReadFile("testdata/golden/longnames.a") // "/", "//", long and short names
	if err != nil {
		t.Fatal(err)
	}
	ob, err := os.ReadFile("testdata/golden/objects.a") // "/", short names; last member odd
	if err != nil {
		t.Fatal(err)
	}
	bsd, err := os.ReadFile("testdata/read/bsd.a")
	if err != nil {
		t.Fatal(err)
	}
	at := func(b []byte, s string) int {
		i := bytes.Index(b, []byte(s))
		if i < 0 {
			t.Fatalf("%q not in archive", s)
		}
		return i
	}
	// replace returns b with len(s) bytes at off replaced by s.
	replace := func(b []byte, off int, s string) []byte {
		c := bytes.Clone(b)
		copy(c[off:], s)
		return c
	}
	long := at(ln, "/0   ")
	text := at(ob, "text.txt/")
	lnNames := []string{"averyveryverylongname_member.o", "exactly16chars.o", "fifteen_chars.o", "averyveryverylongname_member.o", "another_long_name.bin"}
	// lnTable is the offset of the first long-name entry's "/\n".
	lnTable := at(ln, "member.o/\n") + len("member.o")
	bsd1 := at(bsd, "#1/4 ") // the first regular member, g.o
	bsdNames := func(first string) []string {
		return []string{first, "averyveryverylongname_member.o", "text.txt", "odd.bin"}
	}
	m := "truncated or malformed archive ("
	return []malformedCase{
		{"short-header-at-start", []byte("!<arch>\nabc"), m + "remaining size of archive too small for next archive member header at offset 8)", nil},
		{"header-only-symtab", ln[:60], m + "remaining size of archive too small for next archive member header for /)", nil},
		{"short-header-longname", ln[:long+30], m + "remaining size of archive too small for next archive member header for averyveryverylongname_member.o)", nil},
		{"short-header-short-name", ob[:text+30], m + "remaining size of archive too small for next archive member header for text.txt)", nil},
		{"short-name-field", ob[:text+10], m + "remaining size of archive too small for next archive member header at offset " + itoa(text) + ")", nil},
		{"bad-terminator-symtab", replace(ob, 8+58, "xx"), m + "terminator characters in archive member \"xx\" not the correct \"`\\n\" values for the archive member header for /)", nil},
		{"bad-terminator-longname", replace(ln, long+58, "`x"), m + "terminator characters in archive member \"`x\" not the correct \"`\\n\" values for the archive member header for averyveryverylongname_member.o)", nil},
		{"size-not-decimal", replace(ob, 8+48, "1x8       "), m + "characters in size field in archive member header are not all decimal numbers: '1x8' for the archive member header at offset 8)", nil},
		{"size-blank", replace(ob, text+48, "          "), m + "characters in size field in archive member header are not all decimal numbers: '' for the archive member header at offset " + itoa(text) + ")", nil},
		{"size-leading-space", replace(ob, text+48, " 6        "), m + "characters in size field in archive member header are not all decimal numbers: ' 6' for the archive member header at offset " + itoa(text) + ")", nil},
		{"size-negative", replace(ob, text+48, "-6        "), m + "characters in size field in archive member header are not all decimal numbers: '-6' for the archive member header at offset " + itoa(text) + ")", nil},
		{"size-past-eof", replace(ob, text+48, "9999999999"), m + "offset to next archive member past the end of the archive after member text.txt)", nil},
		{"data-truncated", ob[:len(ob)-3], m + "offset to next archive member past the end of the archive after member text.txt)", nil},
		{"final-pad-missing", ob[:len(ob)-1], m + "offset to next archive member past the end of the archive after member text.txt)", nil},
		{"symtab-past-eof", replace(ob, 8+48, "999999    "), m + "offset to next archive member past the end of the archive after member /)", nil},
		{"longname-not-decimal", replace(ln, long, "/x              "), m + "long name offset characters after the '/' are not all decimal numbers: 'x' for archive member header at offset " + itoa(long) + ")", nil},
		{"longname-past-table", replace(ln, long, "/999            "), m + "long name offset 999 past the end of the string table for archive member header at offset " + itoa(long) + ")", nil},
		{"symtab-count-lies", replace(ob, 8+60, "\x00\x00\xff\xff"), "", nil},
		{"name-without-slash", replace(ob, text, "text.txt "), "", nil},
		{"bad-mode-field", replace(ob, text+40, "64x     "), "", nil},
		{"bsd-name-length-not-decimal", replace(bsd, at(bsd, "#1/36"), "#1/3x"), m + "long name length characters after the #1/ are not all decimal numbers: '3x' for archive member header at offset " + itoa(at(bsd, "#1/36")) + ")", nil},
		{"bsd-name-length-past-eof", replace(bsd, at(bsd, "#1/36"), "#1/99999"), m + "long name length: 99999 extends past the end of the member or archive for archive member header at offset " + itoa(at(bsd, "#1/36")) + ")", nil},
		{"thin-short-header", []byte("!<thin>\n/0    "), m + "remaining size of archive too small for next archive member header at offset 8)", nil},
		// A name field is cut at its first space when it starts with '/'
		// or '#' (and in BSD archives), else at its first '/'. GNU ar 2.40
		// writes "/<offset>" over "name/" in thin archives, leaving the
		// '/' of 15-character names at the end of the field.
		{name: "longname-space-then-junk", data: replace(ln, long, "/0  junk!     /"), names: lnNames},
		{name: "gnu-name-slash-junk", data: replace(ob, text, "text.txt/junk  "), names: []string{"a_clang.o", "a_gcc.o", "text.txt"}},
		{name: "gnu-bsd-name-space-junk", data: replace(ob, text, "#1/2 junk"), names: []string{"a_clang.o", "a_gcc.o", "he"}}, // text.txt holds "hello..."
		// GNU long names must end in "/\n"; the name runs to the first
		// newline after the offset.
		{"longname-not-terminated", replace(ln, lnTable, "x"), m + "string table at long name offset 0 not terminated)", nil},
		{name: "longname-newline-missing", data: replace(ln, lnTable+1, "x"), names: []string{"averyveryverylongname_member.o/xexactly16chars.o", "exactly16chars.o", "fifteen_chars.o", "averyveryverylongname_member.o/xexactly16chars.o", "another_long_name.bin"}},
		// BSD archives: no leading space, no long-name table, names cut at
		// the first space.
		{"bsd-leading-space", replace(bsd, bsd1, " x.o    "), m + "name contains a leading space for archive member header at offset " + itoa(bsd1) + ")", nil},
		{"bsd-longname-offset", replace(bsd, bsd1, "/5      "), m + "long name offset 5 past the end of the string table for archive member header at offset " + itoa(bsd1) + ")", nil},
		{name: "bsd-name-with-space", data: replace(bsd, bsd1, "a b.o   "), names: bsdNames("a")},
		{name: "bsd-name-with-slash", data: replace(bsd, bsd1, "ab.o/   "), names: bsdNames("ab.o")},
		// A '/' name first (after the symbol table) that is not "//".
		{"first-member-longname", replace(ob, at(ob, "a_clang.o/"), "/0              "), "Invalid data was encountered while parsing the file", nil},
		{"first-member-ecsymbols", replace(ob, at(ob, "a_clang.o/"), "/<ECSYMBOLS>/   "), "Invalid data was encountered while parsing the file", nil},
		{"no-symtab-first-longname", append([]byte("!<arch>\n/5              0           0     0     644     2         `\nab"), ob[8:]...), "Invalid data was encountered while parsing the file", nil},
		// Terminators are quoted as LLVM's write_escaped does.
		{"bad-terminator-escaped", replace(ob, text+58, "\x01\xff"), m + "terminator characters in archive member \"\\001\\377\" not the correct \"`\\n\" values for the archive member header for text.txt)", nil},
		{"bad-terminator-quote", replace(ob, text+58, "\"\t"), m + "terminator characters in archive member \"\\\"\\t\" not the correct \"`\\n\" values for the archive member header for text.txt)", nil},
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func memberNames(t *testing.T, data []byte) []string {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), "x.a")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := r.Members()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	return names
}

// readAll opens an archive and walks all its members, returning the first
// error.
func readAll(data []byte, path string) error {
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), path)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		m, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if m.Offset >= 0 && m.Offset+m.Size > int64(len(data)) {
			return errors.New("member data past the end of the archive was returned")
		}
	}
}

// TestMalformed checks that malformed archives give a *FormatError with
// LLVM's message, never a panic.
func TestMalformed(t *testing.T) {
	for _, c := range malformedCases(t) {
		t.Run(c.name, func(t *testing.T) {
			err := readAll(c.data, "bad.a")
			if c.llvm == "" {
				if err != nil {
					t.Errorf("error %v, want none (LLVM accepts this archive)", err)
				}
				if c.names != nil {
					if got := memberNames(t, c.data); strings.Join(got, "|") != strings.Join(c.names, "|") {
						t.Errorf("names %q, want %q", got, c.names)
					}
				}
				return
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a *FormatError", err)
			}
			if fe.Path != "bad.a" || !strings.Contains(fe.Error(), "bad.a") {
				t.Errorf("error %q does not name the archive", fe.Error())
			}
			if c.llvm != "?" && fe.LLVM != c.llvm {
				t.Errorf("LLVM message\n got: %s\nwant: %s", fe.LLVM, c.llvm)
			}
			t.Logf("%v [LLVM: %s]", err, fe.LLVM)
		})
	}
}

var llvmArError = regexp.MustCompile(`(?m)^llvm-ar: error: (?:unable to load '[^']*': )?(.*)$`)

// TestMalformedAgainstLLVM checks the expected messages with llvm-ar t.
func TestMalformedAgainstLLVM(t *testing.T) {
	tool := llvmref.Need(t, "llvm-ar")
	dir := t.TempDir()
	for _, c := range malformedCases(t) {
		path := filepath.Join(dir, c.name+".a")
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		res := llvmref.Run(t, dir, nil, nil, tool, "t", path)
		got := ""
		if m := llvmArError.FindSubmatch(bytes.ReplaceAll(res.Stderr, []byte(tool), []byte("llvm-ar"))); m != nil {
			got = string(m[1])
		}
		ours := ""
		var fe *FormatError
		if err := readAll(c.data, path); errors.As(err, &fe) {
			ours = fe.LLVM
		}
		want := c.llvm
		if want == "?" {
			want = ours
		}
		if got != want {
			t.Errorf("%s: llvm-ar says %q, test expects %q (stderr %q)", c.name, got, c.llvm, res.Stderr)
		}
		if c.names != nil && res.Code == 0 {
			if got := strings.Split(strings.TrimSuffix(string(res.Stdout), "\n"), "\n"); strings.Join(got, "|") != strings.Join(c.names, "|") {
				t.Errorf("%s: llvm-ar t lists %q, test expects %q", c.name, got, c.names)
			}
		}
	}
}

// TestLyingSymbolTable: member listing ignores the symbol table (as LLVM
// does), but Symbols reports counts that do not fit.
func TestLyingSymbolTable(t *testing.T) {
	ob, err := os.ReadFile("testdata/golden/objects.a")
	if err != nil {
		t.Fatal(err)
	}
	bsd, err := os.ReadFile("testdata/read/bsd.a")
	if err != nil {
		t.Fatal(err)
	}
	gnuCount := bytes.Clone(ob)
	copy(gnuCount[8+60:], "\x00\x00\xff\xff")
	gnuNames := bytes.Clone(ob)
	copy(gnuNames[8+60:], "\x00\x00\x00\x13") // one more symbol than names
	bsdRanlib := bytes.Clone(bsd)
	i := bytes.Index(bsd, []byte("__.SYMDEF")) + 12
	copy(bsdRanlib[i:], "\xff\xff\x00\x00")
	for name, data := range map[string][]byte{"gnu-count": gnuCount, "gnu-names": gnuNames, "bsd-ranlib": bsdRanlib} {
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), name+".a")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Members(); err != nil {
			t.Errorf("%s: Members: %v", name, err)
		}
		_, err = r.Symbols()
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Field != "symbol table" {
			t.Errorf("%s: Symbols error %v, want a symbol table *FormatError", name, err)
		}
		t.Log(err)
	}
}
