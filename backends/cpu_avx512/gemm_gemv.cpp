#include "backends/cpu_avx512/gemm_gemv.hpp"

#include <algorithm>
#include <optional>

#include "backends/cpu_avx512/gemm_epilogue.hpp"
#include "backends/cpu_avx512/gemm_kernels.hpp"
#include "backends/cpu_avx512/kernels/gemv_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

using kernels::GemvShape;

// Outputs per call of the loops: their accumulators (4 KiB) stay in L1 while
// the axpy form streams the matrix past them.
constexpr int64_t kChunk = 1024;

struct TierLoops {
  kernels::GemvBf16 bf16;
  kernels::GemvInt8 int8;
  const char *bf16_name, *int8_name;
};

const TierLoops &tier_loops(core::CpuIsa isa) {
  static const TierLoops avx512{kernels::gemv_bf16_avx512, kernels::gemv_int8_avx512,
                                "avx512:gemv_bf16", "avx512:gemv_u8s8s32"};
  static const TierLoops avx2{kernels::gemv_bf16_avx2, kernels::gemv_int8_avx2, "avx2:gemv_bf16",
                              "avx2:gemv_u8s8s32"};
  static const TierLoops scalar{kernels::gemv_bf16_generic, kernels::gemv_int8_generic,
                                "scalar:gemv_bf16", "scalar:gemv_u8s8s32"};
  switch (isa) {
    case core::CpuIsa::avx512: return avx512;
    case core::CpuIsa::avx2: return avx2;
    case core::CpuIsa::scalar: break;
  }
  return scalar;
}

// The product as M (outputs x k) times x: m == 1 makes M = B^T and x = A's row,
// n == 1 makes M = A and x = B's column. The A operand is the one whose zero
// point applies.
struct Gemv {
  bool row;  // m == 1: the outputs are C's columns
  const core::MatrixView *m, *x;
  GemvShape shape;
};

std::optional<Gemv> plan(const core::GemmArgs &g) {
  const auto make = [&](bool row) -> std::optional<Gemv> {
    const core::MatrixView &m = row ? g.b : g.a, &x = row ? g.a : g.b;
    // B^T's strides are B's turned around.
    const int64_t rs = row ? m.cs : m.rs, ps = row ? m.rs : m.cs, xs = row ? x.cs : x.rs;
    const GemvShape s{row ? g.n : g.m, g.k, rs, ps, xs};
    if (s.rs == 1 || (s.ps == 1 && s.xs == 1)) return Gemv{row, &m, &x, s};
    return std::nullopt;
  };
  if (g.m == 1) return make(true);
  if (g.n == 1) return make(false);
  return std::nullopt;
}

}  // namespace

const char *gemm_gemv(const core::GemmArgs &g, core::CpuIsa isa, int threads,
                      core::CpuGemmPath path) {
  const bool bf16 = g.a.dtype == DLK_DTYPE_BF16 && g.b.dtype == DLK_DTYPE_BF16;
  if (path == core::CpuGemmPath::blocked || g.k == 0 || !(bf16 || g.is_integer()) || g.s8_a)
    return nullptr;
  const std::optional<Gemv> gemv = plan(g);
  if (!gemv) return nullptr;
  const TierLoops &loops = tier_loops(isa);
  const int64_t outputs = gemv->shape.rows, chunks = (outputs + kChunk - 1) / kChunk;
  const int64_t macs = g.m * g.n * g.k * g.batch;
  const int team = team_size(std::max<int64_t>(1, macs / kGemmMinMacsPerThread), threads);
  const size_t m_elem = dlk_dtype_size(gemv->m->dtype), x_elem = dlk_dtype_size(gemv->x->dtype);
  const kernels::S32TileStoreKernel store_s32 = gemm_kernel_set(isa).store_s32;
  parallel_for(g.batch * chunks, team, [&](int64_t item, int) {
    const int64_t batch = item / chunks, r0 = item % chunks * kChunk;
    GemvShape s = gemv->shape;
    s.rows = std::min(kChunk, outputs - r0);
    const auto *m = static_cast<const unsigned char *>(gemv->m->ptr) +
                    (batch * gemv->m->batch_stride + r0 * s.rs) * static_cast<int64_t>(m_elem);
    const auto *x = static_cast<const unsigned char *>(gemv->x->ptr) +
                    batch * gemv->x->batch_stride * static_cast<int64_t>(x_elem);
    const TileSpot spot = gemv->row ? TileSpot{batch, 0, r0, 1, s.rows}
                                    : TileSpot{batch, r0, 0, s.rows, 1};
    // The tile's row stride: one row of s.rows outputs, or a column of them.
    const int64_t ld = gemv->row ? s.rows : 1;
    if (bf16) {
      float acc[kChunk];
      loops.bf16(s, reinterpret_cast<const uint16_t *>(m), reinterpret_cast<const uint16_t *>(x),
                 acc);
      store_f32_tile(g, spot, acc, ld);
    } else {
      int32_t acc[kChunk];
      const bool a_is_m = !gemv->row;
      const kernels::GemvInt8Operands o{m,
                                        x,
                                        gemv->m->dtype == DLK_DTYPE_S8,
                                        gemv->x->dtype == DLK_DTYPE_S8,
                                        a_is_m ? g.a_zero_point : 0,
                                        a_is_m ? 0 : g.a_zero_point};
      loops.int8(s, o, acc);
      store_s32_tile(g, spot, acc, ld, store_s32);
    }
  });
  return bf16 ? loops.bf16_name : loops.int8_name;
}

}  // namespace dlk::cpu
