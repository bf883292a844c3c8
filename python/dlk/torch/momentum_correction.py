"""Momentum correction for a compressed all-reduce under the user's own SGD momentum
(Deep Gradient Compression, Lin et al. 2018; blockwise-momentum EF-SGD, Zheng et al. 2019).

Each rank keeps its local momentum u = m u + g and all-reduces u (the codec's error feedback
then works on u) into U_t, the average of the compressed u. The optimizer gets

    r_t = U_t - m U_{t-1}

as its gradient, so that SGD's own buffer b_t = m b_{t-1} + r_t is U_t exactly (from b_0 = 0):
the step is the compressed momentum, as in the papers, with no change to the optimizer.
Weight decay then adds its own, uncompressed, momentum term (b_t = U_t + W_t), which is still
what SGD computes; dampening and Nesterov would not be (refused by optimizer_momentum()).
The momentum m is read at every step, so a momentum schedule stays exact as well.

Why r_t and not U_t into an SGD without momentum: the user's optimizer, its state_dict and
its weight decay stay as they are, and a resumed run needs only u and U_{t-1} from here.
"""
import torch


def optimizer_momentum(optimizer, caller):
    """The momentum of a torch.optim.SGD-like optimizer, checked: one value for every param
    group, dampening 0, no Nesterov (momentum correction keeps SGD's buffer equal to the
    all-reduced momentum only then)."""
    values = set()
    for g in optimizer.param_groups:
        if "momentum" not in g:
            raise ValueError(f"{caller}: momentum correction needs an optimizer with a "
                             f"'momentum' option (torch.optim.SGD); "
                             f"{type(optimizer).__name__} has none")
        if g.get("nesterov", False) or g.get("dampening", 0) != 0:
            raise ValueError(f"{caller}: momentum correction keeps SGD's momentum buffer equal "
                             f"to the all-reduced momentum only with dampening=0 and "
                             f"nesterov=False; got dampening={g.get('dampening', 0)}, "
                             f"nesterov={g.get('nesterov', False)}")
        values.add(float(g["momentum"]))
    if len(values) != 1:
        raise ValueError(f"{caller}: momentum correction needs one momentum for every param "
                         f"group, got {sorted(values)}")
    return values.pop()


class MomentumCorrection:
    """u (the local momentum) and U_{t-1} (the last all-reduced momentum) of one flat bucket.
    before(grad, m) returns the tensor to all-reduce in place; after(result, m, out) writes
    r_t into out."""

    def __init__(self, count):
        self.local = torch.zeros(count, dtype=torch.float32)      # u
        self.previous = torch.zeros(count, dtype=torch.float32)   # U_{t-1}
        self._send = torch.empty(count, dtype=torch.float32)      # becomes U_t

    def before(self, grad, m):
        self.local.mul_(m).add_(grad)
        self._send.copy_(self.local)
        return self._send

    def after(self, m, out):
        """out = U_t - m U_{t-1}, with U_t the all-reduced tensor before() returned."""
        torch.sub(self._send, self.previous, alpha=m, out=out)
        self.previous, self._send = self._send, self.previous

    def state(self):
        return {"local": self.local.clone(), "previous": self.previous.clone()}

    def load_state(self, state, caller):
        for name in ("local", "previous"):
            t = state[name]
            if t.shape != self.local.shape:
                raise ValueError(f"{caller}: the saved momentum '{name}' holds {t.numel()} "
                                 f"values, the bucket {self.local.numel()}")
            getattr(self, name).copy_(t)

    def permuted(self, pieces):
        """A copy in another order: pieces lists (offset, count) of this bucket's layout in
        the new order (DDP's rebuild of its buckets)."""
        other = MomentumCorrection(self.local.numel())
        for mine, theirs in ((self.local, other.local), (self.previous, other.previous)):
            torch.cat([mine[o:o + n] for o, n in pieces], out=theirs)
        return other
