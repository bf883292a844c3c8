"""Under mpiexec -n 2 (tests/mpi/training_checks.py, one launch): dlk.comm's Buffer,
iallreduce, state and Synchronizer; the DDP hook and the DistributedOptimizer on a small
classifier with several algorithms: the loss falls, both ranks end with bit-identical
parameters, and a run resumed from a state_dict at step 6 ends bit-identical to the run
that went on."""
import json

import pytest

from conftest import run_mpi


@pytest.fixture(scope="module")
def results():
    out = run_mpi("training_checks.py")
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULTS ")]
    assert line, out.stdout
    return json.loads(line[0][len("RESULTS "):])


def test_comm_api(results):
    r = results["comm_api"]
    assert r["allreduce"] and r["synchronizer"] and r["size_refused"], r
    assert r["mismatch"] == "mismatch", r  # dlk's message names both counts


HOOK = ["native", "ring", "int8", "onebit", "topk", "onebit+mc", "topk+mc"]
OPTIMIZER = ["native", "int4", "bf16", "onebit", "onebit+mc"]


@pytest.mark.parametrize("name", [f"hook:{a}" for a in HOOK] +
                         [f"optimizer:{a}" for a in OPTIMIZER])
def test_training(results, name):
    r = results[name]
    assert r["loss_falls"], r["losses"]
    assert r["ranks_identical"], "the two ranks' parameters differ"
    assert r["resume_identical"], "the resumed run differs from the one that went on"


def test_hook_follows_ddp_rebuild(results):
    # DDP rebuilds its bucket in gradient-arrival order after the first step: the hook makes
    # a buffer in that order (no gather and scatter every step); a run resumed from a
    # checkpoint gathers its first step (DDP's initial order) into the restored buffer's order
    # (else the resume check fails).
    r = results["hook:int8"]
    assert r["rebuilds"] > 0 and r["reordered"] == 0, r
    assert r["resumed_reordered"] > 0, r


@pytest.mark.parametrize("name", ["hook:onebit+mc", "hook:topk+mc", "optimizer:onebit+mc"])
def test_momentum_correction_keeps_sgd_buffer_allreduced(results, name):
    # SGD fed U_t - m U_{t-1} keeps its momentum buffer equal to the all-reduced momentum
    # U_t, through DDP's bucket rebuild (the local momentum follows it into the new order)
    # and in the run resumed from a state_dict.
    r = results[name]
    assert r["momentum_mismatch"] < 1e-5, r
    if name.startswith("hook:"):
        assert r["rebuilds"] > 0, r
