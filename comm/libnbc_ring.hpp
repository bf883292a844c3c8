// MPI_Iallreduce with Open MPI's libnbc told to run its ring for this one call.
//
// libnbc (Open MPI 4.1's non-blocking collectives) picks a binomial reduce then
// broadcast whenever P < 4 or the buffer is MPI_IN_PLACE: rank 0 carries
// 2 n (P - 1) bytes, and at P = 2 a 64 MiB sum took 2.1x MPI_Allreduce's time on a
// 1 Gbit/s link (docs/comm.md, "The overlapped native"). Its ring (control
// variable coll_libnbc_iallreduce_algorithm = 1) runs in place too and moved the
// same 64 MiB in MPI_Allreduce's time. A library must not setenv behind its
// user: this sets the variable through MPI_T for the call and puts it back,
// and only while it holds the value 0 ("ignore": nobody chose), so a user's
// own choice (mpirun --mca, OMPI_MCA_*, MPI_T) wins. Under another MPI (no
// such variable) it is a plain MPI_Iallreduce.
#pragma once

#include <mpi.h>

namespace dlk::comm {

// MPI_Iallreduce(MPI_IN_PLACE, data, count, MPI_FLOAT, MPI_SUM, comm, request)
// with libnbc's ring where that can be chosen; returns MPI's return code. Calls
// from several threads take turns (the variable is one per process). A thread of
// the user's that starts its own MPI_Iallreduce at that moment may get the ring
// too: the same sum, summed in another order.
int iallreduce_sum_libnbc_ring(float *data, int count, MPI_Comm comm, MPI_Request *request);

}  // namespace dlk::comm
