#include "tests/conformance/reference_gemm.hpp"

#include <cmath>

#include "tests/conformance/reference_int8.hpp"

namespace dlk::conformance {

namespace {

// Stored element (row, col) of a matrix with leading dimension ld.
int64_t stored(dlk_layout layout, int64_t ld, int64_t row, int64_t col) {
  return layout == DLK_ROW_MAJOR ? row * ld + col : row + col * ld;
}

// Elements one stored rows x cols matrix spans.
int64_t extent(dlk_layout layout, int64_t ld, int64_t rows, int64_t cols) {
  if (rows == 0 || cols == 0) return 0;
  return stored(layout, ld, rows - 1, cols - 1) + 1;
}

int64_t batched(const dlk_gemm_desc &d, int64_t stride, int64_t one_matrix) {
  if (d.batch_count == 0 || one_matrix == 0) return 0;
  return d.batch_count > 1 ? (d.batch_count - 1) * stride + one_matrix : one_matrix;
}

int64_t batch_offset(const dlk_gemm_desc &d, int64_t stride, int64_t batch) {
  return d.batch_count > 1 ? batch * stride : 0;
}

}  // namespace

int64_t gemm_a_offset(const dlk_gemm_desc &d, int64_t batch, int64_t i, int64_t p) {
  const bool t = d.trans_a == DLK_TRANSPOSE;
  return batch_offset(d, d.stride_a, batch) + stored(d.layout, d.lda, t ? p : i, t ? i : p);
}

int64_t gemm_b_offset(const dlk_gemm_desc &d, int64_t batch, int64_t p, int64_t j) {
  const bool t = d.trans_b == DLK_TRANSPOSE;
  return batch_offset(d, d.stride_b, batch) + stored(d.layout, d.ldb, t ? j : p, t ? p : j);
}

int64_t gemm_c_offset(const dlk_gemm_desc &d, int64_t batch, int64_t i, int64_t j) {
  return batch_offset(d, d.stride_c, batch) + stored(d.layout, d.ldc, i, j);
}

std::string gemm_c_name(const dlk_gemm_desc &d, int64_t offset) {
  const int64_t batch = d.batch_count > 1 && d.stride_c > 0 ? offset / d.stride_c : 0;
  const int64_t in_matrix = offset - batch_offset(d, d.stride_c, batch);
  const int64_t outer = in_matrix / d.ldc, inner = in_matrix % d.ldc;
  const int64_t i = d.layout == DLK_ROW_MAJOR ? outer : inner;
  const int64_t j = d.layout == DLK_ROW_MAJOR ? inner : outer;
  if (batch >= d.batch_count || i >= d.m || j >= d.n)
    return "offset " + std::to_string(offset) + ", outside the matrices";
  return "b=" + std::to_string(batch) + " i=" + std::to_string(i) + " j=" + std::to_string(j);
}

int64_t gemm_a_elements(const dlk_gemm_desc &d) {
  const bool t = d.trans_a == DLK_TRANSPOSE;
  return batched(d, d.stride_a, extent(d.layout, d.lda, t ? d.k : d.m, t ? d.m : d.k));
}

int64_t gemm_b_elements(const dlk_gemm_desc &d) {
  const bool t = d.trans_b == DLK_TRANSPOSE;
  return batched(d, d.stride_b, extent(d.layout, d.ldb, t ? d.n : d.k, t ? d.k : d.n));
}

int64_t gemm_c_elements(const dlk_gemm_desc &d) {
  return batched(d, d.stride_c, extent(d.layout, d.ldc, d.m, d.n));
}

namespace {

double integer_element(const dlk_gemm_desc &d, const HostTensor &a, const HostTensor &b,
                       const HostTensor &c, int64_t batch, int64_t i, int64_t j) {
  int64_t sum = 0;
  for (int64_t p = 0; p < d.k; ++p)
    sum += (static_cast<int64_t>(a.get(gemm_a_offset(d, batch, i, p))) - d.a_zero_point) *
           static_cast<int64_t>(b.get(gemm_b_offset(d, batch, p, j)));
  const int32_t acc = wrap_to_s32(sum);
  const double c_old = d.beta != 0 ? c.get(gemm_c_offset(d, batch, i, j)) : 0;
  if (d.c_type == DLK_DTYPE_S32)
    return d.beta == 1 ? wrap_to_s32(static_cast<int64_t>(c_old) + acc) : acc;

  // The contract spells out every f32 operation, so the reference performs the
  // same ones in f32 and the result must match bit for bit.
  const float scale = d.scale_mode == DLK_SCALE_PER_TENSOR    ? d.scales[0]
                      : d.scale_mode == DLK_SCALE_PER_CHANNEL ? d.scales[j]
                                                              : 1.0f;
  const float multiplier = d.alpha * scale;
  const float product = static_cast<float>(acc) * multiplier;
  if (d.c_type == DLK_DTYPE_F32)
    return d.beta != 0 ? std::fma(d.beta, static_cast<float>(c_old), product) : product;
  const float v = d.beta != 0
                      ? std::fma(d.beta, static_cast<float>(c_old - d.c_zero_point), product)
                      : product;
  return requantize(v, d.c_zero_point, d.c_type);
}

}  // namespace

Expected reference_gemm(const dlk_gemm_desc &d, const HostTensor &a, const HostTensor &b,
                        const HostTensor &c) {
  Expected out = Expected::unchanged(c);
  const bool integer = is_int8_type(d.a_type);
  for (int64_t batch = 0; batch < d.batch_count; ++batch)
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) {
        const int64_t at = gemm_c_offset(d, batch, i, j);
        if (integer) {
          out.exact(at, integer_element(d, a, b, c, batch, i, j));
          continue;
        }
        double sum = 0, magnitude = 0;
        for (int64_t p = 0; p < d.k; ++p) {
          const double term = a.get(gemm_a_offset(d, batch, i, p)) * b.get(gemm_b_offset(d, batch, p, j));
          sum += term;
          magnitude += std::fabs(term);
        }
        double value = static_cast<double>(d.alpha) * sum;
        magnitude *= std::fabs(d.alpha);
        if (d.beta != 0) {  // beta == 0: C is not read, so NaN there must vanish
          const double scaled_c = static_cast<double>(d.beta) * c.get(at);
          value += scaled_c;
          magnitude += std::fabs(scaled_c);
        }
        out.within(at, value, f32_result_bound(d.k + 2, magnitude, value, d.c_type));
      }
  return out;
}

}  // namespace dlk::conformance
