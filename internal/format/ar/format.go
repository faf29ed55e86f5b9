package ar

import "github.com/goffload/goffload/internal/format/magic"

// Byte layout of Unix archives. Every member starts with a 60-byte header of
// space-padded ASCII fields:
//
//	offset  size  field
//	     0    16  name
//	    16    12  date (decimal seconds)
//	    28     6  uid (decimal)
//	    34     6  gid (decimal)
//	    40     8  mode (octal)
//	    48    10  size (decimal bytes of data)
//	    58     2  terminator "`\n"
//
// Member data follows the header and is padded to an even offset with '\n'
// (the pad byte is not counted in the size).
const (
	magicGNU  = magic.ArchiveMagic     // "!<arch>\n": GNU/SysV and BSD archives
	magicThin = magic.ThinArchiveMagic // "!<thin>\n": thin archives, member data in other files
	magicLen  = 8

	headerSize = 60

	nameOff, nameLen    = 0, 16
	dateOff, dateLen    = 16, 12
	uidOff, uidLen      = 28, 6
	gidOff, gidLen      = 34, 6
	modeOff, modeLen    = 40, 8
	sizeOff, sizeLen    = 48, 10
	termOff, terminator = 58, "`\n"

	// Special member names.
	nameSymtab       = "/"         // GNU symbol table, 32-bit offsets
	nameSymtab64     = "/SYM64/"   // GNU symbol table, 64-bit offsets
	nameStrtab       = "//"        // GNU long-name table
	nameBSDSymdef    = "__.SYMDEF" // BSD symbol table
	nameBSDSymdefS   = "__.SYMDEF SORTED"
	nameBSDSymdef64  = "__.SYMDEF_64"
	nameBSDSymdef64S = "__.SYMDEF_64 SORTED"
	bsdLongPrefix    = "#1/" // BSD: "#1/<len>", the name is the first <len> data bytes

	// The GNU symbol table switches to /SYM64/ when a member header offset
	// does not fit in 32 bits.
	sym64Threshold = 1 << 32
)
