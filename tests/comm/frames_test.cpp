// The framing of gathered compressed messages (comm/message_frames.hpp), which
// topk builds from sizes its peers announce: a hostile size is refused before
// anything is placed. Once, a size near 2^64 wrapped the running total past the
// INT_MAX check and became a negative MPI count (now fuzzed: fuzz_comm_messages).
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <vector>

#include "comm/error.hpp"
#include "comm/message_frames.hpp"
#include "dlk/dlk_compress.hpp"

using dlk::comm::Error;
using dlk::comm::frame_messages;

namespace {

dlk_comm_status status_of(const std::vector<uint64_t> &sizes, uint64_t largest) {
  try {
    frame_messages("test", sizes, largest);
    return DLK_COMM_SUCCESS;
  } catch (const Error &e) {
    return e.status();
  }
}

}  // namespace

TEST_CASE("frames lie end to end in rank order", "[comm][frames]") {
  const auto frames = frame_messages("test", {5, 0, 7}, 8);
  CHECK(frames.sizes == std::vector<int>{5, 0, 7});
  CHECK(frames.displacements == std::vector<int>{0, 5, 5});
  CHECK(frames.total == 12);
}

TEST_CASE("an announced size is checked before it is placed", "[comm][frames]") {
  CHECK(status_of({10, UINT64_MAX - 5}, UINT64_MAX) == DLK_COMM_INVALID_ARGUMENT);
  CHECK(status_of({10, UINT64_MAX - 5}, 100) == DLK_COMM_CODEC_ERROR);
  CHECK(status_of({101}, 100) == DLK_COMM_CODEC_ERROR);
  CHECK(status_of({INT_MAX, 1}, UINT64_MAX) == DLK_COMM_INVALID_ARGUMENT);
  CHECK(status_of({INT_MAX - 1, 1}, UINT64_MAX) == DLK_COMM_SUCCESS);
}

TEST_CASE("gathered messages sum in rank order; a bad one is refused", "[comm][frames]") {
  dlk_codec_params params = dlk::compress::params(DLK_CODEC_FP16);
  const std::vector<float> a{1, 2, 3}, b{10, 20, 30};
  std::vector<uint8_t> gathered = dlk::compress::encode(params, a.data(), nullptr, 3);
  const std::vector<uint8_t> second = dlk::compress::encode(params, b.data(), nullptr, 3);
  const uint64_t size = second.size();
  gathered.insert(gathered.end(), second.begin(), second.end());
  const auto frames = frame_messages("test", {size, size}, size);

  std::vector<float> sum(3, -1.0f);
  dlk::comm::sum_messages("test", gathered.data(), frames, sum.data(), 3,
                          dlk::comm::Into::overwrite);
  CHECK(sum == std::vector<float>{11, 22, 33});
  dlk::comm::sum_messages("test", gathered.data(), frames, sum.data(), 3, dlk::comm::Into::add);
  CHECK(sum == std::vector<float>{22, 44, 66});

  gathered.back() ^= 1;  // the checksum no longer matches
  CHECK_THROWS_AS(dlk::comm::sum_messages("test", gathered.data(), frames, sum.data(), 3,
                                          dlk::comm::Into::add),
                  Error);
}
