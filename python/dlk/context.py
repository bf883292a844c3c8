"""dlk.Context: a libdlk context and its ops on numpy arrays and torch tensors."""
import ctypes as C
import os

from . import _c, _library
from ._errors import Error
from ._tensors import (check_ndim, check_shape, empty_like_kind, scales_array, view)


def _pair(v, name, call):
    if isinstance(v, int):
        return v, v
    if isinstance(v, (tuple, list)) and len(v) == 2 and all(isinstance(e, int) for e in v):
        return int(v[0]), int(v[1])
    raise TypeError(f"{call}: '{name}' must be an int or a pair of ints, not {v!r}")


def _torch_stream(device):
    """A new torch stream on CUDA device `device` for a cuda context, or None where torch (or
    its CUDA) is missing: such a context's ops can take no tensor anyway."""
    try:
        import torch
        if not torch.cuda.is_available():
            return None
        return torch.cuda.Stream(device=device)
    except ImportError:
        return None


class _Closable:
    """close() at the end of a with block, or when garbage-collected."""

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Context(_Closable):
    """A dlk context: one backend, one ISA, a thread count.

    Context(backend=None, isa=None, threads=0, verbose=-1, fpga_sim_config=None, device=0)
    Unset settings come from the environment (DLK_BACKEND, DLK_CPU_ISA, DLK_NUM_THREADS, ...).
    A context is used by one thread at a time. On fpga_sim, sim_seconds sums the simulated
    accelerator time of every op run on the context (reset_sim() sets it to 0). On cuda, ops
    take torch CUDA tensors of the context's device; the context computes on a torch stream of
    its own, and each op is ordered after the work already queued on torch's current stream,
    which in turn waits for the op (stream waits on the GPU: the host does not block).
    """

    def __init__(self, backend=None, isa=None, threads=0, verbose=-1, fpga_sim_config=None,
                 device=0):
        self._lib = _library.load("dlk")
        self._handle = None
        self._stream = None  # cuda: the torch.cuda.Stream the context computes on
        opts = _c.ContextOptions()
        self._lib.dlk_context_options_init_sized(C.byref(opts), C.sizeof(opts))
        self._keep = [s.encode() if s is not None else None
                      for s in (backend, isa, fpga_sim_config)]
        opts.backend, opts.cpu_isa, opts.fpga_sim_config = self._keep
        opts.num_threads = int(threads)
        opts.verbose = int(verbose)
        opts.device = int(device)
        asked = backend if backend is not None else os.environ.get("DLK_BACKEND", "auto")
        if asked == "cuda":
            self._stream = _torch_stream(opts.device)
        self._create(opts)
        if self._stream is None and self.info()["backend"] == "cuda":
            # auto chose cuda: again, on a torch stream, so that ops order against torch's
            self._stream = _torch_stream(opts.device)
            if self._stream is not None:
                self.close()
                self._create(opts)
        info = self.info()
        self.backend = info["backend"]
        self.isa = info["isa"]
        self.threads = info["num_threads"]
        self._device = "cuda" if self.backend == "cuda" else "cpu"
        self._sim = self.backend == "fpga_sim"
        self.sim_seconds = 0.0

    # ------------------------------------------------------------ housekeeping
    def _create(self, opts):
        opts.stream = self._stream.cuda_stream if self._stream is not None else None
        handle = C.c_void_p()
        self._check(self._lib.dlk_context_create(C.byref(handle), C.byref(opts)))
        self._handle = handle

    def _check(self, status):
        if status != 0:
            name = self._lib.dlk_status_name(status).decode()
            raise Error(self._lib.dlk_last_error().decode() or name, name)

    def close(self):
        if self._handle is not None:
            self._lib.dlk_context_destroy(self._handle)
            self._handle = None

    def __repr__(self):
        return f"dlk.Context(backend={self.backend!r}, isa={self.isa!r}, threads={self.threads})"

    def _h(self):
        if self._handle is None:
            raise Error("dlk.Context: the context is closed", "invalid_argument")
        return self._handle

    def info(self):
        """backend, device, isa, num_threads and the theoretical peaks, as a dict."""
        info = _c.ContextInfo()
        self._check(self._lib.dlk_context_get_info_sized(self._h(), C.byref(info),
                                                         C.sizeof(info)))
        return _c.struct_to_dict(info)

    def supports(self, op, a_type, b_type, c_type):
        ops = {v: k for k, v in _c.OP.items()}
        out = C.c_int()
        self._check(self._lib.dlk_context_supports(self._h(), ops[op], _c.DTYPE[a_type],
                                                   _c.DTYPE[b_type], _c.DTYPE[c_type],
                                                   C.byref(out)))
        return bool(out.value)

    def last_op(self):
        """What the last op did: op, implementation, seconds, flops, bytes, sim_cycles."""
        rec = _c.OpRecord()
        self._check(self._lib.dlk_context_last_op_sized(self._h(), C.byref(rec), C.sizeof(rec)))
        d = _c.struct_to_dict(rec)
        d["op"] = _c.OP.get(d["op"], d["op"])
        return d

    def last_sim(self):
        """fpga_sim: the simulated accelerator's record of the last op, as a dict."""
        rec = _c.SimRecord()
        rec.struct_size = C.sizeof(rec)
        self._check(self._lib.dlk_context_last_sim(self._h(), C.byref(rec)))
        d = _c.struct_to_dict(rec)
        del d["struct_size"]
        return d

    def reset_sim(self):
        self.sim_seconds = 0.0

    def synchronize(self):
        self._check(self._lib.dlk_synchronize(self._h()))

    def _run(self, fn, *args):
        """Calls the C op fn(*args), on cuda ordered between torch's work before and after."""
        self._ran(self._ordered(fn, *args))

    def _ordered(self, fn, *args):
        """fn(*args)'s status, on cuda ordered between torch's work before and after."""
        s = self._stream
        if s is None:
            return fn(*args)
        import torch
        current = torch.cuda.current_stream(s.device)
        s.wait_stream(current)  # inputs written, outputs' memory free, on torch's stream
        status = fn(*args)
        current.wait_stream(s)  # torch's next work sees the outputs
        return status

    def _ran(self, status):
        self._check(status)
        if self._sim:
            rec = _c.SimRecord()
            rec.struct_size = C.sizeof(rec)
            if self._lib.dlk_context_last_sim(self._handle, C.byref(rec)) == 0:
                self.sim_seconds += rec.seconds

    def _view(self, x, call, arg, **kw):
        return view(x, call, arg, device=self._device, **kw)

    # ------------------------------------------------------------ GEMM
    def gemm(self, a, b, out=None, *, trans_a=False, trans_b=False, alpha=1.0, beta=0.0,
             out_dtype=None, a_zero_point=0, c_zero_point=0, scales=None):
        """out = alpha * op(a) @ op(b) + beta * out, row-major.

        a is (m, k), or (k, m) with trans_a; b is (k, n), or (n, k) with trans_b; a leading
        batch dimension on a, b and out gives a batched GEMM (a 2-D a or b is shared). out is
        made when not given (beta must then be 0), of out_dtype (default: a's dtype, s32 for
        integer inputs). scales: one value (per tensor) or n (per column), float32.
        """
        call = "dlk.Context.gemm"
        va = self._view(a, call, "a")
        vb = self._view(b, call, "b")
        if len(va.shape) not in (2, 3) or len(vb.shape) not in (2, 3):
            raise ValueError(f"{call}: 'a' and 'b' must be 2-D matrices or 3-D batches, got "
                             f"{va.shape} and {vb.shape}")
        m, k = (va.shape[-1], va.shape[-2]) if trans_a else (va.shape[-2], va.shape[-1])
        kb, n = (vb.shape[-1], vb.shape[-2]) if trans_b else (vb.shape[-2], vb.shape[-1])
        if k != kb:
            raise ValueError(f"{call}: op(a) is {m} x {k} but op(b) is {kb} x {n}: the inner "
                             f"dimensions differ")
        batches = {s[0] for s in (va.shape, vb.shape) if len(s) == 3}
        if len(batches) > 1:
            raise ValueError(f"{call}: 'a' and 'b' have different batch counts {sorted(batches)}")
        batch = batches.pop() if batches else None
        if out_dtype is None:
            out_dtype = "s32" if va.dtype in ("s8", "u8") else va.dtype
        shape = (m, n) if batch is None else (batch, m, n)
        if out is None:
            if beta != 0:
                raise ValueError(f"{call}: beta is {beta} but no 'out' was given to accumulate "
                                 f"into")
            out = empty_like_kind(va, shape, out_dtype)
        vc = self._view(out, call, "out", writable=True)
        check_shape(vc, shape, call, "out")
        d = _c.GemmDesc()
        self._lib.dlk_gemm_desc_init_sized(C.byref(d), C.sizeof(d), _c.DTYPE[va.dtype],
                                           _c.DTYPE[vb.dtype], _c.DTYPE[vc.dtype], m, n, k)
        d.trans_a, d.trans_b = int(bool(trans_a)), int(bool(trans_b))
        d.lda, d.ldb, d.ldc = va.shape[-1], vb.shape[-1], n
        if batch is not None:
            d.batch_count = batch
            d.stride_a = m * k if len(va.shape) == 3 else 0
            d.stride_b = k * n if len(vb.shape) == 3 else 0
            d.stride_c = m * n
        d.alpha, d.beta = alpha, beta
        d.a_zero_point, d.c_zero_point = a_zero_point, c_zero_point
        sc = scales_array(scales, call)
        if sc is not None:
            d.scale_mode = _c.SCALE_PER_TENSOR if sc.size == 1 else _c.SCALE_PER_CHANNEL
            d.scales = sc.ctypes.data_as(C.POINTER(C.c_float))
        self._run(self._lib.dlk_gemm, self._h(), C.byref(d), va.ptr, vb.ptr, vc.ptr)
        return out

    # ------------------------------------------------------------ conv2d
    def _conv_desc(self, call, src_shape, w_shape, dtype, stride, padding, dilation, groups,
                   fmt, weights_dtype=None, dst_dtype=None):
        """The desc (all types dtype unless given: int8 has s8 weights under u8 src) and dst's
        shape."""
        if fmt not in _c.FORMAT:
            raise ValueError(f"{call}: 'format' must be 'nchw' or 'nhwc', not {fmt!r}")
        if len(src_shape) != 4 or len(w_shape) != 4:
            raise ValueError(f"{call}: src and weights must be 4-D, got {tuple(src_shape)} and "
                             f"{tuple(w_shape)}")
        if fmt == "nchw":
            n, c, h, w = src_shape
            k, _, kh, kw = w_shape
        else:
            n, h, w, c = src_shape
            k, kh, kw, _ = w_shape
        d = _c.Conv2dDesc()
        self._lib.dlk_conv2d_desc_init_sized(C.byref(d), C.sizeof(d), _c.DTYPE[dtype], n, c, h,
                                             w, k, kh, kw)
        d.format = _c.FORMAT[fmt]
        d.stride_h, d.stride_w = _pair(stride, "stride", call)
        d.pad_h, d.pad_w = _pair(padding, "padding", call)
        d.dilation_h, d.dilation_w = _pair(dilation, "dilation", call)
        d.groups = int(groups)
        d.weights_type = _c.DTYPE[weights_dtype or dtype]
        d.dst_type = _c.DTYPE[dst_dtype or dtype]
        oh, ow = C.c_int64(), C.c_int64()
        self._check(self._lib.dlk_conv2d_output_shape(C.byref(d), C.byref(oh), C.byref(ow)))
        expected_w = (k, c // max(d.groups, 1), kh, kw) if fmt == "nchw" else \
            (k, kh, kw, c // max(d.groups, 1))
        if tuple(w_shape) != expected_w:
            raise ValueError(f"{call}: weights have shape {tuple(w_shape)}, expected {expected_w} "
                             f"for {c} input channels in {d.groups} group(s)")
        dst_shape = (n, k, oh.value, ow.value) if fmt == "nchw" else (n, oh.value, ow.value, k)
        return d, dst_shape

    def _bias_ptr(self, bias, k, call):
        """The address of a forward's bias (k float32 values), or None."""
        if bias is None:
            return None
        vb = self._view(bias, call, "bias", dtypes=("f32",))
        check_shape(vb, (k,), call, "bias")
        return vb.ptr

    def conv2d_forward(self, src, weights, bias=None, out=None, *, stride=1, padding=0,
                       dilation=1, groups=1, relu=False, format="nchw"):
        """dst = conv2d(src, weights) + bias (then relu). src NCHW (or NHWC), weights
        k x c/groups x kh x kw (or k x kh x kw x c/groups), bias k float32 values."""
        call = "dlk.Context.conv2d_forward"
        if isinstance(weights, Conv2dWeights):
            raise TypeError(f"{call}: 'weights' are packed (dlk.Context.conv2d_weights): run "
                            f"them with conv2d_forward_packed")
        vs = self._view(src, call, "src")
        vw = self._view(weights, call, "weights")
        vd = None if out is None else self._view(out, call, "out", writable=True)
        d, dst_shape = self._conv_desc(call, vs.shape, vw.shape, vs.dtype, stride, padding,
                                       dilation, groups, format, vw.dtype,
                                       None if vd is None else vd.dtype)
        d.relu = int(bool(relu))
        bptr = self._bias_ptr(bias, d.k, call)
        if out is None:
            out = empty_like_kind(vs, dst_shape, vs.dtype)
            vd = self._view(out, call, "out", writable=True)
        check_shape(vd, dst_shape, call, "out")
        self._run(self._lib.dlk_conv2d_forward, self._h(), C.byref(d), vs.ptr, vw.ptr, bptr,
                  vd.ptr)
        return out

    def conv2d_weights(self, weights, src_shape, *, stride=1, padding=0, dilation=1, groups=1,
                       relu=False, format="nchw", src_dtype=None, out_dtype=None,
                       passes=("forward",)):
        """weights packed once (dlk_conv2d_weights_create_for), as a Conv2dWeights, for the
        passes named: "forward" (conv2d_forward_packed), "backward_data"
        (conv2d_backward_data_packed; float types), or both, as a training step packs them
        after each update. For a src of src_shape, of src_dtype (default: the weights' dtype),
        into an out of out_dtype (default: src_dtype). A call's src (diff_dst) may have another
        batch (src_shape[0]); all else is fixed here. The context keeps a copy of the weights,
        so they may change afterwards."""
        call = "dlk.Context.conv2d_weights"
        if isinstance(passes, str) or not passes or \
                any(name not in _c.CONV2D_PASS for name in passes):
            raise ValueError(f"{call}: 'passes' must name one or more of "
                             f"{', '.join(_c.CONV2D_PASS)}, not {passes!r}")
        bits = 0
        for name in passes:
            bits |= _c.CONV2D_PASS[name]
        vw = self._view(weights, call, "weights")
        src_dtype = vw.dtype if src_dtype is None else src_dtype
        out_dtype = src_dtype if out_dtype is None else out_dtype
        for arg, dtype in (("src_dtype", src_dtype), ("out_dtype", out_dtype)):
            if dtype not in _c.DTYPE:
                raise ValueError(f"{call}: '{arg}' must be one of {', '.join(_c.DTYPE)}, not "
                                 f"{dtype!r}")
        d, _ = self._conv_desc(call, tuple(src_shape), vw.shape, src_dtype, stride, padding,
                               dilation, groups, format, vw.dtype, out_dtype)
        d.relu = int(bool(relu))
        handle = C.c_void_p()
        # cuda: the context's stream copies the weights, so after torch's writes of them
        self._check(self._ordered(self._lib.dlk_conv2d_weights_create_for, self._h(),
                                  C.byref(d), vw.ptr, bits, C.byref(handle)))
        return Conv2dWeights(self, handle, d, tuple(src_shape), vw.shape, format, src_dtype,
                             out_dtype, bool(relu), tuple(passes))

    def conv2d_forward_packed(self, src, weights, bias=None, out=None):
        """conv2d_forward with weights packed by conv2d_weights (their stride, padding,
        dilation, groups, relu, format and types); src may have another batch than the one
        they were packed for, nothing else (dlk.Error names the field that differs)."""
        call = "dlk.Context.conv2d_forward_packed"
        packed = self._packed_handle(call, weights, "conv2d_forward")
        vs = self._view(src, call, "src", dtypes=(weights.src_dtype,))
        check_ndim(vs, 4, call, "src", weights.format.upper())
        d = _c.Conv2dDesc.from_buffer_copy(weights._desc)
        if weights.format == "nchw":
            d.n, d.c, d.h, d.w = vs.shape
        else:
            d.n, d.h, d.w, d.c = vs.shape
        dst_shape = self._conv_dst_shape(d, weights.format)
        bptr = self._bias_ptr(bias, d.k, call)
        if out is None:
            out = empty_like_kind(vs, dst_shape, weights.out_dtype)
        vd = self._view(out, call, "out", dtypes=(weights.out_dtype,), writable=True)
        check_shape(vd, dst_shape, call, "out")
        self._run(self._lib.dlk_conv2d_forward_packed, self._h(), C.byref(d), vs.ptr, packed,
                  bptr, vd.ptr)
        return out

    def _packed_handle(self, call, weights, plain_call):
        """The handle of weights that conv2d_weights packed on this context."""
        if not isinstance(weights, Conv2dWeights):
            raise TypeError(f"{call}: 'weights' is a {type(weights).__name__}; pass what "
                            f"dlk.Context.conv2d_weights made (plain weights: {plain_call})")
        if weights._ctx is not self:
            raise ValueError(f"{call}: 'weights' were packed on another context")
        return weights._h(call)

    def _conv_dst_shape(self, d, format):
        """The dst shape of desc d in format."""
        oh, ow = C.c_int64(), C.c_int64()
        self._check(self._lib.dlk_conv2d_output_shape(C.byref(d), C.byref(oh), C.byref(ow)))
        return (d.n, d.k, oh.value, ow.value) if format == "nchw" else \
            (d.n, oh.value, ow.value, d.k)

    def conv2d_backward_data_packed(self, diff_dst, weights, out=None):
        """conv2d_backward_data with weights packed by conv2d_weights for "backward_data"
        (their src shape, stride, padding, dilation, groups, format and type); diff_dst may
        have another batch than the one they were packed for, nothing else."""
        call = "dlk.Context.conv2d_backward_data_packed"
        packed = self._packed_handle(call, weights, "conv2d_backward_data")
        vdd = self._view(diff_dst, call, "diff_dst", dtypes=(weights.src_dtype,))
        check_ndim(vdd, 4, call, "diff_dst", weights.format.upper())
        d = _c.Conv2dDesc.from_buffer_copy(weights._desc)
        d.n, d.relu = vdd.shape[0], 0
        check_shape(vdd, self._conv_dst_shape(d, weights.format), call, "diff_dst")
        src_shape = (d.n, d.c, d.h, d.w) if weights.format == "nchw" else (d.n, d.h, d.w, d.c)
        if out is None:
            out = empty_like_kind(vdd, src_shape, weights.src_dtype)
        vds = self._view(out, call, "out", dtypes=(weights.src_dtype,), writable=True)
        check_shape(vds, src_shape, call, "out")
        self._run(self._lib.dlk_conv2d_backward_data_packed, self._h(), C.byref(d), vdd.ptr,
                  packed, vds.ptr)
        return out

    def conv2d_backward_data(self, diff_dst, weights, src_shape, out=None, *, stride=1,
                             padding=0, dilation=1, groups=1, format="nchw"):
        """diff_src (of src_shape) = conv2d^T(diff_dst, weights)."""
        call = "dlk.Context.conv2d_backward_data"
        if isinstance(weights, Conv2dWeights):
            raise TypeError(f"{call}: 'weights' are packed (dlk.Context.conv2d_weights): run "
                            f"them with conv2d_backward_data_packed")
        vdd = self._view(diff_dst, call, "diff_dst")
        vw = self._view(weights, call, "weights")
        d, dst_shape = self._conv_desc(call, tuple(src_shape), vw.shape, vdd.dtype, stride,
                                       padding, dilation, groups, format)
        check_shape(vdd, dst_shape, call, "diff_dst")
        if out is None:
            out = empty_like_kind(vdd, tuple(src_shape), vdd.dtype)
        vds = self._view(out, call, "out", writable=True)
        check_shape(vds, tuple(src_shape), call, "out")
        self._run(self._lib.dlk_conv2d_backward_data, self._h(), C.byref(d), vdd.ptr, vw.ptr,
                  vds.ptr)
        return out

    def conv2d_backward_weights(self, src, diff_dst, weights_shape, bias=True, out=None,
                                out_bias=None, *, stride=1, padding=0, dilation=1, groups=1,
                                format="nchw"):
        """(diff_weights, diff_bias) from src and diff_dst; diff_bias is None when bias is
        False."""
        call = "dlk.Context.conv2d_backward_weights"
        vs = self._view(src, call, "src")
        vdd = self._view(diff_dst, call, "diff_dst")
        d, dst_shape = self._conv_desc(call, vs.shape, tuple(weights_shape), vs.dtype, stride,
                                       padding, dilation, groups, format)
        check_shape(vdd, dst_shape, call, "diff_dst")
        if out is None:
            out = empty_like_kind(vs, tuple(weights_shape), vs.dtype)
        vdw = self._view(out, call, "out", writable=True)
        check_shape(vdw, tuple(weights_shape), call, "out")
        bptr = None
        if bias:
            if out_bias is None:
                out_bias = empty_like_kind(vs, (d.k,), "f32")
            vdb = self._view(out_bias, call, "out_bias", dtypes=("f32",), writable=True)
            check_shape(vdb, (d.k,), call, "out_bias")
            bptr = vdb.ptr
        self._run(self._lib.dlk_conv2d_backward_weights, self._h(), C.byref(d), vs.ptr,
                  vdd.ptr, vdw.ptr, bptr)
        return out, (out_bias if bias else None)

    # ------------------------------------------------------------ pool2d
    def _pool_desc(self, call, src_shape, dtype, kind, kernel, stride, padding, fmt):
        if kind not in _c.POOL_KIND:
            raise ValueError(f"{call}: 'kind' must be one of {', '.join(_c.POOL_KIND)}, not "
                             f"{kind!r}")
        if fmt not in _c.FORMAT:
            raise ValueError(f"{call}: 'format' must be 'nchw' or 'nhwc', not {fmt!r}")
        if len(src_shape) != 4:
            raise ValueError(f"{call}: src must be 4-D, got {tuple(src_shape)}")
        n, c, h, w = src_shape if fmt == "nchw" else (src_shape[0], src_shape[3], src_shape[1],
                                                      src_shape[2])
        kh, kw = _pair(kernel, "kernel", call)
        d = _c.Pool2dDesc()
        self._lib.dlk_pool2d_desc_init_sized(C.byref(d), C.sizeof(d), _c.POOL_KIND[kind],
                                             _c.DTYPE[dtype], n, c, h, w, kh, kw)
        d.format = _c.FORMAT[fmt]
        d.stride_h, d.stride_w = _pair(kernel if stride is None else stride, "stride", call)
        d.pad_h, d.pad_w = _pair(padding, "padding", call)
        oh, ow = C.c_int64(), C.c_int64()
        self._check(self._lib.dlk_pool2d_output_shape(C.byref(d), C.byref(oh), C.byref(ow)))
        dst_shape = (n, c, oh.value, ow.value) if fmt == "nchw" else (n, oh.value, ow.value, c)
        return d, dst_shape

    def pool2d_forward(self, src, kernel, stride=None, padding=0, *, kind="max", format="nchw",
                       out=None, argmax=True):
        """(dst, argmax): max or average pooling; stride defaults to the kernel. argmax
        (int32, one per dst element) is made for max pooling when argmax is True (or given
        as an array), None otherwise."""
        call = "dlk.Context.pool2d_forward"
        vs = self._view(src, call, "src")
        d, dst_shape = self._pool_desc(call, vs.shape, vs.dtype, kind, kernel, stride, padding,
                                       format)
        if out is None:
            out = empty_like_kind(vs, dst_shape, vs.dtype)
        vd = self._view(out, call, "out", writable=True)
        check_shape(vd, dst_shape, call, "out")
        aptr, am = None, None
        if kind == "max" and argmax is not False and argmax is not None:
            am = empty_like_kind(vs, dst_shape, "s32") if argmax is True else argmax
            va = self._view(am, call, "argmax", dtypes=("s32",), writable=True)
            check_shape(va, dst_shape, call, "argmax")
            aptr = va.ptr
        self._run(self._lib.dlk_pool2d_forward, self._h(), C.byref(d), vs.ptr, vd.ptr, aptr)
        return out, am

    def pool2d_backward(self, diff_dst, src_shape, kernel, stride=None, padding=0, *,
                        kind="max", argmax=None, format="nchw", out=None):
        """diff_src (of src_shape); max pooling needs the forward's argmax."""
        call = "dlk.Context.pool2d_backward"
        vdd = self._view(diff_dst, call, "diff_dst")
        d, dst_shape = self._pool_desc(call, tuple(src_shape), vdd.dtype, kind, kernel, stride,
                                       padding, format)
        check_shape(vdd, dst_shape, call, "diff_dst")
        aptr = None
        if argmax is not None:
            va = self._view(argmax, call, "argmax", dtypes=("s32",))
            check_shape(va, dst_shape, call, "argmax")
            aptr = va.ptr
        elif kind == "max":
            raise ValueError(f"{call}: max pooling's backward needs 'argmax' from the forward")
        if out is None:
            out = empty_like_kind(vdd, tuple(src_shape), vdd.dtype)
        vds = self._view(out, call, "out", writable=True)
        check_shape(vds, tuple(src_shape), call, "out")
        self._run(self._lib.dlk_pool2d_backward, self._h(), C.byref(d), vdd.ptr, aptr, vds.ptr)
        return out


class Conv2dWeights(_Closable):
    """A convolution's weights packed on a context (dlk.Context.conv2d_weights), for
    dlk.Context.conv2d_forward_packed and conv2d_backward_data_packed, as its passes say.
    close() (or the end of a with block, or garbage collection) frees them; it holds its
    context, which frees what is left when closed."""

    def __init__(self, ctx, handle, desc, src_shape, weights_shape, format, src_dtype,
                 out_dtype, relu, passes):
        self._ctx, self._handle, self._desc = ctx, handle, desc
        self.src_shape, self.weights_shape, self.format = src_shape, weights_shape, format
        self.src_dtype, self.out_dtype, self.relu = src_dtype, out_dtype, relu
        self.passes = passes

    def _h(self, call):
        if self._handle is None or self._ctx._handle is None:
            raise Error(f"{call}: 'weights' are closed (or their context is)",
                        "invalid_argument")
        return self._handle

    def close(self):
        h, self._handle = self._handle, None
        if h is not None and self._ctx._handle is not None:
            self._ctx._check(self._ctx._lib.dlk_conv2d_weights_destroy(self._ctx._handle, h))

    def __repr__(self):
        d = self._desc
        state = "" if self._handle is not None and self._ctx._handle is not None else ", closed"
        return (f"dlk.Conv2dWeights(src_shape={self.src_shape}, "
                f"weights_shape={self.weights_shape}, stride=({d.stride_h}, {d.stride_w}), "
                f"padding=({d.pad_h}, {d.pad_w}), dilation=({d.dilation_h}, {d.dilation_w}), "
                f"groups={d.groups}, relu={self.relu}, format={self.format!r}, "
                f"src_dtype={self.src_dtype!r}, out_dtype={self.out_dtype!r}, "
                f"passes={self.passes!r}{state})")


def version():
    """libdlk's version: (major, minor, patch, abi)."""
    v = _library.load("dlk").dlk_get_version()
    return v.major, v.minor, v.patch, v.abi
