#include "backends/cpu_avx512/gemm_unpacked.hpp"

#include <algorithm>

#include "backends/cpu_avx512/gemm_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

using kernels::UnpackedF32Gemm;
using kernels::UnpackedForm;

// The rule, measured on Zen 4 with one thread by `dlk-perf gemm --shapes
// small,skinny --dtypes f32 --thread-counts 1` once with DLK_CPU_GEMM=blocked
// and once with DLK_CPU_GEMM=unpacked, each against OpenBLAS in its own run
// (docs/cpu_gemm.md has the table). Packing reads A and B and writes them once
// more, which the micro-kernel repays only when each packed element is used
// many times.
//   - One row or one column of C (m = 1 or n = 1) uses each element of B (or
//     A) once: unpacked ran 5-38x faster (1 x 1024 x 1024, 1024 x 1 x 1024,
//     1 x 4096 x 4096, 4096 x 1 x 4096).
//   - A product of at most kSmallMacs (128^3) multiply-adds is in L1/L2 as it
//     is, and packing is a large share of its time: 1.4-1.9x on cubes 16-128
//     (48^3 within noise, 0.9-1.1x), 6.8x on 8 x 512 x 256, 1.07x at k = 4 on
//     a 256 x 256 C.
//   - A tiny k alone is no reason: 512 x 512 x 16 ran 1.09x, 512 x 512 x 32
//     0.96x, 2048 x 2048 x 16 0.29x unpacked (there writing C dominates, and
//     the blocked loops store it better).
//   - Larger skinny shapes stay blocked: 16384 x 64 x 256 ran 1.08x and
//     64 x 16384 x 256 0.82x unpacked.
//   Measured again once packing ran on the tier's kernels (gemm_pack.cpp), the
//   small products keep two conditions: the lanes must fill the loops'
//   register blocks (at most kLaneBlock, or a multiple: 48^3 ran 0.94x and
//   127^3 0.81x unpacked, 64^3 1.06x, 128^3 1.15x, 16^3 2.2x), and a wide C
//   with a tiny k is stored better by the blocked loops (256 x 256 x 4: 0.69x).
constexpr int64_t kSmallMacs = int64_t{128} * 128 * 128;
constexpr int64_t kLaneBlock = 32;
constexpr int64_t kMinK = 8, kMinRowsForK = 64;

// The lanes run along the dimension where the operands they read are
// contiguous: n (axpy, B's rows contiguous), m (axpy on C^T, A's columns
// contiguous), k (dot, A's rows and B's columns contiguous); the longest of
// those available wins, n on ties (C's rows are stored whole).
std::optional<UnpackedPlan> choose_form(const core::GemmArgs &g) {
  if (g.k == 0) return UnpackedPlan{UnpackedForm::axpy, false};  // reads neither A nor B
  std::optional<UnpackedPlan> best;
  int64_t lanes = 0;
  const auto consider = [&](bool available, int64_t length, UnpackedPlan plan) {
    if (available && length > lanes) best = plan, lanes = length;
  };
  consider(g.b.cs == 1, g.n, {UnpackedForm::axpy, false});
  consider(g.a.cs == 1 && g.b.rs == 1, g.k, {UnpackedForm::dot, false});
  consider(g.a.rs == 1, g.m, {UnpackedForm::axpy, true});
  return best;
}

// Batch entry `batch` as the kernels see it, on C^T when transposed. k == 0
// forms no address in A or B: validation lets their strides be anything then.
UnpackedF32Gemm entry(const core::GemmArgs &g, int64_t batch, bool transposed) {
  float *c = static_cast<float *>(g.c) + batch * g.batch_stride_c;
  // C^T's rows are C's columns: a bias per row of C is one per column there.
  const bool per_row = g.bias_per_row != transposed;
  const float *row_bias = per_row ? g.bias : nullptr, *col_bias = per_row ? nullptr : g.bias;
  if (g.k == 0)
    return {transposed ? g.n : g.m, transposed ? g.m : g.n, 0, nullptr, 0, 0, nullptr, 0, 0, c,
            transposed ? g.cs_c : g.rs_c, transposed ? g.rs_c : g.cs_c, g.alpha, g.beta,
            row_bias, col_bias, g.relu};
  const float *a = static_cast<const float *>(g.a.ptr) + batch * g.a.batch_stride;
  const float *b = static_cast<const float *>(g.b.ptr) + batch * g.b.batch_stride;
  if (transposed)
    return {g.n, g.m, g.k, b, g.b.cs, g.b.rs, a, g.a.cs, g.a.rs, c, g.cs_c, g.rs_c, g.alpha, g.beta,
            row_bias, col_bias, g.relu};
  return {g.m, g.n, g.k, a, g.a.rs, g.a.cs, b, g.b.rs, g.b.cs, c, g.rs_c, g.cs_c, g.alpha, g.beta,
          row_bias, col_bias, g.relu};
}

using UnpackedKernel = void (*)(const UnpackedF32Gemm &, UnpackedForm);

struct TierLoops {
  UnpackedKernel run;
  const char *axpy_name, *dot_name;
};

const TierLoops &tier_loops(core::CpuIsa isa) {
  static const TierLoops avx512{kernels::gemm_f32_unpacked_avx512, "avx512:gemm_f32_unpacked_axpy",
                                "avx512:gemm_f32_unpacked_dot"};
  static const TierLoops avx2{kernels::gemm_f32_unpacked_avx2, "avx2:gemm_f32_unpacked_axpy",
                              "avx2:gemm_f32_unpacked_dot"};
  static const TierLoops scalar{kernels::gemm_f32_unpacked_generic, "scalar:gemm_f32_unpacked_axpy",
                                "scalar:gemm_f32_unpacked_dot"};
  switch (isa) {
    case core::CpuIsa::avx512: return avx512;
    case core::CpuIsa::avx2: return avx2;
    case core::CpuIsa::scalar: break;
  }
  return scalar;
}

}  // namespace

std::optional<UnpackedPlan> plan_unpacked(const core::GemmArgs &g, core::CpuGemmPath path) {
  if (path == core::CpuGemmPath::blocked || g.a.dtype != DLK_DTYPE_F32 ||
      g.b.dtype != DLK_DTYPE_F32 || g.c_type != DLK_DTYPE_F32)
    return std::nullopt;
  if (path == core::CpuGemmPath::unpacked) return choose_form(g);
  if (g.m == 1 || g.n == 1) return choose_form(g);
  // Written so that m * n * k cannot overflow.
  const int64_t k = std::max<int64_t>(g.k, 1);
  if (g.n > kSmallMacs / k || g.m > kSmallMacs / k / g.n) return std::nullopt;
  if (g.k < kMinK && g.m >= kMinRowsForK && g.n >= kMinRowsForK) return std::nullopt;
  const std::optional<UnpackedPlan> plan = choose_form(g);
  if (!plan) return plan;
  const int64_t lanes = plan->form == UnpackedForm::dot ? g.k : plan->transposed ? g.m : g.n;
  return lanes <= kLaneBlock || lanes % kLaneBlock == 0 ? plan : std::nullopt;
}

const char *gemm_unpacked(const core::GemmArgs &g, const UnpackedPlan &plan, core::CpuIsa isa,
                          int threads) {
  const TierLoops &loops = tier_loops(isa);
  const int64_t macs = g.m * g.n * std::max<int64_t>(g.k, 1) * g.batch;
  const int team = team_size(std::max<int64_t>(1, macs / kGemmMinMacsPerThread), threads);
  // Batch entries first; a team larger than the batch also splits each entry's
  // longer dimension of C, in whole register blocks (128 columns fill the
  // widest axpy block, 8 rows the tallest).
  const int64_t m = plan.transposed ? g.n : g.m, n = plan.transposed ? g.m : g.n;
  const bool split_rows = m >= n;
  const int64_t grain = split_rows ? 8 : 128;
  const int64_t length = split_rows ? m : n;
  const int64_t parts = std::clamp<int64_t>((team + g.batch - 1) / g.batch, 1,
                                            (length + grain - 1) / grain);
  parallel_for(g.batch * parts, team, [&](int64_t item, int) {
    UnpackedF32Gemm s = entry(g, item / parts, plan.transposed);
    const int64_t part = item % parts, blocks = (length + grain - 1) / grain;
    const int64_t lo = std::min(length, blocks * part / parts * grain);
    const int64_t hi = std::min(length, blocks * (part + 1) / parts * grain);
    if (lo == hi) return;  // and form no address past the last row or column
    if (split_rows) {
      s.a += lo * s.rs_a, s.c += lo * s.rs_c, s.m = hi - lo;
      if (s.row_bias) s.row_bias += lo;
    } else {
      s.b += lo * s.cs_b, s.c += lo * s.cs_c, s.n = hi - lo;
      if (s.col_bias) s.col_bias += lo;
    }
    loops.run(s, plan.form);
  });
  return plan.form == UnpackedForm::axpy ? loops.axpy_name : loops.dot_name;
}

}  // namespace dlk::cpu
