"""The backends these tests run on and the memory each computes on: the cpu and fpga_sim
backends take numpy arrays and CPU tensors, cuda takes CUDA tensors (where a GPU, a
CUDA-enabled torch and libdlk_cuda are all there)."""
import numpy as np
import torch

import dlk


def _cuda_why_not():
    if not torch.cuda.is_available():
        return f"torch {torch.__version__} sees no CUDA device"
    try:
        dlk.Context(backend="cuda").close()
    except dlk.Error as e:
        return f"no dlk cuda context: {e}"
    return None


CUDA_WHY_NOT = _cuda_why_not()
HAVE_CUDA = CUDA_WHY_NOT is None


def device_of(ctx):
    return "cuda" if ctx.backend == "cuda" else "cpu"


def on(ctx, x):
    """x (numpy array or torch tensor) in the memory ctx computes on: unchanged for the host
    backends, a CUDA tensor for cuda."""
    if ctx.backend != "cuda":
        return x
    t = torch.from_numpy(x) if isinstance(x, np.ndarray) else x
    return t.to("cuda").contiguous()


def host(y):
    """y as a numpy array on the host."""
    return y.detach().cpu().numpy() if isinstance(y, torch.Tensor) else y
