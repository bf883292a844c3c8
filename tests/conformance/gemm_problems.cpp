#include "tests/conformance/gemm_problems.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "tests/conformance/int8_parameters.hpp"
#include "tests/conformance/reference_gemm.hpp"

namespace dlk::conformance {

namespace {

std::vector<dlk_dtype> c_types_of(dlk_dtype a_type) {
  switch (a_type) {
    case DLK_DTYPE_F16: return {DLK_DTYPE_F16, DLK_DTYPE_F32};
    case DLK_DTYPE_BF16: return {DLK_DTYPE_BF16, DLK_DTYPE_F32};
    case DLK_DTYPE_U8:
    case DLK_DTYPE_S8: return {DLK_DTYPE_S32, DLK_DTYPE_F32, DLK_DTYPE_S8, DLK_DTYPE_U8};
    default: return {DLK_DTYPE_F32};
  }
}

int64_t tight_ld(dlk_layout layout, int64_t rows, int64_t cols) {
  const int64_t ld = layout == DLK_ROW_MAJOR ? cols : rows;
  return ld > 1 ? ld : 1;
}

struct Shape {
  int64_t m, n, k;
};

GemmProblem make(dlk_dtype a, dlk_dtype b, dlk_dtype c, Shape s, dlk_layout layout,
                 dlk_transpose ta, dlk_transpose tb) {
  GemmProblem p;
  dlk_gemm_desc &d = p.desc;
  dlk_gemm_desc_init(&d, a, b, c, s.m, s.n, s.k);
  d.layout = layout;
  d.trans_a = ta, d.trans_b = tb;
  d.m = s.m, d.n = s.n, d.k = s.k;
  d.a_type = a, d.b_type = b, d.c_type = c;
  // Stored A is m x k, or k x m when transposed; stored B k x n, or n x k.
  const bool a_transposed = ta == DLK_TRANSPOSE, b_transposed = tb == DLK_TRANSPOSE;
  d.lda = tight_ld(layout, a_transposed ? s.k : s.m, a_transposed ? s.m : s.k);
  d.ldb = tight_ld(layout, b_transposed ? s.n : s.k, b_transposed ? s.k : s.n);
  d.ldc = tight_ld(layout, s.m, s.n);
  d.batch_count = 1;
  d.alpha = 1, d.beta = 0;
  d.scale_mode = DLK_SCALE_NONE;
  return p;
}

void pad_lds(GemmProblem &p, int64_t extra_a, int64_t extra_b, int64_t extra_c) {
  p.desc.lda += extra_a, p.desc.ldb += extra_b, p.desc.ldc += extra_c;
}

// count matrices, each `extra` elements past the end of the previous one, or
// all the same A (B) when share_a (share_b).
void set_batch(GemmProblem &p, int64_t count, int64_t extra, bool share_a, bool share_b) {
  dlk_gemm_desc one = p.desc;
  one.batch_count = 1;
  p.desc.batch_count = count;
  if (count <= 1) return;
  p.desc.stride_a = share_a ? 0 : gemm_a_elements(one) + extra;
  p.desc.stride_b = share_b ? 0 : gemm_b_elements(one) + extra;
  p.desc.stride_c = gemm_c_elements(one) + extra;
}

// alpha, beta, zero points and scales, valid for the types: s32 C takes alpha 1
// and beta 0 or 1; int8 C a multiplier alpha * scale that lands most results
// inside its range.
void set_epilogue(GemmProblem &p, Rng &rng, float alpha, float beta) {
  dlk_gemm_desc &d = p.desc;
  d.alpha = alpha, d.beta = beta;
  if (!is_int8_type(d.a_type)) return;
  d.a_zero_point = random_zero_point(rng, d.a_type);
  if (d.c_type == DLK_DTYPE_S32) {
    d.alpha = 1, d.beta = beta != 0 ? 1.0f : 0.0f;
    return;
  }
  if (is_int8_type(d.c_type)) d.c_zero_point = random_zero_point(rng, d.c_type);
  d.scale_mode = rng.pick({DLK_SCALE_NONE, DLK_SCALE_PER_TENSOR, DLK_SCALE_PER_CHANNEL});
  if (d.scale_mode == DLK_SCALE_NONE) {
    if (is_int8_type(d.c_type)) d.alpha = random_multiplier(rng, d.k, p.fill);  // alpha alone scales
    return;
  }
  // The multiplier is alpha * scale: scales make up for alpha.
  const float alpha_magnitude = d.alpha != 0 ? std::fabs(d.alpha) : 1.0f;
  // One scale per column; one at least, as a scale array is never NULL, even for n == 0.
  p.scales.resize(d.scale_mode == DLK_SCALE_PER_TENSOR || d.n == 0 ? 1 : static_cast<size_t>(d.n));
  for (float &s : p.scales) s = random_multiplier(rng, d.k, p.fill) / alpha_magnitude;
}

const char *trans_name(dlk_transpose t) { return t == DLK_TRANSPOSE ? "T" : "N"; }

int64_t random_dim(Rng &rng, double zero_chance) {
  if (rng.chance(zero_chance)) return 0;
  if (rng.chance(0.6))
    return rng.pick<int64_t>({1, 2, 3, 5, 7, 13, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 97, 127, 128, 129});
  return rng.uniform(1, 150);
}

int64_t random_ld_extra(Rng &rng) {
  if (rng.chance(0.6)) return 0;
  return rng.chance(0.75) ? rng.uniform(1, 9) : rng.uniform(200, 1100);
}

struct AlphaBeta {
  float alpha, beta;
};
constexpr AlphaBeta kAlphaBetas[] = {{1, 0}, {1, 1}, {0.5f, -1}, {-1, 0}, {2, 0.25f}, {-0.75f, 0.5f}};

GemmProblem random_problem(dlk_dtype a, dlk_dtype b, dlk_dtype c, Rng &rng) {
  Shape s{random_dim(rng, 0.02), random_dim(rng, 0.02), random_dim(rng, 0.04)};
  // Keep a case under a million multiply-adds so the suite stays fast under ASan.
  while (s.m * s.n * s.k > 600000) s.k /= 2;
  GemmProblem p = make(a, b, c, s, rng.chance(0.5) ? DLK_ROW_MAJOR : DLK_COL_MAJOR,
                       rng.chance(0.5) ? DLK_TRANSPOSE : DLK_NO_TRANSPOSE,
                       rng.chance(0.5) ? DLK_TRANSPOSE : DLK_NO_TRANSPOSE);
  pad_lds(p, random_ld_extra(rng), random_ld_extra(rng), random_ld_extra(rng));
  if (rng.chance(0.25))
    set_batch(p, rng.chance(0.05) ? 0 : rng.uniform(2, 4), rng.chance(0.5) ? 0 : rng.uniform(1, 17),
              rng.chance(0.2), rng.chance(0.2));
  p.fill = rng.chance(0.85) ? Fill::uniform : rng.pick({Fill::few_values, Fill::negative});
  if (rng.chance(0.2)) p.misalign = rng.uniform(1, 7);
  const AlphaBeta ab = kAlphaBetas[rng.uniform(0, 5)];
  set_epilogue(p, rng, ab.alpha, ab.beta);
  return p;
}

// Every layout and transpose on shapes of 1, primes and non-multiples of 16.
void add_layout_sweep(std::vector<GemmProblem> &list, dlk_dtype a, dlk_dtype b, dlk_dtype c, Rng &rng) {
  const Shape shapes[] = {{1, 1, 1}, {1, 19, 7}, {23, 1, 11}, {5, 3, 1}, {31, 37, 41}, {16, 16, 16}, {65, 17, 129}};
  int i = 0;
  for (dlk_layout layout : {DLK_ROW_MAJOR, DLK_COL_MAJOR})
    for (dlk_transpose ta : {DLK_NO_TRANSPOSE, DLK_TRANSPOSE})
      for (dlk_transpose tb : {DLK_NO_TRANSPOSE, DLK_TRANSPOSE})
        for (const Shape &s : shapes) {
          GemmProblem p = make(a, b, c, s, layout, ta, tb);
          if (i % 3 == 1) pad_lds(p, 3, 5, 1);
          const AlphaBeta ab = kAlphaBetas[i % 6];
          set_epilogue(p, rng, ab.alpha, ab.beta);
          list.push_back(p);
          ++i;
        }
}

// Zero sizes, k == 0, batches sharing A or B, large leading dimensions,
// misaligned buffers, long accumulations.
void add_edge_cases(std::vector<GemmProblem> &list, dlk_dtype a, dlk_dtype b, dlk_dtype c, Rng &rng) {
  const auto add = [&](Shape s, dlk_layout layout, dlk_transpose ta, dlk_transpose tb, float alpha,
                       float beta, auto &&tweak) {
    GemmProblem p = make(a, b, c, s, layout, ta, tb);
    tweak(p);
    set_epilogue(p, rng, alpha, beta);
    list.push_back(p);
  };
  const auto none = [](GemmProblem &) {};
  const dlk_layout R = DLK_ROW_MAJOR, C = DLK_COL_MAJOR;
  const dlk_transpose N = DLK_NO_TRANSPOSE, T = DLK_TRANSPOSE;
  add({0, 5, 3}, R, N, N, 1, 0.5f, none);
  add({4, 0, 3}, C, T, N, 1, 0.5f, none);
  add({6, 5, 0}, R, N, T, 1, 0.5f, none);  // k == 0: C = beta C
  add({6, 5, 0}, C, N, N, 1, 0, none);     // k == 0, beta == 0: C = 0, NaN in C gone
  add({7, 6, 5}, R, N, N, 1, 0, [](GemmProblem &p) { set_batch(p, 0, 0, false, false); });
  add({9, 7, 5}, R, T, N, 1, 0.5f, [](GemmProblem &p) { set_batch(p, 3, 0, true, false); });
  add({9, 7, 5}, C, N, T, 1, 0, [](GemmProblem &p) { set_batch(p, 3, 4, false, true); });
  add({3, 4, 6}, R, T, T, 1, 1, [](GemmProblem &p) { set_batch(p, 4, 1, true, true); });
  add({1, 1, 1}, C, N, N, 1, 1, [](GemmProblem &p) { set_batch(p, 5, 3, false, false); });
  add({5, 3, 7}, C, T, T, 1, 0, [](GemmProblem &p) { pad_lds(p, 1024, 1030, 1027); });
  add({13, 11, 9}, R, N, N, 1, 0.5f, [](GemmProblem &p) { p.misalign = 3; });
  add({257, 1, 3}, R, N, N, 1, 0, none);
  add({1, 257, 3}, C, N, T, 1, 0, none);
  add({3, 2, 1000}, R, N, N, 1, 0, none);
  add({17, 19, 23}, C, N, N, 1, 0, [](GemmProblem &p) { p.fill = Fill::few_values; });
  if (!is_int8_type(a)) {
    add({4, 6, 5}, R, N, N, 0, 1, none);  // alpha == 0: C = beta C
    return;
  }
  // Sums of largest products past 2^31: the s32 accumulator must wrap, not saturate.
  // The same where C is one row or one column (the GEMV loops: lanes along n,
  // then along k).
  for (Shape s : {Shape{2, 3, 140000}, Shape{1, 3, 140000}, Shape{3, 1, 140000}}) {
    add(s, R, N, N, 1, 1, [](GemmProblem &p) { p.fill = Fill::extreme; });
    list.back().desc.a_zero_point = 0;
  }
}

// One above and one below each block size of the CPU backend's BLIS loops
// (backends/cpu_avx512/gemm_kernels.cpp on a 32 KiB L1, 1 MiB L2): MR 14 / NR 32
// (avx512), KC 512 (f32) / 1024 (bf16) / 2048 (int8), MC 252, NC 4096, and the NC a C without in-place
// accumulation gets from its 8 MiB workspace (992 columns at m = 2100); odd
// padded leading dimensions and beta != 0 throughout.
void add_blocking_edges(std::vector<GemmProblem> &list, dlk_dtype a, dlk_dtype b, dlk_dtype c,
                        Rng &rng) {
  const Shape shapes[] = {{13, 33, 511}, {15, 31, 513}, {251, 65, 2},  {253, 17, 3},
                          {2, 4095, 3},  {3, 4097, 2},  {2100, 993, 1}, {11, 35, 1023},
                          {17, 30, 1025}, {9, 37, 2047}, {19, 29, 2049}};
  int i = 0;
  for (const Shape &s : shapes) {
    GemmProblem p = make(a, b, c, s, i % 2 ? DLK_COL_MAJOR : DLK_ROW_MAJOR,
                         i % 3 ? DLK_NO_TRANSPOSE : DLK_TRANSPOSE, DLK_NO_TRANSPOSE);
    pad_lds(p, 3, 7, 5);
    set_epilogue(p, rng, 0.5f, i % 2 ? 1.0f : -0.5f);
    list.push_back(p);
    ++i;
  }
}

// Both sides of the CPU backend's rule for f32 (backends/cpu_avx512/
// gemm_unpacked.cpp): one row or column of C, a tiny k, products of at most
// 128^3 multiply-adds run unpacked (each of its forms: lanes along n, m or k);
// just above 128^3 with m, n > 1 the blocked loops run. For bf16 and int8 the
// one-row and one-column shapes run the GEMV loops (gemm_gemv.cpp) in both of
// their forms (lanes along the outputs or along k, by the layout). Every layout
// and transpose, padded leading dimensions, beta != 0.
void add_unpacked_rule_sides(std::vector<GemmProblem> &list, dlk_dtype a, dlk_dtype b,
                             dlk_dtype c, Rng &rng) {
  const Shape shapes[] = {{1, 300, 77}, {300, 1, 77},  {1, 1, 1000}, {37, 29, 3},
                          {2, 70, 33},  {64, 64, 64},  {5, 200, 130}, {129, 131, 127}};
  int i = 0;
  for (const Shape &s : shapes)
    for (dlk_layout layout : {DLK_ROW_MAJOR, DLK_COL_MAJOR})
      for (dlk_transpose ta : {DLK_NO_TRANSPOSE, DLK_TRANSPOSE})
        for (dlk_transpose tb : {DLK_NO_TRANSPOSE, DLK_TRANSPOSE}) {
          GemmProblem p = make(a, b, c, s, layout, ta, tb);
          if (i % 3) pad_lds(p, i % 5, 2, i % 7);
          const AlphaBeta ab = kAlphaBetas[i % 6];
          set_epilogue(p, rng, ab.alpha, ab.beta != 0 ? ab.beta : 0.75f);
          list.push_back(p);
          ++i;
        }
}

}  // namespace

std::string GemmProblem::describe() const {
  const dlk_gemm_desc &d = desc;
  std::ostringstream s;
  s << std::setprecision(9);  // alpha, beta and scales exactly as floats
  s << "gemm " << dlk_dtype_name(d.a_type) << ":" << dlk_dtype_name(d.b_type) << ":"
    << dlk_dtype_name(d.c_type) << " " << (d.layout == DLK_ROW_MAJOR ? "row" : "col") << " "
    << trans_name(d.trans_a) << trans_name(d.trans_b) << " m=" << d.m << " n=" << d.n
    << " k=" << d.k << " lda=" << d.lda << " ldb=" << d.ldb << " ldc=" << d.ldc
    << " batch=" << d.batch_count;
  if (d.batch_count > 1) s << " strides=" << d.stride_a << ":" << d.stride_b << ":" << d.stride_c;
  s << " alpha=" << d.alpha << " beta=" << d.beta;
  if (is_int8_type(d.a_type)) {
    s << " a_zp=" << d.a_zero_point << " c_zp=" << d.c_zero_point << " scales="
      << (d.scale_mode == DLK_SCALE_NONE ? "none" : d.scale_mode == DLK_SCALE_PER_TENSOR ? "tensor" : "column");
    if (!scales.empty()) s << "(" << scales[0] << (scales.size() > 1 ? ",..." : "") << ")";
  }
  s << " fill=" << fill_name(fill);
  if (misalign) s << " misalign=" << misalign;
  return s.str();
}

std::vector<GemmProblem> gemm_problems(dlk_dtype a_type, dlk_dtype b_type, Rng &rng, int random_count) {
  std::vector<GemmProblem> list;
  const std::vector<dlk_dtype> c_types = c_types_of(a_type);
  for (dlk_dtype c : c_types) {
    add_layout_sweep(list, a_type, b_type, c, rng);
    add_edge_cases(list, a_type, b_type, c, rng);
    add_blocking_edges(list, a_type, b_type, c, rng);
    add_unpacked_rule_sides(list, a_type, b_type, c, rng);
  }
  for (int i = 0; i < random_count; ++i)
    list.push_back(random_problem(a_type, b_type, c_types[rng.uniform(0, static_cast<int64_t>(c_types.size()) - 1)], rng));
  return list;
}

GemmTensors make_gemm_tensors(const GemmProblem &p, Rng &rng) {
  const dlk_gemm_desc &d = p.desc;
  GemmTensors t{HostTensor(d.a_type, gemm_a_elements(d)), HostTensor(d.b_type, gemm_b_elements(d)),
                HostTensor(d.c_type, gemm_c_elements(d))};
  const auto gap = [&](HostTensor &x) {
    for (int64_t i = 0; i < x.size(); ++i)
      x.set(i, is_float_type(x.dtype()) ? NAN : random_value(rng, x.dtype(), Fill::uniform));
  };
  gap(t.a);
  gap(t.b);
  fill(t.c, rng, Fill::uniform);
  for (int64_t batch = 0; batch < d.batch_count; ++batch) {
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t q = 0; q < d.k; ++q) t.a.set(gemm_a_offset(d, batch, i, q), random_value(rng, d.a_type, p.fill));
    for (int64_t q = 0; q < d.k; ++q)
      for (int64_t j = 0; j < d.n; ++j) t.b.set(gemm_b_offset(d, batch, q, j), random_value(rng, d.b_type, p.fill));
    if (d.beta == 0 && is_float_type(d.c_type))
      for (int64_t i = 0; i < d.m; ++i)
        for (int64_t j = 0; j < d.n; ++j) t.c.set(gemm_c_offset(d, batch, i, j), NAN);
  }
  return t;
}

}  // namespace dlk::conformance
