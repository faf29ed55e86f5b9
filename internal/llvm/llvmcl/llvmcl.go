// Package llvmcl parses command lines the way LLVM's cl library does, so that
// goffload's drop-in tools accept the same spellings and print the same
// messages as the LLVM tools they replace: one or two dashes, `-opt=v` and
// `-opt v`, LLVM's boolean spellings, auto-radix integers, repeated and
// comma-separated list options, `@file` response files, and LLVM's exact
// error texts.
//
// The package knows nothing about any particular tool: a tool describes its
// options with a Spec and gets back the values in a Result.
package llvmcl

import (
	"fmt"
	"github.com/goffload/goffload/internal/editdist"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/goffload/goffload/internal/llvm/oserr"
)

// Kind says how an option takes its value.
type Kind int

const (
	Bool      Kind = iota // -x, -x=true|false|1|0|TRUE|True|FALSE|False
	String                // scalar: the last occurrence wins
	List                  // repeatable, one value per occurrence
	CommaList             // repeatable, each value split on ','
	Uint                  // unsigned 32-bit, auto radix
	Int                   // signed 32-bit, auto radix
	Help                  // --help style: acts at once, takes no value
)

// Option describes one command-line option.
type Option struct {
	Name     string // without dashes
	Kind     Kind
	Required bool // "must be specified at least once!"
	// Grouping marks a one-letter Bool that may be run together with
	// others of its kind (LLVM's cl::Grouping): -hh is -h -h, and -hh=0
	// gives the value to the last one.
	Grouping bool
	// NoSuggest keeps the option out of "Did you mean" suggestions, as
	// LLVM's really hidden options (libLLVM's global options the tool
	// hides, such as -h and --color).
	NoSuggest bool
}

// Spec is a tool's option table.
type Spec struct {
	Options []*Option
	// MaxPositional is how many positional arguments are accepted (0: none,
	// reported as unknown arguments; -1: unlimited).
	MaxPositional int
	// SuggestOrder lists the suggestable option names in the order LLVM's
	// option map visits them, which breaks ties between equally near
	// suggestions. Without it, Options' order is used.
	SuggestOrder []string
}

// Result holds what was parsed.
type Result struct {
	// Values holds, for each option name, every value given, in order
	// (bools as "true"/"false"; comma lists already split).
	Values map[string][]string
	// Count is the number of occurrences of each option.
	Count      map[string]int
	Positional []string
	// ExpandErr is set when a response file could not be expanded; then
	// nothing was parsed (LLVM's tools go on with defaults).
	ExpandErr error
	// Action is the first --help/--version style option met, if any:
	// LLVM acts on those as soon as they are parsed.
	Action string
}

// Given reports whether the option occurred.
func (r *Result) Given(name string) bool { return r.Count[name] > 0 }

// Last returns the last value of a scalar option, or "".
func (r *Result) Last(name string) string {
	v := r.Values[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// Flag returns the last value of a bool option (false when absent).
func (r *Result) Flag(name string) bool { return r.Last(name) == "true" }

// ProgName is the program name LLVM prefixes cl messages with: argv0's
// last path component as LLVM's sys::path::filename finds it ("" for "",
// "." after a trailing slash, "/" for slashes only).
func ProgName(argv0 string) string {
	switch {
	case argv0 == "":
		return ""
	case strings.Trim(argv0, "/") == "":
		return "/"
	case strings.HasSuffix(argv0, "/"):
		return "."
	}
	return argv0[strings.LastIndexByte(argv0, '/')+1:]
}

// Tagged is how LLVM's tools print an error or warning: "<argv0>: "
// (nothing when argv0 is empty), the tag, the message.
func Tagged(argv0, tag, msg string) string {
	if argv0 == "" {
		return tag + msg
	}
	return argv0 + ": " + tag + msg
}

// Dashed returns how LLVM spells an option name in messages: one dash for
// one-letter names, two otherwise.
func Dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func (s *Spec) lookup(name string) *Option {
	for _, o := range s.Options {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// Parse parses args (without argv[0]). argv0 is used in messages exactly as
// LLVM uses it: its base name prefixes each message, the full string appears
// in the "Try:" hint. It returns the result and the error lines, each without
// a trailing newline and already carrying LLVM's "<prog>: " prefix; parsing
// failed when errs is non-empty (unless Result.Action is set, which wins).
func (s *Spec) Parse(argv0 string, args []string) (*Result, []string) {
	p := &parser{spec: s, prog: ProgName(argv0), argv0: argv0,
		res: &Result{Values: map[string][]string{}, Count: map[string]int{}}}
	res := p.res
	args, err := Expand(args)
	if err != nil {
		// LLVM prints the message and parses nothing: the tool goes on
		// with every option at its default.
		res.ExpandErr = err
		return res, nil
	}
	dashdash := false
	var positional []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if dashdash || len(arg) < 2 || arg[0] != '-' {
			if s.MaxPositional == 0 {
				// With no positional options LLVM reports each one
				// where it meets it, among the other messages.
				p.fail("Unknown command line argument '%s'.  Try: '%s --help'", arg, argv0)
				continue
			}
			positional = append(positional, arg)
			continue
		}
		if arg == "--" {
			dashdash = true
			continue
		}
		body := arg[1:]
		if strings.HasPrefix(body, "-") {
			body = body[1:]
		}
		name, value, hasValue := strings.Cut(body, "=")
		opt, name := p.option(arg, body, name, value, hasValue)
		if opt == nil {
			continue
		}
		switch opt.Kind {
		case Help:
			if hasValue {
				p.fail("for the %s option: does not allow a value! '%s' specified.", Dashed(name), value)
				continue
			}
			// LLVM acts on --help/--version as soon as it meets them:
			// what follows is not parsed, what preceded was reported.
			res.Action = name
			res.Count[name]++
			return res, p.errs
		case Bool:
			p.setBool(name, value, hasValue)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				p.fail("for the %s option: requires a value!", Dashed(name))
				continue
			}
			i++
			value = args[i]
		}
		p.setValue(opt, name, value)
	}
	p.finish(positional)
	return res, p.errs
}

// parser is the state of one Parse call.
type parser struct {
	spec  *Spec
	prog  string // argv0's base name, which prefixes each message
	argv0 string // in full, for the "Try:" hint
	res   *Result
	errs  []string // the error lines so far
}

// fail adds an error line.
func (p *parser) fail(format string, a ...any) {
	p.errs = append(p.errs, p.prog+": "+fmt.Sprintf(format, a...))
}

// option returns the option an argument names, and its name: arg is the
// argument, body arg without its dashes, name and value body's parts around
// an '=' (hasValue says there is one). A run of grouping letters sets each
// letter but the last. Without an option to parse, option reports the
// argument and returns nil.
func (p *parser) option(arg, body, name, value string, hasValue bool) (*Option, string) {
	s := p.spec
	opt := s.lookup(name)
	if opt == nil && len(name) > 1 {
		if o := s.lookup(name[:1]); o != nil && o.Grouping {
			return p.group(arg, name, value, hasValue)
		}
	}
	if opt == nil {
		// A one-letter option followed by more letters is a "group"
		// (with one dash or two); LLVM then suggests the letter alone.
		if len(name) > 1 {
			if o := s.lookup(name[:1]); o != nil && o.Kind != Bool && o.Kind != Help {
				p.inGroup(arg, o)
				return nil, ""
			}
		}
		p.errs = append(p.errs, unknown(p.prog, p.argv0, arg, body, s)...)
		return nil, ""
	}
	return opt, name
}

// group parses name, a run of grouping letters: each but the last is set,
// the last is returned to be parsed with the value, if any. A letter that is
// no grouping option ends the run: the rest is unknown and is what
// suggestions are made for.
func (p *parser) group(arg, name, value string, hasValue bool) (*Option, string) {
	s, res := p.spec, p.res
	for len(name) > 1 {
		g := s.lookup(name[:1])
		if g == nil || !g.Grouping {
			break
		}
		res.Count[g.Name]++
		res.Values[g.Name] = append(res.Values[g.Name], "true")
		name = name[1:]
	}
	if g := s.lookup(name); g != nil && len(name) == 1 {
		// The last letter: a grouping option, or one that
		// takes the value (after '=' or in the next argument).
		return g, name
	}
	if g := s.lookup(name[:1]); g != nil && g.Kind != Bool && g.Kind != Help {
		// A value option with more letters after it.
		p.inGroup(arg, g)
		return nil, ""
	}
	rest := name
	if hasValue {
		rest += "=" + value
	}
	p.errs = append(p.errs, unknown(p.prog, p.argv0, arg, rest, s)...)
	return nil, ""
}

// inGroup reports arg, in which the value option o is followed by more
// letters.
func (p *parser) inGroup(arg string, o *Option) {
	p.fail("for the %s option: may not occur within a group!", Dashed(o.Name))
	p.errs = append(p.errs,
		fmt.Sprintf("%s: Unknown command line argument '%s'.  Try: '%s --help'", p.prog, arg, p.argv0),
		fmt.Sprintf("%s: Did you mean '%s'?", p.prog, Dashed(o.Name)))
}

// setBool records the bool option name, with its value if it has one.
func (p *parser) setBool(name, value string, hasValue bool) {
	v := "true"
	if hasValue {
		switch value {
		case "", "true", "TRUE", "True", "1": // -x= is -x
		case "false", "FALSE", "False", "0":
			v = "false"
		default:
			p.fail("for the %s option: '%s' is invalid value for boolean argument! Try 0 or 1", Dashed(name), value)
			return
		}
	}
	p.res.Count[name]++
	p.res.Values[name] = append(p.res.Values[name], v)
}

// setValue records value for opt, named name, which takes a value.
func (p *parser) setValue(opt *Option, name, value string) {
	switch opt.Kind {
	case Uint:
		if _, ok := ParseUint(value, 32); !ok {
			p.fail("for the %s option: '%s' value invalid for uint argument!", Dashed(name), value)
			return
		}
	case Int:
		if _, ok := ParseInt(value, 32); !ok {
			p.fail("for the %s option: '%s' value invalid for integer argument!", Dashed(name), value)
			return
		}
	}
	p.res.Count[name]++
	if opt.Kind == CommaList {
		p.res.Values[name] = append(p.res.Values[name], strings.Split(value, ",")...)
	} else {
		p.res.Values[name] = append(p.res.Values[name], value)
	}
}

// finish sets the positional arguments and reports what is missing or too
// many once every argument is parsed.
func (p *parser) finish(positional []string) {
	s := p.spec
	if s.MaxPositional > 0 && len(positional) > s.MaxPositional {
		p.fail("Too many positional arguments specified!\nCan specify at most %d positional arguments: See: %s --help", s.MaxPositional, p.argv0)
	}
	p.res.Positional = positional
	for _, o := range s.Options {
		if o.Required && p.res.Count[o.Name] == 0 {
			p.fail("for the %s option: must be specified at least once!", Dashed(o.Name))
		}
	}
}

// unknown reports an unknown argument; rest is what LLVM looks for a
// near option name for: the argument without its dashes or the grouping
// letters it starts with.
func unknown(prog, argv0, arg, rest string, s *Spec) []string {
	lines := []string{fmt.Sprintf("%s: Unknown command line argument '%s'.  Try: '%s --help'", prog, arg, argv0)}
	if near := s.nearest(rest); near != "" {
		dash := "--"
		if len(near) == 1 {
			dash = "-"
		}
		lines = append(lines, fmt.Sprintf("%s: Did you mean '%s%s'?", prog, dash, near))
	}
	return lines
}

// nearest returns LLVM's "Did you mean" suggestion for arg (no dashes):
// the first option, in SuggestOrder, nearest by edit distance. Options that
// take a value are compared with the name before any '=' and keep a
// non-empty "=value"; the others (--help, --version) with all of arg.
func (s *Spec) nearest(arg string) string {
	if arg == "" {
		return ""
	}
	lhs, rhs, _ := strings.Cut(arg, "=")
	names := s.SuggestOrder
	if names == nil {
		for _, o := range s.Options {
			names = append(names, o.Name)
		}
	}
	best, bestDist := "", -1
	for _, n := range names {
		o := s.lookup(n)
		if o == nil || o.NoSuggest {
			continue
		}
		flag := lhs
		if o.Kind == Help {
			flag = arg
		}
		if d := editdist.Distance(flag, o.Name); bestDist < 0 || d < bestDist {
			best, bestDist = o.Name, d
			if rhs != "" && o.Kind != Help {
				best += "=" + rhs
			}
		}
	}
	return best
}

// ParseUint parses s as LLVM's getAsInteger with radix auto-detection does:
// 0x/0X hex, 0b/0B binary, 0o or a leading 0 octal, otherwise decimal; no
// sign, no spaces, no underscores, and the value must fit in bits.
func ParseUint(s string, bits int) (uint64, bool) {
	radix := 10
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		radix, s = 16, s[2:]
	case strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "0B"):
		radix, s = 2, s[2:]
	case strings.HasPrefix(s, "0o"):
		radix, s = 8, s[2:]
	case len(s) > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9':
		radix, s = 8, s[1:]
	}
	if s == "" {
		return 0, false
	}
	for _, c := range []byte(s) {
		if !isDigit(c, radix) {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(s, radix, bits)
	return v, err == nil
}

// ParseInt is ParseUint with an optional leading '-'.
func ParseInt(s string, bits int) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	u, ok := ParseUint(s, 64)
	if !ok {
		return 0, false
	}
	limit := uint64(1) << (bits - 1)
	if neg {
		if u > limit {
			return 0, false
		}
		return -int64(u), true
	}
	if u >= limit {
		return 0, false
	}
	return int64(u), true
}

func isDigit(c byte, radix int) bool {
	var d int
	switch {
	case c >= '0' && c <= '9':
		d = int(c - '0')
	case c >= 'a' && c <= 'z':
		d = int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		d = int(c-'A') + 10
	default:
		return false
	}
	return d < radix
}

// An ExpandError is a response file LLVM could not expand: a folder or an
// unreadable file, a file that includes itself, bad UTF-16. Its text is
// what LLVM prints, with no program prefix.
type ExpandError struct{ Msg string }

func (e *ExpandError) Error() string { return e.Msg }

// Expand replaces each "@file" argument by the file's contents, split
// GNU-style (TokenizeGNU), as LLVM 22's cl does before parsing: names are
// relative to the current folder, also inside response files; a name that
// does not exist is left as it is; a file met again inside its own
// expansion is an error naming the first path it was read by.
func Expand(args []string) ([]string, error) {
	cwd, _ := os.Getwd()
	type open struct {
		path string
		fi   os.FileInfo
	}
	out := make([]string, 0, len(args))
	var expand func(args []string, chain []open) error
	expand = func(args []string, chain []open) error {
		for _, a := range args {
			if a == "" || a[0] != '@' {
				out = append(out, a)
				continue
			}
			path := responsePath(cwd, a[1:])
			fi, err := os.Stat(path)
			if err != nil {
				out = append(out, a)
				continue
			}
			for _, o := range chain {
				if os.SameFile(o.fi, fi) {
					return &ExpandError{Msg: fmt.Sprintf("recursive expansion of: '%s'", o.path)}
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return &ExpandError{Msg: fmt.Sprintf("cannot not open file '%s': %s", path, oserr.Strerror(err))}
			}
			text, ok := responseText(data)
			if !ok {
				return &ExpandError{Msg: "Could not convert UTF16 to UTF8"}
			}
			toks := TokenizeGNU(text)
			for i, t := range toks {
				// The tokens become C strings.
				if k := strings.IndexByte(t, 0); k >= 0 {
					toks[i] = t[:k]
				}
			}
			if err := expand(toks, append(chain[:len(chain):len(chain)], open{path, fi})); err != nil {
				return err
			}
		}
		return nil
	}
	if err := expand(args, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// responsePath makes a response file's name absolute as LLVM does: the
// current folder, a slash and the name, uncleaned ("" is the folder
// itself). A POSIX root name ("//host/x") keeps its root name in front.
func responsePath(cwd, name string) string {
	switch {
	case name == "":
		return cwd
	case strings.HasPrefix(name, "//") && len(name) > 2 && name[2] != '/':
		root, rest, _ := strings.Cut(name[2:], "/")
		return "//" + root + "/" + strings.TrimPrefix(cwd, "/") + "/" + rest
	case name[0] == '/':
		return name
	}
	return cwd + "/" + name
}

// responseText decodes a response file: UTF-16 with a byte order mark is
// converted, a UTF-8 byte order mark dropped.
func responseText(b []byte) (string, bool) {
	if len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF) {
		if len(b)%2 != 0 {
			return "", false
		}
		u := make([]uint16, 0, len(b)/2-1)
		for i := 2; i < len(b); i += 2 {
			if b[0] == 0xFF {
				u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
			} else {
				u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
			}
		}
		var sb strings.Builder
		for i := 0; i < len(u); i++ {
			c := rune(u[i])
			switch {
			case utf16.IsSurrogate(c):
				if c >= 0xDC00 || i+1 >= len(u) {
					return "", false
				}
				r := utf16.DecodeRune(c, rune(u[i+1]))
				if r == unicode.ReplacementChar {
					return "", false
				}
				sb.WriteRune(r)
				i++
			default:
				sb.WriteRune(c)
			}
		}
		return sb.String(), true
	}
	return strings.TrimPrefix(string(b), "\xef\xbb\xbf"), true
}

// TokenizeGNU splits a response file's text as GNU tools (and LLVM's
// TokenizeGNUCommandLine) do.
func TokenizeGNU(s string) []string {
	var toks []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case c == '\'' || c == '"':
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			// (LLVM's white space: not \v or \f.) An empty token ("")
			// is no argument.
			if cur.Len() > 0 {
				toks = append(toks, cur.String())
			}
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		toks = append(toks, cur.String())
	}
	return toks
}
