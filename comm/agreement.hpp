// The header every collective exchanges first: each rank contributes the
// arguments of its call, and all ranks learn whether they agree, in one small
// MPI_Iallreduce (of the values and their complements, with MPI_MAX: the maximum
// and minimum of each field), waited for by polite_wait, not MPI's busy-poll.
// Ranks that disagree all throw DLK_COMM_MISMATCH naming the field, instead of
// starting transfers that cannot match.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

namespace dlk::comm {

struct Field {
  const char *name;
  int64_t value;
  bool is_algorithm = false;  // printed by name in the message when it is one
};

// Returns the seconds spent in the exchange (mostly waiting for the slowest rank).
double agree(MPI_Comm comm, const char *call, const std::vector<Field> &fields);

// The two halves of the exchange, pure functions of their values (fuzzed by
// tests/fuzz/fuzz_comm_agreement.cpp): what one rank contributes (2 n values),
// and, from the elementwise maximum of every rank's contribution, "" when all
// agree, else "'<name>' (from <min> to <max>)" for every field that differs.
std::vector<int64_t> agreement_message(const std::vector<Field> &fields);
std::string disagreements(const std::vector<Field> &fields, const std::vector<int64_t> &reduced);

}  // namespace dlk::comm
