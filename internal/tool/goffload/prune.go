package goffloadcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/prune"
	"github.com/goffload/goffload/targetid"
	"github.com/goffload/goffload/tree"
	"github.com/urfave/cli/v2"
)

func pruneCommand() *cli.Command {
	return &cli.Command{
		Name:      "prune",
		Usage:     "keep only the GPU targets you own (the nvprune of ROCm)",
		ArgsUsage: "IN",
		Description: `Keeps the host code and only the code objects a GPU of the given targets
could load in any mode it may run in (--keep gfx90a keeps gfx90a,
gfx90a:xnack+ and gfx90a:xnack-; --keep gfx90a:xnack+ keeps xnack+ and the
build for any mode; --keep gfx906 keeps gfx9-generic code too; --exact
compares target IDs as strings), or drops the named builds (--drop gfx90a
drops every gfx90a build, --drop gfx90a:xnack+ only xnack+ ones). Targets
may be written as target IDs, as rocminfo prints GPUs
(amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-) or as bundle IDs; an unknown
name is a usage error with a did-you-mean, a target that matches nothing
is noted, and a --keep that keeps no code object at all writes nothing and
exits 1 (unless --allow-empty). A prune that drops nothing writes the input
byte for byte. Works on shared libraries
and executables (every bundle of .hip_fatbin rewritten, the file made smaller
without moving any virtual address, every pointer to a bundle patched), fat
objects and static archives of them, bundles and CCOBs (recompressed with
their version and method). A bundle left with no code for any kept GPU keeps
its host entry, as for an unsupported GPU. Anything that cannot be rewritten
safely is refused with the reason; the input is never changed unless
--in-place is given (through a temporary file and a rename).

Examples:
   goffload prune --keep gfx90a,gfx942 -o librocsparse.so.pruned librocsparse.so
   goffload prune --drop gfx906 --dry-run libMIOpen.so
   goffload prune --keep gfx1100 --in-place app`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "keep", Usage: "target IDs to keep (comma-separated or repeated)"},
			&cli.StringSliceFlag{Name: "drop", Usage: "target IDs to drop"},
			&cli.BoolFlag{Name: "exact", Usage: "match target IDs exactly, not by compatibility"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file"},
			&cli.BoolFlag{Name: "in-place", Usage: "replace the input (through a temporary file and rename)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would be kept and dropped, write nothing"},
			&cli.IntFlag{Name: "level", Usage: "compression level for rewritten CCOBs (default: LLVM's)"},
			&cli.BoolFlag{Name: "allow-empty", Usage: "write the output even when --keep keeps no code object at all (a file that is only device code, such as a .co, a KPAK archive or an OffloadBinary file, is still refused: there is no empty form of it to write)"},
		},
		Action:       runPrune,
		OnUsageError: commandUsageError,
	}
}

func replaceCommand() *cli.Command {
	return &cli.Command{
		Name:      "replace",
		Usage:     "put a new code object in place of one",
		ArgsUsage: "IN",
		Description: `Replaces, in every bundle, the code object a GPU of --target would load
(the rule extract --target follows) with the contents of --with, in the
same containers prune rewrites. --with must be code the replaced entry's
target accepts: the same kind of code and, for an AMDGPU code object, a
processor and modes a runtime would load in its place (--force to replace
anyway). When the replaced objects differed from each other, it says so. The new code object may be smaller or
larger, as long as the device code as a whole still fits where it was in a
linked file.

Examples:
   goffload replace --target hipv4-amdgcn-amd-amdhsa--gfx90a --with k.co -o lib.new.so lib.so
   goffload replace --target gfx942:sramecc+:xnack- --with fixed.co -o kernel.o.new kernel.o`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "target", Usage: "the GPU whose code object to replace (target ID, GPU name or bundle ID)"},
			&cli.IntSliceFlag{Name: "index", Usage: "replace only the code object of this index (as goffload list numbers them; repeatable)"},
			&cli.IntSliceFlag{Name: "bundle", Usage: "replace only in the bundles of this number (as goffload list names them: bundle N; repeatable)"},
			&cli.StringFlag{Name: "with", Usage: "file holding the new code object", Required: true},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file"},
			&cli.BoolFlag{Name: "in-place", Usage: "replace the input (through a temporary file and rename)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would be replaced, write nothing"},
			&cli.IntFlag{Name: "level", Usage: "compression level for rewritten CCOBs (default: LLVM's)"},
			&cli.BoolFlag{Name: "force", Usage: "replace even when --with is not code the replaced entry's target accepts"},
		},
		Action:       runReplace,
		OnUsageError: commandUsageError,
	}
}

func runPrune(c *cli.Context) error {
	keep, err := parseTargets("keep", c.StringSlice("keep")...)
	if err != nil {
		return err
	}
	drop, err := parseTargets("drop", c.StringSlice("drop")...)
	if err != nil {
		return err
	}
	if (len(keep) > 0) == (len(drop) > 0) {
		return usage("prune: give --keep or --drop (not both)")
	}
	opts := prune.Options{Keep: keep, Drop: drop, Exact: c.Bool("exact"), AllowEmpty: c.Bool("allow-empty"), Level: c.Int("level")}
	if c.NArg() == 1 {
		name := c.Args().First()
		if fi, err := os.Stat(name); err == nil && (fi.IsDir() || isZip(name)) {
			return pruneTree(c, opts)
		}
	}
	return rewrite(c, opts)
}

func runReplace(c *cli.Context) error {
	target, err := oneTarget(c, "target")
	if err != nil {
		return err
	}
	switch {
	case target == nil && !c.IsSet("index"):
		return usage("replace: say what to replace with --target or --index")
	case c.IsSet("bundle") && target == nil:
		return usage("replace: --bundle chooses bundles; --target then chooses the code object in each")
	case target == nil:
		target = &targetid.Target{}
	}
	at, err := positions(c)
	if err != nil {
		return err
	}
	with, size, err := openInput(c.String("with"), c.App.Reader)
	if err != nil {
		return err
	}
	defer with.Close()
	return rewrite(c, prune.Options{Replace: &prune.Replacement{Target: *target, At: at, Data: with, Size: size, Force: c.Bool("force")}, Level: c.Int("level")})
}

// rewrite runs a prune or replace from IN to -o, --in-place or nowhere.
func rewrite(c *cli.Context, opts prune.Options) error {
	// Rewriting CCOBs allocates a bundle's worth of short-lived buffers per
	// CCOB: a tighter collector keeps peak memory near the largest bundle
	// (77 MB to 47 MB on the 100-CCOB benchmark library, for a quarter
	// more CPU time); plain files allocate next to nothing.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	if c.NArg() != 1 {
		return usage("%s: give exactly one input file", c.Command.Name)
	}
	in := c.Args().First()
	dry, inPlace, out := c.Bool("dry-run"), c.Bool("in-place"), c.String("output")
	switch {
	case dry && (inPlace || out != ""):
		return usage("%s: --dry-run writes nothing: drop -o and --in-place", c.Command.Name)
	case !dry && inPlace == (out != ""):
		return usage("%s: give -o OUT or --in-place (or --dry-run)", c.Command.Name)
	case inPlace && in == "-":
		return usage("%s: --in-place needs a file, not standard input", c.Command.Name)
	case inPlace:
		out = in
	}
	f, size, err := openInput(in, c.App.Reader)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return problem("%v", err)
	}
	if err := checkTargets(targetFlag(c), append(slices.Clip(opts.Keep), opts.Drop...), func() []string {
		return inspect.Read(f, size, in, &inspect.Options{SkipHeaders: true}).Processors()
	}); err != nil {
		return err
	}
	if opts.Replace != nil && opts.Replace.Target.Processor != "" {
		if err := checkTargets("target", []targetid.Target{opts.Replace.Target}, func() []string {
			return inspect.Read(f, size, in, &inspect.Options{SkipHeaders: true}).Processors()
		}); err != nil {
			return err
		}
	}
	if !dry {
		if ofi, err := os.Stat(out); err == nil && ofi.IsDir() {
			return usage("%s: -o %s is a folder; name the output file", c.Command.Name, out)
		}
		if same, _ := sameFile(in, out); same && !inPlace {
			return usage("%s: -o names the input; use --in-place", c.Command.Name)
		}
	}
	var dst prune.Output
	var commit func() error
	if dry {
		// Written nowhere, as a tree's dry run (no file left should a
		// signal end the run).
		dst, commit = prune.Discard{}, func() error { return nil }
	} else {
		af, err := atomicfile.CreateFile(out)
		if err != nil {
			return problem("%v", err)
		}
		defer af.Abort()
		dst = af
		commit = af.Commit
		if err := af.Chmod(fi.Mode().Perm()); err != nil {
			return problem("%v", err)
		}
	}
	rep, err := prune.Rewrite(dst, f, size, in, opts)
	if err != nil {
		return problem("%s (nothing written)", strings.NewReplacer("targetid: ", "", "prune: ", "").Replace(err.Error()))
	}
	writeReport(c.App.Writer, rep, dry)
	for _, t := range rep.Unmatched {
		fmt.Fprintf(c.App.Writer, "note: --%s %s matched no code object\n", targetFlag(c), t)
	}
	if err := commit(); err != nil {
		return problem("%v", err)
	}
	return nil
}

// positions reads replace's --index and --bundle: where the code objects
// they name lie in the input.
func positions(c *cli.Context) ([]prune.Position, error) {
	if !c.IsSet("index") && !c.IsSet("bundle") {
		return nil, nil
	}
	if c.NArg() != 1 || c.Args().First() == "-" {
		return nil, usage("replace: --index and --bundle need one input file")
	}
	l, err := readListing(c.Args().First(), c.App.Reader, &inspect.Options{SkipHeaders: true})
	if err != nil {
		return nil, err
	}
	defer l.Close()
	var picked []*inspect.Object
	for _, i := range c.IntSlice("index") {
		if i < 0 || i >= len(l.Objects) || l.Objects[i].Host || l.Objects[i].Nested > 0 {
			return nil, usage("replace: --index %d is not a device code object of %s (goffload list numbers them)", i, l.File)
		}
		picked = append(picked, l.Objects[i])
	}
	for _, n := range c.IntSlice("bundle") {
		step := fmt.Sprintf("bundle %d", n)
		found := false
		for _, o := range l.Devices() {
			for _, p := range o.Path {
				if p == step || strings.HasPrefix(p, step+" (") {
					picked, found = append(picked, o), true
					break
				}
			}
		}
		if !found {
			return nil, usage("replace: %s has no %s (goffload list names the bundles)", l.File, step)
		}
	}
	var at []prune.Position
	for _, o := range picked {
		off, inner := o.Position()
		if off < 0 {
			return nil, usage("replace: %s cannot be chosen by --index or --bundle (its bytes lie in no range of the file); use --target", o.Where())
		}
		at = append(at, prune.Position{Offset: off, Inner: inner})
	}
	return at, nil
}

// targetFlag names the flag a rewrite's targets came from.
func targetFlag(c *cli.Context) string {
	switch {
	case c.IsSet("keep"):
		return "keep"
	case c.IsSet("drop"):
		return "drop"
	}
	return "target"
}

func sameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false, nil
	}
	return os.SameFile(fa, fb), nil
}

func writeReport(w io.Writer, r *prune.Report, dry bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tID\tSIZE\tWHERE")
	var kept, dropped, replaced, hosts int
	var freed int64
	for _, d := range r.Decisions {
		size := sizeString(d.Size)
		if d.Action == prune.Replaced {
			size += " → " + sizeString(d.NewSize)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Action, inspect.Escape(d.ID), size, inspect.Escape(d.Where))
		switch d.Action {
		case prune.Dropped:
			dropped++
			freed += d.Size
		case prune.Replaced:
			replaced++
		case prune.Host:
			hosts++
		default:
			kept++
		}
	}
	tw.Flush()
	verb := "wrote"
	if dry {
		verb = "would write"
	}
	fmt.Fprintf(w, "\n%d code object(s) kept, %d dropped, %d replaced (and %d host entries kept); %s bytes of code objects dropped; file %s → %s bytes (%s)\n",
		kept, dropped, replaced, hosts, sizeString(freed), sizeString(r.SizeBefore), sizeString(r.SizeAft), verb)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// isZip reports whether a file is a zip archive (a wheel). Only a regular
// file is opened: a pipe would lose the bytes read, and a FIFO opened again
// would wait for a second writer.
func isZip(name string) bool {
	if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && string(b[:]) == "PK\x03\x04"
}

// pruneTree prunes a folder into a new one, or a wheel into a new wheel
// (-o), or reports (--dry-run).
func pruneTree(c *cli.Context, opts prune.Options) error {
	in, out, dry := c.Args().First(), c.String("output"), c.Bool("dry-run")
	inPlace := c.Bool("in-place")
	switch {
	case inPlace && (out != "" || dry):
		return usage("prune: --in-place writes over the input: drop -o and --dry-run")
	case inPlace && isZip(in):
		return usage("prune: --in-place is for folders; give -o NEW.whl for a wheel")
	case inPlace:
	case dry && out != "":
		return usage("prune: --dry-run writes nothing: drop -o")
	case !dry && out == "":
		return usage("prune: give -o NEW (a new folder or wheel), or --dry-run")
	}
	if !dry && !inPlace {
		if _, err := os.Lstat(out); err == nil {
			return usage("prune: -o %s exists; name a new folder", out)
		}
	}
	err := checkTargets(targetFlag(c), append(slices.Clip(opts.Keep), opts.Drop...), func() []string {
		files, _ := tree.Walk([]string{in}, &tree.Options{SkipHeaders: true})
		return walkProcessors(files)
	})
	if err != nil {
		return err
	}
	prune := tree.PruneTree
	if isZip(in) {
		prune = tree.PruneWheel
		if !dry {
			if _, err := os.Lstat(out); err == nil {
				return usage("prune: -o %s exists; name a new wheel", out)
			}
		}
	}
	if inPlace {
		prune = func(in, _ string, o tree.TreeOptions) (*tree.TreeReport, error) { return tree.PruneInPlace(in, o) }
	}
	rep, err := prune(in, out, tree.TreeOptions{Options: opts, DryRun: dry})
	if err != nil {
		msg := strings.NewReplacer("targetid: ", "", "prune: ", "", "tree: ", "").Replace(err.Error())
		switch {
		case errors.Is(err, tree.ErrInside) || errors.Is(err, tree.ErrExists):
			return usage("prune: %s", msg)
		case inPlace:
			return problem("%s", msg) // it says how far it got
		}
		return problem("%s (nothing written)", msg)
	}
	writeTreeReport(c.App.Writer, rep, dry)
	return nil
}

func writeTreeReport(w io.Writer, r *tree.TreeReport, dry bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tFILE\tSIZE\tCODE OBJECTS\tNOTE")
	counts := map[string]int{}
	for _, f := range r.Files {
		counts[f.Action]++
		if f.Action == tree.Copied {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s → %s\t%d kept, %d dropped\t%s\n", f.Action, inspect.Escape(f.Path),
			sizeString(f.SizeBefore), sizeString(f.SizeAf), f.Kept, f.Dropped, inspect.Escape(f.Note))
	}
	tw.Flush()
	before, after, kept, dropped := r.Totals()
	verb := "wrote"
	if dry {
		verb = "would write"
	}
	var parts []string
	for _, a := range []string{tree.Rewritten, tree.HostOnly, tree.Unchanged, tree.Removed, tree.Refused, tree.Copied} {
		if counts[a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[a], a))
		}
	}
	fmt.Fprintf(w, "\n%d files: %s; %d code object(s) kept, %d dropped; %s → %s bytes (%s)\n",
		len(r.Files), strings.Join(parts, ", "), kept, dropped, sizeString(before), sizeString(after), verb)
	for _, t := range r.Unmatched {
		fmt.Fprintf(w, "note: %s matched no code object\n", t)
	}
}
