#include "backends/cuda/gemm_plan.hpp"

#include <climits>
#include <functional>

namespace dlk::cuda {
namespace {

// A logical rows x cols matrix with element strides rs, cs as cuBLASLt's stored
// column-major form, or false when neither stride is unit.
bool as_lt_matrix(dlk_dtype dtype, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                  int64_t batch_stride, LtMatrix &out) {
  if (rs == 1 && cs >= (rows > 1 ? rows : 1)) {
    out = {dtype, false, rows, cols, cs, batch_stride};
    return true;
  }
  if (cs == 1 && rs >= (cols > 1 ? cols : 1)) {
    out = {dtype, true, cols, rows, rs, batch_stride};
    return true;
  }
  return false;
}

bool is_multiple_of_4(int64_t v) { return v % 4 == 0; }

// cuBLASLt's int8 tensor-core form: op(A) = T and op(B) = N (K contiguous in
// both), leading dimensions, batch strides and addresses multiples of 4 bytes.
bool has_int8_lt_form(const GemmPlan &p, const core::GemmArgs &g) {
  const LtMatrix &x = p.a, &y = p.b;
  const void *x_ptr = p.swapped ? g.b.ptr : g.a.ptr;
  const void *y_ptr = p.swapped ? g.a.ptr : g.b.ptr;
  return x.transposed && !y.transposed && !p.c.transposed && is_multiple_of_4(p.m) &&
         is_multiple_of_4(p.k) && is_multiple_of_4(x.ld) &&
         is_multiple_of_4(y.ld) && is_multiple_of_4(p.c.ld) && is_multiple_of_4(x.batch_stride) &&
         is_multiple_of_4(y.batch_stride) && is_multiple_of_4(p.c.batch_stride) &&
         pointer_alignment(x_ptr) >= 4 && pointer_alignment(y_ptr) >= 4 &&
         pointer_alignment(g.c) >= 4;
}

Int8Epilogue int8_epilogue(const core::GemmArgs &g) {
  switch (g.c_type) {
    case DLK_DTYPE_S32: return g.beta == 0.0f ? Int8Epilogue::store_s32 : Int8Epilogue::accumulate_s32;
    case DLK_DTYPE_F32: return Int8Epilogue::dequantize_f32;
    case DLK_DTYPE_S8: return Int8Epilogue::requantize_s8;
    default: return Int8Epilogue::requantize_u8;
  }
}

// The staged integer route works on the caller's logical problem (no swap):
// packed A is op = T (K x m, K contiguous), packed B op = N (K x n), product s32
// column-major m x n.
void plan_staged_int8(const core::GemmArgs &g, GemmPlan &p) {
  p.route = GemmRoute::int8_staged;
  p.swapped = false;
  p.m_padded = (g.m + 3) / 4 * 4;
  p.k_padded = (g.k + 3) / 4 * 4;
  p.m = p.m_padded, p.n = g.n, p.k = g.k;
  p.a = {DLK_DTYPE_S8, true, p.k_padded, p.m_padded, p.k_padded, p.k_padded * p.m_padded};
  p.b = {DLK_DTYPE_S8, false, p.k_padded, g.n, p.k_padded, p.k_padded * g.n};
  p.c = {DLK_DTYPE_S32, false, p.m_padded, g.n, p.m_padded > 0 ? p.m_padded : 4, p.m_padded * g.n};
  p.a_offset = g.a.dtype == DLK_DTYPE_U8 ? 128 - g.a_zero_point : -g.a_zero_point;
  p.epilogue = int8_epilogue(g);
}

}  // namespace

uint32_t pointer_alignment(const void *ptr) {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  uint32_t alignment = 256;
  while (alignment > 1 && address % alignment != 0) alignment /= 2;
  return alignment;
}

GemmPlan plan_gemm(const core::GemmArgs &g, bool allow_tf32) {
  GemmPlan p;
  p.batch = g.batch;
  const bool integer = g.is_integer();
  p.compute = integer ? GemmCompute::s32
              : g.a.dtype == DLK_DTYPE_F32 && allow_tf32 ? GemmCompute::tf32
                                                          : GemmCompute::f32;
  if (g.batch > INT_MAX) {
    p.unsupported = "batch_count above 2^31-1 does not fit cuBLASLt's batch count";
    return p;
  }
  // Column-major problem: C' (m' x n') = op(X) (m' x k) op(Y) (k x n').
  const bool c_column_major = g.rs_c == 1 && g.cs_c >= (g.m > 1 ? g.m : 1);
  p.swapped = !c_column_major;
  p.m = c_column_major ? g.m : g.n;
  p.n = c_column_major ? g.n : g.m;
  p.k = g.k;
  const core::MatrixView &x = c_column_major ? g.a : g.b;
  const core::MatrixView &y = c_column_major ? g.b : g.a;
  // Transposing the problem swaps each operand's strides.
  const int64_t x_rs = c_column_major ? x.rs : x.cs, x_cs = c_column_major ? x.cs : x.rs;
  const int64_t y_rs = c_column_major ? y.rs : y.cs, y_cs = c_column_major ? y.cs : y.rs;
  const int64_t ldc = c_column_major ? g.cs_c : g.rs_c;
  const bool mapped = as_lt_matrix(x.dtype, p.m, g.k, x_rs, x_cs, x.batch_stride, p.a) &&
                      as_lt_matrix(y.dtype, g.k, p.n, y_rs, y_cs, y.batch_stride, p.b) &&
                      (c_column_major ? g.rs_c == 1 : g.cs_c == 1);
  p.c = {g.c_type, false, p.m, p.n, ldc, g.batch_stride_c};
  if (integer) {
    const bool direct = mapped && g.a.dtype == DLK_DTYPE_S8 && g.a_zero_point == 0 &&
                        g.c_type == DLK_DTYPE_S32 && g.k > 0 && has_int8_lt_form(p, g);
    if (!direct) plan_staged_int8(g, p);
    else p.epilogue = int8_epilogue(g);
    return p;
  }
  if (!mapped) p.unsupported = "neither stride of an operand is 1, which cuBLASLt cannot express";
  return p;
}

bool GemmKey::operator==(const GemmKey &o) const {
  auto same = [](const LtMatrix &l, const LtMatrix &r) {
    return l.dtype == r.dtype && l.transposed == r.transposed && l.rows == r.rows &&
           l.cols == r.cols && l.ld == r.ld && l.batch_stride == r.batch_stride;
  };
  return compute == o.compute && same(a, o.a) && same(b, o.b) && same(c, o.c) && m == o.m &&
         n == o.n && k == o.k && batch == o.batch && d_type == o.d_type &&
         beta_nonzero == o.beta_nonzero && align_a == o.align_a && align_b == o.align_b &&
         align_c == o.align_c;
}

size_t GemmKeyHash::operator()(const GemmKey &key) const {
  size_t h = 0;
  auto mix = [&h](int64_t v) {
    h ^= std::hash<int64_t>{}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  };
  for (const LtMatrix *l : {&key.a, &key.b, &key.c}) {
    mix(l->dtype);
    mix(l->transposed);
    mix(l->rows);
    mix(l->cols);
    mix(l->ld);
    mix(l->batch_stride);
  }
  for (int64_t v : {int64_t(key.compute), key.m, key.n, key.k, key.batch, int64_t(key.d_type),
                    int64_t(key.beta_nonzero), int64_t(key.align_a), int64_t(key.align_b),
                    int64_t(key.align_c)})
    mix(v);
  return h;
}

GemmKey gemm_key(const GemmPlan &p, const core::GemmArgs &g, const void *a, const void *b,
                 const void *c) {
  GemmKey key;
  key.compute = p.compute;
  key.a = p.a, key.b = p.b, key.c = p.c;
  key.m = p.m, key.n = p.n, key.k = p.route == GemmRoute::int8_staged ? p.k_padded : p.k;
  key.batch = p.batch;
  key.d_type = p.c.dtype;
  // The staged route's product starts from zero; the epilogue applies beta.
  key.beta_nonzero = p.route == GemmRoute::lt_direct && g.beta != 0.0f;
  key.align_a = pointer_alignment(a);
  key.align_b = pointer_alignment(b);
  key.align_c = pointer_alignment(c);
  return key;
}

}  // namespace dlk::cuda
