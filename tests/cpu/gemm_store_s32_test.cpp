// The integer GEMM's AVX-512 store (kernels/gemm_store_s32_avx512.cpp)
// called directly, against dlk.h's rule written out a value at a time with
// core::requantize: v = (float)acc x multiplier + bias, ReLU, then f32, or
// requantized to s8 / u8 (round half to even, the zero point added, clamped;
// NaN to the zero point). Its requantizing loop takes a shortcut where no
// lane can be NaN (multipliers and biases finite), so both sides of that test
// are here: ties, sums past 2^24 and products that overflow to infinity with
// finite parameters; NaN and infinite biases without. Row- and column-major
// C, tiles cut short, multipliers and biases per column or per row, zero
// points at the ends of the range; the bits compared exactly, nothing written
// outside the tile. (Multipliers per row go with row-major C only.)
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backends/cpu_avx512/kernels/gemm_store_kernels.hpp"
#include "core/numeric.hpp"

namespace dlk::cpu_test {
namespace {

using cpu::kernels::S32TileStore;

// Finite: ties, saturation and overflow; special: a NaN or infinite bias.
enum class Values { finite, special };

struct StoreCase {
  dlk_dtype c_type;
  int32_t zero_point;
  bool relu, column_major, per_row;
  Values values;
};

// dlk.h's rule for one element.
std::vector<unsigned char> expected_bytes(const S32TileStore &t, const std::vector<int32_t> &acc) {
  const size_t elem = dlk_dtype_size(t.c_type);
  std::vector<unsigned char> out(static_cast<size_t>(t.rows * t.cols) * elem);
  for (int64_t i = 0; i < t.rows; ++i)
    for (int64_t j = 0; j < t.cols; ++j) {
      const int32_t sum = acc[static_cast<size_t>(i * t.ld + j)];
      unsigned char *at = &out[static_cast<size_t>(i * t.cols + j) * elem];
      if (t.c_type == DLK_DTYPE_S32) {
        const int32_t v = t.relu && sum < 0 ? 0 : sum;
        std::memcpy(at, &v, 4);
        continue;
      }
      const float scale = t.column_multipliers ? t.column_multipliers[j]
                          : t.row_multipliers  ? t.row_multipliers[i]
                                               : t.multiplier;
      float v = static_cast<float>(sum) * scale;
      if (t.col_bias) v += t.col_bias[j];
      if (t.row_bias) v += t.row_bias[i];
      if (t.relu) v = v < 0.0f ? 0.0f : v;
      if (t.c_type == DLK_DTYPE_F32)
        std::memcpy(at, &v, 4);
      else if (t.c_type == DLK_DTYPE_U8)
        *at = core::saturate_u8(v, t.zero_point);
      else
        *at = static_cast<unsigned char>(core::saturate_s8(v, t.zero_point));
    }
  return out;
}

void check_store(const StoreCase &c, int64_t rows, int64_t cols, std::mt19937 &rng) {
  constexpr int64_t kLd = 32;
  using Limits = std::numeric_limits<int32_t>;
  std::uniform_int_distribution<int32_t> small(-3000, 3000), any(Limits::min(), Limits::max());
  std::vector<int32_t> acc(static_cast<size_t>(kLd * kLd));
  for (int32_t &v : acc) v = rng() % 4 == 0 ? any(rng) : small(rng);
  const int64_t params = c.per_row ? rows : cols;
  std::vector<float> multipliers(static_cast<size_t>(params)), bias(static_cast<size_t>(params));
  for (int64_t p = 0; p < params; ++p) {
    const auto u = static_cast<size_t>(p);
    // 0.5 and 0.25 give ties on odd and 2 mod 4 sums; 1e30 overflows to infinity.
    const float picks[] = {0.5f, 0.25f, 0.013f, -0.07f, 1e30f, 3.0f};
    multipliers[u] = picks[rng() % 6];
    bias[u] = static_cast<float>(small(rng)) * 0.25f;
  }
  if (c.values == Values::special) {
    bias[0] = std::numeric_limits<float>::quiet_NaN();
    bias[static_cast<size_t>(params - 1)] = -std::numeric_limits<float>::infinity();
  }
  S32TileStore t{};
  t.acc = acc.data();
  t.ld = kLd;
  t.rows = rows;
  t.cols = cols;
  t.c_type = c.c_type;
  t.multiplier = 1.0f;
  if (c.c_type != DLK_DTYPE_S32) {
    // Multipliers per row only with row-major C (S32TileStore).
    if (!c.per_row)
      t.column_multipliers = multipliers.data();
    else if (!c.column_major)
      t.row_multipliers = multipliers.data();
    else
      t.multiplier = multipliers[0];
    (c.per_row ? t.row_bias : t.col_bias) = bias.data();
  }
  t.relu = c.relu;
  t.zero_point = c.zero_point;
  // C with a gap past each row (or column) and a guard band after it.
  const size_t elem = dlk_dtype_size(c.c_type);
  const int64_t lead = c.column_major ? rows + 5 : cols + 3;
  const int64_t lines = c.column_major ? cols : rows;
  constexpr unsigned char kUntouched = 0x5a;
  std::vector<unsigned char> got(static_cast<size_t>(lead * lines + 64) * elem, kUntouched);
  t.c = got.data();
  t.rs_c = c.column_major ? 1 : lead;
  t.cs_c = c.column_major ? lead : 1;
  cpu::kernels::gemm_store_s32_avx512(t);
  const std::vector<unsigned char> want = expected_bytes(t, acc);
  int64_t wrong = 0, stray = 0;
  for (int64_t e = 0; e < static_cast<int64_t>(got.size() / elem); ++e) {
    const int64_t line = e / lead, at = e % lead;
    const int64_t i = c.column_major ? at : line, j = c.column_major ? line : at;
    const unsigned char *g = &got[static_cast<size_t>(e) * elem];
    if (line < lines && i < rows && j < cols)
      wrong += std::memcmp(g, &want[static_cast<size_t>(i * cols + j) * elem], elem) != 0;
    else
      for (size_t b = 0; b < elem; ++b) stray += g[b] != kUntouched;
  }
  CHECK(wrong == 0);
  CHECK(stray == 0);
}

}  // namespace

TEST_CASE("the AVX-512 integer GEMM store applies dlk.h's rule bit for bit: requantized with and "
          "without NaN lanes possible, f32 and s32, row- and column-major C",
          "[cpu][gemm][int8]") {
  std::mt19937 rng(61);
  for (const dlk_dtype type : {DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_F32, DLK_DTYPE_S32})
    for (const Values values : {Values::finite, Values::special})
      for (const bool relu : {false, true})
        for (const bool column_major : {false, true})
          for (const bool per_row : {false, true}) {
            const bool bytes = type == DLK_DTYPE_U8 || type == DLK_DTYPE_S8;
            for (const int32_t zero_point :
                 bytes ? std::vector<int32_t>{type == DLK_DTYPE_U8 ? 0 : -128, 3,
                                              type == DLK_DTYPE_U8 ? 255 : 127}
                       : std::vector<int32_t>{0}) {
              const StoreCase c{type, zero_point, relu, column_major, per_row, values};
              for (const auto &[rows, cols] : {std::pair<int64_t, int64_t>{32, 32}, {1, 17},
                                               {15, 16}, {17, 31}, {32, 1}}) {
                INFO(dlk_dtype_name(type) << " zero point " << zero_point
                                          << (relu ? " relu" : "")
                                          << (column_major ? " column-major" : " row-major")
                                          << (per_row ? " per row" : " per column")
                                          << (values == Values::special ? " NaN, inf bias" : "")
                                          << " " << rows << " x " << cols);
                check_store(c, rows, cols, rng);
              }
            }
          }
}

}  // namespace dlk::cpu_test
