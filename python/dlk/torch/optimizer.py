"""Horovod-style distributed training over libdlk_comm, for scripts launched with mpirun
and no torch.distributed:

    opt = dlk.torch.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.05),
                                         model.named_parameters(), algorithm="int8")
    dlk.torch.broadcast_parameters(model.state_dict(), root_rank=0)
    loss.backward(); opt.step()                # gradients averaged over the ranks

The gradients are fused, in the reverse order of the parameters (the order backward
produces them), into buckets of bucket_mb; a hook on each parameter's gradient accumulator
copies a finished gradient into its bucket, and a full bucket's all-reduce starts at once
(buckets start in index order on every rank) on dlk's background thread, overlapping the
rest of backward. step() waits for them, copies the averages back into .grad and steps.
state_dict() carries each bucket's residuals (under 'dlk_comm') beside the optimizer's state.
With momentum_correction=True each rank all-reduces its local momentum instead of its
gradient, and the wrapped SGD steps on the all-reduced momentum (momentum_correction.py).
"""
import torch

from .. import comm as _comm
from .momentum_correction import MomentumCorrection, optimizer_momentum


class _Bucket:
    def __init__(self, params, comm, algorithm, options, corrected):
        self.params = params
        self.count = sum(p.numel() for p in params)
        self.flat = torch.zeros(self.count, dtype=torch.float32)
        self.offsets = []
        off = 0
        for p in params:
            self.offsets.append(off)
            off += p.numel()
        self.buffer = _comm.Buffer(comm, self.count, algorithm, **options)
        self.ready = set()
        self.request = None
        self.correction = MomentumCorrection(self.count) if corrected else None
        self.momentum = None  # the momentum this step's all-reduce was corrected with


class _DistributedOptimizer:
    """Mixed into the wrapped optimizer's own class (as Horovod does), so that it stays an
    instance of that class (LR schedulers, isinstance checks)."""

    def __init__(self, params, named_parameters, algorithm, communicator, bucket_mb,
                 momentum_correction, options):
        super(self.__class__, self).__init__(params)
        self._dlk_comm = communicator if communicator is not None else _comm.world()
        named = list(named_parameters) if named_parameters is not None else []
        mine = [p for g in self.param_groups for p in g["params"] if p.requires_grad]
        if named:
            names = {id(p): n for n, p in named}
            missing = [i for i, p in enumerate(mine) if id(p) not in names]
            if missing:
                raise ValueError("dlk.torch.DistributedOptimizer: named_parameters lacks "
                                 f"{len(missing)} parameter(s) of the optimizer")
        for p in mine:
            if p.dtype != torch.float32 or p.device.type != "cpu":
                raise TypeError("dlk.torch.DistributedOptimizer: parameters must be float32 "
                                f"CPU tensors, got {p.dtype} on {p.device}")
        options = dict(options, average=True)
        _comm.config(algorithm, **options)
        self.dlk_algorithm = algorithm
        self.dlk_momentum_correction = bool(momentum_correction)
        if momentum_correction:
            optimizer_momentum(self, "dlk.torch.DistributedOptimizer")
        cap = int(bucket_mb * (1 << 20))
        groups, cur, size = [], [], 0
        for p in reversed(mine):
            if cur and size + 4 * p.numel() > cap:
                groups.append(cur)
                cur, size = [], 0
            cur.append(p)
            size += 4 * p.numel()
        if cur:
            groups.append(cur)
        self._dlk_buckets = [_Bucket(g, self._dlk_comm, algorithm, options,
                                     self.dlk_momentum_correction) for g in groups]
        self._dlk_where = {}
        for b, bucket in enumerate(self._dlk_buckets):
            for j, p in enumerate(bucket.params):
                self._dlk_where[id(p)] = (b, j)
        self._dlk_next = 0
        self._dlk_hooks = []
        for p in mine:
            acc = p.expand_as(p).grad_fn.next_functions[0][0]
            acc.register_hook(self._dlk_make_hook(p))
            self._dlk_hooks.append(acc)  # the accumulator must live for the hook to fire
        self.dlk_reports = []

    def _dlk_make_hook(self, p):
        def hook(*_):
            self._dlk_grad_ready(p)
        return hook

    def _dlk_grad_ready(self, p):
        b, j = self._dlk_where[id(p)]
        bucket = self._dlk_buckets[b]
        if j in bucket.ready:
            raise RuntimeError("dlk.torch.DistributedOptimizer: a gradient was produced twice "
                               "before step() (more than one backward per step is not "
                               "supported)")
        off = bucket.offsets[j]
        view = bucket.flat[off:off + p.numel()].view_as(p)
        if p.grad is None:
            view.zero_()
        else:
            view.copy_(p.grad)
        bucket.ready.add(j)
        self._dlk_start_ready()

    def _dlk_start_ready(self):
        while self._dlk_next < len(self._dlk_buckets):
            bucket = self._dlk_buckets[self._dlk_next]
            if len(bucket.ready) < len(bucket.params):
                return
            sent = bucket.flat
            if bucket.correction is not None:
                bucket.momentum = optimizer_momentum(self, "dlk.torch.DistributedOptimizer")
                sent = bucket.correction.before(bucket.flat, bucket.momentum)
            bucket.request = bucket.buffer.iallreduce(sent)
            self._dlk_next += 1

    def synchronize(self):
        """Finishes this step's all-reduces (a parameter that got no gradient counts as
        zero) and writes the averages into .grad."""
        for bucket in self._dlk_buckets:
            for j, p in enumerate(bucket.params):
                if j not in bucket.ready:
                    self._dlk_grad_ready(p)
        self.dlk_reports = []
        for bucket in self._dlk_buckets:
            self.dlk_reports.append(bucket.request.wait())
            bucket.request = None
            if bucket.correction is not None:
                bucket.correction.after(bucket.momentum, out=bucket.flat)
            for j, p in enumerate(bucket.params):
                off = bucket.offsets[j]
                avg = bucket.flat[off:off + p.numel()].view_as(p)
                if p.grad is None:
                    p.grad = avg.clone()
                else:
                    p.grad.copy_(avg)
            bucket.ready = set()
        self._dlk_next = 0

    def step(self, closure=None):
        self.synchronize()
        return super(self.__class__, self).step(closure)

    def state_dict(self):
        sd = super(self.__class__, self).state_dict()
        sd["dlk_comm"] = {"algorithm": self.dlk_algorithm,
                          "buckets": [b.buffer.state() for b in self._dlk_buckets]}
        if self.dlk_momentum_correction:
            sd["dlk_comm"]["momentum"] = [b.correction.state() for b in self._dlk_buckets]
        return sd

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        saved = state_dict.pop("dlk_comm", None)
        super(self.__class__, self).load_state_dict(state_dict)
        if saved is not None:
            if saved["algorithm"] != self.dlk_algorithm or \
                    len(saved["buckets"]) != len(self._dlk_buckets):
                raise ValueError("dlk.torch.DistributedOptimizer.load_state_dict: the saved "
                                 f"all-reduce state ({saved['algorithm']}, "
                                 f"{len(saved['buckets'])} buckets) does not match this "
                                 f"optimizer ({self.dlk_algorithm}, {len(self._dlk_buckets)})")
            if ("momentum" in saved) != self.dlk_momentum_correction:
                raise ValueError("dlk.torch.DistributedOptimizer.load_state_dict: the state "
                                 f"was saved {'with' if 'momentum' in saved else 'without'} "
                                 "momentum correction, this optimizer runs "
                                 f"{'with' if self.dlk_momentum_correction else 'without'} it")
            for bucket, state in zip(self._dlk_buckets, saved["buckets"]):
                bucket.buffer.load_state(state)
            for bucket, state in zip(self._dlk_buckets, saved.get("momentum", [])):
                bucket.correction.load_state(
                    state, "dlk.torch.DistributedOptimizer.load_state_dict")


def DistributedOptimizer(optimizer, named_parameters=None, algorithm="native",
                         communicator=None, bucket_mb=25, momentum_correction=False, **options):
    """optimizer, with its gradients averaged over the MPI ranks through libdlk_comm before
    each step (any dlk.comm algorithm; options as dlk.comm.config()). momentum_correction:
    all-reduce each rank's local momentum instead (optimizer: SGD with momentum, dampening 0,
    no Nesterov)."""
    methods = {k: v for k, v in _DistributedOptimizer.__dict__.items()
               if k not in ("__dict__", "__weakref__")}
    cls = type(optimizer.__class__.__name__, (optimizer.__class__,), methods)
    return cls(optimizer.param_groups, named_parameters, algorithm, communicator, bucket_mb,
               momentum_correction, options)


def broadcast_parameters(params, root_rank=0, communicator=None):
    """Every rank's tensors become root_rank's (a state_dict, or (name, tensor) pairs):
    an exact all-reduce of root's values and zeros from the others."""
    comm = communicator if communicator is not None else _comm.world()
    items = sorted(params.items()) if isinstance(params, dict) else list(params)
    for name, t in items:
        if t.dtype != torch.float32:
            raise TypeError(f"dlk.torch.broadcast_parameters: '{name}' is {t.dtype}; only "
                            f"float32 tensors are broadcast")
        with torch.no_grad():
            flat = t.detach().reshape(-1).clone()
            if comm.rank != root_rank:
                flat.zero_()
            buf = _comm.Buffer(comm, flat.numel(), "native")
            buf.allreduce(flat)
            buf.close()
            t.copy_(flat.view_as(t))
