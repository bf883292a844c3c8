// The compressed messages of one chunk from every rank, each received into a
// slot of its own (the two-phase owner's P messages, topk's P messages): where
// each one lies, and their sum. topk's sizes come from what the peers sent, so
// nothing here trusts a size: each is checked against the largest message the
// chunk can produce before any byte is read, and the messages themselves are
// checked by libdlk_compress's decoder. Pure functions of bytes, fuzzed as they
// are (tests/fuzz/fuzz_comm_messages.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace dlk::comm {

struct Frames {
  std::vector<uint64_t> sizes, displacements;  // bytes; message i at displacements[i]
  uint64_t total = 0;                          // bytes the slots span
};

// Message i of sizes (rank order) in slot i, at i * capacity. Throws
// DLK_COMM_CODEC_ERROR naming the rank when a size exceeds capacity, and
// DLK_COMM_INVALID_ARGUMENT naming "count" when capacity exceeds the INT_MAX
// bytes one MPI call moves.
Frames frame_slots(const char *call, const std::vector<uint64_t> &sizes, uint64_t capacity);

enum class Into { overwrite, add };

// Decodes the messages of gathered[0, frames.total) in rank order into sum[0,
// count): the first overwrites sum (Into::overwrite) or is added to it like the
// others (Into::add). Throws DLK_COMM_CODEC_ERROR with the decoder's message.
void sum_messages(const char *call, const uint8_t *gathered, const Frames &frames, float *sum,
                  uint64_t count, Into into);

}  // namespace dlk::comm
