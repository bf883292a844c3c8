// libFuzzer target: the argument agreement every collective of libdlk_comm starts
// with (comm/agreement.hpp): each rank's contribution, their elementwise maximum
// (what MPI_Allreduce with MPI_MAX gives every rank) and the verdict read from it.
// Input: u8 ranks - 1 (mod 8), u8 fields - 1 (mod 12), a u8 per field (bit 0: an
// algorithm field, shown by name), then rank by rank each field's int64 value
// (a rank whose bytes have run out repeats rank 0's values). The verdict must be
// empty exactly when every field agrees, and otherwise name each field that
// differs with its minimum and maximum. The same input's values are also read as
// a reduced vector no honest exchange produces (minimum above maximum, values
// outside every enum): the verdict is built without fault.
#include <algorithm>
#include <string>
#include <vector>

#include "comm/agreement.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace dlk::comm;
using dlk_fuzz::Bytes;
using dlk_fuzz::require;

const char *const kNames[] = {"f0", "f1", "f2", "f3", "f4",  "f5",
                              "f6", "f7", "f8", "f9", "f10", "f11"};

int64_t i64(const uint8_t *data, size_t size, size_t &at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(at < size ? data[at++] : 0) << (8 * i);
  return static_cast<int64_t>(v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  const int ranks = 1 + in.u8() % 8;
  const size_t n = 1 + in.u8() % 12;
  std::vector<Field> fields(n);
  for (size_t i = 0; i < n; ++i) fields[i] = {kNames[i], 0, in.flag()};
  size_t at = std::min<size_t>(size, 2 + n);

  std::vector<std::vector<int64_t>> values(ranks, std::vector<int64_t>(n));
  for (int r = 0; r < ranks; ++r)
    for (size_t i = 0; i < n; ++i)
      values[r][i] = at < size || r == 0 ? i64(data, size, at) : values[0][i];

  std::vector<int64_t> reduced;
  for (int r = 0; r < ranks; ++r) {
    for (size_t i = 0; i < n; ++i) fields[i].value = values[r][i];
    const std::vector<int64_t> message = agreement_message(fields);
    require(message.size() == 2 * n);
    if (r == 0) reduced = message;
    for (size_t k = 0; k < message.size(); ++k) reduced[k] = std::max(reduced[k], message[k]);
  }
  const std::string verdict = disagreements(fields, reduced);

  bool all_agree = true;
  for (size_t i = 0; i < n; ++i) {
    int64_t lo = values[0][i], hi = values[0][i];
    for (int r = 1; r < ranks; ++r) lo = std::min(lo, values[r][i]), hi = std::max(hi, values[r][i]);
    const std::string named = std::string("'") + kNames[i] + "' (from ";
    const size_t where = verdict.find(named);
    require((lo == hi) == (where == std::string::npos));
    if (lo == hi) continue;
    all_agree = false;
    const std::string range = std::to_string(lo) + " to " + std::to_string(hi) + ")";
    if (!fields[i].is_algorithm)
      require(verdict.compare(where + named.size(), range.size(), range) == 0);
  }
  require(all_agree == verdict.empty());

  std::vector<int64_t> hostile(2 * n);
  at = std::min<size_t>(size, 2 + n);
  for (int64_t &v : hostile) v = i64(data, size, at);
  disagreements(fields, hostile);
  return 0;
}
