#include "backends/cpu_avx512/gemm_epilogue.hpp"

#include <cmath>

#include "backends/cpu_avx512/float_storage.hpp"

namespace dlk::cpu {
namespace {

// Calls write(c_element, acc_value, column) for every element of the tile; the
// element pointer is typed by C's storage type.
template <class CType, class Write, class Acc>
void for_each_element(const core::GemmArgs &g, const TileSpot &s, const Acc *acc, int64_t ld,
                      Write write) {
  CType *c = static_cast<CType *>(g.c) + s.batch * g.batch_stride_c + s.i0 * g.rs_c +
             s.j0 * g.cs_c;
  for (int64_t i = 0; i < s.rows; ++i)
    for (int64_t j = 0; j < s.cols; ++j)
      write(c[i * g.rs_c + j * g.cs_c], acc[i * ld + j], s.j0 + j);
}

template <class Storage>
void store_float(const core::GemmArgs &g, const TileSpot &s, const float *acc, int64_t ld) {
  using CType = typename Storage::type;
  const float alpha = g.alpha, beta = g.beta;
  if (beta == 0.0f) {
    for_each_element<CType>(g, s, acc, ld,
                            [&](CType &c, float v, int64_t) { c = Storage::store(alpha * v); });
  } else {
    for_each_element<CType>(g, s, acc, ld, [&](CType &c, float v, int64_t) {
      c = Storage::store(alpha * v + beta * Storage::load(c));
    });
  }
}

// s8/u8 C: v = fmaf(beta, C - c_zero_point, acc * multiplier_j), then round half to
// even, add the zero point and saturate.
template <class CType>
void store_requantized(const core::GemmArgs &g, const TileSpot &s, const int32_t *acc, int64_t ld,
                       int32_t lo, int32_t hi) {
  const float beta = g.beta;
  const int32_t zp = g.c_zero_point;
  for_each_element<CType>(g, s, acc, ld, [&](CType &c, int32_t a, int64_t j) {
    const float product = static_cast<float>(a) * g.multiplier_of(j);
    const float v =
        beta == 0.0f ? product : std::fmaf(beta, static_cast<float>(int32_t{c} - zp), product);
    c = static_cast<CType>(core::requantize(v, zp, lo, hi));
  });
}

}  // namespace

void store_f32_tile(const core::GemmArgs &g, const TileSpot &s, const float *acc, int64_t ld) {
  with_float_storage(g.c_type, [&](auto storage) {
    store_float<decltype(storage)>(g, s, acc, ld);
  });
}

void store_s32_tile(const core::GemmArgs &g, const TileSpot &s, const int32_t *acc, int64_t ld) {
  const float beta = g.beta;
  switch (g.c_type) {
    case DLK_DTYPE_S32:
      // Validation allows only alpha 1, beta 0 or 1, no scales: C = acc or C + acc.
      if (beta == 0.0f)
        return for_each_element<int32_t>(g, s, acc, ld,
                                         [](int32_t &c, int32_t a, int64_t) { c = a; });
      return for_each_element<int32_t>(
          g, s, acc, ld, [](int32_t &c, int32_t a, int64_t) { c = core::wrapping_add(c, a); });
    case DLK_DTYPE_F32:
      return for_each_element<float>(g, s, acc, ld, [&](float &c, int32_t a, int64_t j) {
        const float product = static_cast<float>(a) * g.multiplier_of(j);
        c = beta == 0.0f ? product : std::fmaf(beta, c, product);
      });
    case DLK_DTYPE_S8:
      return store_requantized<int8_t>(g, s, acc, ld, -128, 127);
    default:
      return store_requantized<uint8_t>(g, s, acc, ld, 0, 255);
  }
}

}  // namespace dlk::cpu
