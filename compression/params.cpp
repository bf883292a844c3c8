#include "compression/params.hpp"

#include <cmath>
#include <string>

#include "compression/error.hpp"

namespace dlk::codec {

bool known_algorithm(int algorithm) {
  return algorithm >= DLK_CODEC_ONEBIT && algorithm <= DLK_CODEC_BF16;
}

const char *algorithm_name(int algorithm) {
  switch (algorithm) {
    case DLK_CODEC_ONEBIT: return "onebit";
    case DLK_CODEC_TOPK: return "topk";
    case DLK_CODEC_INT8: return "int8";
    case DLK_CODEC_INT4: return "int4";
    case DLK_CODEC_FP16: return "fp16";
    case DLK_CODEC_BF16: return "bf16";
  }
  return "unknown";
}

bool blocked_algorithm(dlk_codec_algorithm algorithm) {
  return algorithm == DLK_CODEC_ONEBIT || algorithm == DLK_CODEC_INT8 ||
         algorithm == DLK_CODEC_INT4;
}

void default_params(dlk_codec_params &params, dlk_codec_algorithm algorithm) {
  params = dlk_codec_params{};
  params.algorithm = algorithm;
  // onebit sends 2 floats per block next to 1 bit per element (1.5 bits per
  // element at 128); longer blocks cost less but mix the scales of a network's
  // layers and of a layer's units under one value: LeNet-5 on 2 ranks ended 5
  // epochs at 72.8 % test accuracy with 1024, 86.8 % with 128 (native 87.0 %;
  // docs/training.md). int4's coarse codes want a tighter scale than int8's.
  switch (algorithm) {
    case DLK_CODEC_ONEBIT: params.block_size = 128; break;
    case DLK_CODEC_INT8: params.block_size = 256; break;
    case DLK_CODEC_INT4: params.block_size = 128; break;
    default: params.block_size = 0;
  }
  params.rounding = DLK_CODEC_ROUND_NEAREST_EVEN;
  params.topk_selection = DLK_CODEC_TOPK_EXACT;
  params.topk_count = 0;
  params.topk_fraction = 0.01;
}

void validate_params(const char *call, const dlk_codec_params &params, uint64_t count) {
  const int algorithm = stored_int(params.algorithm);
  if (!known_algorithm(algorithm))
    throw_invalid(call, "params->algorithm",
                  "is " + std::to_string(algorithm) +
                      "; valid values: onebit, topk, int8, int4, fp16, bf16 (1 to 6)");
  if (count > DLK_CODEC_MAX_ELEMENTS)
    throw_invalid(call, "count", "is " + std::to_string(count) + "; the limit is 2^48");

  if (blocked_algorithm(params.algorithm)) {
    const uint32_t b = params.block_size;
    if (b == 0 || b % DLK_CODEC_BLOCK_ALIGNMENT != 0 || b > DLK_CODEC_MAX_BLOCK_SIZE)
      throw_invalid(call, "params->block_size",
                    "is " + std::to_string(b) + "; must be a multiple of 16 from 16 to 2^24");
  }
  if (params.algorithm == DLK_CODEC_INT8 || params.algorithm == DLK_CODEC_INT4) {
    const int rounding = stored_int(params.rounding);
    if (rounding != DLK_CODEC_ROUND_NEAREST_EVEN && rounding != DLK_CODEC_ROUND_STOCHASTIC)
      throw_invalid(call, "params->rounding",
                    "is " + std::to_string(rounding) +
                        "; valid values: nearest_even (0), stochastic (1)");
  }
  if (params.algorithm == DLK_CODEC_TOPK) {
    const int selection = stored_int(params.topk_selection);
    if (selection != DLK_CODEC_TOPK_EXACT && selection != DLK_CODEC_TOPK_SAMPLED)
      throw_invalid(call, "params->topk_selection",
                    "is " + std::to_string(selection) + "; valid values: exact (0), sampled (1)");
    if (count > (uint64_t(1) << 32))
      throw_invalid(call, "count",
                    "is " + std::to_string(count) + "; topk indices are 32-bit: at most 2^32");
    if (params.topk_count > count)
      throw_invalid(call, "params->topk_count",
                    "is " + std::to_string(params.topk_count) + ", more than count " +
                        std::to_string(count));
    if (params.topk_count == 0 && !(params.topk_fraction > 0.0 && params.topk_fraction <= 1.0))
      throw_invalid(call, "params->topk_fraction",
                    "is " + std::to_string(params.topk_fraction) +
                        "; must be in (0, 1] when topk_count is 0");
  }
}

uint64_t topk_k(const dlk_codec_params &params, uint64_t count) {
  if (count == 0) return 0;
  if (params.topk_count) return params.topk_count;
  const auto k = static_cast<uint64_t>(std::llround(params.topk_fraction * static_cast<double>(count)));
  return k < 1 ? 1 : (k > count ? count : k);
}

}  // namespace dlk::codec
