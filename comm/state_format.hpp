// The bytes of a buffer's checkpoint (dlk_comm_buffer_save_state), in host byte
// order:
//   "DLKCOMM1", u32 format 1, u32 algorithm, u32 rank, u32 ranks, u64 count,
//   u64 calls, u64 worker floats, u64 server floats, then the two residuals.
// Reading is a pure function of the bytes and of the buffer they are loaded into,
// so that it is fuzzed as it is (tests/fuzz/fuzz_comm_state.cpp): a state comes
// from a file the caller hands in, and nothing in it is trusted.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dlk/dlk_comm.h"

namespace dlk::comm {

// What a state holds, or what the buffer it is loaded into is.
struct StateHeader {
  dlk_comm_algorithm algorithm;  // auto's choice once made (auto before), else the configured one
  uint32_t rank, ranks;
  uint64_t count, calls;
};

// A state read from its bytes: the residuals point into those bytes (unaligned).
struct SavedState {
  StateHeader header;
  const unsigned char *worker, *server;
  uint64_t worker_length, server_length;
};

size_t state_bytes(uint64_t worker_length, uint64_t server_length);

// Writes state_bytes(worker_length, server_length) bytes to out.
void write_state(const StateHeader &header, const float *worker, uint64_t worker_length,
                 const float *server, uint64_t server_length, void *out);

// Reads a state for the buffer `into` (its calls are ignored): throws
// DLK_COMM_INVALID_ARGUMENT naming "state" or "size" unless the bytes are a
// state of exactly that buffer's rank, rank count, count and algorithm (a buffer
// still on auto accepts any choice), with the residuals that algorithm keeps.
SavedState read_state(const char *call, const StateHeader &into, const void *state, size_t size);

}  // namespace dlk::comm
