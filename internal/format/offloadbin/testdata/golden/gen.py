#!/usr/bin/env python3
"""Writes cases.txt: one packaging case per line, "name<TAB>arg<TAB>arg...".
Run gen.sh afterwards to (re)make the golden .bin files with LLVM 22."""
import random

cases = [
    ("p1", ["--image=file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip"]),
    ("p2", ["--image=file=a.o,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip",
            "--image=file=b.bc,triple=nvptx64-nvidia-cuda,arch=sm_70,kind=openmp"]),
    ("specials", ["--image=file=a.o,triple=x,noeq,=emptykey,weird=a=b,arch=gfx906,arch2=906"]),
    ("repeats", ["--image=file=a.o,triple=x,arch=g1,arch=g2,file=b.bc,kind=hip,kind=cuda"]),
    ("collide1", ["--image=file=a.o,feature=x,=y"]),
    ("collide2", ["--image=file=a.o,=y,feature=x"]),
    ("nostrings", ["--image=file=a.o"]),
    ("emptyimg", ["--image=file=empty.o,triple=t"]),
    ("emptykv", ["--image=file=a.o,,=,k=,=v,,"]),
    ("bcmagic", ["--image=file=bitcode.o,kind=sycl,arch=a,triple=t"]),
    ("nv", ["--image=file=r.cubin,triple=nvptx64-nvidia-cuda,arch=sm_70,kind=cuda,feature=+ptx80"]),
    ("kinds", ["--image=file=a.o,kind=openmp", "--image=file=a.o,kind=cuda", "--image=file=a.o,kind=hip",
               "--image=file=a.o,kind=sycl", "--image=file=a.o,kind=none", "--image=file=a.o,kind=HIP"]),
    ("multifile", ["--image=file=a.o,file=b.bc,file=r.cubin,triple=t,arch=x,kind=hip"]),
    ("tails", ["--image=file=a.o,gfx906=906,06=6,x906=gfx906,6=,a=aa,aa=aaa,aaa=a"]),
    # A bare "file" (no '=') names no file: that --image adds nothing.
    ("barefile", ["--image=triple=x,file", "--image=file=a.o,triple=y", "--image=file,kind=hip"]),
]

rng = random.Random(22)
alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+:.!#%~"
def rand_str(lo, hi):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))

for n in [10, 47, 48, 49, 95, 96, 97, 140, 200]:
    pairs = ["file=a.o"]
    for i in range(n):
        k = rand_str(0, 70 if i % 7 == 0 else 12)
        v = rand_str(0, 90 if i % 5 == 0 else 10)
        pairs.append(k + "=" + v)
        if i % 11 == 0:
            pairs.append(k + "=" + rand_str(0, 4))  # repeated key
    cases.append(("rand%d" % n, ["--image=" + ",".join(pairs)]))

with open("cases.txt", "w") as f:
    for name, args in cases:
        f.write(name + "\t" + "\t".join(args) + "\n")
