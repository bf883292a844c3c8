"""Per-call cost of the dlk.torch layers against torch's own, in the same run: forward and
backward of one layer, the two interleaved round by round, medians. Also the binding's own
overhead: the wall time of a dlk call from Python against a bare ctypes call and the time
dlk's op record gives. "outside us" is a layer's forward+backward minus its ops' recorded
time: the Python wrapper, libdlk's work outside the timed op (validation, scratch), output
allocation and autograd's bookkeeping (which torch's layer pays too).

    /usr/bin/python3 python/examples/layer_overhead.py --threads 1 --rounds 30
    python3 python/examples/layer_overhead.py --device cuda   # a CUDA torch, dlk's cuda backend

With --device cuda both run on the GPU (torch's layers on cuDNN as torch configures it), each
timed block ends with torch.cuda.synchronize().
"""
import argparse
import os
import statistics
import time

import torch

import dlk
import dlk.torch as dt

LAYERS = [  # name, dlk layer, torch layer, input shape per sample
    ("conv 1->6 5x5 pad 2 (28x28)", lambda c: dt.nn.Conv2d(1, 6, 5, padding=2, context=c),
     lambda: torch.nn.Conv2d(1, 6, 5, padding=2), (1, 28, 28)),
    ("conv 6->16 5x5 (14x14)", lambda c: dt.nn.Conv2d(6, 16, 5, context=c),
     lambda: torch.nn.Conv2d(6, 16, 5), (6, 14, 14)),
    ("linear 400->120", lambda c: dt.nn.Linear(400, 120, context=c),
     lambda: torch.nn.Linear(400, 120), (400,)),
    ("maxpool 2x2 (6x28x28)", lambda c: dt.nn.MaxPool2d(2, context=c),
     lambda: torch.nn.MaxPool2d(2), (6, 28, 28)),
    ("avgpool 2x2 (16x10x10)", lambda c: dt.nn.AvgPool2d(2, context=c),
     lambda: torch.nn.AvgPool2d(2), (16, 10, 10)),
]


def fwd_bwd(layer, x, g):
    y = layer(x)
    y.backward(g)


SYNC = [lambda: None]  # torch.cuda.synchronize with --device cuda


def timed(fn, reps):
    SYNC[0]()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    SYNC[0]()
    return (time.perf_counter() - t0) / reps


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--reps", type=int, default=20, help="calls per round")
    p.add_argument("--batches", default="1,64")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="cpu: dlk's cpu backend and CPU tensors; cuda: dlk's cuda backend and "
                        "CUDA tensors")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    dev = a.device
    ctx = dlk.Context(backend=dev, threads=a.threads)
    if dev == "cuda":
        SYNC[0] = torch.cuda.synchronize
    print(f"# {ctx}, torch {torch.__version__} with {torch.get_num_threads()} thread(s), "
          f"load {os.getloadavg()[0]:.1f}; medians of {a.rounds} interleaved rounds of "
          f"{a.reps} forward+backward calls")
    one = torch.ones(1, 1, device=dev)
    walls, op_times = [], []
    for _ in range(a.rounds):
        walls.append(timed(lambda: ctx.gemm(one, one), a.reps))
        op_times.append(ctx.last_op()["seconds"])
    w, o = statistics.median(walls) * 1e6, statistics.median(op_times) * 1e6
    print(f"# one dlk.Context.gemm call of 1x1x1 from Python: {w:.1f} us wall, {o:.1f} us in the "
          f"op itself: {w - o:.1f} us of binding (argument checks, descriptor, ctypes)")
    # One conv2d_forward of LeNet's first layer at batch 1: through dlk.Context, as a bare
    # ctypes call with a prepared descriptor, and the op's own time by its record.
    import ctypes
    x, wt, b = (torch.randn(*s, device=dev) for s in ((1, 1, 28, 28), (6, 1, 5, 5), (6,)))
    y = torch.empty(1, 6, 28, 28, device=dev)
    d, _ = ctx._conv_desc("probe", x.shape, wt.shape, "f32", 1, 2, 1, 1, "nchw")
    ptrs = [t.data_ptr() for t in (x, wt, b, y)]
    wrapped, bare, op = [], [], []
    for _ in range(a.rounds):
        wrapped.append(timed(lambda: ctx.conv2d_forward(x, wt, b, padding=2), a.reps))
        bare.append(timed(lambda: ctx._lib.dlk_conv2d_forward(ctx._handle, ctypes.byref(d),
                                                              *ptrs), a.reps))
        op.append(ctx.last_op()["seconds"])
    wr, ba, op = (statistics.median(v) * 1e6 for v in (wrapped, bare, op))
    print(f"# one conv2d_forward 1x1x28x28 * 6x1x5x5 pad 2: {wr:.1f} us through dlk.Context, "
          f"{ba:.1f} us as a bare ctypes call, {op:.1f} us in the op by its record: "
          f"{wr - ba:.1f} us of Python wrapper, {ba - op:.1f} us in libdlk outside the timed op")
    print(f"{'layer':<30} {'batch':>5} {'torch us':>9} {'dlk us':>9} {'dlk/torch':>9} "
          f"{'dlk ops us':>10} {'outside us':>10}")
    for name, mine_f, ref_f, shape in LAYERS:
        for batch in [int(b) for b in a.batches.split(",")]:
            torch.manual_seed(0)
            mine, ref = mine_f(ctx).to(dev), ref_f().to(dev)
            x = torch.randn(batch, *shape, device=dev, requires_grad=True)
            g = torch.randn_like(ref(x))
            ops = []

            def dlk_call():
                fwd_bwd(mine, x, g)

            def dlk_ops():  # the ops' own time, from dlk's records, of one forward+backward
                total = 0.0
                y = mine(x)
                total += ctx.last_op()["seconds"]
                seen = []
                orig = ctx._ran

                def ran(status):
                    orig(status)
                    seen.append(ctx.last_op()["seconds"])
                ctx._ran = ran
                y.backward(g)
                ctx._ran = orig
                return total + sum(seen)

            dlk_call(), fwd_bwd(ref, x, g)  # warm-up
            t_mine, t_ref = [], []
            for _ in range(a.rounds):
                t_ref.append(timed(lambda: fwd_bwd(ref, x, g), a.reps))
                t_mine.append(timed(dlk_call, a.reps))
                ops.append(dlk_ops())
            tm, tr, to = (statistics.median(v) * 1e6 for v in (t_mine, t_ref, ops))
            print(f"{name:<30} {batch:>5} {tr:>9.1f} {tm:>9.1f} {tm / tr:>9.2f} {to:>10.1f} "
                  f"{tm - to:>10.1f}", flush=True)


if __name__ == "__main__":
    main()
