"""Bad input gets a clear error before any C call (Python's checks), or dlk's own message as
dlk.Error; a library of another ABI is refused, naming both numbers."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import dlk
import dlk.compress
from devices import CUDA_WHY_NOT, HAVE_CUDA


@pytest.fixture(scope="module")
def ctx():
    c = dlk.Context(backend="cpu", threads=1)
    yield c
    c.close()


def test_non_contiguous(ctx):
    a = np.ones((8, 4), np.float32)
    with pytest.raises(ValueError, match=r"gemm: 'a' is not C-contiguous"):
        ctx.gemm(a.T, a)
    x = torch.ones(1, 2, 8, 8).transpose(2, 3)
    with pytest.raises(ValueError, match=r"conv2d_forward: 'src' is not contiguous"):
        ctx.conv2d_forward(x, torch.ones(2, 2, 3, 3))


def test_wrong_dtype(ctx):
    with pytest.raises(TypeError, match=r"'a' has dtype float64"):
        ctx.gemm(np.ones((2, 2)), np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match=r"'src' has dtype torch.float64"):
        ctx.pool2d_forward(torch.ones(1, 1, 4, 4, dtype=torch.float64), 2)
    with pytest.raises(TypeError, match="numpy.ndarray or a torch.Tensor"):
        ctx.gemm([[1.0]], [[1.0]])


def test_tensor_on_another_device(ctx):
    # No CUDA here: a tensor on the 'meta' device stands for any memory the cpu backend
    # cannot address; the check is the same for a CUDA tensor.
    x = torch.empty(1, 1, 4, 4, device="meta")
    with pytest.raises(ValueError, match=r"'src' is on device 'meta'.*cpu memory"):
        ctx.pool2d_forward(x, 2)


@pytest.mark.skipif(not torch.cuda.is_available(),
                    reason=f"torch {torch.__version__} sees no CUDA device")
def test_cuda_tensor_on_the_cpu_backend(ctx):
    x = torch.ones(1, 1, 4, 4, device="cuda")
    with pytest.raises(ValueError, match=r"'src' is on device 'cuda:0'.*cpu memory.*\.to\('cpu'\)"):
        ctx.pool2d_forward(x, 2)


@pytest.mark.skipif(not HAVE_CUDA, reason=f"no cuda: {CUDA_WHY_NOT}")
def test_host_memory_on_the_cuda_backend():
    c = dlk.Context(backend="cuda")
    with pytest.raises(ValueError, match=r"'a' is a numpy array \(host memory\).*cuda"):
        c.gemm(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match=r"'b' is on device 'cpu'.*cuda memory"):
        c.gemm(torch.ones(2, 2, device="cuda"), torch.ones(2, 2))
    c.close()


def test_shapes(ctx):
    with pytest.raises(ValueError, match="inner dimensions differ"):
        ctx.gemm(np.ones((2, 3), np.float32), np.ones((4, 2), np.float32))
    with pytest.raises(ValueError, match=r"'out' has shape \(2, 2\), expected \(2, 3\)"):
        ctx.gemm(np.ones((2, 3), np.float32), np.ones((3, 3), np.float32),
                 np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match="weights have shape"):
        ctx.conv2d_forward(np.ones((1, 3, 5, 5), np.float32), np.ones((2, 2, 3, 3), np.float32))


def test_dlk_message_passes_through(ctx):
    with pytest.raises(dlk.Error, match="stride_h") as e:
        ctx.conv2d_forward(np.ones((1, 1, 5, 5), np.float32), np.ones((1, 1, 3, 3), np.float32),
                           stride=0)
    assert e.value.status == "invalid_argument"
    with pytest.raises(dlk.Error, match="backend"):
        dlk.Context(backend="no_such_backend")
    with pytest.raises(dlk.Error):
        dlk.compress.decode(b"\x00" * 40)


def test_layer_refuses_what_it_cannot_do():
    import dlk.torch
    with pytest.raises(ValueError, match="ceil_mode"):
        dlk.torch.nn.MaxPool2d(2, ceil_mode=True)
    with pytest.raises(ValueError, match="padding_mode"):
        dlk.torch.nn.Conv2d(1, 1, 3, padding_mode="reflect")


FAKE_LIBDLK = r"""
typedef struct { int major, minor, patch, abi; } v;
v dlk_get_version(void) { v r = {9, 0, 0, 9}; return r; }
"""


def _import_in(tmp_path, library_dir):
    code = textwrap.dedent("""
        import dlk
        try:
            dlk.Context(backend="cpu")
        except dlk.LibraryError as e:
            print(e)
        else:
            print("loaded")
    """)
    env = dict(os.environ, DLK_LIBRARY_PATH=str(library_dir))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True).stdout


def test_mismatched_library(tmp_path):
    src = tmp_path / "fake.c"
    src.write_text(FAKE_LIBDLK)
    same_name = tmp_path / "same_name"
    same_name.mkdir()
    subprocess.run([os.environ.get("DLK_TEST_CC", "cc"), "-shared", "-fPIC", str(src), "-o",
                    str(same_name / "libdlk.so.0")], check=True)
    out = _import_in(tmp_path, same_name)
    assert "reports ABI 9" in out and "written for ABI 0" in out, out
    other_name = tmp_path / "other_name"
    other_name.mkdir()
    os.rename(same_name / "libdlk.so.0", other_name / "libdlk.so.9")
    out = _import_in(tmp_path, other_name)
    assert "libdlk ABI 9" in out and "libdlk.so.0" in out, out
    out = _import_in(tmp_path, tmp_path / "empty")
    assert "no libdlk.so.0 in DLK_LIBRARY_PATH" in out, out
