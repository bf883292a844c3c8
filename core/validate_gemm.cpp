#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/op_types.hpp"
#include "core/validate.hpp"

namespace dlk::core {
namespace {

constexpr const char *kCall = "dlk_gemm";

void check_types(const dlk_gemm_desc &d) {
  if (!check::holds_dtype(d.a_type)) throw_invalid(kCall, "a_type", "is not a dlk_dtype value");
  if (!check::holds_dtype(d.b_type)) throw_invalid(kCall, "b_type", "is not a dlk_dtype value");
  if (!check::holds_dtype(d.c_type)) throw_invalid(kCall, "c_type", "is not a dlk_dtype value");
  bool a_ok = false, ab_ok = false;
  for (const auto &t : gemm_type_combos()) {
    if (t.a == d.a_type) a_ok = true;
    if (t.a == d.a_type && t.b == d.b_type) ab_ok = true;
    if (t.a == d.a_type && t.b == d.b_type && t.c == d.c_type) return;
  }
  // The list of valid combinations is formatted only for the error: every call checks.
  std::vector<std::string> valid;
  for (const auto &t : gemm_type_combos())
    valid.push_back(std::string(dlk_dtype_name(t.a)) + ":" + dlk_dtype_name(t.b) + ":" +
                    dlk_dtype_name(t.c));
  const char *arg = !a_ok ? "a_type" : !ab_ok ? "b_type" : "c_type";
  throw_invalid(kCall, arg,
                std::string("gives the type combination ") + dlk_dtype_name(d.a_type) + ":" +
                    dlk_dtype_name(d.b_type) + ":" + dlk_dtype_name(d.c_type) +
                    " (a:b:c), which GEMM does not define; valid: " + check::valid_list(valid));
}

// A stored matrix of `rows` x `cols` as the caller wrote it (before the transpose)
// with leading dimension ld, as element strides of the logical op(X).
struct Stored {
  int64_t rows, cols;  // of the stored matrix
  int64_t rs, cs;      // strides of the logical (transposed if asked) matrix
};

Stored stored_matrix(dlk_layout layout, bool transposed, int64_t logical_rows,
                     int64_t logical_cols, int64_t ld) {
  Stored s;
  s.rows = transposed ? logical_cols : logical_rows;
  s.cols = transposed ? logical_rows : logical_cols;
  // Stored element (r, c) sits at r * ld + c (row-major) or r + c * ld (column-major).
  const int64_t stored_rs = layout == DLK_ROW_MAJOR ? ld : 1;
  const int64_t stored_cs = layout == DLK_ROW_MAJOR ? 1 : ld;
  s.rs = transposed ? stored_cs : stored_rs;
  s.cs = transposed ? stored_rs : stored_cs;
  return s;
}

void check_ld(const char *argument, const char *matrix, dlk_layout layout, const Stored &s,
              int64_t ld) {
  const int64_t need = std::max<int64_t>(1, layout == DLK_ROW_MAJOR ? s.cols : s.rows);
  if (ld < need)
    throw_invalid(kCall, argument,
                  "is " + std::to_string(ld) + "; must be >= " + std::to_string(need) + " (the " +
                      (layout == DLK_ROW_MAJOR ? "columns" : "rows") + " of " + matrix +
                      " as stored, " + (layout == DLK_ROW_MAJOR ? "row" : "column") + "-major)");
}

}  // namespace

GemmArgs validate_gemm(const dlk_gemm_desc *desc, const void *a, const void *b, void *c,
                       std::vector<float> &multiplier_storage) {
  if (!desc) throw_invalid(kCall, "desc", "must not be NULL");
  check::struct_size(kCall, "desc", desc, desc->struct_size, sizeof(dlk_gemm_desc),
                     "dlk_gemm_desc_init");
  const dlk_gemm_desc &d = *desc;
  if (!check::holds(d.layout, {DLK_ROW_MAJOR, DLK_COL_MAJOR}))
    throw_invalid(kCall, "layout", "must be DLK_ROW_MAJOR or DLK_COL_MAJOR");
  if (!check::holds(d.trans_a, {DLK_NO_TRANSPOSE, DLK_TRANSPOSE}))
    throw_invalid(kCall, "trans_a", "must be DLK_NO_TRANSPOSE or DLK_TRANSPOSE");
  if (!check::holds(d.trans_b, {DLK_NO_TRANSPOSE, DLK_TRANSPOSE}))
    throw_invalid(kCall, "trans_b", "must be DLK_NO_TRANSPOSE or DLK_TRANSPOSE");
  check::at_least(kCall, "m", d.m, 0);
  check::at_least(kCall, "n", d.n, 0);
  check::at_least(kCall, "k", d.k, 0);
  check::at_least(kCall, "batch_count", d.batch_count, 0);
  check_types(d);

  const bool ta = d.trans_a == DLK_TRANSPOSE, tb = d.trans_b == DLK_TRANSPOSE;
  const Stored sa = stored_matrix(d.layout, ta, d.m, d.k, d.lda);
  const Stored sb = stored_matrix(d.layout, tb, d.k, d.n, d.ldb);
  const Stored sc = stored_matrix(d.layout, false, d.m, d.n, d.ldc);
  check_ld("lda", "A", d.layout, sa, d.lda);
  check_ld("ldb", "B", d.layout, sb, d.ldb);
  check_ld("ldc", "C", d.layout, sc, d.ldc);

  const int64_t batch = d.batch_count;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  if (batch > 1) {
    check::at_least(kCall, "stride_a", d.stride_a, 0);
    check::at_least(kCall, "stride_b", d.stride_b, 0);
    // The matrices of C must not overlap: one C spans (outer - 1) * ldc + inner.
    const int64_t outer = d.layout == DLK_ROW_MAJOR ? d.m : d.n;
    const int64_t inner = d.layout == DLK_ROW_MAJOR ? d.n : d.m;
    const int64_t c_extent =
        outer && inner ? check::add(kCall, "ldc", check::mul(kCall, "ldc", outer - 1, d.ldc), inner) : 0;
    check::at_least(kCall, "stride_c", d.stride_c, c_extent,
                    "the C matrices of a batch must not overlap");
    stride_a = d.stride_a, stride_b = d.stride_b, stride_c = d.stride_c;
  }

  const bool integer = check::is_int8(d.a_type);
  if (!integer && d.a_zero_point != 0)
    throw_invalid(kCall, "a_zero_point", "must be 0 unless A is u8 or s8");
  if (integer) check::zero_point_fits(kCall, "a_zero_point", d.a_zero_point, d.a_type);
  if (check::is_int8(d.c_type)) {
    check::zero_point_fits(kCall, "c_zero_point", d.c_zero_point, d.c_type);
  } else if (d.c_zero_point != 0) {
    throw_invalid(kCall, "c_zero_point", "must be 0 unless C is u8 or s8");
  }
  if (!check::holds(d.scale_mode, {DLK_SCALE_NONE, DLK_SCALE_PER_TENSOR, DLK_SCALE_PER_CHANNEL}))
    throw_invalid(kCall, "scale_mode", "must be a dlk_scale_mode value");
  if (d.c_type == DLK_DTYPE_S32) {
    if (d.alpha != 1.0f) throw_invalid(kCall, "alpha", "must be 1 for s32 C");
    if (d.beta != 0.0f && d.beta != 1.0f) throw_invalid(kCall, "beta", "must be 0 or 1 for s32 C");
    if (d.scale_mode != DLK_SCALE_NONE)
      throw_invalid(kCall, "scale_mode", "must be DLK_SCALE_NONE for s32 C");
  }
  if (!integer && d.scale_mode != DLK_SCALE_NONE)
    throw_invalid(kCall, "scale_mode", "must be DLK_SCALE_NONE for floating-point GEMM");

  GemmArgs g;
  g.m = d.m, g.n = d.n, g.k = d.k, g.batch = batch;
  g.layout = d.layout, g.trans_a = d.trans_a, g.trans_b = d.trans_b;
  g.a = MatrixView{a, d.a_type, sa.rs, sa.cs, stride_a};
  g.b = MatrixView{b, d.b_type, sb.rs, sb.cs, stride_b};
  g.c = c, g.c_type = d.c_type;
  g.rs_c = sc.rs, g.cs_c = sc.cs, g.batch_stride_c = stride_c;
  g.alpha = d.alpha, g.beta = d.beta;
  g.a_zero_point = d.a_zero_point, g.c_zero_point = d.c_zero_point;

  // A and B are read only when there is math to do; C whenever it has elements.
  const bool reads_ab = d.m > 0 && d.n > 0 && d.k > 0 && batch > 0;
  const auto stored_span = [&](const char *name, const void *ptr, dlk_dtype dtype, const Stored &st,
                               int64_t ld, int64_t batch_stride, int64_t count) {
    const bool row_major = d.layout == DLK_ROW_MAJOR;
    return check::matrices(kCall, name, ptr, dtype, count, batch_stride,
                           row_major ? st.rows : st.cols, ld, row_major ? st.cols : st.rows);
  };
  const check::Span span_a = stored_span("a", a, d.a_type, sa, d.lda, stride_a, reads_ab ? batch : 0);
  const check::Span span_b = stored_span("b", b, d.b_type, sb, d.ldb, stride_b, reads_ab ? batch : 0);
  const check::Span span_c = stored_span("c", c, d.c_type, sc, d.ldc, stride_c, batch);
  const int64_t scale_count = d.scale_mode == DLK_SCALE_PER_TENSOR    ? 1
                              : d.scale_mode == DLK_SCALE_PER_CHANNEL ? d.n
                                                                      : 0;
  const check::Span span_scales = check::dense(kCall, "scales", d.scales, DLK_DTYPE_F32, scale_count);
  check::not_null(kCall, span_a);
  check::not_null(kCall, span_b);
  check::not_null(kCall, span_c);
  check::apart(kCall, {span_c}, {span_a, span_b, span_scales});

  // The scales are read last: n is known to be a sane size only now.
  g.multiplier = d.alpha;
  if (d.scale_mode == DLK_SCALE_PER_TENSOR) {
    check::scales(kCall, d.scales, 1);
    g.multiplier = d.alpha * d.scales[0];
  } else if (d.scale_mode == DLK_SCALE_PER_CHANNEL) {
    check::scales(kCall, d.scales, d.n);
    multiplier_storage.resize(static_cast<size_t>(d.n));
    for (int64_t j = 0; j < d.n; ++j) multiplier_storage[j] = d.alpha * d.scales[j];
    g.column_multipliers = multiplier_storage.data();
  }
  return g;
}

}  // namespace dlk::core
