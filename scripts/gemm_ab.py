#!/usr/bin/env python3
"""A/B of two builds of libdlk on dlk_gemm, in one process: the speed of a change.

  scripts/gemm_ab.py [--threads 1] [--dtype f32] [--rounds 15] [--seconds 0.05] \\
      OLD_LIB_DIR NEW_LIB_DIR M N K [M N K ...]

Loads libdlk.so.0 from each directory (copies of libdlk.so* from the two builds) side by
side into this process (RTLD_LOCAL | RTLD_DEEPBIND: each copy keeps its own symbols) on the
cpu backend, and for each row-major M x N x K product (C = A B, A, B and C of the dtype;
int8: u8 A x s8 B -> s32 C) times the two in turn, `--seconds` of back-to-back calls a turn,
the order swapped every round: a drift of the machine, or its second vCPU taken away for a
second, falls on both within a tenth of a second, where `dlk-perf gemm` runs minutes apart
moved by a fifth. Prints a
line per shape: the median over the rounds of old time / new time (> 1: the new build is
faster) and the range of the middle rounds."""
import argparse
import ctypes
import os
import statistics
import sys
import time

# A's, B's and C's dlk_dtype, A's and B's bytes, C's bytes (int8: u8 A x s8 B -> s32 C)
DTYPES = {'f32': ((1, 1, 1), 4, 4), 'bf16': ((3, 3, 3), 2, 2), 'int8': ((5, 4, 6), 1, 4)}


class GemmDesc(ctypes.Structure):
    """dlk_gemm_desc (include/dlk/dlk.h)."""
    _fields_ = [('struct_size', ctypes.c_size_t), ('layout', ctypes.c_int),
                ('trans_a', ctypes.c_int), ('trans_b', ctypes.c_int),
                ('m', ctypes.c_int64), ('n', ctypes.c_int64), ('k', ctypes.c_int64),
                ('a_type', ctypes.c_int), ('b_type', ctypes.c_int), ('c_type', ctypes.c_int),
                ('lda', ctypes.c_int64), ('ldb', ctypes.c_int64), ('ldc', ctypes.c_int64),
                ('batch_count', ctypes.c_int64), ('stride_a', ctypes.c_int64),
                ('stride_b', ctypes.c_int64), ('stride_c', ctypes.c_int64),
                ('alpha', ctypes.c_float), ('beta', ctypes.c_float),
                ('a_zero_point', ctypes.c_int32), ('c_zero_point', ctypes.c_int32),
                ('scale_mode', ctypes.c_int), ('scales', ctypes.c_void_p)]


class Build:
    """One copy of libdlk with a cpu context and its operands for the current shape."""

    def __init__(self, lib_dir):
        self.lib = ctypes.CDLL(os.path.join(lib_dir, 'libdlk.so.0'),
                               mode=os.RTLD_LOCAL | os.RTLD_DEEPBIND)
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.dlk_context_create(ctypes.byref(self.ctx), None), 'context')
        self.buffers = []

    @staticmethod
    def check(status, what):
        if status != 0:
            sys.exit(f'gemm_ab: {what} failed with status {status}')

    def prepare(self, dtype, m, n, k):
        for p in self.buffers:
            self.lib.dlk_free(self.ctx, p)
        codes, size, c_size = DTYPES[dtype]
        self.buffers = []
        for count, size_of, fill in ((m * k, size, 0x3F80), (k * n, size, 0x3F00),
                                     (m * n, c_size, 0)):
            p = ctypes.c_void_p()
            bytes_ = count * size_of
            self.check(self.lib.dlk_malloc(self.ctx, ctypes.c_size_t(bytes_), ctypes.byref(p)),
                       'dlk_malloc')
            # bf16 1.0 and 0.5 (read as f32, 0x3F803F80 and 0x3F003F00: about 1.0 and 0.5;
            # as int8, 0x80 and 0x3F, 0x00 and 0x3F)
            ctypes.memmove(p, fill.to_bytes(2, 'little') * (bytes_ // 2 + 1), bytes_)
            self.buffers.append(p)
        self.desc = GemmDesc()
        self.lib.dlk_gemm_desc_init_sized(ctypes.byref(self.desc),
                                          ctypes.c_size_t(ctypes.sizeof(GemmDesc)), *codes,
                                          ctypes.c_int64(m), ctypes.c_int64(n),
                                          ctypes.c_int64(k))

    def seconds_per_call(self, seconds):
        a, b, c = self.buffers
        calls, start = 0, time.perf_counter()
        while True:
            self.check(self.lib.dlk_gemm(self.ctx, ctypes.byref(self.desc), a, b, c), 'dlk_gemm')
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return elapsed / calls


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument('--threads', type=int, default=1)
    parser.add_argument('--dtype', choices=sorted(DTYPES), default='f32')
    parser.add_argument('--rounds', type=int, default=15)
    parser.add_argument('--seconds', type=float, default=0.05)
    parser.add_argument('old')
    parser.add_argument('new')
    parser.add_argument('shape', type=int, nargs='+', help='M N K, repeated')
    opts = parser.parse_args()
    if len(opts.shape) % 3 != 0:
        sys.exit('gemm_ab: shapes come as M N K')
    os.environ.update(DLK_BACKEND='cpu', DLK_NUM_THREADS=str(opts.threads))
    builds = (Build(opts.old), Build(opts.new))
    for m, n, k in zip(*[iter(opts.shape)] * 3):
        for build in builds:
            build.prepare(opts.dtype, m, n, k)
        ratios = []
        for r in range(opts.rounds):
            times = [0.0, 0.0]
            for b in ((0, 1) if r % 2 == 0 else (1, 0)):
                times[b] = builds[b].seconds_per_call(opts.seconds)
            ratios.append(times[0] / times[1])
        ratios.sort()
        middle = ratios[len(ratios) // 4: len(ratios) - len(ratios) // 4] or ratios
        print(f"{opts.dtype} {m}x{n}x{k} t={opts.threads}  {statistics.median(ratios):.2f}x  "
              f"[{middle[0]:.2f}-{middle[-1]:.2f}]")


if __name__ == '__main__':
    main()
