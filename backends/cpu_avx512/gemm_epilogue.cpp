#include "backends/cpu_avx512/gemm_epilogue.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "backends/cpu_avx512/float_storage.hpp"

namespace dlk::cpu {
namespace {

// Calls write(c_element, acc_value, row, column) for every element of the tile,
// row and column counted in C; the element pointer is typed by C's storage type.
template <class CType, class Write, class Acc>
void for_each_element(const core::GemmArgs &g, const TileSpot &s, const Acc *acc, int64_t ld,
                      Write write) {
  CType *c = static_cast<CType *>(g.c) + s.batch * g.batch_stride_c + s.i0 * g.rs_c +
             s.j0 * g.cs_c;
  const auto at = [&](int64_t i, int64_t j) {
    write(c[i * g.rs_c + j * g.cs_c], acc[i * ld + j], s.i0 + i, s.j0 + j);
  };
  // C's nearer dimension innermost: a convolution's NCHW dst is a column-major C.
  if (std::abs(g.cs_c) <= std::abs(g.rs_c)) {
    for (int64_t i = 0; i < s.rows; ++i)
      for (int64_t j = 0; j < s.cols; ++j) at(i, j);
    return;
  }
  // Down C's columns in bands of kBand rows, whose lines of acc (16 KiB, one a
  // row) stay in L1 while the 16 columns of a line go by: a column at a time
  // over all 2048 rows of an NHWC res5a_1x1b forward fetched a line of acc per
  // element (13 % of its time). Bands of 16 rows cost the 512-channel NHWC
  // projections (res3a_proj, res4a_proj) 0.83-0.88x: each pixel's channels
  // were written 64 bytes at a time, 2 KiB apart, instead of as one run.
  constexpr int64_t kBand = 256;
  for (int64_t i0 = 0; i0 < s.rows; i0 += kBand) {
    const int64_t i1 = std::min(s.rows, i0 + kBand);
    for (int64_t j = 0; j < s.cols; ++j)
      for (int64_t i = i0; i < i1; ++i) at(i, j);
  }
}

// GemmArgs' epilogue on the value of C's element (i, j): bias, then ReLU.
float bias_relu(const core::GemmArgs &g, float v, int64_t i, int64_t j) {
  if (g.bias) v += g.bias[g.bias_per_row ? i : j];
  return g.relu && v < 0.0f ? 0.0f : v;
}

// bf16 C with contiguous rows: each row's f32 values (alpha, beta, bias, ReLU)
// in a buffer of kRun, rounded by `round` (element by element, rounding was
// 42 % of a bf16 1x1 convolution's time, res2a_1x1a on 1 thread). (With beta
// 0 the AVX-512 micro-kernels round into C themselves: gemm_driver.cpp,
// FloatPath::stores_in_tile.)
void store_bf16_rows(const core::GemmArgs &g, const TileSpot &s, const float *acc, int64_t ld,
                     kernels::RoundToBf16 round) {
  constexpr int64_t kRun = 256;
  using Storage = FloatStorage<DLK_DTYPE_BF16>;
  uint16_t *c = static_cast<uint16_t *>(g.c) + s.batch * g.batch_stride_c + s.i0 * g.rs_c + s.j0;
  float run[kRun];
  for (int64_t i = 0; i < s.rows; ++i)
    for (int64_t j0 = 0; j0 < s.cols; j0 += kRun) {
      const int64_t n = std::min(kRun, s.cols - j0);
      uint16_t *row = c + i * g.rs_c + j0;
      for (int64_t j = 0; j < n; ++j) {
        const float v = g.alpha * acc[i * ld + j0 + j];
        run[j] = bias_relu(g, g.beta == 0.0f ? v : v + g.beta * Storage::load(row[j]), s.i0 + i,
                           s.j0 + j0 + j);
      }
      round(run, n, row);
    }
}

template <class Storage>
void store_float(const core::GemmArgs &g, const TileSpot &s, const float *acc, int64_t ld) {
  using CType = typename Storage::type;
  const float alpha = g.alpha, beta = g.beta;
  if (beta == 0.0f) {
    for_each_element<CType>(g, s, acc, ld, [&](CType &c, float v, int64_t i, int64_t j) {
      c = Storage::store(bias_relu(g, alpha * v, i, j));
    });
  } else {
    for_each_element<CType>(g, s, acc, ld, [&](CType &c, float v, int64_t i, int64_t j) {
      c = Storage::store(bias_relu(g, alpha * v + beta * Storage::load(c), i, j));
    });
  }
}

// s8/u8 C: v = fmaf(beta, C - c_zero_point, acc * multiplier_j), then bias and
// ReLU, round half to even, add the zero point and saturate.
template <class CType>
void store_requantized(const core::GemmArgs &g, const TileSpot &s, const int32_t *acc, int64_t ld,
                       int32_t lo, int32_t hi) {
  const float beta = g.beta;
  const int32_t zp = g.c_zero_point;
  for_each_element<CType>(g, s, acc, ld, [&](CType &c, int32_t a, int64_t i, int64_t j) {
    const float product = static_cast<float>(a) * g.multiplier_of(i, j);
    const float v =
        beta == 0.0f ? product : std::fmaf(beta, static_cast<float>(int32_t{c} - zp), product);
    c = static_cast<CType>(core::requantize(bias_relu(g, v, i, j), zp, lo, hi));
  });
}

}  // namespace

void store_f32_tile(const core::GemmArgs &g, const TileSpot &s, const float *acc, int64_t ld,
                    kernels::RoundToBf16 round_bf16) {
  if (round_bf16 && g.c_type == DLK_DTYPE_BF16 && g.cs_c == 1) {
    store_bf16_rows(g, s, acc, ld, round_bf16);
    return;
  }
  with_float_storage(g.c_type, [&](auto storage) {
    store_float<decltype(storage)>(g, s, acc, ld);
  });
}

void store_s32_tile(const core::GemmArgs &g, const TileSpot &s, const int32_t *acc, int64_t ld,
                    kernels::S32TileStoreKernel kernel) {
  const float beta = g.beta;
  // (The kernel takes a multiplier per row only along C's rows.)
  if (kernel && (g.cs_c == 1 || (g.rs_c == 1 && !(g.s8_a && g.column_multipliers)))) {
    const int64_t offset = s.batch * g.batch_stride_c + s.i0 * g.rs_c + s.j0 * g.cs_c;
    const float *bias = g.bias ? g.bias + (g.bias_per_row ? s.i0 : s.j0) : nullptr;
    return kernel({acc, ld, s.rows, s.cols,
                   static_cast<unsigned char *>(g.c) +
                       offset * static_cast<int64_t>(dlk_dtype_size(g.c_type)),
                   g.rs_c, g.cs_c, g.c_type, beta, g.multiplier,
                   g.column_multipliers && !g.s8_a ? g.column_multipliers + s.j0 : nullptr,
                   g.column_multipliers && g.s8_a ? g.column_multipliers + s.i0 : nullptr,
                   g.bias_per_row ? bias : nullptr, g.bias_per_row ? nullptr : bias, g.relu,
                   g.c_zero_point});
  }
  switch (g.c_type) {
    case DLK_DTYPE_S32: {
      // Validation allows only alpha 1, beta 0 or 1, no scales and no bias:
      // C = acc or C + acc, through ReLU when asked.
      const bool relu = g.relu;
      const auto store = [&](int32_t &c, int32_t a, int64_t, int64_t) {
        const int32_t v = beta == 0.0f ? a : core::wrapping_add(c, a);
        c = relu && v < 0 ? 0 : v;
      };
      return for_each_element<int32_t>(g, s, acc, ld, store);
    }
    case DLK_DTYPE_F32:
      return for_each_element<float>(g, s, acc, ld, [&](float &c, int32_t a, int64_t i, int64_t j) {
        const float product = static_cast<float>(a) * g.multiplier_of(i, j);
        c = bias_relu(g, beta == 0.0f ? product : std::fmaf(beta, c, product), i, j);
      });
    case DLK_DTYPE_S8:
      return store_requantized<int8_t>(g, s, acc, ld, -128, 127);
    default:
      return store_requantized<uint8_t>(g, s, acc, ld, 0, 255);
  }
}

bool requantizes_in_tile(const core::GemmArgs &g) {
  if ((g.c_type != DLK_DTYPE_S8 && g.c_type != DLK_DTYPE_U8) || g.cs_c != 1 || g.beta != 0.0f)
    return false;
  const auto finite = [](const float *p, int64_t count) {
    return std::all_of(p, p + count, [](float x) { return std::isfinite(x); });
  };
  const int64_t multipliers = g.s8_a ? g.m : g.n;
  return (g.column_multipliers ? finite(g.column_multipliers, multipliers)
                               : std::isfinite(g.multiplier)) &&
         (!g.bias || finite(g.bias, g.bias_per_row ? g.m : g.n));
}

kernels::S32Requantize requantize_spot(const core::GemmArgs &g, const TileSpot &s) {
  const bool s8 = g.c_type == DLK_DTYPE_S8;
  const float below = static_cast<float>((s8 ? -128 : 0) - g.c_zero_point);
  const float *bias = g.bias ? g.bias + (g.bias_per_row ? s.i0 : s.j0) : nullptr;
  return {static_cast<uint8_t *>(g.c) + s.batch * g.batch_stride_c + s.i0 * g.rs_c + s.j0,
          g.rs_c,
          g.column_multipliers && g.s8_a ? g.column_multipliers + s.i0 : nullptr,
          g.column_multipliers && !g.s8_a ? g.column_multipliers + s.j0 : nullptr,
          g.multiplier,
          g.bias_per_row ? bias : nullptr,
          g.bias_per_row ? nullptr : bias,
          g.relu ? std::max(0.0f, below) : below,
          static_cast<float>((s8 ? 127 : 255) - g.c_zero_point),
          g.c_zero_point};
}

}  // namespace dlk::cpu
