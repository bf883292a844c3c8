// How each floating-point dtype is stored and converted to and from the f32 that
// every CPU computation runs in (core/numeric.hpp rounds to nearest even).
#pragma once

#include <cstdint>

#include "core/numeric.hpp"
#include "dlk/dlk.h"

namespace dlk::cpu {

template <dlk_dtype D>
struct FloatStorage;

template <>
struct FloatStorage<DLK_DTYPE_F32> {
  using type = float;
  static float load(float v) { return v; }
  static float store(float v) { return v; }
};

template <>
struct FloatStorage<DLK_DTYPE_F16> {
  using type = uint16_t;
  static float load(uint16_t v) { return core::f16_to_f32(v); }
  static uint16_t store(float v) { return core::f32_to_f16(v); }
};

template <>
struct FloatStorage<DLK_DTYPE_BF16> {
  using type = uint16_t;
  static float load(uint16_t v) { return core::bf16_to_f32(v); }
  static uint16_t store(float v) { return core::f32_to_bf16(v); }
};

// Calls body(FloatStorage<D>{}) for the runtime dtype (f32, f16 or bf16), so one
// template serves all three.
template <class Body>
decltype(auto) with_float_storage(dlk_dtype dtype, Body &&body) {
  switch (dtype) {
    case DLK_DTYPE_F16: return body(FloatStorage<DLK_DTYPE_F16>{});
    case DLK_DTYPE_BF16: return body(FloatStorage<DLK_DTYPE_BF16>{});
    default: return body(FloatStorage<DLK_DTYPE_F32>{});
  }
}

}  // namespace dlk::cpu
