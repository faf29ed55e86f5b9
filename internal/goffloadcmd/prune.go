package goffloadcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/prune"
	"github.com/urfave/cli/v2"
)

func pruneCommand() *cli.Command {
	return &cli.Command{
		Name:      "prune",
		Usage:     "keep only the GPU targets you own (the nvprune of ROCm)",
		ArgsUsage: "IN",
		Description: `Keeps the host code and only the code objects a GPU of the given target
IDs would load (--keep gfx90a keeps gfx90a, gfx90a:xnack+ and gfx90a:xnack-;
--keep gfx90a:xnack+ keeps xnack+ and the feature-less build; --exact compares
IDs as strings), or drops the named ones (--drop). Works on shared libraries
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
		Description: `Replaces the code object whose bundle ID (or, when none matches, target ID)
is --target with the contents of --with, in every bundle that holds it, in
the same containers prune rewrites. The new code object may be smaller or
larger, as long as the device code as a whole still fits where it was in a
linked file.

Examples:
   goffload replace --target hipv4-amdgcn-amd-amdhsa--gfx90a --with k.co -o lib.new.so lib.so
   goffload replace --target gfx942:sramecc+:xnack- --with fixed.co -o kernel.o.new kernel.o`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "target", Usage: "bundle ID or target ID to replace", Required: true},
			&cli.StringFlag{Name: "with", Usage: "file holding the new code object", Required: true},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file"},
			&cli.BoolFlag{Name: "in-place", Usage: "replace the input (through a temporary file and rename)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would be replaced, write nothing"},
			&cli.IntFlag{Name: "level", Usage: "compression level for rewritten CCOBs (default: LLVM's)"},
		},
		Action:       runReplace,
		OnUsageError: commandUsageError,
	}
}

func splitList(v []string) []string {
	var out []string
	for _, s := range v {
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func runPrune(c *cli.Context) error {
	keep, drop := splitList(c.StringSlice("keep")), splitList(c.StringSlice("drop"))
	if (len(keep) > 0) == (len(drop) > 0) {
		return usage("prune: give --keep or --drop (not both)")
	}
	return rewrite(c, prune.Options{Keep: keep, Drop: drop, Exact: c.Bool("exact"), Level: c.Int("level")})
}

func runReplace(c *cli.Context) error {
	with, err := os.Open(c.String("with"))
	if err != nil {
		return problem("%v", err)
	}
	defer with.Close()
	fi, err := with.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return problem("--with %s: not a regular file", c.String("with"))
	}
	return rewrite(c, prune.Options{Replace: &prune.Replacement{Target: c.String("target"), Data: with, Size: fi.Size()}, Level: c.Int("level")})
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
	case inPlace:
		out = in
	}
	f, err := os.Open(in)
	if err != nil {
		return problem("%v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return problem("%v", err)
	}
	if !fi.Mode().IsRegular() {
		return problem("%s: not a regular file", in)
	}
	if !dry {
		if same, _ := sameFile(in, out); same && !inPlace {
			return usage("%s: -o names the input; use --in-place", c.Command.Name)
		}
	}
	var dst prune.Output
	var commit func() error
	if dry {
		tmp, err := os.CreateTemp("", "goffload-dry-*")
		if err != nil {
			return problem("%v", err)
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		dst, commit = tmp, func() error { return nil }
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
	rep, err := prune.Rewrite(dst, f, fi.Size(), in, opts)
	if err != nil {
		if errors.Is(err, prune.ErrRefused) {
			return problem("%v (nothing written)", err)
		}
		return problem("%v (nothing written)", err)
	}
	writeReport(c.App.Writer, rep, dry)
	if err := commit(); err != nil {
		return problem("%v", err)
	}
	return nil
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Action, d.ID, size, d.Where)
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
