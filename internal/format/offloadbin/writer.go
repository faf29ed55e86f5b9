package offloadbin

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Image is one image to be written: its metadata and where its bytes come
// from. Strings are stored in the given order (LLVM 22's tool stores them in
// the iteration order of its DenseMap; see the cli package).
type Image struct {
	ImageKind   ImageKind
	OffloadKind OffloadKind
	Flags       uint32
	Strings     []StringEntry
	Data        io.ReaderAt
	Size        int64
}

// layout is where everything of one v1 binary goes.
type layout struct {
	table       []byte
	offsets     map[string]uint64 // string → offset in the table
	tableOffset int64
	imageOffset int64
	size        int64
}

func (img *Image) layout() layout {
	strs := make([]string, 0, 2*len(img.Strings))
	for _, s := range img.Strings {
		strs = append(strs, s.Key, s.Value)
	}
	table, offsets := buildStringTable(strs)
	l := layout{table: table, offsets: offsets}
	l.tableOffset = headerSize + entrySize + stringEntrySize*int64(len(img.Strings))
	l.imageOffset = alignUp(l.tableOffset + int64(len(table)))
	l.size = alignUp(l.imageOffset + img.Size)
	return l
}

// BinarySize returns the number of bytes WriteImage writes for img.
func (img *Image) BinarySize() int64 { return img.layout().size }

func alignUp(n int64) int64 { return (n + Alignment - 1) &^ (Alignment - 1) }

// Write writes each image as its own version-1 binary, back to back, as
// llvm-offload-binary 22 does. The output is byte-identical to LLVM 22's for
// the same images and string order. Image bytes are streamed from Data.
func Write(w io.Writer, images ...Image) error {
	for i := range images {
		if err := WriteImage(w, images[i]); err != nil {
			return err
		}
	}
	return nil
}

// WriteImage writes one version-1 binary holding img.
func WriteImage(w io.Writer, img Image) error {
	if img.Size < 0 {
		return fmt.Errorf("offloadbin: negative image size %d", img.Size)
	}
	l := img.layout()
	le := binary.LittleEndian
	var meta bytes.Buffer
	meta.Grow(int(l.imageOffset))
	var hdr [headerSize + entrySize]byte
	copy(hdr[offMagic:], Magic)
	le.PutUint32(hdr[offVersion:], Version1)
	le.PutUint64(hdr[offSize:], uint64(l.size))
	le.PutUint64(hdr[offEntryOffset:], headerSize)
	le.PutUint64(hdr[offEntrySize:], entrySize)
	e := hdr[headerSize:]
	le.PutUint16(e[entImageKind:], uint16(img.ImageKind))
	le.PutUint16(e[entOffloadKind:], uint16(img.OffloadKind))
	le.PutUint32(e[entFlags:], img.Flags)
	le.PutUint64(e[entStrOffset:], headerSize+entrySize)
	le.PutUint64(e[entNumStrings:], uint64(len(img.Strings)))
	le.PutUint64(e[entImageOffset:], uint64(l.imageOffset))
	le.PutUint64(e[entImageSize:], uint64(img.Size))
	meta.Write(hdr[:])
	for _, s := range img.Strings {
		var se [stringEntrySize]byte
		le.PutUint64(se[0:], uint64(l.tableOffset)+l.offsets[s.Key])
		le.PutUint64(se[8:], uint64(l.tableOffset)+l.offsets[s.Value])
		meta.Write(se[:])
	}
	meta.Write(l.table)
	meta.Write(make([]byte, l.imageOffset-int64(meta.Len())))
	if _, err := w.Write(meta.Bytes()); err != nil {
		return err
	}
	if img.Size > 0 {
		n, err := io.Copy(w, io.NewSectionReader(img.Data, 0, img.Size))
		if err != nil {
			return err
		}
		if n != img.Size {
			return fmt.Errorf("offloadbin: image data is %d bytes, want %d: %w", n, img.Size, io.ErrUnexpectedEOF)
		}
	}
	_, err := w.Write(make([]byte, l.size-l.imageOffset-img.Size))
	return err
}

// buildStringTable lays out a NUL-separated string table the way LLVM's
// StringTableBuilder (ELF kind) does: a leading NUL, the distinct non-empty
// strings in descending order of their reversed bytes, each string that is
// a suffix of the last one written sharing its tail. The empty string is at
// offset 0.
func buildStringTable(strs []string) ([]byte, map[string]uint64) {
	offsets := map[string]uint64{"": 0}
	var uniq []string
	for _, s := range strs {
		if _, ok := offsets[s]; !ok {
			offsets[s] = 0
			uniq = append(uniq, s)
		}
	}
	rev := make(map[string]string, len(uniq))
	for _, s := range uniq {
		b := []byte(s)
		slices.Reverse(b)
		rev[s] = string(b)
	}
	slices.SortFunc(uniq, func(a, b string) int { return strings.Compare(rev[b], rev[a]) })
	table := []byte{0}
	last := ""
	for _, s := range uniq {
		if last != "" && strings.HasSuffix(last, s) {
			offsets[s] = uint64(len(table) - len(s) - 1)
			continue
		}
		offsets[s] = uint64(len(table))
		table = append(table, s...)
		table = append(table, 0)
		last = s
	}
	return table, offsets
}
