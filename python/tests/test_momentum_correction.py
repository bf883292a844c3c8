"""Momentum correction (dlk/torch/momentum_correction.py) without MPI: two simulated ranks
whose all-reduce is an int8 encode with error feedback (dlk.compress) and an average. torch's
own SGD, fed r_t = U_t - m U_{t-1}, must keep its momentum buffer equal to the all-reduced
momentum U_t (plus weight decay's own momentum term), whatever the compression did; optimizers
for which that does not hold are refused."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import dlk.compress  # noqa: E402
from dlk.torch.momentum_correction import MomentumCorrection, optimizer_momentum  # noqa: E402


def compressed_average(tensors, residuals, codec):
    """In place: every tensor becomes the average of the ranks' int8-compressed tensors."""
    decoded = []
    for t, r in zip(tensors, residuals):
        decoded.append(dlk.compress.decode(codec.encode(t.numpy(), residual=r)))
    avg = torch.from_numpy(np.mean(decoded, axis=0).astype(np.float32))
    for t in tensors:
        t.copy_(avg)


@pytest.mark.parametrize("momentum,weight_decay", [(0.9, 0.0), (0.5, 0.0), (0.9, 1e-3)])
def test_sgd_buffer_is_the_allreduced_momentum(momentum, weight_decay):
    n, ranks = 257, 2
    codec = dlk.compress.Codec("int8")
    gen = torch.Generator().manual_seed(3)
    param = torch.nn.Parameter(torch.randn(n, generator=gen))
    sgd = torch.optim.SGD([param], lr=0.01, momentum=momentum, weight_decay=weight_decay)
    corrections = [MomentumCorrection(n) for _ in range(ranks)]
    residuals = [np.zeros(n, dtype=np.float32) for _ in range(ranks)]
    decay_momentum = torch.zeros(n)  # W_t = m W_{t-1} + wd p_t: weight decay's own term
    for _ in range(12):
        m = optimizer_momentum(sgd, "test")
        sent = [c.before(torch.randn(n, generator=gen), m) for c in corrections]
        compressed_average(sent, residuals, codec)
        out = [torch.empty(n) for _ in range(ranks)]
        for c, o in zip(corrections, out):
            c.after(m, out=o)
        assert torch.equal(out[0], out[1])
        decay_momentum.mul_(m).add_(param.detach(), alpha=weight_decay)
        param.grad = out[0].clone()
        sgd.step()
        buf = sgd.state[param]["momentum_buffer"]
        torch.testing.assert_close(buf, corrections[0].previous + decay_momentum,
                                   rtol=1e-5, atol=1e-6)
    assert any(np.abs(r).max() > 0 for r in residuals)  # the compression did lose something


def test_state_round_trip_and_permutation():
    c = MomentumCorrection(6)
    c.before(torch.arange(6.0), 0.9)
    c.after(0.9, out=torch.empty(6))
    d = MomentumCorrection(6)
    d.load_state(c.state(), "test")
    assert torch.equal(d.local, c.local) and torch.equal(d.previous, c.previous)
    p = c.permuted([(4, 2), (0, 4)])  # the last parameter (2 values) first
    assert p.local.tolist() == c.local[4:].tolist() + c.local[:4].tolist()
    with pytest.raises(ValueError, match="holds 6 values, the bucket 5"):
        MomentumCorrection(5).load_state(c.state(), "test")


@pytest.mark.parametrize("kwargs,message", [
    ({"momentum": 0.9, "nesterov": True}, "nesterov=True"),
    ({"momentum": 0.9, "dampening": 0.1}, "dampening=0.1"),
])
def test_refuses_what_it_cannot_keep_exact(kwargs, message):
    p = torch.nn.Parameter(torch.zeros(3))
    with pytest.raises(ValueError, match=message):
        optimizer_momentum(torch.optim.SGD([p], lr=0.1, **kwargs), "caller")


def test_refuses_mixed_or_missing_momentum():
    a, b = torch.nn.Parameter(torch.zeros(3)), torch.nn.Parameter(torch.zeros(3))
    sgd = torch.optim.SGD([{"params": [a], "momentum": 0.9}, {"params": [b], "momentum": 0.5}],
                          lr=0.1)
    with pytest.raises(ValueError, match=r"one momentum for every param group, got \[0.5, 0.9\]"):
        optimizer_momentum(sgd, "caller")
    with pytest.raises(ValueError, match="Adam has none"):
        optimizer_momentum(torch.optim.Adam([a]), "caller")
