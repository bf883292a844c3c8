"""A DDP communication hook that all-reduces each bucket through libdlk_comm.

    state = dlk.torch.AllreduceHookState(algorithm="int8")
    ddp_model.register_comm_hook(state, dlk.torch.allreduce_hook)

Each bucket gets a dlk_comm buffer of its own, which keeps that bucket's residuals (error
feedback) from step to step; the result is the average over the ranks (dlk's average flag).
The all-reduces run on dlk's background thread (MPI_THREAD_MULTIPLE) while backward goes
on: the hook starts each bucket's all-reduce and returns a future, and the last bucket's
call waits for them all, in order, in the same thread (one caller thread per communicator).

Residuals belong to elements, so a buffer is tied to the parameters of its bucket, in a
fixed order: each parameter is numbered the first time the hook sees it (the same numbers in
every process of the same model), and a buffer is keyed by its bucket's parameter numbers in
the order DDP laid them out when the buffer was made. DDP rebuilds its buckets after the first
iteration, in the order gradients arrived: a bucket that comes back in another order gets a
new buffer in that order (one step's residuals dropped; `rebuilds` counts them) rather than
being gathered into the old order and scattered back every step after. A buffer restored
from a checkpoint is kept instead: a bucket whose parameters come in another order than the
restored buffer's (a resumed run's first iteration, before DDP's rebuild) is gathered into
that order before the all-reduce and scattered back after (`reordered` counts them). A
regrouping (a bucket of other parameters) also gets new buffers. state_dict() holds every
buffer's state (residuals, call counter) by key, and load_state_dict() restores each when
its bucket appears, so a resumed run continues bit for bit.
"""
import time

import torch

from .. import comm as _comm


class AllreduceHookState:
    """What the hook keeps between steps. algorithm: any of dlk.comm's (native, ring, ps,
    onebit, topk, int8, int4, fp16, bf16, auto); further options as dlk.comm.config().
    communicator: a dlk.comm.Communicator (default: dlk.comm.world())."""

    def __init__(self, algorithm="native", communicator=None, **options):
        self.comm = communicator if communicator is not None else _comm.world()
        self.algorithm = algorithm
        self.options = dict(options, average=True)
        _comm.config(algorithm, **self.options)  # an unknown algorithm fails here
        self.buffers = {}      # tuple of parameter numbers -> dlk.comm.Buffer
        self.by_index = {}     # DDP's bucket index -> the key its bucket has now
        self.pending = []      # (request, future, bucket tensor, gathered tensor, order)
        self.reports = []      # the last step's per-bucket reports
        self.last_wait_seconds = 0.0  # the last step's wait in the last bucket's hook: the
                                      # all-reduce time backward did not hide
        self.rebuilds = 0      # buffers dropped because DDP regrouped or reordered a bucket
        self.reordered = 0     # bucket all-reduces gathered into their buffer's order
        self._numbers = {}     # id(parameter) -> its number
        self._loaded = {}      # key -> state bytes waiting for its bucket
        self._calls = {}       # key -> all-reduces its buffer ran (2 once restored)

    def _layout(self, bucket):
        """The bucket's parameter numbers in DDP's order, and their sizes."""
        nums, sizes = [], []
        for p in bucket.parameters():
            n = self._numbers.get(id(p))
            if n is None:
                n = self._numbers[id(p)] = len(self._numbers)
            nums.append(n)
            sizes.append(p.numel())
        return tuple(nums), sizes

    def _buffer(self, index, nums, sizes):
        """(key, buffer, order) for a bucket of parameters nums (DDP's order): the buffer that
        holds their residuals, keyed by the parameter order it was made in, and the
        permutation from DDP's order to that one (None when they are the same)."""
        old = self.by_index.get(index)
        if old is not None and sorted(old) != sorted(nums) and old in self.buffers:
            self.buffers.pop(old).close()  # DDP regrouped the parameters
            self.rebuilds += 1
        key = nums
        if nums not in self.buffers and nums not in self._loaded:
            same = next((k for k in list(self.buffers) + list(self._loaded)
                         if len(k) == len(nums) and sorted(k) == sorted(nums)), None)
            if same is not None and same in self.buffers and self._calls[same] <= 1:
                # DDP's rebuild after its first iteration: start over in the new order (one
                # step's residuals lost) rather than gather and scatter every step after.
                self.buffers.pop(same).close()
                self.rebuilds += 1
            elif same is not None:
                key = same  # residuals made (or restored) in another order: gather into it
        self.by_index[index] = key
        buf = self.buffers.get(key)
        if buf is None:
            buf = _comm.Buffer(self.comm, sum(sizes), self.algorithm, **self.options)
            self.buffers[key] = buf
            saved = self._loaded.pop(key, None)
            self._calls[key] = 0
            if saved is not None:
                buf.load_state(saved)
                self._calls[key] = 2  # restored: its residuals are worth keeping
        self._calls[key] += 1
        if key == nums:
            return key, buf, None
        offsets = [0]
        for n in sizes:
            offsets.append(offsets[-1] + n)
        where = {n: (offsets[i], sizes[i]) for i, n in enumerate(nums)}
        return key, buf, [where[n] for n in key]

    def state_dict(self):
        """{'algorithm', 'buffers': {key: state bytes}}; call it between steps."""
        buffers = dict(self._loaded)
        buffers.update({k: b.state() for k, b in self.buffers.items()})
        return {"algorithm": self.algorithm, "buffers": buffers}

    def load_state_dict(self, sd):
        if sd.get("algorithm") != self.algorithm:
            raise ValueError(f"dlk.torch.AllreduceHookState.load_state_dict: the state is of "
                             f"algorithm {sd.get('algorithm')!r}, this hook runs "
                             f"{self.algorithm!r}")
        self._loaded = {}
        for key, state in sd["buffers"].items():
            buf = self.buffers.get(key)
            if buf is not None:
                buf.load_state(state)
                self._calls[key] = max(self._calls[key], 2)
            else:
                self._loaded[key] = state

    def close(self):
        for b in self.buffers.values():
            b.close()
        self.buffers = {}


def allreduce_hook(state, bucket):
    """DDP communication hook (register_comm_hook(state, allreduce_hook))."""
    tensor = bucket.buffer()
    if tensor.dtype != torch.float32 or tensor.device.type != "cpu":
        raise TypeError(f"dlk.torch.allreduce_hook: buckets must be float32 CPU tensors, got "
                        f"{tensor.dtype} on {tensor.device}")
    _, buf, order = state._buffer(bucket.index(), *state._layout(bucket))
    data = tensor
    if order is not None:
        state.reordered += 1
        data = torch.cat([tensor[o:o + n] for o, n in order])
    fut = torch.futures.Future()
    state.pending.append((buf.iallreduce(data), fut, tensor, data, order))
    if bucket.is_last():
        pending, state.pending = state.pending, []
        t0 = time.perf_counter()
        state.reports = [req.wait() for req, *_ in pending]
        state.last_wait_seconds = time.perf_counter() - t0
        for _, f, t, d, o in pending:
            if o is not None:
                pos = 0
                for off, n in o:
                    t[off:off + n].copy_(d[pos:pos + n])
                    pos += n
            f.set_result(t)
    return fut
