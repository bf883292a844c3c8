"""The examples of python/examples run under mpiexec -n 2, on a few steps of Fashion-MNIST
(Debian's dataset-fashion-mnist): each prints a row per algorithm, with an accuracy or a
time, so that a change to the package that breaks an example fails here."""
import os

from conftest import PACKAGE_ROOT, run_mpi_file

EXAMPLES = os.path.join(PACKAGE_ROOT, "examples")
SHORT = ["--train-subset", "640", "--test-subset", "200"]


def rows(stdout, names):
    """The rows of stdout that start with one of names, as lists of fields."""
    found = [ln.split() for ln in stdout.splitlines() if ln.split()[:1] and ln.split()[0] in names]
    assert [r[0] for r in found] == list(names), stdout
    return found


def test_lenet5_ddp_hook():
    names = ["ddp", "int8", "onebit", "topk", "onebit+mc"]
    out = run_mpi_file(os.path.join(EXAMPLES, "lenet5_ddp_hook.py"),
                       "--algorithm", ",".join(names), *SHORT)
    for r in rows(out.stdout, names):
        assert 0.0 <= float(r[1]) <= 100.0 and int(r[3]) == 10, r  # accuracy %, 10 steps


def test_lenet5_optimizer():
    names = ["native", "int4", "fp16", "onebit+mc"]
    out = run_mpi_file(os.path.join(EXAMPLES, "lenet5_optimizer.py"),
                       "--algorithm", ",".join(names), "--block-size", "64", *SHORT)
    for r in rows(out.stdout, names):
        assert 0.0 <= float(r[1]) <= 100.0 and int(r[3]) == 10, r


def test_ddp_link_compare():
    names = ["ddp", "nocomm", "ddp_fp16", "ddp_powersgd", "int8", "onebit+mc"]
    out = run_mpi_file(os.path.join(EXAMPLES, "ddp_link_compare.py"), "--model", "lenet5",
                       "--steps", "4", "--skip", "1", "--paired", "--algorithm", ",".join(names * 2))
    table = out.stdout.split("# over the passes")
    assert len(table) == 2, out.stdout
    rows(table[0], names * 2)
    summary = rows(table[1], names)
    assert all(int(r[1]) == 2 for r in summary) and float(summary[0][3]) == 1.0, summary
