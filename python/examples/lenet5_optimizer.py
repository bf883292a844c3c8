"""LeNet-5 on Fashion-MNIST with dlk.torch.DistributedOptimizer (Horovod's style, no
torch.distributed): gradients all-reduced over libdlk_comm while backward runs, each
algorithm in turn ('onebit+mc' etc.: with momentum correction), from weights broadcast from
rank 0. Launch with mpirun:

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
    total = dlk.comm.Buffer(comm, 3, "native")

    def sum_fn(values):
        t = torch.tensor(values, dtype=torch.float32)
        total.allreduce(t)
        return t.tolist()

    common.print_header(rank, args, size, "DistributedOptimizer")
    for name in args.algorithms:
        model = common.lenet5(args)
        dt.broadcast_parameters(model.state_dict(), root_rank=0, communicator=comm)
        algorithm, corrected = common.split_name(name)
        opt = dt.DistributedOptimizer(common.sgd(model), model.named_parameters(),
                                      algorithm=algorithm, communicator=comm,
                                      momentum_correction=corrected,
                                      warmup_steps=args.warmup_steps, block_size=args.block_size)

        def step(xb, yb):
            opt.zero_grad()
            loss = common.loss_fn(model, xb, yb)
            loss.backward()
            opt.step()
            return loss.detach()

        common.print_row(rank, name, *common.train(args, model, step, rank, size, x, y, xt, yt,
                                                   sum_fn))


if __name__ == "__main__":
    main()
