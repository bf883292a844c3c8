"""torch layers whose forward and backward run on dlk: drop-in for torch.nn.Conv2d, Linear,
MaxPool2d and AvgPool2d (same parameters, initialisation and state_dict), each an autograd
Function over a dlk.Context of any backend. On fpga_sim, the context's sim_seconds sums the
simulated accelerator time of the model's layers."""
import torch

from ..context import Context

_default = {}


def default_context():
    """The context the layers use when none is given: one per thread (a context is used by
    one thread at a time), from the environment (DLK_BACKEND, DLK_NUM_THREADS, ...)."""
    import threading
    key = threading.get_ident()
    ctx = _default.get(key)
    if ctx is None:
        ctx = _default[key] = Context()
    return ctx


def _contig(t):
    return t if t.is_contiguous() else t.contiguous()


def _f32(t):
    """A layer's bias as dlk takes it whatever the model's dtype: float32 values."""
    return _contig(t) if t.dtype == torch.float32 else t.float()


class Conv2dFunction(torch.autograd.Function):
    @staticmethod
    def forward(fctx, x, weight, bias, stride, padding, dilation, groups, dlk_ctx):
        x = _contig(x)
        weight = _contig(weight)
        fctx.save_for_backward(x, weight)
        fctx.conf = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        fctx.bias_dtype = None if bias is None else bias.dtype
        fctx.dlk_ctx = dlk_ctx
        return dlk_ctx.conv2d_forward(x, weight, None if bias is None else _f32(bias),
                                      **fctx.conf)

    @staticmethod
    def backward(fctx, grad):
        x, weight = fctx.saved_tensors
        grad = _contig(grad)
        ctx = fctx.dlk_ctx
        gx = gw = gb = None
        if fctx.needs_input_grad[0]:
            gx = ctx.conv2d_backward_data(grad, weight, x.shape, **fctx.conf)
        has_bias = fctx.bias_dtype is not None
        if fctx.needs_input_grad[1] or (has_bias and fctx.needs_input_grad[2]):
            gw, gb = ctx.conv2d_backward_weights(x, grad, weight.shape, bias=has_bias,
                                                 **fctx.conf)
            if gb is not None:  # dlk sums it in f32; bf16 / f16 models get it rounded once
                gb = gb.to(fctx.bias_dtype)
        return gx, gw, gb, None, None, None, None, None


class LinearFunction(torch.autograd.Function):
    """y = x W^T + b as dlk GEMMs; x may have leading dimensions (flattened)."""

    @staticmethod
    def forward(fctx, x, weight, bias, dlk_ctx):
        x2 = _contig(x).reshape(-1, x.shape[-1])
        weight = _contig(weight)
        fctx.save_for_backward(x2, weight)
        fctx.dlk_ctx = dlk_ctx
        fctx.in_shape = x.shape
        fctx.has_bias = bias is not None
        if bias is None:
            y = dlk_ctx.gemm(x2, weight, trans_b=True)
        else:
            y = torch.empty(x2.shape[0], weight.shape[0], dtype=x.dtype, device=x.device)
            y.copy_(bias)  # a fresh C: expand(...).contiguous() may alias the bias itself
            dlk_ctx.gemm(x2, weight, y, trans_b=True, beta=1.0)
        return y.reshape(*x.shape[:-1], weight.shape[0])

    @staticmethod
    def backward(fctx, grad):
        x2, weight = fctx.saved_tensors
        g2 = _contig(grad).reshape(-1, weight.shape[0])
        ctx = fctx.dlk_ctx
        gx = gw = gb = None
        if fctx.needs_input_grad[0]:
            gx = ctx.gemm(g2, weight).reshape(fctx.in_shape)
        if fctx.needs_input_grad[1]:
            gw = ctx.gemm(g2, x2, trans_a=True)
        if fctx.has_bias and fctx.needs_input_grad[2]:
            gb = g2.sum(0)
        return gx, gw, gb, None


class Pool2dFunction(torch.autograd.Function):
    @staticmethod
    def forward(fctx, x, kind, kernel, stride, padding, dlk_ctx):
        x = _contig(x)
        y, argmax = dlk_ctx.pool2d_forward(x, kernel, stride, padding, kind=kind)
        fctx.conf = (kernel, stride, padding)
        fctx.kind, fctx.shape, fctx.dlk_ctx = kind, x.shape, dlk_ctx
        if argmax is not None:
            fctx.save_for_backward(argmax)
        return y

    @staticmethod
    def backward(fctx, grad):
        argmax = fctx.saved_tensors[0] if fctx.kind == "max" else None
        gx = fctx.dlk_ctx.pool2d_backward(_contig(grad), fctx.shape, *fctx.conf, kind=fctx.kind,
                                          argmax=argmax)
        return gx, None, None, None, None, None


class _DlkLayer:
    def _ctx(self):
        return self.dlk_context if self.dlk_context is not None else default_context()


class Conv2d(_DlkLayer, torch.nn.Conv2d):
    """torch.nn.Conv2d on dlk (padding_mode 'zeros', integer padding); context=None uses
    default_context()."""

    def __init__(self, *args, context=None, **kwargs):
        super().__init__(*args, **kwargs)
        if self.padding_mode != "zeros" or isinstance(self.padding, str):
            raise ValueError("dlk.torch.nn.Conv2d: only padding_mode='zeros' with integer "
                             f"padding is supported, not {self.padding_mode!r}/{self.padding!r}")
        self.dlk_context = context

    def forward(self, x):
        return Conv2dFunction.apply(x, self.weight, self.bias, self.stride, self.padding,
                                    self.dilation, self.groups, self._ctx())


class Linear(_DlkLayer, torch.nn.Linear):
    """torch.nn.Linear on dlk."""

    def __init__(self, *args, context=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.dlk_context = context

    def forward(self, x):
        return LinearFunction.apply(x, self.weight, self.bias, self._ctx())


def _no_extras(name, ceil_mode, extras):
    if ceil_mode:
        raise ValueError(f"dlk.torch.nn.{name}: ceil_mode=True is not supported")
    bad = {k: v for k, v in extras.items() if v}
    if bad:
        raise ValueError(f"dlk.torch.nn.{name}: {', '.join(bad)} not supported")


class MaxPool2d(_DlkLayer, torch.nn.MaxPool2d):
    """torch.nn.MaxPool2d on dlk (dilation 1, no ceil_mode, no return_indices)."""

    def __init__(self, *args, context=None, **kwargs):
        super().__init__(*args, **kwargs)
        _no_extras("MaxPool2d", self.ceil_mode,
                   {"dilation != 1": self.dilation not in (1, (1, 1)),
                    "return_indices": self.return_indices})
        self.dlk_context = context

    def forward(self, x):
        return Pool2dFunction.apply(x, "max", self.kernel_size, self.stride, self.padding,
                                    self._ctx())


class AvgPool2d(_DlkLayer, torch.nn.AvgPool2d):
    """torch.nn.AvgPool2d on dlk (no ceil_mode, no divisor_override)."""

    def __init__(self, *args, context=None, **kwargs):
        super().__init__(*args, **kwargs)
        _no_extras("AvgPool2d", self.ceil_mode,
                   {"divisor_override": self.divisor_override is not None})
        self.dlk_context = context

    def forward(self, x):
        kind = "avg_include_padding" if self.count_include_pad else "avg_exclude_padding"
        return Pool2dFunction.apply(x, kind, self.kernel_size, self.stride, self.padding,
                                    self._ctx())
