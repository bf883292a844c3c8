#include "perf/plan/codec_costs.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "dlk/dlk_compress.h"
#include "perf/common/random_elements.hpp"
#include "perf/common/stats.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

dlk_codec_algorithm codec_of(const std::string &name) {
  if (name == "onebit") return DLK_CODEC_ONEBIT;
  if (name == "topk") return DLK_CODEC_TOPK;
  if (name == "int8") return DLK_CODEC_INT8;
  if (name == "int4") return DLK_CODEC_INT4;
  if (name == "fp16") return DLK_CODEC_FP16;
  if (name == "bf16") return DLK_CODEC_BF16;
  throw std::invalid_argument("CodecCosts: " + name + " is not a codec");
}

void check(dlk_codec_status status, const char *call) {
  if (status != DLK_CODEC_SUCCESS) throw std::runtime_error(std::string(call) + ": " + dlk_compress_last_error());
}

}  // namespace

BucketCodec CodecCosts::at(const std::string &algorithm, std::uint64_t count) {
  const auto key = std::make_pair(algorithm, count);
  if (const auto it = measured_.find(key); it != measured_.end()) return it->second;
  dlk_codec_params params;
  check(dlk_compress_params_init(&params, codec_of(algorithm)), "dlk_compress_params_init");
  params.topk_fraction = topk_fraction_;
  size_t capacity = 0;
  check(dlk_compress_max_message_size(&params, count, &capacity), "dlk_compress_max_message_size");
  std::vector<float> input(count), residual(count, 0.0f), output(count, 0.0f);
  const std::vector<unsigned char> bytes = random_elements(DLK_DTYPE_F32, count, 11);
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<unsigned char *>(input.data()));
  std::vector<unsigned char> message(std::max<size_t>(capacity, 1));
  size_t written = 0;
  const auto encode = [&] {
    check(dlk_compress_encode(&params, input.data(), residual.data(), count, message.data(), capacity, &written),
          "dlk_compress_encode");
  };
  encode();
  const auto decode = [&] {
    check(dlk_compress_decode_add(message.data(), written, output.data(), count), "dlk_compress_decode_add");
  };
  TimingOptions options;
  options.min_samples = 3;
  options.min_seconds = min_seconds_;
  options.max_seconds = std::max(1.0, 10 * min_seconds_);
  options.min_burst_seconds = 0.001;
  const std::vector<Timing> t = time_interleaved({{"encode", encode}, {"decode", decode}}, options);
  BucketCodec c{static_cast<double>(written), median(t[0].seconds), median(t[1].seconds)};
  measured_[key] = c;
  return c;
}

}  // namespace dlk::perf
