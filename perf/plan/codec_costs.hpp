// The codecs' cost at a bucket's size, measured on this CPU with
// libdlk_compress: one encode of the bucket (with error feedback) and one
// decode-and-add of its message, medians of a few calls, and the message's
// size. Measured once per (codec, size) in a run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "perf/plan/allreduce_model.hpp"

namespace dlk::perf {

class CodecCosts {
 public:
  CodecCosts(double topk_fraction, double min_seconds)
      : topk_fraction_(topk_fraction), min_seconds_(min_seconds) {}

  // algorithm: onebit, int8, int4, fp16, bf16, topk; count: floats in the bucket.
  // Throws std::runtime_error with libdlk_compress's message on failure.
  BucketCodec at(const std::string &algorithm, std::uint64_t count);

 private:
  double topk_fraction_, min_seconds_;
  std::map<std::pair<std::string, std::uint64_t>, BucketCodec> measured_;
};

}  // namespace dlk::perf
