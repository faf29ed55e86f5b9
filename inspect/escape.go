package inspect

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s fit for a terminal: bytes that are not UTF-8 are
// written \xNN, and characters that do not print (control characters,
// format characters such as bidirectional overrides) as Go writes them in
// strings: \xNN below 0x80, else \uNNNN or \UNNNNNNNN. Printable text,
// spaces included, is returned as it is. IDs, names and paths read from a
// file go through it before they are printed.
func Escape(s string) string {
	if isPrintable(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsPrint(r):
			b.WriteString(s[i : i+n])
		case r < utf8.RuneSelf:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	return b.String()
}

func isPrintable(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !unicode.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}
