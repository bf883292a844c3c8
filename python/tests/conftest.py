"""Shared fixtures. The libraries come from DLK_LIBRARY_PATH (ctest sets it to the build
tree); the MPI tests launch DLK_TEST_MPIEXEC (default mpiexec) with 2 ranks."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)


def mpi_env():
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env.setdefault("OMPI_MCA_mpi_yield_when_idle", "1")
    env["PYTHONPATH"] = PACKAGE_ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_mpi(script, *args, ranks=2, timeout=240):
    """Runs python/tests/mpi/<script> on `ranks` ranks; returns the completed process."""
    return run_mpi_file(os.path.join(HERE, "mpi", script), *args, ranks=ranks, timeout=timeout)


def run_mpi_file(path, *args, ranks=2, timeout=240):
    """Runs the Python file at path on `ranks` ranks; returns the completed process."""
    cmd = [os.environ.get("DLK_TEST_MPIEXEC", "mpiexec"), "-n", str(ranks), "--oversubscribe",
           "--bind-to", "none", sys.executable, path, *args]
    p = subprocess.run(cmd, env=mpi_env(), capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} exited {p.returncode}\n--- stdout\n{p.stdout}\n"
                    f"--- stderr\n{p.stderr[-4000:]}")
    return p
