// Encode parameters: defaults, validation against the element count, and the
// values derived from them (k of topk, the stochastic-rounding key).
#pragma once

#include <cstdint>
#include <cstring>

#include "dlk/dlk_compress.h"

namespace dlk::codec {

// The int a C caller stored in an enum argument or field. C allows any int there,
// and loading a value outside the enum as the C++ type is undefined (UBSan stops
// on it), so enums from callers are read this way before anything else reads them.
template <class Enum>
int stored_int(const Enum &field) {
  static_assert(sizeof(Enum) == sizeof(int), "the enums of dlk_compress.h are int-sized");
  int value;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

bool known_algorithm(int algorithm);
// "onebit", "topk", "int8", "int4", "fp16", "bf16"; "unknown" otherwise.
const char *algorithm_name(int algorithm);
bool blocked_algorithm(dlk_codec_algorithm algorithm);  // onebit, int8, int4

void default_params(dlk_codec_params &params, dlk_codec_algorithm algorithm);

// Throws Error(DLK_CODEC_INVALID_ARGUMENT) naming the field and its rule.
void validate_params(const char *call, const dlk_codec_params &params, uint64_t count);

// k for `count` elements: topk_count, else round(topk_fraction * count), at least
// 1 (0 when count is 0). Assumes validated params.
uint64_t topk_k(const dlk_codec_params &params, uint64_t count);

}  // namespace dlk::codec
