#include "backends/fpga_sim/array_float_gemm.hpp"

#include <algorithm>

#include "backends/fpga_sim/element_io.hpp"

namespace dlk::fpga_sim {

int64_t accumulation_fold(const AcceleratorConfig &config, int64_t k) {
  return config.dataflow == Dataflow::output_stationary ? std::max<int64_t>(k, 1) : config.rows;
}

void accumulate_in_array_order(const core::MatrixView &a, const core::MatrixView &b, int64_t m,
                               int64_t n, int64_t k, int64_t batch, int64_t k_fold,
                               std::vector<float> &acc) {
  // Operands as f32 rows (exact for f16 and bf16), so the inner loop runs along
  // contiguous columns of B and the host vectorizes it without reordering any
  // single output's additions.
  const char *a_base = static_cast<const char *>(a.ptr);
  const char *b_base = static_cast<const char *>(b.ptr);
  const int64_t a_size = static_cast<int64_t>(dlk_dtype_size(a.dtype));
  const int64_t b_size = static_cast<int64_t>(dlk_dtype_size(b.dtype));
  std::vector<float> b_rows(static_cast<size_t>(k * n));
  const void *b_batch = b_base + batch * b.batch_stride * b_size;
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) b_rows[p * n + j] = load_float(b_batch, p * b.rs + j * b.cs, b.dtype);
  const void *a_batch = a_base + batch * a.batch_stride * a_size;

  acc.assign(static_cast<size_t>(m * n), 0.0f);
  std::vector<float> column_sums(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    float *out = acc.data() + i * n;
    for (int64_t p0 = 0; p0 < k; p0 += k_fold) {
      const int64_t p1 = std::min(k, p0 + k_fold);
      std::fill(column_sums.begin(), column_sums.end(), 0.0f);
      for (int64_t p = p0; p < p1; ++p) {
        const float x = load_float(a_batch, i * a.rs + p * a.cs, a.dtype);
        const float *row = b_rows.data() + p * n;
        for (int64_t j = 0; j < n; ++j) column_sums[j] += x * row[j];
      }
      if (p0 == 0)
        std::copy(column_sums.begin(), column_sums.end(), out);
      else
        for (int64_t j = 0; j < n; ++j) out[j] += column_sums[j];
    }
  }
}

void array_float_gemm(const AcceleratorConfig &config, const core::GemmArgs &g) {
  // k == 0: C = beta * C as in BLAS; a zero alpha keeps an infinite one from
  // turning the empty sum into NaN.
  const float alpha = g.k == 0 ? 0.0f : g.alpha, beta = g.beta;
  const int64_t c_size = static_cast<int64_t>(dlk_dtype_size(g.c_type));
  std::vector<float> acc;
  for (int64_t batch = 0; batch < g.batch; ++batch) {
    accumulate_in_array_order(g.a, g.b, g.m, g.n, g.k, batch, accumulation_fold(config, g.k), acc);
    void *c = static_cast<char *>(g.c) + batch * g.batch_stride_c * c_size;
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        const int64_t at = i * g.rs_c + j * g.cs_c;
        const float v = alpha * acc[static_cast<size_t>(i * g.n + j)];
        store_float(c, at, g.c_type, beta == 0.0f ? v : v + beta * load_float(c, at, g.c_type));
      }
  }
}

}  // namespace dlk::fpga_sim
