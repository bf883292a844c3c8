"""dlk.comm: libdlk_comm's all-reduces of float32 arrays/tensors over MPI (run under mpirun).

    comm = dlk.comm.Communicator()                 # MPI_COMM_WORLD, MPI initialised by dlk
    buf = dlk.comm.Buffer(comm, grad.numel(), algorithm="int8", average=True)
    buf.allreduce(grad)                            # in place; residuals kept in buf
    req = buf.iallreduce(grad); ...; req.wait()    # overlapped (MPI_THREAD_MULTIPLE)

Close order: a Communicator closes its buffers and synchronizers first; every communicator
still open is closed at interpreter exit (collective: every rank exits the same way).
"""
import atexit
import ctypes as C
import weakref

import numpy as np

from . import _c, _library
from ._errors import Error
from ._tensors import float32_vector

_open = []  # communicators, in creation order


def _lib():
    return _library.load("dlk_comm")


def _check(lib, status):
    if status != 0:
        name = lib.dlk_comm_status_name(status).decode()
        raise Error(lib.dlk_comm_last_error().decode() or name, name)


def _report(lib, r):
    d = _c.struct_to_dict(r)
    d["algorithm"] = lib.dlk_comm_algorithm_name(r.algorithm).decode()
    return d


def config(algorithm="default", *, average=False, block_size=0, stochastic_rounding=False,
           seed=0, topk_fraction=None, topk_exact=False, warmup_steps=0, min_compress_bytes=0):
    """A dlk_comm_config: how a buffer is all-reduced (see dlk_comm.h)."""
    if algorithm not in _c.COMM_ALGORITHM:
        raise ValueError(f"dlk.comm: unknown algorithm {algorithm!r}; one of "
                         f"{', '.join(_c.COMM_ALGORITHM)}")
    lib = _lib()
    cfg = _c.CommConfig()
    _check(lib, lib.dlk_comm_config_init(C.byref(cfg)))
    cfg.algorithm = _c.COMM_ALGORITHM[algorithm]
    cfg.average = int(bool(average))
    cfg.block_size = block_size
    cfg.stochastic_rounding = int(bool(stochastic_rounding))
    cfg.seed = seed
    if topk_fraction is not None:
        cfg.topk_fraction = topk_fraction
    cfg.topk_exact = int(bool(topk_exact))
    cfg.warmup_steps = warmup_steps
    cfg.min_compress_bytes = min_compress_bytes
    return cfg


class Communicator:
    """dlk_comm_create_world: every rank of MPI_COMM_WORLD (collective)."""

    def __init__(self):
        self._lib = _lib()
        h = C.c_void_p()
        _check(self._lib, self._lib.dlk_comm_create_world(C.byref(h)))
        self._handle = h
        self._children = []
        p = _c.CommProperties()
        _check(self._lib, self._lib.dlk_comm_get_properties(h, C.byref(p)))
        self.rank, self.size = p.rank, p.size
        self.background = bool(p.background)
        self.thread_level = p.thread_level
        _open.append(weakref.ref(self))

    def _h(self):
        if self._handle is None:
            raise Error("dlk.comm.Communicator: closed", "invalid_argument")
        return self._handle

    def _adopt(self, child):
        self._children.append(weakref.ref(child))

    def close(self):
        """Closes the buffers and synchronizers made on it, then the communicator
        (collective)."""
        if self._handle is None:
            return
        for ref in reversed(self._children):
            child = ref()
            if child is not None:
                child.close()
        self._children = []
        h, self._handle = self._handle, None
        _check(self._lib, self._lib.dlk_comm_destroy(h))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"dlk.comm.Communicator(rank={self.rank}, size={self.size})"


_world = None


def world():
    """The process's shared Communicator over MPI_COMM_WORLD, made on first use. (dlk
    finalizes MPI when the last world communicator closes, so one shared is the safe
    default for libraries.)"""
    global _world
    if _world is None or _world._handle is None:
        _world = Communicator()
    return _world


class Request:
    """A started all-reduce; wait() returns its report."""

    def __init__(self, buffer, handle, data):
        self._buffer, self._handle, self._data = buffer, handle, data

    def test(self):
        done = C.c_int()
        lib = self._buffer._lib
        _check(lib, lib.dlk_comm_test(self._handle, C.byref(done)))
        return bool(done.value)

    def wait(self):
        if self._handle is None:
            raise Error("dlk.comm.Request.wait: already waited for", "invalid_argument")
        lib = self._buffer._lib
        r = _c.CommReport()
        h, self._handle = self._handle, None
        self._buffer._pending = None
        _check(lib, lib.dlk_comm_wait(h, C.byref(r)))
        self._data = None
        return _report(lib, r)


class Buffer:
    """A buffer of `count` floats all-reduced the same way every call; it keeps the
    residuals of the compressed algorithms. Options: see config()."""

    def __init__(self, comm, count, algorithm="default", **options):
        self._lib = _lib()
        self.comm, self.count, self.algorithm = comm, int(count), algorithm
        cfg = config(algorithm, **options)
        h = C.c_void_p()
        _check(self._lib, self._lib.dlk_comm_buffer_create(comm._h(), self.count, C.byref(cfg),
                                                           C.byref(h)))
        self._handle = h
        self._pending = None
        comm._adopt(self)

    def _data(self, data, call):
        v, n = float32_vector(data, call, "data", writable=True)
        if n != self.count:
            raise ValueError(f"{call}: 'data' has {n} elements; the buffer was made for "
                             f"{self.count}")
        return v

    def _h(self):
        if self._handle is None:
            raise Error("dlk.comm.Buffer: closed", "invalid_argument")
        return self._handle

    def allreduce(self, data):
        """Collective: data (float32, count elements) becomes the sum (average) over the
        ranks, in place. Returns the report as a dict."""
        v = self._data(data, "dlk.comm.Buffer.allreduce")
        r = _c.CommReport()
        _check(self._lib, self._lib.dlk_comm_allreduce(self._h(), v.ptr, C.byref(r)))
        return _report(self._lib, r)

    def iallreduce(self, data):
        """Collective: starts the all-reduce of data in place; data must not be touched
        until the returned Request's wait()."""
        v = self._data(data, "dlk.comm.Buffer.iallreduce")
        h = C.c_void_p()
        _check(self._lib, self._lib.dlk_comm_iallreduce(self._h(), v.ptr, C.byref(h)))
        self._pending = Request(self, h, data)
        return self._pending

    def reset_residuals(self):
        _check(self._lib, self._lib.dlk_comm_buffer_reset_residuals(self._h()))

    def state(self):
        """The buffer's state (residuals, call counter) as bytes, for a checkpoint."""
        size = C.c_size_t()
        _check(self._lib, self._lib.dlk_comm_buffer_state_size(self._h(), C.byref(size)))
        out = np.empty(size.value, dtype=np.uint8)
        _check(self._lib, self._lib.dlk_comm_buffer_save_state(self._h(), out.ctypes.data,
                                                               size.value))
        return out.tobytes()

    def load_state(self, state):
        """Restores state() of a buffer of the same count, algorithm, rank and rank count."""
        a = np.frombuffer(bytes(state), dtype=np.uint8)
        _check(self._lib, self._lib.dlk_comm_buffer_load_state(self._h(), a.ctypes.data,
                                                               a.size))

    def close(self):
        if self._handle is None:
            return
        if self._pending is not None:
            self._pending.wait()
        h, self._handle = self._handle, None
        _check(self._lib, self._lib.dlk_comm_buffer_destroy(h))


class Synchronizer:
    """Fuses gradients into buckets and all-reduces each as soon as it and those before it
    are ready: add() every gradient in backward order, commit(), then per step ready(i) for
    each and wait(). The gradients must stay where they are (same memory) until close()."""

    def __init__(self, comm, algorithm="default", bucket_bytes=0, **options):
        self._lib = _lib()
        self.comm = comm
        cfg = config(algorithm, **options)
        h = C.c_void_p()
        _check(self._lib, self._lib.dlk_comm_sync_create(comm._h(), C.byref(cfg), bucket_bytes,
                                                         C.byref(h)))
        self._handle = h
        self._tensors = []
        comm._adopt(self)

    def _h(self):
        if self._handle is None:
            raise Error("dlk.comm.Synchronizer: closed", "invalid_argument")
        return self._handle

    def add(self, gradient):
        v, n = float32_vector(gradient, "dlk.comm.Synchronizer.add", "gradient",
                              writable=True)
        idx = C.c_uint32()
        _check(self._lib, self._lib.dlk_comm_sync_add(self._h(), v.ptr, n, C.byref(idx)))
        self._tensors.append(gradient)  # keeps the memory alive
        return idx.value

    def commit(self):
        _check(self._lib, self._lib.dlk_comm_sync_commit(self._h()))

    def bucket_count(self):
        n = C.c_uint32()
        _check(self._lib, self._lib.dlk_comm_sync_bucket_count(self._h(), C.byref(n)))
        return n.value

    def ready(self, index):
        _check(self._lib, self._lib.dlk_comm_sync_ready(self._h(), index))

    def wait(self):
        r = _c.CommSyncReport()
        _check(self._lib, self._lib.dlk_comm_sync_wait(self._h(), C.byref(r), None))
        return _c.struct_to_dict(r)

    def close(self):
        if self._handle is None:
            return
        h, self._handle = self._handle, None
        _check(self._lib, self._lib.dlk_comm_sync_destroy(h))


@atexit.register
def _close_all():
    for ref in reversed(_open):
        comm = ref()
        if comm is not None:
            try:
                comm.close()
            except Error:
                pass
