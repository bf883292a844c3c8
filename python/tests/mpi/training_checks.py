"""Run under mpiexec -n 2 by test_mpi.py: libdlk_comm's Python API, the DDP hook and the
DistributedOptimizer on a small classifier. Rank 0 prints one JSON object: check -> result."""
import copy
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

import dlk
import dlk.comm
import dlk.torch as dt

HOOK_ALGORITHMS = ["native", "ring", "int8", "onebit", "topk", "onebit+mc", "topk+mc"]
OPTIMIZER_ALGORITHMS = ["native", "int4", "bf16", "onebit", "onebit+mc"]
comm = dlk.comm.world()
rank, size = comm.rank, comm.size
torch.set_num_threads(1)
results = {}


def identical_across_ranks(tensors):
    """Bitwise: rank 0's values plus the other rank's negated sum to exactly 0 only when
    equal (2 ranks)."""
    flat = torch.cat([t.detach().reshape(-1) for t in tensors]).clone()
    if rank:
        flat.neg_()
    buf = dlk.comm.Buffer(comm, flat.numel(), "native")
    buf.allreduce(flat)
    buf.close()
    return bool((flat == 0).all())


def batch(step):
    g = torch.Generator().manual_seed(1000 * step + rank)
    x = torch.randn(64, 20, generator=g)
    return x, (x[:, 0] > 0).long() + (x[:, 1] > 0).long()


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))


def train(step_fn, first, steps):
    losses = []
    for s in range(first, first + steps):
        x, y = batch(s)
        losses.append(step_fn(x, y))
    return losses


def split(name):
    """'onebit+mc' -> ('onebit', True): with momentum correction."""
    return (name[:-3], True) if name.endswith("+mc") else (name, False)


def hook_run(name, saved=None, first=0, steps=10, save_at=None):
    algorithm, corrected = split(name)
    m = model()
    if saved:
        m.load_state_dict(saved["model"])
    ddp = DDP(m)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    state = dt.AllreduceHookState(algorithm, communicator=comm,
                                  optimizer=opt if corrected else None)
    if saved:
        state.load_state_dict(saved["hook"])
    ddp.register_comm_hook(state, dt.allreduce_hook)
    if saved:
        opt.load_state_dict(saved["opt"])
    state.sgd, state.model = opt, m  # for momentum_mismatch()
    snapshot = {}

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    losses = []
    for s in range(first, first + steps):
        if s == save_at:
            snapshot = {"model": {k: v.clone() for k, v in m.state_dict().items()},
                        "opt": copy.deepcopy(opt.state_dict()), "hook": state.state_dict()}
        losses += train(step, s, 1)
    return m, losses, snapshot, state


def optimizer_run(name, saved=None, first=0, steps=10, save_at=None):
    algorithm, corrected = split(name)
    m = model()
    if saved:
        m.load_state_dict(saved["model"])
    else:
        dt.broadcast_parameters(m.state_dict(), root_rank=0, communicator=comm)
    opt = dt.DistributedOptimizer(torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9),
                                  m.named_parameters(), algorithm=algorithm,
                                  communicator=comm, bucket_mb=0.002,
                                  momentum_correction=corrected)
    if saved:
        opt.load_state_dict(saved["opt"])
    snapshot = {}

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    losses = []
    for s in range(first, first + steps):
        if s == save_at:
            snapshot = {"model": {k: v.clone() for k, v in m.state_dict().items()},
                        "opt": copy.deepcopy(opt.state_dict())}
        losses += train(step, s, 1)
    return m, losses, snapshot, opt


def momentum_mismatch(sgd, buckets):
    """The largest |SGD's momentum buffer - the all-reduced momentum U_t| over the buckets,
    relative to max |U_t|: momentum correction keeps them equal (up to rounding).
    buckets: (parameters in the bucket's order, MomentumCorrection)."""
    worst = 0.0
    for params, corr in buckets:
        buf = torch.cat([sgd.state[p]["momentum_buffer"].reshape(-1) for p in params])
        scale = float(corr.previous.abs().max())
        worst = max(worst, float((buf - corr.previous).abs().max()) / scale)
    return worst


def hook_buckets(state):
    by_id = {id(p): p for p in state.model.parameters()}
    by_number = {n: by_id[i] for i, n in state._numbers.items()}
    return [([by_number[n] for n in key], corr) for key, corr in state.corrections.items()]


def check_run(name, run, algorithm):
    m, losses, snap, handle = run(algorithm, steps=10, save_at=6)
    resumed, _, _, resumed_handle = run(algorithm, saved=snap, first=6, steps=4)
    same = all(torch.equal(a, b) for a, b in zip(m.parameters(), resumed.parameters()))
    results[f"{name}:{algorithm}"] = {
        "loss_falls": sum(losses[-3:]) / 3 < 0.9 * sum(losses[:3]) / 3,
        "ranks_identical": identical_across_ranks(list(m.parameters())),
        "resume_identical": identical_across_ranks([torch.tensor(float(same))]) and same,
        "losses": [round(v, 4) for v in losses],
    }
    return handle, resumed_handle


def comm_api():
    t = torch.full((1000,), float(rank + 1))
    buf = dlk.comm.Buffer(comm, 1000, "int8", average=True)
    report = buf.allreduce(t)
    ok_sum = bool(torch.all(t == 1.5)) and report["logical_bytes"] == 4000
    req = buf.iallreduce(t)
    req.wait()
    state = buf.state()
    buf.load_state(state)
    grads = [torch.full((10,), float(rank)), torch.ones(5) * (rank + 1)]
    sync = dlk.comm.Synchronizer(comm, "native", average=True)
    for g in grads:
        sync.add(g)
    sync.commit()
    for i in reversed(range(len(grads))):
        sync.ready(i)
    rep = sync.wait()
    ok_sync = bool(torch.all(grads[0] == 0.5)) and bool(torch.all(grads[1] == 1.5))
    try:
        buf.allreduce(torch.ones(3))
        refused = False
    except ValueError:
        refused = True
    sync.close()
    buf.close()
    # Ranks that disagree get dlk's DLK_COMM_MISMATCH, as dlk.Error, on every rank.
    odd = dlk.comm.Buffer(comm, 10 + rank, "native")
    try:
        odd.allreduce(torch.ones(10 + rank))
        mismatch = "no error"
    except dlk.Error as e:
        mismatch = e.status if "10" in str(e) and "11" in str(e) else f"{e.status}: {e}"
    odd.close()
    results["comm_api"] = {"allreduce": ok_sum, "synchronizer": ok_sync and rep["buckets"] >= 1,
                           "size_refused": refused, "background": comm.background,
                           "mismatch": mismatch}


def main():
    comm_api()
    dt.init_process_group_from_mpi()
    for a in HOOK_ALGORITHMS:
        state, resumed = check_run("hook", hook_run, a)
        results[f"hook:{a}"].update(rebuilds=state.rebuilds, reordered=state.reordered,
                                    resumed_reordered=resumed.reordered)
        if state.corrected:
            results[f"hook:{a}"]["momentum_mismatch"] = max(
                momentum_mismatch(h.sgd, hook_buckets(h)) for h in (state, resumed))
    for a in OPTIMIZER_ALGORITHMS:
        opt, _ = check_run("optimizer", optimizer_run, a)
        results[f"optimizer:{a}"]["buckets"] = len(opt._dlk_buckets)
        if opt.dlk_momentum_correction:
            results[f"optimizer:{a}"]["momentum_mismatch"] = momentum_mismatch(
                opt, [(b.params, b.correction) for b in opt._dlk_buckets])
    if rank == 0:
        print("RESULTS " + json.dumps(results))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
