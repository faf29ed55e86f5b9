package bitstream

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writer builds bitstreams for tests.
type writer struct {
	buf    []byte
	nbits  int
	width  []uint // abbreviation width stack
	starts []int  // byte offsets of block length words
}

func newWriter() *writer { return &writer{width: []uint{2}} }

func (w *writer) emit(v uint64, n uint) {
	for i := uint(0); i < n; i++ {
		if w.nbits%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		if v>>i&1 == 1 {
			w.buf[w.nbits/8] |= 1 << (w.nbits % 8)
		}
		w.nbits++
	}
}

func (w *writer) vbr(v uint64, n uint) {
	hi := uint64(1) << (n - 1)
	for v >= hi {
		w.emit(v&(hi-1)|hi, n)
		v >>= n - 1
	}
	w.emit(v, n)
}

func (w *writer) align() {
	for w.nbits%32 != 0 {
		w.emit(0, 1)
	}
}

func (w *writer) cur() uint { return w.width[len(w.width)-1] }

func (w *writer) enter(id uint64, width uint) {
	w.emit(EnterSubblock, w.cur())
	w.vbr(id, 8)
	w.vbr(uint64(width), 4)
	w.align()
	w.starts = append(w.starts, len(w.buf))
	w.emit(0, 32)
	w.width = append(w.width, width)
}

func (w *writer) end() {
	w.emit(EndBlock, w.cur())
	w.align()
	s := w.starts[len(w.starts)-1]
	w.starts = w.starts[:len(w.starts)-1]
	words := (len(w.buf) - s - 4) / 4
	w.buf[s], w.buf[s+1], w.buf[s+2], w.buf[s+3] = byte(words), byte(words>>8), byte(words>>16), byte(words>>24)
	w.width = w.width[:len(w.width)-1]
}

func (w *writer) unabbrev(code uint64, ops ...uint64) {
	w.emit(UnabbrevRecord, w.cur())
	w.vbr(code, 6)
	w.vbr(uint64(len(ops)), 6)
	for _, o := range ops {
		w.vbr(o, 6)
	}
}

// op kinds for defineAbbrev: {lit, v} or {enc, width}
type op struct {
	lit   bool
	enc   uint64
	value uint64
}

func (w *writer) defineAbbrev(ops ...op) {
	w.emit(DefineAbbrev, w.cur())
	w.vbr(uint64(len(ops)), 5)
	for _, o := range ops {
		if o.lit {
			w.emit(1, 1)
			w.vbr(o.value, 8)
			continue
		}
		w.emit(0, 1)
		w.emit(o.enc, 3)
		if o.enc == encFixed || o.enc == encVBR {
			w.vbr(o.value, 5)
		}
	}
}

func (w *writer) bytes() []byte { return append([]byte(nil), w.buf...) }

// walk reads every block and record of a stream, returning a trace.
func walk(data []byte) (string, error) {
	c := NewCursor(bytes.NewReader(data), 0, int64(len(data)))
	var sb strings.Builder
	for !c.AtEnd() {
		e, err := c.Advance()
		if err != nil {
			return sb.String(), err
		}
		if e.Kind != KindSubBlock {
			return sb.String(), errors.New("not a block at top level")
		}
		if err := walkBlock(c, e.ID, &sb); err != nil {
			return sb.String(), err
		}
	}
	return sb.String(), nil
}

func walkBlock(c *Cursor, id uint64, sb *strings.Builder) error {
	if id == BlockInfoID {
		sb.WriteString("blockinfo;")
		return c.ReadBlockInfoBlock()
	}
	if err := c.EnterBlock(id); err != nil {
		return err
	}
	sb.WriteString("enter ")
	sb.WriteString(string(rune('0' + id)))
	sb.WriteString(";")
	for {
		e, err := c.Advance()
		if err != nil {
			return err
		}
		switch e.Kind {
		case KindEndBlock:
			sb.WriteString("end;")
			return nil
		case KindSubBlock:
			if err := walkBlock(c, e.ID, sb); err != nil {
				return err
			}
		case KindRecord:
			r, err := c.ReadRecord(e.ID)
			if err != nil {
				return err
			}
			sb.WriteString(recString(r))
		}
	}
}

func recString(r Record) string {
	var sb strings.Builder
	sb.WriteString("rec ")
	sb.WriteString(itoa(r.Code))
	for _, o := range r.Ops {
		sb.WriteString(" " + itoa(o))
	}
	if r.HasBlob {
		sb.WriteString(" blob=" + string(r.Blob))
	}
	sb.WriteString(";")
	return sb.String()
}

func itoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for v > 0 {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
	}
	return string(b)
}

func TestRecords(t *testing.T) {
	w := newWriter()
	// BLOCKINFO: block 5 gets abbrev 4 = [literal 9, Fixed(3), VBR(4)].
	w.enter(BlockInfoID, 2)
	w.unabbrev(blockInfoSetBID, 5)
	w.defineAbbrev(op{lit: true, value: 9}, op{enc: encFixed, value: 3}, op{enc: encVBR, value: 4})
	w.end()
	w.enter(5, 3)
	// Local abbrev 5 = [Fixed(4), Array(Char6)], 6 = [literal 2, Blob].
	w.defineAbbrev(op{enc: encFixed, value: 4}, op{enc: encArray}, op{enc: encChar6})
	w.defineAbbrev(op{lit: true, value: 2}, op{enc: encBlob})
	w.emit(4, 3) // abbrev 4
	w.emit(6, 3)
	w.vbr(1000, 4)
	w.emit(5, 3) // abbrev 5
	w.emit(7, 4)
	w.vbr(3, 6)
	for _, ch := range []uint64{0, 26, 63} { // a A _
		w.emit(ch, 6)
	}
	w.emit(6, 3) // abbrev 6: blob "hello"
	w.vbr(5, 6)
	w.align()
	for _, b := range []byte("hello") {
		w.emit(uint64(b), 8)
	}
	w.align()
	w.unabbrev(3, 1, 1<<40)
	w.enter(7, 2) // nested block
	w.unabbrev(1)
	w.end()
	w.end()
	got, err := walk(w.bytes())
	if err != nil {
		t.Fatalf("%v (trace %s)", err, got)
	}
	want := "blockinfo;enter 5;rec 9 6 1000;rec 7 97 65 95;rec 2 blob=hello;rec 3 1 1099511627776;enter 7;rec 1;end;end;"
	if got != want {
		t.Errorf("trace\n got %s\nwant %s", got, want)
	}
}

func TestNarrowRecords(t *testing.T) {
	w := newWriter()
	w.enter(5, 3)
	w.defineAbbrev(op{lit: true, value: 8}, op{enc: encArray}, op{enc: encFixed, value: 8})
	w.emit(4, 3)
	w.vbr(3, 6)
	for _, b := range []byte{0x10, 0xff, 0x00} {
		w.emit(uint64(b), 8)
	}
	w.unabbrev(8, 'h', 'i', 0x1ff)
	w.unabbrev(9, 300)
	w.end()
	data := w.bytes()
	c := NewCursor(bytes.NewReader(data), 0, int64(len(data)))
	c.NarrowRecords(5, 8)
	e, _ := c.Advance()
	if err := c.EnterBlock(e.ID); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		e, err := c.Advance()
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == KindEndBlock {
			break
		}
		r, err := c.ReadRecord(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(r.Bytes)+"|"+recString(r))
	}
	want := []string{"\x10\xff\x00|rec 8;", "hi\xff|rec 8;", "|rec 9 300;"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSkipBlock(t *testing.T) {
	w := newWriter()
	w.enter(8, 3)
	w.unabbrev(1, 2, 3)
	w.enter(9, 4)
	w.unabbrev(5)
	w.end()
	w.end()
	w.enter(4, 2)
	w.unabbrev(6)
	w.end()
	data := w.bytes()
	c := NewCursor(bytes.NewReader(data), 0, int64(len(data)))
	e, err := c.Advance()
	if err != nil || e.Kind != KindSubBlock || e.ID != 8 {
		t.Fatalf("%v %v", e, err)
	}
	if err := c.SkipBlock(); err != nil {
		t.Fatal(err)
	}
	e, err = c.Advance()
	if err != nil || e.Kind != KindSubBlock || e.ID != 4 {
		t.Fatalf("after skip: %v %v", e, err)
	}
}

func TestVBR64(t *testing.T) {
	for _, v := range []uint64{0, 1, 31, 32, 1<<63 + 5, ^uint64(0)} {
		w := newWriter()
		w.vbr(v, 6)
		w.align()
		data := w.bytes()
		c := NewCursor(bytes.NewReader(data), 0, int64(len(data)))
		got, err := c.ReadVBR(6)
		if err != nil || got != v {
			t.Errorf("VBR %d: got %d, %v", v, got, err)
		}
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name string
		make func(w *writer)
		want string
	}{
		{"undefined abbrev", func(w *writer) { w.enter(8, 3); w.emit(5, 3); w.align() }, "undefined abbreviation ID 5"},
		{"end at top", func(w *writer) { w.emit(0, 2); w.align(); w.emit(0, 32); w.emit(0, 32) }, "END_BLOCK at the top level"},
		{"too long array", func(w *writer) {
			w.enter(8, 3)
			w.defineAbbrev(op{enc: encFixed, value: 3}, op{enc: encArray}, op{enc: encFixed, value: 8})
			w.emit(4, 3)
			w.emit(1, 3)
			w.vbr(1<<30, 6)
			w.align()
		}, "array of 1073741824 elements"},
		{"too long blob", func(w *writer) {
			w.enter(8, 3)
			w.defineAbbrev(op{lit: true, value: 1}, op{enc: encBlob})
			w.emit(4, 3)
			w.vbr(1000, 6)
			w.align()
		}, "blob of 1000 bytes"},
		{"too long record", func(w *writer) {
			w.enter(8, 3)
			w.emit(UnabbrevRecord, 3)
			w.vbr(1, 6)
			w.vbr(1<<20, 6)
			w.align()
		}, "record with 1048576 operands"},
		{"vbr overflow", func(w *writer) {
			w.enter(8, 3)
			w.emit(UnabbrevRecord, 3)
			for i := 0; i < 20; i++ {
				w.emit(63, 6)
			}
			w.align()
		}, "VBR value does not fit"},
		{"array not second to last", func(w *writer) {
			w.enter(8, 3)
			w.defineAbbrev(op{enc: encArray}, op{enc: encFixed, value: 8}, op{enc: encFixed, value: 8})
			w.emit(4, 3) // an error once used, as in LLVM
			w.align()
		}, "array operand is not second to last"},
		{"blob not last", func(w *writer) {
			w.enter(8, 3)
			w.defineAbbrev(op{enc: encBlob}, op{enc: encFixed, value: 8})
			w.emit(4, 3)
			w.align()
		}, "blob operand is not last"},
		{"wide fixed", func(w *writer) {
			w.enter(8, 3)
			w.defineAbbrev(op{enc: encFixed, value: 33})
		}, "width 33 out of range"},
		{"abbrev before SETBID", func(w *writer) {
			w.enter(BlockInfoID, 2)
			w.defineAbbrev(op{enc: encFixed, value: 3})
			w.end()
		}, "before SETBID"},
		{"starts with array", func(w *writer) {
			w.enter(8, 3)
			w.defineAbbrev(op{enc: encArray}, op{enc: encFixed, value: 8})
			w.emit(4, 3)
			w.align()
		}, "starts with an array"},
		{"too deep", func(w *writer) {
			for i := 0; i < MaxDepth+1; i++ {
				w.enter(8, 3)
			}
			for i := 0; i < MaxDepth+1; i++ {
				w.end()
			}
		}, "nested deeper than 64"},
		{"truncated", func(w *writer) { w.enter(8, 3); w.unabbrev(1, 2) }, "unexpected end of stream"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWriter()
			tc.make(w)
			data := w.bytes()
			_, err := walk(data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			var be *Error
			if errors.As(err, &be) && (be.Bit < 0 || be.Bit > int64(len(data))*8) {
				t.Errorf("error bit %d outside the %d-byte stream", be.Bit, len(data))
			}
		})
	}
}

// TestBlockPastEnd: as in LLVM, a block whose length runs past the end of
// the stream can be entered (reading it fails, or not, later) but not
// skipped; a length word that ends the stream fails both.
func TestBlockPastEnd(t *testing.T) {
	w := newWriter()
	w.emit(EnterSubblock, 2)
	w.vbr(8, 8)
	w.vbr(3, 4)
	w.align()
	w.emit(100, 32)
	w.emit(0, 32) // END_BLOCK
	data := w.bytes()
	c := NewCursor(bytes.NewReader(data), 0, int64(len(data)))
	c.Advance()
	if err := c.EnterBlock(8); err != nil {
		t.Fatalf("EnterBlock: %v", err)
	}
	if e, err := c.Advance(); err != nil || e.Kind != KindEndBlock {
		t.Fatalf("Advance: %v, %v; want the end of the block", e, err)
	}
	c = NewCursor(bytes.NewReader(data), 0, int64(len(data)))
	c.Advance()
	err := c.SkipBlock()
	var be *Error
	if !errors.As(err, &be) || be.LLVM != "can't skip to bit 3264 from 64" {
		t.Errorf("SkipBlock: %v (LLVM text %q)", err, be.LLVM)
	}
	for _, what := range []string{"enter", "skip"} {
		c = NewCursor(bytes.NewReader(data[:8]), 0, 8)
		c.Advance()
		if what == "enter" {
			err = c.EnterBlock(8)
		} else {
			err = c.SkipBlock()
		}
		want := "can't " + what + " block: already at end of stream"
		if what == "enter" {
			want = "can't enter sub block: already at end of stream"
		}
		if !errors.As(err, &be) || be.LLVM != want {
			t.Errorf("%s at the end: %v, want LLVM text %q", what, err, want)
		}
	}
}

func TestErrorOffset(t *testing.T) {
	w := newWriter()
	w.enter(8, 3)
	pos := w.nbits
	w.emit(7, 3) // undefined abbreviation 7
	w.align()
	data := append([]byte("XXXX"), w.bytes()...)
	c := NewCursor(bytes.NewReader(data), 4, int64(len(data)-4))
	e, _ := c.Advance()
	c.EnterBlock(e.ID)
	e, err := c.Advance()
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ReadRecord(e.ID)
	var be *Error
	if !errors.As(err, &be) {
		t.Fatalf("got %v", err)
	}
	if want := int64(32 + pos + 3); be.Bit != want {
		t.Errorf("error at bit %d, want %d (%v)", be.Bit, want, err)
	}
}

// FuzzWalk walks arbitrary streams through every block; seeds are the
// bitcode test files, past their magic.
func FuzzWalk(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/*.bc")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err == nil && len(data) > 4 && string(data[:2]) == "BC" {
			f.Add(data[4:])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		walk(data)
	})
}

// An abbreviation of a shape no record can use is an error only when a
// record uses it, as in LLVM 22 (which defines it and fails in readRecord).
func TestUnusedMisshapenAbbrev(t *testing.T) {
	w := newWriter()
	w.enter(8, 3)
	w.defineAbbrev(op{enc: encArray}, op{enc: encFixed, value: 8}, op{enc: encFixed, value: 8})
	w.defineAbbrev(op{enc: encBlob}, op{enc: encFixed, value: 8})
	w.end()
	if _, err := walk(w.bytes()); err != nil {
		t.Fatal(err)
	}
}
