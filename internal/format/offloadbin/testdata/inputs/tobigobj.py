#!/usr/bin/env python3
import struct, sys
"""Rewrites a COFF object (no optional header) as a COFF "bigobj": the
56-byte header with a 32-bit section count and 20-byte symbol records.
omp_big.obj = tobigobj.py omp_win.obj omp_big.obj; LLVM 22 reads it like
the original (llvm-readobj, llvm-offload-binary)."""
d = open(sys.argv[1], 'rb').read()
mach, nsec, ts, symptr, nsym, opt, ch = struct.unpack_from('<HHIIIHH', d, 0)
assert opt == 0
shift = 56 - 20
BigObjMagic = bytes([0xc7,0xa1,0xba,0xd1,0xee,0xba,0xa9,0x4b,0xaf,0x20,0xfa,0xf6,0x6a,0xa4,0xdc,0xb8])
# symbol table grows by 2 bytes per record
def fix(p):
    if p == 0: return 0
    if p >= symptr: raise Exception('pointer after symtab')
    return p + shift
out = bytearray(struct.pack('<HHHHI', 0, 0xffff, 2, mach, ts) + BigObjMagic + bytes(16) + struct.pack('<III', nsec, symptr + shift, nsym))
for i in range(nsec):
    s = bytearray(d[20+40*i:60+40*i])
    name, vs, va, rsz, praw, prel, pln, nrel, nln, chs = struct.unpack('<8sIIIIIIHHI', s)
    out += struct.pack('<8sIIIIIIHHI', name, vs, va, rsz, fix(praw), fix(prel), fix(pln), nrel, nln, chs)
out += d[20+40*nsec:symptr]
i = 0
while i < nsym:
    r = d[symptr+18*i: symptr+18*i+18]
    name, val, secn, typ, cls, naux = struct.unpack('<8sIhHBB', r)
    out += struct.pack('<8sIiHBB', name, val, secn, typ, cls, naux)
    for j in range(naux):
        out += d[symptr+18*(i+1+j): symptr+18*(i+2+j)] + b'\0\0'
    i += 1 + naux
out += d[symptr+18*nsym:]
open(sys.argv[2], 'wb').write(out)
