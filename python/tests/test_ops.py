"""dlk.Context's ops against numpy/torch references (computed in float64 on the CPU), on
every backend that runs here: the cpu backend at each ISA this CPU has, fpga_sim, and cuda
(with CUDA tensors) where a GPU is there."""
import gc
import weakref

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import dlk
from devices import HAVE_CUDA, host, on


def _backends():
    out = []
    for isa in ("avx512", "avx2", "scalar"):
        try:
            dlk.Context(backend="cpu", isa=isa, threads=2).close()
            out.append(("cpu", isa))
        except dlk.Error:
            pass  # this CPU lacks the ISA: dlk says so, and the others still run
    out.append(("fpga_sim", None))
    if HAVE_CUDA:
        out.append(("cuda", None))
    return out


BACKENDS = _backends()


@pytest.fixture(params=BACKENDS, ids=lambda b: b[0] + (f"-{b[1]}" if b[1] else ""))
def ctx(request):
    backend, isa = request.param
    c = dlk.Context(backend=backend, isa=isa, threads=2)
    yield c
    c.close()


def close(actual, expected, k):
    """The f32 contract: error within k ulp-scale sums (|a||b| accumulated)."""
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    tol = 4 * k * np.finfo(np.float32).eps * (np.abs(e).max() + 1)
    assert np.abs(a - e).max() <= tol, f"max error {np.abs(a - e).max()} > {tol}"


def test_cpu_isas_present():
    assert ("cpu", "scalar") in BACKENDS and len(BACKENDS) >= 3


def test_gemm_numpy(ctx):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((33, 47), dtype=np.float32)
    b = rng.standard_normal((47, 29), dtype=np.float32)
    close(host(ctx.gemm(on(ctx, a), on(ctx, b))), a.astype(np.float64) @ b, 47)
    # transposes, alpha/beta into an existing C, a batch sharing B
    at = np.ascontiguousarray(a.T)
    c = rng.standard_normal((33, 29), dtype=np.float32)
    ref = 0.5 * (a.astype(np.float64) @ b) + 2.0 * c
    c_ = on(ctx, c)
    ctx.gemm(on(ctx, at), on(ctx, b), c_, trans_a=True, alpha=0.5, beta=2.0)
    close(host(c_), ref, 47)
    batch = rng.standard_normal((3, 33, 47), dtype=np.float32)
    close(host(ctx.gemm(on(ctx, batch), on(ctx, b))), batch.astype(np.float64) @ b, 47)
    assert ctx.last_op()["op"] == "gemm"


def test_gemm_torch_and_int8(ctx):
    a = torch.randn(16, 24)
    b = torch.randn(20, 24)
    close(host(ctx.gemm(on(ctx, a), on(ctx, b), trans_b=True)), (a.double() @ b.double().T).numpy(),
          24)
    if not ctx.supports("gemm", "u8", "s8", "s32"):
        pytest.skip(f"{ctx.backend} has no u8 x s8 GEMM")  # pragma: no cover
    rng = np.random.default_rng(1)
    ai = rng.integers(0, 255, (8, 40), dtype=np.uint8)
    bi = rng.integers(-128, 127, (40, 12), dtype=np.int8)
    out = host(ctx.gemm(on(ctx, ai), on(ctx, bi), a_zero_point=128))
    assert out.dtype == np.int32
    assert np.array_equal(out, (ai.astype(np.int64) - 128) @ bi.astype(np.int64))


@pytest.mark.parametrize("stride,padding,dilation,groups", [(1, 1, 1, 1), (2, 0, 1, 1),
                                                            (1, 2, 2, 2)])
def test_conv2d_forward_backward(ctx, stride, padding, dilation, groups):
    torch.manual_seed(0)
    x = torch.randn(2, 4, 11, 9, dtype=torch.float64)
    w = torch.randn(6, 4 // groups, 3, 3, dtype=torch.float64)
    bias = torch.randn(6, dtype=torch.float64)
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    xr, wr, br = (t.clone().requires_grad_() for t in (x, w, bias))
    ref = F.conv2d(xr, wr, br, **kw)
    g = torch.randn_like(ref)
    ref.backward(g)
    x32, w32, b32, g32 = (on(ctx, t.float().contiguous()) for t in (x, w, bias, g))
    k = 4 * 9
    close(host(ctx.conv2d_forward(x32, w32, b32, **kw)), ref.detach().numpy(), k)
    close(host(ctx.conv2d_backward_data(g32, w32, x32.shape, **kw)), xr.grad.numpy(), k)
    gw, gb = ctx.conv2d_backward_weights(x32, g32, w32.shape, **kw)
    close(host(gw), wr.grad.numpy(), 2 * 121)
    close(host(gb), br.grad.numpy(), 2 * 121)


def test_conv2d_nhwc_relu_numpy(ctx):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 7, 7, 3), dtype=np.float32)
    w = rng.standard_normal((5, 3, 3, 3), dtype=np.float32)  # k x kh x kw x c
    out = host(ctx.conv2d_forward(on(ctx, x), on(ctx, w), padding=1, relu=True, format="nhwc"))
    ref = F.conv2d(torch.from_numpy(x).permute(0, 3, 1, 2).double(),
                   torch.from_numpy(w).permute(0, 3, 1, 2).double(), padding=1).relu()
    close(out, ref.permute(0, 2, 3, 1).numpy(), 27)


def bits(y):
    """y's bits on the host as integers of its element size: equal where every bit is."""
    t = y.detach().cpu() if isinstance(y, torch.Tensor) else torch.from_numpy(y)
    return t.view({1: torch.int8, 2: torch.int16, 4: torch.int32}[t.element_size()]).numpy()


# kernel, padding: on the AVX-512 tier the first runs the channel-lane kernel, whose weights
# the tier packs; the second (1x1) runs a GEMM, and its packed weights are the plain ones.
PACKED_SHAPES = {"lanes": (3, 1), "1x1": (1, 0)}


def _packed_inputs(ctx, dtype, fmt, n, kernel):
    """src n x 32 x 12 x 12, weights 48 x 32 x kernel x kernel (NHWC: channels last), f32 bias
    (None for int8, whose s32 dst takes none)."""
    g = torch.Generator().manual_seed(4)
    x = torch.randn(n, 32, 12, 12, generator=g)
    w = torch.randn(48, 32, kernel, kernel, generator=g)
    bias = torch.randn(48, generator=g)
    if fmt == "nhwc":
        x, w = (t.permute(0, 2, 3, 1).contiguous() for t in (x, w))
    if dtype == "bf16":
        x, w = x.bfloat16(), w.bfloat16()
    elif dtype in ("s8", "u8"):
        w = (w * 40).clamp(-128, 127).to(torch.int8)
        x = (x * 40).clamp(-128, 127).to(torch.int8) if dtype == "s8" else \
            (x * 40).clamp(0, 255).to(torch.uint8)
        bias = None
    return on(ctx, x), on(ctx, w), None if bias is None else on(ctx, bias)


@pytest.mark.parametrize("shape", PACKED_SHAPES)
@pytest.mark.parametrize("fmt", ["nchw", "nhwc"])
@pytest.mark.parametrize("dtype", ["f32", "bf16", "s8", "u8"])
def test_conv2d_packed_forward_equals_plain(ctx, dtype, fmt, shape):
    int8 = dtype in ("s8", "u8")
    weights_dtype, out_dtype = ("s8", "s32") if int8 else (dtype, dtype)
    if not ctx.supports("conv2d_forward", dtype, weights_dtype, out_dtype):
        pytest.skip(f"{ctx.backend} has no {dtype} convolution")  # pragma: no cover
    kernel, padding = PACKED_SHAPES[shape]
    x, w, bias = _packed_inputs(ctx, dtype, fmt, 1, kernel)
    kw = dict(padding=padding, format=fmt)
    out = None
    if int8:  # conv2d_forward's out defaults to src's type: s32 must be given
        dst_shape = (1, 48, 12, 12) if fmt == "nchw" else (1, 12, 12, 48)
        out = on(ctx, torch.empty(dst_shape, dtype=torch.int32))
    plain = ctx.conv2d_forward(x, w, bias, out, **kw)
    plain_impl = ctx.last_op()["implementation"]
    packed = ctx.conv2d_weights(w, x.shape, src_dtype=dtype, out_dtype=out_dtype, **kw)
    w.zero_()  # the context keeps a copy of the weights
    got = ctx.conv2d_forward_packed(x, packed, bias)
    impl = ctx.last_op()["implementation"]
    packed.close()
    assert np.array_equal(bits(got), bits(plain))
    if ctx.backend == "cpu":
        # The channel-lane kernel and the AMX implicit GEMM read packed weights.
        lanes = "channel_lanes" in plain_impl
        packs = lanes or "conv2d_amx" in plain_impl
        assert impl == plain_impl + (":prepacked" if packs else "")
        if ctx.isa == "avx512" and dtype == "f32":  # bf16 and int8 take it on some CPUs only
            assert lanes == (shape == "lanes"), plain_impl


def test_conv2d_packed_forward_other_batch(ctx):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 32, 12, 12), dtype=np.float32)
    w = rng.standard_normal((48, 32, 3, 3), dtype=np.float32)
    b = rng.standard_normal(48, dtype=np.float32)
    x_, w_, b_ = (on(ctx, a) for a in (x, w, b))
    packed = ctx.conv2d_weights(w_, (1, 32, 12, 12), padding=1, relu=True)
    plain = host(ctx.conv2d_forward(x_, w_, b_, padding=1, relu=True))
    got = host(ctx.conv2d_forward_packed(x_, packed, b_))
    assert got.shape == (3, 48, 12, 12) and np.array_equal(bits(got), bits(plain))
    if ctx.backend == "cpu" and ctx.isa == "avx512":
        assert ctx.last_op()["implementation"].endswith(":prepacked")
    one = on(ctx, np.ascontiguousarray(x[1:2]))
    assert np.array_equal(bits(host(ctx.conv2d_forward_packed(one, packed, b_))), bits(plain[1:2]))
    packed.close()


@pytest.mark.parametrize("fmt", ["nchw", "nhwc"])
@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_conv2d_packed_backward_data_equals_plain(ctx, dtype, fmt):
    if not ctx.supports("conv2d_backward_data", dtype, dtype, dtype):
        pytest.skip(f"{ctx.backend} has no {dtype} backward data")  # pragma: no cover
    # 64 channels over 4 x 4 pixels: on AMX the turned convolution runs on the tiles only
    # with its weights packed before; 12 x 12 over 32: on the channel-lane kernel (f32);
    # stride 2: in four phases on AMX tiles (bf16).
    gen = torch.Generator().manual_seed(26)
    torch_dtype = torch.bfloat16 if dtype == "bf16" else torch.float32
    for src_hw, c, k, stride in ((4, 64, 64, 1), (12, 32, 48, 1), (12, 32, 64, 2)):
        out_hw = (src_hw - 1) // stride + 1
        src_shape = (2, c, src_hw, src_hw) if fmt == "nchw" else (2, src_hw, src_hw, c)
        w_shape = (k, c, 3, 3) if fmt == "nchw" else (k, 3, 3, c)
        dst_shape = (2, k, out_hw, out_hw) if fmt == "nchw" else (2, out_hw, out_hw, k)
        w, g = (on(ctx, torch.randn(shape, generator=gen).to(torch_dtype))
                for shape in (w_shape, dst_shape))
        kw = dict(padding=1, stride=stride, format=fmt)
        plain = ctx.conv2d_backward_data(g, w, src_shape, **kw)
        plain_impl = ctx.last_op()["implementation"]
        # Packed for one image with the forward's ReLU, as a training step packs both.
        packed = ctx.conv2d_weights(w, (1,) + src_shape[1:], relu=True,
                                    passes=("forward", "backward_data"), **kw)
        w.zero_()
        got = ctx.conv2d_backward_data_packed(g, packed)
        impl = ctx.last_op()["implementation"]
        packed.close()
        assert np.array_equal(bits(got), bits(plain))
        if ctx.backend == "cpu" and ("channel_lanes" in plain_impl or "conv2d_amx" in plain_impl):
            assert impl == plain_impl + ":prepacked", (impl, plain_impl)


def test_conv2d_packed_backward_data_refuses_what_was_not_packed_for_it():
    c = dlk.Context(backend="cpu", threads=2)
    w = np.ones((48, 32, 3, 3), np.float32)
    g = np.ones((2, 48, 12, 12), np.float32)
    forward = c.conv2d_weights(w, (2, 32, 12, 12), padding=1)
    with pytest.raises(dlk.Error, match=r"dlk_conv2d_backward_data_packed: argument 'packed' "
                                        r"was not packed for backward data"):
        c.conv2d_backward_data_packed(g, forward)
    both = c.conv2d_weights(w, (2, 32, 12, 12), padding=1, passes=("forward", "backward_data"))
    assert both.passes == ("forward", "backward_data") and "passes=" in repr(both)
    with pytest.raises(ValueError, match=r"'diff_dst' has shape \(2, 48, 10, 12\), expected"):
        c.conv2d_backward_data_packed(np.ones((2, 48, 10, 12), np.float32), both)
    with pytest.raises(ValueError, match=r"'out' has shape \(1, 32, 12, 12\), expected \(2, 32"):
        c.conv2d_backward_data_packed(g, both, out=np.empty((1, 32, 12, 12), np.float32))
    with pytest.raises(TypeError, match=r"conv2d_backward_data: 'weights' are packed.*_packed"):
        c.conv2d_backward_data(g, both, (2, 32, 12, 12), padding=1)
    with pytest.raises(TypeError, match=r"conv2d_backward_data_packed: 'weights' is a ndarray"):
        c.conv2d_backward_data_packed(g, w)
    for passes in ((), "forward", ("forward", "sideways")):
        with pytest.raises(ValueError, match=r"'passes' must name one or more of forward, "
                                             r"backward_data"):
            c.conv2d_weights(w, (2, 32, 12, 12), padding=1, passes=passes)
    with pytest.raises(dlk.Error, match=r"dlk_conv2d_weights_create_for: argument 'src_type'"):
        c.conv2d_weights(w.astype(np.int8), (2, 32, 12, 12), padding=1, src_dtype="u8",
                         out_dtype="s32", passes=("backward_data",))
    c.close()


def test_conv2d_packed_forward_refuses_another_convolution():
    c = dlk.Context(backend="cpu", threads=2)
    w = np.ones((48, 32, 3, 3), np.float32)
    packed = c.conv2d_weights(w, (2, 32, 12, 12), padding=1)
    for shape, field, got, want in [((2, 32, 10, 12), "h", 10, 12), ((2, 32, 12, 14), "w", 14, 12),
                                    ((1, 16, 12, 12), "c", 16, 32),
                                    ((1, 12, 12, 32), "c", 12, 32)]:  # NHWC data
        message = (rf"dlk_conv2d_forward_packed: argument '{field}' is {got} but the packed "
                   rf"weights' desc has {want}")
        with pytest.raises(dlk.Error, match=message) as e:
            c.conv2d_forward_packed(np.ones(shape, np.float32), packed)
        assert e.value.status == "invalid_argument"
    x = np.ones((2, 32, 12, 12), np.float32)
    with pytest.raises(TypeError, match=r"_packed: 'src' is f16; this call takes f32"):
        c.conv2d_forward_packed(x.astype(np.float16), packed)
    with pytest.raises(TypeError, match=r"'out' is s32; this call takes f32"):
        c.conv2d_forward_packed(x, packed, out=np.empty((2, 48, 12, 12), np.int32))
    with pytest.raises(ValueError, match=r"'out' has shape \(1, 48, 12, 12\), expected \(2, 48"):
        c.conv2d_forward_packed(x, packed, out=np.empty((1, 48, 12, 12), np.float32))
    with pytest.raises(TypeError, match=r"conv2d_forward: 'weights' are packed.*_packed"):
        c.conv2d_forward(x, packed, padding=1)
    with pytest.raises(TypeError, match=r"conv2d_forward_packed: 'weights' is a ndarray"):
        c.conv2d_forward_packed(x, w)
    with dlk.Context(backend="cpu", threads=1) as other:
        with pytest.raises(ValueError, match="'weights' were packed on another context"):
            other.conv2d_forward_packed(x, packed)
    c.close()


def test_conv2d_weights_close_and_lifetime():
    c = dlk.Context(backend="cpu", threads=2)
    w = np.ones((16, 4, 3, 3), np.float32)
    x = np.ones((1, 4, 8, 8), np.float32)
    lib, handle = c._lib, c._handle

    def destroyed(raw):  # the context no longer knows the handle
        return lib.dlk_conv2d_weights_destroy(handle, raw) != 0

    packed = c.conv2d_weights(w, x.shape)
    raw = packed._handle
    packed.close()
    packed.close()
    assert destroyed(raw)
    with pytest.raises(dlk.Error, match=r"conv2d_forward_packed: 'weights' are closed"):
        c.conv2d_forward_packed(x, packed)
    with c.conv2d_weights(w, x.shape) as packed:
        raw = packed._handle
        c.conv2d_forward_packed(x, packed)
    assert destroyed(raw)
    packed = c.conv2d_weights(w, x.shape)
    raw = packed._handle
    del packed
    gc.collect()
    assert destroyed(raw)
    # The weights hold their context; a context closed first frees them itself.
    packed = c.conv2d_weights(w, x.shape)
    ref = weakref.ref(c)
    del c
    gc.collect()
    assert ref() is not None
    ref().close()
    with pytest.raises(dlk.Error, match="'weights' are closed"):
        ref().conv2d_forward_packed(x, packed)
    packed.close()
    del packed
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("kind", ["max", "avg_include_padding", "avg_exclude_padding"])
def test_pool2d_forward_backward(ctx, kind):
    torch.manual_seed(3)
    x = torch.randn(2, 3, 9, 10, dtype=torch.float64, requires_grad=True)
    if kind == "max":
        ref = F.max_pool2d(x, 3, 2, 1)
    else:
        ref = F.avg_pool2d(x, 3, 2, 1, count_include_pad=kind == "avg_include_padding")
    g = torch.randn_like(ref)
    ref.backward(g)
    y, argmax = ctx.pool2d_forward(on(ctx, x.detach().float()), 3, 2, 1, kind=kind)
    close(host(y), ref.detach().numpy(), 9)
    assert (argmax is not None) == (kind == "max")
    gx = ctx.pool2d_backward(on(ctx, g.float()), x.shape, 3, 2, 1, kind=kind, argmax=argmax)
    close(host(gx), x.grad.numpy(), 9)


def test_fpga_sim_reports_simulated_time():
    c = dlk.Context(backend="fpga_sim")
    a = np.ones((64, 64), np.float32)
    c.gemm(a, a)
    sim = c.last_sim()
    assert sim["cycles"] > 0 and sim["macs"] == 64 ** 3
    assert c.sim_seconds == pytest.approx(sim["seconds"])
    c.gemm(a, a)
    assert c.sim_seconds == pytest.approx(2 * sim["seconds"])


def test_context_settings():
    c = dlk.Context(backend="cpu", isa="scalar", threads=3)
    assert (c.backend, c.isa, c.threads) == ("cpu", "scalar", 3)
    assert dlk.version()[3] == dlk.ABI_VERSION


@pytest.mark.skipif(not HAVE_CUDA, reason="no cuda context or no CUDA torch")
def test_cuda_ops_order_against_torchs_stream():
    # torch's stream is kept busy by a large product when it queues the write of dlk's input,
    # and reads dlk's output right after the call: without the stream waits dlk would read the
    # input before its write, or torch the output before dlk wrote it.
    c = dlk.Context(backend="cuda")
    big = torch.randn(4096, 4096, device="cuda")
    eye = torch.eye(64, device="cuda")
    for step in range(3):
        a = torch.zeros(64, 64, device="cuda")
        torch.matmul(big, big)
        a.fill_(step + 1.0)
        out = c.gemm(a, eye)
        out.mul_(2)
        assert torch.equal(out.cpu(), torch.full((64, 64), 2.0 * (step + 1)))
    c.close()
