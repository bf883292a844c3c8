// Compressed messages of every rank gathered end to end into one buffer (the
// two-phase all-to-all, the topk all-gather): where each one lies, and their
// sum. topk's sizes come from the peers, so nothing here trusts a size: each is
// checked against the largest message the call can produce before any byte is
// placed, and the messages themselves are checked by libdlk_compress's decoder.
// Pure functions of bytes, fuzzed as they are (tests/fuzz/fuzz_comm_messages.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace dlk::comm {

struct Frames {
  std::vector<int> sizes, displacements;  // MPI's counts and displacements, in bytes
  uint64_t total = 0;                     // bytes, at most INT_MAX
};

// Throws DLK_COMM_CODEC_ERROR naming the rank when a size exceeds `largest`, and
// DLK_COMM_INVALID_ARGUMENT naming "count" when the messages together exceed
// what one MPI call can move (INT_MAX bytes).
Frames frame_messages(const char *call, const std::vector<uint64_t> &sizes, uint64_t largest);

enum class Into { overwrite, add };

// Decodes the messages of gathered[0, frames.total) in rank order into sum[0,
// count): the first overwrites sum (Into::overwrite) or is added to it like the
// others (Into::add). Throws DLK_COMM_CODEC_ERROR with the decoder's message.
void sum_messages(const char *call, const uint8_t *gathered, const Frames &frames, float *sum,
                  uint64_t count, Into into);

}  // namespace dlk::comm
