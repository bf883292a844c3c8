// Reading and writing float tensors of any storage type (f32, f16, bf16) as f32,
// rounding to nearest even once on the way out.
#pragma once

#include <cstdint>

#include "core/numeric.hpp"
#include "dlk/dlk.h"

namespace dlk::fpga_sim {

inline float load_float(const void *base, int64_t index, dlk_dtype type) {
  switch (type) {
    case DLK_DTYPE_F16: return core::f16_to_f32(static_cast<const uint16_t *>(base)[index]);
    case DLK_DTYPE_BF16: return core::bf16_to_f32(static_cast<const uint16_t *>(base)[index]);
    default: return static_cast<const float *>(base)[index];
  }
}

inline void store_float(void *base, int64_t index, dlk_dtype type, float value) {
  switch (type) {
    case DLK_DTYPE_F16: static_cast<uint16_t *>(base)[index] = core::f32_to_f16(value); break;
    case DLK_DTYPE_BF16: static_cast<uint16_t *>(base)[index] = core::f32_to_bf16(value); break;
    default: static_cast<float *>(base)[index] = value;
  }
}

}  // namespace dlk::fpga_sim
