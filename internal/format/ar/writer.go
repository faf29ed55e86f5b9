package ar

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// NewMember is one member to write: its name (stored verbatim; it may
// contain '/') and its data.
type NewMember struct {
	Name string
	Data io.ReaderAt
	Size int64
}

// WriteOption configures WriteGNU.
type WriteOption func(*writeConfig)

type writeConfig struct {
	sym64Threshold uint64
	warn           func(error)
}

// WithSym64Threshold sets the member-header offset from which the symbol
// table switches to "/SYM64/" (64-bit offsets). The default is 1<<32;
// LLVM's tools take it from the SYM64_THRESHOLD environment variable,
// which is their command lines' business (see internal/tool/bundler).
func WithSym64Threshold(n uint64) WriteOption {
	return func(c *writeConfig) { c.sym64Threshold = n }
}

// WithWarnings sets a function that receives LLVM's warnings, such as a
// bitcode member that cannot be read ("'<name>': <reason>"). Without it
// warnings are dropped.
func WithWarnings(f func(error)) WriteOption {
	return func(c *writeConfig) { c.warn = f }
}

// WriteGNU writes members as a GNU archive, byte for byte as LLVM 22's
//
//	llvm-ar qcsD --format=gnu OUT m1 m2 ...
//
// (with member names given verbatim rather than as basenames). It first
// reads what it needs of each member to build the symbol table, then streams
// the data with io.Copy. No members gives the 8-byte "!<arch>\n".
func WriteGNU(w io.Writer, members []NewMember, opts ...WriteOption) error {
	cfg := writeConfig{sym64Threshold: sym64Threshold}
	for _, o := range opts {
		o(&cfg)
	}
	syms, err := gnuSymbols(members, cfg.warn)
	if err != nil {
		return err
	}
	strtab, longOff := longNames(members)

	// Layout: member header offsets, assuming a 32-bit symbol table.
	width := 4
	offs := gnuLayout(members, syms, width, strtab.Len())
	if syms.write && len(offs) > 0 && uint64(offs[len(offs)-1]) >= cfg.sym64Threshold {
		width = 8
		offs = gnuLayout(members, syms, width, strtab.Len())
	}

	bw := &errWriter{w: w}
	bw.writeString(magicGNU)
	if syms.write {
		syms.writeTable(bw, width, offs)
	}
	if strtab.Len() > 0 {
		bw.writeString(memberHeader(nameStrtab, "", "", "", "", int64(strtab.Len())))
		bw.write(strtab.Bytes())
	}
	if bw.err != nil {
		return bw.err
	}
	var buf []byte
	for _, m := range members {
		name := m.Name + "/"
		if needsLongName(m.Name) {
			name = "/" + strconv.Itoa(longOff[m.Name])
		}
		bw.writeString(memberHeader(name, "0", "0", "0", "644", m.Size))
		if bw.err != nil {
			return bw.err
		}
		n, err := copyMember(w, m.Data, m.Size, &buf)
		if err != nil {
			return fmt.Errorf("ar: member %q: %w", m.Name, err)
		}
		if n != m.Size {
			return fmt.Errorf("ar: member %q: read %d bytes, want %d: %w", m.Name, n, m.Size, io.ErrUnexpectedEOF)
		}
		if m.Size&1 != 0 {
			bw.writeString("\n")
		}
	}
	return bw.err
}

// gnuSymtab is the symbol table of a GNU archive being written.
type gnuSymtab struct {
	write     bool         // some member is an object: the table is written
	num       int          // number of symbols
	names     bytes.Buffer // their names, each NUL-terminated
	perMember []int        // symbol count per member
}

// gnuSymbols reads the symbols of each member (warn receives LLVM's
// warnings).
func gnuSymbols(members []NewMember, warn func(error)) (*gnuSymtab, error) {
	t := &gnuSymtab{perMember: make([]int, len(members))}
	for i, m := range members {
		if m.Size < 0 || m.Size > maxMemberSize {
			return nil, fmt.Errorf("ar: member %q: size %d does not fit the 10-digit size field", m.Name, m.Size)
		}
		syms, obj, err := MemberSymbols(m.Name, m.Data, m.Size, warn)
		if err != nil {
			return nil, err
		}
		t.write = t.write || obj
		for _, s := range syms {
			t.names.WriteString(s)
			t.names.WriteByte(0)
		}
		t.perMember[i] = len(syms)
		t.num += len(syms)
	}
	// An object without symbols still gets an (empty) table: LLVM then
	// writes three NULs as the string table.
	if t.write && t.names.Len() == 0 {
		t.names.WriteString("\x00\x00\x00")
	}
	return t, nil
}

// size is the size of the table with width-byte offsets, padded to even.
func (t *gnuSymtab) size(width int) int64 {
	s := int64(width) + int64(t.num)*int64(width) + int64(t.names.Len())
	return s + s&1
}

// writeTable writes the table, with width-byte offsets: member i's header
// is at offs[i].
func (t *gnuSymtab) writeTable(bw *errWriter, width int, offs []int64) {
	name := nameSymtab
	if width == 8 {
		name = nameSymtab64
	}
	size := t.size(width)
	bw.writeString(memberHeader(name, "0", "0", "0", "0", size))
	var num [8]byte
	put := func(v uint64) {
		if width == 8 {
			binary.BigEndian.PutUint64(num[:], v)
		} else {
			binary.BigEndian.PutUint32(num[:], uint32(v))
		}
		bw.write(num[:width])
	}
	put(uint64(t.num))
	for i, n := range t.perMember {
		for j := 0; j < n; j++ {
			put(uint64(offs[i]))
		}
	}
	bw.write(t.names.Bytes())
	if (int64(width)+int64(t.num)*int64(width)+int64(t.names.Len()))&1 != 0 {
		bw.writeString("\x00")
	}
}

// longNames builds the long name table, "//": names in first use order,
// identical names sharing an entry. longOff maps each name to its offset.
func longNames(members []NewMember) (strtab *bytes.Buffer, longOff map[string]int) {
	strtab = &bytes.Buffer{}
	longOff = map[string]int{}
	for _, m := range members {
		if !needsLongName(m.Name) {
			continue
		}
		if _, ok := longOff[m.Name]; !ok {
			longOff[m.Name] = strtab.Len()
			strtab.WriteString(m.Name)
			strtab.WriteString("/\n")
		}
	}
	if strtab.Len()%2 != 0 {
		strtab.WriteByte('\n')
	}
	return strtab, longOff
}

// gnuLayout returns the offsets of the member headers, after the symbol
// table with width-byte offsets (if written) and a long name table of
// strtabLen bytes.
func gnuLayout(members []NewMember, syms *gnuSymtab, width, strtabLen int) []int64 {
	pos := int64(magicLen)
	if syms.write {
		pos += headerSize + syms.size(width)
	}
	if strtabLen > 0 {
		pos += headerSize + int64(strtabLen)
	}
	offs := make([]int64, len(members))
	for i, m := range members {
		offs[i] = pos
		pos += headerSize + m.Size + m.Size&1
	}
	return offs
}

// copyMember copies size bytes of data to w. When data is (a section of) an
// *os.File the copy goes through the file itself, so that io.Copy can use
// copy_file_range; otherwise one buffer serves every member, instead of a new
// one per io.Copy.
func copyMember(w io.Writer, data io.ReaderAt, size int64, buf *[]byte) (int64, error) {
	off := int64(0)
	for {
		sr, ok := data.(*io.SectionReader)
		if !ok {
			break
		}
		outer, o, _ := sr.Outer()
		data, off = outer, off+o
	}
	if f, ok := data.(*os.File); ok {
		if _, err := f.Seek(off, io.SeekStart); err == nil {
			return io.Copy(w, io.LimitReader(f, size))
		}
	}
	if *buf == nil {
		*buf = make([]byte, 64<<10)
	}
	return io.CopyBuffer(writerOnly{w}, io.NewSectionReader(data, off, size), *buf)
}

// writerOnly hides any ReadFrom method, so io.CopyBuffer uses the buffer.
type writerOnly struct{ io.Writer }

// maxMemberSize is the largest size the 10-digit decimal size field holds.
const maxMemberSize = 9999999999

// needsLongName is LLVM's rule for GNU archives: names of 16 bytes or more,
// or containing '/', go to the "//" table.
func needsLongName(name string) bool {
	return len(name) >= 16 || strings.Contains(name, "/")
}

// memberHeader formats a 60-byte header; fields are left-aligned and
// space-padded.
func memberHeader(name, date, uid, gid, mode string, size int64) string {
	var b strings.Builder
	b.Grow(headerSize)
	pad := func(s string, n int) {
		b.WriteString(s)
		for i := len(s); i < n; i++ {
			b.WriteByte(' ')
		}
	}
	pad(name, nameLen)
	pad(date, dateLen)
	pad(uid, uidLen)
	pad(gid, gidLen)
	pad(mode, modeLen)
	pad(strconv.FormatInt(size, 10), sizeLen)
	b.WriteString(terminator)
	return b.String()
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) write(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *errWriter) writeString(s string) { e.write([]byte(s)) }
