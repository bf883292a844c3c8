// The bytes of a dlk-train checkpoint (docs/train.md), in host byte order:
//   "DLKTRAIN", u32 version 3,
//   strings (u32 length, bytes) model, dtype, algorithm; u32 ranks, u32 error_feedback,
//   u32 momentum_correction (0 or 1), u64 min_compress_bytes (versions 1 and 2,
//   before them, are refused), u64 batch, u64 seed, u64 step,
//   u32 parameters, each: string name, u64 count, count f32 values, and, without
//   momentum correction, count f32 momenta (the same on every rank),
//   for each of `ranks` ranks: u32 buckets, each: u64 bytes, the bucket's
//   dlk_comm_sync_save_bucket_state bytes; with momentum correction then each
//   parameter's count f32 momenta of that rank (each rank keeps its own),
//   u64 FNV-1a of every byte before it.
// parse_checkpoint checks every length against what is left before it allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dlk_train {

struct CheckpointTensor {
  std::string name;
  std::vector<float> value, momentum;  // momentum: empty with momentum correction
};

struct Checkpoint {
  std::string model, dtype, algorithm;
  uint32_t ranks = 1;
  bool error_feedback = true;
  bool momentum_correction = false;
  uint64_t min_compress_bytes = 0;  // --min-compress-bytes: changes the buckets
  uint64_t batch = 0, seed = 0, step = 0;
  std::vector<CheckpointTensor> parameters;
  std::vector<std::vector<std::vector<uint8_t>>> bucket_states;  // [rank][bucket]
  // [rank][parameter], with momentum correction only (else empty).
  std::vector<std::vector<std::vector<float>>> rank_momenta;
};

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::vector<uint8_t> serialize_checkpoint(const Checkpoint &c);
// name is what messages call the bytes (the file's path).
Checkpoint parse_checkpoint(const uint8_t *bytes, size_t size, const std::string &name);

}  // namespace dlk_train
