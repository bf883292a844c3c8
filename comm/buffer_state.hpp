// Checkpoints of a buffer's state (residuals, call counter), in host byte order:
//   "DLKCOMM1", u32 format 1, u32 algorithm, u32 rank, u32 ranks, u64 count,
//   u64 calls, u64 worker floats, u64 server floats, then the two residuals.
#pragma once

#include <cstddef>

#include "comm/buffer.hpp"

namespace dlk::comm {

size_t state_size(const Buffer &buffer);
void save_state(const char *call, const Buffer &buffer, void *state, size_t capacity);
// Checks everything before it changes anything.
void load_state(const char *call, Buffer &buffer, const void *state, size_t size);

}  // namespace dlk::comm
