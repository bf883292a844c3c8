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

With momentum= (or optimizer=, the user's torch.optim.SGD) the hook all-reduces each rank's
local momentum instead of its gradient and hands SGD a gradient that makes SGD's own momentum
buffer the all-reduced one (momentum_correction.py): error feedback on a compressed momentum,
which brings onebit and topk to DDP's accuracy (docs/python.md). The local momentum and the
last all-reduced one are kept per buffer, follow DDP's rebuild into the new order, and are in
state_dict().
"""
import time

import torch

from .. import comm as _comm
from .momentum_correction import MomentumCorrection, optimizer_momentum


class AllreduceHookState:
    """What the hook keeps between steps. algorithm: any of dlk.comm's (native, ring, ps,
    onebit, topk, int8, int4, fp16, bf16, auto); further options as dlk.comm.config().
    communicator: a dlk.comm.Communicator (default: dlk.comm.world()).
    Momentum correction: momentum=m (the momentum of the user's SGD, which must have
    dampening 0 and no Nesterov), or optimizer=the user's SGD (its momentum read, and
    checked, at every step)."""

    def __init__(self, algorithm="native", communicator=None, momentum=None, optimizer=None,
                 **options):
        self.comm = communicator if communicator is not None else _comm.world()
        self.algorithm = algorithm
        self.options = dict(options, average=True)
        _comm.config(algorithm, **self.options)  # an unknown algorithm fails here
        caller = "dlk.torch.AllreduceHookState"
        if optimizer is not None:
            found = optimizer_momentum(optimizer, caller)
            if momentum is not None and float(momentum) != found:
                raise ValueError(f"{caller}: momentum={momentum} but the optimizer's "
                                 f"momentum is {found}")
        elif momentum is not None and not 0 <= float(momentum) < 1:
            raise ValueError(f"{caller}: momentum={momentum}; must be in [0, 1)")
        self.momentum = None if momentum is None else float(momentum)
        self.optimizer = optimizer
        self.corrections = {}  # key -> MomentumCorrection (momentum correction only)
        self._loaded_momentum = {}
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

    @property
    def corrected(self):
        return self.momentum is not None or self.optimizer is not None

    def _momentum_now(self):
        if self.optimizer is not None:
            return optimizer_momentum(self.optimizer, "dlk.torch.allreduce_hook")
        return self.momentum

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
            self.corrections.pop(old, None)  # its momentum starts over (SGD's buffer keeps
            self.rebuilds += 1               # the old one, a difference that decays as m^t)
        key = nums
        if nums not in self.buffers and nums not in self._loaded:
            same = next((k for k in list(self.buffers) + list(self._loaded)
                         if len(k) == len(nums) and sorted(k) == sorted(nums)), None)
            if same is not None and same in self.buffers and self._calls[same] <= 1:
                # DDP's rebuild after its first iteration: start over in the new order (one
                # step's residuals lost) rather than gather and scatter every step after;
                # the momentum (a torch tensor here) is carried into the new order.
                self.buffers.pop(same).close()
                self.rebuilds += 1
                moved = self.corrections.pop(same, None)
                if moved is not None:
                    size_of = dict(zip(nums, sizes))
                    start, offset = {}, 0
                    for n in same:
                        start[n] = offset
                        offset += size_of[n]
                    self.corrections[nums] = moved.permuted([(start[n], size_of[n])
                                                           for n in nums])
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
            if self.corrected and key not in self.corrections:
                corr = self.corrections[key] = MomentumCorrection(sum(sizes))
                saved = self._loaded_momentum.pop(key, None)
                if saved is not None:
                    corr.load_state(saved, "dlk.torch.AllreduceHookState.load_state_dict")
        self._calls[key] += 1
        if key == nums:
            return key, buf, None
        offsets = [0]
        for n in sizes:
            offsets.append(offsets[-1] + n)
        where = {n: (offsets[i], sizes[i]) for i, n in enumerate(nums)}
        return key, buf, [where[n] for n in key]

    def state_dict(self):
        """{'algorithm', 'buffers': {key: state bytes}}, and with momentum correction
        'momentum': {key: {'local', 'previous'}}; call it between steps."""
        buffers = dict(self._loaded)
        buffers.update({k: b.state() for k, b in self.buffers.items()})
        sd = {"algorithm": self.algorithm, "buffers": buffers}
        if self.corrected:
            momentum = dict(self._loaded_momentum)
            momentum.update({k: c.state() for k, c in self.corrections.items()})
            sd["momentum"] = momentum
        return sd

    def load_state_dict(self, sd):
        if sd.get("algorithm") != self.algorithm:
            raise ValueError(f"dlk.torch.AllreduceHookState.load_state_dict: the state is of "
                             f"algorithm {sd.get('algorithm')!r}, this hook runs "
                             f"{self.algorithm!r}")
        if ("momentum" in sd) != self.corrected:
            raise ValueError("dlk.torch.AllreduceHookState.load_state_dict: the state was "
                             f"saved {'with' if 'momentum' in sd else 'without'} momentum "
                             f"correction, this hook runs "
                             f"{'with' if self.corrected else 'without'} it")
        self._loaded_momentum = {}
        for key, state in sd.get("momentum", {}).items():
            corr = self.corrections.get(key)
            if corr is not None:
                corr.load_state(state, "dlk.torch.AllreduceHookState.load_state_dict")
            else:
                self._loaded_momentum[key] = state
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
    key, buf, order = state._buffer(bucket.index(), *state._layout(bucket))
    data = tensor
    if order is not None:
        state.reordered += 1
        data = torch.cat([tensor[o:o + n] for o, n in order])
    corr = state.corrections.get(key) if state.corrected else None
    m = state._momentum_now() if corr is not None else None
    sent = corr.before(data, m) if corr is not None else data
    fut = torch.futures.Future()
    state.pending.append((buf.iallreduce(sent), fut, tensor, data, order, corr, m))
    if bucket.is_last():
        pending, state.pending = state.pending, []
        t0 = time.perf_counter()
        state.reports = [req.wait() for req, *_ in pending]
        state.last_wait_seconds = time.perf_counter() - t0
        for _, f, t, d, o, c, mom in pending:
            if c is not None:
                c.after(mom, out=d)
            if o is not None:
                pos = 0
                for off, n in o:
                    t[off:off + n].copy_(d[pos:pos + n])
                    pos += n
            f.set_result(t)
    return fut
