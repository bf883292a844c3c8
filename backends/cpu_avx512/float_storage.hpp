// How each floating-point dtype is stored and converted to and from the f32 that
// every CPU computation runs in (core/numeric.hpp rounds to nearest even).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "backends/cpu_avx512/kernels/bf16_round_kernels.hpp"
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

// out[i] = Storage::store(in[i]) for i < n, bit for bit: bf16 by
// `round_bf16` where given (the tier's GemmKernelSet::round_bf16), else
// element by element.
template <class Storage>
void store_run(const float *in, int64_t n, typename Storage::type *out,
               kernels::RoundToBf16 round_bf16) {
  if constexpr (std::is_same_v<Storage, FloatStorage<DLK_DTYPE_BF16>>) {
    if (round_bf16) {
      round_bf16(in, n, out);
      return;
    }
  }
  std::transform(in, in + n, out, [](float v) { return Storage::store(v); });
}

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
