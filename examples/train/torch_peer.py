#!/usr/bin/python3
"""The PyTorch peer of dlk-train: the same models, data and hyper-parameters,
trained by PyTorch (Debian's python3-torch, CPU; --device cuda with a CUDA build
of PyTorch), in one process or with
DistributedDataParallel over gloo, printing the same per-epoch table and JSON
("dlk-train/run/1", the fields that apply) so that the two compare line by line.

  /usr/bin/python3 examples/train/torch_peer.py --model lenet5 --epochs 3 --threads 1
  mpirun -np 2 --bind-to none /usr/bin/python3 examples/train/torch_peer.py --algorithm fp16
  torchrun --standalone --nproc_per_node 2 examples/train/torch_peer.py --algorithm powersgd

Ranks and world size come from torchrun's environment (RANK, WORLD_SIZE,
MASTER_ADDR) or from Open MPI's (OMPI_COMM_WORLD_RANK/SIZE; the ranks then meet
through a file store in /tmp named after the MPI job, so that it also works
inside scripts/netbed.sh's network namespaces). See docs/training.md.
"""
import argparse
import contextlib
import gzip
import hashlib
import json
import os
import platform
import socket
import struct
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

SCHEMA = "dlk-train/run/1"
DEFAULT_DATA = "/usr/share/datasets/fashion-mnist"
FILES = {
    "train_images": "train-images-idx3-ubyte.gz",
    "train_labels": "train-labels-idx1-ubyte.gz",
    "test_images": "t10k-images-idx3-ubyte.gz",
    "test_labels": "t10k-labels-idx1-ubyte.gz",
}
# Fashion-MNIST's training-set pixel mean and standard deviation (of x / 255).
PIXEL_MEAN, PIXEL_STD = 0.2860, 0.3530


class DataError(Exception):
    pass


# ---------------------------------------------------------------- data
def read_idx(path, want_dims):
    """An IDX file (gzip): magic 0x0000 0x08 (ubyte) <dims>, big-endian sizes, data."""
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise DataError(f"{path}: missing (install dataset-fashion-mnist or pass --data DIR)")
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise DataError(f"{path}: not a readable gzip file ({e})")
    if len(raw) < 4:
        raise DataError(f"{path}: truncated: {len(raw)} bytes, shorter than the 4-byte IDX magic")
    zero, dtype, dims = struct.unpack(">HBB", raw[:4])
    if zero != 0 or dtype != 0x08:
        raise DataError(f"{path}: bad IDX magic {raw[:4].hex()}: want 0000 08 (unsigned bytes)")
    if dims != want_dims:
        raise DataError(f"{path}: {dims} dimensions, want {want_dims}")
    header = 4 + 4 * dims
    if len(raw) < header:
        raise DataError(f"{path}: truncated inside the header ({len(raw)} of {header} bytes)")
    shape = struct.unpack(">" + "I" * dims, raw[4:header])
    need = header + int(np.prod(shape, dtype=np.int64))
    if len(raw) != need:
        raise DataError(f"{path}: {len(raw)} bytes, but the header's shape {shape} needs {need}")
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(shape)


def load_split(data_dir, split):
    images = read_idx(os.path.join(data_dir, FILES[split + "_images"]), 3)
    labels = read_idx(os.path.join(data_dir, FILES[split + "_labels"]), 1)
    path = os.path.join(data_dir, FILES[split + "_images"])
    if images.shape[1:] != (28, 28):
        raise DataError(f"{path}: images of {images.shape[1]}x{images.shape[2]}, want 28x28")
    if images.shape[0] != labels.shape[0]:
        raise DataError(f"{path}: {images.shape[0]} images but {labels.shape[0]} labels")
    if labels.size and labels.max() > 9:
        raise DataError(f"{os.path.join(data_dir, FILES[split + '_labels'])}: label "
                        f"{int(labels.max())} outside 0-9")
    x = (images.astype(np.float32) / 255.0 - PIXEL_MEAN) / PIXEL_STD
    return torch.from_numpy(x).unsqueeze(1), torch.from_numpy(labels.astype(np.int64))


# ---------------------------------------------------------------- models
def lenet5():
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def vgg_small():
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(64 * 7 * 7, 256), nn.ReLU(), nn.Linear(256, 10))


def wide():
    return nn.Sequential(
        nn.Flatten(), nn.Linear(784, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(),
        nn.Linear(4096, 10))


MODELS = {"lenet5": lenet5, "vgg_small": vgg_small, "wide": wide}


# ---------------------------------------------------------------- distributed
def world_from_env():
    """(rank, size, launcher) from torchrun's or Open MPI's environment."""
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        return int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), "torchrun"
    if "OMPI_COMM_WORLD_RANK" in os.environ:
        return (int(os.environ["OMPI_COMM_WORLD_RANK"]), int(os.environ["OMPI_COMM_WORLD_SIZE"]),
                "mpirun")
    return 0, 1, "none"


def gloo_interface():
    """Gloo binds to the address its host name resolves to; inside netbed's namespaces the
    host name resolves nowhere, so take the first interface that is up and not loopback."""
    if "GLOO_SOCKET_IFNAME" in os.environ:
        return
    try:
        socket.getaddrinfo(socket.gethostname(), None)
        return
    except socket.gaierror:
        pass
    for name in sorted(os.listdir("/sys/class/net")):
        try:
            with open(f"/sys/class/net/{name}/operstate") as f:
                up = f.read().strip() in ("up", "unknown")
        except OSError:
            up = False
        if name != "lo" and up:
            os.environ["GLOO_SOCKET_IFNAME"] = name
            return


def init_distributed(rank, size, launcher):
    gloo_interface()
    if launcher == "torchrun":
        dist.init_process_group("gloo", init_method="env://")
        return None
    # Under mpirun: a file store every rank sees (the namespaces share /tmp).
    job = os.environ.get("OMPI_MCA_ess_base_jobid", "0")
    path = f"/tmp/dlk-torch-peer-{job}.store"
    dist.init_process_group("gloo", init_method=f"file://{path}", rank=rank, world_size=size)
    return path


# The peer's own reductions (loss, accuracy) go around the counter below.
RAW_ALL_REDUCE = dist.all_reduce


class WireCounter:
    """Bytes handed to all-reduce per step: the compression hooks call
    torch.distributed.all_reduce, which is wrapped here; DDP's built-in all-reduce
    (C++, no hook) reduces every gradient in f32, counted by the caller."""

    def __init__(self):
        self.bytes = 0

        def counted(tensor, *args, **kwargs):
            self.bytes += tensor.numel() * tensor.element_size()
            return RAW_ALL_REDUCE(tensor, *args, **kwargs)
        dist.all_reduce = counted


def wrap_ddp(model, args):
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks, powerSGD_hook
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=args.bucket_mb)
    if args.algorithm == "fp16":
        ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
    elif args.algorithm == "powersgd":
        state = powerSGD_hook.PowerSGDState(
            process_group=None, matrix_approximation_rank=args.powersgd_rank,
            start_powerSGD_iter=2, use_error_feedback=not args.no_error_feedback,
            warm_start=True, random_seed=args.seed)
        ddp.register_comm_hook(state, powerSGD_hook.powerSGD_hook)
    return ddp


def checksum(model):
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


def gather_checksums(model, size):
    mine = checksum(model)
    if size == 1:
        return [mine]
    t = torch.tensor(list(bytes.fromhex(mine)), dtype=torch.uint8)
    out = [torch.empty_like(t) for _ in range(size)]
    dist.all_gather(out, t)
    return [bytes(o.tolist()).hex() for o in out]


def all_sum(values, size):
    t = torch.tensor(values, dtype=torch.float64)
    if size > 1:
        RAW_ALL_REDUCE(t)
    return t.tolist()


# ---------------------------------------------------------------- training
def evaluate(model, x, y, rank, size):
    """Test accuracy (a fraction): each rank scores its share of the test set."""
    lo, hi = rank * len(x) // size, (rank + 1) * len(x) // size
    correct = 0
    with torch.no_grad():
        for i in range(lo, hi, 1000):
            j = min(i + 1000, hi)
            correct += int((model(x[i:j]).argmax(1) == y[i:j]).sum())
    return all_sum([correct], size)[0] / len(x)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", choices=sorted(MODELS), default="lenet5")
    p.add_argument("--data", default=DEFAULT_DATA, help="folder of the four gzip IDX files")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: none)")
    p.add_argument("--train-subset", type=int, default=0, help="first N training images (0: all)")
    p.add_argument("--test-subset", type=int, default=0, help="first N test images (0: all)")
    p.add_argument("--threads", type=int, default=0,
                   help="PyTorch intra-op threads per rank (0: PyTorch's default)")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                   help="where the model and the data live (cuda: the data set is copied to the "
                        "GPU once, and a step's time ends after torch.cuda.synchronize())")
    p.add_argument("--batch", type=int, default=64, help="global batch (split over the ranks)")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--algorithm", choices=["native", "fp16", "powersgd"], default="native",
                   help="DDP all-reduce: built-in, fp16 compression hook, PowerSGD hook")
    p.add_argument("--powersgd-rank", type=int, default=1)
    p.add_argument("--bucket-mb", type=float, default=25.0, help="DDP's bucket_cap_mb")
    p.add_argument("--no-error-feedback", action="store_true", help="PowerSGD without residuals")
    p.add_argument("--eval-every", type=int, default=0,
                   help="also score the test set every N steps (time to accuracy)")
    p.add_argument("--target-accuracy", type=float, default=0.0,
                   help="stop once test accuracy (%%) reaches this (0: never)")
    p.add_argument("--json", metavar="FILE", help="write the run as JSON (- for stdout)")
    a = p.parse_args(argv)
    for name in ("epochs", "batch", "powersgd_rank"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    for name in ("steps", "threads", "train_subset", "test_subset", "eval_every"):
        if getattr(a, name) < 0:
            p.error(f"--{name.replace('_', '-')} must not be negative")
    return a


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": model or platform.processor(), "hostname": socket.gethostname(),
            "cpus": os.cpu_count(), "load_1min": os.getloadavg()[0]}


def table_header(out, args, size, local, launcher):
    """The header and columns of dlk-train's table (docs/train.md), PyTorch in place of dlk."""
    alg = args.algorithm if size > 1 else "none (one process)"
    out.write(f"# torch_peer {args.model}: {size} rank(s) x {local} samples (global batch "
              f"{args.batch}), pytorch {torch.__version__} f32 on {args.device}, {args.threads} thread(s), "
              f"algorithm {alg}{'' if not args.no_error_feedback else ' (no error feedback)'}, "
              f"lr {args.lr:g}, momentum {args.momentum:g}, seed {args.seed}, launcher "
              f"{launcher}\n")
    out.write(f"{'epoch':>5} {'steps':>6} {'loss':>8} {'test_acc':>8} {'step_ms':>8} "
              f"{'compute_ms':>10} {'comm_ms':>8} {'codec_ms':>8} {'wire_KiB':>11}\n")
    out.flush()


def table_row(out, e):
    out.write(f"{e['epoch']:5d} {e['steps']:6d} {e['train_loss']:8.4f} "
              f"{100.0 * e['test_accuracy']:7.2f}% {1e3 * e['step_seconds']:8.3f} "
              f"{1e3 * e['compute_seconds']:10.3f} {1e3 * e['exposed_comm_seconds']:8.3f} "
              f"{'-':>8} {e['wire_bytes_per_step'] / 1024.0:11.1f}\n")
    out.flush()


class GradClock:
    """When backward produced its last gradient: what backward() spends after that is
    DDP waiting for its last all-reduces (and finishing them), the exposed communication."""

    def __init__(self, net):
        self.last = 0.0
        for p in net.parameters():
            p.register_hook(self.stamp)

    def stamp(self, grad):
        self.last = time.perf_counter()
        return grad


def train(args):
    rank, size, launcher = world_from_env()
    if args.threads:
        torch.set_num_threads(args.threads)
    args.threads = torch.get_num_threads()
    torch.manual_seed(args.seed)
    if args.batch % size:
        raise DataError(f"--batch {args.batch} does not split over {size} ranks")
    store = init_distributed(rank, size, launcher) if size > 1 else None
    try:
        return run(args, rank, size, launcher)
    finally:
        if size > 1:
            dist.barrier()
            dist.destroy_process_group()
            if store and rank == 0:
                # gloo's FileStore may have removed it when the last rank let go.
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(store)


def load_data(args):
    x_train, y_train = load_split(args.data, "train")
    x_test, y_test = load_split(args.data, "test")
    if args.train_subset:
        x_train, y_train = x_train[:args.train_subset], y_train[:args.train_subset]
    if args.test_subset:
        x_test, y_test = x_test[:args.test_subset], y_test[:args.test_subset]
    if len(x_train) < args.batch:
        raise DataError(f"{len(x_train)} training images make no global batch of {args.batch}")
    return x_train, y_train, x_test, y_test


def write_json(args, result):
    text = json.dumps(result, indent=2) + "\n"
    if args.json == "-":
        sys.stdout.write(text)
    else:
        with open(args.json, "w") as f:
            f.write(text)


def run(args, rank, size, launcher):
    out = sys.stdout if rank == 0 else open(os.devnull, "w")
    device = torch.device(args.device)
    x_train, y_train, x_test, y_test = (t.to(device) for t in load_data(args))
    # A GPU runs a step's kernels asynchronously: its time ends when they have.
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    steps_per_epoch = len(x_train) // args.batch
    net = MODELS[args.model]().to(device)
    counter = WireCounter() if size > 1 else None
    model = wrap_ddp(net, args) if size > 1 else net
    clock = GradClock(net)
    opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=args.momentum)
    params = sum(p.numel() for p in net.parameters())
    local = args.batch // size
    gen = np.random.default_rng(args.seed)
    table_header(out, args, size, local, launcher)

    algorithm = args.algorithm if size > 1 else "none"
    result = {"schema": SCHEMA, "program": "torch_peer",
              "config": {"model": args.model, "parameters": params, "ranks": size,
                         "global_batch": args.batch, "local_batch": local, "lr": args.lr,
                         "momentum": args.momentum, "seed": args.seed, "epochs": args.epochs,
                         "steps": args.steps, "steps_per_epoch": steps_per_epoch,
                         "train_images": len(x_train), "test_images": len(x_test),
                         "algorithm": algorithm, "error_feedback": not args.no_error_feedback,
                         "bucket_bytes": int(args.bucket_mb * (1 << 20)),
                         "backend": f"pytorch {torch.__version__}", "threads": args.threads,
                         "dtype": "f32", "launcher": launcher, "device": args.device,
                         "device_name": (torch.cuda.get_device_name(device)
                                         if device.type == "cuda" else "cpu")},
              "machine": machine(), "epochs": [], "evals": []}
    step, train_seconds, reached, done = 0, 0.0, None, False
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        epoch_start = time.perf_counter()
        order = torch.from_numpy(gen.permutation(len(x_train))).to(device)
        times, exposed, loss_sum, n = [], 0.0, 0.0, 0
        wire0 = counter.bytes if counter else 0
        for s in range(steps_per_epoch):
            t0 = time.perf_counter()  # dlk-train's step begins with the batch's assembly too
            idx = order[s * args.batch + rank * local: s * args.batch + (rank + 1) * local]
            xb, yb = x_train[idx], y_train[idx]
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            sync()
            t1 = time.perf_counter()
            opt.step()
            sync()
            t2 = time.perf_counter()
            if size > 1:
                exposed += t1 - clock.last
                if args.algorithm == "native":
                    counter.bytes += 4 * params
            times.append(t2 - t0)
            loss_sum += float(loss)
            n += 1
            step += 1
            train_seconds += t2 - t0
            if args.eval_every and step % args.eval_every == 0:
                acc = evaluate(net, x_test, y_test, rank, size)
                result["evals"].append({"step": step, "train_seconds": train_seconds,
                                        "test_accuracy": acc})
                if args.target_accuracy and 100.0 * acc >= args.target_accuracy:
                    reached = {"step": step, "train_seconds": train_seconds, "test_accuracy": acc}
                    done = True
            if (args.steps and step >= args.steps) or done:
                done = True
                break
        loss_total, wire = all_sum([loss_sum, (counter.bytes - wire0) if counter else 0], size)
        acc = evaluate(net, x_test, y_test, rank, size)
        sums = gather_checksums(net, size)
        step_s = sum(times) / n
        # Ring all-reduce estimate: each rank sends 2(P-1)/P of what it hands to all-reduce.
        wire_rank = wire / size / n * 2 * (size - 1) / size if size > 1 else 0.0
        e = {"epoch": epoch, "steps": n, "train_loss": loss_total / size / n,
             "test_accuracy": acc, "step_seconds": step_s,
             "step_seconds_median": float(np.median(times)),
             "compute_seconds": step_s - exposed / n, "exposed_comm_seconds": exposed / n,
             "codec_seconds": None, "wire_bytes_per_step": wire_rank,
             "wall_seconds": time.perf_counter() - epoch_start, "train_seconds": train_seconds,
             "weights_checksum": sums[0], "rank_checksums": sums}
        result["epochs"].append(e)
        table_row(out, e)
        if len(set(sums)) != 1:
            raise DataError(f"epoch {epoch}: the ranks' weights differ (checksums {sums})")
        if done:
            break
    last = result["epochs"][-1]
    result["final"] = {"last_step": step, "train_loss": last["train_loss"],
                       "test_accuracy": last["test_accuracy"],
                       "weights_checksum": last["weights_checksum"],
                       "wall_seconds": time.perf_counter() - start}
    if args.target_accuracy:
        result["time_to_accuracy"] = {"target": args.target_accuracy / 100.0, "reached": reached}
        out.write(f"time to {args.target_accuracy:g} % test accuracy: " +
                  (f"{reached['train_seconds']:.2f} s (step {reached['step']})\n"
                   if reached else "not reached\n"))
    out.write(f"# weights identical on {size} rank(s): checksum {sums[0]}\n")
    if rank == 0 and args.json:
        write_json(args, result)
    return 0




def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return train(args)
    except DataError as e:
        print(f"torch_peer: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
