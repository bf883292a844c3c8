"""Time per step of DistributedDataParallel with PyTorch's own communication hooks (fp16,
PowerSGD) and with dlk.torch.allreduce_hook, on one model, interleaved in one launch (so each
row sees the same link and load). Meant for scripts/netbed.sh's emulated link:

    scripts/netbed.sh -n 2 -r 1gbit -- /usr/bin/python3 python/examples/ddp_link_compare.py \\
        --model wide --steps 12 --algorithm ddp_fp16,ddp_powersgd,int8,int4,onebit,topk

Rows: 'ddp' (DDP's built-in f32 all-reduce over gloo), 'ddp_fp16'
(default_hooks.fp16_compress_hook), 'ddp_powersgd' (powerSGD_hook, rank --powersgd-rank, from
step 2 on, error feedback, warm start), or any dlk.comm algorithm through
dlk.torch.allreduce_hook. Time per step is the median over the steps after --skip (the first
steps build and then rebuild DDP's buckets, and PowerSGD starts compressing at step 2).
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

TORCH_ROWS = ["ddp", "ddp_fp16", "ddp_powersgd"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="wide", choices=sorted(torch_peer.MODELS))
    p.add_argument("--algorithm", default="ddp_fp16,ddp_powersgd,int8,int4,onebit,topk",
                   help="comma-separated rows, repeats allowed: " + ", ".join(TORCH_ROWS)
                        + ", or a dlk.comm algorithm")
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--skip", type=int, default=4, help="steps left out of the median")
    p.add_argument("--batch", type=int, default=64, help="global batch, split over the ranks")
    p.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    p.add_argument("--bucket-mb", type=float, default=25.0, help="DDP's bucket_cap_mb")
    p.add_argument("--powersgd-rank", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data", default=torch_peer.DEFAULT_DATA)
    a = p.parse_args()
    a.rows = a.algorithm.split(",")
    for name in a.rows:
        if name not in TORCH_ROWS:
            try:
                dlk.comm.config(name)
            except ValueError as e:
                p.error(str(e))
    if a.steps <= a.skip:
        p.error("--steps must exceed --skip")
    return a


def wrap(model, name, args, comm):
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
        ddp.register_comm_hook(state, powerSGD_hook.powerSGD_hook)
        return ddp, None
    dist._DEFAULT_FIRST_BUCKET_BYTES = 1 << 20
    ddp = DDP(model, bucket_cap_mb=args.bucket_mb)
    if name == "ddp_fp16":
        ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
        return ddp, None
    if name == "ddp":
        return ddp, None
    state = dt.AllreduceHookState(name, communicator=comm)
    ddp.register_comm_hook(state, dt.allreduce_hook)
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
        print(f"{'row':<14} {'ms/step':>9} {'min':>9} {'max':>9} {'loss':>8} {'wire MB/step':>12}")
    for name in args.rows:
        torch.manual_seed(args.seed)
        model, state = wrap(torch_peer.MODELS[args.model](), name, args, comm)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        times = []
        for s in range(args.steps):
            lo = (s * args.batch + rank * per_rank) % (x.shape[0] - per_rank)
            xb, yb = x[lo:lo + per_rank], y[lo:lo + per_rank]
            t0 = time.perf_counter()
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            times.append(time.perf_counter() - t0)
        # The slower rank's time is the step's time.
        kept = torch.tensor(times[args.skip:], dtype=torch.float64)
        dist.all_reduce(kept, op=dist.ReduceOp.MAX)
        wire = (sum(r["wire_bytes_sent"] for r in state.reports) / 1e6
                if state is not None else float("nan"))
        if rank == 0:
            ms = [1000 * t for t in kept.tolist()]
            print(f"{name:<14} {statistics.median(ms):>9.1f} {min(ms):>9.1f} {max(ms):>9.1f} "
                  f"{loss.item():>8.4f} {wire:>12.2f}", flush=True)
        if state is not None:
            state.close()


if __name__ == "__main__":
    main()
