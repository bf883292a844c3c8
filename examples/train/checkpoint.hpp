// --save and --resume: rank 0 gathers every rank's bucket states (the all-reduce
// residuals differ by rank) and writes one file; every rank reads it back.
#pragma once

#include <mpi.h>

#include <string>

#include "checkpoint_format.hpp"

namespace dlk_train {

// Collective. c holds this rank's bucket states as c.bucket_states[0]; rank 0
// writes the file with every rank's (through a temporary file and a rename).
void save_checkpoint(const std::string &path, Checkpoint c, MPI_Comm comm);

Checkpoint read_checkpoint(const std::string &path);

}  // namespace dlk_train
