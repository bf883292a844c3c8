"""`pip install ./python` on this machine, offline: into a fresh virtual environment that
sees Debian's numpy and torch (--system-site-packages), building with Debian's setuptools
(--no-build-isolation: pip's isolated build would fetch setuptools from an index). Then the
installed package runs a GEMM on the libraries of DLK_LIBRARY_PATH.
    pip_install_check.py <python source dir> <scratch dir>"""
import os
import shutil
import subprocess
import sys

source, scratch = sys.argv[1], sys.argv[2]
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
# A copy: setuptools writes build/ and *.egg-info beside the sources it builds.
tree = os.path.join(scratch, "src")
shutil.copytree(source, tree, ignore=shutil.ignore_patterns("__pycache__", "build",
                                                            "*.egg-info", "tests"))
venv = os.path.join(scratch, "venv")
# Without its own pip (ensurepip takes most of the time): Debian's pip installs into it.
subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv],
               check=True)
py = os.path.join(venv, "bin", "python")
subprocess.run([sys.executable, "-m", "pip", "--python", py, "install", "--no-index",
                "--no-build-isolation", "--disable-pip-version-check", "-q", tree], check=True)
code = ("import dlk, numpy as np; import dlk.torch; c = dlk.Context(backend='cpu'); "
        "a = np.eye(3, dtype=np.float32); assert (c.gemm(a, a) == a).all(); "
        "print(dlk.__file__)")
env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # not the source tree
out = subprocess.run([py, "-c", code], check=True, capture_output=True, text=True,
                     cwd=scratch, env=env).stdout.strip()
assert out.startswith(venv), f"dlk imported from {out}, not from the virtual environment"
print(f"pip install ./python: ok ({out})")
