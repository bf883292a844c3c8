// The reference GEMM: BLIS's blocking (A and B packed into micro-panels, a
// micro-kernel on registers) with each thread owning whole tiles of C.
//
// A thread computes one MC x NC tile of C at a time: for every KC slice of k it
// packs its A block and its B block and runs the micro-kernel over the tile,
// accumulating in an f32 or s32 tile of its own; then the epilogue writes the tile
// in C's type. Keeping the accumulator until the end is what lets f16/bf16 round
// once and int8 requantize once. Threads never share a packed block, so the B
// block of a column of tiles is packed once per tile row: about 1/MC extra work,
// the price of having no synchronisation at all.
#include "backends/cpu_avx512/gemm_reference.hpp"

#include <algorithm>
#include <vector>

#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/gemm_epilogue.hpp"
#include "backends/cpu_avx512/gemm_pack.hpp"
#include "backends/cpu_avx512/kernels/gemm_microkernel.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

constexpr int kMR = kernels::kGenericMR;
constexpr int kNR = kernels::kGenericNR;
// Cache blocking: one packed B block (KC x NC) and a thread's A block and
// accumulator stay in a 1 MiB L2; a B micro-panel (KC x NR) in L1.
constexpr int64_t kKC = 256;
constexpr int64_t kMC = 128;  // multiple of kMR
constexpr int64_t kNC = 256;  // multiple of kNR

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

// Everything that differs between floating-point and integer GEMM.
struct FloatPath {
  using Packed = float;
  using Acc = float;
  static void pack(const PanelSource &s, int64_t count, int64_t kc, int width, float *out) {
    pack_f32_panels(s, count, kc, width, out);
  }
  static constexpr kernels::GemmF32Microkernel kernel = kernels::gemm_f32_generic_4x8;
  static void store(const core::GemmArgs &g, const TileSpot &s, const float *acc, int64_t ld) {
    store_f32_tile(g, s, acc, ld);
  }
};

struct IntegerPath {
  using Packed = int16_t;
  using Acc = int32_t;
  static void pack(const PanelSource &s, int64_t count, int64_t kc, int width, int16_t *out) {
    pack_s16_panels(s, count, kc, width, out);
  }
  static constexpr kernels::GemmS32Microkernel kernel = kernels::gemm_s32_generic_4x8;
  static void store(const core::GemmArgs &g, const TileSpot &s, const int32_t *acc, int64_t ld) {
    store_s32_tile(g, s, acc, ld);
  }
};

struct Blocking {
  int64_t mc, nc, kc;  // block sizes used (mc, nc padded to the micro-tile)
  int64_t tiles_m, tiles_n;
};

// Shrinks the blocks to the problem, and the tile width further when there would
// be fewer tiles than threads.
Blocking choose_blocking(const core::GemmArgs &g, int threads) {
  Blocking b;
  b.mc = std::min(kMC, round_up(g.m, kMR));
  b.kc = std::max<int64_t>(1, std::min(kKC, g.k));
  b.tiles_m = ceil_div(g.m, b.mc);
  const int64_t other_tiles = b.tiles_m * g.batch;
  const int64_t want_n = other_tiles >= threads ? 1 : ceil_div(threads, other_tiles);
  b.nc = std::min(kNC, round_up(ceil_div(g.n, want_n), kNR));
  b.tiles_n = ceil_div(g.n, b.nc);
  return b;
}

template <class Path>
void run_tiles(const core::GemmArgs &g, int threads) {
  using Packed = typename Path::Packed;
  using Acc = typename Path::Acc;
  const Blocking blk = choose_blocking(g, threads);
  const int64_t tiles = g.batch * blk.tiles_m * blk.tiles_n;
  const int team = team_size(tiles, threads);
  const int64_t a_size = blk.mc * blk.kc, b_size = blk.kc * blk.nc, acc_size = blk.mc * blk.nc;
  std::vector<Packed> packed(static_cast<size_t>((a_size + b_size) * team));
  std::vector<Acc> accumulators(static_cast<size_t>(acc_size * team));
  const int64_t ld = blk.nc;

  parallel_for(tiles, team, [&](int64_t tile, int thread) {
    Packed *a_pack = packed.data() + (a_size + b_size) * thread;
    Packed *b_pack = a_pack + a_size;
    Acc *acc = accumulators.data() + acc_size * thread;
    // Tiles run down a column of C first: a thread's tiles form a contiguous
    // range, so its next tile mostly reads the B columns it has just packed.
    const int64_t batch = tile / (blk.tiles_m * blk.tiles_n);
    const int64_t in_batch = tile % (blk.tiles_m * blk.tiles_n);
    const int64_t i0 = (in_batch % blk.tiles_m) * blk.mc;
    const int64_t j0 = (in_batch / blk.tiles_m) * blk.nc;
    const int64_t mc = std::min(blk.mc, g.m - i0), nc = std::min(blk.nc, g.n - j0);
    std::fill(acc, acc + acc_size, Acc{0});
    for (int64_t p0 = 0; p0 < g.k; p0 += blk.kc) {
      const int64_t kc = std::min(blk.kc, g.k - p0);
      Path::pack(a_block(g, batch, i0, p0), mc, kc, kMR, a_pack);
      Path::pack(b_block(g, batch, p0, j0), nc, kc, kNR, b_pack);
      for (int64_t jr = 0; jr < nc; jr += kNR)
        for (int64_t ir = 0; ir < mc; ir += kMR)
          Path::kernel(kc, a_pack + ir * kc, b_pack + jr * kc, acc + ir * ld + jr, ld);
    }
    Path::store(g, TileSpot{batch, i0, j0, mc, nc}, acc, ld);
  });
}

const char *implementation_name(dlk_dtype a_type) {
  switch (a_type) {
    case DLK_DTYPE_F16: return "ref:gemm_f16";
    case DLK_DTYPE_BF16: return "ref:gemm_bf16";
    case DLK_DTYPE_U8: return "ref:gemm_u8s8";
    case DLK_DTYPE_S8: return "ref:gemm_s8s8";
    default: return "ref:gemm_f32";
  }
}

}  // namespace

void gemm_strided(const core::GemmArgs &args, int threads) {
  if (args.k > 0) {
    if (args.is_integer()) return run_tiles<IntegerPath>(args, threads);
    return run_tiles<FloatPath>(args, threads);
  }
  // k == 0: C = beta * C as in BLAS. The accumulator is zero; a zero multiplier
  // keeps an infinite alpha or scale from turning that zero into NaN.
  core::GemmArgs scaled = args;
  scaled.alpha = 0.0f;
  scaled.multiplier = 0.0f;
  scaled.column_multipliers = nullptr;
  if (args.is_integer()) return run_tiles<IntegerPath>(scaled, threads);
  run_tiles<FloatPath>(scaled, threads);
}

core::GemmArgs single_gemm(int64_t m, int64_t n, int64_t k, const core::MatrixView &a,
                           const core::MatrixView &b, void *c, dlk_dtype c_type, int64_t rs_c,
                           int64_t cs_c) {
  core::GemmArgs g;
  g.m = m, g.n = n, g.k = k, g.batch = 1;
  g.a = a, g.b = b;
  g.c = c, g.c_type = c_type, g.rs_c = rs_c, g.cs_c = cs_c;
  return g;
}

core::OpResult gemm_reference(const core::GemmArgs &args, int threads) {
  gemm_strided(args, threads);
  return {implementation_name(args.a.dtype), 0};
}

}  // namespace dlk::cpu
