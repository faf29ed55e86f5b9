#!/usr/bin/env python3
# libzstd-seqs.py IN LEVEL OUT: the sequences libzstd's parser chooses for IN at
# LEVEL, with long-distance matching on as LLVM 22 calls it
# (ZSTD_generateSequences, through ctypes and the system's libzstd.so.1), as
# little-endian uint32 quadruples (offset, litLength, matchLength, rep); a
# block ends with matchLength 0. The block splitter is off: libzstd 1.5.4
# repeats sequences with it. zenc's TestLibzstdSequences codes them with our
# coder and compares them, block by block, with our own parse:
#   ZENC_SAMPLE=IN ZENC_LIBZSTD_SEQS=OUT ZENC_LEVELS=LEVEL go test -run TestLibzstdSequences -v \
#     ./internal/format/compress/internal/zenc
import ctypes, sys, struct
z = ctypes.CDLL("libzstd.so.1")
src = open(sys.argv[1], "rb").read()
level = int(sys.argv[2])
z.ZSTD_createCCtx.restype = ctypes.c_void_p
cctx = z.ZSTD_createCCtx()
z.ZSTD_CCtx_setParameter.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
z.ZSTD_CCtx_setParameter.restype = ctypes.c_size_t
r = z.ZSTD_CCtx_setParameter(cctx, 100, level); assert r < 1<<63, r
r = z.ZSTD_CCtx_setParameter(cctx, 160, 1); assert r < 1<<63, r
r = z.ZSTD_CCtx_setParameter(cctx, 1010, 2); assert r < 1<<63, r  # no block splitter: 1.5.4 repeats sequences with it
z.ZSTD_sequenceBound.restype = ctypes.c_size_t
z.ZSTD_sequenceBound.argtypes = [ctypes.c_size_t]
n = z.ZSTD_sequenceBound(len(src))
class Seq(ctypes.Structure):
    _fields_ = [("offset", ctypes.c_uint), ("litLength", ctypes.c_uint), ("matchLength", ctypes.c_uint), ("rep", ctypes.c_uint)]
arr = (Seq * n)()
z.ZSTD_generateSequences.restype = ctypes.c_size_t
z.ZSTD_generateSequences.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
got = z.ZSTD_generateSequences(cctx, arr, n, src, len(src))
assert got < (1 << 63), got
with open(sys.argv[3], "wb") as f:
    f.write(ctypes.string_at(arr, got * 16))
print(got, "sequences")
