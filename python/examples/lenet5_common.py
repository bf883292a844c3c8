"""What the two LeNet-5 examples share: options, Fashion-MNIST (the loader and the model of
examples/train/torch_peer.py, PyTorch's peer of dlk-train, so the figures compare), the
training loop (global batch 64 split over the ranks, SGD lr 0.05 momentum 0.9) and the
per-algorithm table."""
import argparse
import os
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "train"))
import torch_peer  # noqa: E402  (examples/train/torch_peer.py)

ALGORITHMS = ["native", "ring", "ps", "onebit", "topk", "int8", "int4", "fp16", "bf16", "auto"]


def parse_args(description, extra_algorithms=()):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--algorithm", default="all",
                   help=f"one of {', '.join(list(extra_algorithms) + ALGORITHMS)}, or 'all' "
                        f"(each in turn, from the same initial weights), or a comma-separated "
                        f"list (repeats allowed: ddp,native,ddp,native interleaves two)")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--train-subset", type=int, default=0, help="first N training images")
    p.add_argument("--test-subset", type=int, default=0, help="first N test images")
    p.add_argument("--batch", type=int, default=64, help="global batch, split over the ranks")
    p.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data", default=torch_peer.DEFAULT_DATA)
    p.add_argument("--warmup-steps", type=int, default=0,
                   help="compressed algorithms: the first N all-reduces of each bucket run "
                        "native (dlk_comm_config.warmup_steps)")
    p.add_argument("--block-size", type=int, default=0,
                   help="onebit/int8/int4: values per scale (dlk_comm_config.block_size; 0: "
                        "the codec's default)")
    p.add_argument("--dlk-layers", default=None, metavar="BACKEND",
                   help="run the convolutions, pooling and linear layers on dlk.torch.nn with "
                        "this dlk backend (cpu, fpga_sim) instead of torch's")
    a = p.parse_args()
    names = list(extra_algorithms) + ALGORITHMS
    a.algorithms = names if a.algorithm == "all" else a.algorithm.split(",")
    for name in a.algorithms:
        base, corrected = split_name(name)
        if base not in names or (corrected and base in extra_algorithms):
            p.error(f"unknown algorithm {name!r}; one of {', '.join(names)}, a dlk one with "
                    f"'+mc' for momentum correction (onebit+mc)")
    return a


def split_name(name):
    """'onebit+mc' -> ('onebit', True): the algorithm, and whether the row all-reduces the
    local momentum (momentum correction) instead of the gradient."""
    return (name[:-3], True) if name.endswith("+mc") else (name, False)


def load_data(args):
    x, y = torch_peer.load_split(args.data, "train")
    xt, yt = torch_peer.load_split(args.data, "test")
    if args.train_subset:
        x, y = x[:args.train_subset], y[:args.train_subset]
    if args.test_subset:
        xt, yt = xt[:args.test_subset], yt[:args.test_subset]
    return x, y, xt, yt


def lenet5(args):
    torch.manual_seed(args.seed)
    if not args.dlk_layers:
        return torch_peer.lenet5()
    import dlk
    import dlk.torch as dt
    ctx = dlk.Context(backend=args.dlk_layers, threads=args.threads)
    nn = torch.nn
    return nn.Sequential(
        dt.nn.Conv2d(1, 6, 5, padding=2, context=ctx), nn.ReLU(), dt.nn.MaxPool2d(2, context=ctx),
        dt.nn.Conv2d(6, 16, 5, context=ctx), nn.ReLU(), dt.nn.MaxPool2d(2, context=ctx),
        nn.Flatten(), dt.nn.Linear(400, 120, context=ctx), nn.ReLU(),
        dt.nn.Linear(120, 84, context=ctx), nn.ReLU(), dt.nn.Linear(84, 10, context=ctx))


def train(args, model, step_fn, rank, size, x, y, xt, yt, sum_fn):
    """Trains for args.epochs; returns (test accuracy %, seconds per step, steps, training
    loss: the mean over the last epoch's steps and the ranks). step_fn(xb, yb) runs one step
    and returns its loss; sum_fn(list of floats) sums them over the ranks."""
    per_rank = args.batch // size
    steps_per_epoch = x.shape[0] // args.batch
    g = torch.Generator().manual_seed(args.seed)
    step_seconds, steps = 0.0, 0
    for _ in range(args.epochs):
        order = torch.randperm(x.shape[0], generator=g)
        epoch_loss = 0.0
        for s in range(steps_per_epoch):
            idx = order[s * args.batch + rank * per_rank: s * args.batch + (rank + 1) * per_rank]
            t0 = time.perf_counter()
            loss = step_fn(x[idx], y[idx])
            step_seconds += time.perf_counter() - t0
            epoch_loss += float(loss)
            steps += 1
    model.eval()
    with torch.no_grad():
        part = torch.arange(rank, xt.shape[0], size)
        correct = (model(xt[part]).argmax(1) == yt[part]).sum().item()
    model.train()
    total_correct, total_seconds, total_loss = sum_fn([float(correct), step_seconds,
                                                       epoch_loss / max(steps_per_epoch, 1)])
    return (100.0 * total_correct / xt.shape[0], total_seconds / size / max(steps, 1), steps,
            total_loss / size)


def sgd(model):
    return torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def loss_fn(model, xb, yb):
    return F.cross_entropy(model(xb), yb)


def print_header(rank, args, size, title):
    if rank == 0:
        print(f"# {title}: LeNet-5, Fashion-MNIST, {size} ranks, {args.epochs} epoch(s), "
              f"global batch {args.batch}, {args.threads} thread(s) per rank"
              + (f", layers on dlk {args.dlk_layers}" if args.dlk_layers else ""))
        print(f"{'algorithm':<10} {'test acc %':>10} {'ms/step':>8} {'steps':>6} "
              f"{'train loss':>10}")


def print_row(rank, name, acc, seconds, steps, loss):
    """loss: the last epoch's mean training loss."""
    if rank == 0:
        print(f"{name:<10} {acc:>10.2f} {1000 * seconds:>8.2f} {steps:>6} {loss:>10.4f}",
              flush=True)
