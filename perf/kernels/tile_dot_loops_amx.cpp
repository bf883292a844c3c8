#include <immintrin.h>

#include <cstdint>

#include "perf/kernels/perf_kernels.hpp"

namespace dlk::perf::kernels {
namespace {

struct alignas(64) TileConfig {
  std::uint8_t palette, start_row;
  std::uint8_t reserved[14];
  std::uint16_t bytes_per_row[16];
  std::uint8_t rows[16];
};

// Eight 16-row tiles of 64 bytes; accumulators tmm0-3 zeroed, operands
// tmm4-7 loaded from `operand`. GCC's tile intrinsics are asm statements
// that do not say they read memory: the barrier keeps the stores to the
// configuration and the operand ahead of them.
void start_tiles(const void *operand) {
  TileConfig cfg{};
  cfg.palette = 1;
  for (int t = 0; t < 8; ++t) cfg.rows[t] = 16, cfg.bytes_per_row[t] = 64;
  asm volatile("" ::: "memory");
  _tile_loadconfig(&cfg);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, operand, 64);
  _tile_loadd(5, operand, 64);
  _tile_loadd(6, operand, 64);
  _tile_loadd(7, operand, 64);
}

// `iterations` steps of four tile products (`step`) into tmm0-3, then
// element 0 of tmm0 as the loop's result.
template <class Acc, class Step>
Acc run_products(std::int64_t iterations, Step step) {
  for (std::int64_t i = 0; i < iterations; ++i) step();
  alignas(64) Acc out[16 * 16];
  _tile_stored(0, out, 64);
  asm volatile("" ::: "memory");
  _tile_release();
  return out[0];
}

}  // namespace

float tdpbf16_loop_amx(std::int64_t iterations) {
  // bf16 2^-10 everywhere: each step adds 32 products of 2^-20 per element,
  // which stay normal and stop growing long before a run ends.
  alignas(64) std::uint16_t operand[16 * 32];
  for (auto &v : operand) v = 0x3a80;
  start_tiles(operand);
  return run_products<float>(iterations, [] {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  });
}

std::int32_t tdpbusd_loop_amx(std::int64_t iterations) {
  // Products of 1 x 1: the s32 sums wrap, which costs nothing.
  alignas(64) std::uint8_t operand[16 * 64];
  for (auto &v : operand) v = 1;
  start_tiles(operand);
  return run_products<std::int32_t>(iterations, [] {
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
  });
}

}  // namespace dlk::perf::kernels
