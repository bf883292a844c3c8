"""LeNet-5 on Fashion-MNIST with dlk.torch.DistributedOptimizer (Horovod's style, no
torch.distributed): gradients all-reduced over libdlk_comm while backward runs, each
algorithm in turn, from weights broadcast from rank 0. Launch with mpirun:

    mpirun -np 2 --bind-to none /usr/bin/python3 python/examples/lenet5_optimizer.py \\
        --algorithm all --epochs 1
"""
import torch

import dlk.comm
import dlk.torch as dt
import lenet5_common as common


def main():
    args = common.parse_args(__doc__.splitlines()[0])
    torch.set_num_threads(args.threads)
    comm = dlk.comm.world()
    rank, size = comm.rank, comm.size
    x, y, xt, yt = common.load_data(args)
    total = dlk.comm.Buffer(comm, 2, "native")

    def sum_fn(values):
        t = torch.tensor(values, dtype=torch.float32)
        total.allreduce(t)
        return t.tolist()

    common.print_header(rank, args, size, "DistributedOptimizer")
    for name in args.algorithms:
        model = common.lenet5(args)
        dt.broadcast_parameters(model.state_dict(), root_rank=0, communicator=comm)
        opt = dt.DistributedOptimizer(common.sgd(model), model.named_parameters(),
                                      algorithm=name, communicator=comm,
                                      warmup_steps=args.warmup_steps, block_size=args.block_size)

        def step(xb, yb):
            opt.zero_grad()
            common.loss_fn(model, xb, yb).backward()
            opt.step()

        acc, seconds, steps = common.train(args, model, step, rank, size, x, y, xt, yt, sum_fn)
        common.print_row(rank, name, acc, seconds, steps)


if __name__ == "__main__":
    main()
