"""dlk from Python: libdlk's ops on numpy arrays and torch CPU tensors, libdlk_compress's
codecs and libdlk_comm's all-reduces, over the public C ABI with ctypes (nothing is compiled
against one Python or torch version). docs/python.md.

    import dlk
    ctx = dlk.Context(backend="cpu", threads=2)
    c = ctx.gemm(a, b)

dlk.compress and dlk.comm are submodules; dlk.torch (layers, a DDP communication hook, a
Horovod-style DistributedOptimizer) needs torch.
"""
from ._c import ABI_VERSION
from ._errors import Error, LibraryError
from .context import Context, Conv2dWeights, version

__version__ = "0.1.0"
__all__ = ["ABI_VERSION", "Context", "Conv2dWeights", "Error", "LibraryError", "version"]
