"""LeNet-5 on Fashion-MNIST with DistributedDataParallel, its gradients all-reduced by
dlk.torch.allreduce_hook over libdlk_comm (each algorithm in turn), beside DDP's own
all-reduce over gloo ('ddp'); 'onebit+mc' etc. all-reduce each rank's momentum instead
(momentum correction, the optimizer given to the hook). Launch with mpirun; DDP's gloo group and dlk's MPI
communicator live side by side in the same processes:

    mpirun -np 2 --bind-to none /usr/bin/python3 python/examples/lenet5_ddp_hook.py \\
        --algorithm all --epochs 1
"""
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

import dlk.comm
import dlk.torch as dt
import lenet5_common as common


def main():
    args = common.parse_args(__doc__.splitlines()[0], extra_algorithms=["ddp"])
    torch.set_num_threads(args.threads)
    rank, size = dt.init_process_group_from_mpi()
    comm = dlk.comm.world()
    x, y, xt, yt = common.load_data(args)
    sum_buf = {}

    def sum_fn(values):
        t = torch.tensor(values, dtype=torch.float32)
        if t.numel() not in sum_buf:
            sum_buf[t.numel()] = dlk.comm.Buffer(comm, t.numel(), "native")
        sum_buf[t.numel()].allreduce(t)
        return t.tolist()

    common.print_header(rank, args, size, "DDP communication hook")
    for name in args.algorithms:
        model = common.lenet5(args)
        ddp = DDP(model)
        opt = common.sgd(ddp)
        algorithm, corrected = common.split_name(name)
        if name != "ddp":
            ddp.register_comm_hook(dt.AllreduceHookState(algorithm, communicator=comm,
                                                         optimizer=opt if corrected else None,
                                                         warmup_steps=args.warmup_steps,
                                                         block_size=args.block_size),
                                   dt.allreduce_hook)

        def step(xb, yb):
            opt.zero_grad()
            loss = common.loss_fn(ddp, xb, yb)
            loss.backward()
            opt.step()
            return loss.detach()

        common.print_row(rank, name, *common.train(args, ddp, step, rank, size, x, y, xt, yt,
                                                   sum_fn))


if __name__ == "__main__":
    main()
