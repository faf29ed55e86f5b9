package packager

import (
	"fmt"
	"io"
	"strings"
)

// Version is the text of --version, as Debian's LLVM 22.1.8 prints it.
const Version = "Debian LLVM version 22.1.8\n  Optimized build.\n"

const overview = `OVERVIEW: A utility for bundling several object files into a single binary.
The output binary can then be embedded into the host section table
to create a fatbinary containing offloading code.

USAGE: %s [options] Extract from <file>.

OPTIONS:
`

type helpLine struct {
	name, desc string
	generic    bool // listed under "Generic Options"
	hidden     bool // only with --help-hidden / --help-list-hidden
	listHidden bool // hidden from the plain list unless hidden options are shown
}

// The options in the alphabetical order LLVM lists them.
var helpLines = []helpLine{
	{"--archive", "Write extracted files to a static archive", false, false, false},
	{"--help", "Display available options (--help-hidden for more)", true, false, false},
	{"--help-hidden", "Display all available options", true, true, false},
	{"--help-list", "Display list of available options (--help-list-hidden for more)", true, false, true},
	{"--help-list-hidden", "Display list of all available options", true, true, false},
	{"--image=<<key>=<value>,...>", "List of key and value arguments. Required keywords are 'file' and 'triple'.", false, false, false},
	{"-o <file>", "Write output to <file>.", false, false, false},
	{"--print-all-options", "Print all option values after command line parsing", true, true, false},
	{"--print-options", "Print non-default options after command line parsing", true, true, false},
	{"--version", "Display the version of this program", true, false, false},
}

func writeLine(w *strings.Builder, l helpLine) {
	fmt.Fprintf(w, "  %-27s - %s\n", l.name, l.desc)
}

// Help returns the help text. categorized selects --help's form (generic
// options and the tool's own under separate headings) over the plain list
// of --help-list, -h and a bare invocation; hidden adds the hidden options.
func Help(prog string, categorized, hidden bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, overview, prog)
	if !categorized {
		for _, l := range helpLines {
			if !l.hidden && !l.listHidden || hidden {
				writeLine(&b, l)
			}
		}
		return b.String()
	}
	b.WriteString("\nGeneric Options:\n\n")
	for _, l := range helpLines {
		if l.generic && (!l.hidden || hidden) {
			writeLine(&b, l)
		}
	}
	b.WriteString("\nllvm-offload-binary options:\n\n")
	for _, l := range helpLines {
		if !l.generic {
			writeLine(&b, l)
		}
	}
	return b.String()
}

func printHelp(w io.Writer, prog string, categorized, hidden bool) {
	io.WriteString(w, Help(prog, categorized, hidden))
}
