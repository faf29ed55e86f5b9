package llvmcl

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var testSpec = &Spec{Options: []*Option{
	{Name: "###", Kind: Bool},
	{Name: "list", Kind: Bool},
	{Name: "type", Kind: String, Required: true},
	{Name: "input", Kind: List},
	{Name: "targets", Kind: CommaList},
	{Name: "bundle-align", Kind: Uint},
	{Name: "level", Kind: Int},
	{Name: "o", Kind: String},
	{Name: "help", Kind: Help},
	{Name: "version", Kind: Help},
}}

func TestParseSpellings(t *testing.T) {
	res, errs := testSpec.Parse("/x/tool", []string{"-type", "bc", "--input=a", "-input", "b", "-targets=x,,y", "--targets", "z", "-list=TRUE", "-###", "-bundle-align=0x10", "-level=-8", "-o=out"})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if res.Last("type") != "bc" || !reflect.DeepEqual(res.Values["input"], []string{"a", "b"}) ||
		!reflect.DeepEqual(res.Values["targets"], []string{"x", "", "y", "z"}) || !res.Flag("list") || !res.Flag("###") ||
		res.Last("bundle-align") != "0x10" || res.Last("o") != "out" {
		t.Errorf("%+v", res)
	}
}

// A boolean option with an empty value ("-compress=") is true, as in LLVM.
func TestBoolEmptyValue(t *testing.T) {
	res, errs := testSpec.Parse("tool", []string{"-type=bc", "-list="})
	if len(errs) != 0 || !res.Flag("list") {
		t.Errorf("-list= : %q %v", errs, res.Flag("list"))
	}
	res, _ = testSpec.Parse("tool", []string{"-type=bc", "-list=", "-list=0"})
	if res.Flag("list") {
		t.Error("-list=0 after -list= is not false")
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-type"}, []string{"tool: for the --type option: requires a value!", "tool: for the --type option: must be specified at least once!"}},
		{[]string{"-type=bc", "-list=yes"}, []string{"tool: for the --list option: 'yes' is invalid value for boolean argument! Try 0 or 1"}},
		{[]string{"-type=bc", "-bundle-align=1_0"}, []string{"tool: for the --bundle-align option: '1_0' value invalid for uint argument!"}},
		{[]string{"-type=bc", "-bundle-align=+1"}, []string{"tool: for the --bundle-align option: '+1' value invalid for uint argument!"}},
		{[]string{"-type=bc", "-level=abc"}, []string{"tool: for the --level option: 'abc' value invalid for integer argument!"}},
		{[]string{"-type=bc", "x"}, []string{"tool: Unknown command line argument 'x'.  Try: '/x/tool --help'"}},
		{[]string{"-type=bc", "-oF"}, []string{"tool: for the -o option: may not occur within a group!", "tool: Unknown command line argument '-oF'.  Try: '/x/tool --help'", "tool: Did you mean '-o'?"}},
		{[]string{"-tpe=bc"}, []string{"tool: Unknown command line argument '-tpe=bc'.  Try: '/x/tool --help'", "tool: Did you mean '--type=bc'?", "tool: for the --type option: must be specified at least once!"}},
		{[]string{"--version=1", "-type=bc"}, []string{"tool: for the --version option: does not allow a value! '1' specified."}},
	} {
		_, errs := testSpec.Parse("/x/tool", tc.args)
		if !reflect.DeepEqual(errs, tc.want) {
			t.Errorf("%v:\n got %q\nwant %q", tc.args, errs, tc.want)
		}
	}
}

func TestHelpActsAtOnce(t *testing.T) {
	res, errs := testSpec.Parse("tool", []string{"-list=yes", "--help", "-bogus"})
	if res.Action != "help" || len(errs) != 1 {
		t.Errorf("action %q errs %q", res.Action, errs)
	}
}

func TestIntegers(t *testing.T) {
	for s, want := range map[string]uint64{"0x10": 16, "010": 8, "0b11": 3, "0": 0, "4294967295": 4294967295} {
		if v, ok := ParseUint(s, 32); !ok || v != want {
			t.Errorf("ParseUint(%q) = %d %v", s, v, ok)
		}
	}
	for _, s := range []string{"", "+1", " 1", "4294967296", "1_0", "0x", "08", "-1"} {
		if _, ok := ParseUint(s, 32); ok {
			t.Errorf("ParseUint(%q) accepted", s)
		}
	}
	if v, ok := ParseInt("-0x3", 32); !ok || v != -3 {
		t.Errorf("ParseInt(-0x3) = %d %v", v, ok)
	}
	if _, ok := ParseInt("2147483648", 32); ok {
		t.Error("int overflow accepted")
	}
}

func TestResponseFiles(t *testing.T) {
	dir := t.TempDir()
	inner := filepath.Join(dir, "inner.rsp")
	os.WriteFile(inner, []byte(`-input=c`), 0o644)
	outer := filepath.Join(dir, "args.rsp")
	os.WriteFile(outer, []byte("-type=bc 'quoted arg' \"dq \\\"x\\\"\" back\\ slash @"+inner+"\n# not-a-comment"), 0o644)
	got, err := Expand([]string{"@" + outer, "@missing.rsp"})
	want := []string{"-type=bc", "quoted arg", `dq "x"`, "back slash", "-input=c", "#", "not-a-comment", "@missing.rsp"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, %v\nwant %q", got, err, want)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("-type=bc -input a --targets=x,y -bundle-align=0x10 -o=x")
	f.Fuzz(func(t *testing.T, line string) {
		testSpec.Parse("tool", strings.Fields(line))
		TokenizeGNU(line)
	})
}

var groupSpec = &Spec{
	Options: []*Option{
		{Name: "h", Kind: Bool, Grouping: true, NoSuggest: true},
		{Name: "color", Kind: Bool, NoSuggest: true},
		{Name: "help", Kind: Help},
		{Name: "list", Kind: Bool},
		{Name: "o", Kind: String},
		{Name: "###", Kind: Bool},
	},
	SuggestOrder: []string{"list", "help", "###", "o"},
}

// Behaviour of LLVM 22's cl parser, found by running clang-offload-bundler
// and llvm-offload-binary.
func TestGroupingAndSuggestions(t *testing.T) {
	for _, tc := range []struct {
		arg    string
		h      []string // values of -h
		errors []string
	}{
		{"-hh", []string{"true", "true"}, nil},
		{"--hhh=0", []string{"true", "true", "false"}, nil},
		{"-hh=", []string{"true", "true"}, nil},
		{"-hh=x", nil, []string{"t: for the -h option: 'x' is invalid value for boolean argument! Try 0 or 1"}},
		// The rest after the grouping letters is what is suggested for.
		{"-hx", nil, []string{"t: Unknown command line argument '-hx'.  Try: 't --help'", "t: Did you mean '-o'?"}},
		{"-hhx=1", nil, []string{"t: Unknown command line argument '-hhx=1'.  Try: 't --help'", "t: Did you mean '--o=1'?"}},
		{"-hlist", nil, []string{"t: Unknown command line argument '-hlist'.  Try: 't --help'", "t: Did you mean '--list'?"}},
		// A value option after the grouping letters takes the value if it
		// is the last letter; with more letters after it the group fails.
		{"-ho=v", []string{"true"}, nil},
		{"-hho", nil, []string{"t: for the -o option: requires a value!"}},
		{"-hox", nil, []string{"t: for the -o option: may not occur within a group!", "t: Unknown command line argument '-hox'.  Try: 't --help'", "t: Did you mean '-o'?"}},
		{"--hhox=1", nil, []string{"t: for the -o option: may not occur within a group!", "t: Unknown command line argument '--hhox=1'.  Try: 't --help'", "t: Did you mean '-o'?"}},
		// An empty value is no value; --help takes none, so it is
		// compared with the whole argument and suggested bare.
		{"-lis=", nil, []string{"t: Unknown command line argument '-lis='.  Try: 't --help'", "t: Did you mean '--list'?"}},
		{"-hel=p", nil, []string{"t: Unknown command line argument '-hel=p'.  Try: 't --help'", "t: Did you mean '--help'?"}},
		{"-lst=p", nil, []string{"t: Unknown command line argument '-lst=p'.  Try: 't --help'", "t: Did you mean '--list=p'?"}},
		{"-elp=", nil, []string{"t: Unknown command line argument '-elp='.  Try: 't --help'", "t: Did you mean '--help'?"}},
		// Ties go to the first in SuggestOrder; -h and --color are never
		// suggested.
		{"-q", nil, []string{"t: Unknown command line argument '-q'.  Try: 't --help'", "t: Did you mean '-o'?"}},
		{"-qqqq", nil, []string{"t: Unknown command line argument '-qqqq'.  Try: 't --help'", "t: Did you mean '--list'?"}},
		{"-colo", nil, []string{"t: Unknown command line argument '-colo'.  Try: 't --help'", "t: Did you mean '--help'?"}},
		{"-list=", nil, nil},
	} {
		res, errs := groupSpec.Parse("t", []string{tc.arg})
		if !reflect.DeepEqual(errs, tc.errors) {
			t.Errorf("%s: errors\n got %q\nwant %q", tc.arg, errs, tc.errors)
		}
		if tc.errors == nil && !reflect.DeepEqual(res.Values["h"], tc.h) {
			t.Errorf("%s: -h values %q, want %q", tc.arg, res.Values["h"], tc.h)
		}
	}
}

// Response files as LLVM 22 reads them (found with clang-offload-bundler).
func TestExpand(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	dir, _ = os.Getwd()
	os.Mkdir("sub", 0o755)
	for name, text := range map[string]string{
		"a":        `-x "" ""y a""b 'c d' ` + "\v-e\f\n",
		"sub/nest": "@a -n", // relative to the current folder, not to sub
		"bom":      "\xef\xbb\xbf-b",
		"u16le":    "\xff\xfe-\x00u\x00",
		"u16be":    "\xfe\xff\x00-\x00U",
		"u16odd":   "\xff\xfe-",
		"u16surr":  "\xff\xfe\x00\xd8",
		"nul":      "-a\x00b c",
		"self":     "@sub/../self",
		"ping":     "@pong",
		"pong":     "@ping",
		"twice":    "@a @a",
	} {
		os.WriteFile(name, []byte(text), 0o644)
	}
	for _, tc := range []struct {
		args []string
		want []string
		err  string
	}{
		{[]string{"@a"}, []string{"-x", "y", "ab", "c d", "\v-e\f"}, ""},
		{[]string{"@sub/nest", "@missing"}, []string{"-x", "y", "ab", "c d", "\v-e\f", "-n", "@missing"}, ""},
		{[]string{"@twice"}, []string{"-x", "y", "ab", "c d", "\v-e\f", "-x", "y", "ab", "c d", "\v-e\f"}, ""},
		{[]string{"@bom", "@u16le", "@u16be"}, []string{"-b", "-u", "-U"}, ""},
		{[]string{"@nul"}, []string{"-a", "c"}, ""},
		{[]string{"@u16odd"}, nil, "Could not convert UTF16 to UTF8"},
		{[]string{"@u16surr"}, nil, "Could not convert UTF16 to UTF8"},
		{[]string{"@self"}, nil, "recursive expansion of: '" + dir + "/self'"},
		{[]string{"-q", "@ping"}, nil, "recursive expansion of: '" + dir + "/ping'"},
		{[]string{"@sub"}, nil, "cannot not open file '" + dir + "/sub': Is a directory"},
		{[]string{"@"}, nil, "cannot not open file '" + dir + "': Is a directory"},
	} {
		got, err := Expand(tc.args)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %q %v\nwant %q", tc.args, got, err, tc.want)
		}
	}
	if res, errs := testSpec.Parse("t", []string{"-type=bc", "@ping"}); res.ExpandErr == nil || len(errs) != 0 || res.Given("type") {
		t.Errorf("failed expansion: %+v %q", res, errs)
	}
}

func TestProgName(t *testing.T) {
	for in, want := range map[string]string{"": "", "/": "/", "//": "/", "x/": ".", "a//": ".", "/usr/bin/tool": "tool", "tool": "tool", "a b": "a b"} {
		if got := ProgName(in); got != want {
			t.Errorf("ProgName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Tagged("", "error: ", "m"); got != "error: m" {
		t.Errorf("Tagged without argv0: %q", got)
	}
}

func TestPositionalInline(t *testing.T) {
	_, errs := testSpec.Parse("t", []string{"-type=bc", "p", "-bundle-align=x", "--", "q"})
	want := []string{
		"t: Unknown command line argument 'p'.  Try: 't --help'",
		"t: for the --bundle-align option: 'x' value invalid for uint argument!",
		"t: Unknown command line argument 'q'.  Try: 't --help'",
	}
	if !reflect.DeepEqual(errs, want) {
		t.Errorf("got %q\nwant %q", errs, want)
	}
}
