package goffloadcmd

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/targetid"
	"github.com/goffload/goffload/tree"
	"github.com/urfave/cli/v2"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list every code object in each FILE",
		ArgsUsage: "FILE...",
		Description: `Prints one row per code object (and per host entry of a bundle): its
index, bundle ID or OffloadBinary target, size, file offset, the containers
it sits in and what its own header says; then a summary per GPU target.
Objects inside compressed bundles have no file offset of their own: the
CCOB's offset is shown with the object's offset inside the inflated
bundle (ccob@0x3000+0x1000).

With --target, a GPU name that leaves a mode out (gfx90a) stands for the
GPU in any mode it may run in: code for gfx90a:xnack+, gfx90a:xnack- and
gfx90a fits, and gfx9-generic code fits a gfx906.

Exit status: 0 when every file was read whole, 1 when something was damaged
or, with --target, nothing fits, 2 for usage errors (an unknown target, a
folder or a file that cannot be opened).

Examples:
   goffload list libamdhip64.so librocblas.so
   goffload list --target gfx90a:xnack+ app       # what a gfx90a in xnack+ mode loads
   goffload list --json kernel.o | jq '.files[].objects[].target_id'
   goffload list --uri lib.so                      # llvm-readobj --offloading's lines`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON (schema: testdata/goffload-list.schema.json)"},
			&cli.BoolFlag{Name: "uri", Usage: "print llvm-readobj --offloading's lines: ID<TAB>file://PATH#offset=N&size=N (uncompressed objects only)"},
			&cli.StringFlag{Name: "target", Usage: "list only code objects a GPU of this target can load, in any mode it may run in (gfx90a: xnack+, xnack- and any-mode builds; gfx90a:xnack+; amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-; a bundle ID)"},
			&cli.BoolFlag{Name: "no-headers", Usage: "do not read code object headers (only container headers)"},
			&cli.BoolFlag{Name: "duplicates", Usage: "also list code objects that are the same across targets or files (reads every byte)"},
		},
		Action:       runList,
		OnUsageError: commandUsageError,
	}
}

func runList(c *cli.Context) error {
	if c.NArg() == 0 {
		return usage("list: no input file (goffload list FILE...)")
	}
	target, err := oneTarget(c, "target")
	if err != nil {
		return err
	}
	opts := &inspect.Options{SkipHeaders: c.Bool("no-headers")}
	out := c.App.Writer
	var listings []*inspect.Listing
	status := exitOK
	noCode := -1 // files without device code in the folders named
	for _, name := range c.Args().Slice() {
		if fi, err := os.Stat(name); err == nil && fi.IsDir() {
			files, err := tree.Walk([]string{name}, &tree.Options{SkipHeaders: opts.SkipHeaders})
			if err != nil {
				return usage("%v", err)
			}
			noCode = max(noCode, 0)
			for _, f := range files {
				switch {
				case f.Err != nil:
					fmt.Fprintf(c.App.ErrWriter, "goffload: %v\n", f.Err)
					status = max(status, exitProblem)
				case len(f.Listing.Objects) == 0 && len(f.Listing.Errors) == 0:
					noCode++
				default:
					listings = append(listings, f.Listing)
					if len(f.Listing.Errors) > 0 {
						status = max(status, exitProblem)
					}
				}
			}
			continue
		}
		l, err := readListing(name, c.App.Reader, opts)
		if err != nil {
			var ee *exitError
			if errors.As(err, &ee) {
				status = max(status, ee.code)
			}
			fmt.Fprintf(c.App.ErrWriter, "goffload: %v\n", err)
			continue
		}
		defer l.Close()
		listings = append(listings, tree.SplitMembers(l.Listing)...)
		if len(l.Errors) > 0 {
			status = max(status, exitProblem)
		}
	}
	holds := map[*inspect.Listing]string{}
	if target != nil {
		err := checkTargets("target", []targetid.Target{*target}, func() []string { return processors(listings) })
		if err != nil {
			return err
		}
		for _, l := range listings {
			holds[l] = heldTargets(l)
			l.Objects = filterTarget(l.Objects, *target)
		}
	}
	var dups []tree.Duplicate
	if c.Bool("duplicates") {
		if dups, err = tree.Duplicates(c.Args().Slice()); err != nil {
			return problem("--duplicates: %v", err)
		}
	}
	switch {
	case c.Bool("json"):
		err = writeJSON(out, listings, noCode, dups)
	case c.Bool("uri"):
		err = writeURIs(out, listings)
	case len(listings) == 0 && noCode < 0 && status != exitOK:
		// Nothing named could be read: the errors above say why, and an
		// empty table after them would only read as "no device code".
	default:
		err = writeTable(out, listings, target, holds)
		if err == nil && noCode >= 0 {
			_, err = fmt.Fprintf(out, "%d file(s) without device code\n", noCode)
		}
		if err == nil && c.Bool("duplicates") {
			err = writeDuplicates(out, dups)
		}
	}
	if err != nil {
		return problem("writing output: %v", err)
	}
	if !c.Bool("json") {
		for _, l := range listings {
			for _, e := range l.Errors {
				fmt.Fprintf(c.App.ErrWriter, "goffload: %v\n", e)
			}
		}
	}
	if target != nil && len(listings) > 0 && countDevices(listings) == 0 {
		status = max(status, exitProblem)
		if c.Bool("json") || c.Bool("uri") {
			// The table says it; other outputs say it here.
			fmt.Fprintf(c.App.ErrWriter, "goffload: no code object for %s\n", target)
		}
	}
	if status != exitOK {
		return &exitError{status, ""}
	}
	return nil
}

// filterTarget keeps the code objects GPU t, in any mode it may run in,
// can load (targetid.Target.Runs).
func filterTarget(objs []*inspect.Object, t targetid.Target) []*inspect.Object {
	var out []*inspect.Object
	for _, o := range objs {
		if !o.Host && o.Nested == 0 && t.Runs(o.Target()) {
			out = append(out, o)
		}
	}
	return out
}

// processors lists the processors the listings hold code for.
func processors(ls []*inspect.Listing) []string {
	var ps []string
	for _, l := range ls {
		for _, p := range l.Processors() {
			if !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
	}
	return ps
}

// heldTargets says which target IDs a listing holds code for.
func heldTargets(l *inspect.Listing) string {
	var ts []string
	for _, o := range l.Devices() {
		if t := targetOf(o); t != "" && !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return "it holds no device code"
	}
	sort.Strings(ts)
	return "it holds code for " + strings.Join(ts, ", ")
}

func targetOf(o *inspect.Object) string { return o.Target().TargetID }

func countDevices(ls []*inspect.Listing) int {
	n := 0
	for _, l := range ls {
		n += len(l.Devices())
	}
	return n
}

// writeTable prints listings for people.
func writeTable(w io.Writer, ls []*inspect.Listing, target *targetid.Target, holds map[*inspect.Listing]string) error {
	b := bufio.NewWriterSize(w, 64<<10) // rows stream out: no table is held
	for i, l := range ls {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "%s: %s\n", inspect.Escape(l.File), l.Kind)
		if len(l.Objects) == 0 {
			switch {
			case target != nil:
				fmt.Fprintf(b, "  no code object for %s (in any mode it may run in); %s\n", target, holds[l])
			case len(l.Errors) > 0:
				b.WriteString("  no code object could be read (see the errors below)\n")
			default:
				b.WriteString("  no device code found\n")
			}
		} else {
			writeColumns(b, []string{"  #", "ID", "SIZE", "OFFSET", "CONTAINER", "CODE"}, len(l.Objects), func(i int, r *row) {
				objectRow(r, l.Objects[i])
			})
		}
		var wb strings.Builder
		writeWrappers(&wb, l)
		b.WriteString(wb.String())
	}
	var sb strings.Builder
	writeSummary(&sb, ls)
	b.WriteString(sb.String())
	return b.Flush()
}

// A row is one table row's cells, appended to one buffer that is reused
// from row to row: a table of 20,000 rows is written without a string
// per cell.
type row struct {
	b    []byte
	ends []int // where each cell ends in b
}

// next ends the cell being appended.
func (r *row) next() { r.ends = append(r.ends, len(r.b)) }

func (r *row) cell(j int) []byte {
	start := 0
	if j > 0 {
		start = r.ends[j-1]
	}
	return r.b[start:r.ends[j]]
}

// writeColumns writes a header and n rows as text/tabwriter would with
// padding 2 (columns as wide as their widest cell in runes, plus two
// spaces; the last column unpadded), in two passes over the rows: one to
// measure, one to write, so that no row is held.
func writeColumns(w *bufio.Writer, header []string, n int, fill func(i int, r *row)) {
	var r row
	width := make([]int, len(header))
	measure := func() {
		for j := range len(r.ends) - 1 {
			width[j] = max(width[j], utf8.RuneCount(r.cell(j)))
		}
	}
	line := func() {
		for j := range r.ends {
			c := r.cell(j)
			w.Write(c)
			if j < len(r.ends)-1 {
				for k := utf8.RuneCount(c); k < width[j]+2; k++ {
					w.WriteByte(' ')
				}
			}
		}
		w.WriteByte('\n')
	}
	each := func(do func()) {
		r.b, r.ends = r.b[:0], r.ends[:0]
		for _, h := range header {
			r.b = append(r.b, h...)
			r.next()
		}
		do()
		for i := range n {
			r.b, r.ends = r.b[:0], r.ends[:0]
			fill(i, &r)
			do()
		}
	}
	each(measure)
	each(line)
}

// objectRow appends a code object's cells: index, ID, size, offset,
// container and code facts.
func objectRow(r *row, o *inspect.Object) {
	r.b = strconv.AppendInt(append(r.b, "  "...), int64(o.Index), 10)
	r.next()
	r.b = appendID(r.b, o)
	r.next()
	r.b = appendSize(r.b, o.Size)
	r.next()
	r.b = appendOffset(r.b, o)
	r.next()
	r.b = appendContainer(r.b, o)
	r.next()
	start := len(r.b)
	r.b = appendCode(r.b, o)
	for _, c := range r.b[start:] {
		if c < 0x20 || c >= 0x7f { // rare: a processor name from the file
			r.b = append(r.b[:start], inspect.Escape(string(r.b[start:]))...)
			break
		}
	}
	r.next()
}

// displayID is the object's ID for people: escaped (IDs come from the
// file), or its header's target ID when it has none.
func displayID(o *inspect.Object) string { return string(appendID(nil, o)) }

func appendID(b []byte, o *inspect.Object) []byte {
	if o.ID == "" {
		if t := o.Header().TargetID(); t != "" {
			return append(append(append(b, '('), inspect.Escape(t)...), ')')
		}
		return append(b, "(code object)"...)
	}
	return append(b, inspect.Escape(o.ID)...)
}

func appendOffset(b []byte, o *inspect.Object) []byte {
	switch {
	case o.Offset >= 0:
		return appendHex(b, o.Offset)
	case o.Compressed != nil && o.Compressed.Offset >= 0:
		b = append(b, strings.ToLower(o.Compressed.Format)...)
		b = appendHex(append(b, '@'), o.Compressed.Offset)
		return appendHex(append(b, '+'), o.Compressed.InnerOffset)
	}
	return append(b, '-')
}

// appendHex appends n as %#x writes it.
func appendHex(b []byte, n int64) []byte {
	if n < 0 {
		b, n = append(b, '-'), -n
	}
	return strconv.AppendInt(append(b, "0x"...), n, 16)
}

func appendContainer(b []byte, o *inspect.Object) []byte {
	start := len(b)
	for i, step := range o.Path {
		if i > 0 {
			b = append(b, " › "...)
		}
		b = append(b, inspect.Escape(step)...)
	}
	if c := o.Compressed; c != nil && c.Size > 0 {
		b = append(strconv.AppendFloat(append(b, " ("...), c.Ratio(), 'f', 1, 64), "×)"...)
	}
	if len(b) == start {
		return append(b, o.Container...)
	}
	return b
}

func appendCode(b []byte, o *inspect.Object) []byte {
	c := o.Code
	switch {
	case o.Nested > 0:
		return append(strconv.AppendInt(append(b, "OffloadBinary of "...), int64(o.Nested), 10), " image(s)"...)
	case c != nil && c.Format == "OffloadBinary":
		return append(b, "OffloadBinary magic, unreadable"...)
	}
	if c == nil {
		if o.Compressed != nil {
			return append(b, "compressed"...)
		}
		return append(b, '-')
	}
	if c.Format != "ELF" {
		return append(b, c.Format...)
	}
	if c.Processor != "" {
		b = append(b, c.Processor...)
	} else {
		b = append(b, c.Machine...)
	}
	if c.CodeObjectVersion > 0 {
		b = strconv.AppendInt(append(b, " v"...), int64(c.CodeObjectVersion), 10)
	}
	if c.Xnack != "" && c.Xnack != "unsupported" {
		b = append(append(b, " xnack:"...), c.Xnack...)
	}
	if c.SRAMECC != "" && c.SRAMECC != "unsupported" {
		b = append(append(b, " sramecc:"...), c.SRAMECC...)
	}
	if c.Kernels >= 0 && c.Machine != "" && (c.Machine == "AMDGPU" || c.Machine == "CUDA") {
		b = strconv.AppendInt(append(b, ' '), int64(c.Kernels), 10)
		if c.Kernels == 1 {
			b = append(b, " kernel"...)
		} else {
			b = append(b, " kernels"...)
		}
	}
	return b
}

func sizeString(n int64) string { return string(appendSize(nil, n)) }

func appendSize(b []byte, n int64) []byte {
	switch {
	case n < 10*1024:
		return strconv.AppendInt(b, n, 10)
	case n < 10*1024*1024:
		return append(strconv.AppendFloat(b, float64(n)/1024, 'f', 1, 64), 'K')
	case n < 10*1024*1024*1024:
		return append(strconv.AppendFloat(b, float64(n)/(1024*1024), 'f', 1, 64), 'M')
	}
	return append(strconv.AppendFloat(b, float64(n)/(1024*1024*1024), 'f', 1, 64), 'G')
}

func writeWrappers(b *strings.Builder, l *inspect.Listing) {
	if len(l.Wrappers) == 0 {
		return
	}
	byMagic := map[string]int{}
	var odd []string
	for i, w := range l.Wrappers {
		byMagic[w.Magic]++
		if w.Note != "" && w.Magic == "HIPF" {
			odd = append(odd, fmt.Sprintf("    wrapper %d at %#x: %s", i, w.Offset, inspect.Escape(w.Note)))
		}
		if w.KpackRef != nil {
			odd = append(odd, fmt.Sprintf("    wrapper %d: kpack %q (TU %d), search paths %s", i, w.KpackRef.KernelName, w.Reserved, inspect.Escape(strings.Join(w.KpackRef.SearchPaths, ", "))))
		}
	}
	var parts []string
	for m, n := range byMagic {
		parts = append(parts, fmt.Sprintf("%d %s", n, m))
	}
	sort.Strings(parts)
	fmt.Fprintf(b, "  .hipFatBinSegment: %s wrapper(s)", strings.Join(parts, ", "))
	if len(odd) == 0 && byMagic["HIPF"] == len(l.Wrappers) {
		b.WriteString(", each pointing at a bundle start\n")
	} else {
		b.WriteString("\n")
	}
	for _, s := range odd {
		b.WriteString(s + "\n")
	}
}

// writeSummary prints, per GPU target, how many code objects and bytes.
func writeSummary(b *strings.Builder, ls []*inspect.Listing) {
	type agg struct {
		n     int
		bytes int64
	}
	per := map[string]*agg{}
	total, errs := 0, 0
	for _, l := range ls {
		errs += len(l.Errors)
		for _, o := range l.Devices() {
			t := targetOf(o)
			if t == "" {
				t = o.ID
			}
			if t == "" {
				t = "(unknown)"
			}
			a := per[t]
			if a == nil {
				a = &agg{}
				per[t] = a
			}
			a.n++
			a.bytes += o.Size
			total++
		}
	}
	targets := make([]string, 0, len(per))
	for t := range per {
		targets = append(targets, t)
	}
	sort.Strings(targets)
	files := "file"
	if len(ls) != 1 {
		files = "files"
	}
	fmt.Fprintf(b, "\n%d code object(s) for %d target(s) in %d %s", total, len(targets), len(ls), files)
	if errs > 0 {
		fmt.Fprintf(b, "; %d damaged part(s) reported", errs)
	}
	b.WriteString("\n")
	if len(targets) == 0 {
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, t := range targets {
		a := per[t]
		fmt.Fprintf(tw, "  %s\t%d object(s)\t%s bytes\n", inspect.Escape(t), a.n, sizeString(a.bytes))
	}
	tw.Flush()
}

// writeURIs prints llvm-readobj --offloading's lines for the uncompressed
// objects.
func writeURIs(w io.Writer, ls []*inspect.Listing) error {
	var b strings.Builder
	for _, l := range ls {
		for _, o := range l.Objects {
			if o.Offset < 0 {
				continue
			}
			fmt.Fprintf(&b, "%s\tfile://%s#offset=%d&size=%d\n", inspect.Escape(o.ID), inspect.Escape(l.File), o.Offset, o.Size)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON shapes (testdata/goffload-list.schema.json).
type jsonOutput struct {
	Files      []jsonFile       `json:"files"`
	Summary    jsonSummary      `json:"summary"`
	Duplicates *[]jsonDuplicate `json:"duplicates,omitempty"` // with --duplicates
}

type jsonFile struct {
	File     string        `json:"file"`
	Kind     string        `json:"kind"`
	Objects  []jsonObject  `json:"objects"`
	Wrappers []jsonWrapper `json:"wrappers"`
	Errors   []jsonError   `json:"errors"`
}

type jsonObject struct {
	Index      int               `json:"index"`
	Path       []string          `json:"path"`
	Container  string            `json:"container"`
	ID         string            `json:"id"`
	Host       bool              `json:"host"`
	Kind       string            `json:"kind"`
	Triple     string            `json:"triple"`
	TargetID   string            `json:"target_id"`
	Offset     *int64            `json:"offset"`
	Size       int64             `json:"size"`
	Compressed *jsonCompressed   `json:"compressed"`
	ImageKind  string            `json:"image_kind,omitempty"`
	Strings    map[string]string `json:"strings,omitempty"`
	Code       *jsonCode         `json:"code"`
	Nested     int               `json:"nested,omitempty"`
	Outer      *int              `json:"outer,omitempty"`
}

type jsonCompressed struct {
	Format           string  `json:"format"`
	Version          int     `json:"version"`
	Method           string  `json:"method,omitempty"`
	Offset           int64   `json:"offset"`
	Size             int64   `json:"size"`
	UncompressedSize int64   `json:"uncompressed_size"`
	InnerOffset      int64   `json:"inner_offset"`
	Ratio            float64 `json:"ratio"`
}

type jsonCode struct {
	Format            string `json:"format"`
	Machine           string `json:"machine"`
	Processor         string `json:"processor"`
	Xnack             string `json:"xnack"`
	SRAMECC           string `json:"sramecc"`
	CodeObjectVersion int    `json:"code_object_version"`
	Kernels           *int   `json:"kernels"`
}

type jsonWrapper struct {
	Offset      int64    `json:"offset"`
	Magic       string   `json:"magic"`
	Version     uint32   `json:"version"`
	Address     uint64   `json:"address"`
	Reserved    uint64   `json:"reserved"`
	Bundle      *int     `json:"bundle"`
	Note        string   `json:"note,omitempty"`
	KernelName  string   `json:"kpack_kernel_name,omitempty"`
	SearchPaths []string `json:"kpack_search_paths,omitempty"`
}

type jsonError struct {
	Message     string   `json:"message"`
	Path        []string `json:"path"`
	Offset      *int64   `json:"offset"`
	InnerOffset *int64   `json:"inner_offset"`
	Field       string   `json:"field"`
}

type jsonSummary struct {
	CodeObjects int                    `json:"code_objects"`
	Errors      int                    `json:"errors"`
	Targets     map[string]jsonPerTarg `json:"targets"`
	// NoCode counts, when folders were named, their files without
	// device code.
	NoCode *int `json:"files_without_device_code,omitempty"`
}

type jsonPerTarg struct {
	CodeObjects int   `json:"code_objects"`
	Bytes       int64 `json:"bytes"`
}

func ptr[T any](v T) *T { return &v }

// writeDuplicates prints the groups of code objects that are the same.
func writeDuplicates(w io.Writer, dups []tree.Duplicate) error {
	if len(dups) == 0 {
		_, err := fmt.Fprintln(w, "\nno duplicate code objects")
		return err
	}
	fmt.Fprintln(w, "\nDuplicates:")
	for _, d := range dups {
		what := "the same machine code, different headers (a generic build would serve)"
		if d.Identical {
			what = "identical bytes"
		}
		fmt.Fprintf(w, "  %d × %s, %s:\n", len(d.Copies), sizeString(d.Copies[0].Size), what)
		for _, c := range d.Copies {
			fmt.Fprintf(w, "    %s #%d %s\n", inspect.Escape(c.File), c.Index, inspect.Escape(c.ID))
		}
	}
	return nil
}

type jsonDuplicate struct {
	Identical bool          `json:"identical"`
	Copies    []jsonDupCopy `json:"copies"`
}

type jsonDupCopy struct {
	File     string `json:"file"`
	Index    int    `json:"index"`
	ID       string `json:"id"`
	TargetID string `json:"target_id"`
	Size     int64  `json:"size"`
}

func writeJSON(w io.Writer, ls []*inspect.Listing, noCode int, dups []tree.Duplicate) error {
	// Streamed, object by object, in the layout json.Encoder.SetIndent("",
	// "  ") gives the whole document: memory does not grow with the
	// number of code objects.
	b := bufio.NewWriterSize(w, 64<<10)
	sum := jsonSummary{Targets: map[string]jsonPerTarg{}}
	if noCode >= 0 {
		sum.NoCode = &noCode
	}
	put := func(v any, prefix string) {
		data, _ := json.MarshalIndent(v, prefix, "  ")
		b.Write(data)
	}
	list := func(name string, n int, item func(i int) any, last bool) {
		fmt.Fprintf(b, "      %q: [", name)
		if n == 0 {
			b.WriteString("]")
		}
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n        ")
			put(item(i), "        ")
			if i == n-1 {
				b.WriteString("\n      ]")
			}
		}
		if !last {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("{\n  \"files\": [")
	if len(ls) == 0 {
		b.WriteString("]")
	}
	for fi, l := range ls {
		if fi > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    {\n")
		fmt.Fprintf(b, "      \"file\": %s,\n      \"kind\": %s,\n", jsonString(l.File), jsonString(l.Kind))
		list("objects", len(l.Objects), func(i int) any {
			o := l.Objects[i]
			j := jsonObjectOf(o)
			if !o.Host && o.Nested == 0 {
				t := j.TargetID
				if t == "" {
					t = o.ID
				}
				a := sum.Targets[t]
				a.CodeObjects++
				a.Bytes += o.Size
				sum.Targets[t] = a
				sum.CodeObjects++
			}
			return j
		}, false)
		list("wrappers", len(l.Wrappers), func(i int) any { return jsonWrapperOf(l.Wrappers[i]) }, false)
		list("errors", len(l.Errors), func(i int) any { return jsonErrorOf(l.Errors[i]) }, true)
		sum.Errors += len(l.Errors)
		b.WriteString("    }")
		if fi == len(ls)-1 {
			b.WriteString("\n  ]")
		}
	}
	b.WriteString(",\n  \"summary\": ")
	put(sum, "  ")
	if dups != nil {
		js := []jsonDuplicate{}
		for _, d := range dups {
			j := jsonDuplicate{Identical: d.Identical}
			for _, c := range d.Copies {
				j.Copies = append(j.Copies, jsonDupCopy(c))
			}
			js = append(js, j)
		}
		b.WriteString(",\n  \"duplicates\": ")
		put(js, "  ")
	}
	b.WriteString("\n}\n")
	return b.Flush()
}

// jsonString is s as JSON writes it (HTML characters escaped, as
// json.Encoder does).
func jsonString(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

func jsonObjectOf(o *inspect.Object) jsonObject {
	j := jsonObject{Index: o.Index, Path: nonNil(o.Path), Container: o.Container, ID: o.ID, Host: o.Host,
		Kind: o.Kind, Triple: o.Triple, TargetID: targetOf(o), Size: o.Size, ImageKind: o.ImageKind, Nested: o.Nested}
	if o.Outer != nil {
		j.Outer = ptr(o.Outer.Index)
	}
	if o.Offset >= 0 {
		j.Offset = ptr(o.Offset)
	}
	if c := o.Compressed; c != nil {
		j.Compressed = &jsonCompressed{Format: c.Format, Version: c.Version, Method: c.Method, Offset: c.Offset,
			Size: c.Size, UncompressedSize: c.UncompressedSize, InnerOffset: c.InnerOffset, Ratio: c.Ratio()}
	}
	if len(o.Strings) > 0 {
		j.Strings = map[string]string{}
		for _, s := range o.Strings {
			j.Strings[s.Key] = s.Value
		}
	}
	if c := o.Code; c != nil {
		j.Code = &jsonCode{Format: c.Format, Machine: c.Machine, Processor: c.Processor, Xnack: c.Xnack,
			SRAMECC: c.SRAMECC, CodeObjectVersion: c.CodeObjectVersion}
		if c.Kernels >= 0 {
			j.Code.Kernels = ptr(c.Kernels)
		}
	}
	return j
}

func jsonWrapperOf(wr inspect.Wrapper) jsonWrapper {
	j := jsonWrapper{Offset: wr.Offset, Magic: wr.Magic, Version: wr.Version, Address: wr.Address, Reserved: wr.Reserved, Note: wr.Note}
	if wr.Bundle >= 0 {
		j.Bundle = ptr(wr.Bundle)
	}
	if wr.KpackRef != nil {
		j.KernelName, j.SearchPaths = wr.KpackRef.KernelName, wr.KpackRef.SearchPaths
	}
	return j
}

func jsonErrorOf(e *inspect.Error) jsonError {
	j := jsonError{Message: e.Error(), Path: nonNil(e.Path), Field: e.Field}
	if e.Offset >= 0 {
		j.Offset = ptr(e.Offset)
	}
	if e.InnerOffset >= 0 {
		j.InnerOffset = ptr(e.InnerOffset)
	}
	return j
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
