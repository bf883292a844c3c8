#include "comm/buffer_state.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "comm/algorithm.hpp"
#include "comm/error.hpp"

namespace dlk::comm {
namespace {

constexpr char kMagic[8] = {'D', 'L', 'K', 'C', 'O', 'M', 'M', '1'};
constexpr uint32_t kFormat = 1;

struct Header {
  char magic[8];
  uint32_t format, algorithm, rank, ranks;
  uint64_t count, calls, worker, server;
};

Header header_of(const Buffer &b) {
  Header h;
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.format = kFormat;
  h.algorithm = static_cast<uint32_t>(b.chosen);
  h.rank = static_cast<uint32_t>(b.comm->rank());
  h.ranks = static_cast<uint32_t>(b.comm->size());
  h.count = b.count;
  h.calls = b.calls;
  h.worker = b.worker_residual.size();
  h.server = b.server_residual.size();
  return h;
}

void expect(const char *call, const char *what, uint64_t saved, uint64_t here) {
  if (saved != here)
    throw_invalid(call, "state",
                  std::string("was saved with ") + what + " " + std::to_string(saved) +
                      "; this buffer has " + std::to_string(here));
}

}  // namespace

size_t state_size(const Buffer &b) {
  return sizeof(Header) + 4 * (b.worker_residual.size() + b.server_residual.size());
}

void save_state(const char *call, const Buffer &b, void *state, size_t capacity) {
  if (capacity < state_size(b))
    throw_invalid(call, "capacity",
                  "is " + std::to_string(capacity) + " bytes; the state needs " +
                      std::to_string(state_size(b)) + " (dlk_comm_buffer_state_size)");
  const Header h = header_of(b);
  auto *out = static_cast<unsigned char *>(state);
  std::memcpy(out, &h, sizeof h);
  out += sizeof h;
  if (!b.worker_residual.empty()) std::memcpy(out, b.worker_residual.data(), 4 * h.worker);
  out += 4 * h.worker;
  if (!b.server_residual.empty()) std::memcpy(out, b.server_residual.data(), 4 * h.server);
}

void load_state(const char *call, Buffer &b, const void *state, size_t size) {
  Header saved;
  if (size < sizeof saved) throw_invalid(call, "size", "is smaller than a state header");
  std::memcpy(&saved, state, sizeof saved);
  if (std::memcmp(saved.magic, kMagic, sizeof kMagic) != 0 || saved.format != kFormat)
    throw_invalid(call, "state", "is not a libdlk_comm buffer state of format 1");
  const Header here = header_of(b);
  if (b.chosen != DLK_COMM_ALGO_AUTO || saved.algorithm == DLK_COMM_ALGO_AUTO)
    if (saved.algorithm != here.algorithm)
      throw_invalid(call, "state",
                    std::string("was saved by a buffer running ") +
                        algorithm_name(static_cast<dlk_comm_algorithm>(saved.algorithm)) +
                        "; this one runs " + algorithm_name(b.chosen));
  expect(call, "rank", saved.rank, here.rank);
  expect(call, "rank count", saved.ranks, here.ranks);
  expect(call, "count", saved.count, here.count);
  if (size != sizeof saved + 4 * (saved.worker + saved.server))
    throw_invalid(call, "size",
                  "is " + std::to_string(size) + "; the state's header says " +
                      std::to_string(sizeof saved + 4 * (saved.worker + saved.server)));
  if (b.chosen == DLK_COMM_ALGO_AUTO) {  // auto's choice is part of the state
    if (!known_algorithm(static_cast<int>(saved.algorithm)))
      throw_invalid(call, "state", "names an unknown algorithm");
    b.chosen = static_cast<dlk_comm_algorithm>(saved.algorithm);
    b.worker_residual.assign(saved.worker, 0.0f);
    b.server_residual.assign(saved.server, 0.0f);
  }
  expect(call, "worker residual length", saved.worker, b.worker_residual.size());
  expect(call, "server residual length", saved.server, b.server_residual.size());
  const auto *in = static_cast<const unsigned char *>(state) + sizeof saved;
  if (saved.worker) std::memcpy(b.worker_residual.data(), in, 4 * saved.worker);
  in += 4 * saved.worker;
  if (saved.server) std::memcpy(b.server_residual.data(), in, 4 * saved.server);
  b.calls = saved.calls;
}

}  // namespace dlk::comm
