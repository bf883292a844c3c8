// Compiled with -mamx-tile -mamx-bf16 -mamx-int8 and AVX-512 F/BW/DQ/BF16 (the
// stores); called only where the CPU has AMX-BF16 or AMX-INT8 and Linux has
// granted the tile state (core::CpuFeatures, gemm_kernels.cpp).
//
// One 32 x 32 tile of C as four 16 x 16 tiles of f32 or s32 (tmm0-3), A's two
// 16-row halves in tmm4-5 and B's two 16-column halves in tmm6-7: four tile
// products per k step (32 bf16 or 64 int8: a 64-byte tile row), every A and
// B tile used twice.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backends/cpu_avx512/kernels/gemm_tile_store_avx512.inc"

namespace dlk::cpu::kernels {
namespace {

constexpr int NR = 32;
constexpr int kTileRows = 16;
constexpr int64_t kRowBytes = 64;  // of a tile; one k step of A's rows

#include "backends/cpu_avx512/kernels/amx_tiles.inc"

// Tiles sized to the C tile's rows (a C or A tile of fewer than 16 rows reads
// and writes only those; an unused one stays unconfigured) and columns.
void load_tile_config(int rows, int cols) {
  TileConfig want{};
  want.palette = 1;
  const int top = std::min(rows, kTileRows), bottom = rows - top;
  const bool right = cols > NR / 2;
  set_tile(want, 0, top);
  set_tile(want, 4, top);
  set_tile(want, 6, kTileRows);
  if (right) set_tile(want, 1, top), set_tile(want, 7, kTileRows);
  if (bottom > 0) {
    set_tile(want, 2, bottom);
    set_tile(want, 5, bottom);
    if (right) set_tile(want, 3, bottom);
  }
  ensure_tile_config(want);
}

// C (+)= one k step: A's rows at a (row stride a_bytes), B's 16 k-groups of NR
// columns at b (row stride b_bytes).
template <class Products, bool Bottom, bool Right>
__attribute__((always_inline)) inline void add_k_step(const void *a, int64_t a_bytes,
                                                      const void *b, int64_t b_bytes) {
  _tile_loadd(4, a, a_bytes);
  _tile_loadd(6, b, b_bytes);
  if (Bottom) _tile_loadd(5, static_cast<const char *>(a) + kTileRows * a_bytes, a_bytes);
  if (Right) _tile_loadd(7, static_cast<const char *>(b) + kRowBytes, b_bytes);
  Products::template run<Bottom, Right>();
}

// C's tiles from zero, or (Load) from c itself.
template <bool Bottom, bool Right>
void start_c(bool load, const void *c, int64_t ldc_bytes) {
  const char *at = static_cast<const char *>(c);
  if (load) {
    _tile_loadd(0, at, ldc_bytes);
    if (Right) _tile_loadd(1, at + kRowBytes, ldc_bytes);
    if (Bottom) _tile_loadd(2, at + kTileRows * ldc_bytes, ldc_bytes);
    if (Bottom && Right) _tile_loadd(3, at + kTileRows * ldc_bytes + kRowBytes, ldc_bytes);
  } else {
    _tile_zero(0);
    if (Right) _tile_zero(1);
    if (Bottom) _tile_zero(2);
    if (Bottom && Right) _tile_zero(3);
  }
}

template <bool Bottom, bool Right>
void store_c(void *c, int64_t ldc_bytes) {
  char *at = static_cast<char *>(c);
  _tile_stored(0, at, ldc_bytes);
  if (Right) _tile_stored(1, at + kRowBytes, ldc_bytes);
  if (Bottom) _tile_stored(2, at + kTileRows * ldc_bytes, ldc_bytes);
  if (Bottom && Right) _tile_stored(3, at + kTileRows * ldc_bytes + kRowBytes, ldc_bytes);
  memory_barrier();
}

// The k loop over kc elements (1 or 2 bytes) of A's rows and B's k-group
// panel; the last step's tail, zero-padded to a whole step: a tile load would
// read past A's row and B's panel.
template <class Products, bool Bottom, bool Right, class Elem, class BElem>
void add_k(int64_t kc, const Elem *a, int64_t a_rs, int rows, const BElem *b) {
  static_assert(sizeof(Elem) == sizeof(BElem), "A and B hold elements of one size");
  constexpr int64_t step = kRowBytes / sizeof(Elem);
  const int64_t a_bytes = a_rs * int64_t{sizeof(Elem)};
  constexpr int64_t b_bytes = NR * kRowBytes / kTileRows;  // a k-group row of NR columns
  int64_t p = 0;
  for (; p + step <= kc; p += step)
    add_k_step<Products, Bottom, Right>(a + p, a_bytes, b + p * NR, b_bytes);
  if (p == kc) return;
  alignas(64) Elem a_tail[2 * kTileRows][step] = {};
  alignas(64) BElem b_tail[kTileRows][b_bytes / sizeof(Elem)] = {};
  const int64_t tail = kc - p;
  for (int i = 0; i < rows; ++i)
    std::memcpy(a_tail[i], a + i * a_rs + p, static_cast<size_t>(tail) * sizeof(Elem));
  std::memcpy(b_tail, b + p * NR, static_cast<size_t>(tail * NR) * sizeof(BElem));
  memory_barrier();
  add_k_step<Products, Bottom, Right>(a_tail, sizeof a_tail[0], b_tail, sizeof b_tail[0]);
}

// The C tile's rows in a buffer, for a store by the AVX-512 rules.
template <bool Bottom, bool Right, class Acc>
void store_to_buffer(Acc (&acc)[2 * kTileRows][NR]) {
  store_c<Bottom, Right>(&acc[0][0], int64_t{sizeof acc[0]});
}

// C's row stride in bytes for the tile loads and stores of `rows` rows: one
// row's is never used, and a GEMM of one row may have any ldc (dlk.h), up to
// the largest int64_t, whose bytes overflow.
int64_t c_row_bytes(int64_t ldc, int rows, int64_t elem) { return (rows > 1 ? ldc : 1) * elem; }

// Whether an f32 tile goes to C (or the driver's f32 workspace) as summed, or
// added to it (beta 1), by tile loads and stores of C itself: alpha 1, no
// bias or ReLU, whole tiles of columns. (Through a buffer and AVX-512 the
// store took as long as the tile stores themselves.)
bool tiles_store_c(const F32Tile &tile, bool right) {
  return !tile.bf16 && tile.alpha == 1.0f && (tile.beta == 0.0f || tile.beta == 1.0f) &&
         !tile.row_bias && !tile.col_bias && !tile.relu && tile.cols == (right ? NR : NR / 2);
}
// An s32 tile likewise: no zero point to compensate.
template <bool U8A>
bool tiles_store_c(const S32Tile &tile, bool right) {
  return (U8A ? tile.a_zero : tile.b_zero) == 0 && tile.cols == (right ? NR : NR / 2);
}

template <bool Bottom, bool Right>
void run_bf16(int64_t kc, const uint16_t *a, const uint16_t *b, const F32Tile &tile) {
  const bool direct = tiles_store_c(tile, Right);
  const int64_t c_bytes = c_row_bytes(tile.ldc, tile.rows, int64_t{sizeof(float)});
  start_c<Bottom, Right>(direct && tile.beta != 0.0f, tile.c, c_bytes);
  add_k<Bf16Products, Bottom, Right>(kc, a, tile.a_rs, tile.rows, b);
  if (direct) return store_c<Bottom, Right>(tile.c, c_bytes);
  alignas(64) float acc[2 * kTileRows][NR];
  store_to_buffer<Bottom, Right>(acc);
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

// S32Tile's rule: c = v, or c + v where accumulate, v = acc - a_zero col_sums[j]
// (u8 A) or acc - b_zero row_sums[i] (s8 A), wrapping modulo 2^32.
template <class Products, bool Bottom, bool Right, class AType, class BType>
void run_int8(int64_t kc, const AType *a, const BType *b, const S32Tile &tile) {
  constexpr bool u8_a = std::is_same_v<AType, uint8_t>;
  const bool direct = tiles_store_c<u8_a>(tile, Right);
  const int64_t c_bytes = c_row_bytes(tile.ldc, tile.rows, int64_t{sizeof(int32_t)});
  start_c<Bottom, Right>(direct && tile.accumulate, tile.c, c_bytes);
  add_k<Products, Bottom, Right>(kc, a, tile.a_rs, tile.rows, b);
  if (direct) return store_c<Bottom, Right>(tile.c, c_bytes);
  alignas(64) int32_t acc[2 * kTileRows][NR];
  store_to_buffer<Bottom, Right>(acc);
  constexpr int V = Right ? 2 : 1;
  __mmask16 mask[V];
  __m512i col_comp[V];
  for (int v = 0; v < V; ++v) {
    mask[v] = first_lanes(tile.cols - 16 * v);
    const __m512i sums = u8_a && tile.a_zero
                             ? _mm512_maskz_loadu_epi32(mask[v], tile.col_sums + 16 * v)
                             : _mm512_setzero_si512();
    col_comp[v] = _mm512_mullo_epi32(_mm512_set1_epi32(tile.a_zero), sums);
  }
  for (int i = 0; i < tile.rows; ++i) {
    int32_t *c = tile.c + i * tile.ldc;
    const __m512i row_comp = _mm512_set1_epi32(static_cast<int32_t>(
        !u8_a && tile.b_zero ? static_cast<uint32_t>(tile.b_zero) *
                                   static_cast<uint32_t>(tile.row_sums[i])
                             : 0u));
    for (int v = 0; v < V; ++v) {
      __m512i x = _mm512_sub_epi32(_mm512_load_si512(&acc[i][16 * v]),
                                   u8_a ? col_comp[v] : row_comp);
      if (tile.accumulate) x = _mm512_add_epi32(x, _mm512_maskz_loadu_epi32(mask[v], c + 16 * v));
      _mm512_mask_storeu_epi32(c + 16 * v, mask[v], x);
    }
  }
}

// Runs body(Bottom, Right) for the tile's shape, the configuration loaded.
template <class Tile, class Body>
void with_tiles(const Tile &tile, Body &&body) {
  load_tile_config(tile.rows, tile.cols);
  with_flag(tile.rows > kTileRows, [&](auto bottom) {
    with_flag(tile.cols > NR / 2, [&](auto right) { body(bottom, right); });
  });
}

}  // namespace

void gemm_bf16_amx_32x32(int64_t kc, const uint16_t *a, const uint16_t *b, const F32Tile &tile) {
  prefetch_c_tile(tile);
  with_tiles(tile, [&](auto bottom, auto right) {
    run_bf16<decltype(bottom)::value, decltype(right)::value>(kc, a, b, tile);
  });
}

void gemm_s32_amx_32x32(int64_t kc, const uint8_t *a, const int8_t *b, const S32Tile &tile) {
  prefetch_c_tile(tile.c, tile.ldc, tile.rows, tile.cols);
  with_tiles(tile, [&](auto bottom, auto right) {
    run_int8<U8S8Products, decltype(bottom)::value, decltype(right)::value>(kc, a, b, tile);
  });
}

void gemm_s8u8s32_amx_32x32(int64_t kc, const int8_t *a, const uint8_t *b, const S32Tile &tile) {
  prefetch_c_tile(tile.c, tile.ldc, tile.rows, tile.cols);
  with_tiles(tile, [&](auto bottom, auto right) {
    run_int8<S8U8Products, decltype(bottom)::value, decltype(right)::value>(kc, a, b, tile);
  });
}

}  // namespace dlk::cpu::kernels
