// Checkpoints of a buffer's state (residuals, call counter, auto's choice), in
// the format of state_format.hpp.
#pragma once

#include <cstddef>

#include "comm/buffer.hpp"

namespace dlk::comm {

size_t state_size(const Buffer &buffer);
void save_state(const char *call, const Buffer &buffer, void *state, size_t capacity);
// Checks everything before it changes anything.
void load_state(const char *call, Buffer &buffer, const void *state, size_t size);

}  // namespace dlk::comm
