#include "comm/buffer_state.hpp"

#include <cstring>
#include <string>
#include <utility>

#include "comm/error.hpp"
#include "comm/state_format.hpp"

namespace dlk::comm {
namespace {

StateHeader header_of(const Buffer &b) {
  return {b.chosen, static_cast<uint32_t>(b.comm->rank()), static_cast<uint32_t>(b.comm->size()),
          b.count, b.calls};
}

void read_residual(std::vector<float> &residual, const unsigned char *from, uint64_t length) {
  residual.resize(length);
  if (length) std::memcpy(residual.data(), from, 4 * length);
}

}  // namespace

size_t state_size(const Buffer &b) {
  return state_bytes(b.worker_residual.size(), b.server_residual.size());
}

void save_state(const char *call, const Buffer &b, void *state, size_t capacity) {
  if (capacity < state_size(b))
    throw_invalid(call, "capacity",
                  "is " + std::to_string(capacity) + " bytes; the state needs " +
                      std::to_string(state_size(b)) + " (dlk_comm_buffer_state_size)");
  write_state(header_of(b), b.worker_residual.data(), b.worker_residual.size(),
              b.server_residual.data(), b.server_residual.size(), state);
}

void load_state(const char *call, Buffer &b, const void *state, size_t size) {
  const SavedState saved = read_state(call, header_of(b), state, size);
  // Sized before anything changes: only an allocation can fail from here on.
  std::vector<float> worker, server;
  read_residual(worker, saved.worker, saved.worker_length);
  read_residual(server, saved.server, saved.server_length);
  b.chosen = saved.header.algorithm;
  b.worker_residual = std::move(worker);
  b.server_residual = std::move(server);
  b.calls = saved.header.calls;
}

}  // namespace dlk::comm
