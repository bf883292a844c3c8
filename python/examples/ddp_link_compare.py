"""Time per step of DistributedDataParallel with PyTorch's own communication hooks (fp16,
PowerSGD) and with dlk.torch.allreduce_hook, on one model, interleaved in one launch (so each
row sees the same link and load). Meant for scripts/netbed.sh's emulated link:

    scripts/netbed.sh -n 2 -r 1gbit -- /usr/bin/python3 python/examples/ddp_link_compare.py \\
        --model wide --steps 12 --algorithm ddp_fp16,ddp_powersgd,int8,int4,onebit,topk

Rows: 'ddp' (DDP's built-in f32 all-reduce over gloo), 'ddp_fp16'
(default_hooks.fp16_compress_hook), 'ddp_powersgd' (powerSGD_hook, rank --powersgd-rank, from
step 2 on, error feedback, warm start), 'nocomm' (a hook that returns each bucket untouched:
no communication at all, so the ranks do not train one model; the compute floor of a step),
or any dlk.comm algorithm through dlk.torch.allreduce_hook. Time per step is the median over
the steps after --skip (the first steps build and then rebuild DDP's buckets, and PowerSGD
starts compressing at step 2).

Where a row's time goes, medians over the same steps, the slower rank's: 'in hook' is the
time spent inside the communication hook's calls (what runs there blocks backward: PowerSGD's
matrix products and orthogonalisation, the fp16 cast, dlk's start of each all-reduce and the
last bucket's wait); for the dlk rows 'codec' is libdlk_comm's encode + decode seconds (on its
background thread, overlapping backward, but on the same cores), 'net' its seconds in MPI
moving data and 'exposed' the last bucket's wait for all the all-reduces (the part backward
did not hide).
"""
import argparse
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook
from torch.nn.parallel import DistributedDataParallel as DDP

import dlk.comm
import dlk.torch as dt

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "train"))
import torch_peer  # noqa: E402  (examples/train/torch_peer.py: models, data, gloo interface)

TORCH_ROWS = ["ddp", "ddp_fp16", "ddp_powersgd", "nocomm"]
MOMENTUM = 0.9  # every row's SGD


def split_name(name):
    """'onebit+mc' -> ('onebit', True): a dlk row with momentum correction."""
    return (name[:-3], True) if name.endswith("+mc") else (name, False)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="wide", choices=sorted(torch_peer.MODELS))
    p.add_argument("--algorithm", default="ddp_fp16,ddp_powersgd,int8,int4,onebit,topk",
                   help="comma-separated rows, repeats allowed: " + ", ".join(TORCH_ROWS)
                        + ", or a dlk.comm algorithm (with '+mc': momentum correction)")
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--skip", type=int, default=4, help="steps left out of the median")
    p.add_argument("--batch", type=int, default=64, help="global batch, split over the ranks")
    p.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    p.add_argument("--bucket-mb", type=float, default=25.0, help="DDP's bucket_cap_mb")
    p.add_argument("--powersgd-rank", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--baseline", default="ddp",
                   help="the row the ratios divide by (default ddp)")
    p.add_argument("--paired", action="store_true",
                   help="train the baseline beside each other row, step for step, and report "
                        "the median of the per-step ratio (both see the same load)")
    p.add_argument("--data", default=torch_peer.DEFAULT_DATA)
    a = p.parse_args()
    a.rows = a.algorithm.split(",")
    for name in a.rows + [a.baseline]:
        if name not in TORCH_ROWS:
            try:
                dlk.comm.config(split_name(name)[0])
            except ValueError as e:
                p.error(str(e))
    if a.steps <= a.skip:
        p.error("--steps must exceed --skip")
    return a


def timed(hook, seconds):
    """hook, with the time spent in its calls added to seconds[0]."""
    def run(state, bucket):
        t0 = time.perf_counter()
        fut = hook(state, bucket)
        seconds[0] += time.perf_counter() - t0
        return fut
    return run


def no_communication(_, bucket):
    fut = torch.futures.Future()
    fut.set_result(bucket.buffer())
    return fut


def wrap(model, name, args, comm, hook_seconds):
    if name == "ddp_powersgd":
        # One bucket: with several, PowerSGD's chained all-reduces are issued from gloo's
        # completion callbacks in an order that differs between the ranks, and gloo stops
        # with a size mismatch (docs/training.md). DDP caps its first bucket separately.
        dist._DEFAULT_FIRST_BUCKET_BYTES = 1 << 40
        ddp = DDP(model, bucket_cap_mb=1 << 20)
        state = powerSGD_hook.PowerSGDState(
            process_group=None, matrix_approximation_rank=args.powersgd_rank,
            start_powerSGD_iter=2, use_error_feedback=True, warm_start=True,
            random_seed=args.seed)
        ddp.register_comm_hook(state, timed(powerSGD_hook.powerSGD_hook, hook_seconds))
        return ddp, None
    dist._DEFAULT_FIRST_BUCKET_BYTES = 1 << 20
    ddp = DDP(model, bucket_cap_mb=args.bucket_mb)
    if name == "ddp_fp16":
        ddp.register_comm_hook(None, timed(default_hooks.fp16_compress_hook, hook_seconds))
        return ddp, None
    if name == "nocomm":
        ddp.register_comm_hook(None, timed(no_communication, hook_seconds))
        return ddp, None
    if name == "ddp":
        return ddp, None
    algorithm, corrected = split_name(name)
    state = dt.AllreduceHookState(algorithm, communicator=comm,
                                  momentum=MOMENTUM if corrected else None)
    ddp.register_comm_hook(state, timed(dt.allreduce_hook, hook_seconds))
    return ddp, state


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    torch_peer.gloo_interface()
    rank, size = dt.init_process_group_from_mpi()
    comm = dlk.comm.world()
    x, y = torch_peer.load_split(args.data, "train")
    per_rank = args.batch // size
    if rank == 0:
        print(f"# {args.model}, {size} ranks, global batch {args.batch}, {args.threads} "
              f"thread(s) per rank, {args.steps} steps (median of the last "
              f"{args.steps - args.skip})")
        print(f"{'row':<14} {'ms/step':>9} {'mean':>9} {'min':>9} {'max':>9} {'loss':>8} "
              f"{'wire MB/step':>12} {'in hook':>8} {'codec':>8} {'net':>8} {'exposed':>8}"
              + (f" {'/ ' + args.baseline:>8}" if args.paired else ""))
    passes = {}  # row -> (its ms/step, its ratio to the baseline) in each pass
    for name in args.rows:
        paired = args.paired and name != args.baseline
        ms, parts, loss, wire, ratio = run_row(name, args, comm, rank, per_rank, x, y, paired)
        passes.setdefault(name, []).append((statistics.median(ms), ratio))
        if rank == 0:
            print(f"{name:<14} {statistics.median(ms):>9.1f} {statistics.mean(ms):>9.1f} "
                  f"{min(ms):>9.1f} {max(ms):>9.1f} {loss:>8.4f} {wire:>12.2f}"
                  + "".join(f" {1000 * v:>8.1f}" for v in parts)
                  + (f" {ratio:>8.3f}" if paired else ""), flush=True)
    if rank == 0 and max(len(v) for v in passes.values()) > 1:
        summarize(passes, args)


class Row:
    """One row's model, DDP wrapper, hook state and optimizer, stepped one step at a time."""

    def __init__(self, name, args, comm):
        torch.manual_seed(args.seed)
        self.hook_seconds = [0.0]
        self.model, self.state = wrap(torch_peer.MODELS[args.model](), name, args, comm,
                                      self.hook_seconds)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.05, momentum=MOMENTUM)
        self.times = []
        self.parts = []  # per step: in hook, codec, net, exposed (seconds)
        self.loss = float("nan")

    def step(self, xb, yb):
        t0 = time.perf_counter()
        self.opt.zero_grad()
        loss = F.cross_entropy(self.model(xb), yb)
        loss.backward()
        self.opt.step()
        self.times.append(time.perf_counter() - t0)
        self.loss = loss.item()
        st = self.state
        reports = st.reports if st is not None else []
        self.parts.append([self.hook_seconds[0],
                           sum(r["encode_seconds"] + r["decode_seconds"] for r in reports),
                           sum(r["network_seconds"] for r in reports),
                           st.last_wait_seconds if st is not None else 0.0])
        self.hook_seconds[0] = 0.0

    def kept_ms(self, skip):
        """The slower rank's ms of each step after skip (collective)."""
        kept = torch.tensor(self.times[skip:], dtype=torch.float64)
        dist.all_reduce(kept, op=dist.ReduceOp.MAX)
        return [1000 * t for t in kept.tolist()]

    def close(self):
        if self.state is not None:
            self.state.close()


def run_row(name, args, comm, rank, per_rank, x, y, paired):
    """Trains one row for args.steps; returns the slower rank's ms of each kept step, the
    medians of (in hook, codec, net, exposed) seconds, the last loss, the wire MB/step and,
    when paired, the median over the steps of row / baseline: the baseline row is trained
    beside it, step for step, the two taking turns to go first."""
    row = Row(name, args, comm)
    base = Row(args.baseline, args, comm) if paired else None
    for s in range(args.steps):
        lo = (s * args.batch + rank * per_rank) % (x.shape[0] - per_rank)
        xb, yb = x[lo:lo + per_rank], y[lo:lo + per_rank]
        for r in ([row, base] if s % 2 else [base, row]) if paired else [row]:
            r.step(xb, yb)
    ms = row.kept_ms(args.skip)
    ratio = float("nan")
    if paired:
        ratio = statistics.median(a / b for a, b in zip(ms, base.kept_ms(args.skip)))
        base.close()
    medians = torch.tensor(row.parts[args.skip:], dtype=torch.float64).median(dim=0).values
    dist.all_reduce(medians, op=dist.ReduceOp.MAX)
    st = row.state
    wire = sum(r["wire_bytes_sent"] for r in st.reports) / 1e6 if st is not None else float("nan")
    row.close()
    return ms, medians.tolist(), row.loss, wire, ratio


def summarize(passes, args):
    """Rows run in several passes: each row's median over the passes of its ms/step, and the
    median over the passes of its ratio to the baseline: the paired ratio with --paired, else
    row / baseline ms/step of the same pass."""
    base = [m for m, _ in passes.get(args.baseline, [])]
    how = "paired, per step" if args.paired else "per pass"
    print(f"# over the passes: median ms/step, and the median of row / {args.baseline} "
          f"({how})")
    print(f"{'row':<14} {'passes':>6} {'ms/step':>9} {'/ ' + args.baseline:>14} "
          f"{'pass min':>9} {'pass max':>9}")
    for name, v in passes.items():
        if name == args.baseline:
            ratios = [1.0]
        elif args.paired:
            ratios = [r for _, r in v]
        else:
            ratios = [m / b for (m, _), b in zip(v, base)] or [float("nan")]
        print(f"{name:<14} {len(v):>6} {statistics.median(m for m, _ in v):>9.1f} "
              f"{statistics.median(ratios):>14.3f} {min(ratios):>9.3f} {max(ratios):>9.3f}")


if __name__ == "__main__":
    main()
