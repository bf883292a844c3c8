"""numpy arrays and torch tensors as the C calls see them: a pointer, a dtype, a shape.

No copy is ever made: an array that is not C-contiguous, of a dtype dlk has not, or on a
device the context cannot address is refused with a message naming the call and argument.
torch is imported only when a tensor is passed, so that numpy alone is enough.
"""
import sys

import numpy as np

_NUMPY_DTYPES = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
                 np.dtype(np.int8): "s8", np.dtype(np.uint8): "u8", np.dtype(np.int32): "s32"}


def _torch():
    return sys.modules.get("torch")


def is_torch(x):
    t = _torch()
    return t is not None and isinstance(x, t.Tensor)


def _torch_dtypes(torch):
    return {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
            torch.int8: "s8", torch.uint8: "u8", torch.int32: "s32"}


class View:
    """What a C call needs of one array argument."""
    __slots__ = ("obj", "ptr", "dtype", "shape", "is_torch")

    def __init__(self, obj, ptr, dtype, shape, torch_tensor):
        self.obj, self.ptr, self.dtype, self.shape, self.is_torch = \
            obj, ptr, dtype, shape, torch_tensor


def view(x, call, arg, device="cpu", dtypes=None, writable=False):
    """x (numpy array or torch tensor) as a View, checked: C-contiguous, a dtype of dlk (one
    of dtypes when given), on `device` ("cpu" for the cpu and fpga_sim backends)."""
    if isinstance(x, np.ndarray):
        if device != "cpu":
            raise ValueError(f"{call}: '{arg}' is a numpy array (host memory), but the context's "
                             f"backend is {device}: pass a {device} torch tensor")
        dtype = _NUMPY_DTYPES.get(x.dtype)
        if dtype is None:
            raise TypeError(f"{call}: '{arg}' has dtype {x.dtype}; dlk takes float32, float16, "
                            f"int8, uint8, int32 (bfloat16 as a torch tensor)")
        if not x.flags.c_contiguous:
            raise ValueError(f"{call}: '{arg}' is not C-contiguous (strides {x.strides} for shape "
                             f"{x.shape}): pass np.ascontiguousarray({arg}); dlk makes no copies")
        if writable and not x.flags.writeable:
            raise ValueError(f"{call}: '{arg}' is read-only, and the call writes it")
        ptr = x.ctypes.data
        torch_tensor = False
    elif is_torch(x):
        torch = _torch()
        dtype = _torch_dtypes(torch).get(x.dtype)
        if dtype is None:
            raise TypeError(f"{call}: '{arg}' has dtype {x.dtype}; dlk takes torch.float32, "
                            f"float16, bfloat16, int8, uint8, int32")
        if x.device.type != device:
            raise ValueError(f"{call}: '{arg}' is on device '{x.device}', but the context's "
                             f"backend computes on {device} memory: move it with .to('{device}') "
                             f"or make a context of a backend for that device")
        if not x.is_contiguous():
            raise ValueError(f"{call}: '{arg}' is not contiguous (stride {tuple(x.stride())} for "
                             f"shape {tuple(x.shape)}): pass {arg}.contiguous(); dlk makes no "
                             f"copies")
        if writable and x.requires_grad and x.is_leaf:
            raise ValueError(f"{call}: '{arg}' is a leaf that requires grad; dlk would write it "
                             f"behind autograd's back")
        ptr = x.data_ptr()
        torch_tensor = True
    else:
        raise TypeError(f"{call}: '{arg}' is a {type(x).__name__}; dlk takes a numpy.ndarray or "
                        f"a torch.Tensor")
    if dtypes is not None and dtype not in dtypes:
        raise TypeError(f"{call}: '{arg}' is {dtype}; this call takes {', '.join(dtypes)}")
    return View(x, ptr, dtype, tuple(x.shape), torch_tensor)


def check_shape(v, shape, call, arg):
    if tuple(v.shape) != tuple(shape):
        raise ValueError(f"{call}: '{arg}' has shape {tuple(v.shape)}, expected {tuple(shape)}")


def check_ndim(v, ndim, call, arg, what):
    if len(v.shape) != ndim:
        raise ValueError(f"{call}: '{arg}' has {len(v.shape)} dimensions {tuple(v.shape)}; "
                         f"expected {ndim} ({what})")


_NUMPY_OF = {"f32": np.float32, "f16": np.float16, "s8": np.int8, "u8": np.uint8,
             "s32": np.int32}


def empty_like_kind(like, shape, dtype):
    """A new C-contiguous array of shape and dtype: a torch tensor (on like's device) when
    like is one, else numpy."""
    if like.is_torch:
        torch = _torch()
        rev = {v: k for k, v in _torch_dtypes(torch).items()}
        return torch.empty(shape, dtype=rev[dtype], device=like.obj.device)
    if dtype not in _NUMPY_OF:
        raise TypeError(f"dlk: numpy has no {dtype}")
    return np.empty(shape, dtype=_NUMPY_OF[dtype])


def scales_array(scales, call):
    """Scales are host float32 values: a 1-D array (kept alive by the caller)."""
    if scales is None:
        return None
    a = np.ascontiguousarray(np.asarray(scales, dtype=np.float32).reshape(-1))
    if a.size == 0:
        raise ValueError(f"{call}: 'scales' is empty")
    return a


def float32_vector(x, call, arg, writable=False):
    """A flat float32 view: (View, element count)."""
    v = view(x, call, arg, dtypes=("f32",), writable=writable)
    n = 1
    for d in v.shape:
        n *= d
    return v, n
