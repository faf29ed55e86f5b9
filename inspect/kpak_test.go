package inspect

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/goffload/goffload/internal/format/kpak"
	"github.com/goffload/goffload/internal/hipfatbin"
	"github.com/goffload/goffload/internal/test/msgpacktest"
)

var kpakUpdate = flag.Bool("kpak.update", false, "rewrite testdata/kpak-* from the builders in kpak_test.go")

// kpakCodeObject is a minimal AMDGPU code object: an ELF header for
// processor mach, code object v5, then pad bytes.
func kpakCodeObject(mach uint32, pad int) []byte {
	b := make([]byte, 64, 64+pad)
	copy(b, "\x7fELF\x02\x01\x01")
	b[7], b[8] = 64, 3 // HSA, code object v5
	binary.LittleEndian.PutUint16(b[16:], uint16(elf.ET_DYN))
	binary.LittleEndian.PutUint16(b[18:], emAMDGPU)
	binary.LittleEndian.PutUint32(b[20:], 1)
	binary.LittleEndian.PutUint32(b[48:], mach)
	binary.LittleEndian.PutUint16(b[52:], 64)
	for i := range pad {
		b = append(b, byte(i*7+int(mach)))
	}
	return b
}

// A kpakCode is one code object put in a test archive.
type kpakCode struct {
	key, arch string
	data      []byte
	// frame, when set, is the zstd frame stored instead of one made from data.
	frame []byte
}

var kpakCodes = []kpakCode{
	{key: "lib/liba.so#0", arch: "gfx1100", data: kpakCodeObject(0x41, 300)},
	{key: "lib/liba.so#0", arch: "gfx1030", data: kpakCodeObject(0x36, 200)},
	{key: "lib/libb.so#1", arch: "gfx1100", data: kpakCodeObject(0x41, 500)},
}

// kpakLayout is where a test archive put things.
type kpakLayout struct {
	tocOff int64
	// blob is each code object's offset (scheme none) or the offset of
	// its frame's size word (zstd-per-kernel), by ordinal; frameSize the
	// frame's size.
	blob, frameSize []int64
}

// kpakArchive writes a KPAK archive of codes, by ordinal, as rocm-kpack's
// writer does; edit may change the table of contents first.
func kpakArchive(t testing.TB, scheme string, codes []kpakCode, edit func(toc map[string]any)) ([]byte, kpakLayout) {
	t.Helper()
	b := make([]byte, 64)
	copy(b, "KPAK")
	binary.LittleEndian.PutUint32(b[4:], 1)
	var lay kpakLayout
	toc := map[string]any{
		"format_version":     1,
		"group_name":         "test",
		"gfx_arch_family":    "gfx11",
		"gfx_arches":         []string{"gfx1030", "gfx1100"},
		"compression_scheme": scheme,
	}
	entries := map[string]any{}
	var blobs []any
	start := int64(len(b))
	if scheme == kpak.Zstd {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(codes)))
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	for i, c := range codes {
		arches, _ := entries[c.key].(map[string]any)
		if arches == nil {
			arches = map[string]any{}
			entries[c.key] = arches
		}
		arches[c.arch] = map[string]any{"type": "hsaco", "ordinal": i, "original_size": len(c.data)}
		lay.blob = append(lay.blob, int64(len(b)))
		if scheme == kpak.Zstd {
			frame := c.frame
			if frame == nil {
				frame = enc.EncodeAll(c.data, nil)
			}
			b = binary.LittleEndian.AppendUint32(b, uint32(len(frame)))
			b = append(b, frame...)
			lay.frameSize = append(lay.frameSize, int64(len(frame)))
		} else {
			blobs = append(blobs, map[string]any{"offset": len(b), "size": len(c.data)})
			b = append(b, c.data...)
		}
	}
	if scheme == kpak.Zstd {
		toc["zstd_offset"] = start
		toc["zstd_size"] = int64(len(b)) - start
	} else {
		toc["blobs"] = blobs
	}
	toc["toc"] = entries
	if edit != nil {
		edit(toc)
	}
	lay.tocOff = int64(len(b))
	binary.LittleEndian.PutUint64(b[8:], uint64(lay.tocOff))
	return msgpacktest.Append(b, toc), lay
}

// kpakEntryMap returns the toc entry of key and arch, for edits.
func kpakEntryMap(toc map[string]any, key, arch string) map[string]any {
	return toc["toc"].(map[string]any)[key].(map[string]any)[arch].(map[string]any)
}

func kpakRead(b []byte) *Listing {
	return Read(bytes.NewReader(b), int64(len(b)), "t.kpack", nil)
}

func kpakOpen(o *Object) ([]byte, error) {
	r, err := o.Open()
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func kpakIDs(l *Listing) []string {
	var s []string
	for _, o := range l.Objects {
		s = append(s, o.ID+" "+o.TargetID)
	}
	return s
}

func kpakErrors(l *Listing) string {
	var s []string
	for _, e := range l.Errors {
		s = append(s, e.Error())
	}
	return strings.Join(s, "\n")
}

// kpakFields are the Object fields a KPAK entry sets.
type kpakFields struct {
	Index                                                  int
	File, Container, ID, Kind, Triple, TargetID, ImageKind string
	Path                                                   []string
	Host                                                   bool
	Offset, Size                                           int64
	Compressed                                             *Compression
}

func kpakFieldsOf(o *Object) kpakFields {
	return kpakFields{Index: o.Index, File: o.File, Container: o.Container, ID: o.ID, Kind: o.Kind, Triple: o.Triple,
		TargetID: o.TargetID, ImageKind: o.ImageKind, Path: o.Path, Host: o.Host, Offset: o.Offset, Size: o.Size,
		Compressed: o.Compressed}
}

func TestKPAKList(t *testing.T) {
	for _, scheme := range []string{kpak.None, kpak.Zstd} {
		t.Run(scheme, func(t *testing.T) {
			b, lay := kpakArchive(t, scheme, kpakCodes, nil)
			l := kpakRead(b)
			if len(l.Errors) > 0 {
				t.Fatalf("errors:\n%s", kpakErrors(l))
			}
			if l.Kind != "KPAK archive" {
				t.Errorf("kind %q", l.Kind)
			}
			if len(l.Objects) != len(kpakCodes) {
				t.Fatalf("objects %q", kpakIDs(l))
			}
			for i, o := range l.Objects {
				c := kpakCodes[i]
				want := kpakFields{Index: i, File: "t.kpack", Path: []string{"KPAK test gfx11 (" + scheme + ")"},
					Container: "kpak entry", ID: c.key, Kind: "kpack", TargetID: c.arch,
					Offset: lay.blob[i], Size: int64(len(c.data))}
				if scheme == kpak.Zstd {
					want.Offset = -1
					want.Compressed = &Compression{Format: "KPAK", Version: 1, Method: "zstd", Offset: lay.blob[i] + 4,
						Size: lay.frameSize[i], UncompressedSize: int64(len(c.data))}
				}
				if got := kpakFieldsOf(o); !reflect.DeepEqual(got, want) {
					t.Errorf("object %d:\n got %+v %+v\nwant %+v %+v", i, got, got.Compressed, want, want.Compressed)
				}
				if scheme == kpak.None {
					if o.Code == nil || o.Code.Format != "ELF" || o.Code.Processor != c.arch {
						t.Errorf("%s: code %+v", o.Where(), o.Code)
					}
				} else if o.Code != nil {
					t.Errorf("%s: header read from compressed data: %+v", o.Where(), o.Code)
				}
				data, err := kpakOpen(o)
				if err != nil || !bytes.Equal(data, c.data) {
					t.Errorf("%s: %d bytes, %v; want %d bytes", o.Where(), len(data), err, len(c.data))
				}
				// Opening twice works: every open decodes afresh.
				if again, err := kpakOpen(o); err != nil || !bytes.Equal(again, data) {
					t.Errorf("%s: second open: %v", o.Where(), err)
				}
			}
		})
	}
}

// kpakNoFCS is a zstd frame of data whose header leaves the content size
// out, as a streaming encoder writes it.
func kpakNoFCS(t testing.TB, data []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	frame := enc.EncodeAll(data, nil)
	var h zstd.Header
	if err := h.Decode(frame); err != nil {
		t.Fatal(err)
	}
	fhd := byte(0) // no content size, not single-segment, no dictionary
	if h.HasCheckSum {
		fhd |= 1 << 2
	}
	out := append([]byte{0x28, 0xb5, 0x2f, 0xfd, fhd, (17 - 10) << 3}, frame[h.HeaderSize:]...)
	if err := h.Decode(out); err != nil || h.HasFCS {
		t.Fatalf("rewritten frame: %v, content size given: %v", err, h.HasFCS)
	}
	return out
}

func TestKPAKDamage(t *testing.T) {
	all := []string{"lib/liba.so#0 gfx1100", "lib/liba.so#0 gfx1030", "lib/libb.so#1 gfx1100"}
	// put patches b at off.
	put32 := func(b []byte, off int64, v uint32) []byte {
		b = slices.Clone(b)
		binary.LittleEndian.PutUint32(b[off:], v)
		return b
	}
	for _, c := range []struct {
		name  string
		build func(t *testing.T) []byte
		// fields are substrings of the errors' fields, one per error.
		fields []string
		// is, when set, must be wrapped by the first error.
		is     error
		listed []string
	}{
		{"header cut short", func(t *testing.T) []byte { return []byte("KPAK\x01\x00\x00\x00\x40\x00") },
			[]string{"header"}, ErrTruncated, nil},
		{"TOC offset past the end", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, nil)
			binary.LittleEndian.PutUint64(b[8:], uint64(len(b))+100)
			return b
		}, []string{"TOC offset"}, ErrTruncated, nil},
		{"TOC offset at the end", func(t *testing.T) []byte {
			b, lay := kpakArchive(t, kpak.None, kpakCodes, nil)
			return b[:lay.tocOff]
		}, []string{"TOC offset"}, ErrTruncated, nil},
		{"TOC offset in the header", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, nil)
			binary.LittleEndian.PutUint64(b[8:], 8)
			return b
		}, []string{"TOC offset"}, ErrMalformed, nil},
		{"truncated", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.Zstd, kpakCodes, nil)
			return b[:len(b)-5]
		}, []string{"TOC"}, nil, nil},
		{"TOC not a map", func(t *testing.T) []byte {
			b, lay := kpakArchive(t, kpak.None, kpakCodes, nil)
			return msgpacktest.Append(b[:lay.tocOff], []any{1, 2})
		}, []string{"TOC"}, ErrMalformed, nil},
		{"bytes after the TOC", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, nil)
			return append(b, 0, 0, 0)
		}, []string{"TOC"}, ErrMalformed, all},
		{"format version 2", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, func(toc map[string]any) { toc["format_version"] = 2 })
			return b
		}, []string{"format_version"}, ErrMalformed, nil},
		{"unknown scheme", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, func(toc map[string]any) { toc["compression_scheme"] = "lz4" })
			return b
		}, []string{"compression_scheme"}, ErrMalformed, nil},
		{"no scheme means none", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, func(toc map[string]any) { delete(toc, "compression_scheme") })
			return b
		}, nil, nil, all},
		{"toc entry not a map", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, func(toc map[string]any) {
				toc["toc"].(map[string]any)["lib/libb.so#1"].(map[string]any)["gfx1100"] = "x"
			})
			return b
		}, []string{`toc["lib/libb.so#1"]["gfx1100"]`}, ErrMalformed, all[:2]},
		{"ordinal out of range (none)", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, func(toc map[string]any) {
				kpakEntryMap(toc, "lib/liba.so#0", "gfx1030")["ordinal"] = 3
			})
			return b
		}, []string{`toc["lib/liba.so#0"]["gfx1030"].ordinal`}, ErrMalformed, []string{all[0], all[2]}},
		{"ordinal negative", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, func(toc map[string]any) {
				kpakEntryMap(toc, "lib/liba.so#0", "gfx1030")["ordinal"] = -1
			})
			return b
		}, []string{`toc["lib/liba.so#0"]["gfx1030"].ordinal`}, ErrMalformed, []string{all[0], all[2]}},
		{"ordinal out of range (zstd)", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.Zstd, kpakCodes, func(toc map[string]any) {
				kpakEntryMap(toc, "lib/liba.so#0", "gfx1100")["ordinal"] = int64(1) << 40
			})
			return b
		}, []string{`toc["lib/liba.so#0"]["gfx1100"].ordinal`}, ErrMalformed, all[1:]},
		{"blob size lies", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, func(toc map[string]any) {
				toc["blobs"].([]any)[1].(map[string]any)["size"] = 1 << 20
			})
			return b
		}, []string{"blobs[1]"}, ErrTruncated, []string{all[0], all[2]}},
		{"blob in the header", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, func(toc map[string]any) {
				toc["blobs"].([]any)[0].(map[string]any)["offset"] = 4
			})
			return b
		}, []string{"blobs[0].offset"}, ErrMalformed, all[1:]},
		{"blobs missing", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, func(toc map[string]any) { delete(toc, "blobs") })
			return b
		}, []string{"blobs"}, ErrMalformed, nil},
		{"original_size differs from the blob", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, func(toc map[string]any) {
				kpakEntryMap(toc, "lib/libb.so#1", "gfx1100")["original_size"] = 7
			})
			return b
		}, []string{`toc["lib/libb.so#1"]["gfx1100"].original_size`}, ErrMalformed, all},
		{"frame size lies, too big", func(t *testing.T) []byte {
			b, lay := kpakArchive(t, kpak.Zstd, kpakCodes, nil)
			return put32(b, lay.blob[1], 1<<30)
		}, []string{"zstd frame 1 size", "toc"}, ErrTruncated, all[:1]},
		{"frame size lies, too small", func(t *testing.T) []byte {
			b, lay := kpakArchive(t, kpak.Zstd, kpakCodes, nil)
			// Frame 2's size word is then read from inside frame 1.
			return put32(b, lay.blob[1], uint32(lay.frameSize[1]-3))
		}, []string{"zstd frame 2 size", "toc"}, ErrTruncated, all[:2]},
		{"frame count lies", func(t *testing.T) []byte {
			b, lay := kpakArchive(t, kpak.Zstd, kpakCodes, nil)
			return put32(b, lay.blob[0]-4, 1000)
		}, []string{"zstd frame count"}, ErrTruncated, all},
		{"zstd_size runs into the TOC", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.Zstd, kpakCodes, func(toc map[string]any) { toc["zstd_size"] = 1 << 20 })
			return b
		}, []string{"zstd_size"}, ErrTruncated, all},
		{"zstd_size short", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.Zstd, kpakCodes, func(toc map[string]any) { toc["zstd_size"] = toc["zstd_size"].(int64) - 10 })
			return b
		}, []string{"zstd frame 2 size", "toc"}, ErrTruncated, all[:2]},
		{"zstd_offset past the blobs", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.Zstd, kpakCodes, func(toc map[string]any) { toc["zstd_offset"] = 1 << 20 })
			return b
		}, []string{"zstd_offset"}, ErrTruncated, nil},
		{"not a zstd frame", func(t *testing.T) []byte {
			codes := slices.Clone(kpakCodes)
			codes[1].frame = []byte("this is not zstd at all")
			b, _ := kpakArchive(t, kpak.Zstd, codes, nil)
			return b
		}, []string{"(zstd frame 1)"}, ErrMalformed, []string{all[0], all[2]}},
		{"original_size differs from the frame's", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.Zstd, kpakCodes, func(toc map[string]any) {
				kpakEntryMap(toc, "lib/liba.so#0", "gfx1030")["original_size"] = 5
			})
			return b
		}, []string{`toc["lib/liba.so#0"]["gfx1030"].original_size`}, ErrMalformed, []string{all[0], all[2]}},
		{"original_size missing (zstd)", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.Zstd, kpakCodes, func(toc map[string]any) {
				delete(kpakEntryMap(toc, "lib/liba.so#0", "gfx1030"), "original_size")
			})
			return b
		}, []string{`toc["lib/liba.so#0"]["gfx1030"].original_size`}, ErrMalformed, []string{all[0], all[2]}},
		{"original_size missing (none)", func(t *testing.T) []byte {
			b, _ := kpakArchive(t, kpak.None, kpakCodes, func(toc map[string]any) {
				delete(kpakEntryMap(toc, "lib/liba.so#0", "gfx1030"), "original_size")
			})
			return b
		}, nil, nil, all},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := kpakRead(c.build(t))
			t.Log(kpakErrors(l))
			if got := kpakIDs(l); !slices.Equal(got, c.listed) {
				t.Errorf("listed %q, want %q", got, c.listed)
			}
			if len(l.Errors) != len(c.fields) {
				t.Fatalf("%d errors, want %d (%q):\n%s", len(l.Errors), len(c.fields), c.fields, kpakErrors(l))
			}
			for i, e := range l.Errors {
				if !strings.Contains(e.Field, c.fields[i]) {
					t.Errorf("error %d: field %q, want %q: %v", i, e.Field, c.fields[i], e)
				}
				if e.Offset < 0 {
					t.Errorf("error %d: no file offset: %v", i, e)
				}
			}
			if c.is != nil && len(l.Errors) > 0 && !errors.Is(l.Errors[0], c.is) {
				t.Errorf("%v: want %v", l.Errors[0], c.is)
			}
			// What is listed opens to its bytes.
			for _, o := range l.Objects {
				i := slices.Index(all, o.ID+" "+o.TargetID)
				if c.name == "frame size lies, too small" && i == 1 {
					// Its frame lost its last bytes.
					if _, err := kpakOpen(o); err == nil {
						t.Errorf("%s: opened", o.Where())
					}
					continue
				}
				if data, err := kpakOpen(o); err != nil || !bytes.Equal(data, kpakCodes[i].data) {
					t.Errorf("%s: %d bytes, %v", o.Where(), len(data), err)
				}
			}
		})
	}
}

// A frame whose header gives no content size is checked when it is read:
// it must decode to exactly original_size bytes.
func TestKPAKOpenChecksFrameSize(t *testing.T) {
	data := kpakCodes[0].data
	for _, c := range []struct {
		name string
		size int
		want string
		is   error
	}{
		{"exact", len(data), "", nil},
		{"frame longer", len(data) - 1, "more than its original_size", ErrMalformed},
		{"frame shorter", len(data) + 1, "ends 1 bytes short", io.ErrUnexpectedEOF},
	} {
		t.Run(c.name, func(t *testing.T) {
			codes := []kpakCode{{key: "x#0", arch: "gfx1100", data: data, frame: kpakNoFCS(t, data)}}
			b, _ := kpakArchive(t, kpak.Zstd, codes, func(toc map[string]any) {
				kpakEntryMap(toc, "x#0", "gfx1100")["original_size"] = c.size
			})
			l := kpakRead(b)
			if len(l.Errors) > 0 || len(l.Objects) != 1 {
				t.Fatalf("%q:\n%s", kpakIDs(l), kpakErrors(l))
			}
			got, err := kpakOpen(l.Objects[0])
			if c.want == "" {
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%d bytes, %v", len(got), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if int64(len(got)) > l.Objects[0].Size {
				t.Fatalf("read %d bytes of a %d-byte object", len(got), l.Objects[0].Size)
			}
			// A corrupt frame fails on reading too.
			bad := slices.Clone(b)
			bad[l.Objects[0].Compressed.Offset+10] ^= 0xff
			for _, o := range kpakRead(bad).Objects {
				if _, err := kpakOpen(o); err == nil {
					t.Errorf("corrupt frame read without error")
				}
			}
		})
	}
}

// kpakELF builds a minimal ELF64 x86-64 file of type typ holding
// .hipFatBinSegment wrappers (magic HIPK, pointer ptr, reserved i for
// wrapper i) and, unless ref is nil, a .rocm_kpack_ref section at address
// 0x2000 (0 in a relocatable object) holding ref.
func kpakELF(typ elf.Type, wrappers int, ptr uint64, ref []byte) []byte {
	const segAddr, refAddr = 0x1000, 0x2000
	b := make([]byte, 64)
	copy(b, "\x7fELF\x02\x01\x01")
	binary.LittleEndian.PutUint16(b[16:], uint16(typ))
	binary.LittleEndian.PutUint16(b[18:], uint16(elf.EM_X86_64))
	binary.LittleEndian.PutUint32(b[20:], 1)
	binary.LittleEndian.PutUint16(b[52:], 64)
	binary.LittleEndian.PutUint16(b[58:], 64)

	type sec struct {
		name      string
		typ       elf.SectionType
		addr, off uint64
		data      []byte
	}
	addr := func(a uint64) uint64 {
		if typ == elf.ET_REL {
			return 0
		}
		return a
	}
	var wr []byte
	for i := range wrappers {
		wr = binary.LittleEndian.AppendUint32(wr, hipfatbin.MagicHIPK)
		wr = binary.LittleEndian.AppendUint32(wr, 1)
		wr = binary.LittleEndian.AppendUint64(wr, ptr)
		wr = binary.LittleEndian.AppendUint64(wr, uint64(i))
	}
	secs := []sec{{name: secHIPSegment, typ: elf.SHT_PROGBITS, addr: addr(segAddr), data: wr}}
	if ref != nil {
		secs = append(secs, sec{name: secKpackRef, typ: elf.SHT_PROGBITS, addr: addr(refAddr), data: ref})
	}
	shstr := []byte{0}
	names := make([]uint32, len(secs)+1)
	for i, s := range secs {
		names[i] = uint32(len(shstr))
		shstr = append(append(shstr, s.name...), 0)
	}
	names[len(secs)] = uint32(len(shstr))
	shstr = append(shstr, ".shstrtab\x00"...)
	secs = append(secs, sec{name: ".shstrtab", typ: elf.SHT_STRTAB, data: shstr})
	for i := range secs {
		secs[i].off = uint64(len(b))
		b = append(b, secs[i].data...)
	}
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	binary.LittleEndian.PutUint64(b[40:], uint64(len(b)))
	binary.LittleEndian.PutUint16(b[60:], uint16(len(secs)+1))
	binary.LittleEndian.PutUint16(b[62:], uint16(len(secs)))
	b = append(b, make([]byte, 64)...) // the null section
	for i, s := range secs {
		h := make([]byte, 64)
		binary.LittleEndian.PutUint32(h[0:], names[i])
		binary.LittleEndian.PutUint32(h[4:], uint32(s.typ))
		if s.typ == elf.SHT_PROGBITS && typ != elf.ET_REL {
			binary.LittleEndian.PutUint64(h[8:], uint64(elf.SHF_ALLOC))
		}
		binary.LittleEndian.PutUint64(h[16:], s.addr)
		binary.LittleEndian.PutUint64(h[24:], s.off)
		binary.LittleEndian.PutUint64(h[32:], uint64(len(s.data)))
		binary.LittleEndian.PutUint64(h[48:], 1)
		b = append(b, h...)
	}
	return b
}

var kpakRefMap = map[string]any{
	"kernel_name":        "lib/libfoo.so",
	"kpack_search_paths": []string{"../.kpack/foo_@GFXARCH@.kpack", "../.kpack/foo_gfx1100.kpack"},
}

func TestKpackRef(t *testing.T) {
	ref := msgpacktest.Append(nil, kpakRefMap)
	want := &KpackRef{KernelName: "lib/libfoo.so", SearchPaths: []string{"../.kpack/foo_@GFXARCH@.kpack", "../.kpack/foo_gfx1100.kpack"}}
	for _, c := range []struct {
		name string
		file []byte
	}{
		{"shared object", kpakELF(elf.ET_DYN, 2, 0x2000, ref)},
		{"relocatable object", kpakELF(elf.ET_REL, 2, 0, ref)},
		{"padded section", kpakELF(elf.ET_EXEC, 2, 0x2000, append(slices.Clone(ref), 0, 0, 0, 0))},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := Read(bytes.NewReader(c.file), int64(len(c.file)), "hipk", nil)
			if len(l.Errors) > 0 {
				t.Fatalf("errors:\n%s", kpakErrors(l))
			}
			if len(l.Wrappers) != 2 {
				t.Fatalf("%d wrappers", len(l.Wrappers))
			}
			for i, w := range l.Wrappers {
				// Not w.Magic: elf.go spells the kpack magic KPIH for now.
				if !strings.HasPrefix(w.Note, "kpack") || w.Reserved != uint64(i) || w.Bundle != -1 || !reflect.DeepEqual(w.KpackRef, want) {
					t.Errorf("wrapper %d: %+v, ref %+v", i, w, w.KpackRef)
				}
			}
			if len(l.Objects) != 0 {
				t.Errorf("objects %q", kpakIDs(l))
			}
		})
	}
}

func TestKpackRefDamage(t *testing.T) {
	enc := func(m map[string]any) []byte { return msgpacktest.Append(nil, m) }
	with := func(k string, v any) []byte {
		m := map[string]any{}
		for k, v := range kpakRefMap {
			m[k] = v
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return enc(m)
	}
	good := enc(kpakRefMap)
	for _, c := range []struct {
		name  string
		file  []byte
		field string
	}{
		{"no section", kpakELF(elf.ET_DYN, 2, 0x2000, nil), secKpackRef},
		{"pointer outside", kpakELF(elf.ET_DYN, 2, 0x3000, good), secHIPSegment},
		{"not msgpack", kpakELF(elf.ET_DYN, 2, 0x2000, []byte{0xc1, 0, 0}), secKpackRef},
		{"cut short", kpakELF(elf.ET_DYN, 2, 0x2000, good[:len(good)-4]), secKpackRef},
		{"not a map", kpakELF(elf.ET_DYN, 2, 0x2000, msgpacktest.Append(nil, []any{"x"})), secKpackRef},
		{"no kernel_name", kpakELF(elf.ET_DYN, 2, 0x2000, with("kernel_name", nil)), "kernel_name"},
		{"kernel_name not a string", kpakELF(elf.ET_DYN, 2, 0x2000, with("kernel_name", 5)), "kernel_name"},
		{"no search paths", kpakELF(elf.ET_DYN, 2, 0x2000, with("kpack_search_paths", nil)), "kpack_search_paths"},
		{"empty search paths", kpakELF(elf.ET_DYN, 2, 0x2000, with("kpack_search_paths", []any{})), "kpack_search_paths"},
		{"search path not a string", kpakELF(elf.ET_DYN, 2, 0x2000, with("kpack_search_paths", []any{"a", 1})), "kpack_search_paths[1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := Read(bytes.NewReader(c.file), int64(len(c.file)), "hipk", nil)
			t.Log(kpakErrors(l))
			// Both wrappers point at the same place: one error.
			if len(l.Errors) != 1 {
				t.Fatalf("%d errors, want 1:\n%s", len(l.Errors), kpakErrors(l))
			}
			if e := l.Errors[0]; !strings.Contains(e.Field, c.field) || e.Offset <= 0 {
				t.Errorf("error %v: field %q, want %q", e, e.Field, c.field)
			}
			if len(l.Wrappers) != 2 {
				t.Fatalf("%d wrappers", len(l.Wrappers))
			}
			for _, w := range l.Wrappers {
				if w.KpackRef != nil || !strings.HasPrefix(w.Note, "kpack") {
					t.Errorf("wrapper %+v", w)
				}
			}
		})
	}
}

// The archives and the kpack'd binary under testdata/ (seeds for FuzzRead)
// are what the builders here write; -kpak.update rewrites them.
func TestKPAKTestdata(t *testing.T) {
	files := map[string][]byte{}
	for _, scheme := range []string{kpak.None, kpak.Zstd} {
		codes := []kpakCode{
			{key: "lib/liba.so#0", arch: "gfx1100", data: kpakCodeObject(0x41, 64)},
			{key: "lib/liba.so#0", arch: "gfx1030", data: kpakCodeObject(0x36, 32)},
			{key: "lib/liba.so#1", arch: "gfx1100", data: kpakCodeObject(0x41, 16)},
		}
		name := "kpak-" + strings.TrimSuffix(scheme, "-per-kernel") + ".kpack"
		files[name], _ = kpakArchive(t, scheme, codes, nil)
	}
	files["kpak-hipk.so"] = kpakELF(elf.ET_DYN, 2, 0x2000, msgpacktest.Append(nil, kpakRefMap))
	// The archives kpak-hipk.so's wrappers name (lib/libfoo.so, TUs 0
	// and 1), for package tree's kpack checks: gfx1100 complete, gfx1030
	// lacking TU 1, and an archive with no code object.
	files["kpak-foo_gfx1100.kpack"], _ = kpakArchive(t, kpak.None, []kpakCode{
		{key: "lib/libfoo.so#0", arch: "gfx1100", data: kpakCodeObject(0x41, 64)},
		{key: "lib/libfoo.so#1", arch: "gfx1100", data: kpakCodeObject(0x41, 32)},
	}, nil)
	files["kpak-foo_gfx1030.kpack"], _ = kpakArchive(t, kpak.None, []kpakCode{
		{key: "lib/libfoo.so#0", arch: "gfx1030", data: kpakCodeObject(0x36, 64)},
	}, nil)
	files["kpak-foo_empty.kpack"], _ = kpakArchive(t, kpak.None, nil, nil)
	for name, b := range files {
		path := filepath.Join("testdata", name)
		if *kpakUpdate {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		stored, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestKPAKTestdata -kpak.update)", err)
		}
		l := Read(bytes.NewReader(stored), int64(len(stored)), name, nil)
		if len(l.Errors) > 0 {
			t.Errorf("%s:\n%s", name, kpakErrors(l))
		}
		if strings.HasPrefix(name, "kpak-foo_") {
			continue // read by package tree's tests
		}
		if strings.HasSuffix(name, ".kpack") {
			if got := kpakIDs(l); !slices.Equal(got, []string{"lib/liba.so#0 gfx1100", "lib/liba.so#0 gfx1030", "lib/liba.so#1 gfx1100"}) {
				t.Errorf("%s: %q", name, got)
			}
			for _, o := range l.Objects {
				if _, err := kpakOpen(o); err != nil {
					t.Errorf("%s: %v", o.Where(), err)
				}
			}
		} else if len(l.Wrappers) != 2 || l.Wrappers[1].KpackRef == nil {
			t.Errorf("%s: wrappers %+v", name, l.Wrappers)
		}
	}
}

// FuzzKPAK walks mutated KPAK archives and kpack'd binaries: no panic,
// every object inside the input, and no object reads past its size.
func FuzzKPAK(f *testing.F) {
	for _, scheme := range []string{kpak.None, kpak.Zstd} {
		b, _ := kpakArchive(f, scheme, kpakCodes[:2], nil)
		f.Add(b)
	}
	f.Add(kpakELF(elf.ET_DYN, 1, 0x2000, msgpacktest.Append(nil, kpakRefMap)))
	f.Add(kpakELF(elf.ET_REL, 1, 0, msgpacktest.Append(nil, kpakRefMap)))
	f.Fuzz(func(t *testing.T, data []byte) {
		l := kpakRead(data)
		for _, o := range l.Objects {
			if o.Size < 0 || o.Offset >= 0 && (o.Offset > int64(len(data)) || o.Size > int64(len(data))-o.Offset) {
				t.Fatalf("%s: offset %d size %d outside the %d-byte input", o.Where(), o.Offset, o.Size, len(data))
			}
			if o.Size > 16<<20 {
				continue
			}
			r, err := o.Open()
			if err != nil {
				continue
			}
			if n, _ := io.Copy(io.Discard, io.LimitReader(r, o.Size+1)); n > o.Size {
				t.Fatalf("%s: read more than its %d bytes", o.Where(), o.Size)
			}
		}
		for _, e := range l.Errors {
			if e.Error() == "" {
				t.Fatal("empty error")
			}
		}
	})
}
