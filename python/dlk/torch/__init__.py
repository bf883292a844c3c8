"""dlk.torch: PyTorch on dlk (docs/python.md).

- dlk.torch.nn.Conv2d, Linear, MaxPool2d, AvgPool2d: torch layers whose forward and
  backward run on a dlk backend (cpu, fpga_sim, ...);
- allreduce_hook / AllreduceHookState: a DDP communication hook over libdlk_comm;
- DistributedOptimizer / broadcast_parameters: Horovod-style training under mpirun without
  torch.distributed;
- init_process_group_from_mpi: torch.distributed (gloo) from Open MPI's rank variables, so
  DDP and libdlk_comm share the processes mpirun started.
"""
import os

from . import nn
from .ddp_hook import AllreduceHookState, allreduce_hook
from .optimizer import DistributedOptimizer, broadcast_parameters

__all__ = ["nn", "AllreduceHookState", "allreduce_hook", "DistributedOptimizer",
           "broadcast_parameters", "init_process_group_from_mpi", "mpi_rank_size"]


def mpi_rank_size():
    """(rank, size) from Open MPI's environment (mpirun), else (0, 1)."""
    return (int(os.environ.get("OMPI_COMM_WORLD_RANK", 0)),
            int(os.environ.get("OMPI_COMM_WORLD_SIZE", 1)))


def init_process_group_from_mpi(backend="gloo", store_dir="/tmp"):
    """torch.distributed.init_process_group for ranks started by mpirun: rank and size
    from OMPI_COMM_WORLD_*, the ranks meet through a file store named by the job id (the
    ranks must share store_dir: one machine, or a shared filesystem)."""
    import torch.distributed as dist
    rank, size = mpi_rank_size()
    job = os.environ.get("OMPI_MCA_ess_base_jobid", "0")
    path = os.path.join(store_dir, f"dlk-torch-{job}.store")
    dist.init_process_group(backend, init_method=f"file://{path}", rank=rank, world_size=size)
    return rank, size
