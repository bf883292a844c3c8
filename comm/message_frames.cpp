#include "comm/message_frames.hpp"

#include <climits>
#include <string>

#include "comm/error.hpp"
#include "dlk/dlk_compress.h"

namespace dlk::comm {

Frames frame_slots(const char *call, const std::vector<uint64_t> &sizes, uint64_t capacity) {
  if (capacity > INT_MAX)
    throw_invalid(call, "count",
                  "gives a message of more than the 2 GiB (INT_MAX bytes) one MPI call can move");
  Frames frames;
  frames.sizes.resize(sizes.size());
  frames.displacements.resize(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] > capacity)
      throw Error(DLK_COMM_CODEC_ERROR,
                  std::string(call) + ": rank " + std::to_string(i) + " sent a message of " +
                      std::to_string(sizes[i]) + " bytes; this chunk's messages are at most " +
                      std::to_string(capacity));
    frames.sizes[i] = sizes[i];
    frames.displacements[i] = i * capacity;
  }
  frames.total = sizes.size() * capacity;
  return frames;
}

void sum_messages(const char *call, const uint8_t *gathered, const Frames &frames, float *sum,
                  uint64_t count, Into into) {
  for (size_t i = 0; i < frames.sizes.size(); ++i) {
    const uint8_t *message = gathered + frames.displacements[i];
    const auto size = static_cast<size_t>(frames.sizes[i]);
    check_codec(call, i == 0 && into == Into::overwrite
                          ? dlk_compress_decode(message, size, sum, count)
                          : dlk_compress_decode_add(message, size, sum, count));
  }
}

}  // namespace dlk::comm
