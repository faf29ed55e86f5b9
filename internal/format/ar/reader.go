package ar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A Member is one regular member of an archive (symbol and long-name tables
// are not members).
type Member struct {
	Header
	r    *Reader
	thin bool
	path string // thin members: the file to read, as LLVM names it
}

// Path returns, for a thin member, the file its data is read from (the
// archive's folder joined with the member name, not cleaned, as LLVM does);
// "" otherwise.
func (m *Member) Path() string { return m.path }

// Open returns the member's data. For thin members it checks that the file
// on disk can be opened and covers the whole file, as LLVM does; the file is
// then opened again when read and only a few are kept open at a time (all
// closed by Reader.Close), so that an archive may have more members than
// the process may open files. Reading fails if the file was replaced.
func (m *Member) Open() (*io.SectionReader, error) {
	if m.r == nil {
		return nil, fmt.Errorf("ar: Open of a Member not obtained from a Reader")
	}
	if !m.thin {
		return io.NewSectionReader(m.r.ra, m.Offset, m.Size), nil
	}
	f, err := os.Open(m.path)
	if err != nil {
		return nil, &ThinMemberError{Archive: m.r.path, Name: m.Name, Path: m.path, Err: err}
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		err = syscall.EISDIR // what reading it would say; LLVM reads it at once
	}
	if err != nil {
		f.Close()
		return nil, &ThinMemberError{Archive: m.r.path, Name: m.Name, Path: m.path, Err: err}
	}
	th := &thinFile{r: m.r, path: m.path, fi: fi}
	m.r.thin.keep(th, f)
	return io.NewSectionReader(th, 0, fi.Size()), nil
}

// maxOpenThin is how many thin members' files a Reader keeps open.
const maxOpenThin = 16

// thinFiles keeps the most recently used thin members' files open.
type thinFiles struct {
	mu   sync.Mutex
	gen  int // Close starts a new generation; older thinFiles are closed
	open []*thinFile
}

// thinFile reads a thin member's file, reopening it when it was closed.
type thinFile struct {
	r    *Reader
	path string
	fi   os.FileInfo // what Open found
	gen  int         // the generation of thinFiles it was opened in
	f    *os.File    // nil while closed
}

// keep records th's open file f, closing the least recently used one when
// too many are open. Callers hold no lock.
func (t *thinFiles) keep(th *thinFile, f *os.File) {
	t.mu.Lock()
	defer t.mu.Unlock()
	th.f, th.gen = f, t.gen
	t.use(th)
}

// use makes th the most recently used open file (t.mu held), closing the
// least recently used one beyond maxOpenThin.
func (t *thinFiles) use(th *thinFile) {
	for i, o := range t.open {
		if o == th {
			t.open = append(t.open[:i], t.open[i+1:]...)
			break
		}
	}
	t.open = append(t.open, th)
	if len(t.open) > maxOpenThin {
		old := t.open[0]
		t.open = t.open[1:]
		old.f.Close()
		old.f = nil
	}
}

// closeAll closes every open file and ends the generation (t.mu not held).
func (t *thinFiles) closeAll() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var first error
	for _, th := range t.open {
		if err := th.f.Close(); err != nil && first == nil {
			first = err
		}
		th.f = nil
	}
	t.open = nil
	t.gen++
	return first
}

func (th *thinFile) ReadAt(p []byte, off int64) (int, error) {
	t := &th.r.thin
	t.mu.Lock()
	defer t.mu.Unlock()
	if th.gen != t.gen {
		return 0, &os.PathError{Op: "read", Path: th.path, Err: os.ErrClosed}
	}
	if th.f == nil {
		f, err := os.Open(th.path)
		if err != nil {
			return 0, err
		}
		fi, err := f.Stat()
		if err == nil && (!os.SameFile(fi, th.fi) || fi.Size() != th.fi.Size() || !fi.ModTime().Equal(th.fi.ModTime())) {
			err = fmt.Errorf("%s: thin member file was replaced while the archive was read", th.path)
		}
		if err != nil {
			f.Close()
			return 0, err
		}
		th.f = f
	}
	t.use(th)
	return th.f.ReadAt(p, off)
}

// Option configures a Reader.
type Option func(*Reader)

// RejectEscapingPaths makes the reader refuse thin-archive members whose
// names are absolute or contain a ".." component (ErrInsecurePath). LLVM
// accepts them (llvm-ar rcT itself stores "../dir/x.o" and absolute paths),
// so the default is to accept them too.
func RejectEscapingPaths() Option { return func(r *Reader) { r.strict = true } }

// A Reader reads an archive's headers from an io.ReaderAt.
type Reader struct {
	ra     io.ReaderAt
	size   int64
	path   string
	kind   Kind
	strict bool

	symtab       *rawMember // "/", "/SYM64/" or "__.SYMDEF*"; nil if absent
	big          bigState   // BigAIX only
	strtab       []byte     // "//" contents
	firstRegular int64      // offset of the first regular member header
	next         int64      // offset of the next header for Next
	err          error      // sticky
	thin         thinFiles  // files of thin members, opened when read
}

type rawMember struct {
	name           string
	rawName        string // the name field, trailing spaces dropped
	hdrOff, offset int64  // header and data offsets
	size           int64
	end            int64 // offset of the next header (data padded to even size)
}

// NewReader parses the archive magic and the leading symbol and long-name
// tables. path names the archive in errors and, for thin archives, gives the
// folder the members are relative to.
func NewReader(r io.ReaderAt, size int64, path string, opts ...Option) (*Reader, error) {
	ar := &Reader{ra: r, size: size, path: path}
	for _, o := range opts {
		o(ar)
	}
	var magic [magicLen]byte
	if size < magicLen || readFull(r, magic[:], 0) != nil {
		return nil, &FormatError{Path: path, Field: "magic", Msg: fmt.Sprintf("file too small to be an archive (%d bytes)", size), LLVM: "file too small to be an archive", Err: ErrNotArchive}
	}
	switch string(magic[:]) {
	case magicGNU:
		ar.kind = GNU
	case magicThin:
		ar.kind = Thin
	case magicBig:
		ar.kind = BigAIX
		if err := ar.initBig(); err != nil {
			return nil, err
		}
		return ar, nil
	default:
		return nil, &FormatError{Path: path, Field: "magic", Msg: fmt.Sprintf("not an archive: magic %q, want %q or %q", magic[:], magicGNU, magicThin), LLVM: "file too small to be an archive", Err: ErrNotArchive}
	}
	off := int64(magicLen)
	// Leading special members: a symbol table, then (GNU) a long-name table.
	// Their names need no string table, so parse them without one.
	for i := 0; off < size && i < 3; i++ {
		h, err := ar.readHeader(off)
		// LLVM refuses an archive whose first member (after a symbol table)
		// has a name starting with '/' other than "/" and "//": a long name
		// before any long-name table.
		if first := i == 0 || (i == 1 && ar.symtab != nil); first && ar.kind != BSD {
			var fe *FormatError
			if raw := ar.rawName(off); strings.HasPrefix(raw, "/") && raw != nameSymtab && raw != nameStrtab &&
				(i == 0 && raw != nameSymtab64 || i == 1) && (err == nil || errors.As(err, &fe) && fe.Field == "long name") {
				return nil, &FormatError{Path: path, Offset: off, Field: "name", Msg: fmt.Sprintf("first member %q is neither a symbol table nor a long-name table", raw),
					LLVM: "Invalid data was encountered while parsing the file", Err: ErrMalformed}
			}
		}
		if err != nil {
			return nil, err
		}
		name := h.name
		switch {
		case i == 0 && (name == nameSymtab || name == nameSymtab64):
			ar.symtab = h
		case i == 1 && name == nameSymtab && ar.symtab != nil && ar.symtab.name == nameSymtab:
			// COFF import libraries have a second linker member; skip it.
		case i == 0 && ar.kind != Thin && strings.HasPrefix(name, nameBSDSymdef):
			ar.kind = BSD
			ar.symtab = h
		case name == nameStrtab && ar.kind != BSD:
			// Bounded by readHeader's size check.
			ar.strtab = make([]byte, h.size)
			if err := readFull(r, ar.strtab, h.offset); err != nil {
				return nil, fmt.Errorf("%s: reading long-name table at offset %d: %w", path, h.offset, err)
			}
			off = ar.nextOffset(h)
			i = 3 // the long-name table ends the special members
			continue
		default:
			if i == 0 && ar.kind != Thin && strings.HasPrefix(h.rawName, bsdLongPrefix) {
				ar.kind = BSD
			}
			i = 3
			continue
		}
		off = ar.nextOffset(h)
	}
	if off > size {
		off = size
	}
	ar.firstRegular, ar.next = off, off
	return ar, nil
}

// Kind returns the archive's flavour.
func (r *Reader) Kind() Kind { return r.kind }

// Close closes the files opened for thin members; readers Open returned
// before fail afterwards. It does not close the underlying io.ReaderAt.
func (r *Reader) Close() error {
	return r.thin.closeAll()
}

// nextOffset is where the header after h starts: data padded to even size;
// thin members keep no data in the archive.
func (r *Reader) nextOffset(h *rawMember) int64 {
	return h.end
}

func isSpecial(name string) bool {
	return name == nameSymtab || name == nameSymtab64 || name == nameStrtab
}

// Next returns the next regular member, or io.EOF after the last one.
// Errors are sticky.
func (r *Reader) Next() (*Member, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.kind == BigAIX {
		m, err := r.nextBig()
		if err != nil && r.err == nil {
			r.err = err
		}
		return m, err
	}
	if r.next >= r.size {
		r.err = io.EOF
		return nil, r.err
	}
	h, err := r.readHeader(r.next)
	if err != nil {
		r.err = err
		return nil, err
	}
	m, err := r.member(h)
	if err != nil {
		r.err = err
		return nil, err
	}
	r.next = r.nextOffset(h)
	return m, nil
}

// Members returns all regular members in archive order.
func (r *Reader) Members() ([]*Member, error) {
	saved, savedBig := r.next, r.big
	r.next, r.err = r.firstRegular, nil
	r.big.done, r.big.seen = r.big.empty, nil
	var ms []*Member
	for {
		m, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return ms, err
		}
		ms = append(ms, m)
	}
	r.next, r.err, r.big = saved, nil, savedBig
	return ms, nil
}

func (r *Reader) member(h *rawMember) (*Member, error) {
	var raw [headerSize]byte
	if err := readFull(r.ra, raw[:], h.hdrOff); err != nil {
		return nil, err
	}
	m := &Member{r: r, Header: Header{
		Name:         h.name,
		Date:         parseNum(raw[dateOff:dateOff+dateLen], 10),
		UID:          int(parseNum(raw[uidOff:uidOff+uidLen], 10)),
		GID:          int(parseNum(raw[gidOff:gidOff+gidLen], 10)),
		Mode:         uint32(parseNum(raw[modeOff:modeOff+modeLen], 8)),
		Size:         h.size,
		HeaderOffset: h.hdrOff,
		Offset:       h.offset,
	}}
	if r.kind == Thin {
		m.Offset = -1
		if r.strict && escapes(h.name) {
			return nil, &FormatError{Path: r.path, Offset: h.hdrOff, Field: "name", Msg: fmt.Sprintf("thin member %q: %v", h.name, ErrInsecurePath), Err: ErrInsecurePath}
		}
		m.thin, m.path = true, joinLLVM(parentPath(r.path), h.name)
	}
	return m, nil
}

// parseNum parses a space-padded numeric header field, returning 0 when it
// is blank or malformed (LLVM only checks these fields when asked for them).
func parseNum(b []byte, base int) int64 {
	s := strings.TrimRight(string(b), " ")
	v, err := strconv.ParseInt(s, base, 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// readHeader reads and validates the header at off: its terminator, its
// size and (for long names) its name, and checks that the member, padded,
// fits in the archive.
func (r *Reader) readHeader(off int64) (*rawMember, error) {
	var raw [headerSize]byte
	n, _ := r.ra.ReadAt(raw[:], off)
	if int64(n) > r.size-off {
		n = int(r.size - off)
	}
	if n < headerSize {
		where := fmt.Sprintf("at offset %d", off)
		if n >= nameLen {
			if name, _, err := r.resolveName(raw[:], off); err == nil {
				where = "for " + name
			}
		}
		return nil, r.malformed(off, "header", fmt.Sprintf("only %d bytes left for a %d-byte member header", n, headerSize),
			"remaining size of archive too small for next archive member header "+where)
	}
	if t := string(raw[termOff : termOff+2]); t != terminator {
		where := fmt.Sprintf("at offset %d", off)
		if name, _, err := r.resolveName(raw[:], off); err == nil {
			where = "for " + name
		}
		return nil, r.malformed(off+termOff, "terminator", fmt.Sprintf("header terminator is %q, want %q", t, terminator),
			fmt.Sprintf("terminator characters in archive member \"%s\" not the correct \"`\\n\" values for the archive member header %s", escapeLLVM(t), where))
	}
	sizeField := strings.TrimRight(string(raw[sizeOff:sizeOff+sizeLen]), " ")
	size, err := strconv.ParseUint(sizeField, 10, 64)
	if err != nil || !isDecimal(sizeField) {
		return nil, r.malformed(off+sizeOff, "size", fmt.Sprintf("size field %q is not a decimal number", sizeField),
			fmt.Sprintf("characters in size field in archive member header are not all decimal numbers: '%s' for the archive member header at offset %d", sizeField, off))
	}
	name, nameLenInData, err := r.resolveName(raw[:], off)
	if err != nil {
		return nil, err
	}
	h := &rawMember{name: name, hdrOff: off, offset: off + headerSize, size: int64(size)}
	h.rawName = strings.TrimRight(string(raw[:nameLen]), " ")
	dataSize := int64(size)
	if size > uint64(r.size) {
		dataSize = r.size + 1 // anything past the end
	}
	if nameLenInData > 0 {
		if nameLenInData > dataSize {
			return nil, r.malformed(off, "name", fmt.Sprintf("BSD name length %d exceeds member size %d", nameLenInData, dataSize),
				fmt.Sprintf("long name length: %d extends past the end of the member or archive for archive member header at offset %d", nameLenInData, off))
		}
		h.offset += nameLenInData
		h.size = dataSize - nameLenInData
	} else {
		h.size = dataSize
	}
	end := off + headerSize + dataSize + dataSize&1
	if r.kind == Thin && !isSpecial(name) {
		end = off + headerSize
	}
	h.end = end
	if end > r.size || end < off {
		return nil, r.malformed(off+sizeOff, "size", fmt.Sprintf("member %q of %d bytes (data at offset %d, padded to even size) runs past the end of the archive (%d bytes)", name, size, off+headerSize, r.size),
			"offset to next archive member past the end of the archive after member "+name)
	}
	return h, nil
}

// escapeLLVM escapes s as LLVM's raw_ostream::write_escaped does: \\, \t,
// \n and \" by name, other bytes outside ' '..'~' as three octal digits.
func escapeLLVM(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '"':
			b.WriteString(`\"`)
		case c >= ' ' && c <= '~':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "\\%03o", c)
		}
	}
	return b.String()
}

func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (r *Reader) malformed(off int64, field, msg, llvm string) error {
	return &FormatError{Path: r.path, Offset: off, Field: field, Msg: msg, LLVM: "truncated or malformed archive (" + llvm + ")", Err: ErrMalformed}
}

// rawName returns the name field at header offset off cut at its first
// space, for names starting with '/' ("" when it cannot be read).
func (r *Reader) rawName(off int64) string {
	var b [nameLen]byte
	if r.size-off < nameLen || readFull(r.ra, b[:], off) != nil {
		return ""
	}
	s := string(b[:])
	if i := strings.IndexByte(s, ' '); i >= 0 && s[0] == '/' {
		s = s[:i]
	}
	return s
}

// resolveName returns the member name from the header's name field (raw
// holds at least its 16 bytes). For BSD "#1/<len>" names it also returns
// len, the number of data bytes holding the name, after reading them.
//
// As in LLVM, the name field is first cut at its end character: a space in
// BSD archives and for names starting with '/' or '#', else '/'. So GNU ar's
// thin-archive header "/51            /" (written for 15-character names)
// refers to offset 51, and "bund.o/junk" is "bund.o".
func (r *Reader) resolveName(raw []byte, off int64) (string, int64, error) {
	field := string(raw[:nameLen])
	end := byte('/')
	switch {
	case r.kind == BSD && field[0] == ' ':
		return "", 0, r.malformed(off, "name", "BSD member name starts with a space",
			fmt.Sprintf("name contains a leading space for archive member header at offset %d", off))
	case r.kind == BSD || field[0] == '/' || field[0] == '#':
		end = ' '
	}
	name := field
	if i := strings.IndexByte(field, end); i >= 0 {
		name = field[:i]
	}
	switch {
	case name == nameSymtab || name == nameStrtab || name == nameSymtab64 ||
		name == "/<XFGHASHMAP>/" || name == "/<ECSYMBOLS>/":
		// Symbol and long-name tables, and two special COFF members.
		return name, 0, nil
	case name[0] == '/':
		digits := name[1:]
		v, err := strconv.ParseUint(digits, 10, 64)
		if err != nil || !isDecimal(digits) {
			return "", 0, r.malformed(off, "long name", fmt.Sprintf("long-name reference %q is not a decimal offset", field),
				fmt.Sprintf("long name offset characters after the '/' are not all decimal numbers: '%s' for archive member header at offset %d", digits, off))
		}
		if v >= uint64(len(r.strtab)) {
			return "", 0, r.malformed(off, "long name", fmt.Sprintf("long-name offset %d past the end of the %d-byte long-name table", v, len(r.strtab)),
				fmt.Sprintf("long name offset %d past the end of the string table for archive member header at offset %d", v, off))
		}
		// GNU entries end in "/\n"; the name is what comes before.
		nl := bytes.IndexByte(r.strtab[v:], '\n')
		if nl < 0 || int(v)+nl < 1 || r.strtab[int(v)+nl-1] != '/' {
			return "", 0, r.malformed(off, "long name", fmt.Sprintf("long-name table entry at offset %d does not end in \"/\\n\"", v),
				fmt.Sprintf("string table at long name offset %d not terminated", v))
		}
		return string(r.strtab[v : int(v)+max(nl-1, 0)]), 0, nil
	case strings.HasPrefix(name, bsdLongPrefix) && r.kind != Thin:
		digits := name[len(bsdLongPrefix):]
		n, err := strconv.ParseUint(digits, 10, 31)
		if err != nil || !isDecimal(digits) {
			return "", 0, r.malformed(off, "long name", fmt.Sprintf("BSD name length %q is not a decimal number", digits),
				fmt.Sprintf("long name length characters after the #1/ are not all decimal numbers: '%s' for archive member header at offset %d", digits, off))
		}
		if int64(n) > r.size-off-headerSize {
			return "", 0, r.malformed(off, "long name", fmt.Sprintf("BSD name of %d bytes runs past the end of the archive", n),
				fmt.Sprintf("long name length: %d extends past the end of the member or archive for archive member header at offset %d", n, off))
		}
		b := make([]byte, n)
		if err := readFull(r.ra, b, off+headerSize); err != nil {
			return "", 0, fmt.Errorf("%s: reading BSD member name at offset %d: %w", r.path, off+headerSize, err)
		}
		// BSD names may be NUL-padded.
		return string(bytes.TrimRight(b, "\x00")), int64(n), nil
	case strings.HasSuffix(name, "/"):
		return name[:len(name)-1], 0, nil
	}
	return strings.TrimRight(name, " "), 0, nil
}

// parentPath is LLVM's sys::path::parent_path for '/'-separated paths.
func parentPath(p string) string {
	i := strings.LastIndexByte(p, '/')
	switch {
	case i < 0:
		return ""
	case i == 0:
		return "/"
	}
	return p[:i]
}

// joinLLVM joins like LLVM's sys::path::append: no cleaning, absolute
// names stay as they are.
func joinLLVM(dir, name string) string {
	if strings.HasPrefix(name, "/") || dir == "" {
		return name
	}
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

// escapes reports whether a thin member name is absolute or has a ".."
// component.
func escapes(name string) bool {
	if strings.HasPrefix(name, "/") || name == "" {
		return true
	}
	for _, c := range strings.Split(name, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

// A Symbol is one entry of an archive's symbol table.
type Symbol struct {
	Name         string
	MemberOffset int64 // offset of the defining member's header
}

// Symbols parses the archive's symbol table ("/", "/SYM64/" or
// "__.SYMDEF*"), checking its counts against its size. It returns nil when
// the archive has none.
func (r *Reader) Symbols() ([]Symbol, error) {
	t := r.symtab
	if t == nil {
		return nil, nil
	}
	bad := func(format string, a ...any) error {
		return &FormatError{Path: r.path, Offset: t.offset, Field: "symbol table", Msg: fmt.Sprintf("%s: ", t.name) + fmt.Sprintf(format, a...), Err: ErrMalformed}
	}
	data := make([]byte, t.size) // bounded by the archive size in readHeader
	if err := readFull(r.ra, data, t.offset); err != nil {
		return nil, fmt.Errorf("%s: reading symbol table at offset %d: %w", r.path, t.offset, err)
	}
	var syms []Symbol
	switch {
	case t.name == nameSymtab || t.name == nameSymtab64:
		w := 4
		if t.name == nameSymtab64 {
			w = 8
		}
		get := func(b []byte) uint64 {
			if w == 8 {
				return binary.BigEndian.Uint64(b)
			}
			return uint64(binary.BigEndian.Uint32(b))
		}
		if len(data) < w {
			return nil, bad("%d bytes, too small for the %d-byte symbol count", len(data), w)
		}
		n := get(data)
		if n > uint64(len(data)-w)/uint64(w) {
			return nil, bad("symbol count %d needs %d offset bytes but only %d follow", n, n*uint64(w), len(data)-w)
		}
		offs := data[w : w+int(n)*w]
		strs := data[w+int(n)*w:]
		for i := 0; i < int(n); i++ {
			j := bytes.IndexByte(strs, 0)
			if j < 0 {
				return nil, bad("name of symbol %d of %d is not NUL-terminated within the table", i, n)
			}
			syms = append(syms, Symbol{Name: string(strs[:j]), MemberOffset: int64(get(offs[i*w:]))})
			strs = strs[j+1:]
		}
	default: // BSD: ranlib byte count, (strx, offset) pairs, string byte count, strings; little-endian
		w := 4
		if strings.HasPrefix(t.name, nameBSDSymdef64) {
			w = 8
		}
		get := func(b []byte) uint64 {
			if w == 8 {
				return binary.LittleEndian.Uint64(b)
			}
			return uint64(binary.LittleEndian.Uint32(b))
		}
		if len(data) < w {
			return nil, bad("%d bytes, too small for the ranlib size", len(data))
		}
		rb := get(data)
		if rb%uint64(2*w) != 0 || rb > uint64(len(data)-2*w) {
			return nil, bad("ranlib size %d does not fit in the %d-byte table", rb, len(data))
		}
		ranlib := data[w : w+int(rb)]
		rest := data[w+int(rb):]
		sb := get(rest)
		if sb > uint64(len(rest)-w) {
			return nil, bad("string table size %d does not fit in the %d bytes left", sb, len(rest)-w)
		}
		strs := rest[w : w+int(sb)]
		for i := 0; i+2*w <= len(ranlib); i += 2 * w {
			strx := get(ranlib[i:])
			if strx >= uint64(len(strs)) {
				return nil, bad("symbol %d: name offset %d past the %d-byte string table", i/(2*w), strx, len(strs))
			}
			s := strs[strx:]
			if j := bytes.IndexByte(s, 0); j >= 0 {
				s = s[:j]
			}
			syms = append(syms, Symbol{Name: string(s), MemberOffset: int64(get(ranlib[i+w:]))})
		}
	}
	return syms, nil
}
