// Compiled with -mamx-tile -mamx-bf16 and AVX-512 F/BW/DQ/BF16 (the store);
// called only where the CPU has AMX-BF16 and Linux has granted the tile state
// (core::CpuFeatures::amx_bf16, gemm_kernels.cpp).
//
// One 32 x 32 tile of C as four 16 x 16 f32 tiles (tmm0-3), A's two 16-row
// halves in tmm4-5 and B's two 16-column halves in tmm6-7: four tdpbf16ps per
// 32 k, each 16 x 16 x 32 multiply-adds, every A and B tile used twice.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "backends/cpu_avx512/kernels/gemm_tile_store_avx512.inc"

namespace dlk::cpu::kernels {
namespace {

constexpr int NR = 32;
constexpr int kTileRows = 16, kTileK = 32;  // bf16 k a tile row holds (64 bytes)

// GCC 12's AMX intrinsics are asm statements that do not say they read or
// write memory (ldtilecfg: 8 of its 64 bytes): without a barrier the stores
// to a buffer a tile instruction reads may be sunk past it (the tail's
// copies, the configuration), and the reads of one a tile store writes
// hoisted above it.
__attribute__((always_inline)) inline void memory_barrier() { asm volatile("" ::: "memory"); }

// The tile configuration (palette 1) as ldtilecfg reads it.
struct alignas(64) TileConfig {
  uint8_t palette, start_row;
  uint8_t reserved[14];
  uint16_t bytes_per_row[16];
  uint8_t rows[16];
};

// Tiles sized to the C tile's rows (a C or A tile of fewer than 16 rows reads
// and writes only those; an unused one stays unconfigured) and columns.
// ldtilecfg took 430 cycles on Intel Xeon model 167 (a 32 x 32 x 256 tile is
// 512 cycles of tdpbf16ps), sttilecfg 34: the configuration is loaded only
// where the tiles hold another (an edge tile's, or another library's).
void load_tile_config(int rows, int cols) {
  TileConfig want{};
  want.palette = 1;
  const int top = std::min(rows, kTileRows), bottom = rows - top;
  const bool right = cols > NR / 2;
  const auto set = [&](int t, int r) {
    want.rows[t] = static_cast<uint8_t>(r);
    want.bytes_per_row[t] = 64;
  };
  set(0, top);
  set(4, top);
  set(6, kTileRows);
  if (right) set(1, top), set(7, kTileRows);
  if (bottom > 0) {
    set(2, bottom);
    set(5, bottom);
    if (right) set(3, bottom);
  }
  TileConfig have;
  _tile_storeconfig(&have);
  memory_barrier();
  if (std::memcmp(&have, &want, sizeof want) == 0) return;
  memory_barrier();
  _tile_loadconfig(&want);
}

// C (+)= one k step of 32: A's rows at a (row stride a_bytes), B's 16 k-pairs
// of NR columns at b (row stride b_bytes). Bottom: rows 16-31 exist; Right:
// columns 16-31.
template <bool Bottom, bool Right>
__attribute__((always_inline)) inline void add_k_step(const void *a, int64_t a_bytes,
                                                      const void *b, int64_t b_bytes) {
  _tile_loadd(4, a, a_bytes);
  _tile_loadd(6, b, b_bytes);
  if (Bottom) _tile_loadd(5, static_cast<const char *>(a) + kTileRows * a_bytes, a_bytes);
  if (Right) _tile_loadd(7, static_cast<const char *>(b) + 64, b_bytes);
  _tile_dpbf16ps(0, 4, 6);
  if (Right) _tile_dpbf16ps(1, 4, 7);
  if (Bottom) _tile_dpbf16ps(2, 5, 6);
  if (Bottom && Right) _tile_dpbf16ps(3, 5, 7);
}

// Whether the tile goes to C as summed, or added to C (beta 1), by tile
// loads and stores of C itself: f32 C (or the driver's f32 workspace) with
// alpha 1, no bias or ReLU, and whole tiles of columns. (Through a buffer and
// AVX-512 the store took as long as the tile stores themselves.)
bool tiles_store_c(const F32Tile &tile, bool right) {
  return !tile.bf16 && tile.alpha == 1.0f && (tile.beta == 0.0f || tile.beta == 1.0f) &&
         !tile.row_bias && !tile.col_bias && !tile.relu && tile.cols == (right ? NR : NR / 2);
}

template <bool Bottom, bool Right>
void run_tile(int64_t kc, const uint16_t *a, const uint16_t *b, const F32Tile &tile) {
  const int64_t a_bytes = tile.a_rs * int64_t{sizeof(uint16_t)};
  constexpr int64_t b_bytes = NR * 2 * int64_t{sizeof(uint16_t)};
  const bool direct = tiles_store_c(tile, Right);
  float *const c = tile.c;
  const int64_t c_bytes = tile.ldc * int64_t{sizeof(float)};
  if (direct && tile.beta != 0.0f) {
    _tile_loadd(0, c, c_bytes);
    if (Right) _tile_loadd(1, c + 16, c_bytes);
    if (Bottom) _tile_loadd(2, c + kTileRows * tile.ldc, c_bytes);
    if (Bottom && Right) _tile_loadd(3, c + kTileRows * tile.ldc + 16, c_bytes);
  } else {
    _tile_zero(0);
    if (Right) _tile_zero(1);
    if (Bottom) _tile_zero(2);
    if (Bottom && Right) _tile_zero(3);
  }
  int64_t p = 0;
  for (; p + kTileK <= kc; p += kTileK)
    add_k_step<Bottom, Right>(a + p, a_bytes, b + p * NR, b_bytes);
  if (p < kc) {
    // The last k step's tail, zero-padded to 32 k: a tile load would read
    // past A's row and B's panel.
    alignas(64) uint16_t a_tail[2 * kTileRows][kTileK] = {};
    alignas(64) uint16_t b_tail[kTileRows][2 * NR] = {};
    const int64_t tail = kc - p;
    for (int i = 0; i < tile.rows; ++i)
      std::memcpy(a_tail[i], a + i * tile.a_rs + p, static_cast<size_t>(tail) * sizeof(uint16_t));
    std::memcpy(b_tail, b + p * NR, static_cast<size_t>(tail * NR) * sizeof(uint16_t));
    memory_barrier();
    add_k_step<Bottom, Right>(a_tail, sizeof a_tail[0], b_tail, sizeof b_tail[0]);
  }
  if (direct) {
    _tile_stored(0, c, c_bytes);
    if (Right) _tile_stored(1, c + 16, c_bytes);
    if (Bottom) _tile_stored(2, c + kTileRows * tile.ldc, c_bytes);
    if (Bottom && Right) _tile_stored(3, c + kTileRows * tile.ldc + 16, c_bytes);
    memory_barrier();
    return;
  }
  alignas(64) float acc[2 * kTileRows][NR];
  constexpr int64_t acc_bytes = sizeof acc[0];
  _tile_stored(0, &acc[0][0], acc_bytes);
  if (Right) _tile_stored(1, &acc[0][16], acc_bytes);
  if (Bottom) _tile_stored(2, &acc[kTileRows][0], acc_bytes);
  if (Bottom && Right) _tile_stored(3, &acc[kTileRows][16], acc_bytes);
  memory_barrier();
  // The store by F32Tile's rule, 8 rows of registers at a time.
  constexpr int R = 8, V = Right ? 2 : 1;
  const bool summed = stores_as_summed(tile);
  for (int i0 = 0; i0 < tile.rows; i0 += R) {
    __m512 x[R][V];
    for (int i = 0; i < R; ++i)
      for (int v = 0; v < V; ++v)
        x[i][v] = i0 + i < tile.rows ? _mm512_load_ps(&acc[i0 + i][16 * v]) : _mm512_setzero_ps();
    F32Tile part = tile;
    part.rows = std::min(R, tile.rows - i0);
    part.c += i0 * tile.ldc;
    if (part.row_bias) part.row_bias += i0;
    if (part.bf16) part.bf16 += i0 * tile.bf16_ld;
    if (summed)
      store_summed_tile_avx512<R, V>(x, part);
    else
      store_tile_avx512<R, V>(x, part);
  }
}

}  // namespace

void gemm_bf16_amx_32x32(int64_t kc, const uint16_t *a, const uint16_t *b, const F32Tile &tile) {
  prefetch_c_tile(tile);
  load_tile_config(tile.rows, tile.cols);
  const bool bottom = tile.rows > kTileRows, right = tile.cols > NR / 2;
  with_flag(bottom, [&](auto bottom_tiles) {
    with_flag(right, [&](auto right_tiles) {
      run_tile<decltype(bottom_tiles)::value, decltype(right_tiles)::value>(kc, a, b, tile);
    });
  });
}

}  // namespace dlk::cpu::kernels
