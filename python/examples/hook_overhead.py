"""What dlk.torch.allreduce_hook costs per bucket beyond the all-reduce itself: the hook on a
stand-in bucket of LeNet-5's parameter sizes against a bare Buffer.iallreduce().wait() of the
same tensor, alternated call by call, medians; then the hook's Python profile. One process is
enough (the all-reduce of one rank is a copy):

    /usr/bin/python3 python/examples/hook_overhead.py --calls 2000
"""
import argparse
import cProfile
import pstats
import statistics
import time

import torch

import dlk.comm
import dlk.torch as dt

LENET5 = (150, 6, 2400, 16, 48000, 120, 10080, 84, 840, 10)


class Bucket:
    """The part of DDP's GradBucket the hook uses."""

    def __init__(self, params):
        self.params = params
        self.tensor = torch.randn(sum(p.numel() for p in params))

    def buffer(self):
        return self.tensor

    def parameters(self):
        return self.params

    def index(self):
        return 0

    def is_last(self):
        return True


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--algorithm", default="native")
    args = p.parse_args()
    torch.set_num_threads(1)
    bucket = Bucket([torch.nn.Parameter(torch.randn(n)) for n in LENET5])
    state = dt.AllreduceHookState(args.algorithm)
    bare = dlk.comm.Buffer(state.comm, bucket.tensor.numel(), args.algorithm, average=True)
    hook_s, bare_s = [], []
    for _ in range(args.calls):
        t0 = time.perf_counter()
        dt.allreduce_hook(state, bucket).wait()
        t1 = time.perf_counter()
        bare.iallreduce(bucket.tensor).wait()
        t2 = time.perf_counter()
        hook_s.append(t1 - t0)
        bare_s.append(t2 - t1)
    skip = args.calls // 20
    h, b = statistics.median(hook_s[skip:]), statistics.median(bare_s[skip:])
    print(f"{bucket.tensor.numel()} floats, {args.algorithm}: hook {1e6 * h:.1f} us, bare "
          f"iallreduce + wait {1e6 * b:.1f} us, the hook's own {1e6 * (h - b):.1f} us per bucket")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(500):
        dt.allreduce_hook(state, bucket).wait()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(8)


if __name__ == "__main__":
    main()
