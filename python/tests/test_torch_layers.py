"""dlk.torch.nn layers against torch's own: same parameters, outputs and gradients within
the f32 contract, on cpu, fpga_sim and (with CUDA tensors, torch's layers as the reference on
the CPU) cuda where a GPU is there; the layers of a model turned to bf16 or f16 on dlk's 16-bit
ops; a LeNet-5 of dlk layers trains; fpga_sim reports the simulated time of a whole model; on
cuda, two trainings from one seed end with the same bits."""
import pytest
import torch

import dlk
import dlk.torch as dt
from devices import CUDA_WHY_NOT, HAVE_CUDA, device_of


@pytest.fixture(params=["cpu", "fpga_sim"] + (["cuda"] if HAVE_CUDA else []))
def ctx(request):
    c = dlk.Context(backend=request.param, threads=2)
    yield c
    c.close()


CASES = [
    (dt.nn.Conv2d, torch.nn.Conv2d, (3, 8, 5), dict(padding=2, stride=2), (4, 3, 14, 13)),
    (dt.nn.Conv2d, torch.nn.Conv2d, (4, 6, 3), dict(bias=False, groups=2), (2, 4, 9, 9)),
    (dt.nn.Linear, torch.nn.Linear, (24, 10), {}, (5, 24)),
    (dt.nn.Linear, torch.nn.Linear, (24, 10), dict(bias=False), (2, 3, 24)),
    (dt.nn.MaxPool2d, torch.nn.MaxPool2d, (3,), dict(stride=2, padding=1), (2, 3, 11, 10)),
    (dt.nn.AvgPool2d, torch.nn.AvgPool2d, (2,), {}, (2, 3, 8, 8)),
    (dt.nn.AvgPool2d, torch.nn.AvgPool2d, (3,), dict(stride=1, padding=1,
                                                     count_include_pad=False), (1, 2, 6, 7)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].__name__}{c[3]}")
def test_layer_matches_torch(ctx, case):
    mine_cls, torch_cls, args, kw, shape = case
    device = device_of(ctx)
    torch.manual_seed(0)
    mine = mine_cls(*args, context=ctx, **kw).to(device)
    torch.manual_seed(0)
    ref = torch_cls(*args, **kw)
    assert all(torch.equal(a.cpu(), b) for a, b in zip(mine.parameters(), ref.parameters()))
    xr = torch.randn(*shape, requires_grad=True)
    x = xr.detach().to(device).requires_grad_()
    y, yr = mine(x), ref(xr)
    assert y.device.type == device
    g = torch.randn_like(yr)
    y.backward(g.to(device))
    yr.backward(g)
    torch.testing.assert_close(y.cpu(), yr, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(x.grad.cpu(), xr.grad, rtol=1e-4, atol=1e-4)
    for a, b in zip(mine.parameters(), ref.parameters()):
        torch.testing.assert_close(a.grad.cpu(), b.grad, rtol=1e-4, atol=1e-4)


def lenet5(context):
    return torch.nn.Sequential(
        dt.nn.Conv2d(1, 6, 5, padding=2, context=context), torch.nn.ReLU(),
        dt.nn.MaxPool2d(2, context=context),
        dt.nn.Conv2d(6, 16, 5, context=context), torch.nn.ReLU(),
        dt.nn.AvgPool2d(2, context=context), torch.nn.Flatten(),
        dt.nn.Linear(400, 120, context=context), torch.nn.ReLU(),
        dt.nn.Linear(120, 10, context=context))


def test_lenet5_trains_and_fpga_sim_reports_time():
    torch.manual_seed(0)
    sim = dlk.Context(backend="fpga_sim")
    model = lenet5(sim)
    x = torch.randn(16, 1, 28, 28)
    y = torch.randint(0, 10, (16,))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for _ in range(8):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert sim.sim_seconds > 0
    per_step = sim.sim_seconds / 8
    sim.reset_sim()
    model(x)
    assert 0 < sim.sim_seconds < per_step  # a forward alone: less than forward + backward


def _train(model, x, y, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.skipif(not HAVE_CUDA, reason=f"no cuda: {CUDA_WHY_NOT}")
def test_lenet5_on_cuda_trains_with_the_same_bits_twice():
    ctx = dlk.Context(backend="cuda")
    finals = []
    for _ in range(2):
        torch.manual_seed(0)
        model = lenet5(ctx).to("cuda")
        x = torch.randn(64, 1, 28, 28, device="cuda")
        y = torch.randint(0, 10, (64,), device="cuda")
        losses = _train(model, x, y, 10)
        assert losses[-1] < losses[0]
        finals.append([p.detach().cpu() for p in model.parameters()])
    assert all(torch.equal(a, b) for a, b in zip(*finals))


def test_default_context_from_environment():
    device = device_of(dt.nn.default_context())
    layer = dt.nn.Linear(4, 2).to(device)
    layer(torch.ones(1, 4, device=device)).sum().backward()
    assert dt.nn.default_context().backend in ("cpu", "fpga_sim", "cuda")


def _reduction_length(layer, x, y):
    """The longest sum of products behind an output, an input gradient or a weight gradient:
    what the f32 contract's bound scales with."""
    if isinstance(layer, torch.nn.Conv2d):
        kh, kw = layer.kernel_size
        per_group = max(layer.in_channels, layer.out_channels) // layer.groups
        return max(per_group * kh * kw, y.shape[0] * y.shape[2] * y.shape[3])
    if isinstance(layer, torch.nn.Linear):
        return max(layer.in_features, layer.out_features, y.numel() // y.shape[-1])
    k = layer.kernel_size
    return k * k if isinstance(k, int) else k[0] * k[1]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].__name__}{c[3]}")
def test_layer_within_f32_contract(ctx, case):
    """Output and gradients of the dlk layer within (k + 2) eps of the exact result, element by
    element, scaled by the same sum over absolute values (|x||w| + |b|): the bound of a float32
    sum of k products in any order, which torch's own float32 layer meets too (checked here)."""
    mine_cls, torch_cls, args, kw, shape = case
    device = device_of(ctx)
    torch.manual_seed(1)
    mine = mine_cls(*args, context=ctx, **kw).to(device)
    torch.manual_seed(1)
    ref32 = torch_cls(*args, **kw)
    exact = torch_cls(*args, **kw).double()  # float64: exact enough at these sizes
    bound = torch_cls(*args, **kw).double()  # on |x|, |w|, |g|: the scale of each element
    with torch.no_grad():
        for p, q, r in zip(ref32.parameters(), exact.parameters(), bound.parameters()):
            q.copy_(p)
            r.copy_(p.abs())
    x = torch.randn(*shape)
    # Max pooling selects: its bound is the same selection of x, its gradient's the sum of |g|.
    x_bound = x.double() if isinstance(ref32, torch.nn.MaxPool2d) else x.double().abs()
    g = None
    outs = {}
    for name, layer, xin in (("dlk", mine, x.to(device)), ("torch", ref32, x),
                             ("exact", exact, x.double()), ("bound", bound, x_bound)):
        xin = xin.clone().requires_grad_()
        y = layer(xin)
        if g is None:
            g = torch.randn(y.shape)
        y.backward((g.abs() if name == "bound" else g).to(y.device, y.dtype))
        outs[name] = [t.detach().cpu().double().abs() if name == "bound" else
                      t.detach().cpu().double() for t in
                      [y, xin.grad] + [p.grad for p in layer.parameters()]]
    k = _reduction_length(ref32, x, outs["exact"][0])
    eps = torch.finfo(torch.float32).eps
    for who in ("dlk", "torch"):
        for i, (got, want, scale) in enumerate(zip(outs[who], outs["exact"], outs["bound"])):
            err = (got - want).abs()
            tol = (k + 2) * eps * scale + 1e-30
            assert bool((err <= tol).all()), (
                f"{who} {['output', 'input gradient', 'weight gradient', 'bias gradient'][i]}: "
                f"max error / bound {(err / tol).max().item():.3f} (k = {k})")


HALF_CASES = [c for c in CASES if c[0] is not dt.nn.AvgPool2d]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("case", HALF_CASES, ids=lambda c: f"{c[0].__name__}{c[3]}")
def test_layer_in_half_precision(ctx, case, dtype):
    """A model turned to bf16 or f16 (model.to(dtype)) runs on dlk's 16-bit ops: bias kept as
    the model's dtype (dlk takes f32 biases and sums the bias gradient in f32), outputs and
    gradients of the model's dtype within two of its roundings of torch's float32 layer on the
    same values."""
    mine_cls, torch_cls, args, kw, shape = case
    device = device_of(ctx)
    needed = {dt.nn.Conv2d: ("conv2d_forward", "conv2d_backward_data",
                             "conv2d_backward_weights"),
              dt.nn.Linear: ("gemm",), dt.nn.MaxPool2d: ("pool2d_forward",)}[mine_cls]
    name = {torch.bfloat16: "bf16", torch.float16: "f16"}[dtype]
    if not all(ctx.supports(op, name, name, name) for op in needed):
        pytest.skip(f"{ctx.backend} runs no {name} {'/'.join(needed)}")
    torch.manual_seed(2)
    mine = mine_cls(*args, context=ctx, **kw).to(device, dtype)
    torch.manual_seed(2)
    ref = torch_cls(*args, **kw)
    with torch.no_grad():
        for p, q in zip(ref.parameters(), mine.parameters()):
            p.copy_(q.float().cpu())  # the same values the 16-bit model holds
    x = torch.randn(*shape).to(dtype)
    g = None
    outs = {}
    for who, layer, xin in (("dlk", mine, x.to(device)), ("torch", ref, x.float())):
        xin = xin.clone().requires_grad_()
        y = layer(xin)
        if g is None:
            g = torch.randn(y.shape).to(dtype)
        y.backward(g.to(y.device, y.dtype))
        outs[who] = [y, xin.grad] + [p.grad for p in layer.parameters()]
    for i, (got, want) in enumerate(zip(outs["dlk"], outs["torch"])):
        what = ["output", "input gradient", "weight gradient", "bias gradient"][i]
        assert got.dtype == dtype, f"{what} is {got.dtype}"
        half_ulp = torch.finfo(dtype).eps  # two roundings of the 16-bit type, at most
        torch.testing.assert_close(got.cpu().float(), want, rtol=2 * half_ulp,
                                   atol=2 * half_ulp * float(want.abs().max()), msg=what)
