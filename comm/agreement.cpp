#include "comm/agreement.hpp"

#include <chrono>
#include <climits>

#include "comm/algorithm.hpp"
#include "comm/error.hpp"
#include "comm/polite_wait.hpp"

namespace dlk::comm {
namespace {

// A peer's value may be any integer: only a known algorithm is shown by name.
std::string shown(const Field &f, int64_t value) {
  if (f.is_algorithm && value >= 0 && value <= INT_MAX && known_algorithm(static_cast<int>(value)))
    return algorithm_name(static_cast<dlk_comm_algorithm>(value));
  return std::to_string(value);
}

}  // namespace

std::vector<int64_t> agreement_message(const std::vector<Field> &fields) {
  const size_t n = fields.size();
  std::vector<int64_t> values(2 * n);
  for (size_t i = 0; i < n; ++i) {
    values[i] = fields[i].value;
    values[n + i] = ~fields[i].value;  // max of ~v is ~(min of v)
  }
  return values;
}

std::string disagreements(const std::vector<Field> &fields, const std::vector<int64_t> &reduced) {
  const size_t n = fields.size();
  std::string found;
  for (size_t i = 0; i < n; ++i) {
    const int64_t hi = reduced[i], lo = ~reduced[n + i];
    if (hi == lo) continue;
    found += std::string(found.empty() ? "" : "; ") + "'" + fields[i].name + "' (from " +
             shown(fields[i], lo) + " to " + shown(fields[i], hi) + ")";
  }
  return found;
}

double agree(MPI_Comm comm, const char *call, const std::vector<Field> &fields) {
  std::vector<int64_t> values = agreement_message(fields);
  const auto start = std::chrono::steady_clock::now();
  // Non-blocking and waited for politely: this is where a rank waits for the slowest one
  // (a whole backward pass of skew, in training), and MPI_Allreduce would busy-poll a core
  // through it that the other rank's computation may need (the DDP hook's steps went
  // 1.58x DDP's own on 2 shared cores, docs/python.md).
  MPI_Request request;
  check_mpi(call, "MPI_Iallreduce (argument check)",
            MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                           MPI_INT64_T, MPI_MAX, comm, &request));
  polite_wait(call, request, MPI_STATUS_IGNORE);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string found = disagreements(fields, values);
  if (!found.empty())
    throw Error(DLK_COMM_MISMATCH, std::string(call) + ": ranks disagree on " + found +
                                       "; every rank returns this error");
  return seconds;
}

}  // namespace dlk::comm
