"""dlk.compress: libdlk_compress's gradient codecs on float32 numpy arrays / torch tensors.

    codec = dlk.compress.Codec("int8")            # onebit, topk, int8, int4, fp16, bf16
    msg = codec.encode(grad, residual=residual)   # residual updated in place (error feedback)
    out = dlk.compress.decode(msg)                # or decode_add(msg, accumulator)

A message is a numpy uint8 array holding the self-describing wire format
(docs/wire-format.md); decoders validate it before reading it.
"""
import ctypes as C

import numpy as np

from . import _c, _library
from ._errors import Error
from ._tensors import float32_vector

ROUNDING = {"nearest_even": 0, "stochastic": 1}


def _lib():
    return _library.load("dlk_compress")


def _check(lib, status):
    if status != 0:
        name = lib.dlk_compress_status_name(status).decode()
        raise Error(lib.dlk_compress_last_error().decode() or name, name)


class Codec:
    """One algorithm with its parameters (defaults: libdlk_compress's)."""

    def __init__(self, algorithm, *, block_size=None, rounding="nearest_even", seed=0, step=0,
                 rank=0, topk_count=0, topk_fraction=None, topk_exact=True):
        if algorithm not in _c.CODEC_ALGORITHM:
            raise ValueError(f"dlk.compress.Codec: unknown algorithm {algorithm!r}; one of "
                             f"{', '.join(_c.CODEC_ALGORITHM)}")
        if rounding not in ROUNDING:
            raise ValueError(f"dlk.compress.Codec: 'rounding' must be one of "
                             f"{', '.join(ROUNDING)}, not {rounding!r}")
        self._lib = _lib()
        p = _c.CodecParams()
        _check(self._lib, self._lib.dlk_compress_params_init(C.byref(p),
                                                             _c.CODEC_ALGORITHM[algorithm]))
        if block_size is not None:
            p.block_size = block_size
        p.rounding = ROUNDING[rounding]
        p.seed, p.step, p.rank = seed, step, rank
        p.topk_count = topk_count
        if topk_fraction is not None:
            p.topk_fraction = topk_fraction
        p.topk_selection = 0 if topk_exact else 1
        self.algorithm = algorithm
        self.params = p

    def max_message_size(self, count):
        out = C.c_size_t()
        _check(self._lib, self._lib.dlk_compress_max_message_size(C.byref(self.params), count,
                                                                  C.byref(out)))
        return out.value

    def encode(self, x, residual=None):
        """The message (numpy uint8) of float32 x; with residual (float32, x's size),
        error feedback: x + residual is encoded and residual keeps what the message lost."""
        call = "dlk.compress.Codec.encode"
        vx, n = float32_vector(x, call, "x")
        rptr = None
        if residual is not None:
            vr, nr = float32_vector(residual, call, "residual", writable=True)
            if nr != n:
                raise ValueError(f"{call}: 'residual' has {nr} elements, 'x' {n}")
            rptr = vr.ptr
        capacity = self.max_message_size(n)
        msg = np.empty(capacity, dtype=np.uint8)
        size = C.c_size_t()
        _check(self._lib, self._lib.dlk_compress_encode(C.byref(self.params), vx.ptr, rptr, n,
                                                        msg.ctypes.data, capacity,
                                                        C.byref(size)))
        return msg[:size.value]


def _message(msg, call):
    m = np.ascontiguousarray(np.frombuffer(msg, dtype=np.uint8) if isinstance(msg, (bytes,
                             bytearray)) else msg)
    if m.dtype != np.uint8 or m.ndim != 1:
        raise TypeError(f"{call}: 'message' must be bytes or a 1-D uint8 array")
    return m


def inspect(message):
    """What a message's header says: algorithm, format_version, element_count, block_size,
    payload_size, message_size."""
    lib = _lib()
    m = _message(message, "dlk.compress.inspect")
    info = _c.CodecMessageInfo()
    _check(lib, lib.dlk_compress_inspect(m.ctypes.data, m.size, C.byref(info)))
    d = _c.struct_to_dict(info)
    d["algorithm"] = lib.dlk_compress_algorithm_name(info.algorithm).decode()
    return d


def decode(message, out=None):
    """The float32 values of a message (a new numpy array unless out is given)."""
    lib = _lib()
    m = _message(message, "dlk.compress.decode")
    count = inspect(m)["element_count"]
    if out is None:
        out = np.empty(count, dtype=np.float32)
    vo, n = float32_vector(out, "dlk.compress.decode", "out", writable=True)
    _check(lib, lib.dlk_compress_decode(m.ctypes.data, m.size, vo.ptr, n))
    return out


def decode_add(message, accumulator):
    """accumulator += decode(message), in place."""
    lib = _lib()
    m = _message(message, "dlk.compress.decode_add")
    va, n = float32_vector(accumulator, "dlk.compress.decode_add", "accumulator", writable=True)
    _check(lib, lib.dlk_compress_decode_add(m.ctypes.data, m.size, va.ptr, n))
    return accumulator


def encode(x, algorithm, residual=None, **params):
    """Codec(algorithm, **params).encode(x, residual)."""
    return Codec(algorithm, **params).encode(x, residual)


def isa():
    """The SIMD tier the codecs run: avx512, avx2 or scalar."""
    lib = _lib()
    out = C.c_char_p()
    _check(lib, lib.dlk_compress_get_isa(C.byref(out)))
    return out.value.decode()
