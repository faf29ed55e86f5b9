// Package offbintest writes OffloadBinaries of versions 2 and 3 (package
// offloadbin writes version 1 only) for the tests of the packages that read
// them.
package offbintest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"

	"github.com/klauspost/compress/zstd"
)

// An Image is one entry: its image kind and offload kind as stored, its
// string map (key, value) in order, and its bytes.
type Image struct {
	Kind, Offload uint16
	Strings       [][2]string
	Data          string
}

func alignUp(n int64) int64 { return (n + 7) &^ 7 }

// BuildV2 lays out a version-2 or uncompressed version-3 binary as newer
// LLVM describes it: header, all entries, all 24-byte string entries, one
// string table, the images concatenated.
func BuildV2(version uint32, imgs []Image) []byte {
	le := binary.LittleEndian
	hsize := 32
	if version >= 3 {
		hsize = 40
	}
	nstr := 0
	for _, im := range imgs {
		nstr += len(im.Strings)
	}
	tabOff := hsize + 40*len(imgs) + 24*nstr
	var tab []byte
	strOff := map[string]int{}
	add := func(s string) int {
		if o, ok := strOff[s]; ok {
			return o
		}
		strOff[s] = tabOff + len(tab)
		tab = append(append(tab, s...), 0)
		return strOff[s]
	}
	var ents, sents []byte
	imgOff := 0
	for _, im := range imgs {
		for _, s := range im.Strings {
			add(s[0])
			add(s[1])
		}
	}
	dataOff := alignUp(int64(tabOff + len(tab)))
	seOff := hsize + 40*len(imgs)
	for _, im := range imgs {
		e := make([]byte, 40)
		le.PutUint16(e[0:], im.Kind)
		le.PutUint16(e[2:], im.Offload)
		le.PutUint64(e[8:], uint64(seOff))
		le.PutUint64(e[16:], uint64(len(im.Strings)))
		le.PutUint64(e[24:], uint64(dataOff)+uint64(imgOff))
		le.PutUint64(e[32:], uint64(len(im.Data)))
		ents = append(ents, e...)
		for _, s := range im.Strings {
			se := make([]byte, 24)
			le.PutUint64(se[0:], uint64(strOff[s[0]]))
			le.PutUint64(se[8:], uint64(strOff[s[1]]))
			le.PutUint64(se[16:], uint64(len(s[1])))
			sents = append(sents, se...)
			seOff += 24
		}
		imgOff += len(im.Data)
	}
	out := make([]byte, hsize)
	copy(out, "\x10\xff\x10\xad")
	le.PutUint32(out[4:], version)
	le.PutUint64(out[16:], uint64(hsize))
	le.PutUint64(out[24:], uint64(len(imgs)))
	out = append(append(append(out, ents...), sents...), tab...)
	out = append(out, make([]byte, int(dataOff)-len(out))...)
	for _, im := range imgs {
		out = append(out, im.Data...)
	}
	out = append(out, make([]byte, int(alignUp(int64(len(out))))-len(out))...)
	le.PutUint64(out[8:], uint64(len(out)))
	return out
}

// CompressV3 compresses an uncompressed version-3 binary (BuildV2's) with
// zstd or zlib, as newer LLVM writes it.
func CompressV3(raw []byte, useZstd bool) []byte {
	var body bytes.Buffer
	if useZstd {
		zw, _ := zstd.NewWriter(&body)
		zw.Write(raw[40:])
		zw.Close()
	} else {
		zw := zlib.NewWriter(&body)
		zw.Write(raw[40:])
		zw.Close()
	}
	out := append(bytes.Clone(raw[:40]), body.Bytes()...)
	binary.LittleEndian.PutUint64(out[8:], uint64(len(out)))
	binary.LittleEndian.PutUint64(out[32:], uint64(len(raw)))
	return append(out, make([]byte, int(alignUp(int64(len(out))))-len(out))...)
}
