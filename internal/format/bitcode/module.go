package bitcode

import (
	"bytes"
	"fmt"

	"github.com/goffload/goffload/internal/format/bitcode/internal/bitstream"
)

// MODULE_BLOCK record codes.
const (
	modVersion     = 1
	modDataLayout  = 3
	modAsm         = 4
	modSectionName = 5
	modGlobalVar   = 7
	modFunction    = 8
	modAlias       = 14
	modIFunc       = 18
)

// TYPE_BLOCK record codes.
const (
	typeNumEntry   = 1
	typeInteger    = 7
	typeArray      = 11
	typeStructName = 19
)

// CONSTANTS_BLOCK record codes.
const (
	cstSetType = 1
	cstString  = 8
	cstCString = 9
	cstData    = 22
)

// METADATA_BLOCK record codes.
const (
	mdStringOld    = 1
	mdValue        = 2
	mdNode         = 3
	mdName         = 4
	mdDistinctNode = 5
	mdKind         = 6
	mdNamedNode    = 10
	mdAttachment   = 11
	mdStrings      = 35
	mdGlobalDecl   = 36
	mdIndexOffset  = 38
	mdIndex        = 39
	mdLastKnown    = 49 // the highest metadata record code LLVM 22 reads
)

// Linkage codes of global value records.
const (
	linkInternal       = 3
	linkAvailableExtrn = 12
)

type gvKind uint8

const (
	gvVar gvKind = iota
	gvFunc
	gvAlias
	gvIFunc
)

// globalValue is one GLOBALVAR, FUNCTION, ALIAS or IFUNC record.
type globalValue struct {
	kind    gvKind
	name    string
	linkage uint64
	decl    bool   // a function prototype, or a variable without initializer
	section uint64 // 1-based index into the SECTIONNAME records, 0 for none
	cc      uint64 // calling convention of a function
	init    uint64 // initializer value ID + 1 of a variable, 0 for none
}

// constant is a module-level constant; the elements are kept for data
// arrays only: chars for STRING and CSTRING, ops for DATA.
type constant struct {
	typ   uint64
	code  uint64
	chars []byte
	ops   []uint64
}

// value is one entry of the module's value table: a global or a constant.
type value struct {
	global bool
	idx    int
}

type mdKindTag uint8

const (
	mdOther mdKindTag = iota
	mdIsString
	mdIsValue
	mdIsNode
)

// mdEntry is one metadata ID.
type mdEntry struct {
	kind mdKindTag
	str  string   // mdIsString
	val  uint64   // mdIsValue: value ID
	ops  []uint64 // mdIsNode: operand metadata IDs + 1 (0 for null)
}

type typeEntry struct {
	code uint64
	ops  []uint64
}

// moduleInfo is what parseModule learns from a MODULE block.
type moduleInfo struct {
	version    uint64
	dataLayout string
	asm        string
	globals    []globalValue
	sections   []string
	// Filled only when parsing fully:
	types     []typeEntry
	values    []value
	constants []constant
	md        []mdEntry
	embedded  []uint64 // operands of the named metadata llvm.embedded.objects
}

// parseModule reads the module at index i. With full unset it reads only the
// module records; otherwise also the types, module constants and metadata.
func (f *file) parseModule(i int, full bool) (*moduleInfo, error) {
	m := f.mods[i]
	c := bitstream.NewCursor(f.r, f.off, f.size)
	if err := c.JumpTo(m.pos); err != nil {
		return nil, err
	}
	if err := c.EnterBlock(blockModule); err != nil {
		return nil, err
	}
	// Embedded images are long strings: keep them as bytes, not uint64s.
	c.NarrowRecords(blockConstants, cstString, cstCString)
	mi := &moduleInfo{}
	for {
		e, err := c.Advance()
		if err != nil {
			return nil, err
		}
		switch e.Kind {
		case bitstream.KindEndBlock:
			return mi, nil
		case bitstream.KindSubBlock:
			var err error
			switch {
			case e.ID == bitstream.BlockInfoID:
				err = c.ReadBlockInfoBlock()
			case full && e.ID == blockType:
				err = mi.readTypes(c)
			case full && e.ID == blockConstants:
				err = mi.readConstants(c)
			case full && e.ID == blockMetadata:
				err = mi.readMetadata(c)
			default:
				err = c.SkipBlock()
			}
			if err != nil {
				return nil, err
			}
		case bitstream.KindRecord:
			start := c.AbsBit(c.Pos())
			rec, err := c.ReadRecord(e.ID)
			if err != nil {
				return nil, err
			}
			if err := mi.moduleRecord(rec, m.strtab, start); err != nil {
				return nil, err
			}
		}
	}
}

func chars(ops []uint64) string {
	b := make([]byte, len(ops))
	for i, v := range ops {
		b[i] = byte(v)
	}
	return string(b)
}

func (mi *moduleInfo) moduleRecord(rec bitstream.Record, strtab []byte, bit int64) error {
	ops := rec.Ops
	op := func(i int) uint64 {
		if i < len(ops) {
			return ops[i]
		}
		return 0
	}
	var g globalValue
	switch rec.Code {
	case modVersion:
		mi.version = op(0)
		return nil
	case modDataLayout:
		mi.dataLayout = chars(ops)
		return nil
	case modAsm:
		mi.asm = chars(ops)
		return nil
	case modSectionName:
		mi.sections = append(mi.sections, chars(ops))
		return nil
	case modGlobalVar:
		// [strtab offset, size, type, isconst|explicit type, initid, linkage,
		//  alignment, section, ...]
		if len(ops) < 8 {
			return errAt(bit/8, "GLOBALVAR record with %d operands", len(ops))
		}
		g = globalValue{kind: gvVar, init: ops[4], linkage: ops[5], section: ops[7]}
		g.decl = g.init == 0
	case modFunction:
		// [strtab offset, size, type, callingconv, isproto, linkage, ...]
		if len(ops) < 8 {
			return errAt(bit/8, "FUNCTION record with %d operands", len(ops))
		}
		g = globalValue{kind: gvFunc, cc: ops[3], decl: ops[4] != 0, linkage: ops[5]}
		if len(ops) > 8 {
			g.section = ops[8]
		}
	case modAlias, modIFunc:
		// [strtab offset, size, type, addrspace, aliasee/resolver, linkage, ...]
		if len(ops) < 6 {
			return errAt(bit/8, "ALIAS or IFUNC record with %d operands", len(ops))
		}
		g = globalValue{kind: gvAlias, linkage: ops[5]}
		if rec.Code == modIFunc {
			g.kind = gvIFunc
		}
	default:
		return nil
	}
	if mi.version < 2 {
		return unsupportedAt(bit/8, "bitcode module version %d keeps names in a value symbol table, which is not supported", mi.version)
	}
	off, n := ops[0], ops[1]
	if off > uint64(len(strtab)) || n > uint64(len(strtab))-off {
		return errAt(bit/8, "global value name (offset %d, size %d) outside the %d-byte string table", off, n, len(strtab))
	}
	g.name = string(strtab[off : off+n])
	mi.globals = append(mi.globals, g)
	mi.values = append(mi.values, value{global: true, idx: len(mi.globals) - 1})
	return nil
}

// readBlock runs fn on every record of the block whose ID Advance just
// returned, skipping nested blocks by their length, as LLVM's
// advanceSkippingSubblocks does. With a nil fn each record is read past
// (SkipRecord), not kept.
func readBlock(c *bitstream.Cursor, id uint64, fn func(rec bitstream.Record, bit int64) error) error {
	if err := c.EnterBlock(id); err != nil {
		return err
	}
	for {
		e, err := c.Advance()
		if err != nil {
			return err
		}
		switch e.Kind {
		case bitstream.KindEndBlock:
			return nil
		case bitstream.KindSubBlock:
			if err := c.SkipBlock(); err != nil {
				return err
			}
		case bitstream.KindRecord:
			if fn == nil {
				if err := c.SkipRecord(e.ID); err != nil {
					return err
				}
				continue
			}
			bit := c.AbsBit(c.Pos())
			rec, err := c.ReadRecord(e.ID)
			if err != nil {
				return err
			}
			if err := fn(rec, bit); err != nil {
				return err
			}
		}
	}
}

func (mi *moduleInfo) readTypes(c *bitstream.Cursor) error {
	return readBlock(c, blockType, func(rec bitstream.Record, bit int64) error {
		switch rec.Code {
		case typeNumEntry, typeStructName:
			return nil
		case typeArray, typeVector, typeInteger:
			mi.types = append(mi.types, typeEntry{code: rec.Code, ops: rec.Ops})
		default:
			mi.types = append(mi.types, typeEntry{code: rec.Code})
		}
		return nil
	})
}

func (mi *moduleInfo) readConstants(c *bitstream.Cursor) error {
	var cur uint64
	return readBlock(c, blockConstants, func(rec bitstream.Record, bit int64) error {
		if rec.Code == cstSetType {
			if len(rec.Ops) < 1 {
				return errAt(bit/8, "SETTYPE record without a type")
			}
			cur = rec.Ops[0]
			return nil
		}
		k := constant{typ: cur, code: rec.Code}
		switch rec.Code {
		case cstString, cstCString:
			k.chars = rec.Bytes
		case cstData:
			k.ops = rec.Ops
		}
		mi.constants = append(mi.constants, k)
		mi.values = append(mi.values, value{idx: len(mi.constants) - 1})
		return nil
	})
}

// definesMetadata reports whether a METADATA_BLOCK record code gives one
// metadata ID (METADATA_STRINGS gives several and is handled apart).
func definesMetadata(code uint64) bool {
	switch code {
	case mdName, mdKind, mdNamedNode, mdAttachment, mdGlobalDecl, mdIndexOffset, mdIndex:
		return false
	}
	return code >= 1 && code <= mdLastKnown
}

func (mi *moduleInfo) readMetadata(c *bitstream.Cursor) error {
	var name string
	haveName := false
	return readBlock(c, blockMetadata, func(rec bitstream.Record, bit int64) error {
		switch rec.Code {
		case mdStrings:
			return mi.readMDStrings(rec, bit)
		case mdName:
			name, haveName = chars(rec.Ops), true
			return nil
		case mdNamedNode:
			if !haveName {
				return errAt(bit/8, "METADATA_NAMED_NODE without a METADATA_NAME before it")
			}
			if name == "llvm.embedded.objects" {
				mi.embedded = append(mi.embedded, rec.Ops...)
			}
			haveName = false
			return nil
		case mdStringOld:
			mi.md = append(mi.md, mdEntry{kind: mdIsString, str: chars(rec.Ops)})
			return nil
		case mdValue:
			if len(rec.Ops) != 2 {
				return errAt(bit/8, "METADATA_VALUE record with %d operands, want 2", len(rec.Ops))
			}
			mi.md = append(mi.md, mdEntry{kind: mdIsValue, val: rec.Ops[1]})
			return nil
		case mdNode, mdDistinctNode:
			mi.md = append(mi.md, mdEntry{kind: mdIsNode, ops: rec.Ops})
			return nil
		}
		if definesMetadata(rec.Code) {
			mi.md = append(mi.md, mdEntry{})
		}
		return nil
	})
}

// readMDStrings decodes METADATA_STRINGS: [count, offset-table size] and a
// blob holding a bitstream of count VBR6 lengths, then the characters.
func (mi *moduleInfo) readMDStrings(rec bitstream.Record, bit int64) error {
	if len(rec.Ops) != 2 || !rec.HasBlob {
		return errAt(bit/8, "malformed METADATA_STRINGS record")
	}
	count, offSize := rec.Ops[0], rec.Ops[1]
	if offSize > uint64(len(rec.Blob)) || count > offSize*8/6 {
		return errAt(bit/8, "METADATA_STRINGS: %d strings with a %d-byte length table in a %d-byte blob", count, offSize, len(rec.Blob))
	}
	lens := bitstream.NewCursor(bytes.NewReader(rec.Blob[:offSize]), 0, int64(offSize))
	chars := rec.Blob[offSize:]
	for i := uint64(0); i < count; i++ {
		n, err := lens.ReadVBR(6)
		if err != nil {
			return fmt.Errorf("bitcode: METADATA_STRINGS at byte %d: string %d length: %w", bit/8, i, err)
		}
		if n > uint64(len(chars)) {
			return errAt(bit/8, "METADATA_STRINGS: string %d of %d bytes runs past the blob", i, n)
		}
		mi.md = append(mi.md, mdEntry{kind: mdIsString, str: string(chars[:n])})
		chars = chars[n:]
	}
	return nil
}
