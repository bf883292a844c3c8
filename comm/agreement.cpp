#include "comm/agreement.hpp"

#include <chrono>
#include <string>

#include "comm/algorithm.hpp"
#include "comm/error.hpp"

namespace dlk::comm {
namespace {

std::string shown(const Field &f, int64_t value) {
  if (f.is_algorithm) return algorithm_name(static_cast<dlk_comm_algorithm>(value));
  return std::to_string(value);
}

}  // namespace

double agree(MPI_Comm comm, const char *call, const std::vector<Field> &fields) {
  const size_t n = fields.size();
  std::vector<int64_t> values(2 * n);
  for (size_t i = 0; i < n; ++i) {
    values[i] = fields[i].value;
    values[n + i] = ~fields[i].value;  // max of ~v is ~(min of v)
  }
  const auto start = std::chrono::steady_clock::now();
  check_mpi(call, "MPI_Allreduce (argument check)",
            MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(2 * n), MPI_INT64_T,
                          MPI_MAX, comm));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string disagreements;
  for (size_t i = 0; i < n; ++i) {
    const int64_t hi = values[i], lo = ~values[n + i];
    if (hi == lo) continue;
    disagreements += std::string(disagreements.empty() ? "" : "; ") + "'" + fields[i].name +
                     "' (from " + shown(fields[i], lo) + " to " + shown(fields[i], hi) + ")";
  }
  if (!disagreements.empty())
    throw Error(DLK_COMM_MISMATCH, std::string(call) + ": ranks disagree on " + disagreements +
                                       "; every rank returns this error");
  return seconds;
}

}  // namespace dlk::comm
