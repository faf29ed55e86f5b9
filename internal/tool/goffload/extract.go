package goffloadcmd

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/targetid"
	"github.com/urfave/cli/v2"
)

func extractCommand() *cli.Command {
	return &cli.Command{
		Name:      "extract",
		Usage:     "write chosen code objects of FILE to a folder or to stdout",
		ArgsUsage: "FILE",
		Description: `Chooses code objects by one of: --target (what a GPU of that target would
load: one object per bundle, by LLVM's target-ID rule: a mode the target
leaves out takes only code built for any mode, so --target gfx90a on a file
with only gfx90a:xnack+ and gfx90a:xnack- builds stops and asks which;
the processor's own code before its generic family's),
--id (an exact bundle ID), --triple/--arch/--kind (OffloadBinary fields or
the pieces of a bundle ID), --index (from goffload list), --uri (a line of
goffload list --uri or llvm-readobj --offloading), or --all. Compressed
bundles are inflated only as far as each chosen object reaches.

Files are named <input>-<index>-<id>.<ext> inside the -o folder; names are
built from the input's metadata but can never leave that folder. With -o -
exactly one object is written to stdout.

Examples:
   goffload extract --target gfx90a:xnack+ -o out/ libfoo.so
   goffload extract --id hipv4-amdgcn-amd-amdhsa--gfx906 -o - kernel.o > gfx906.co
   goffload extract --arch gfx90a --kind openmp -o out/ omp.o
   goffload extract --index 3 --index 7 -o out/ lib.a
   goffload extract --all -o out/ app`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "folder to write into, or - for stdout", Required: true},
			&cli.StringFlag{Name: "target", Usage: "target ID of the GPU (gfx90a, gfx90a:xnack+, gfx942:sramecc+:xnack-)"},
			&cli.StringSliceFlag{Name: "id", Usage: "exact bundle ID (repeatable)"},
			&cli.StringFlag{Name: "triple", Usage: "target triple, exactly as stored"},
			&cli.StringFlag{Name: "arch", Usage: "arch or target ID, exactly as stored"},
			&cli.StringFlag{Name: "kind", Usage: "offload kind (hip, hipv4, openmp, ...)"},
			&cli.IntSliceFlag{Name: "index", Usage: "index shown by goffload list (repeatable)"},
			&cli.StringFlag{Name: "uri", Usage: "file://PATH#offset=N&size=N"},
			&cli.BoolFlag{Name: "all", Usage: "every device code object"},
		},
		Action:       runExtract,
		OnUsageError: commandUsageError,
	}
}

func runExtract(c *cli.Context) error {
	if c.NArg() != 1 {
		return usage("extract: give exactly one input file (got %d)", c.NArg())
	}
	name := c.Args().First()
	modes := 0
	for _, f := range []string{"target", "id", "index", "uri", "all"} {
		if c.IsSet(f) {
			modes++
		}
	}
	if c.IsSet("triple") || c.IsSet("arch") || c.IsSet("kind") {
		modes++
	}
	if modes != 1 {
		return usage("extract: choose objects with exactly one of --target, --id, --triple/--arch/--kind, --index, --uri or --all")
	}
	// Headers are read only for the objects that need them (no target ID
	// in their container, or a name to make).
	target, err := oneTarget(c, "target")
	if err != nil {
		return err
	}
	ll, err := readListing(name, c.App.Reader, &inspect.Options{SkipHeaders: true})
	if err != nil {
		return err
	}
	defer ll.Close()
	l := ll.Listing
	if target != nil {
		if err := checkTargets("target", []targetid.Target{*target}, l.Processors); err != nil {
			return err
		}
	}
	for _, e := range l.Errors {
		fmt.Fprintf(c.App.ErrWriter, "goffload: warning: %v\n", e)
	}
	picked, err := choose(c, l, target)
	if err != nil {
		return err
	}
	out := c.String("output")
	if fi, err := os.Stat(out); err == nil && !fi.IsDir() && out != "-" {
		return usage("extract: -o %s is a file: extract writes into a folder (-o - writes one object to standard output)", out)
	}
	if out == "-" {
		if len(picked) != 1 {
			return usage("extract: -o - writes one object, but %d match (%s); use a folder", len(picked), describeAll(picked))
		}
		if err := writeStdout(c.App.Writer, picked[0]); err != nil {
			return err
		}
		return damaged(l)
	}
	written, err := writeFolder(out, l.File, picked)
	if err != nil {
		return problem("%v", err)
	}
	for _, p := range written {
		fmt.Fprintln(c.App.Writer, p)
	}
	return damaged(l)
}

// damaged is the exit status of an extraction from a listing: what could
// be read was written, and damage found (the warnings above) is exit 1, as
// for every command.
func damaged(l *inspect.Listing) error {
	if len(l.Errors) > 0 {
		return &exitError{exitProblem, ""}
	}
	return nil
}

func describeAll(objs []*inspect.Object) string {
	var s []string
	for _, o := range objs {
		s = append(s, fmt.Sprintf("#%d", o.Index))
	}
	return strings.Join(s, " ")
}

// choose applies the selection flags.
func choose(c *cli.Context, l *inspect.Listing, target *targetid.Target) ([]*inspect.Object, error) {
	var picked []*inspect.Object
	switch {
	case target != nil:
		picked, err := l.ForTarget(*target)
		var nm *targetid.NoMatchError
		switch {
		case errors.As(err, &nm):
			return nil, noMatch(l, fmt.Sprintf("no code object in %s can run on %s", l.File, target), nm.Reasons)
		case err != nil:
			return nil, problem("%s: %s", l.File, strings.TrimPrefix(err.Error(), "targetid: "))
		}
		return picked, nil
	case c.IsSet("id"):
		ids := c.StringSlice("id")
		for _, o := range l.Objects {
			if slices.Contains(ids, o.ID) {
				picked = append(picked, o)
			}
		}
	case c.IsSet("index"):
		for _, i := range c.IntSlice("index") {
			if i < 0 || i >= len(l.Objects) {
				return nil, noMatch(l, fmt.Sprintf("no object #%d in %s (it has %d)", i, l.File, len(l.Objects)), nil)
			}
			picked = append(picked, l.Objects[i])
		}
		return picked, nil
	case c.IsSet("uri"):
		off, size, err := parseURI(c.String("uri"))
		if err != nil {
			return nil, usage("--uri: %v", err)
		}
		for _, o := range l.Objects {
			if o.Offset == off && o.Size == size {
				picked = append(picked, o)
				break
			}
		}
	case c.IsSet("all"):
		picked = l.Devices()
	default:
		for _, o := range l.Objects {
			// Empty trailing components do not count: a bundle ID's
			// "amdgcn-amd-amdhsa-" is the triple "amdgcn-amd-amdhsa".
			if (!c.IsSet("triple") || strings.TrimRight(o.Triple, "-") == strings.TrimRight(c.String("triple"), "-")) &&
				(!c.IsSet("arch") || o.TargetID == c.String("arch")) &&
				(!c.IsSet("kind") || o.Kind == c.String("kind")) {
				picked = append(picked, o)
			}
		}
	}
	if len(picked) == 0 {
		return nil, noMatch(l, fmt.Sprintf("nothing in %s matches", l.File), nil)
	}
	return picked, nil
}

// noMatch explains an empty choice: why objects did not fit, and what there is.
func noMatch(l *inspect.Listing, head string, reasons []string) error {
	var b strings.Builder
	b.WriteString(head)
	if len(l.Objects) == 0 {
		if len(l.Errors) > 0 {
			b.WriteString("; no device code could be read from it (see the warnings above)")
		} else {
			b.WriteString("; it holds no device code")
		}
		return problem("%s", b.String())
	}
	b.WriteString(". It holds:")
	for _, o := range l.Objects {
		fmt.Fprintf(&b, "\n  #%d %s (%s bytes)", o.Index, displayID(o), sizeString(o.Size))
	}
	if len(reasons) > 0 {
		b.WriteString("\nWhy none fits:")
		for _, r := range reasons {
			b.WriteString("\n  " + inspect.Escape(r))
		}
	}
	return problem("%s", b.String())
}

// parseURI reads file://PATH#offset=N&size=N.
func parseURI(s string) (off, size int64, err error) {
	_, frag, ok := strings.Cut(s, "#")
	if !ok {
		return 0, 0, fmt.Errorf("%q has no #offset=N&size=N", s)
	}
	q, err := url.ParseQuery(frag)
	if err != nil {
		return 0, 0, err
	}
	off, err1 := strconv.ParseInt(q.Get("offset"), 0, 64)
	size, err2 := strconv.ParseInt(q.Get("size"), 0, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%q: offset and size must be numbers", s)
	}
	return off, size, nil
}

func writeStdout(w io.Writer, o *inspect.Object) error {
	r, err := o.Open()
	if err != nil {
		return problem("%v", err)
	}
	if _, err := io.Copy(w, r); err != nil {
		return problem("%s: %v", o.Where(), err)
	}
	return nil
}

// writeFolder writes every object into dir, each through a temporary file
// renamed only once all of them are complete: a failure leaves none of
// them and no existing file changed. Names are made in the folder through
// os.Root, so nothing is written elsewhere whatever the names say.
func writeFolder(dir, input string, objs []*inspect.Object) ([]string, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	type pending struct{ tmp, name string }
	var done []pending
	cleanup := func() {
		for _, p := range done {
			root.Remove(p.tmp)
		}
	}
	stem := safeName(filepath.Base(input))
	used := map[string]bool{}
	for _, o := range objs {
		r, err := o.Open()
		if err != nil {
			cleanup()
			return nil, err
		}
		var src io.Reader
		var peek []byte
		if o.Compressed == nil {
			// Plain bytes: peek through a second reader, copy file to file.
			peek = make([]byte, min(o.Size, magic.Len))
			io.ReadFull(r, peek)
		} else {
			br := bufio.NewReaderSize(r, 64<<10)
			peek, _ = br.Peek(magic.Len)
			src = br
		}
		name := fmt.Sprintf("%s-%d-%s%s", stem, o.Index, safeName(idOrTarget(o)), extension(o, peek, input))
		for used[name] {
			name = "_" + name
		}
		used[name] = true
		tmp := "." + name + ".tmp-" + randomSuffix()
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			cleanup()
			return nil, err
		}
		done = append(done, pending{tmp, name})
		if src != nil {
			_, err = io.Copy(f, src)
		} else {
			_, err = o.WriteTo(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%s: %w", o.Where(), err)
		}
	}
	var out []string
	for _, p := range done {
		if fi, err := root.Lstat(p.name); err == nil && fi.IsDir() {
			cleanup()
			return out, fmt.Errorf("%s is a folder; extract does not replace folders", filepath.Join(dir, p.name))
		}
		if err := root.Rename(p.tmp, p.name); err != nil {
			cleanup()
			var le *os.LinkError
			if errors.As(err, &le) {
				err = le.Err
			}
			return out, fmt.Errorf("%s: %w", filepath.Join(dir, p.name), err)
		}
		out = append(out, filepath.Join(dir, p.name))
	}
	return out, nil
}

func idOrTarget(o *inspect.Object) string {
	if o.ID != "" {
		return o.ID
	}
	if t := o.Header().TargetID(); t != "" {
		return t
	}
	return "object"
}

// safeName keeps a name that is one plain path component: letters, digits
// and ._+-= only, no leading dot, at most 120 bytes.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '+' || c == '-' || c == '=') {
			b[i] = '_'
		}
	}
	for len(b) > 0 && b[0] == '.' {
		b[0] = '_'
	}
	if len(b) > 120 {
		b = b[:120]
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// extension names a code object's file type from its first bytes.
func extension(o *inspect.Object, head []byte, input string) string {
	switch k := magic.Identify(head); {
	case k.IsELF():
		if len(head) >= 20 && (head[18] == 224 || head[18] == 190) {
			return ".co"
		}
		return ".o"
	case k == magic.Bitcode:
		return ".bc"
	case k == magic.SPIRV:
		return ".spv"
	case k == magic.OffloadBinary:
		return ".offload"
	}
	if o.Container == "text bundle entry" {
		if ext := filepath.Ext(input); ext != "" {
			return safeName(ext)
		}
		return ".txt"
	}
	return ".bin"
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:]) // never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
