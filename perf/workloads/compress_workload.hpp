// One codec at one buffer size, for `dlk-perf compress`: the buffers, the three
// operations as timing candidates, and what each must move through memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dlk/dlk_compress.h"
#include "perf/common/timing.hpp"

namespace dlk::perf {

enum class CodecOp { encode, decode, decode_add };

// "encode", "decode", "decode_add".
const char *codec_op_name(CodecOp op);

// The roofline's count for one call: the bytes the operation must move (each
// buffer read or written once; for topk's decode_add, the cache lines its
// indices touch, read and written) and the data it works on.
struct CodecTraffic {
  double bytes = 0;
  size_t working_set = 0;
};

// The bytes one call of `op` moves for `count` floats and a message of
// `message_size` bytes, each buffer read or written once: every codec but topk's
// decode_add, which touches only the lines its indices fall in.
CodecTraffic codec_traffic(CodecOp op, size_t count, size_t message_size);

class CompressWorkload {
 public:
  // Gaussian gradients of `bytes / 4` floats; encode runs with a residual
  // (error feedback), as training does. Throws dlk::compress::Error or bad_alloc.
  CompressWorkload(const dlk_codec_params &params, size_t bytes);

  std::vector<Candidate> candidates();  // encode, decode, decode_add
  CodecTraffic traffic(CodecOp op) const;
  size_t elements() const { return count_; }
  size_t message_bytes() const { return message_size_; }
  double compression_ratio() const { return 4.0 * count_ / message_size_; }

 private:
  struct Free {
    void operator()(void *p) const;
  };
  template <class T>
  using Buffer = std::unique_ptr<T[], Free>;
  template <class T>
  static Buffer<T> allocate(size_t count);

  dlk_codec_params params_;
  size_t count_;
  Buffer<float> input_, residual_, output_, accumulator_;
  Buffer<uint8_t> message_;          // encoded once, what decode reads
  Buffer<uint8_t> encoded_;          // what the timed encode writes
  size_t capacity_ = 0, message_size_ = 0;
  size_t touched_lines_ = 0;  // topk: cache lines of the accumulator its indices touch
};

}  // namespace dlk::perf
